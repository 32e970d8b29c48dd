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
# # 05 · Rich-get-richer: a feedback loop that collapses the spread
#
# **Question.** If each direction grows in proportion to the variance it already has, how fast
# does a nearly flat spectrum collapse onto a single direction, and which of notebook 01's two
# failures is that?
#
# **Time:** about 50 minutes, an estimate (counted from the text, the exercises and the running time, not timed on learners; see TEACHING.md). **After this notebook you can** run a positive-feedback update on a
# spectrum, track its effective rank, explain why a tiny initial imbalance decides the winner, and
# tell a collapsed spread from a cone with the meter table.
#
# **Theory:** [§4.3 Rich-get-richer dynamics](../research/03-isotropy-anisotropy.md#43-rich-get-richer-dynamics).

# %%
from math import erf

import numpy as np

from shared import (
    effective_rank,
    cov_eigs,
    gaussian_with_spectrum,
    layer_norm,
    loop_cone_cosine,
    make_isotropic,
    mean_cosine,
    meter_table,
    optimizer_shares_by_length,
    rich_get_richer_run,
    rich_get_richer_vectors,
)
from shared.exercises import check, solution
from shared.explorers import explore, slider
from shared.predictions import predict
from shared.figures import RichGetRicherView

d = 50

# %% [markdown]
# ## The mechanism
#
# Think of $\lambda_k$ as the variance a representation carries along direction $k$. Each step
# grows every direction in proportion to the *share* of variance it already holds, then rescales so
# that the mean stays 1:
#
# $$\lambda_k \leftarrow \lambda_k \Big(1 + \eta\, d\, \frac{\lambda_k}{\sum_j \lambda_j}\Big),
#   \qquad \lambda \leftarrow \lambda / \operatorname{mean}(\lambda).$$
#
# It is a cartoon of one hypothesis about training (that gradient updates favour directions which
# already dominate), not a model of a real optimiser.
#
# **Your turn · 05.1 · Implement.** Write one step of the loop. The check compares your function
# with the toolkit's `rich_get_richer_step` on four spectra (a nearly flat one of 50 directions, one
# whose mean is 7, a flat one, and one stepped with $\eta = 0$).

# %%
def my_rich_step(lam: np.ndarray, eta: float) -> np.ndarray:
    """One rich-get-richer update of the spectrum lam, renormalised to mean 1."""
    raise NotImplementedError  # replace this line with your code


check("05.1", my_rich_step)
# solution("05.1")  # the worked solution, folded: uncomment after a real try

# %% [markdown]
#
# We start from an almost flat spectrum, $\lambda_k = 1 + 0.05\,\varepsilon_k$ (seed 5), and run 60
# steps with amplification rate $\eta = 0.18$. The meter is the effective rank (participation
# ratio) of notebook 01: 50 for a flat spectrum, 1 when one direction holds everything.
#
# **Predict first.** The largest starting eigenvalue is about 10 % above the mean. Will 60 steps be
# enough for it to take over?

# %%
predict("05.p1")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
history = rich_get_richer_run(eta=0.18, steps=60, unevenness=0.05)  # spectra, one row per step
print(f"largest starting eigenvalue / mean = {history[0].max() / history[0].mean():.3f}")
print(f"effective rank: start = {effective_rank(history[0]):.1f} / {d}"
      f"  ->  end = {effective_rank(history[-1]):.1f} / {d}")

# %% jupyter={"outputs_hidden": true}
RichGetRicherView(history)

# %% [markdown] tags=["reveal-end"]
# **Compare with your guess.** Open the folded output above and set it beside your prediction
# before you read on.
#
# **What you see.** The spectrum starts flat (step 0) and tilts more at every snapshot; by step 60
# the top direction holds almost all the variance and the rest have dropped by many orders of
# magnitude (left; shares below $10^{-8}$ fall off the bottom of the plot). The effective rank
# (right) stays near 50 for a while, then falls steeply, from 49.9 at the start to 1.0 at step 60.
#
# **Why.** A direction with share $p_k$ grows by the factor $1 + \eta d\,p_k$. In a flat spectrum
# every factor is about $1 + \eta$; the slightly larger directions grow slightly faster, which
# raises their share and so their next factor. The gap between directions compounds
# geometrically, so an edge of 10 % at the start becomes total dominance.
# Renormalisation keeps the total fixed, so what the winner gains the others lose.

# %% [markdown]
# Before the yardstick, one question. Replace `None` with your answer and run the cell: the check
# says whether you got it, and if not, which idea to revisit.
#
# **05.2 · Explain.** After 60 steps the effective rank is 1.0. Has the loop made a narrow cone? (a) yes: one direction holds all the variance, and a cone is exactly that kind of collapse (b) no: a covariance spectrum fixes the spread, not the mean, so the loop gives the points no shared offset
#
# Answer first, then read on: the next section draws points with this spectrum and measures them.

# %%
answer = None  # one of "a", "b"
check("05.2", answer)
# solution("05.2")  # the worked solution, folded: uncomment after a real try

# %% [markdown]
# ## The yardstick: a cone, or a collapsed spread?
#
# A spectrum is a covariance, and a covariance says nothing about where the cloud's centre is. To
# use notebook 01's meters we draw 2,000 centred Gaussian points whose covariance has the spectrum
# of step 60, beside points drawn from the starting spectrum (the mechanism switched off: with
# $\eta = 0$ nothing moves) and a Gaussian of the same size.

# %% jupyter={"outputs_hidden": true}
print(meter_table({"after 60 steps": gaussian_with_spectrum(2000, history[-1], rng=50),
                   "mechanism off (eta = 0): the start": gaussian_with_spectrum(2000, history[0], rng=50)}))

# %% [markdown]
# **What the table says.** The loop **collapses the spread**: after 60 steps the effective rank is
# 1.0 (IsoScore 0.000), against 48.7 for the control. With the mean cosine at 0.000, the cloud is
# notebook 01's *centred line*, not a cone: the points spread along one axis, on both sides of the
# origin, so a random pair is as likely to point apart as together. Partition isotropy and
# uniformity flag it as they flagged the line. With the mechanism off the cloud is a Gaussian in
# every respect. Both clouds are centred by construction, so this table judges the spread and can
# say nothing about offsets.
#
# ## Does the loop make a cone? Run it on uncentred vectors
#
# A spectrum has no mean, so the table above could only judge centred points. Cosines and
# gradients see the *uncentred* vectors, whose second moment $X^\top X / n$ includes the mean: a
# mean of length $\mu$ adds $\mu^2$ to the variance along its direction. So run the same loop on
# the eigenvalues of the second moment, and carry each vector along (`rich_get_richer_vectors`):
# 2,000 vectors $x = \mu u + \sigma z$ in 50 dimensions, $\sigma = 1$, a mean of length $\mu$ along
# the first axis $u$, five seeds per $\mu$.
#
# If the mean's direction wins, every vector ends on the line of the mean, on the side of the
# origin its own coordinate $\mu + \sigma z_1$ had. Two vectors then have cosine $+1$ if those signs
# agree and $-1$ if not, and each is positive with probability $\Phi(\mu/\sigma)$, so the mean
# cosine is $\big(\Phi - (1 - \Phi)\big)^2 = (2\Phi(\mu/\sigma) - 1)^2$. If another direction wins,
# the vectors end on a centred line and the mean cosine is near 0.
#
# **Predict first.** At $\mu/\sigma = 1$ the start is barely a cone (mean cosine about $1/51$).
# What will the loop make of it?

# %%
predict("05.p2")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
print(f"{'mu / sigma':>10s}{'mu^2':>7s}{'start (five seeds)':>20s}{'(2 Phi - 1)^2':>15s}{'after 60 steps':>18s}"
      f"{'mean direction wins':>21s}   |cos(winner, mean)|, seeds 0-4")
ends = {}
for ratio in (0.25, 0.5, 1.0, 2.0):
    loops = []
    for seed in range(5):
        X = make_isotropic(2000, d, rng=seed)
        X[:, 0] += ratio  # the mean, along the first axis
        loops.append(rich_get_richer_vectors(X, eta=0.18, steps=60))
    ends[ratio] = [mean_cosine(v.end) for v in loops]
    start = [mean_cosine(v.start) for v in loops]
    end = [mean_cosine(v.end) for v in loops]
    wins = sum(v.winner_vs_mean > 0.9 for v in loops)  # the winning direction is within 26 degrees of the mean
    print(f"{ratio:10.2f}{ratio**2:7.2f}{f'{min(start):+.3f} to {max(start):+.3f}':>20s}{loop_cone_cosine(ratio):15.3f}"
          f"{f'{min(end):+.3f} to {max(end):+.3f}':>18s}{f'{wins} of 5':>21s}   "
          + " ".join(f"{v.winner_vs_mean:.2f}" for v in loops))
print("mean cosine after 60 steps at mu / sigma = 0.5, seeds 0-4: " + " ".join(f"{c:+.3f}" for c in ends[0.5]))
print(f"what sampling adds to the largest of the other eigenvalues, about (1 + sqrt(d/n))^2 - 1 = "
      f"{(1 + np.sqrt(d / 2000)) ** 2 - 1:.2f}")

# %% [markdown] tags=["reveal-end"]
# **Compare with your guess.** Open the folded output above and set it beside your prediction
# before you read on.
#
# The closed form assumes that the winning direction *is* the mean's. Sampling tilts it, more with
# fewer vectors per dimension. The same loop at $\mu/\sigma$ = 1 and 2 with fewer vectors, from
# $d/n = 0.025$ (the 2,000 above) to 0.2, five seeds each:

# %%
print(f"{'vectors':>8s}{'d / n':>7s}{'mu / sigma':>11s}{'(2 Phi - 1)^2':>15s}{'after 60 steps':>18s}"
      f"{'largest error':>15s}{'mean direction wins':>21s}")
for n in (2000, 1000, 500, 250):
    for ratio in (1.0, 2.0):
        loops = []
        for seed in range(5):
            X = make_isotropic(n, d, rng=seed)
            X[:, 0] += ratio
            loops.append(rich_get_richer_vectors(X, eta=0.18, steps=60))
        end = np.array([mean_cosine(v.end) for v in loops])
        wins = sum(v.winner_vs_mean > 0.9 for v in loops)
        print(f"{n:8,d}{d / n:7.3f}{ratio:11.2f}{loop_cone_cosine(ratio):15.3f}"
              f"{f'{end.min():+.3f} to {end.max():+.3f}':>18s}{np.abs(end - loop_cone_cosine(ratio)).max():15.3f}"
              f"{f'{wins} of 5':>21s}")

# %% [markdown]
# **What the sweep says.** The loop **makes a strong cone when the mean direction already dominates
# the second moment**, and then, with many vectors per dimension, the closed form predicts it. At $\mu/\sigma = 1$ and 2 the mean's
# direction wins in every seed, and the mean cosine goes from $+0.018$ to $+0.020$ (and $+0.071$
# to $+0.075$) to within 0.023 and 0.024 of $(2\Phi - 1)^2$ = 0.466 (and 0.911), at 2,000 vectors
# in 50 dimensions: a cone grown from a lean the mean cosine barely saw. How close the closed form
# comes depends on the number of vectors per dimension (the second table): at $d/n = 0.1$ it is off
# by up to 0.078 at $\mu/\sigma = 1$, and at $d/n = 0.2$ the mean's direction wins in only 2 of 5
# seeds there, so the closed form no longer describes the end (off by 0.303); at $\mu/\sigma = 2$
# the mean still wins in every seed, within 0.050. "Within a few hundredths" is a statement about
# many vectors per dimension, and about a mean that dominates by a wide margin. At 0.25 and 0.5 the mean adds only $\mu^2$ to one eigenvalue,
# less than sampling adds to the largest of the other directions (0.34 at this size), so in no seed
# is the winning direction the mean's (within 26°, the "wins" column). But it is not random either.
# At 0.5 the winner is tilted toward the mean without being it (its cosine with the mean is 0.36
# to 0.85 by seed, last column), and the loop makes a line with a weak lean (seed by seed $+0.058$,
# $+0.093$, $+0.089$, $+0.113$, $+0.023$: one seed passes the meter table's 0.1 threshold, though all
# stay below the closed form's 0.147).
# At 0.25 the winner is nearly unrelated to the mean (0.12 to 0.25) and the loop makes a centred
# line ($-0.000$ to $+0.003$). The knob that decides between a cone and a line is the mean's share
# of the second moment, not the loop.

# %% [markdown]
# The closed form also assumes a *Gaussian* start: $\Phi$ is the chance that a Gaussian coordinate
# $\mu + \sigma z_1$ is positive. For a start drawn from another distribution of unit variance,
# that chance is $F(\mu/\sigma)$, with $F$ the start's own distribution function, and the mean
# cosine on the line is $(2F(\mu/\sigma) - 1)^2$. The same loop, 2,000 vectors in 50 dimensions,
# every coordinate drawn from a Gaussian, a uniform or a Laplace distribution of unit variance,
# five seeds each:

# %%
ROOT3, LAPLACE_SCALE = np.sqrt(3.0), 1 / np.sqrt(2.0)  # uniform on [-sqrt 3, sqrt 3] and Laplace(1/sqrt 2): variance 1
START_DISTRIBUTIONS = {
    "Gaussian": (lambda rng, shape: rng.standard_normal(shape), lambda x: (1 + erf(x / np.sqrt(2))) / 2),
    "uniform": (lambda rng, shape: rng.uniform(-ROOT3, ROOT3, shape), lambda x: min(1.0, (x + ROOT3) / (2 * ROOT3))),
    "Laplace": (lambda rng, shape: rng.laplace(0.0, LAPLACE_SCALE, shape), lambda x: 1 - np.exp(-x / LAPLACE_SCALE) / 2),
}
print(f"{'start':>9s}{'mu / sigma':>11s}{'(2 Phi - 1)^2':>15s}{'(2 F - 1)^2':>13s}{'after 60 steps':>18s}"
      f"{'off from Phi':>14s}{'off from F':>12s}{'mean direction wins':>21s}")
for name, (draw, F) in START_DISTRIBUTIONS.items():
    for ratio in (1.0, 2.0):
        loops = []
        for seed in range(5):
            X = draw(np.random.default_rng(seed), (2000, d))
            X[:, 0] += ratio
            loops.append(rich_get_richer_vectors(X, eta=0.18, steps=60))
        end = np.array([mean_cosine(v.end) for v in loops])
        own = (2 * F(ratio) - 1) ** 2
        print(f"{name:>9s}{ratio:11.2f}{loop_cone_cosine(ratio):15.3f}{own:13.3f}{f'{end.min():+.3f} to {end.max():+.3f}':>18s}"
              f"{np.abs(end - loop_cone_cosine(ratio)).max():14.3f}{np.abs(end - own).max():12.3f}"
              f"{f'{sum(v.winner_vs_mean > 0.9 for v in loops)} of 5':>21s}")

# %% [markdown]
# **What the start's distribution changes.** The mean's direction wins in every run, so every end is
# a line along the mean, but the share of vectors on its positive side is the start's own $F$,
# not $\Phi$. With a uniform or Laplace start, $(2\Phi - 1)^2$ is off by up to 0.189 (last
# table); the start's own $(2F - 1)^2$ fits within 0.060. The closed form with $\Phi$ is a
# statement about Gaussian starts.
#
# Before the next section, a computation to do on paper:
#
# **05.3 · Compute.** A LayerNorm in 50 dimensions has gain 1 on every coordinate but one, where it is 7. About what share of the variance of its outputs does that coordinate hold? Work it out on paper before reading on.

# %%
answer = None  # your number
check("05.3", answer)
# solution("05.3")  # the worked solution, folded: uncomment after a real try

# %% [markdown]
# ## A dominant coordinate in a real architecture: LayerNorm's two vectors
#
# Real models do have single dominant directions, and they sit on the coordinate axes: Kovaleva et
# al. (2021) find outlier dimensions in BERT's LayerNorm, and Timkey & van Schijndel (2021) one to
# three rogue dimensions that dominate cosine similarity. LayerNorm is a place where one learned
# number acts on every token alike: it maps each token $x$ to $g \odot (x - \bar x)/\operatorname{sd}(x)
# + b$, with a gain vector $g$ and a bias vector $b$. After the normalisation every token has squared
# length exactly $d$, so one outlier entry has a closed-form effect: a bias entry $b_k$ adds the same
# coordinate to every token, a mean cosine of about $b_k^2 / (d + b_k^2)$; a gain entry $g_k$
# stretches one coordinate, which then holds a share $g_k^2 / (g_k^2 + d - 1)$ of the variance.
#
# **Predict first.** Which of the two makes a cone, and which a collapsed spread?

# %%
predict("05.p3")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
tokens = make_isotropic(2000, d, rng=7)
gain, bias = np.ones(d), np.zeros(d)
gain[7], bias[7] = 10.0, 3.0  # one outlier entry each, in coordinate 7
print(meter_table({"LayerNorm, gain 1, bias 0 (control)": layer_norm(tokens),
                   "one gain entry of 10": layer_norm(tokens, gain=gain),
                   "one bias entry of 3": layer_norm(tokens, bias=bias)}))

# %% jupyter={"outputs_hidden": true}
print(f"{'five seeds (min to max)':26s}{'mean cosine':>18s}{'predicted':>11s}{'top share':>18s}{'predicted':>11s}")
for size in (3.0, 10.0):
    for part in ("bias", "gain"):
        vector = np.zeros(d) if part == "bias" else np.ones(d)
        vector[7] = size
        outs = [layer_norm(make_isotropic(2000, d, rng=seed), **{part: vector}) for seed in range(5)]
        cosines = [mean_cosine(Y) for Y in outs]
        shares = [cov_eigs(Y).max() / cov_eigs(Y).sum() for Y in outs]
        cone = size**2 / (d + size**2) if part == "bias" else 0.0
        share = f"{size**2 / (size**2 + d - 1):11.3f}" if part == "gain" else f"{'-':>11s}"  # bias: no outlier variance
        print(f"{f'{part} entry {size:g}':26s}{f'{min(cosines):+.3f} to {max(cosines):+.3f}':>18s}{cone:11.3f}"
              f"{f'{min(shares):.3f} to {max(shares):.3f}':>18s}{share}")

# %% [markdown] tags=["reveal-end"]
# **Compare with your guess.** Open the folded output above and set it beside your prediction
# before you read on.
#
# **What the tables say.** One bias entry makes a **cone** and leaves the spread alone (mean cosine
# $+0.149$, effective rank 47.9 as in the control): it is a shared offset, carried by one coordinate.
# One gain entry makes a **collapsed spread** with no offset (effective rank 2.2, mean cosine
# $-0.000$): the rogue coordinate holds about two thirds of the variance. Over five seeds and two
# sizes the closed forms hold to within about two hundredths (bias 3: $+0.147$ to $+0.153$ against
# 0.153, bias 10: $+0.666$ to $+0.669$ against 0.667; gain 3: a top share of 0.143 to 0.158 against
# 0.155, gain 10: 0.649 to 0.675 against 0.671), and neither kind of entry crosses over: the bias
# never narrows the spread, the gain never makes an offset. So an outlier dimension is a *cause* in the sense of this course only together
# with its kind: a bias gives the cone, a gain the collapsed spread, and the rich-get-richer loop
# above would need a mean to dominate before it made either a cone. Why training puts such large
# entries into LayerNorm's vectors is a separate question, and the toy does not answer it.
#
# **Does the optimiser make outlier coordinates?** One proposed cause is Adam. Gradient descent's
# step is the same in any rotated basis; Adam divides each coordinate's step by that coordinate's
# own running gradient size, so it could single out the coordinate axes (Elhage et al. 2023,
# "Privileged Bases in the Transformer Residual Stream", Anthropic Transformer Circuits Thread).
# Notebook 04's language model can be trained both ways. The meter is the largest coordinate's
# share of the variance of its 128 embeddings ($1/d$ when every coordinate carries the same),
# beside the same Adam embeddings in random rotations (no preferred basis: the clean control, the
# same embeddings at the same stage of training), the model trained by gradient descent and a
# Gaussian of the same size: five seeds, two widths, two training lengths. The loss each run reached
# and the effective rank of its embeddings say how far training went.

# %%
lengths = (1600, 3200)  # training steps; one pair of runs per width, checkpointed at each length
print(f"{'seeds 0-4 (min to max)':30s}" + "".join(f"{f'd = {d}, {t:,} steps':>20s}" for d in (8, 16) for t in lengths))
shares = {d: optimizer_shares_by_length(d, seeds=(0, 1, 2, 3, 4), lengths=lengths) for d in (8, 16)}
for label, field, fmt in [("largest coordinate share", None, None),
                          ("  Adam", "adam", ".3f"), ("  Adam, in random rotations", "rotated", ".3f"),
                          ("  gradient descent (no Adam)", "gd", ".3f"), ("  Gaussian, same size", "gaussian", ".3f"),
                          ("Adam / rotated, seed by seed", "ratio", ".2f"),
                          ("loss reached", None, None), ("  Adam", "adam_loss", ".2f"),
                          ("  gradient descent", "gd_loss", ".2f"),
                          ("effective rank", None, None), ("  Adam", "adam_rank", ".1f"),
                          ("  gradient descent", "gd_rank", ".1f"), ("  Gaussian, same size", "gaussian_rank", ".1f")]:
    cells = ""
    for d in (8, 16):
        for s in shares[d]:
            if field is not None:
                v = s.adam / s.rotated if field == "ratio" else getattr(s, field)
                cells += f"{f'{min(v):{fmt}} to {max(v):{fmt}}':>20s}"
    print(f"{label:30s}{cells}")
print("for scale: one LayerNorm gain entry of 10 at the same width, 10^2 / (10^2 + d - 1) = "
      + ", ".join(f"{100 / (100 + d - 1):.3f} (d = {d})" for d in (8, 16)))

# %% [markdown]
# **After 1,600 steps Adam makes no outlier coordinate in this toy.** Its largest coordinate carries
# 0.159 to 0.172 of the variance at 8 dimensions and 0.078 to 0.095 at 16, and the same embeddings
# in a random basis carry about as much: seed by seed, Adam's share is 0.95 to 1.04 times theirs at
# 8 dimensions and 0.96 to 1.11 at 16. At 3,200 steps the ratio spreads (0.95 to 1.21 and 0.94 to
# 1.13) without settling above 1 in every seed: over the lengths run here, Adam shows no preference
# for the axes that holds seed by seed. Whether much longer training settles it is not run here
# (`optimizer_shares_by_length(16, lengths=(6400, 12800))` takes about a minute: try it). The
# largest share stays far below what one LayerNorm gain entry of 10 gives at the same width (0.935
# at 8 dimensions, 0.870 at 16). So over this range Adam's basis is at most mildly privileged in
# this small, noise-free toy; a LayerNorm-style outlier it does not make.
#
# Gradient descent is not a clean "no Adam" control here: with its step it trains more slowly
# (loss 3.37 to 3.43 against Adam's 2.97 to 3.00 at 8 dimensions after 1,600 steps, 3.15 to 3.19
# against 2.68 to 2.69 at 16) and its embeddings are far more collapsed at that stage (effective
# rank 2.7 to 3.3 of 8 against Adam's 6.5 to 7.0). The random rotation of Adam's own embeddings is
# the clean control. Against the Gaussian, effective ranks say what the shares cannot: every trained
# cloud has a lower effective rank than the Gaussian (Adam 12.0 to 12.9 against 13.7 to 14.3 at 16
# dimensions), so training narrows the spread, and the rotated shares show it is not along the axes.
#
# Elhage et al. provisionally attribute basis-aligned features in a Transformer's residual stream to
# Adam's per-dimension normalisers; this toy has no residual stream and cannot test that.
#
# **Takeaway.** Positive feedback alone, with no architecture involved, turns a tiny imbalance
# into a one-dimensional spread, which the ranks and IsoScore see and the mean cosine does not.
# Whether real training contains such a loop is debated (see the theory section); the toy shows
# only that such a loop, if present, acts fast, that on centred vectors what it makes is a line,
# and that on uncentred vectors it makes a strong cone when the mean already holds the largest
# direction of the second moment, with a mean cosine of $(2F(\mu/\sigma) - 1)^2$ when there are
# many vectors per dimension, $F$ the distribution function of the start ($\Phi$ for a Gaussian
# start: within 0.024 at $d/n = 0.025$).
#
# ## Explorer

# %%
# Each move: rich_get_richer_run computes the spectra; RichGetRicherView draws them.
explore(rich_get_richer_run, RichGetRicherView, title="Explorer: rich-get-richer",
        eta=slider("η: amplification rate", 0.18, 0.0, 0.5, 0.01),
        steps=slider("steps: training steps", 60, 1, 200, 1),
        unevenness=slider("u: initial unevenness", 0.05, 0.0, 0.3, 0.01))

# %% [markdown]
# **Try this.**
# 1. Set $\eta$ to 0. Why does the effective rank stay where it started?
# 2. Set the initial unevenness to 0. The spectrum starts perfectly flat: does it collapse? What
#    breaks the tie in the default run?
# 3. Halve $\eta$. How many more steps does the effective rank need to reach 1?

# %% [markdown]
# ## Exercises
#
# This notebook asks its questions in the text, each before the prose that explains it (the
# function after the mechanism, one question before the yardstick, one before LayerNorm's
# section). If you read past one, go back and answer it there. After a real try,
# `solution("05.1")` (commented out in each exercise cell) shows the worked solution, folded; all
# of them are in [SOLUTIONS.md](SOLUTIONS.md).

# %% [markdown]
# **Where this leads.** Of the three mechanisms, attention (03) made each sequence a cone of its own,
# notebook 04's likelihood training gave a group of vocabulary vectors a shared cone (fading under the exact loss) that
# its control lacks, and this loop collapsed the spread (and made a strong cone when the mean already
# dominated).
# Notebook [06 · Whitening](06_whitening.ipynb) undoes offsets and uneven spreads after the fact,
# and asks whether we should.
