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
# # 02 · Illusory cosine similarity: why unrelated vectors look alike
#
# **Question.** In a narrow cone, what cosine similarity do two *unrelated* vectors get, and what
# does a high score still mean there?
#
# **Time:** about 35 minutes, an estimate (counted from the text, the exercises and the running time, not timed on learners; see TEACHING.md). **After this notebook you can** measure the random-pair cosine
# baseline of a cloud, explain why a cone inflates it, and find a rogue coordinate that dominates
# every cosine.
#
# **Theory:** [§3 Consequences](../research/03-isotropy-anisotropy.md#3-consequences-illusory-similarity-distorted-distance-rogue-dimensions).

# %%
import numpy as np

from shared import cosine_terms, make_isotropic, mean_cosine, random_cosines, sphere_and_cone, standardize
from shared.exercises import check, solution
from shared.explorers import explore, slider
from shared.predictions import predict
from shared.figures import CosineView

# %% [markdown]
# Before reading on, a prediction to write down. Replace `None` with your answer and run the cell:
# the check says whether you got it, and if not, which idea to revisit.
#
# **02.1 · Predict.** Two independent Gaussian vectors live in 200 dimensions. What is the standard deviation of their cosine similarity, roughly?

# %%
answer = None  # your number
check("02.1", answer)
# solution("02.1")  # the worked solution, folded: uncomment after a real try

# %% [markdown]
# The cosine similarity of two vectors is the cosine of the angle between them,
# $\cos(x, y) = x^\top y / (\|x\|\,\|y\|)$. In high dimension two independent Gaussian vectors
# are almost orthogonal: their cosine is about $\mathcal N(0, 1/d)$, so with $d = 50$ it has a
# standard deviation near $1/\sqrt{50}$. Ethayarajh (2019) uses the mean cosine of
# random pairs as the **anisotropy baseline** of a representation: the score any two points get
# for free.
#
# **Predict first.** The cone's points differ only by their small residuals. Guess the mean cosine
# of two random points of the cone: about 0, about a half, or close to 1?

# %%
predict("02.p1")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
X_iso, X_cone = sphere_and_cone()  # the two clouds of notebook 01 (seed 0)
rng = np.random.default_rng(2)
cos_iso = random_cosines(X_iso, rng)  # 6,000 random pairs each
cos_cone = random_cosines(X_cone, rng)
print(f"isotropic  : mean random cosine = {cos_iso.mean():+.3f}   std = {cos_iso.std():.3f}")
print(f"narrow cone: mean random cosine = {cos_cone.mean():+.3f}   std = {cos_cone.std():.3f}")
print(f"theory for two independent directions in d = 50: std = 1/sqrt(50) = {1 / np.sqrt(50):.3f}")
print(f"share of the cone's pairs with a cosine below 0.5: {np.mean(cos_cone < 0.5):.3f}")
n = len(X_cone)
print(f"\nthe cone's exact mean over all {n * (n - 1) // 2:,} pairs: {mean_cosine(X_cone):+.3f}")
print(f"standard error of a mean of {len(cos_cone):,} random pairs: std / sqrt({len(cos_cone):,})"
      f" = {cos_cone.std() / np.sqrt(len(cos_cone)):.4f}")
print("the same 6,000-pair estimate with seeds 0 to 4: "
      + " ".join(f"{random_cosines(X_cone, np.random.default_rng(seed)).mean():+.3f}" for seed in range(5)))
print(f"bias from pairs that repeat a row (probability 1/{n:,}, cosine 1): (1 - mean) / n ="
      f" {(1 - mean_cosine(X_cone)) / n:.5f}")

# %% jupyter={"outputs_hidden": true}
CosineView(cos_iso, cos_cone)

# %% [markdown]
# **Compare with your guess**: how far is the cone's mean cosine from the isotropic cloud's? Before
# the explanation, one question:
#
# **02.2 · Explain.** The mean random cosine of a cloud is 0.8. What can you conclude? (a) its points are semantically similar, because their angles are small (b) its variance is concentrated in one direction, like a thin line (c) it has a large shared offset: its points lean one way

# %%
answer = None  # one of "a", "b", "c"
check("02.2", answer)
# solution("02.2")  # the worked solution, folded: uncomment after a real try

# %% [markdown] tags=["reveal-end"]
# **What you see.** Random pairs of the isotropic cloud have a mean cosine of $-0.003$ with a
# standard deviation of 0.143, close to the 0.141 the theory predicts. In the cone the whole
# histogram is shifted right: mean $+0.845$, standard deviation 0.112, and only a small share of
# pairs (printed above) score below one half.
#
# **One mean, three figures.** Notebook 01's table gives this cone a mean cosine of $+0.847$: it
# averages over all pairs, exactly. Here 6,000 random pairs estimate that mean, and an estimate
# from a sample is off by about its standard error, 0.112 / $\sqrt{6000}$ = 0.0014: this draw gives
# $+0.845$, five other draws give $+0.846$ to $+0.848$. Notebook 06 draws its own 6,000 pairs of
# the same cone, and so prints its own third decimal. (The sampler draws both rows of a pair
# independently, so a pair can repeat a row and score 1; that shifts the mean by only 0.00008.)
# The differences are sampling noise, not different cones; where the third decimal matters, use
# the exact `mean_cosine`.
#
# **Why.** Compare the two parts of a point of the cone:

# %%
print(f"shared part a_i u: a_i runs from {4.0 * 0.15:.1f} to {4.0:.1f} (notebook 01)")
print(f"residual: norm about sigma sqrt(d) = 0.1 sqrt(50) = {0.1 * np.sqrt(50):.2f}")

# %% [markdown]
# Two points share the direction $u$, which carries most of their length, and differ only by
# their residuals, which are independent noise. So their angle is small and their cosine high,
# whether or not they have anything in common.
#
# **Takeaway.** In an anisotropic space a cosine score has to be read against the space's own
# baseline. In this cone, $+0.845$ is what two *random* points score on average; a score of that
# size says nothing about meaning.
# Notebook 06 removes the shared direction and brings the baseline back to 0.
#
# **Your turn · 02.3 · Implement.** The toolkit samples random pairs; the exact mean over *all*
# pairs of distinct points is just as easy to write. Normalise every row to unit length, then
# average $\cos(x_i, x_j) = u_i^\top u_j$ over the $n(n-1)$ ordered pairs with $i \ne j$. The check
# compares your function with the toolkit's `mean_cosine` on four clouds (an isotropic Gaussian, a
# Gaussian shifted by +2, two points, and points of very different lengths).

# %%
def my_mean_cosine(X: np.ndarray) -> float:
    """Mean cosine similarity over all pairs of distinct rows of X."""
    raise NotImplementedError  # replace this line with your code


check("02.3", my_mean_cosine)
# solution("02.3")  # the worked solution, folded: uncomment after a real try

# %% [markdown]
# ## Rogue dimensions: one coordinate that dominates every cosine
#
# Timkey & van Schijndel (2021) found that in Transformer language models one to three
# coordinates ("rogue dimensions") have a huge mean and variance and carry most of every cosine.
# The cosine splits into one term per coordinate,
# $\cos(x, y) = \sum_k x_k y_k / (\|x\|\,\|y\|)$, so we can ask how much of each pair's cosine
# comes from one coordinate: the share $|t_k| / \sum_j |t_j|$ of term $k$, averaged over pairs.
#
# Below, coordinate 7 of an isotropic Gaussian is replaced by one with mean 20 and standard
# deviation 20. We compare three versions: raw, **centred** (the mean of every coordinate
# subtracted) and **standardised** (every coordinate also divided by its standard deviation).
#
# **Predict first.** Centring removes the rogue coordinate's mean. Will it also remove its grip
# on the cosine?

# %%
predict("02.p2")  # pick or type your guess and commit it; then open the folded output below

# %% jupyter={"outputs_hidden": true}
rng = np.random.default_rng(20)
X_rogue = make_isotropic(2000, 50, rng)
X_rogue[:, 7] = 20.0 + 20.0 * rng.standard_normal(2000)
print(f"{'version':13s} {'mean cos':>9s} {'mean |cos|':>11s} {'share of coordinate 7':>22s}")
for name, X in [("raw", X_rogue), ("centred", X_rogue - X_rogue.mean(axis=0)),
                ("standardised", standardize(X_rogue)), ("isotropic", X_iso)]:
    terms = cosine_terms(X, 21)  # (pairs, coordinates); each row sums to that pair's cosine
    cos = terms.sum(axis=1)
    share = np.abs(terms[:, 7]) / np.abs(terms).sum(axis=1)
    print(f"{name:13s} {cos.mean():+9.3f} {np.abs(cos).mean():11.3f} {share.mean():22.3f}")

# %% [markdown] tags=["reveal-end"]
# **Compare with your guess.** Open the folded output above and set it beside your prediction
# before you read on.
#
# **What you see.** Raw, coordinate 7 supplies 0.835 of every pair's cosine on average, and the mean
# cosine is $+0.408$. Centring brings the mean cosine to $+0.002$, but the cosines are still large
# in size (mean $|\cos|$ 0.589 against 0.112 for the isotropic cloud) and 0.716 of each still comes
# from coordinate 7: whether a pair scores high or low, positive or negative, is decided mostly by
# which side of coordinate 7's mean its two points fall.
# Standardising leaves coordinate 7 a share of 0.020, which is $1/50$, like any other coordinate.
#
# **Why.** Centring removes a coordinate's *mean*; its *variance* still dwarfs the others', and a
# cosine weighs coordinates by their size. Standardising equalises the variances.
#
# **Takeaway.** A mean cosine near 0 does not mean the cosine is healthy: look at which
# coordinates produce it.
#
# ## Explorer
#
# Reshape the cone and watch the two cosine histograms.

# %%
def random_pair_cosines(strength: float, residual: float) -> tuple[np.ndarray, np.ndarray]:
    """The two clouds of notebook 01 at this strength and residual, and 6,000 random-pair cosines of each."""
    X_iso, X_cone = sphere_and_cone(strength, residual)
    rng = np.random.default_rng(2)
    return random_cosines(X_iso, rng), random_cosines(X_cone, rng)


# Each move: random_pair_cosines (above) computes; CosineView draws the two histograms.
explore(random_pair_cosines, CosineView, title="Explorer: illusory cosine similarity",
        strength=slider("s: cone strength (shared offset)", 4.0, 0.0, 10.0, 0.25),
        residual=slider("σ: residual noise per direction", 0.10, 0.01, 1.0, 0.01))

# %% [markdown]
# **Try this.**
# 1. Lower the cone strength step by step. At roughly which strength does the cone's mean cosine
#    fall below one half?
# 2. With the strength at 4, raise the residual to 1. Why does the cone's histogram move left and
#    widen, although the offset is unchanged?
# 3. Set the strength to 0. Why do both histograms now coincide?

# %% [markdown]
# ## Exercises
#
# This notebook asks its questions in the text, each before the prose that explains it (one before
# the first paragraph, one beside the histogram, the function after the explanation). If you read
# past one, go back and answer it there. After a real try, `solution("02.3")` (commented out in
# each exercise cell) shows the worked solution, folded; all of them are in
# [SOLUTIONS.md](SOLUTIONS.md).

# %% [markdown]
# **Where this leads.** Where does the cone come from? Notebook
# [03 · Self-attention contraction](03_attention_contraction.ipynb) grows one from a round cloud
# using nothing but attention.
