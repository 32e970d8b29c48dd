"""Notebook 02's exercises: the exact mean cosine, written by the learner; two questions on cosines."""

from __future__ import annotations

import math

import numpy as np

from ..geometry import make_isotropic
from ..meters import mean_cosine
from .common import Exercise, Implementation, unit


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
    ),
}
