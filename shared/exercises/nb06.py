"""Notebook 06's exercises: all-but-the-top, written by the learner; three questions on the remedies."""

from __future__ import annotations

import numpy as np

from ..geometry import make_cone
from ..geometry import principal_axes
from ..remedies import all_but_the_top
from .common import Exercise, Implementation, gaussian_cloud


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
    ),
}
