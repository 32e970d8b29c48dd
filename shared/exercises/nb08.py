"""Notebook 08's exercises: Mu & Viswanath's partition isotropy, written by the learner; three questions."""

from __future__ import annotations

import numpy as np

from ..geometry import make_cone, random_rotation
from ..meters import log_partition, logsumexp_columns, partition_isotropy
from .common import Exercise, Implementation, gaussian_cloud, unit


def ratio(log_z: np.ndarray) -> float:
    """min Z / max Z from the values of log Z."""
    return float(np.exp(log_z.min() - log_z.max()))


def original_isotropy(X: np.ndarray, C: np.ndarray | None = None) -> float:
    """Mu & Viswanath's estimator at the vectors' own scale, over +c and -c for the columns of C
    (default: the eigenvectors of X^T X)."""
    C = np.linalg.eigh(X.T @ X)[1] if C is None else C
    return ratio(log_partition(X, C))


def isotropy_cases() -> list[tuple[str, dict]]:
    rng = np.random.default_rng(8)
    cone = 0.4 * make_cone(400, 6, 8)
    return [
        ("an uneven Gaussian with a small offset (300 x 5)",
         dict(X=gaussian_cloud(300, 5, 1, scales=(1.0, 0.8, 0.6, 0.5, 0.4), shift=0.3))),
        ("a cone of short vectors (400 x 6)", dict(X=cone)),
        ("a cloud of tiny vectors, entries about 0.05 (200 x 4)",
         dict(X=0.05 * gaussian_cloud(200, 4, 2, scales=(1.0, 0.7, 0.5, 0.3), shift=1.0))),
        ("an offset along no principal axis (300 x 3)",
         dict(X=rng.standard_normal((300, 3)) * [1.2, 0.6, 0.3] @ random_rotation(3, 9) + [0.8, -0.2, 0.5])),
        ("long vectors, c^T x up to about 800: exp overflows (120 x 3)", dict(X=long_vectors())),
    ]


def long_vectors() -> np.ndarray:
    """Points at about +-800 along three axes (50, 40 and 30 of them, random signs): every Z(c) is
    about e^800, beyond float64 (e^709.8), while the ratio of two of them is near 1."""
    rng = np.random.default_rng(11)
    axes = np.repeat(np.eye(3), [50, 40, 30], axis=0) * rng.choice([-1.0, 1.0], size=(120, 1))
    return 800.0 * axes + rng.standard_normal((120, 3))


def reference_original(X: np.ndarray) -> float:
    return partition_isotropy(X, rescale=False)


def one_sign(X: np.ndarray) -> float:
    return ratio(logsumexp_columns(X @ np.linalg.eigh(X.T @ X)[1]))


def eigenvectors_as_rows(X: np.ndarray) -> float:
    return original_isotropy(X, np.linalg.eigh(X.T @ X)[1].T)


def covariance_eigenvectors(X: np.ndarray) -> float:
    return original_isotropy(X, np.linalg.eigh(np.cov(X.T))[1])


def centred_first(X: np.ndarray) -> float:
    return original_isotropy(X - X.mean(axis=0))


def inverted(X: np.ndarray) -> float:
    return 1.0 / original_isotropy(X)


def rows_normalised(X: np.ndarray) -> float:
    return original_isotropy(unit(X))


def rescaled(X: np.ndarray) -> float:
    return partition_isotropy(X)


EXERCISES: dict[str, Exercise | Implementation] = {
    "08.2": Implementation(
        name="my_partition_isotropy",
        toolkit=("shared.meters.partition.partition_isotropy", "shared.meters.partition.log_partition",
                 "shared.meters.partition.logsumexp_columns"),
        libraries={"scipy.special.logsumexp": ""},  # the prompt asks for log-sum-exp: scipy's is allowed
        reference=reference_original,
        cases=isotropy_cases,
        mistakes={
            "one_sign": ("only one sign of each eigenvector was used: Z(c) and Z(-c) differ when the cloud is not "
                         "centred, and the sign np.linalg.eigh returns is arbitrary, so evaluate both c and -c",
                         one_sign),
            "eigenvectors_as_rows": ("the eigenvectors were read as rows: np.linalg.eigh returns them as the columns "
                                     "of its second result, so the directions are C[:, j], and X @ C projects on all "
                                     "of them at once (not X @ C.T)", eigenvectors_as_rows),
            "covariance_eigenvectors": ("the eigenvectors of the covariance (the centred cloud) were used; the "
                                        "estimator takes the eigenvectors of X^T X, uncentred",
                                        covariance_eigenvectors),
            "centred_first": ("the cloud was centred before Z was computed; the shared offset is what the estimator "
                              "must see", centred_first),
            "inverted": ("the ratio is inverted: min Z / max Z lies in [0, 1], max / min is its reciprocal", inverted),
            "rows_normalised": ("the rows were normalised first; the estimator takes the vectors as they are, "
                                "lengths included", rows_normalised),
            "rescaled": ("the cloud was divided by its root-mean-square entry: that is the course's rescaled "
                         "estimator, partition_isotropy(X); the original takes Z at the vectors' own scale", rescaled),
        },
        right="Eigenvectors of X^T X, log Z(c) by log-sum-exp for every c and -c, then exp(min - max): Mu & "
        "Viswanath's estimator, with both signs so that LAPACK's choice cannot change it.",
        hints=(
            "Probe the cloud along its principal directions, found from the vectors as they are (not centred), in "
            "both senses of each. For every direction, the partition function sums the exponentials of the "
            "points' projections on it; the estimator is the smallest partition function over the largest.",
            "Keep every Z as a logarithm: exp of a projection of 800 overflows, while log Z does not. The "
            "log of a sum of exponentials stays finite if you take out each direction's largest term first and "
            "add it back after the log.",
            "Fill the blanks:\n"
            "    C = np.linalg.eigh(____)[1]       # the directions, one per column, mean kept in\n"
            "    P = ____                          # c^T x_i for every point, every c and every -c\n"
            "    top = P.max(axis=____)            # one value per direction\n"
            "    log_z = ____                      # log Z of every direction, without overflow\n"
            "    return ____                       # min Z / max Z, from the logs",
        ),
        nonfinite="Likely mistake: exp overflowed; compute log Z with the column's maximum subtracted before np.exp "
        "(log-sum-exp), and exp only the final difference.",
    ),
    "08.1": Exercise(
        reference=lambda: "a",
        right="The frequent words and the rare words lean along nearly opposite mean directions (cosine -0.868): "
        "words of middling rank cancel the frequent words' offset, and the rarest words tip the whole "
        "vocabulary into their own cone.",
        hints=(
            "A mean cosine reads the mean direction of the set. What happens to the mean of a set when you add "
            "rows that lean another way?",
            "Look at the cosine between the mean direction of the most frequent rows and that of the rarest rows: "
            "what happens to the mean of a set that holds both?",
        ),
        choices=("a", "b", "c"),
    ),
    "08.3": Exercise(
        reference=lambda: "a",
        right="After centring every Z(c) is at least n, with equality along an emptied direction; the centred "
        "all-but-the-top leaves the other directions as they were, so the minimum stays n while each removal can "
        "only lower the maximum, whatever the removed direction carried. (Algorithm 1 as written leaves a shared "
        "offset along the removed directions, and there the estimator can fall.)",
        hints=(
            "Ask what bounds each Z(c) from below once the cloud is centred, and what removing a direction does "
            "to the projections along it.",
            "Compare Z(c) = sum_i exp(c^T x_i) with n when the c^T x_i average to 0 (e^t >= 1 + t), and ask what "
            "removing a direction does to the smallest and the largest Z.",
        ),
        choices=("a", "b", "c"),
    ),
    "08.4": Exercise(
        reference=lambda: "c",
        right="Norm falls with rank (rho = -0.359): frequent words are longer, as in notebook 04's trained toy and "
        "notebook 07's static embeddings, and against the premise of the frequency pull.",
        hints=(
            "A Spearman correlation asks whether one quantity rises or falls with the rank of the other. Decide "
            "which way the norm moves as words get rarer.",
            "Read the median norm per rank band from the most frequent band to the rarest: does it rise or fall, "
            "and what sign does that give against log rank?",
        ),
        choices=("a", "b", "c"),
    ),
}
