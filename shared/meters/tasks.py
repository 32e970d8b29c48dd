"""Task metrics: does cosine similarity still rank what it should (labels, pairs, a ranking)?

Each compares cosines with a task's answer, so a meter of the space (:mod:`shared.meters`) can be
read beside what it costs or gains a user.
"""

from __future__ import annotations

import numpy as np

from .. import _checks
from .cosines import unit_rows
from .registry import declare_meter

#: Cosines are rounded to this many decimals before they are ranked, so that cosines equal up to
#: rounding error (about ``d * eps``) tie instead of being ordered by it.
COSINE_DECIMALS = 12


def rankable(cos: np.ndarray) -> np.ndarray:
    """Cosines rounded to :data:`COSINE_DECIMALS` decimals: equal up to rounding means tied."""
    return np.round(cos, COSINE_DECIMALS)


@declare_meter("pair AUC", ".3f")
def pair_auc(X: np.ndarray, labels: np.ndarray, rng: np.random.Generator | int, m: int = 20000) -> float:
    r"""How well cosine similarity separates same-label pairs from different-label pairs (ROC AUC).

    Over ``m`` random pairs of distinct rows: the probability that a same-label pair has a higher
    cosine than a different-label pair (ties count one half; Mann-Whitney U / :math:`n_1 n_0`;
    cosines equal up to rounding are ties).
    0.5 is chance, 1 is perfect. Like a semantic-similarity benchmark, it compares cosines *across*
    pairs against one global scale, so a shared offset or a few dominating directions hurt it.
    Zero rows (no direction) are left out with their labels, as if removed.
    """
    return labelled_pair_auc(X, labels, rng, m)


def labelled_pair_auc(X: object, labels: object, rng: np.random.Generator | int, m: int = 20000,
                      name: str = "X", labels_name: str = "labels") -> float:
    """:func:`pair_auc`, its messages naming the caller's arguments ``name`` and ``labels_name``."""
    X = _checks.cloud(X, name=name, min_rows=2)
    labels = _checks.labels(labels, len(X), labels_name, rows_of=name)
    m = _checks.integer(m, "m", 2)
    _checks.allocation(("m", m), (None, X.shape[1]), (None, 2))
    X, keep = _checks.directions(X, name)
    labels = labels[keep]
    rng = _checks.as_rng(rng)
    i = rng.integers(0, len(X), m)
    j = (i + rng.integers(1, len(X), m)) % len(X)
    U = unit_rows(X)
    score = rankable(np.einsum("ij,ij->i", U[i], U[j]))
    same = labels[i] == labels[j]
    if same.all() or not same.any():
        raise ValueError(
            f"{labels_name}: the sampled pairs need both same-label and different-label pairs; "
            "use labels with at least two classes and a repeated class, or a larger m"
        )
    return auc(score[same], score[~same])


def auc(positive: np.ndarray, negative: np.ndarray) -> float:
    """Probability that a positive score beats a negative one, ties counting one half
    (Mann-Whitney U / :math:`n_1 n_0`, from the average ranks of all scores together; ``scipy.stats.mannwhitneyu``
    computes U)."""
    from scipy.stats import mannwhitneyu  # imported here: scipy takes longer to import than the rest of the toolkit

    # U does not depend on the method; the asymptotic one keeps the p-value (not used) cheap at any size
    u = mannwhitneyu(positive, negative, method="asymptotic").statistic
    return float(u / (len(positive) * len(negative)))


@declare_meter("Spearman rho", "+.3f")
def spearman(x: np.ndarray, y: np.ndarray) -> float:
    r"""Spearman's rank correlation: the Pearson correlation of the ranks of ``x`` and ``y``.

    Ties share their average rank (``scipy.stats.spearmanr``). The value lies in ``[-1, 1]``: ``+1``
    (up to rounding) when ``y`` rises with ``x`` in every pair, ``-1`` when it always falls; it is
    unchanged by any increasing transformation of either variable. A constant variable has no
    ranking, and is refused.
    """
    from scipy.stats import spearmanr  # imported here: scipy takes longer to import than the rest of the toolkit

    x = _checks.vector(x, "x", min_size=2)
    y = _checks.vector(y, "y")
    if y.shape != x.shape:
        raise ValueError(f"y: expected the same length as x ({len(x)}), got {len(y)}")
    for name, v in [("x", x), ("y", y)]:
        if np.all(v == v[0]):
            raise ValueError(f"{name}: is constant, and a constant variable has no rank correlation")
    return float(spearmanr(x, y).statistic)


@declare_meter("kNN accuracy", ".3f")
def knn_accuracy(
    X_ref: np.ndarray, y_ref: np.ndarray, X: np.ndarray, y: np.ndarray, k: int = 10
) -> float:
    """Share of the rows of ``X`` whose label is the majority label of their ``k`` most cosine-similar
    rows of ``X_ref`` (a tie goes to the smallest label). A per-query ranking: unlike
    :func:`pair_auc` it never compares cosines of different queries with each other.

    Cosines equal up to rounding tie; a tie for the ``k``-th place goes to the earlier rows of
    ``X_ref``, so the neighbours are well defined even when many cosines are equal. Zero rows (no
    direction) are left out of both, with their labels, as if removed.
    """
    X_ref = _checks.cloud(X_ref, name="X_ref")
    X = _checks.columns(_checks.cloud(X), X_ref.shape[1], "X", like="X_ref")
    y_ref = _checks.labels(y_ref, len(X_ref), "y_ref", rows_of="X_ref")
    y = _checks.labels(y, len(X), "y", rows_of="X")
    X_ref, keep = _checks.directions(X_ref, "X_ref", min_rows=1)
    X, keep_query = _checks.directions(X, "X", min_rows=1)
    y_ref, y = y_ref[keep], y[keep_query]
    k = _checks.integer(k, "k", 1, len(X_ref),
                        why="at most the number of rows of X_ref" + ("" if keep.all() else ", not counting zero rows"))
    sims = rankable(unit_rows(X) @ unit_rows(X_ref).T)
    kth = -np.partition(-sims, k - 1, axis=1)[:, k - 1 : k]  # each query's k-th largest cosine
    above, tied = sims > kth, sims == kth
    chosen = above | (tied & (np.cumsum(tied, axis=1) <= k - above.sum(axis=1, keepdims=True)))
    classes, ref_class = np.unique(y_ref, return_inverse=True)  # votes per class present, not per label value
    votes = chosen.astype(float) @ (ref_class[:, None] == np.arange(len(classes)))
    return float(np.mean(classes[votes.argmax(axis=1)] == y))

