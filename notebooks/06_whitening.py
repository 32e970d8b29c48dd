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
# 0, what can a meter honestly report for a cloud that has been whitened, and should we always
# want the most isotropic result?
#
# **Time:** about 35 minutes. **After this notebook you can** apply all-but-the-top and ZCA
# whitening, read their effect on the meters, explain why the partition isotropy of a whitened
# cloud is a distribution, not a number, and measure what isotropy costs on a task.
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
    knn_accuracy,
    make_planted,
    pair_auc,
    partition_isotropy,
    random_cosines,
    sphere_and_cone,
    sweep_remedies,
    zca_whiten,
)
from shared.exercises import check
from shared.explorers import explore, slider
from shared.figures import WHITENED_BASES, RemedyView, TradeoffView

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
# **Your turn · 06.1 · Implement.** Write all-but-the-top: centre the cloud, find the top $k$
# principal directions of the centred cloud, and subtract each point's projection on them. The
# check compares your function with the toolkit's `all_but_the_top` on four clouds and names the
# usual mistakes (numpy's `eigh` returns eigenvalues in *ascending* order).

# %%
def my_all_but_the_top(X: np.ndarray, k: int) -> np.ndarray:
    """X minus its mean, with its projections on the top k principal directions removed."""
    raise NotImplementedError  # replace this line with your code


check("06.1", my_all_but_the_top)

# %% [markdown]
# We apply both to the cone of notebook 01, with $k = 2$.
#
# **Predict first.** Whitening makes the covariance exactly the identity. Will the partition
# isotropy of the whitened cloud be exactly 1?

# %%
_, X_cone = sphere_and_cone()  # the cone of notebook 01 (seed 0)
X_abtt = all_but_the_top(X_cone, k=2)
X_white = zca_whiten(X_cone)
remedied = {"original cone": X_cone, "all-but-the-top (k=2)": X_abtt, "ZCA whitened": X_white}
rng = np.random.default_rng(6)
cos = {name: random_cosines(X, rng) for name, X in remedied.items()}
for name in ("original cone", "all-but-the-top (k=2)"):
    print(f"{name:22s}: partition I = {partition_isotropy(remedied[name]):.3f}"
          f"   mean random cosine = {cos[name].mean():+.3f}")
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
by_basis = basis_isotropy(X_white, np.random.default_rng(6), bases=WHITENED_BASES)
print(f"partition I over {WHITENED_BASES} random eigenbases: median {np.median(by_basis):.3f},"
      f" range {by_basis.min():.3f} to {by_basis.max():.3f}")
print(f"effective rank = {effective_rank(cov_eigs(X_white)):.1f} / 50   IsoScore = {isoscore(X_white):.3f}")

# %%
RemedyView(remedied, cos)

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
# **Takeaway.** Both remedies are cheap and repair the cosine baseline, and whitening makes every
# covariance meter perfect. But a meter that is perfect by construction proves nothing about
# whether the representation got *better*. The next section measures that.
#
# ## Should we whiten? Putting a number on what isotropy costs
#
# To measure a cost we need structure that matters. `make_planted` builds 2,000 labelled points in
# 50 dimensions: the label (one of 5 classes) lives in 4 strong directions, a cone's shared,
# varying offset sits on top along a fifth, and the other 45 directions hold weak noise (standard
# deviation 0.3). The task score is the **held-out pair AUC**: for random pairs of points, how well
# their cosine separates same-label pairs from different-label pairs (0.5 is chance, 1 is perfect).
# Like a semantic-similarity benchmark, it compares cosines of *different* pairs on one scale.
# We also report $k$-nearest-neighbour accuracy ($k = 10$), which only ranks neighbours of one
# point at a time.
#
# Every remedy is **fitted on the first 1,000 points and scored on the other 1,000**.
#
# **Predict first.** Which setting will separate the labels best: raw, centring only, removing the
# top direction, or full whitening?

# %%
planted = make_planted(2000, 50, rng=7)
first_half, second_half = slice(0, 1000), slice(1000, None)
X_fit, y_fit = planted.X[first_half], planted.labels[first_half]  # remedies are fitted here
X_held, y_held = planted.X[second_half], planted.labels[second_half]  # and scored here
print(f"raw (no remedy): IsoScore = {isoscore(X_held):.3f}   mean cosine = {random_cosines(X_held, 0).mean():+.3f}"
      f"   pair AUC = {pair_auc(X_held, y_held, 0):.3f}   kNN accuracy = {knn_accuracy(X_fit, y_fit, X_held, y_held):.3f}")
sweep = sweep_remedies(X_fit, y_fit, X_held, y_held)  # k = 0..10, p = 0, 0.05, ..., 1
for curve in (sweep.all_but_the_top, sweep.whitening):
    print(f"\n{curve.remedy:16s} {'IsoScore':>9s} {'mean cos':>9s} {'pair AUC':>9s} {'kNN acc':>8s}")
    for i, setting in enumerate(curve.setting):
        if curve.remedy == "all-but-the-top" or round(setting * 20) % 2 == 0:  # whitening: every 0.1
            print(f"{curve.describe(i):16s} {curve.isoscore[i]:9.3f} {curve.mean_cosine[i]:+9.3f}"
                  f" {curve.pair_auc[i]:9.3f} {curve.knn_accuracy[i]:8.3f}")

# %%
TradeoffView(sweep, k=2, power=1.0, title="Planted cloud: held-out pair AUC against IsoScore")

# %% [markdown]
# **What you see.** Raw, the cloud has IsoScore 0.017 and a mean cosine of $+0.903$; its pair AUC
# is 0.717. Centring alone ($k = 0$, $p = 0$) makes the pair AUC *worse*, 0.633: the offset's
# variation now flips the sign of many cosines. Removing the top direction ($k = 1$) gives the
# best score of the whole sweep, 0.935 (gold star), at an IsoScore of only 0.079. Every further
# component removed is a label direction: by $k = 5$ all four are gone, the pair AUC is 0.506,
# chance, and IsoScore has *risen* to 0.860. Whitening traces an arc: its pair AUC peaks at 0.742
# ($p = 0.6$) and falls to 0.615 at full ZCA, where IsoScore is highest (0.908). The
# circles mark the explorer's settings, $k = 2$ and $p = 1$. The most isotropic settings are
# among the worst for the task.
#
# kNN accuracy tells a milder story (0.875 raw, 0.868 at $k = 1$, 0.657 at $p = 1$): ranking
# the neighbours of one point at a time is not fooled by an offset shared by all points, but it
# is still hurt when whitening amplifies noise or all-but-the-top deletes label directions.
#
# ### Two ways whitening hurts
#
# **It blows up the noise.** Whitening gives every direction unit variance, including the 45 that
# held only weak noise. Measure the share of the held-out variance that lies in the 4 planted label
# directions:

# %%
def label_share(X: np.ndarray) -> float:
    """Fraction of the centred variance of X that lies in the planted label directions."""
    Xc = X - X.mean(axis=0)
    return float(np.sum((Xc @ planted.signal) ** 2) / np.sum(Xc**2))


for name, X in [("centred", X_held), ("all-but-the-top k=1", all_but_the_top(X_held, 1, fit=X_fit)),
                ("ZCA whitened", zca_whiten(X_held, fit=X_fit))]:
    print(f"{name:20s}: share of variance in the 4 label directions = {label_share(X):.3f}")
print(f"{'any 4 of 50 directions of a white cloud':40s}: 4/50 = {4 / 50:.3f}")

# %% [markdown]
# Centred, the label directions hold 0.211 of the variance (the cone's direction holds most of the
# rest). Removing that one direction raises the share to 0.784. Whitening lowers it to 0.081,
# close to the 0.080 that any 4 of 50 directions hold in a white cloud: the label directions are
# now no larger than any noise direction, so cosines are mostly noise.
#
# **It looks better on the points it was fitted to.** Whitening fitted on a set of points makes
# that set perfectly isotropic by construction. The held-out half, transformed by the same map,
# is not:

# %%
W_fit, W_held = zca_whiten(X_fit, fit=X_fit), zca_whiten(X_held, fit=X_fit)
for name, X in [("fitted half", W_fit), ("held-out half", W_held)]:
    print(f"{name:14s}: IsoScore = {isoscore(X):.3f}   effective rank = {effective_rank(cov_eigs(X)):.1f} / 50")

# %% [markdown]
# On the points it was fitted to, whitening scores a perfect 1.000 and 50.0 of 50; on new points
# from the same distribution, 0.908 and 45.5. With 1,000 points in 50 dimensions the estimated
# covariance is slightly off, and the smallest estimated variances, the ones whitening scales up
# most, are off the most. Meters computed on the fitting data overstate what a remedy achieves.
#
# **Takeaway, and the literature.** Isotropy is not the goal; a task is. Here the best remedy
# removes exactly the one direction that carries no label (and the rule of thumb
# $D \approx d/100$ of Mu & Viswanath 2018 would say 0 or 1), while the most isotropic settings
# destroy the labels. The same tension appears in real models: in SimCSE's analysis (Gao, Yao &
# Chen 2021) whitening and flows improve uniformity but hurt alignment; Rajaee & Pilehvar (2021)
# find that fine-tuning improves performance without making the space more isotropic; and Rudman &
# Eickhoff (2024) find that *decreasing* isotropy during fine-tuning helps on most tasks they
# try. Widen the cone where it hides meaning, measure on held-out data, and stop there.

# %% [markdown]
# ## Explorers
#
# The first explorer applies the remedies to the cone: all-but-the-top removes the top $k$
# components, and partial whitening $\Sigma^{-p/2}$ runs from centring only ($p = 0$) to full ZCA
# ($p = 1$). The second shows where the same $k$ and $p$ sit on the planted cloud's trade-off curve
# (circles), with the held-out numbers beside the sliders.

# %%
def remedies_of_the_cone(k: int, power: float) -> tuple[dict, dict]:
    """The cone after each remedy, and 6,000 random-pair cosines of each (one generator, seed 6)."""
    clouds = {"original cone": X_cone, f"all-but-the-top (k={k})": all_but_the_top(X_cone, k),
              "ZCA whitened" if power == 1 else f"whitened (p={power:.2f})": zca_whiten(X_cone, power)}
    rng = np.random.default_rng(6)
    return clouds, {name: random_cosines(X, rng) for name, X in clouds.items()}


# Each move: remedies_of_the_cone (above) computes; RemedyView draws the bars and histograms.
explore(remedies_of_the_cone, RemedyView, title="Explorer: remedies on the cone",
        k=slider("k: top components removed", 2, 0, 10, 1),
        power=slider("p: whitening strength, Σ^(−p/2)", 1.0, 0.0, 1.0, 0.05))

# %%
# Nothing to recompute: the sweep above holds every k and p; TradeoffView circles the two chosen.
explore(lambda: sweep, TradeoffView, title="Explorer: what isotropy costs on the planted cloud",
        k=slider("k: top components removed", 2, 0, 10, 1),
        power=slider("p: whitening strength, Σ^(−p/2)", 1.0, 0.0, 1.0, 0.05))

# %% [markdown]
# **Try this.**
# 1. Set $k$ to 0 (centring only). How much of the cosine problem does centring alone fix, and how
#    much of the isotropy?
# 2. Slide $p$ from 0 to 1. Where does the mean cosine reach 0, and where does isotropy?
# 3. At $p = 1$ the isotropy bar shows a range, not a number. Why can no single value be right?
# 4. Move $k$ from 0 to 5 and watch the orange circle on the trade-off curve. Why does the held-out
#    pair AUC peak at $k = 1$ and fall to chance by $k = 5$, while IsoScore ends far higher than it
#    started?

# %% [markdown]
# ## Exercises
#
# Replace `None` with your answer and run the cell: the check says whether you got it, and if not,
# which idea to revisit. Worked solutions are in [SOLUTIONS.md](SOLUTIONS.md); try first.
#
# **06.2 · Compute.** Mu & Viswanath's rule of thumb removes $D \approx d/100$ components. About how many would it remove from 768-dimensional embeddings?

# %%
answer = None  # your number
check("06.2", answer)

# %% [markdown]
# **06.3 · Explain.** Why is the partition isotropy of the whitened cone reported as a range? (a) sampling noise of the random pairs (b) every unit vector is an eigenvector, so the estimator depends on an arbitrary basis (c) whitening is random

# %%
answer = None  # one of "a", "b", "c"
check("06.3", answer)

# %% [markdown]
# **Where this leads.** Back to the start: open [01 · Sphere vs cone](01_sphere_vs_cone.ipynb)
# and check which meters the remedies would fool, or read the
# [theory](../research/03-isotropy-anisotropy.md).
