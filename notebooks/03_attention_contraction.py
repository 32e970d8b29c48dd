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
# # 03 · Self-attention contraction: stacking layers squeezes a sequence onto one ray
#
# **Question.** If every layer replaces each token by a weighted average of the tokens of its
# sequence, what do forty such layers do to the angles between tokens, and does that give the
# tokens of *different* sequences a shared cone?
#
# **Time:** about 50 minutes, an estimate (counted from the text, the exercises and the running time, not timed on learners; see TEACHING.md). **After this notebook you can** write a bare self-attention update,
# explain why averaging can only contract a sequence, tell Dong et al.'s rank collapse from the
# course's collapsed spread, classify the end state with notebook 01's meter table, and name a
# component (position embeddings) that gives different sequences a shared cone.
#
# **Theory:** [§4.1 Self-attention as a contraction](../research/03-isotropy-anisotropy.md#41-self-attention-as-a-contraction).

# %%
import numpy as np

from shared import (
    AttentionRun,
    attention_run,
    attention_seeds,
    calls_isotropic,
    attention_sequences,
    cov_eigs,
    effective_rank,
    gaussian_effective_rank,
    mean_cosine,
    meter_table,
    rank_collapse,
    sinusoidal_positions,
    softmax_rows,
)
from shared.exercises import check, solution
from shared.explorers import explore, slider
from shared.predictions import predict
from shared.figures import AttentionView

# %% [markdown]
# ## The mechanism
#
# Strip a self-attention layer to its core: queries, keys and values are the tokens themselves,
# the attention weights are a row-wise softmax of the scaled dot products, and a residual
# connection keeps part of each token:
#
# $$X \leftarrow X + \alpha\,\big(\operatorname{softmax}(\beta X X^\top)\,X - X\big)
#   = (1 - \alpha)\,X + \alpha\,\operatorname{softmax}(\beta X X^\top)\,X .$$
#
# Each row of the softmax is a set of positive weights summing to 1, so
# $\operatorname{softmax}(\cdot)X$ puts every token inside the convex hull of its sequence, and so
# does the mix with $(1 - \alpha)X$.
#
# **Your turn · 03.1 · Implement.** Write one such layer: the scores $\beta X X^\top$, a softmax
# along each row (subtract each row's maximum before `np.exp`, so large scores cannot overflow),
# then $X + \alpha(AX - X)$. The check compares your function with the toolkit's `attention_step`
# on four sequences (300 tokens in 2-D, 40 tokens in 5-D, pure attention with $\alpha = 1$, and
# tokens large enough that their scores overflow a naive softmax).

# %%
def my_attention_step(X: np.ndarray, beta: float, alpha: float) -> np.ndarray:
    """One residual self-attention update of the tokens X (n x d): X + alpha (softmax(beta X X^T) X - X)."""
    raise NotImplementedError  # replace this line with your code


check("03.1", my_attention_step)
# solution("03.1")  # the worked solution, folded: uncomment after a real try

# %% [markdown]
# The rest of the notebook uses the toolkit's `attention_step`, through `attention_run`.
#
# We start from one sequence of 300 tokens in 2-D: a standard Gaussian shifted by 0.7 along the
# direction $(1, 0.6)/\|(1, 0.6)\|$, then apply 40 layers with $\beta = 0.6$ and $\alpha = 0.09$.
# After every layer we record the mean cosine of random pairs of tokens and the standard deviation
# of the tokens' polar angles.
#
# **Predict first.** After 40 layers, will the mean cosine be near 0, about halfway, or near 1?

# %%
predict("03.p1")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
run = attention_run(depth=40, beta=0.6, alpha=0.09, offset=0.7)
print(f"after layer  1: mean pairwise cosine = {run.mean_cos[0]:.3f}   angular std = {run.angular_std[0]:.3f} rad")
print(f"after layer 40: mean pairwise cosine = {run.mean_cos[39]:.3f}   angular std = {run.angular_std[39]:.3f} rad")

# %% [markdown]
# **Compare with your guess.** Open the folded output above and set it beside your prediction
# before you read on.
#
# Two settings deserve a number before we look. The residual keeps $1 - \alpha$ of each token at
# every layer, so $\alpha = 0.09$ is a *strong* skip connection, not a weak one. And $\beta = 0.6$
# does not make the weights uniform: for each token, compare its largest weight with the uniform
# weight $1/300$.

# %%
X0 = run.clouds[0]
weights = softmax_rows(0.6 * X0 @ X0.T)  # the attention weights of the first layer
largest = weights.max(axis=1) * len(X0)  # each token's largest weight, in units of the uniform 1/300
print(f"share of each token kept by the skip connection per layer: 1 - alpha = {1 - 0.09:.2f}")
print(f"largest attention weight / uniform weight: median {np.median(largest):.1f},"
      f" range {largest.min():.1f} to {largest.max():.1f}")
breadth = np.exp(-np.sum(weights * np.log(weights), axis=1))  # exp(entropy): how many tokens a row spreads over
print(f"tokens each row spreads over, exp(entropy of its weights): median {np.median(breadth):.0f} of {len(X0)}")

# %%
AttentionView(run)

# %% [markdown] tags=["reveal-end"]
# **What you see.** After one layer the tokens still point in all directions (mean cosine 0.270,
# angular standard deviation 1.224 rad, about 70°). By layer 10 (orange) they have bunched up; by
# layer 40 (red) they form a tight knot away from the origin, all pointing the same way: mean
# cosine 0.999, angular standard deviation 0.033 rad, about 2°.
#
# **Why.** Each layer applies the matrix $(1 - \alpha)I + \alpha\,\operatorname{softmax}(\cdot)$,
# whose rows are positive and sum to 1: a weighted average of the tokens. Averaging shrinks the
# sequence toward a weighted centre, and because the sequence starts *off* the origin, that centre
# is not the origin: the tokens converge onto one ray, and every cosine tends to 1. The skip
# connection keeps 91 % of each token per layer and slows the shrinking, but cannot stop it, since
# a mix of a token with an average is still an average. The weights are far from uniform (the
# median token's largest weight is 6.6 times the uniform one): the score is a dot product, so
# long tokens that point the same way pull hardest. But they are broad: the median row spreads its
# weight over about 216 of the 300 tokens (the exponential of its entropy), so every layer is
# close to an average of the whole sequence.
#
# **The skip connection, read as Dong et al. read it.** The update can be rewritten as
# $(1 - \alpha)\,\big(X + A X V\big)$ with $V = \frac{\alpha}{1 - \alpha} I$: a residual block that
# *adds* attention's output, passed through a value matrix, to each token, then rescales
# everything by $1 - \alpha$ (which no cosine or rank sees). So this toy is the additive skip
# connection of a Transformer with one particular value matrix, and not a different architecture.
# Dong, Cordonnier & Loukas (2021) prove that *pure* attention ($\alpha = 1$ here) loses rank
# doubly exponentially with depth, and credit skip connections and MLPs with counteracting it. Their
# residual is the distance of the tokens from a matrix whose rows are all equal. Here it is
# relative to the tokens' size, $\|X - \mathbf 1 \bar x^\top\| / \|X\|$, layer by layer, without a
# skip ($\alpha = 1$) and with two skip strengths:

# %%
def residual(X: np.ndarray) -> float:
    """Dong et al.'s residual, relative: distance of the tokens from their mean row, over their size."""
    return float(np.linalg.norm(X - X.mean(axis=0)) / np.linalg.norm(X))


print(f"{'relative residual after layer':34s}" + "".join(f"{layer:>10d}" for layer in range(5)))
for alpha in (1.0, 0.5, 0.09):
    clouds = attention_run(depth=4, alpha=alpha).clouds
    print(f"{f'alpha = {alpha}':34s}" + "".join(f"{residual(X):10.2g}" for X in clouds))
pure = [residual(X) for X in attention_run(depth=4, alpha=1.0).clouds]
print("alpha = 1: log10 of the residual, ratio of successive layers: "
      + "  ".join(f"{np.log10(b) / np.log10(a):.1f}" for a, b in zip(pure[1:-1], pure[2:])))
for alpha in (0.5, 0.09):
    skip = [residual(X) for X in attention_run(depth=4, alpha=alpha).clouds]
    print(f"alpha = {alpha}: factor per layer (residual / previous layer's), layers 1-4: "
          + "  ".join(f"{b / a:.2f}" for a, b in zip(skip[:-1], skip[1:])) + f"   (1 - alpha = {1 - alpha:.2f})")

# %% [markdown]
# Without a skip the residual falls **doubly exponentially**: its logarithm is multiplied by about
# 3 per layer (3.5, 3.3, 3.1), as Dong et al.'s bound, which raises the residual to the power
# $3^L$, allows. With the skip it falls far more slowly, by a per-layer factor that is still
# changing after four layers: at $\alpha = 0.5$ it falls toward $1 - \alpha$ (0.86, 0.75, 0.63,
# then 0.54 by layer 4), and at $\alpha = 0.09$ it stays at 0.97 to 0.98, well above
# $1 - \alpha = 0.91$ (the residual goes from 0.87 to 0.79 in four layers). Here, with
# $V \propto I$, the skip connection only slows the collapse, because the added term is still an
# average of the tokens, unlike Dong et al.'s finding that skip connections stop it. A learned $V$ or an MLP
# may be what differs; this toy has neither and does not test it. Geshkovski et al. (2023)
# describe tokens as particles that cluster over depth.
#
# ## The yardstick: which failure is this?
#
# Notebook 01 separates two failures: a shared **offset** (the mean cosine sees it) and a collapsed
# **spread** (the effective rank sees it). Here is the sequence after 40 layers beside the same
# sequence with the mechanism switched off ($\alpha = 0$: the start), and, because that start
# already leans, a centred start before and after 120 layers; a Gaussian of the same size is the
# baseline.
#
# **03.2 · Explain.** Start from a centred sequence (`offset=0.0`) and stack 120 layers. Where does the mean random cosine end up? (a) near 0, because the sequence starts centred and attention keeps it centred (b) near 1, because the tokens shrink onto a weighted mean off the origin (c) below 0, because attention pushes the tokens apart from one another
#
# Answer first, then run the table below it and see whether it agrees.

# %%
answer = None  # one of "a", "b", "c"
check("03.2", answer)
# solution("03.2")  # the worked solution, folded: uncomment after a real try

# %% jupyter={"outputs_hidden": true}
centred = attention_run(depth=120, offset=0.0)
print(meter_table({"shifted start, after 40 layers": run.clouds[40],
                   "shifted start (alpha = 0: mechanism off)": run.clouds[0],
                   "centred start, after 120 layers": centred.clouds[120],
                   "centred start (alpha = 0: mechanism off)": centred.clouds[0]}))

# %% [markdown]
# **What the table says.** Attention makes a **cone, not a collapsed spread**. The shifted start
# already leans ($+0.216$ from its 0.7 shift, a cone by the table's rule): attention *amplifies*
# that lean to $+0.999$ by shrinking the spread around it, while the effective rank stays at 2.0
# of 2 (the knot is small but round). The centred start is the clean test. With the mechanism off
# it is a Gaussian in every respect (neither failure); after 120 layers its mean cosine is
# $+1.000$. Does attention *create* that offset? Split each cloud into its mean and the spread
# around it:

# %%
print(f"{'':34s}{'mean length':>12s}{'spread (rms)':>14s}{'mean cosine':>13s}{'rank-1 residual':>17s}")
for name, before, after in [("shifted start, layers 0 -> 40", run.clouds[0], run.clouds[40]),
                            ("centred start, layers 0 -> 120", centred.clouds[0], centred.clouds[120])]:
    for when, X in [("before", before), ("after", after)]:
        centre = X.mean(axis=0)
        spread = np.sqrt(np.mean(np.sum((X - centre) ** 2, axis=1)))
        print(f"{name + ', ' + when:34s}{np.linalg.norm(centre):12.3f}{spread:14.3f}{mean_cosine(X):+13.3f}"
              f"{rank_collapse(X):17.3f}")

# %% [markdown]
# **Attention removes the spread; the mean it ends with is the one it was given, rescaled by a
# factor that depends on the draw and the length (here about 1).** The centred start's mean has length 0.127 before and 0.133 after 120
# layers in this run (seed 3 of the sweeps below, which show that in other seeds it grows by up to
# a factor of 3 at this length, more in shorter sequences): in this run attention does not make an
# offset of the size of the spread; the one it ends with is of the size of the sample mean of 300
# random tokens. What attention does is shrink the spread around it from 1.402 to 0.000, and once nothing else is left, every token points along the mean: the mean cosine goes
# from $+0.007$ to $+1.000$. In the shifted start the mean even grows (0.777 to 1.144: the weights
# favour long tokens pointing the same way, so the weighted centre lies further out than the
# plain mean) while the spread falls from 1.402 to 0.053. A shared part that is small against
# the spread barely moves the mean cosine; averaging amplifies it by removing everything else.
#
# **Two meanings of "rank".** The last column is Dong et al.'s rank collapse in the form their code
# measures it, the distance of the tokens from their best rank-1 approximation, relative to their
# size: it falls from 0.607 to 0.033 in the shifted run, so by that measure the sequence *does* lose
# rank. The table's effective rank stays at 2.0 because it is computed on the spread *after*
# centring and ignores its size: it asks how evenly the remaining variance is shared between
# directions, and a small round knot shares it evenly. The two agree on what happens: the spread
# shrinks to nothing against the mean, so all tokens lie near one ray. Dong et al. call that rank
# collapse; notebook 01's vocabulary calls it a cone (a shared offset), not a collapsed spread
# (variance in few directions).
#
# **The knob that could break this: the sharpness $\beta$.** Everything above used $\beta = 0.6$,
# where each row averages over most of the sequence. Sharper attention is more local. Five seeds
# for each of three values, both starts:

# %%
starts = [np.linalg.norm(attention_run(depth=0, offset=0.0, seed=seed).clouds[0].mean(axis=0)) for seed in range(5)]
print(f"centred start, seeds 0-4: mean length {min(starts):.3f} to {max(starts):.3f} before any layer")
print(f"{'five seeds (min to max)':32s}{'mean cosine':>20s}{'effective rank':>18s}{'mean length':>20s}")
for beta in (0.3, 0.6, 1.2):
    for start, offset, depth in [("shifted, 40 layers", 0.7, 40), ("centred, 120 layers", 0.0, 120)]:
        _, ends = attention_seeds(range(5), depth=depth, beta=beta, offset=offset)  # the ends of attention_run, seeds 0-4
        cosines = [mean_cosine(X) for X in ends]
        ranks = [effective_rank(cov_eigs(X)) for X in ends]
        lengths = [np.linalg.norm(X.mean(axis=0)) for X in ends]
        if (beta, offset) == (0.6, 0.0):
            kept = lengths  # the centred start's mean after 120 layers, seed by seed
        print(f"{f'beta = {beta}, {start}':32s}{f'{min(cosines):+.3f} to {max(cosines):+.3f}':>20s}"
              f"{f'{min(ranks):.2f} to {max(ranks):.2f}':>18s}{f'{min(lengths):.3f} to {max(lengths):.3f}':>20s}")
print("beta = 0.6, centred start, mean length before -> after 120 layers, seed by seed:")
for seed, (m0, m1) in enumerate(zip(starts, kept)):
    print(f"  seed {seed}: {m0:.3f} -> {m1:.3f}   (x {m1 / m0:.2f})")

# %% [markdown]
# In these five seeds, up to $\beta = 0.6$, every run ends as a cone (mean cosine at least
# $+0.998$) whose small knot stays two-dimensional (effective rank at least 1.81). At $\beta = 1.2$
# it does not: attention is local enough that the sequence splits into clusters that have not
# merged after 120 layers (resembling the metastable clusters of Geshkovski et al.; only this depth
# is computed here). From the centred start the mean cosine ranges from $+0.128$ to $+1.000$ by seed
# and the effective rank is 1.00 to 1.10: the clusters lie along one line, in some seeds on
# different sides of the origin, a collapsed spread. From the shifted start after 40 layers the
# effective rank is 1.00 to 1.83, so there the spread collapses in some seeds and not in others.
# Sharp attention also moves the mean far out (length 0.715 to 2.528 from the centred start): the
# long tokens that attract the most weight drag the centre with them.
#
# The mean, too, varies by draw, and the seed-by-seed pairs at $\beta = 0.6$ show that broad
# attention does not simply keep it: in three of the five seeds it grows, by a factor of 1.48 to
# 2.16 (0.094 to 0.202, 0.089 to 0.171, 0.099 to 0.147); in seed 3, the run above, it barely moves
# (0.127 to 0.133) and in seed 4 it shrinks (0.018 to 0.008).
#
# **Five seeds are one small sample of draws, and 300 tokens one size.** The two knobs that could
# break the broad-attention verdict are the draw and the length of the sequence, since a shorter
# sequence has a larger chance mean and a lumpier knot. At $\beta = 0.6$, 25 seeds at 300 tokens
# and at 75, both starts (the meter table's verdict on each end compares its effective rank with a
# Gaussian of the same size):

# %%
print(f"beta = 0.6, seeds 0-24{'':13s}{'mean cosine':>17s}{'effective rank':>16s}{'collapsed':>11s}"
      f"{'mean length x (min, median, max)':>34s}{'length after':>17s}")
for n in (300, 75):
    gaussian = gaussian_effective_rank(n, 2)  # the effective rank of a Gaussian of this size, the table's baseline
    for start, offset, depth in [("shifted, 40 layers", 0.7, 40), ("centred, 120 layers", 0.0, 120)]:
        begin, end = attention_seeds(range(25), depth=depth, beta=0.6, offset=offset, n=n)
        cosines = [mean_cosine(X) for X in end]
        ranks = [effective_rank(cov_eigs(X)) for X in end]
        collapsed = sum(not calls_isotropic("effective_rank", r, gaussian) for r in ranks)
        growth = np.linalg.norm(end.mean(axis=1), axis=1) / np.linalg.norm(begin.mean(axis=1), axis=1)
        after = np.linalg.norm(end.mean(axis=1), axis=1)
        print(f"{f'{n} tokens, {start}':35s}{f'{min(cosines):+.3f} to {max(cosines):+.3f}':>17s}"
              f"{f'{min(ranks):.2f} to {max(ranks):.2f}':>16s}{f'{collapsed} of 25':>11s}"
              f"{f'{growth.min():.2f}, {np.median(growth):.2f}, {growth.max():.2f}':>34s}"
              f"{f'{after.min():.3f} to {after.max():.3f}':>17s}")
begin, end = attention_seeds(range(25, 50), depth=120, beta=0.6, offset=0.0, n=300)  # 25 more seeds, centred start
after = np.linalg.norm(end.mean(axis=1), axis=1)
far = np.flatnonzero(after > np.sqrt(2))
print(f"300 tokens, centred, seeds 25-49: end length {after.min():.3f} to {after.max():.3f}; longer than the spread in"
      f" {len(far)} of 25 (seeds {', '.join(str(25 + i) for i in far)}: "
      + ", ".join(f"{after[i]:.3f}, effective rank {effective_rank(cov_eigs(end[i])):.2f}" for i in far) + ")")
print("the size of a chance mean, sqrt(2 / n): " + ", ".join(f"{np.sqrt(2 / n):.3f} at {n} tokens" for n in (300, 75))
      + f"; the spread around it, sqrt(2) = {np.sqrt(2):.3f}")

# %% [markdown]
# **What holds, and where it stops.** The cone holds in all 100 runs: the mean cosine ends at
# least $+0.994$ at 300 tokens and $+0.945$ at 75. The round knot does not: at 300 tokens the
# effective rank falls to 1.30, and in 3 of the 50 runs the meter table would add "collapsed
# spread" to "cone"; at 75 tokens it falls to 1.02, in 10 of 50. So "a cone, not a collapsed
# spread" is the typical end of broad attention, and a shorter sequence makes an elongated knot
# more likely (3 of 50 against 10 of 50: a small difference); what happens in none of these 100
# runs is a collapsed spread *without* the cone. From
# the centred start the mean grows in the typical seed (median factor 1.65 at 300 tokens, 1.52 at
# 75), and over 25 seeds by a factor from 0.42 to 3.13 at 300 tokens: it can shrink, and it can
# triple. In seeds 0 to 24 its end length stays of the order of a chance mean at 300 tokens (at
# most 0.309, against 0.082 for a typical chance mean and 1.414 for the spread), and at 75 tokens
# the same seeds reach 0.992, one growing by a factor of 8.90. That is not a short-sequence
# effect: in seeds 25 to 49 at 300 tokens (the line under the table) two runs end with a mean
# longer than the spread (1.749 and 1.904, effective rank 1.00), a chance lean turned into an
# offset. At either length broad attention *can* turn a chance lean into an offset comparable to
# the spread; how often, and how much it grows the mean it is given, depends on the draw and on
# the length of the sequence; a start with its mean removed exactly is not run here.
#
# ## One sequence is not a vocabulary: many sequences
#
# The mean cosine above pairs tokens of *one* sequence. Ethayarajh (2019), and notebook 07 on a
# real model, pair tokens from *different* contexts. We run 16 independent sequences of 100 tokens
# through the same 40 layers, in three versions: every sequence shifted along the *same* direction,
# each along a random direction of its own, and no shift at all.
#
# **03.3 · Predict.** Sixteen sequences each start shifted along a random direction of their own. After 40 layers, what is the mean cosine of two tokens from *different* sequences? (a) near 0, because nothing is shared across sequences (b) near 1, because every layer of attention builds a cone (c) near −1, because the sequences drift to opposite sides
#
# Answer first, then run the table below it: the "own shift" rows, across sequences.

# %%
answer = None  # one of "a", "b", "c"
check("03.3", answer)
# solution("03.3")  # the worked solution, folded: uncomment after a real try

# %% jupyter={"outputs_hidden": true}
print(f"{'16 sequences of 100 tokens, seeds 30-34':40s} {'within a sequence':>20s} {'across sequences':>20s}")
for name, shared_direction, offset in [("shared shift (0.7)", True, 0.7), ("own shift (0.7) each", False, 0.7),
                                       ("no shift", True, 0.0)]:
    runs5 = [attention_sequences(offset=offset, shared=shared_direction, seed=seed) for seed in range(30, 35)]
    for when in ("start", "after 40 layers"):
        within = [r.within(r.starts if when == "start" else r.ends) for r in runs5]
        across = [r.across(r.starts if when == "start" else r.ends) for r in runs5]
        print(f"{name + ', ' + when:40s} {f'{min(within):+.3f} to {max(within):+.3f}':>20s}"
              f" {f'{min(across):+.3f} to {max(across):+.3f}':>20s}")

# %% [markdown]
# **What you see.** In all five seeds, within a sequence the tokens line up in every version (at
# least $+0.993$, $+0.995$ and $+0.869$ after 40 layers). Across sequences they line up only when
# the sequences shared a direction at the start ($+0.936$ to $+0.981$). With a shift of their own,
# or none, tokens of different sequences stay unrelated after 40 layers ($-0.060$ to $+0.047$ and
# $-0.049$ to $+0.022$).
#
# **Why it matters.** Collapse within a sequence is not by itself a cone shared by a model's
# vectors. A shared cone needs a **component common to all sequences**: a shared bias, a position
# or segment embedding added to every token, or a coordinate that every token carries. Averaging
# then strips away what differs within each sequence and leaves the common part.
#
# **Position embeddings are such a component.** Every sequence of a Transformer gets the same
# position embeddings added to its tokens, and the sinusoidal ones of Vaswani et al. (2017) do not
# average to zero over positions: their slow cosines stay near 1. Averaging over a sequence keeps
# a mean of that size and removes the spread around it. We give 16 sequences of 100 centred Gaussian tokens in 16 dimensions the
# sinusoidal embeddings of their 100 positions, and compare them with no position embeddings and
# with the same embeddings minus their mean over positions (the control: position still varies
# from token to token, but nothing is shared on average). In 16 dimensions a token's score with
# itself, $x \cdot x$, is about 8 times larger than in 2-D and its scores with other tokens spread
# about $\sqrt 8$ times wider (the first line below measures both), so we take $\beta = 0.1$ to
# keep the weights broad (the second line: the median row spreads over 82 of its 100 tokens, as
# the 2-D rows spread over 216 of 300); five seeds each, 40 layers.

# %%
positions = sinusoidal_positions(100, 16)
flat = {d: attention_sequences(offset=0.0, d=d, depth=0).starts for d in (2, 16)}  # Gaussian tokens, no shift
self_score = {d: np.mean(np.sum(X**2, axis=-1)) for d, X in flat.items()}  # x . x
cross_score = {d: np.std(X[0] @ X[1].T) for d, X in flat.items()}  # x . y, tokens of two sequences
print(f"16-D against 2-D: scores x.x {self_score[16] / self_score[2]:.1f} times larger,"
      f" scores x.y (their spread) {cross_score[16] / cross_score[2]:.1f} times larger")
X16 = attention_sequences(offset=0.0, d=16, beta=0.1, positions=positions, depth=0).starts[0]
w16 = softmax_rows(0.1 * X16 @ X16.T)  # first-layer weights of one sequence, beta = 0.1
breadth16 = np.exp(-np.sum(w16 * np.log(w16), axis=1))
print(f"16-D, beta = 0.1, with position embeddings: tokens each row spreads over, median"
      f" {np.median(breadth16):.0f} of {len(X16)}")
print(f"length of the mean position embedding: {np.linalg.norm(positions.mean(axis=0)):.2f}"
      f" (a single position embedding: {np.linalg.norm(positions[0]):.2f})")
print(f"{'across sequences, five seeds (min to max)':44s}{'start':>18s}{'after 40 layers':>18s}")
for name, added in [("sinusoidal position embeddings", positions),
                    ("the same, minus their mean (control)", positions - positions.mean(axis=0)),
                    ("no position embeddings", None)]:
    seqs = [attention_sequences(offset=0.0, d=16, beta=0.1, positions=added, seed=seed) for seed in range(30, 35)]
    start, end = [s.across(s.starts) for s in seqs], [s.across() for s in seqs]
    print(f"{name:44s}{f'{min(start):+.3f} to {max(start):+.3f}':>18s}{f'{min(end):+.3f} to {max(end):+.3f}':>18s}")

# %% [markdown]
# With position embeddings, two tokens from different sequences start at a cosine of $+0.172$ to
# $+0.185$ and end at $+0.955$ to $+0.966$: a cone shared by all sequences, made of the mean
# position embedding, which attention amplified by removing the rest (as the shared shift above
# went from at most $+0.181$ to at least $+0.936$). Remove that mean and the same
# embeddings leave the sequences unrelated, as does having none. Notebook 07 finds
# one such component in a real model (a coordinate that nearly every token shares, carrying a third
# to two fifths of the mean cosine in layers 2 to 4, and more than half only in layer 5 of 6), and tokens that line up
# within their sentence more than across sentences.
#
# **Takeaway.** Stacked averaging is contractive, and depth compounds it: each sequence ends as a
# cone of its own, pointing wherever its tokens' weighted mean lies. Whether the cones of different
# sequences point the same way depends on what the sequences share, not on attention.
#
# ## Explorer
#
# Change the depth, the sharpness $\beta$ of the softmax, the attention share $\alpha$ and the
# starting offset. The left panel shows the sequence at layers 0, depth/4 and depth.

# %%
runs: dict[tuple, AttentionRun] = {}  # one run per setting of (β, α, offset), grown layer by layer


def stacked(depth: int, beta: float, alpha: float, offset: float) -> tuple[AttentionRun, int]:
    """attention_run with these settings, `depth` layers deep; layers computed by an earlier move are reused."""
    if (beta, alpha, offset) not in runs:
        runs[beta, alpha, offset] = attention_run(0, beta, alpha, offset)
    return runs[beta, alpha, offset].extend(depth), depth


# Each move: stacked (above) computes; AttentionView draws layers 0, depth/4 and depth.
explore(stacked, AttentionView, title="Explorer: self-attention contraction",
        depth=slider("depth: attention layers", 40, 1, 120, 1),
        beta=slider("β: softmax sharpness", 0.6, 0.0, 5.0, 0.1),
        alpha=slider("α: attention share (1 − α is skipped)", 0.09, 0.0, 1.0, 0.01),
        offset=slider("offset: start distance from origin", 0.7, 0.0, 3.0, 0.1))

# %% [markdown]
# **Try this.**
# 1. Set the starting offset to 0, then raise the depth to 120. The sequence is centred, yet the
#    mean cosine still climbs toward 1. Toward which point does it shrink?
# 2. Set $\alpha$ to 0. What happens at every depth, and what does that say about a skip
#    connection with no attention?
# 3. Raise $\beta$ to 5. Attention becomes local: does the sequence still contract to a single
#    ray, or into several clusters first?

# %% [markdown]
# ## Exercises
#
# This notebook asks its questions in the text, each just before the cell whose output answers it
# (the function after the mechanism, the two questions before the yardstick table and the
# many-sequences table). If you read past one, go back and answer it there. After a real try,
# `solution("03.1")` (commented out in each exercise cell) shows the worked solution, folded; all of
# them are in [SOLUTIONS.md](SOLUTIONS.md).


# %% [markdown]
# **Where this leads.** Attention makes each sequence lean, but not a shared cone. Notebook
# [04 · Token frequency](04_frequency_collapse.ipynb) looks at a mechanism that does move the
# directions of a whole vocabulary: likelihood training on Zipfian frequencies.
