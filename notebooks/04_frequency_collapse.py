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
# # 04 · Token frequency: it changes norms, and training can turn it into a cone
#
# **Question.** Some tokens occur thousands of times more often than others. Does that alone
# bend an embedding space into a cone, and if so, by what mechanism?
#
# **Time:** about 75 minutes, an estimate (counted from the text, the exercises and the running time, not timed on learners; see TEACHING.md). **After this notebook you can** tell a change of *norms* from a
# change of *directions* with notebook 01's meter table, train a tiny language model in numpy and
# watch its rare tokens drift into a cone (the representation degeneration of Gao et al. 2019),
# name the control that stops it, and say what frequency does to norms in a toy and in a real
# model.
#
# **Theory:** [§4.2 Token frequency](../research/03-isotropy-anisotropy.md#42-token-frequency) and
# [§4.4 Likelihood training with tied embeddings](../research/03-isotropy-anisotropy.md#44-likelihood-training-with-tied-embeddings).

# %%
import numpy as np

from shared import (
    band_cosines,
    band_rows,
    bigram_language,
    cov_eigs,
    degeneration_grid,
    degeneration_runs,
    effective_rank,
    frequency_pull,
    gaussian_effective_rank,
    make_isotropic,
    mean_cosine,
    meter_table,
    partition_isotropy,
    spearman,
    stored_cone_lifetimes,
    zipf_frequencies,
)
from shared.exercises import check, solution
from shared.explorers import choice, explore, slider
from shared.predictions import predict
from shared.figures import DegenerationView, FrequencyView
from shared.real.encoder import word_embeddings
from shared.real.frequency import frequency_words, static_norm_frequency

# %% [markdown]
# ## Part 1 · A frequency pull
#
# Word frequencies follow Zipf's law: the token of rank $r$ has probability proportional to
# $r^{-s}$ with $s \approx 1$. The first toy asks what happens if frequent tokens are pulled toward
# the origin more than rare ones: each embedding is multiplied by
# $1 - \gamma\sqrt{f_t / f_{\max}}$ ($f_t$ the frequency of token $t$, $f_{\max}$ the largest), so the
# more frequent a token, the more it is shortened, and the rarest are barely touched. We give 1,200 tokens isotropic 50-dimensional embeddings (seed 4),
# Zipf frequencies with $s = 1$, and pull with $\gamma = 0.9$.
#
# **Predict first.** A 50-dimensional Gaussian vector has a norm of about $\sqrt{50}$. What norm
# will the most frequent token keep, and will the pull make a cone?

# %%
predict("04.p1")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
freq = zipf_frequencies(1200, exponent=1.0)  # token 0 is the most frequent
start = make_isotropic(1200, 50, rng=4)
emb = frequency_pull(start, freq, gamma=0.9)
norms = np.linalg.norm(emb, axis=1)
print(f"a 50-d Gaussian vector: norm about sqrt(50) = {np.sqrt(50):.2f}")
print(f"most frequent token : norm = {norms[0]:.2f}")
print(f"least frequent token: norm = {norms[-1]:.2f}")
print(f"partition isotropy of the embedding matrix = {partition_isotropy(emb):.3f}")

# %% jupyter={"outputs_hidden": true}
FrequencyView(freq, emb)

# %% [markdown] tags=["reveal-end"]
# **Compare with your guess.** Open the folded output above and set it beside your prediction
# before you read on.
#
# The most frequent token keeps a norm of 0.72, the least frequent 6.31. Over bands of ranks the
# typical norm rises with rank (left), though token by token the Gaussian's own spread of lengths
# blurs the trend beyond the first few dozen ranks. In the PCA picture (right) the brightest, most
# frequent tokens sit at the centre and the dark, rare ones around them: the common picture of
# frequent tokens "pinned to the centre".
#
# **Is that a cone?** Notebook 01's yardstick answers: every meter for the pulled tokens, beside
# the same tokens before the pull (the mechanism switched off) and a Gaussian of the same size.
# A third row multiplies each token by a random factor of its own, $e^z$ with
# $z \sim \mathcal N(0, 1)$, far more unevenly than the pull does.

# %%
lengths = np.exp(np.random.default_rng(41).standard_normal(len(start)))
print(meter_table({"frequency pull, gamma = 0.9": emb, "no pull (control), gamma = 0": start,
                   "random lengths, same directions": start * lengths[:, None]}))
factor = 1 - 0.9 * np.sqrt(freq / freq.max())  # what the pull multiplies each token by
print(f"tokens the pull shortens by more than a tenth: {np.sum(factor < 0.9)} of {len(freq):,}")

# %% [markdown]
# The third row is one draw of heavy-tailed factors. Before reading its verdict, draw the factors
# five times, at this size and at ten times the size:

# %%
print("effective rank of 'random lengths, same directions' (of 50), five draws of the lengths (seeds 41-45)")
for n in (1200, 12000):
    directions = make_isotropic(n, 50, rng=4)
    ranks = [effective_rank(cov_eigs(directions * np.exp(np.random.default_rng(s).standard_normal(n))[:, None]))
             for s in range(41, 46)]
    print(f"  n = {n:6,d}: " + "  ".join(f"{r:5.1f}" for r in ranks)
          + f"    a Gaussian of this size: {gaussian_effective_rank(n, 50):.1f}")

# %% [markdown]
# Before reading the verdict, one question about the first two rows of the table:
#
# **04.1 · Explain.** In the table the pulled tokens and the unpulled ones have exactly the same mean cosine and uniformity, and they keep them for any pull strength $\gamma < 1$. Which change to the toy *could* move those two meters? (a) a stronger pull, $\gamma = 0.99$, which shortens the most frequent tokens to almost nothing (b) adding one small vector, the same for every token, after the pull (c) a steeper Zipf law, so that many more of the tokens are shortened by much
#
# Answer first, then read on.

# %%
answer = None  # one of "a", "b", "c"
check("04.1", answer)
# solution("04.1")  # the worked solution, folded: uncomment after a real try

# %% [markdown]
# **What the table says.** The pull leaves every meter where it was: the pulled tokens and the
# control agree to within 0.001 (partition $I$ 0.637 both, IsoScore 0.959 against 0.960),
# both sit on the Gaussian baseline, and neither failure of notebook 01 appears. Two reasons, and
# only one is general. The pull multiplies each token by a positive number, so the mean cosine and
# uniformity, which look only at directions, cannot move, for any $\gamma < 1$ (at $\gamma = 1$ the
# most frequent token becomes the zero vector, which has no direction). The other meters
# could: partition isotropy and the ranks weigh each token by its length. The third row shows what
# wildly unequal lengths do to them *in one sample* (partition $I$ 0.000, effective rank 21.6, a
# *collapsed spread* in the table's words), with the mean cosine untouched. The pull does not get
# there because it shortens few tokens by much: only 80 of the 1,200 lose more than a tenth of
# their length. The tokens "at the centre" are short, and their directions are as random as before.
#
# **The third row is a sampling effect, not a property of random lengths.** Its effective rank moves
# from 17.7 to 27.8 over five draws of the lengths at 1,200 tokens, and reaches 41.4 to 45.9 at
# 12,000. Independent lengths leave the *population* covariance round: it is
# $E[e^{2z}]\,I$, every direction alike. What shrinks the sample's rank is the tail of the lengths:
# the second moment of $e^{2z}$ is $e^4 \approx 55$ times its squared mean
# ($E[e^{4z}]/E[e^{2z}]^2 = e^8/e^4$), so a sample of $n$ tokens
# estimates the covariance about as well as $n/55$ equal-length ones would, and 1,200 tokens are
# too few for it. The verdict to keep is the narrower one: unequal lengths *can* make a sample
# look like a collapsed spread; the meter then measures the sample, not a direction the tokens share.
#
# One might read 0.637 as a drop from the partition isotropy of notebook 01's isotropic
# cloud. That compares clouds of different sizes and samples: the unpulled tokens score 0.637 themselves, and
# a fresh Gaussian of 1,200 points 0.595. Notebook 01's rule again: compare with a baseline of the
# same size, and with the mechanism switched off.
#
# So this toy is a statement about norms. Whether frequent tokens really end up *short* is a
# question for trained models, and Part 3 measures it. First, a mechanism that does move directions.
#
# ## Part 2 · Representation degeneration: a cone made by training
#
# Gao et al. (2019) named the representation degeneration problem. In a language model whose
# output layer shares its weights with the input embeddings ("tied" embeddings), training by
# likelihood does two things to the output vector $e_w$ of every token at every step:
#
# * it **pulls** the true next token's vector toward the context state $h$;
# * it **pushes** every other token's vector away from $h$, each in proportion to the probability
#   $q(w \mid c)$ the model gave it.
#
# A frequent token is often the right answer, so the pulls win. A rare token is almost never the
# right answer, so it is only pushed. Early in training the context states share a direction
# $\bar h$ (the part of $h$ that says "common words are likely"), so every push on every rare token
# points the same way, $-\bar h$, and the rare tokens drift together: a cone made by training.
#
# The toy is the smallest language model that has this structure: 128 tokens with Zipfian
# frequencies, 8 dimensions, one context token $c$ with state $h_c = \tanh(e_c A + b)$ (the
# embedding $e_c$ of the context token, times a trained $8 \times 8$ matrix $A$, plus a trained bias
# vector $b$ of 8 entries, through $\tanh$), next-token
# probabilities $q(w \mid c) = \operatorname{softmax}_w(e_w \cdot h_c)$ with the *same* $e_w$ (tied),
# and a next token that is the context's partner half of the time and a fresh Zipf draw otherwise.
# It is trained by plain gradient descent on the exact expected loss, starting from small random
# embeddings. With $P(c, w)$ the probability that context $c$ is followed by token $w$, and
# $p_c = \sum_w P(c, w)$ the probability of context $c$ itself (how often it occurs), the gradient
# of the expected loss $L = -\sum_{c, w} P(c, w) \log q(w \mid c)$ with respect to the logits
# $e_w \cdot h_c$ is
#
# $$G_{cw} = p_c\, q(w \mid c) - P(c, w),$$
#
# push minus pull, so the output vector of token $w$ moves along
# $-\sum_c G_{cw}\, h_c$.
#
# **Your turn · 04.2 · Implement.** Write that gradient for the output vectors: given the context
# states `H` (row $c$ is $h_c$), the model's probabilities `Q[c, w]` $= q(w \mid c)$ and the pair
# probabilities `P[c, w]` $= P(c, w)$ (so $p_c$ is the sum of row $c$ of `P`), return the matrix
# whose row $w$ is $\sum_c G_{cw}\, h_c$. The check compares it with the toolkit's training code on
# three small models (6 tokens with Zipf exponent 1, 10 tokens with exponent 2, and 8 tokens of
# equal frequency).

# %%
def output_gradient(H: np.ndarray, Q: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Gradient of the expected loss with respect to the output vectors: row w is sum_c G[c, w] H[c]."""
    raise NotImplementedError  # replace this line with your code


check("04.2", output_gradient)
# solution("04.2")  # the worked solution, folded: uncomment after a real try

# %% [markdown]
# We train five models, one per Zipf exponent $s$ from 0 (every token
# equally frequent: the control) to 2, and measure the mean cosine within three frequency bands:
# the most frequent 10 %, the next 40 %, and the rarer half.
#
# **Predict first.** Which band will become a cone: the frequent tokens, the rare ones, or both?
# And with $s = 0$?

# %%
predict("04.p2")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
# five models, 1,600 steps each, trained side by side as one stack; keyed by (exponent, seed, corpus)
runs = {s: r for (s, seed, corpus), r in degeneration_grid(exponents=(0.0, 0.5, 1.0, 1.5, 2.0)).items()}
run, control = runs[1.0], runs[0.0]
print("mean cosine within each band, by training step")
print(f"{'':35s}" + "".join(f"{step:>8d}" for step in run.steps))
for name, r in [("Zipf s = 1 (tied)", run), ("uniform s = 0 (control)", control)]:
    bands = band_cosines(r)
    for band in ("frequent", "middle", "rare"):
        print(f"{name + ', ' + band:35s}" + "".join(f"{c:+8.3f}" for c in getattr(bands, band)))

# %% jupyter={"outputs_hidden": true}
DegenerationView(run)

# %% [markdown] tags=["reveal-end"]
# **Compare with your guess.** Open the folded output above and set it beside your prediction
# before you read on.
#
# **What you see.** With Zipfian frequencies the rare half of the vocabulary drifts into a cone:
# its mean cosine climbs from $+0.002$ at the start to $+0.674$ after 200 steps and $+0.877$ after
# 1,600 (this seed and this training length; the next section trains longer). The frequent tokens form a cone first ($+0.898$ at step 200), which loosens, plausibly as
# they learn their own partners ($+0.484$ at step 1,600). With every token equally frequent, no
# band leans: in this run every band's mean cosine stays within a few hundredths of 0 (one seed;
# the frequent band has only 13 tokens, too few for a steady mean in every draw). In the
# middle panel, the directions of the rare tokens (dark) gather on one side and those of the
# frequent tokens (bright) on the opposite side. The push and the pull act along the same shared
# direction, the average context state $\bar h$, with opposite signs:

# %%
k = run.at(1600)
U = run.emb[k] / np.linalg.norm(run.emb[k], axis=1, keepdims=True)  # directions of the embeddings
mean_direction = {band: U[band_rows(128, band)].mean(axis=0) for band in ("frequent", "rare")}


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


print(f"step 1600: cosine of the mean rare direction with the mean frequent one = "
      f"{cos(mean_direction['rare'], mean_direction['frequent']):+.3f}")
print(f"           cosine of the mean rare direction with the average context state = "
      f"{cos(mean_direction['rare'], run.hbar[k]):+.3f}")

# %% [markdown]
#
# **The yardstick.** A cone is a measured offset against a baseline and a control. Here are the
# rare half and the whole vocabulary at two training lengths, beside the uniform-frequency control
# and Gaussians of the same size:

# %%
rare = band_rows(128, "rare")
for step in (200, 1600):
    k = run.at(step)
    print(f"after {step} steps")
    print(meter_table({"rare half, Zipf s = 1": run.emb[k][rare], "rare half, uniform (control)": control.emb[k][rare],
                       "all 128 tokens, Zipf s = 1": run.emb[k], "all 128 tokens, uniform (control)": control.emb[k]}))
    print()

# %% [markdown]
# **What the tables say.**
#
# * **The rare half is a cone made by frequency.** After 200 steps it has a shared offset (mean
#   cosine $+0.674$ against $-0.004$ for its Gaussian, partition $I$ 0.010 against 0.560) while its
#   spread is intact (effective rank 6.7 of 8, like the Gaussian's 7.2): a cone, and nothing else.
#   The control has neither failure. After 1,600 steps the offset has grown ($+0.877$) and the
#   spread has narrowed to 4.6, but the control's spread narrows just as much (4.5): that narrowing
#   comes from training as such, and the offset is what frequency adds.
# * **The whole vocabulary is two cones pointing in opposite directions.** Because frequent and
#   rare tokens lean along $+\bar h$ and $-\bar h$, their cosines largely cancel in the overall
#   mean ($+0.116$ at step 200, just past the table's threshold, and $+0.082$ at step 1,600, just
#   below it: a weak verdict either way), while the single axis they share makes the spread
#   collapse (effective rank 1.6 and 3.0, against 7.5 for the Gaussian and 6.5 and 4.6 for the
#   control). Gao et al. report that *most* of the learnt embeddings of such models degenerate into
#   a narrow cone. Whether a rare tail, which is most of a real vocabulary, would dominate it as
#   the course's reasoning suggests is an extrapolation this small toy cannot test; Part 3 finds
#   no such cone among a real model's rare *words*, only among its `[unused]` tokens.
#
# ## How long does the cone last? Two regimes
#
# Every step above used the *exact* expected loss: every token is a target with its true
# probability, however small, so every rare token gets a small pull at every step, and the pulls
# add up. A real model never sees that loss. It trains on a finite corpus, and in a large
# vocabulary many tokens are almost never, or never, the right answer: for them the push is all
# there is. So we train longer, three seeds each, in both regimes: the exact loss, and the loss on
# a corpus of 1,000 (context, target) pairs drawn from the same language (a different corpus per
# seed). The lowest loss the exact regime can reach is the language's own conditional entropy.
#
# **Predict first.** Trained four times longer, does the rare cone grow, stay, or fade? Does the
# answer depend on the regime?

# %%
predict("04.p3")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
seeds, steps, corpus = (0, 1, 2), (200, 1600, 6400), 1000
both = degeneration_grid(exponents=(1.0,), seeds=seeds, corpora=(None, corpus), checkpoints=steps)  # None: exact loss
exact = [both[1.0, seed, None] for seed in seeds]
finite = [both[1.0, seed, corpus] for seed in seeds]


def spread_over_seeds(values: list[float]) -> str:
    return f"{min(values):+.3f} to {max(values):+.3f}"


rare = band_rows(128, "rare")
print(f"{'three seeds, min to max':44s}" + "".join(f"{f'step {t:,}':>18s}" for t in steps))
sweep = {
    "exact loss: loss": [[r.loss[k] for r in exact] for k in range(len(steps))],
    "exact loss: rare half, mean cosine": [[mean_cosine(r.emb[k][rare]) for r in exact] for k in range(len(steps))],
    "corpus: tokens never a target": [[mean_cosine(r.emb[k][~r.seen]) for r in finite] for k in range(len(steps))],
    "corpus: rare tokens that are targets": [[mean_cosine(r.emb[k][rare[r.seen[rare]]]) for r in finite]
                                             for k in range(len(steps))],
}
for name, columns in sweep.items():
    print(f"{name:44s}" + "".join(f"{spread_over_seeds(c):>18s}" for c in columns))
joint = bigram_language(128, 1.0)  # P(c, w), every entry positive
entropy = -np.sum(joint * np.log(joint / joint.sum(axis=1, keepdims=True)))
print(f"lowest possible exact loss (conditional entropy of the language): {entropy:.2f}")
print(f"tokens never a target in the corpus of {corpus:,} pairs, by seed:", [int((~r.seen).sum()) for r in finite])

# %% [markdown] tags=["reveal-end"]
# **Compare with your guess.** Open the folded output above and set it beside your prediction
# before you read on.
#
# **What the sweep says.** At this size and step (128 tokens, 8 dimensions, learning rate 0.25),
# under the exact loss the cone is **transient**, in every seed: the rare
# half leans $+0.827$ to $+0.877$ at step 1,600, and only $+0.345$ to $+0.445$ at step 6,400, while
# the loss is still falling ($3.065$ to $3.133$ against an optimum of 2.54). Every rare token is a
# target now and then, its pull is small but never zero, and given time the pulls undo the pushes.
# On a finite corpus the tokens split by one fact: whether the corpus ever shows them as a target.
# Rare tokens that are targets, even a few times, leave the cone *faster* than under the exact loss
# ($+0.002$ to $+0.037$ at step 6,400: on so small a corpus their few occurrences weigh much more
# than their true probability). Tokens that are never a target (3 to 16 of the 128, by seed: one
# seed has only 3, so their mean cosine is a mean of three pairs) get only the push, and Gao et
# al.'s argument is about them: for a token that is never the answer, the loss keeps falling as
# its logit falls after every context. Yet in this toy they do not stay in the cone either: from
# $+0.808$ to $+0.871$ at step 200 they fall to $+0.409$ to $+0.526$ at step 6,400, about as much as
# the exact-loss rare half loses between steps 1,600 and 6,400 ($+0.827$ to $+0.877$, then
# $+0.345$ to $+0.445$), plausibly as the contexts themselves spread out. Up to step 6,400, never-targets
# loosen about as fast as the exact-loss rare half did up to then; what the finite corpus adds is that rare *targets*
# leave the cone almost completely. The gap between the two groups at step 6,400 is what holds in
# every seed.
#
# ### How long does the cone last? Learning rate, vocabulary and width
#
# "Transient" was measured on one model trained with one step size. Three knobs could change it.
# **The learning rate**: gradient descent with a smaller step follows nearly the same path, more
# slowly, so runs are compared at equal *training time*, learning rate $\times$ steps (step 6,400 at
# 0.25 is time 1,600). **The vocabulary**: a real one is hundreds of times larger than 128, and its
# rare tail is longer. **The width** $d$. Trained far enough to see the cone fade, the larger
# settings take minutes (384 tokens to time 6,400 is 25,600 steps of a model nine times as
# costly), so this grid was computed once by `cone_lifetime_grid()` and is read from the toolkit's
# data (`stored_cone_lifetimes()`); the last line recomputes its first row from the exact-loss runs
# above. Each cell: min-max over seeds 0-2 of the rare half's mean cosine (exact loss), or of the
# never-targets' (finite corpus); a blank cell was not trained that far.

# %%
grid = stored_cone_lifetimes()
times = grid[0].times
print(f"{'mean cosine, seeds 0-2 (min-max)':44s}" + "".join(f"{f't = {t:,.0f}':>11s}" for t in times))
for g in grid:
    label = f"{g.vocab} tokens, d = {g.d}, lr = {g.lr:g}" + ("" if g.corpus is None else f", corpus {g.corpus:,}")
    cells = {t: f"{v.min():.2f}-{v.max():.2f}" for t, v in zip(g.times, g.values)}
    print(f"{label:44s}" + "".join(f"{cells.get(t, ''):>11s}" for t in times))
print("(rows with a corpus: the tokens never a target in it; the other rows: the rare half under the exact loss)")
print(f"(t = learning rate x steps: t = 6,400 is {6400 / 0.25:,.0f} steps at lr = 0.25, t = 1,600 is {1600 / 0.05:,.0f} at 0.05)")
stored = grid[0].values[[list(times).index(t) for t in (50, 400, 1600)]]  # steps 200, 1,600 and 6,400 at lr 0.25
recomputed = np.array([[mean_cosine(r.emb[k][rare]) for r in exact] for k in range(len(steps))])
print(f"first row recomputed from the runs above (steps 200, 1,600, 6,400): agrees to 1e-9: "
      f"{bool(np.abs(stored - recomputed).max() < 1e-9)}")

# %% [markdown]
# **What the grid says.**
#
# * **The learning rate only sets the clock.** At 0.05, step 6,400 is only time 320 (between the
#   columns 200 and 400), near the top of the cone, while the 0.25 run at the same step (time
#   1,600) has faded to 0.35-0.44: stopped there, the slower run would make the cone look
#   permanent. Read at equal training time, the two rows agree within a few hundredths in every
#   column, and by time 1,600 the 0.05 run has faded as far (0.36-0.45). "Transient" is a statement
#   about training time, not steps.
# * **A larger vocabulary makes the cone last longer.** At 128 tokens the rare half peaks between
#   times 200 and 400 and is down to 0.35-0.44 at 1,600. At 384 tokens it is 0.83-0.84 at time
#   400, still rising to its peak near 800 (0.88-0.89), and at 1,600 it still leans 0.83-0.87; it
#   falls only later (0.40-0.53 at 6,400). 256 tokens sit in between (0.71-0.76 at 1,600, 0.41-0.51
#   at 3,200). The lifetime grows about in step with the vocabulary or faster: the 256-token cone
#   at time 3,200 and the 384-token one at 6,400 lean about as much as the 128-token one at 1,600.
#   Under the exact loss the cone fades within the times trained at 128 and 256 tokens; at 384
#   tokens it is still 0.40-0.53 at 6,400, as high as the never-targets: the larger the
#   vocabulary, the longer it lasts.
# * **The never-targets loosen, then level off.** On a finite corpus their lean falls to about half
#   its top and then changes slowly: at 128 tokens 0.41-0.53 at time 1,600 and still 0.32-0.45 at
#   6,400 (one seed's rises a little), while the exact-loss rare half is down to 0.12-0.15. With a
#   corpus scaled with the vocabulary (3,000 pairs for 384 tokens) they stay higher (0.57-0.69 at
#   1,600, 0.46-0.57 at 6,400). Within the times trained, the tokens a corpus never shows as a
#   target keep a lasting lean; whether it would vanish with more training the grid does not show.
# * **A wider model makes a weaker, shorter cone.** At $d = 16$ the rare half peaks at 0.70-0.74
#   and at $d = 32$ at 0.48-0.50, both at time 200, and both fade earlier than at $d = 8$
#   (0.11-0.14 and 0.04-0.05 at time 1,600). A plausible reason, not tested here: with more room,
#   the rare tokens need not share one direction to move away from the contexts.
#
# **Which regime is a real model in?** A finite corpus and a vocabulary of tens of thousands, with
# many tokens rarely or never the answer: the second, at a vocabulary far beyond this grid. In this
# toy the exact-loss cone fades within the times trained at 128 and 256 tokens but not yet at 384,
# and on a finite corpus the never-targets keep a lean through the longest runs; the larger the vocabulary the longer the cone lasts, and a
# real model is both wider (which shortens it here) and has a far larger vocabulary (which
# lengthens it); the toy cannot say which wins. What the sampled corpus changes is *which* tokens
# keep it longest (those never seen as a target) and which leave it (rare targets). Part 3 looks at
# a real model's vocabulary.
#
# The uniform-frequency run above is one control. The other candidate is to untie the output
# layer from the embeddings, so that the two matrices train separately.
#
# **04.3 · Explain.** In the trained toy, which change stops the rare tokens from leaning together (the offset)? (a) untying the output layer from the embeddings, so the rare rows get a gradient of their own (b) either one, because each of them removes the one-sided push on the rare tokens (c) making every token equally frequent, so push and pull balance for every token
#
# Answer first, then run the untied model below.

# %%
answer = None  # one of "a", "b", "c"
check("04.3", answer)
# solution("04.3")  # the worked solution, folded: uncomment after a real try

# %% [markdown]
# **Which control stops it?** Uniform frequencies remove the offset; they do not stop the narrowing
# of the spread, which comes from training itself. Untying the output layer from the embeddings
# does not remove the offset. Trained untied, the *output* matrix forms the same rare cone, and the
# input embeddings form a later, weaker one:

# %%
untied_runs = {8: degeneration_runs(exponent=1.0, tied=False, seeds=(0, 1, 2))}  # seeds 0-2, for the next cell too
untied = untied_runs[8][0]  # seed 0
print(f"{'rare half, mean cosine':34s}" + "".join(f"{step:>8d}" for step in untied.steps))
for name, bands in [("tied: the embeddings", band_cosines(run)),
                    ("untied: the output matrix", band_cosines(untied, output=True)),
                    ("untied: the input embeddings", band_cosines(untied))]:
    print(f"{name:34s}" + "".join(f"{c:+8.3f}" for c in bands.rare))

# %% [markdown]
# That untied run is one size. The input embeddings' drift depends on it: three seeds at two
# widths, rare half at step 1,600:

# %%
print(f"{'untied, rare half at step 1,600 (seeds 0-2)':46s}{'input embeddings':>22s}{'output matrix':>22s}")
for d in (8, 16):
    if d not in untied_runs:
        untied_runs[d] = degeneration_runs(exponent=1.0, tied=False, d=d, checkpoints=(1600,), seeds=(0, 1, 2))
    inputs = [mean_cosine(r.emb[r.at(1600)][rare]) for r in untied_runs[d]]
    outputs = [mean_cosine(r.out[r.at(1600)][rare]) for r in untied_runs[d]]
    print(f"{f'128 tokens x {d} dimensions':46s}{spread_over_seeds(inputs):>22s}{spread_over_seeds(outputs):>22s}")

# %% [markdown]
# The softmax layer makes the cone; tying hands that layer's geometry to the embedding table.
# Untied, the input embeddings stay round for the first 200 steps ($+0.012$) and then drift too
# ($+0.564$ at step 1,600): every context receives almost the same error signal ("predict the
# common words"), plausibly a second shared push. How far they drift depends on the width: over
# three seeds, $+0.496$ to $+0.564$ at 8 dimensions and $+0.293$ to $+0.369$ at 16, while the output
# matrix leans at both ($+0.861$ to $+0.882$, $+0.675$ to $+0.703$). So "untying does not help" holds
# for the output matrix at every size tried; for the input embeddings it is a statement about a
# narrow model, and wider ones drift less. The clean control is uniform frequency: the cone needs
# unequal frequencies, and tying decides which matrix shows it.
#
# ## Part 3 · Are frequent tokens short? The toy, a real model, and the pull
#
# Part 1's pull assumed that frequent tokens end up near the centre. That premise has a source: Li
# et al. (2020) observe that in BERT's word embeddings high-frequency words lie close to the origin
# and low-frequency words far from it. The trained toy, and the input embeddings of notebook 07's
# real model, can be asked directly, along with one more question: do the real model's rarest
# words lean together, as the toy's do?

# %%
final = np.linalg.norm(run.emb[-1], axis=1)
print(f"trained toy (s = 1, step {run.steps[-1]}): Spearman rho of norm with log frequency = "
      f"{spearman(np.log(run.freq), final):+.3f}")
for band in ("frequent", "middle", "rare"):
    print(f"  median norm, {band:8s} band: {np.median(final[band_rows(128, band)]):.2f}")
real = static_norm_frequency()
print(f"\nall-MiniLM-L6-v2, input embeddings of {len(real.zipf):,} words: Spearman rho = {real.spearman[0]:+.3f}")
print("  Zipf bin (3 = once per million words)  " + "".join(f"{f'{b}-{b + 1}':>7s}" for b in range(1, 8)))
print("  median norm                            " + "".join(f"{m:>7.2f}" for m in real.median[0]))
E, vocab = word_embeddings()
rows, zipf = frequency_words()
for low, high in [(1, 3), (3, 5), (5, 8)]:
    words = rows[(zipf >= low) & (zipf < high)]
    print(f"  mean cosine within the words of Zipf {low}-{high} ({len(words):,} words): {mean_cosine(E[words]):+.3f}")
unit = E / np.linalg.norm(E, axis=1, keepdims=True)
lean = {"rare words (Zipf 1-3)": unit[rows[(zipf >= 1) & (zipf < 3)]].mean(axis=0),
        "frequent words (Zipf 5-8)": unit[rows[zipf >= 5]].mean(axis=0)}
print(f"  cosine of the mean direction of the rare words with that of the frequent words: "
      f"{cos(*lean.values()):+.3f}")
edges = [cos(unit[rows[(zipf >= 1) & (zipf < top)]].mean(axis=0), unit[rows[zipf >= bottom]].mean(axis=0))
         for top in (2.0, 2.5, 3.0, 3.5) for bottom in (4.5, 5.0, 5.5, 6.0)]
print(f"  the same cosine with the rare words below Zipf 2 to 3.5 and the frequent above 4.5 to 6: "
      f"{min(edges):+.3f} to {max(edges):+.3f}")
unused = np.array([i for i, token in enumerate(vocab) if token.startswith("[unused")])
print(f"  the {len(unused):,} [unused] tokens, never in any training text: mean cosine {mean_cosine(E[unused]):+.3f};"
      f" their mean direction against the rare words' {cos(unit[unused].mean(axis=0), lean['rare words (Zipf 1-3)']):+.3f},"
      f" the frequent words' {cos(unit[unused].mean(axis=0), lean['frequent words (Zipf 5-8)']):+.3f}")

# %% [markdown]
# **Neither the toy nor the real model follows the pull.** In the trained toy the most frequent
# tokens have by far the largest norms (median 1.88 against 0.37 in the middle band and 0.49 in the
# rare half): pulled by every example, they grow. The relation is U-shaped, which is why its
# Spearman $\rho$ is only $+0.177$. In the real model's input embeddings norm *rises* with frequency
# over most of the range ($\rho = +0.810$) and falls again only for the hundred or so most frequent
# words: an inverted U where the toy's is a U, and the rise-then-fall Schakel & Wilson (2015)
# report for word2vec. This model therefore disagrees with Li et al.'s observation for BERT except
# at the very top.
#
# **Its vocabulary shows the toy's pattern, weakly.** The rare words lean together
# only faintly ($+0.087$, against the toy's $+0.877$ at step 1,600), but they lean *away* from the
# frequent words: the mean directions of the two groups have a cosine of $-0.475$, the toy's two
# opposite cones in a weak form. The sign survives every choice of band edges tried; the size
# does not ($-0.524$ to $-0.157$), so read it as a direction, not a figure. The 994 `[unused]`
# slots of the vocabulary, which no training text contains, form a tight cone ($+0.822$),
# pointing with the rare words ($+0.590$) and away from the frequent ones ($-0.202$). That is an
# observation; its cause is not established here. all-MiniLM-L6-v2 comes from MiniLM, which was
# trained by distilling a teacher's last-layer self-attention (Wang et al. 2020) and then
# fine-tuned contrastively; as their papers describe them, neither step has a softmax over the
# vocabulary, so the toy's push may not act in this model at all. One candidate is the push in the
# teacher's masked-language-model pretraining, whose embeddings MiniLM may inherit; others (the
# initialisation, weight decay, the way the vocabulary was built) are not tested. A 384-dimensional
# model and an 8-dimensional toy are compared here by sign and kind (which group leans, and which
# way), not by size.
#
# This drift has been reported in full-size models. Biś, Podkorytov & Liu (2021, "Too Much in
# Common", NAACL) argue that at every step all embeddings except the target's receive a gradient in
# the same direction, so they drift along common directions, and that removing the mean restores
# isotropy; Jiang et al. (2022, PromptBERT, arXiv:2201.04337) trace the weakness of BERT's sentence
# embeddings to biases of the static token embeddings (frequency, subwords, case) rather than to
# high cosines. (These two sentences rest on the papers' abstracts only.)
#
# Part 1's pull fixed the sign of the norm relation by construction; a trained model decides it,
# and notebook 07 finds that contextual vectors can show the opposite sign to static ones.
# Frequency shapes the geometry; which way has to be measured.
#
# **Takeaway.** A pull that only rescales tokens leaves their directions as they were, by
# construction, so the meters that read directions cannot move, and the others move only as far
# as the lengths become unequal (and a heavy tail of lengths fools them only in small samples).
# Likelihood training turns frequency into direction: rare tokens, pushed away from every context
# along the shared direction of the contexts, drift into a cone that uniform frequencies prevent.
# In this toy, given enough training time (learning rate $\times$ steps), the cone fades under the
# exact loss, and on a finite corpus the never-targets loosen about as fast at first, then keep
# about half their lean through the longest runs; a larger vocabulary keeps the cone longer and a
# wider model makes it weaker. What the finite corpus adds is that rare *targets* leave the cone
# almost completely, so the tokens never seen as a target are the ones left leaning. A real model's never-seen tokens do sit in a tight cone, for reasons this
# course does not establish.
#
# ## Explorers
#
# The first explorer is Part 1's pull; the second is Part 2's language model. All five trained
# models are above, so moving the second explorer's sliders only redraws.

# %%
def pulled(exponent: float, gamma: float) -> tuple[np.ndarray, np.ndarray]:
    """Zipf frequencies with this exponent, and the same 1,200 isotropic tokens after the pull."""
    freq = zipf_frequencies(1200, exponent)
    return freq, frequency_pull(make_isotropic(1200, 50, rng=4), freq, gamma)


# Each move: pulled (above) computes; FrequencyView draws norms and the PCA picture.
explore(pulled, FrequencyView, title="Explorer: a frequency pull",
        exponent=slider("s: Zipf exponent", 1.0, 0.0, 2.0, 0.05),
        gamma=slider("γ: pull strength", 0.9, 0.0, 0.99, 0.01))

# %%
# Nothing to compute on a move: `runs` holds a trained model per exponent; DegenerationView draws
# the chosen one at the chosen training step.
explore(lambda exponent: runs[exponent], DegenerationView, title="Explorer: representation degeneration",
        exponent=slider("s: Zipf exponent", 1.0, 0.0, 2.0, 0.5),
        step=choice("training steps", run.steps.tolist(), 1600))

# %% [markdown]
# **Try this.**
# 1. In the first explorer, set the pull strength to 0 and then to 0.99. Which readings change,
#    and which stay put? What does that say about partition isotropy and the mean cosine?
# 2. In the second explorer, step through training at $s = 1$. Which band becomes a cone first,
#    and which one is still a cone at the end?
# 3. Set $s = 0$. Why does no band lean anywhere, although the model trains just the same?
# 4. Set $s = 2$. Compare the rare band with $s = 1$ at steps 50 and 800: which exponent makes
#    it lean sooner, and which closes it faster? What happens to the norm of the most frequent
#    token?
# 5. In the sweep cell, change `corpus = 1000` to `corpus = 300`. How many tokens are never a target
#    now, and do they still lean together at step 6,400?

# %% [markdown]
# ## Exercises
#
# Replace `None` with your answer and run the cell: the check says whether you got it, and if not,
# which idea to revisit. After a real try, `solution("04.4")` (commented out in the cell) shows the
# worked solution, folded; all of them are in [SOLUTIONS.md](SOLUTIONS.md). (Two more questions
# were asked above, each before the output that answers it.)
#
# **04.4 · Compute.** With pull strength $\gamma = 0.9$ and Zipf exponent 1, by what factor is the embedding of the 100th most frequent token multiplied? Work it out on paper before running anything.

# %%
answer = None  # your number
check("04.4", answer)
# solution("04.4")  # the worked solution, folded: uncomment after a real try

# %% [markdown]
# **Where this leads.** Notebook [05 · Rich-get-richer](05_rich_get_richer.ipynb) looks at a
# feedback loop on the spectrum, and asks which of notebook 01's two failures it produces.
