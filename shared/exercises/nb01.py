"""Notebook 01's exercises: the effective rank, written by the learner; two questions on the meters."""

from __future__ import annotations

import numpy as np

from ..geometry import make_cone, make_isotropic
from ..meters import cov_eigs, effective_rank, entropy_rank
from .common import Exercise, Implementation, unit


def participation(lam: np.ndarray) -> float:
    """The participation ratio (sum)^2 / sum of squares of ``lam``, whatever ``lam`` holds."""
    return float(lam.sum() ** 2 / np.sum(lam**2))


def cloud_cases() -> list[tuple[str, dict]]:
    line = np.outer(np.random.default_rng(5).standard_normal(300), unit(np.ones((1, 6)))[0])
    return [
        ("an isotropic Gaussian (400 x 8)", dict(X=make_isotropic(400, 8, 1))),
        ("a Gaussian shifted by +5 (400 x 8)", dict(X=make_isotropic(400, 8, 2) + 5.0)),
        ("a narrow cone (400 x 8)", dict(X=make_cone(400, 8, 3))),
        ("a centred line (300 x 6)", dict(X=line)),
        ("fewer points than dimensions (6 x 10)", dict(X=make_isotropic(6, 10, 4))),
        ("a tiny cloud, entries about 1e-9 (300 x 8)", dict(X=1e-9 * make_isotropic(300, 8, 6) * np.linspace(2, 1, 8))),
    ]


def reference_effective_rank(X: np.ndarray) -> float:
    return effective_rank(cov_eigs(X))


def uncentred(X: np.ndarray) -> float:
    return participation(np.linalg.eigvalsh(X.T @ X / len(X)))


def covariance_of_rows(X: np.ndarray) -> float:
    """Each point centred on its own mean (``X - X.mean(axis=1)``, or ``np.cov(X)``, which does that
    and treats the points as the variables): both give the same participation ratio."""
    return participation(np.linalg.eigvalsh(np.cov(X)))


def eps_in_the_denominator(X: np.ndarray) -> float:
    lam = cov_eigs(X)
    return float(lam.sum() ** 2 / (np.sum(lam**2) + 1e-12))


def correlation_matrix(X: np.ndarray) -> float:
    with np.errstate(invalid="ignore", divide="ignore"):  # a constant coordinate has no correlation
        return participation(np.linalg.eigvalsh(np.corrcoef(X.T)))


def column_norms(X: np.ndarray) -> list[float]:
    """The columns' lengths or their squares (variances), of the centred cloud or of X as it is."""
    found = []
    for Y in (X - X.mean(axis=0), X):
        norms = np.linalg.norm(Y, axis=0)
        found += [participation(norms), participation(norms**2)]
    return found


#: The eps a learner may add: powers of ten from 1e-16 to 1e-1.
EPSILONS = tuple(10.0**-k for k in range(1, 17))


def eps_large(X: np.ndarray) -> list[float]:
    """An eps added to the eigenvalues, to the denominator, or as a floor under the eigenvalues."""
    lam = cov_eigs(X)
    found = []
    for eps in EPSILONS:
        found += [participation(lam + eps), float(lam.sum() ** 2 / (np.sum(lam**2) + eps)),
                  participation(np.maximum(lam, eps))]
    return found


def singular_values(X: np.ndarray) -> float:
    return participation(np.linalg.svd(X - X.mean(axis=0), compute_uv=False))


def entropy_instead(X: np.ndarray) -> float:
    return entropy_rank(cov_eigs(X))


def sum_not_squared(X: np.ndarray) -> float:
    return float(cov_eigs(X).sum() / np.sum(cov_eigs(X) ** 2))


def sum_over_largest(X: np.ndarray) -> float:
    return float(cov_eigs(X).sum() / cov_eigs(X).max())


EXERCISES: dict[str, Exercise | Implementation] = {
    "01.1": Implementation(
        name="my_effective_rank",
        toolkit=("shared.meters.spectrum.effective_rank", "shared.meters.spectrum.cov_eigs"),
        reference=reference_effective_rank,
        cases=cloud_cases,
        mistakes={
            "not_centred": ("the cloud was not centred: the eigenvalues of X^T X / n, not of the covariance, carry "
                            "the offset", uncentred),
            "rows_centred": (
                "each point was centred on its own mean (a mean along axis=1, over a row) instead of each coordinate "
                "on its mean over the points (axis=0); np.cov(X) does the same, since it treats each row as a "
                "variable: the covariance of the coordinates is np.cov(X.T), d x d", covariance_of_rows),
            "correlation_matrix": (
                "the eigenvalues are those of the correlation matrix (np.corrcoef), which divides each coordinate by "
                "its own spread and so makes every variance 1; the participation ratio reads the covariance, where "
                "a coordinate with more spread weighs more", correlation_matrix),
            "column_norms": (
                "the lengths (or variances) of the columns were used as the spectrum: they are the variances along "
                "the coordinate axes, which are not the principal directions unless the coordinates are "
                "uncorrelated; the eigenvalues of the covariance are the variances along the principal directions",
                column_norms),
            "eps_tiny_cloud": (
                "an eps was added to the denominator: on a cloud of tiny values (variances about 1e-18) it outweighs "
                "the sum of squares. The ratio does not depend on the scale and needs no eps", eps_in_the_denominator),
            "eps_changes_answer": (
                "an eps large enough to change the answer was added (to the eigenvalues, to the denominator, or as a "
                "floor under the eigenvalues): the eigenvalues of a covariance are >= 0 and the sum of their squares "
                "is 0 only for a single point, so the ratio needs no eps; leave it out", eps_large),
            "singular_values": ("singular values are standard deviations: square them to get variances",
                                singular_values),
            "entropy_rank": ("that is the entropy rank exp(-sum p log p), not the participation ratio", entropy_instead),
            "sum_not_squared": ("the numerator is the square of the sum, (sum lambda)^2, not the sum itself",
                                sum_not_squared),
            "sum_over_largest": ("sum / largest eigenvalue is another effective dimension; this one is (sum)^2 / sum "
                                 "of squares", sum_over_largest),
        },
        right="Centre, take the covariance eigenvalues, then (sum)^2 / sum of squares: 1 for a line, d for a "
        "sphere, and blind to a shift.",
        hints=(
            "The participation ratio asks how many directions share the spread. It is read from the variances "
            "along the principal directions, which are the eigenvalues of the covariance of the centred cloud: "
            "the square of their total, over the total of their squares.",
            "Decide from the shapes. X has one row per point and one column per coordinate; the covariance you "
            "want has one row and one column per coordinate, so what you subtract has one entry per coordinate, "
            "and the matrix you hand to the eigensolver is d x d, not n x n.",
            "Fill the blanks, checking each line's shape as you go:\n"
            "    Xc = X - ____                     # shape (d,) is what you subtract\n"
            "    lam = np.linalg.eigvalsh(____)    # a d x d matrix made from Xc\n"
            "    return ____                       # the ratio the prompt states, from lam",
        ),
    ),
    "01.3": Exercise(
        reference=lambda: 10.0,
        right="k equal eigenvalues give a participation ratio of exactly k.",
        hints=(
            "The participation ratio counts how many directions share the variance evenly. What should it say "
            "when some directions share it equally and the rest carry none?",
            "Try it on a smaller spectrum you can add up in your head, two equal values and one zero, then ask "
            "what changes when there are more of each.",
        ),
        abs_tol=0.05,
        mistakes={
            "k_over_d": ("that is k / d, the fraction of the directions in use; the participation ratio counts "
                         "them", 10 / 50),
            "zeros_counted": ("the zero eigenvalues carry no variance, so they add nothing to either sum: only the "
                              "directions in use count", 50.0),
        },
    ),
    "01.2": Exercise(
        reference=lambda: "c",
        right="Only the mean cosine: the plane has no shared offset, so random pairs average a cosine of 0, as "
        "for the centred line in the table. Both ranks and IsoScore see that two directions of 50 carry all the "
        "variance.",
        hints=(
            "Two failures can be told apart: a shared offset and an uneven spread. Which of the two does this "
            "cloud have, and which meters read only that one?",
            "Look at the centred line in the table: it too is centred, with its variance in few directions. Which "
            "meter gave it a tick, and why?",
        ),
        choices=("a", "b", "c"),
    ),
}
