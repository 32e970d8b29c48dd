"""Notebook 06's exercises: all-but-the-top, written by the learner; three questions on the remedies."""

from __future__ import annotations

import numpy as np

from ..geometry import make_cone
from ..geometry import principal_axes
from ..remedies import all_but_the_top
from .clouds import gaussian_cloud
from .common import Exercise, Implementation
from .worked import Worked

#: The notebook's title, as the worked solutions head its part.
TITLE = "Whitening"


def projected_out(Y: np.ndarray, Xc: np.ndarray, V: np.ndarray) -> np.ndarray:
    """``Y`` minus the projection of ``Xc`` on the columns of ``V``."""
    return Y - (Xc @ V) @ V.T


def bottom_directions(X: np.ndarray, k: int) -> np.ndarray:
    Xc = X - X.mean(axis=0)
    return projected_out(Xc, Xc, np.linalg.eigh(np.cov(Xc.T))[1][:, :k])


def negative_slice(X: np.ndarray, k: int) -> np.ndarray:
    Xc = X - X.mean(axis=0)
    return projected_out(Xc, Xc, np.linalg.eigh(np.cov(Xc.T))[1][:, -k:])


def kept_the_top(X: np.ndarray, k: int) -> np.ndarray:
    V = principal_axes(X).axes[:, :k]
    return (X - X.mean(axis=0)) @ V @ V.T


def not_centred(X: np.ndarray, k: int) -> np.ndarray:
    return projected_out(X, X, principal_axes(X).axes[:, :k])


def projected_uncentred(X: np.ndarray, k: int) -> np.ndarray:
    return projected_out(X - X.mean(axis=0), X, principal_axes(X).axes[:, :k])


def _covariances(X: np.ndarray) -> list[np.ndarray]:
    """The matrices a learner may hand to an eigensolver for the covariance's eigenvectors (their signs
    can differ with the matrix, so a mistake that depends on signs is tried with each)."""
    Xc = X - X.mean(axis=0)
    return [np.cov(Xc.T), np.cov(X.T), Xc.T @ Xc, Xc.T @ Xc / len(X), Xc.T @ Xc / (len(X) - 1)]


def rows_as_eigenvectors(X: np.ndarray, k: int) -> list[np.ndarray]:
    Xc, d = X - X.mean(axis=0), X.shape[1]
    return [projected_out(Xc, Xc, np.linalg.eigh(S)[1].T[:, d - k:]) for S in _covariances(X)]


def right_singular_vectors_as_columns(X: np.ndarray, k: int) -> list[np.ndarray]:
    Xc = X - X.mean(axis=0)
    return [projected_out(Xc, Xc, np.linalg.svd(Xc, full_matrices=full)[2][:, :k]) for full in (False, True)]


def hidden_cases(rng: np.random.Generator) -> list[tuple[str, dict]]:
    """The cases of 06.1 the class never sees, drawn from ``rng`` (seeded by the course's secret seed)."""
    s = int(rng.integers(10**6))
    return [
        ("an uneven Gaussian shifted by +1.5 (120 x 7), k = 2", dict(X=gaussian_cloud(120, 7, s, shift=1.5), k=2)),
        ("a cone (200 x 5), k = 4", dict(X=make_cone(200, 5, s + 1), k=4)),
        ("a cloud in 10-D, k = 1", dict(X=gaussian_cloud(80, 10, s + 2, shift=-2.0), k=1)),
    ]


EXERCISES: dict[str, Exercise | Implementation] = {
    "06.1": Implementation(
        name="my_all_but_the_top",
        toolkit=("shared.remedies.transforms.all_but_the_top", "shared.geometry.pca.principal_axes"),
        libraries={"scipy.linalg.eigh": ""},  # an eigensolver is allowed, as numpy's is
        reference=all_but_the_top,
        cases=lambda: [
            ("an uneven Gaussian shifted by +3, k = 1", dict(X=gaussian_cloud(300, 6, 1, shift=3.0), k=1)),
            ("the same cloud, k = 3", dict(X=gaussian_cloud(300, 6, 1, shift=3.0), k=3)),
            ("a narrow cone, k = 2", dict(X=make_cone(300, 8, 2), k=2)),
            ("k = 0 (centring only)", dict(X=gaussian_cloud(100, 4, 3, shift=2.0), k=0)),
        ],
        mistakes={
            "negative_slice_at_0": ("at k = 0, V[:, -k:] is V[:, 0:], every column (-0 is 0), so everything was "
                                    "removed; take the top k as V[:, d - k:], or sort the eigenvectors in descending "
                                    "order and take V[:, :k]", negative_slice),
            "bottom_directions": ("the bottom k directions were removed: np.linalg.eigh sorts eigenvalues in "
                                  "ascending order, so the top ones are the last columns", bottom_directions),
            "kept_the_top": ("the top k directions were kept instead of removed", kept_the_top),
            "not_centred": ("the mean was not removed: centre first, then project out the top directions",
                            not_centred),
            "projected_uncentred": ("the uncentred vectors were projected, as in the last step of the paper's "
                                    "Algorithm 1; the course projects the centred ones, so the result has zero mean",
                                    projected_uncentred),
            "eigenvectors_as_rows": ("the eigenvectors were taken as rows: np.linalg.eigh returns them as the columns "
                                     "of V, so the top k are V[:, d - k:], not V.T[:, d - k:]", rows_as_eigenvectors),
            "svd_vt_columns": ("the principal directions were taken as the columns of np.linalg.svd's Vt; they are "
                               "its rows, so the top k are Vt[:k].T, not Vt[:, :k]", right_singular_vectors_as_columns),
        },
        right="Centre, find the top k principal directions of the centred cloud, subtract each point's "
        "projection on them: the mean and the dominant directions are gone, the rest is untouched.",
        hints=(
            "Remove the shared mean, then find the few directions in which the centred cloud varies most and take "
            "away each point's component along them; everything else stays.",
            "np.linalg.eigh gives the eigenvalues in ascending order, with the eigenvectors as the columns of its "
            "second result. Decide which columns are the top k, and check your choice at k = 0, where it must "
            "select no column at all.",
            "Fill the blanks:\n"
            "    Xc = X - ____\n"
            "    V = np.linalg.eigh(np.cov(Xc.T))[1]\n"
            "    U = ____                          # shape (d, k), also at k = 0\n"
            "    return Xc - ____                  # each point's part along the columns of U, removed",
        ),
        hidden_cases=hidden_cases,
        worked=Worked(
            question=("Write all-but-the-top: centre the cloud, find the top $k$ principal directions of the "
                      "centred cloud, and subtract each point's projection on them."),
            code="""\
import numpy as np


def my_all_but_the_top(X, k):
    Xc = X - X.mean(axis=0)
    w, V = np.linalg.eigh(Xc.T @ Xc / len(X))  # eigenvalues in ascending order
    U = V[:, ::-1][:, :k]  # the top k directions are the last k columns
    return Xc - (Xc @ U) @ U.T
""",
            why=("`np.linalg.eigh` returns eigenvalues in *ascending* order, with the eigenvectors as "
                 "*columns*: the top $k$ directions are the last $k$ columns. Taking the first $k$ removes "
                 "the weakest directions instead, and the check names that mistake. Mu & Viswanath's "
                 "Algorithm 1 projects the uncentred vectors in its last step; the course (and the check) "
                 "projects the centred ones, so the result has zero mean."),
        ),
    ),
    "06.4": Exercise(
        reference=lambda: 7.68,
        right="768 / 100 = 7.68, so 7 or 8 components; the rule was tuned on 300-d static vectors, so treat "
        "it as a starting point to check against a task.",
        hints=(
            "The rule of thumb ties the number of components to the width of the embeddings.",
            "The rule is in the question; all it needs is the width of these embeddings. Round the result to a "
            "whole number of components only after you have it.",
        ),
        abs_tol=0.7,
        mistakes={
            "d_over_10": ("that is d / 10; the rule removes about d / 100 components", 76.8),
            "d_over_1000": ("that is d / 1000; the rule removes about d / 100 components", 0.768),
        },
        kind="Compute",
        worked=Worked(
            question=(r"Mu & Viswanath's rule of thumb removes $D \approx d/100$ components. About how many "
                      "would it remove from 768-dimensional embeddings?"),
            code="""\
answer = 768 / 100  # 7.68: remove 7 or 8 components
""",
            why=("$768/100 = 7.68$, so 7 or 8 (the check accepts either, and 7.68). The rule was tuned on "
                 "300-dimensional static word vectors (2 for GloVe, 3 for word2vec), so for a contextual "
                 "model it is a starting point to check against a task, as the planted cloud shows."),
        ),
    ),
    "06.2": Exercise(
        reference=lambda: "a",
        right="After whitening X^T X = nI: the eigenbasis is any orthonormal basis.",
        hints=(
            "The estimator probes the cloud along the eigenvectors of one matrix. What happens to those "
            "eigenvectors when the matrix has equal eigenvalues?",
            "Which eigenvalues does a whitened cloud have, and what does that say about its eigenvectors?",
        ),
        choices=("a", "b", "c"),
        kind="Explain",
        worked=Worked(
            question=("Why is the partition isotropy of the whitened cone a range, not a number? (a) every "
                      "unit vector is an eigenvector, so the estimator's basis is arbitrary (b) sampling "
                      "noise of the random pairs, which changes from one draw to the next (c) whitening is "
                      "random, because its rotation is drawn afresh on every call"),
            code="""\
answer = "a"
""",
            why=(r"Whitening makes $X^\top X = nI$: all eigenvalues coincide, every unit vector is an "
                 "eigenvector, and the estimator's value depends on which basis is used. Only its "
                 "distribution over bases (or meters that use no eigenvectors, such as IsoScore) is a "
                 "property of the cloud. That the distribution sits a few percent below 1 is sampling noise "
                 "of the estimator at 2,000 points, not a trace of the cone: a whitened Gaussian of the same "
                 "size scores the same (medians 0.944 to 0.950 over five seeds)."),
        ),
    ),
    "06.3": Exercise(
        reference=lambda: "c",
        right="Where the labels live decides: whitening equalises every direction, which lifts weak label "
        "directions and shrinks strong ones; that is why it helps cloud B and hurts cloud A.",
        hints=(
            "Ask where the labels live in cloud B, in the strong directions of the spread or in the weak ones, "
            "and what each remedy does to those directions.",
            "Compare the label directions' share of the variance in cloud B before and after each remedy.",
        ),
        choices=("a", "b", "c"),
        kind="Explain",
        worked=Worked(
            question=("In cloud B, full whitening gives the best held-out pair AUC while all-but-the-top "
                      "barely helps. Why? (a) whitening removes the mean, while all-but-the-top keeps the "
                      "shared offset in place (b) whitening makes a cloud isotropic, and an isotropic cloud "
                      "always separates labels better (c) whitening gives every direction the same variance, "
                      "so the weak label directions grow to the noise's size"),
            code="""\
answer = "c"
""",
            why=("Cloud B's labels live in 8 directions of small variance, below the noise of 41 other "
                 "directions. Removing the strong nuisance direction (all-but-the-top) leaves them buried: "
                 "their share of the variance is still 0.018. Whitening gives every direction unit variance, "
                 "so the label directions grow to the size of the noise (a share of 0.164), and within them "
                 "most of the variance is the separation between classes. Both remedies centre (a is wrong), "
                 "and isotropy alone is no guarantee: in cloud A the most isotropic settings are among the "
                 "worst (b is wrong). Weak is meant against the noise that remains once the nuisance is "
                 "removed: with noise as weak as the labels (the notebook's third cloud), all-but-the-top "
                 'wins in 5 of 5 seeds. And "the labels" means all the label directions together: in the '
                 "notebook's mixed cloud (one strong label direction, eight weak ones) whitening wins where "
                 "the ratio pooled over all nine is 0.256 to 0.370 and all-but-the-top where it is 0.758 to "
                 "0.936."),
        ),
    ),
}

#: What a learner should see at each of the notebook's "Try this." prompts, and why: the notebook's part of
#: the worked solutions' second half (``tests/test_try_this.py`` runs its blocks).
TRY_THIS = r'''The first explorer calls the notebook's `remedies_of_the_cone(k, power)` on the cone of notebook
01; the second reads the sweep of `sweep_remedies` on the two labelled clouds (remedies fitted on
the first 1,000 points, scored on the other 1,000). A sweep over a few settings gives the same
figures as the notebook's sweep over all of them: every setting sees the same pairs.

```pycon
>>> import numpy as np
>>> from shared import (all_but_the_top, cov_eigs, isoscore, make_planted, random_cosines, sphere_and_cone, sweep_remedies,
...                     zca_whiten)
>>> from shared.meters import isotropy_or_range
>>> _, X_cone = sphere_and_cone()
>>> def first_explorer(k, power, show=None):
...     clouds = {"original cone": X_cone, f"all-but-the-top (k={k})": all_but_the_top(X_cone, k),
...               "ZCA whitened" if power == 1 else f"whitened (p={power:.2f})": zca_whiten(X_cone, power)}
...     rng = np.random.default_rng(6)
...     for name, X in clouds.items():
...         cos = random_cosines(X, rng)  # drawn for every cloud, in order, as the notebook does
...         if show is None or name.startswith(show):
...             print(f"{name}: {isotropy_or_range(X).reading()}, mean random cosine ="
...                   f" {cos.mean():+.3f}, IsoScore = {isoscore(X):.3f}")
>>> planted = {"A": make_planted(2000, 50, rng=7),
...            "B": make_planted(2000, 50, rng=8, signal_dims=8, separation=0.3, within=0.1, noise=1.0)}
>>> def second_explorer(cloud, ks=(), powers=()):
...     P = planted[cloud]
...     sweep = sweep_remedies(P.X[:1000], P.labels[:1000], P.X[1000:], P.labels[1000:], ks=ks, powers=powers)
...     for curve in (sweep.all_but_the_top, sweep.whitening):
...         for i in range(len(curve.setting)):
...             print(f"{curve.remedy} {curve.describe(i)}: IsoScore = {curve.isoscore[i]:.3f},"
...                   f" held-out pair AUC = {curve.pair_auc[i]:.3f}")
```

### Try this 06.1

*Set $k$ to 0 (centring only). How much of the cosine problem does centring alone fix, and how
much of the isotropy?*

```pycon
>>> first_explorer(0, 1.0)
original cone: partition I = 0.000, mean random cosine = +0.846, IsoScore = 0.026
all-but-the-top (k=0): partition I = 0.001, mean random cosine = -0.010, IsoScore = 0.026
ZCA whitened: partition I (median of 20 bases) = 0.954, mean random cosine = -0.001, IsoScore = 1.000
```

All of the cosine problem and none of the isotropy. Centring takes the mean random cosine from
$+0.846$ to $-0.010$, but IsoScore stays at 0.026 and partition isotropy at 0.001: the cone's
variance still sits in one direction, and centring does not touch variance. A cosine near 0 says
the offset is gone, nothing more.

### Try this 06.2

*Slide $p$ from 0 to 1. Where does the mean cosine reach 0, and where does isotropy?*

```pycon
>>> for power in (0.0, 0.5, 0.75, 0.9, 0.95):
...     first_explorer(2, power, show="whitened")
whitened (p=0.00): partition I = 0.001, mean random cosine = -0.002, IsoScore = 0.026
whitened (p=0.50): partition I = 0.088, mean random cosine = -0.001, IsoScore = 0.465
whitened (p=0.75): partition I = 0.449, mean random cosine = -0.001, IsoScore = 0.922
whitened (p=0.90): partition I = 0.790, mean random cosine = -0.001, IsoScore = 0.993
whitened (p=0.95): partition I = 0.903, mean random cosine = -0.001, IsoScore = 0.999
>>> eigs = cov_eigs(X_cone)
>>> round(float(eigs[0] / np.median(eigs)))
96
>>> [round(97 ** (1 - p), 1) for p in (0.5, 0.85)]
[9.8, 2.0]
```

The mean cosine is at 0 from the start ($-0.002$ at $p = 0$): whitening at any strength centres
first, and centring is what removes the offset. Isotropy needs nearly all the way: IsoScore is
0.026 at $p = 0$, 0.465 at $p = 0.5$, 0.922 at 0.75 and 0.993 at 0.9; partition isotropy, which
reads the most and least favoured directions, lags further (0.088, 0.449, 0.790, and 0.903 at
0.95). The cone's top eigenvalue is 97 times the median one, and $\Sigma^{-p/2}$ leaves a ratio of
$97^{1-p}$: still 9.8 at $p = 0.5$, and 2.0 at $p = 0.85$.

### Try this 06.3

*Slide $p$ from 0.8 to 1. IsoScore is all but perfect before $p$ reaches 1: is partition
isotropy? Why does its bar become a range only at $p = 1$?*

```pycon
>>> for power in (0.8, 0.9, 0.95):
...     first_explorer(2, power, show="whitened")
whitened (p=0.80): partition I = 0.559, mean random cosine = -0.001, IsoScore = 0.959
whitened (p=0.90): partition I = 0.790, mean random cosine = -0.001, IsoScore = 0.993
whitened (p=0.95): partition I = 0.903, mean random cosine = -0.001, IsoScore = 0.999
>>> first_explorer(2, 1.0, show="ZCA")
ZCA whitened: partition I (median of 20 bases) = 0.954, mean random cosine = -0.001, IsoScore = 1.000
>>> isotropy = isotropy_or_range(zca_whiten(X_cone, 1.0))
>>> round(isotropy.low, 3), round(isotropy.value, 3), round(isotropy.high, 3)
(0.933, 0.954, 0.963)
```

No. IsoScore reads only how evenly the variance is spread, and is 0.999 at $p = 0.95$; partition
isotropy climbs more slowly (0.559, 0.790, 0.903) because the sums $Z(c)$ along the least and most
stretched directions still differ, and at $p = 1$ it stops short of 1, around 0.954, as a whitened
Gaussian of the same size does (the notebook prints both): that shortfall is the estimator's sampling
noise. Below $p = 1$ the covariance's eigenvalues still differ, so the directions the estimator
probes are defined and one number is right. At $p = 1$ every eigenvalue is equal, every unit vector
is an eigenvector, and which 50 directions are probed is arbitrary: over 20 random bases the value
runs from 0.933 to 0.963, so the bar shows that range with its median. (Exercise 06.2 asks for the
reason of the range; this prompt adds the path to it.)

### Try this 06.4

*With cloud A, move $k$ from 0 to 5 and watch the orange circle on the trade-off curve. Why does
the held-out pair AUC peak at $k = 1$ and fall to chance by $k = 5$, while IsoScore ends far
higher than it started?*

```pycon
>>> second_explorer("A", ks=range(6))
all-but-the-top k=0: IsoScore = 0.017, held-out pair AUC = 0.633
all-but-the-top k=1: IsoScore = 0.079, held-out pair AUC = 0.935
all-but-the-top k=2: IsoScore = 0.074, held-out pair AUC = 0.822
all-but-the-top k=3: IsoScore = 0.159, held-out pair AUC = 0.656
all-but-the-top k=4: IsoScore = 0.288, held-out pair AUC = 0.520
all-but-the-top k=5: IsoScore = 0.860, held-out pair AUC = 0.506
>>> P = planted["A"]
>>> fit = P.X[:1000] - P.X[:1000].mean(axis=0)
>>> top = np.linalg.svd(fit, full_matrices=False)[2][:5]  # the top five principal directions, as rows
>>> np.round(np.abs(top @ P.cone), 2).tolist(), np.round(np.linalg.norm(top @ P.signal, axis=1), 2).tolist()
([1.0, 0.02, 0.01, 0.01, 0.0], [0.03, 1.0, 1.0, 1.0, 1.0])
```

Cloud A's labels live in its strongest directions. The first principal direction is the cone's
(its cosine with the offset direction is 1.0), so $k = 1$ removes the nuisance, and the AUC jumps
from 0.633 to 0.935. The next four are the label directions (each lies in the planted label
subspace, 1.0), so $k = 2$ to 5 remove the labels themselves: 0.822, 0.656, 0.520, and 0.506,
chance, at $k = 5$. What is left is weak noise spread evenly, which IsoScore rewards (0.017 at
$k = 0$, 0.860 at $k = 5$). The most isotropic of these settings is the useless one: isotropy is
not the goal, the task is.

### Try this 06.5

*Switch to cloud B and slide $p$ from 0 to 1. Why does whitening now climb where it fell for cloud
A, and why does $k$ barely matter?*

```pycon
>>> second_explorer("B", ks=(0, 1, 2, 10), powers=(0.0, 0.5, 1.0))
all-but-the-top k=0: IsoScore = 0.044, held-out pair AUC = 0.513
all-but-the-top k=1: IsoScore = 0.806, held-out pair AUC = 0.543
all-but-the-top k=2: IsoScore = 0.787, held-out pair AUC = 0.544
all-but-the-top k=10: IsoScore = 0.636, held-out pair AUC = 0.547
whitening p=0.00: IsoScore = 0.044, held-out pair AUC = 0.513
whitening p=0.50: IsoScore = 0.525, held-out pair AUC = 0.562
whitening p=1.00: IsoScore = 0.906, held-out pair AUC = 0.676
>>> second_explorer("A", powers=(0.6, 1.0))
whitening p=0.60: IsoScore = 0.395, held-out pair AUC = 0.742
whitening p=1.00: IsoScore = 0.908, held-out pair AUC = 0.615
```

Cloud B's labels live in 8 weak directions, below the noise of 41 others. Whitening gives every
direction unit variance, so the label directions grow to the size of the noise: the AUC climbs
steadily with $p$, from 0.513 to 0.562 at $p = 0.5$ and 0.676 at $p = 1$. In cloud A the same
operation lifts weak noise to the size of the labels, and the AUC peaks at $p = 0.6$ (0.742) and
falls to 0.615. All-but-the-top removes strong directions, and in B the strong direction is only
the nuisance: $k = 1$ removes it (0.543), and further $k$ take away noise directions that carry
no label (0.544 at $k = 2$, 0.547 at $k = 10$).
'''
