"""Notebook 02's exercises: the exact mean cosine, written by the learner; two questions on cosines."""

from __future__ import annotations

import math

import numpy as np

from ..geometry import make_isotropic
from ..meters import mean_cosine
from .clouds import unit
from .common import Exercise, Implementation
from .worked import Worked

#: The notebook's title, as the worked solutions head its part.
TITLE = "Illusory cosine similarity"


def off_diagonal(C: np.ndarray) -> np.ndarray:
    return C[~np.eye(len(C), dtype=bool)]


def with_the_diagonal(X: np.ndarray) -> float:
    return float(np.mean(unit(X) @ unit(X).T))


def over_n_squared(X: np.ndarray) -> float:
    return float(off_diagonal(unit(X) @ unit(X).T).sum() / len(X) ** 2)


def dot_products(X: np.ndarray) -> float:
    return float(off_diagonal(X @ X.T).mean())


def columns_normalised(X: np.ndarray) -> float:
    V = X / np.linalg.norm(X, axis=0)
    return float(off_diagonal(V @ V.T).mean())


def counted_twice(X: np.ndarray) -> float:
    return 2 * mean_cosine(X)


def upper_triangle_with_diagonal(X: np.ndarray) -> float:
    C = unit(X) @ unit(X).T
    return float(C[np.triu_indices(len(X), k=0)].mean())


def centred_first(X: np.ndarray) -> float:
    return mean_cosine(X - X.mean(axis=0))


def pairs_miscounted(X: np.ndarray) -> float:
    n = len(X)
    C = unit(X) @ unit(X).T
    return float((C.sum() - np.trace(C)) / ((n - 1) * (n - 2))) if n > 2 else float("nan")


def hidden_cases(rng: np.random.Generator) -> list[tuple[str, dict]]:
    """The cases of 02.3 the class never sees, drawn from ``rng`` (seeded by the course's secret seed)."""
    s = int(rng.integers(10**6))
    return [
        ("a shifted Gaussian (91 x 13)", dict(X=make_isotropic(91, 13, s) + 0.7)),
        ("three points in 4 dimensions", dict(X=rng.standard_normal((3, 4)) + 0.5)),
        ("points of lengths from 0.01 to 1000 (60 x 3)",
         dict(X=(rng.standard_normal((60, 3)) + 1.0) * np.geomspace(0.01, 1000.0, 60)[:, None])),
    ]


EXERCISES: dict[str, Exercise | Implementation] = {
    "02.3": Implementation(
        name="my_mean_cosine",
        toolkit=("shared.meters.cosines.mean_cosine",),
        libraries={name: "pdist and cdist compute every pair's cosine distance for you; this exercise is to normalise the rows and count the pairs of distinct points yourself." for name in ("scipy.spatial.distance.pdist", "scipy.spatial.distance.cdist")},
        reference=mean_cosine,
        cases=lambda: [
            ("an isotropic Gaussian (300 x 8)", dict(X=make_isotropic(300, 8, 1))),
            ("a Gaussian shifted by +2 (300 x 8)", dict(X=make_isotropic(300, 8, 2) + 2.0)),
            ("two points", dict(X=np.array([[1.0, 0.0], [1.0, 1.0]]))),
            ("points of very different lengths (200 x 5)",
             dict(X=(make_isotropic(200, 5, 3) + 1.0) * np.geomspace(0.1, 100.0, 200)[:, None])),
        ],
        mistakes={
            "diagonal_kept": ("each point was paired with itself too (n^2 pairs); pairs of distinct points exclude "
                              "the diagonal", with_the_diagonal),
            "over_n_squared": ("the pairs i != j were summed but divided by n^2; there are n(n-1) of them",
                               over_n_squared),
            "not_normalised": ("the rows were not normalised: that is the mean dot product, not the mean cosine",
                               dot_products),
            "columns_normalised": ("the columns were normalised instead of the rows (axis=0 instead of axis=1)",
                                   columns_normalised),
            "counted_twice": ("each pair was counted twice but divided by the number of unordered pairs",
                              counted_twice),
            "triu_with_diagonal": ("np.triu(..., k=0) (or np.triu_indices(n, k=0)) keeps the diagonal, each point "
                                   "paired with itself; the pairs of distinct points above it start at k=1",
                                   upper_triangle_with_diagonal),
            "centred_first": ("the cloud was centred first: that removes the shared offset, which is exactly what "
                              "the mean cosine must see; take the vectors as they are", centred_first),
            "pairs_miscounted": ("the pairs were counted as (n - 1)(n - 2); n points make n(n - 1) ordered pairs "
                                 "i != j", pairs_miscounted),
        },
        right="Normalise the rows, then average u_i . u_j over the n(n-1) ordered pairs i != j; the sum of "
        "the unit vectors gives it in O(n d).",
        hints=(
            "A cosine is the dot product of two directions: first turn every point into a unit vector, then "
            "average the cosine over every pair of two different points.",
            "Work out two counts for three points by hand: how many ordered pairs of distinct points there are, "
            "and what the matrix of all dot products of unit vectors holds on its diagonal.",
            "Fill the blanks:\n"
            "    U = X / ____                      # one length per point, shaped to divide its own row\n"
            "    C = U @ U.T                       # every cosine, each point with itself included\n"
            "    return ____                       # the mean over the pairs of distinct points only",
        ),
        hidden_cases=hidden_cases,
        worked=Worked(
            question=(r"Normalise every row to unit length, then average $\cos(x_i, x_j) = u_i^\top u_j$ over "
                      r"the $n(n-1)$ ordered pairs with $i \ne j$."),
            code="""\
import numpy as np


def my_mean_cosine(X):
    U = X / np.linalg.norm(X, axis=1, keepdims=True)  # unit rows
    C = U @ U.T  # every cosine
    n = len(U)
    return (C.sum() - np.trace(C)) / (n * (n - 1))  # the diagonal pairs a point with itself
""",
            why=("The diagonal of `U @ U.T` holds each point's cosine with itself (1), which is not a pair of "
                 "distinct points; including it biases the mean toward 1 by about $1/n$ (visible with two "
                 "points). Normalising the columns (`axis=0`) instead of the rows changes every cosine. The "
                 "toolkit's `mean_cosine` gets the same number in $O(nd)$ from the sum of the unit vectors, "
                 r"$\lVert\sum_i u_i\rVert^2 = \sum_{i,j} u_i^\top u_j$."),
        ),
    ),
    "02.1": Exercise(
        reference=lambda: 1.0 / math.sqrt(200),
        right="About 1/sqrt(d): in high dimension random vectors are nearly orthogonal.",
        hints=(
            "The cosine of two independent random directions is a sum of d small products with random signs, "
            "divided by the lengths. How does the typical size of such a sum change as d grows?",
            "Variances of independent terms add up, and each of the d products, once divided by the two "
            "lengths, has a variance of about 1/d^2. Go from the variance of the sum to its standard deviation.",
        ),
        rel_tol=0.15,
        mistakes={
            "variance_not_sd": ("that is 1/d, the variance of the cosine; its standard deviation is the square root "
                                "of that", 1 / 200),
            "spread_at_50": ("that is the spread in 50 dimensions; with four times as many coordinates it is "
                             "smaller", 1 / 50**0.5),
        },
        kind="Predict",
        worked=Worked(
            question=("Two independent Gaussian vectors live in 200 dimensions. What is the standard "
                      "deviation of their cosine similarity, roughly?"),
            code="""\
answer = 1 / 200 ** 0.5  # about 0.071
""",
            why=("The cosine of two independent isotropic vectors is a sum of $d$ products of unit-scale "
                 r"coordinates divided by $d$, so its standard deviation is about $1/\sqrt d$: 0.141 for $d = "
                 "50$ (notebook 02 measured 0.143) and 0.071 for $d = 200$."),
        ),
    ),
    "02.2": Exercise(
        reference=lambda: "c",
        right="A high random-pair cosine is the baseline of a cloud that leans one way: a shared offset. It "
        "says nothing about meaning, nor about how the variance is spread.",
        hints=(
            "A random-pair cosine compares directions seen from the origin. What must be true of the points for "
            "most pairs to point the same way?",
            "Recall notebook 01's centred line (one direction, mean cosine +0.000) and shifted Gaussian (every "
            "direction, mean cosine +0.901): which of the two has a high mean cosine, and why?",
        ),
        choices=("a", "b", "c"),
        kind="Explain",
        worked=Worked(
            question=("The mean random cosine of a cloud is 0.8. What can you conclude? (a) its points are "
                      "semantically similar, because their angles are small (b) its variance is concentrated "
                      "in one direction, like a thin line (c) it has a large shared offset: its points lean "
                      "one way"),
            code="""\
answer = "c"
""",
            why=("A high random-pair cosine is the baseline of a space that leans one way. It does not say "
                 "the points mean similar things (a). Nor does it say where the variance goes (b): notebook "
                 "01 keeps the two failures apart. Its centred line puts all the variance in one direction "
                 "and scores a mean cosine of $+0.000$, because its points lie on both sides of the origin; "
                 "its shifted Gaussian spreads the variance evenly over all 50 directions and scores "
                 "$+0.901$, because every point shares the offset."),
        ),
    ),
}

#: What a learner should see at each of the notebook's "Try this." prompts, and why: the notebook's part of
#: the worked solutions' second half (``tests/test_try_this.py`` runs its blocks).
TRY_THIS = r'''The explorer draws 6,000 random-pair cosines of each cloud of notebook 01 with one generator
(seed 2), as `random_pair_cosines` does.

```pycon
>>> import numpy as np
>>> from shared import random_cosines, sphere_and_cone
>>> def explorer(strength, residual, show=("isotropic", "cone")):
...     X_iso, X_cone = sphere_and_cone(strength, residual)
...     rng = np.random.default_rng(2)
...     for name, cos in (("isotropic", random_cosines(X_iso, rng)), ("cone", random_cosines(X_cone, rng))):
...         if name in show:
...             print(f"{name:9s} mean random cosine = {cos.mean():+.3f}, std = {cos.std():.3f}")
```

### Try this 02.1

*Lower the cone strength step by step. At roughly which strength does the cone's mean cosine fall
below one half?*

```pycon
>>> for strength in (3.0, 2.0, 1.5, 1.25, 1.0):
...     print(f"{strength:4}", end=" ")
...     explorer(strength, 0.1, show="cone")
 3.0 cone      mean random cosine = +0.768, std = 0.148
 2.0 cone      mean random cosine = +0.625, std = 0.187
 1.5 cone      mean random cosine = +0.508, std = 0.199
1.25 cone      mean random cosine = +0.431, std = 0.198
 1.0 cone      mean random cosine = +0.341, std = 0.191
```

Between 1.5 ($+0.508$) and 1.25 ($+0.431$). That is where the offset's typical length,
$s \cdot 0.575$ (0.575 is the mean of $0.15 + 0.85U$), becomes comparable to the residual's
length $\sqrt{50} \cdot 0.1$: 0.86 against 0.71 at $s = 1.5$.

```pycon
>>> round(1.5 * 0.575, 2), round(50**0.5 * 0.1, 2)
(0.86, 0.71)
```

The cosine of two points is about $a_i a_j / (\lVert x_i\rVert \lVert x_j\rVert)$ with
$\lVert x_i\rVert^2 \approx a_i^2 + 50\sigma^2$: near 1 while the offsets are long against the
noise, and it drops below one half once the two lengths are of the same order.

### Try this 02.2

*With the strength at 4, raise the residual to 1. Why does the cone's histogram move left and
widen, although the offset is unchanged?*

```pycon
>>> for residual in (0.1, 0.25, 0.5, 1.0):
...     print(f"{residual:4}", end=" ")
...     explorer(4.0, residual, show="cone")
 0.1 cone      mean random cosine = +0.845, std = 0.112
0.25 cone      mean random cosine = +0.535, std = 0.198
 0.5 cone      mean random cosine = +0.260, std = 0.179
 1.0 cone      mean random cosine = +0.091, std = 0.149
```

The offset is unchanged, but the cosine compares it with the residual, whose length
$\sqrt{50}\,\sigma$ grows tenfold, from 0.71 to 7.07, against a mean offset of 2.3:

```pycon
>>> round(50**0.5 * 1.0, 2), round(4.0 * 0.575, 2)
(7.07, 2.3)
```

The shared part of every pair's cosine shrinks (mean $+0.845$ to $+0.091$) and the independent part, which
spreads the histogram, grows. The spread is widest on the way (std 0.198 at $\sigma = 0.25$);
at $\sigma = 1$ (std 0.149) the cone's histogram is already close to the isotropic one (0.143),
which it becomes as the offset vanishes against the noise.

### Try this 02.3

*Set the strength to 0. Why do both histograms now coincide?*

```pycon
>>> explorer(0.0, 0.1)
isotropic mean random cosine = -0.003, std = 0.143
cone      mean random cosine = +0.003, std = 0.142
```

At strength 0 the cone is $0.1\,\varepsilon_i$, an isotropic Gaussian a tenth the size of the
reference, and a cosine does not see size: both histograms are those of two independent Gaussian
vectors in 50 dimensions, centred on 0 (means $-0.003$ and $+0.003$) with a standard deviation of
about $1/\sqrt{50}$ (0.143 and 0.142):

```pycon
>>> round(1 / 50**0.5, 3)
0.141
```
'''
