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
# # 06 · Whitening: pulling the cone back to a sphere (and whether to)
#
# **Question.** Can cheap post-processing restore isotropy and bring the cosine baseline back to
# 0, and what can a meter honestly report for a cloud that has been whitened?
#
# **Time:** about 25 minutes. **After this notebook you can** apply all-but-the-top and ZCA
# whitening, read their effect on the meters, and explain why the partition isotropy of a whitened
# cloud is a distribution, not a number.
#
# **Theory:** [§5 Remedies](../research/03-isotropy-anisotropy.md#5-remedies) and
# [§6 When not to isotropise](../research/03-isotropy-anisotropy.md#6-when-not-to-isotropise).

# %%
import numpy as np

from shared import (
    all_but_the_top,
    basis_isotropy,
    cov_eigs,
    effective_rank,
    isoscore,
    partition_isotropy,
    random_cosines,
    sphere_and_cone,
    zca_whiten,
)
from shared.explorers import WHITENED_BASES, whitening_explorer, whitening_scene
from shared.figures import WhiteningView

# %% [markdown]
# ## Two remedies
#
# * **All-but-the-top** (Mu & Viswanath 2018): subtract the mean, then remove the projections on
#   the top $k$ principal directions. It deletes the few rogue directions and keeps the rest as
#   they are. The paper's rule of thumb is $k \approx d/100$.
# * **ZCA whitening**: $z = \Sigma^{-1/2}(x - \mu)$. Every direction is rescaled to unit variance,
#   so the covariance becomes the identity by construction; of all whitening transforms, ZCA
#   stays closest to the original coordinates.
#
# We apply both to the cone of notebook 01, with $k = 2$.
#
# **Predict first.** Whitening makes the covariance exactly the identity. Will the partition
# isotropy of the whitened cloud be exactly 1?

# %%
_, X_cone = sphere_and_cone()  # the cone of notebook 01 (seed 0)
X_abtt = all_but_the_top(X_cone, k=2)
X_white = zca_whiten(X_cone)
rng = np.random.default_rng(6)
cos = {name: random_cosines(X, rng) for name, X in
       [("original cone", X_cone), ("all-but-the-top (k=2)", X_abtt), ("ZCA whitened", X_white)]}
for name, X in [("original cone", X_cone), ("all-but-the-top (k=2)", X_abtt)]:
    print(f"{name:22s}: partition I = {partition_isotropy(X):.3f}   mean random cosine = {cos[name].mean():+.3f}")
print(f"{'ZCA whitened':22s}: partition I = see below   mean random cosine = {cos['ZCA whitened'].mean():+.3f}")

# %% [markdown]
# ## The whitened cloud has no "eigenvectors"
#
# Partition isotropy evaluates $Z(c)$ along the eigenvectors of $X^\top X$. After whitening,
# $X^\top X = n I$: every unit vector is an eigenvector, and the ones a LAPACK routine returns are
# an arbitrary pick that changes with the BLAS build. The toolkit refuses to pretend otherwise:

# %%
try:
    partition_isotropy(X_white)
except ValueError as err:
    print("ValueError:", err)

# %% [markdown]
# What *is* well defined is the distribution of the estimator over eigenbases chosen uniformly at
# random (each basis below is a random rotation from a seeded generator), and the meters that do
# not use eigenvectors at all:

# %%
spread = basis_isotropy(X_white, np.random.default_rng(6), bases=WHITENED_BASES)
print(f"partition I over {WHITENED_BASES} random eigenbases: median {np.median(spread):.3f},"
      f" range {spread.min():.3f} to {spread.max():.3f}")
print(f"effective rank = {effective_rank(cov_eigs(X_white)):.1f} / 50   IsoScore = {isoscore(X_white):.3f}")

# %%
WhiteningView(whitening_scene())

# %% [markdown]
# **What you see.** The cone starts at partition isotropy 0.000 and a mean random cosine of
# $+0.846$. All-but-the-top with $k = 2$ lifts the isotropy to 0.510 and brings the mean cosine to
# $-0.001$. ZCA whitening also gives a mean cosine of $-0.001$; its partition isotropy depends on
# the basis, from 0.933 to 0.963 over 20 random eigenbases (the bar shows the median, 0.954).
# Its effective rank is 50.0 of 50 and its IsoScore 1.000, exactly, whatever the basis.
#
# **Why.** Nearly all of the cone's anisotropy lives in its mean and one dominant direction.
# Centring and removing the top two components takes both out, so random pairs are orthogonal
# again on average. Whitening goes further and equalises all 50 variances, so every
# covariance-based meter reads perfect by construction. Partition isotropy stays below 1 because
# a sample of 2,000 points is never perfectly round along every direction.
#
# **Takeaway, and the caveat.** Both remedies are cheap and repair the cosine baseline. But a meter
# that is perfect by construction proves nothing: whitening fitted on a cloud makes every
# covariance meter ideal *on that cloud*, including along directions that held only noise, and
# stretches those to the same size as the signal. The literature finds that the most isotropic
# representation is not always the most useful one (SimCSE, Gao et al. 2021; Rudman & Eickhoff
# 2024). The aim is to widen the cone enough to make distances meaningful, not to flatten it
# blindly.
#
# ## Explorer
#
# Choose how many top components all-but-the-top removes ($k$), and how strongly to whiten:
# $\Sigma^{-p/2}$ runs from centring only ($p = 0$) to full ZCA ($p = 1$).

# %%
whitening_explorer()

# %% [markdown]
# **Try this.**
# 1. Set $k$ to 0 (centring only). How much of the cosine problem does centring alone fix, and how
#    much of the isotropy?
# 2. Slide $p$ from 0 to 1. Where does the mean cosine reach 0, and where does isotropy?
# 3. At $p = 1$ the isotropy bar shows a range, not a number. Why can no single value be right?
#
# **Where this leads.** Back to the start: open [01 · Sphere vs cone](01_sphere_vs_cone.ipynb)
# and check which meters the remedies would fool, or read the
# [theory](../research/03-isotropy-anisotropy.md).
