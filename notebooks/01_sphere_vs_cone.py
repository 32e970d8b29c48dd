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
# # 01 · Sphere vs cone: what isotropy looks like, and how to put a number on it
#
# **Question.** How do an isotropic cloud of vectors and a narrow cone differ, in a picture and in
# numbers, and can a single number tell them apart?
#
# **What this course is about.** A trained model turns text into vectors: a vector per word type
# (the *word embeddings* of its input layer), a vector per token in context at every layer (the
# *hidden states*), and, pooled from those, a vector per sentence that search and retrieval
# systems compare by cosine similarity. A set of such vectors is **isotropic** when no direction
# of the space is special: the vectors are centred on the origin and spread equally in every
# direction, like samples of a standard Gaussian. Trained models often break both halves of that
# sentence. When their vectors share a common offset that is large against their spread, they all
# lean one way and, seen from the origin, fill a **narrow cone**; often, too, their variance
# crowds into a few directions. This notebook builds both geometries and the meters that tell them apart; the
# rest of the course asks where cones come from, what they do to cosine similarity, and how to
# undo them.
#
# **Time:** about 45 minutes, an estimate (counted from the text, the exercises and the running time, not timed on learners; see TEACHING.md). **After this notebook you can** build both geometries, read isotropy
# off a covariance spectrum, compute three isotropy meters, and say which clouds fool which meter.
#
# **Theory:** [§1 Isotropy and the narrow cone](../research/03-isotropy-anisotropy.md#1-isotropy-anisotropy-and-the-narrow-cone)
# and [§2 Measuring isotropy](../research/03-isotropy-anisotropy.md#2-measuring-isotropy).

# %%
import numpy as np

from shared import (
    cov_eigs,
    effective_rank,
    make_isotropic,
    mean_plane,
    meter_table,
    partition_isotropy,
    sphere_and_cone,
)
from shared.exercises import check, solution
from shared.explorers import explore, slider
from shared.predictions import predict
from shared.figures import SphereConeView

n, d = 2000, 50  # points, dimensions

# %% [markdown]
# ## Two geometries
#
# * The **isotropic cloud** is a standard Gaussian: $x_i \sim \mathcal N(0, I_{50})$. Every
#   direction carries the same variance and the mean is the origin.
# * The **narrow cone** adds to a small Gaussian residual a large offset along one unit direction
#   $u$, with a positive coefficient that varies from point to point:
#   $x_i = a_i u + \sigma \varepsilon_i$, with $a_i = s\,(0.15 + 0.85\,U_i)$, $s = 4$, $\sigma = 0.1$.
#   All points lean the same way, and $u$ also carries most of the variance.
#
# ## Three meters
#
# * **Partition isotropy** $I = \min_c Z(c) / \max_c Z(c)$ with $Z(c) = \sum_i e^{c^\top x_i}$
#   (Arora et al. 2016; Mu & Viswanath 2018). For an isotropic cloud $Z$ barely depends on the
#   direction $c$, so $I$ is near 1; a shared offset makes $Z$ huge along it, so $I$ falls to 0.
#   The course evaluates $c$ over the eigenvectors of $X^\top X$ *and their negatives*, after
#   dividing $X$ by its root-mean-square entry, so the number does not depend on arbitrary signs or
#   on the cloud's scale (see `help(partition_isotropy)`).
# * **Mean cosine**: the average cosine similarity of two points, estimated from random pairs or
#   computed exactly over all pairs.
# * **Effective rank** (participation ratio) of the covariance eigenvalues,
#   $PR = (\sum_k \lambda_k)^2 / \sum_k \lambda_k^2$: how many directions actually carry variance,
#   between 1 and $d$.
#
# **Predict first.** The cone lives in 50 dimensions too. Guess its effective rank before you run
# the next cell: close to 50, about 10, or close to 1?

# %%
predict("01.p1")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
X_iso, X_cone = sphere_and_cone()  # one generator, seed 0: the isotropic cloud, then the cone
for name, X in [("isotropic", X_iso), ("narrow cone", X_cone)]:
    print(f"{name:12s}: partition I = {partition_isotropy(X):.3f}"
          f"   effective rank = {effective_rank(cov_eigs(X)):.1f} / {d}")

# %% [markdown] tags=["reveal-end"]
# **Compare with your guess.** Open the folded output above and set it beside your prediction
# before you read on.
#
# The isotropic cloud scores $I = 0.690$, not 1: a finite sample of 2,000 points is never perfectly
# round, and $I$ takes the *worst* ratio over 100 directions. Its effective rank, 48.8 of 50, says it
# uses nearly every direction. The cone scores $I = 0.000$ and an effective rank of 2.3: it has
# 50 axes available and puts almost all of its variance into about two.
#
# **Your turn · 01.1 · Implement.** Write the effective rank yourself: centre the cloud (subtract
# each column's mean), take the eigenvalues $\lambda_k$ of its covariance, and return
# $(\sum_k \lambda_k)^2 / \sum_k \lambda_k^2$. The check runs your function on six clouds (a sphere,
# a shifted sphere, a cone, a line, fewer points than dimensions, and a tiny cloud whose entries are
# about $10^{-9}$) against the toolkit's `effective_rank(cov_eigs(X))`, and names the usual mistakes.

# %%
def my_effective_rank(X: np.ndarray) -> float:
    """Participation ratio of the covariance eigenvalues of the cloud X (points x dimensions)."""
    raise NotImplementedError  # replace this line with your code


check("01.1", my_effective_rank)
# solution("01.1")  # the worked solution, folded: uncomment after a real try

# %% [markdown]
#
# ## The picture and the spectrum
#
# A cone is about where the points sit *relative to the origin*, so the picture must keep the
# origin where it is: we do not centre the clouds. Each point is drawn by two coordinates: how far
# it goes along the cloud's mean direction, and how far along the widest direction across it
# (`mean_plane`). We also measure each point's angle to the mean direction in all 50 dimensions,
# and look at the whole covariance spectrum: the eigenvalues $\lambda_k$ as fractions of the
# total variance.

# %%
eig_iso, eig_cone = cov_eigs(X_iso), cov_eigs(X_cone)
print("top-5 eigenvalues as fractions of the total variance:")
print("  isotropic  :", np.round(eig_iso[:5] / eig_iso.sum(), 3))
print("  narrow cone:", np.round(eig_cone[:5] / eig_cone.sum(), 3))
plane_iso, plane_cone = mean_plane(X_iso), mean_plane(X_cone)
print("median angle to the mean direction (degrees):")
print(f"  isotropic  : {np.median(plane_iso.angles):.0f}")
print(f"  narrow cone: {np.median(plane_cone.angles):.0f}")
print(f"the cone's points run from {plane_cone.coords[:, 0].min():.1f} to {plane_cone.coords[:, 0].max():.1f}"
      " along its mean direction; the origin is at 0")

# %%
SphereConeView(X_iso, X_cone)

# %% [markdown]
# **What you see.** The isotropic cloud is a round blob around the origin (the black cross): its
# points point every way, at a median angle of 89 degrees to their mean direction, and its spectrum
# is flat: its top direction holds 0.027 of the variance, barely more than a perfect sphere would
# give it (computed below). The cone stands off the origin: every point lies on the far side of
# it along the mean direction (the black bar is the mean), at a median angle of only 17 degrees,
# and its spectrum has one spike: the top direction holds 0.661 of the variance, each of the next
# ones 0.009. (The picture shows the cone thinner than 17 degrees: the spread across the mean is
# shared among 49 directions, and the picture shows only the widest one.)
#
# **Why.** The numbers follow from how the two clouds were built:

# %%
s, sigma = 4.0, 0.10  # the cone's strength and residual
print(f"a perfect sphere: every direction holds 1/{d} = {1 / d:.3f} of the variance")
print(f"the cone's coefficient a = s (0.15 + 0.85 U) runs from {s * 0.15:.1f} to {s:.1f},"
      f" a variance of s^2 0.85^2 / 12 = {s**2 * 0.85**2 / 12:.2f} along u")
print(f"each of the other {d - 1} directions: sigma^2 = {sigma**2:.2f}")

# %% [markdown]
# The direction $u$ carries a variance of 0.96 against 0.01 for each of the 49 others: one spike
# over a flat floor. That is the algebraic signature of a narrow cone.
#
# **Takeaway.** The covariance spectrum is the most direct picture of isotropy: flat means every
# direction is used, one spike over a floor means a cone.
#
# ## Which meter lies when
#
# No single number captures "isotropy". Below, six meters look at seven clouds. The three new
# ones: **entropy rank** $\exp(-\sum_k p_k \log p_k)$ with $p = \lambda / \sum \lambda$ (Roy &
# Vetterli 2007); **IsoScore** (Rudman et al. 2022), which is algebraically
# $(PR - 1)/(d - 1)$; and **uniformity** $\log \mathbb E\, e^{-2\|u - v\|^2}$ of the points
# projected on the unit sphere (Wang & Isola 2020; lower is more uniform).
#
# A meter "calls a cloud isotropic" (✓) when its value is close to what it gives for a Gaussian
# baseline **with the same number of points and dimensions**; the rule for each meter is printed
# under the table. The last column names the failure: a shared **offset** (the mean cosine is off
# the baseline) and/or a collapsed **spread** (the effective rank is well below the baseline's).
# `meter_table` prints this table for any named clouds; notebooks 03–05 use it to judge what each
# mechanism produces. The mean cosine here is exact, over all pairs (`mean_cosine`), so the table
# needs no seed; notebooks 02 and 06 estimate the same mean from a sample of random pairs, so their
# third decimal can differ from this table's (notebook 02 measures by how much). The rules are conventions, not laws: the mean-cosine rule, for one, does not
# depend on $n$ or $d$, so a value close to its threshold is a weak verdict either way.
#
# **Predict first.** A Gaussian shifted by +3 on every coordinate still uses every direction
# equally. Which meters will notice the shift?

# %%
predict("01.p2")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
rng = np.random.default_rng(10)
u = rng.standard_normal(d)
u /= np.linalg.norm(u)
clouds = {
    "isotropic Gaussian": X_iso,
    "narrow cone": X_cone,
    "Gaussian shifted by +3": X_iso + 3.0,
    "centred line (1 direction)": np.outer(rng.standard_normal(n), u),
    "Gaussian scaled by 0.1": 0.1 * X_iso,
    "Gaussian scaled by 10": 10.0 * X_iso,
    "30 points in 50 dimensions": make_isotropic(30, d, rng),
}
print(meter_table(clouds))

# %% [markdown]
# **Compare with your guess**: which meters flagged the shifted Gaussian? Before reading what the
# table teaches, one question it can answer:
#
# **01.2 · Explain.** A cloud in 50 dimensions lies flat in a plane through the origin: it is centred and spreads evenly over two directions, with no variance in the other 48. Which meter calls it isotropic? (a) effective rank, because both used directions carry the same variance, so its spectrum is even (b) IsoScore, because it centres the cloud first, and this cloud is already centred (c) mean random cosine, because with no shared offset the pairs' cosines average zero

# %%
answer = None  # one of "a", "b", "c"
check("01.2", answer)
# solution("01.2")  # the worked solution, folded: uncomment after a real try

# %% [markdown] tags=["reveal-end"]
# **What the table teaches.**
#
# * **No single meter suffices.** The centred line uses one direction, yet its mean cosine is
#   $+0.000$: a cosine meter sees no problem. The shifted Gaussian leans one way (mean cosine
#   $+0.901$), yet it spreads its variance evenly, so both ranks and IsoScore call it isotropic.
#   Partition isotropy and uniformity flag both clouds, and the cone, but cannot say which of the
#   two failures they saw.
# * **The mean and the spread are different failures.** Partition isotropy, mean cosine and
#   uniformity react to a shared offset (they look at the raw vectors). The two ranks and
#   IsoScore centre the cloud first and only see how variance is spread. The shifted Gaussian is a
#   cone with an even spread; the centred line is no cone at all, yet has all its variance in one
#   direction; the course's narrow cone fails both ways. The course uses the word *cone* for the
#   first failure, a shared offset, because that is what makes unrelated vectors look alike.
# * **Scale.** The course's partition isotropy divides by the cloud's root-mean-square entry, so
#   all six meters give the same numbers at scale 0.1 and 10. The original estimator does not
#   rescale, and then scale alone moves it (next cell).
# * **Compare with a baseline of the same size.** Thirty Gaussian points in 50 dimensions have an
#   effective rank of 17.3, far below 50, and a partition isotropy of 0.075. Against 50 that
#   looks like a collapse; against the baseline of 30 Gaussian points, it is exactly what
#   randomness gives (✓).

# %%
for scale in (0.1, 1.0, 10.0):
    print(f"Gaussian scaled by {scale:>4}: partition I without rescaling = "
          f"{partition_isotropy(scale * X_iso, rescale=False):.3f}, with = {partition_isotropy(scale * X_iso):.3f}")

# %% [markdown]
# Without rescaling, a Gaussian shrunk to 0.1 of its size scores 0.984, and one blown up to 10
# times scores 0.000: the same shape, opposite verdicts. That is why the course rescales.
#
# ## Explorer
#
# Move the sliders to reshape the cone; the isotropic reference stays fixed beside it. The
# numbers next to the sliders are the three meters for both clouds.

# %%
# Each move: sphere_and_cone(strength, residual) rebuilds both clouds (seed 0); SphereConeView draws them.
explore(sphere_and_cone, SphereConeView, title="Explorer: sphere vs cone",
        strength=slider("s: cone strength (shared offset)", 4.0, 0.0, 10.0, 0.25),
        residual=slider("σ: residual noise per direction", 0.10, 0.01, 1.0, 0.01))

# %% [markdown]
# **Try this.**
# 1. Set the cone strength to 0. Which meters now match the isotropic reference, and why does
#    the cloud stay a round blob?
# 2. Keep the strength at 4 and raise the residual noise to 1. How do the effective rank and the
#    spectrum change as the residual catches up with the offset?
# 3. Put the strength back to 0 with the residual at 0.1, then raise the strength step by step
#    up to 10. Which meter reaches its collapsed end first, and which keep moving all the way?
#    Then drop the residual to 0.01 (a needle): what is left for any meter to show?

# %% [markdown]
# ## Exercises
#
# Replace `None` with your answer and run the cell: the check says whether you got it, and if not,
# which idea to revisit. After a real try, `solution("01.3")` (commented out in the cell) shows the
# worked solution, folded; all of them are in [SOLUTIONS.md](SOLUTIONS.md). (The other question was
# asked above, before the prose that explains the table.)
#
# **01.3 · Predict.** A 50-dimensional covariance spectrum has 10 equal eigenvalues and 40 zeros. What is its effective rank (participation ratio)? Work it out before computing anything.

# %%
answer = None  # your number
check("01.3", answer)
# solution("01.3")  # the worked solution, folded: uncomment after a real try

# %% [markdown]
# **Where this leads.** A cone makes unrelated vectors look similar. Notebook
# [02 · Illusory cosine similarity](02_illusory_cosine.ipynb) measures how much.
