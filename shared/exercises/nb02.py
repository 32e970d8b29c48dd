"""Notebook 02's exercises: the exact mean cosine, written by the learner; two questions on cosines."""

from __future__ import annotations

import math

import numpy as np

from ..clouds import make_isotropic
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


EXERCISES: dict[str, Exercise | Implementation] = {
    "02.1": Implementation(
        name="my_mean_cosine",
        reference=mean_cosine,
        cases=lambda: [
            ("an isotropic Gaussian (300 x 8)", dict(X=make_isotropic(300, 8, 1))),
            ("a Gaussian shifted by +2 (300 x 8)", dict(X=make_isotropic(300, 8, 2) + 2.0)),
            ("two points", dict(X=np.array([[1.0, 0.0], [1.0, 1.0]]))),
            ("points of very different lengths (200 x 5)",
             dict(X=(make_isotropic(200, 5, 3) + 1.0) * np.geomspace(0.1, 100.0, 200)[:, None])),
        ],
        mistakes={
            "each point was paired with itself too (n^2 pairs); pairs of distinct points exclude the "
            "diagonal": with_the_diagonal,
            "the pairs i != j were summed but divided by n^2; there are n(n-1) of them": over_n_squared,
            "the rows were not normalised: that is the mean dot product, not the mean cosine": dot_products,
            "the columns were normalised instead of the rows (axis=0 instead of axis=1)": columns_normalised,
            "each pair was counted twice but divided by the number of unordered pairs": counted_twice,
        },
        right="Normalise the rows, then average u_i . u_j over the n(n-1) ordered pairs i != j; the sum of "
        "the unit vectors gives it in O(n d).",
        hints=(
            "A cosine is the dot product of two directions: first turn every point into a unit vector, then "
            "average the cosine over every pair of two different points.",
            "Divide each row by its own length (the norm along each row, not down each column), and leave out "
            "each point paired with itself: n points make n(n-1) ordered pairs, not n^2.",
            "U = X / np.linalg.norm(X, axis=1, keepdims=True); C = U @ U.T; return (C.sum() - np.trace(C)) / (n * "
            "(n - 1)) with n = len(X).",
        ),
    ),
    "02.2": Exercise(
        reference=lambda: 1.0 / math.sqrt(200),
        right="About 1/sqrt(d): in high dimension random vectors are nearly orthogonal.",
        hints=(
            "The cosine of two independent random directions is a sum of d small products with random signs, "
            "divided by the lengths. How does the typical size of such a sum change as d grows?",
            "Notebook 02 found 0.143 for d = 50. The spread scales as 1 over the square root of d: what does four "
            "times as many coordinates do to it?",
        ),
        rel_tol=0.15,
    ),
    "02.3": Exercise(
        reference=lambda: "b",
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
