r"""Meters of isotropy: how evenly a cloud of vectors uses the directions of its space.

No meter is enough on its own: notebook 01 tabulates which one is fooled by which cloud.
All take a cloud ``X`` of shape ``(n points, d dimensions)`` or its covariance spectrum.
"""

from __future__ import annotations

import numpy as np

from . import _checks
from .clouds import random_rotation


def cov_eigs(X: np.ndarray) -> np.ndarray:
    r"""Eigenvalues of the covariance of ``X``, in descending order.

    .. math::  \Sigma = \tfrac1n (X - \bar x)^\top (X - \bar x),\qquad \lambda_1 \ge \dots \ge \lambda_d \ge 0

    Rounding can leave the smallest eigenvalues a hair below zero; they are clipped to 0.
    Eigenvalues do not depend on any choice of eigenvectors, so this is safe to print.
    """
    X = _checks.cloud(X, min_rows=2)
    Xc = X - X.mean(axis=0)
    w = np.linalg.eigvalsh(Xc.T @ Xc / len(X))[::-1]
    return np.clip(w, 0.0, None)


def _logsumexp_columns(P: np.ndarray) -> np.ndarray:
    """log(sum_i exp(P[i, j])) for every column j, without overflow."""
    top = P.max(axis=0)
    return top + np.log(np.exp(P - top).sum(axis=0))


def partition_isotropy(
    X: np.ndarray, directions: np.ndarray | None = None, rescale: bool = True
) -> float:
    r"""Partition isotropy :math:`I(X) = \min_c Z(c) / \max_c Z(c)` with :math:`Z(c) = \sum_i e^{c^\top x_i}`.

    Arora et al. (2016, arXiv:1502.03520) show that ``Z(c)`` is nearly constant over unit ``c``
    for an isotropic cloud; Mu & Viswanath (2018, arXiv:1702.01417, eq. 1) turn this into a meter
    by taking ``c`` over the eigenvectors of :math:`X^\top X`. The course's definition differs
    from theirs in three ways, each to make the number well defined:

    * both ``c`` and ``-c`` are evaluated: an eigenvector's sign is an arbitrary choice of the
      LAPACK build, and ``Z(c) != Z(-c)`` whenever the cloud is not centred;
    * ``X`` is first divided by its root-mean-square entry :math:`\sqrt{\operatorname{mean}(X^2)}`,
      which makes ``I`` independent of the cloud's overall scale and of rotations (raw ``Z`` is
      not: an isotropic Gaussian scaled by 0.01 would score about 0.999);
    * ``log Z`` is computed with log-sum-exp, so no scale overflows and nothing is clipped.

    ``rescale=False`` skips the division, as in the original estimator: then the value depends on
    the cloud's scale (tiny clouds look isotropic because every ``Z(c)`` is close to ``n``).

    The mean is *not* removed: a shared offset is exactly what makes a cone. The value is 1 for
    a perfectly isotropic cloud and tends to 0 for a cone; a finite Gaussian sample scores below 1.

    ``directions`` (shape ``(d, k)``, unit columns) replaces the eigenvectors. Without it, a
    cloud whose eigenvectors are not unique is refused with a ``ValueError``: when two positive
    eigenvalues of :math:`X^\top X` coincide (a whitened cloud has all ``d`` equal), every unit
    vector of their eigenspace is an eigenvector, and "the" eigenvectors would be whatever the
    LAPACK build happens to return. Use :func:`basis_isotropy` for such a cloud. Coinciding *zero*
    eigenvalues are harmless: ``Z`` is the same along every direction in which the cloud is empty.
    """
    X = _checks.cloud(X)
    Xs = _rms_scaled(X) if rescale else X
    if directions is None:
        w, C = np.linalg.eigh(Xs.T @ Xs)
        _check_unique_eigenvectors(w)
    else:
        C = _checks.cloud(directions, name="directions")
        if C.shape[0] != X.shape[1]:
            raise ValueError(
                f"directions: expected {X.shape[1]} rows (one per dimension of X), got {C.shape[0]}"
            )
        if not np.allclose(np.linalg.norm(C, axis=0), 1.0, atol=1e-8):
            raise ValueError("directions: every column must be a unit vector")
    log_z = _log_partition(Xs, C)
    return float(np.exp(log_z.min() - log_z.max()))


def _rms_scaled(X: np.ndarray) -> np.ndarray:
    """``X`` divided by its root-mean-square entry (the scale partition isotropy is defined at)."""
    rms = np.sqrt(np.mean(X**2))
    if rms == 0:
        raise ValueError("X: every entry is zero; partition isotropy is undefined")
    return X / rms


def _log_partition(Xs: np.ndarray, C: np.ndarray) -> np.ndarray:
    """``log Z(c)`` for every column ``c`` of ``C``, then for every ``-c``: shape ``(2 k,)``."""
    P = Xs @ C
    return np.concatenate([_logsumexp_columns(P), _logsumexp_columns(-P)])


def _check_unique_eigenvectors(w: np.ndarray, rtol: float = 1e-10) -> None:
    """Refuse a spectrum in which two positive eigenvalues agree to ``rtol`` of the largest."""
    w = np.sort(w)
    positive = w[w > rtol * w[-1]]
    gaps = np.diff(positive) / w[-1]
    if np.any(gaps <= rtol):
        tied = int(np.sum(gaps <= rtol)) + 1
        raise ValueError(
            f"X: {tied} eigenvalues of X^T X coincide, so its eigenvectors are not unique and the "
            "estimator would depend on the basis LAPACK picks; use basis_isotropy(X, rng) or pass "
            "explicit directions"
        )


def basis_isotropy(X: np.ndarray, rng: np.random.Generator | int, bases: int = 50) -> np.ndarray:
    """:func:`partition_isotropy` over ``bases`` uniformly random orthonormal bases, one value each.

    For a cloud whose :math:`X^\top X` is a multiple of the identity (a whitened cloud), *every*
    orthonormal basis is an eigenbasis, so the Mu & Viswanath estimator is a random variable, not
    a number. Its distribution (for example its median and range) is a property of the cloud that
    no LAPACK choice can move.
    """
    X = _checks.cloud(X)
    bases = _checks.integer(bases, "bases", 1)
    rng = _checks.as_rng(rng)
    d = X.shape[1]
    Q = np.hstack([random_rotation(d, rng) for _ in range(bases)])
    log_z = _log_partition(_rms_scaled(X), Q).reshape(2, bases, d)
    return np.exp(log_z.min(axis=(0, 2)) - log_z.max(axis=(0, 2)))


def random_cosines(X: np.ndarray, rng: np.random.Generator | int, m: int = 6000) -> np.ndarray:
    r"""Cosine similarity of ``m`` random pairs of rows: :math:`\cos(x_i, x_j) = x_i^\top x_j / (\|x_i\|\|x_j\|)`.

    Its mean is the anisotropy baseline of Ethayarajh (2019, arXiv:1909.00512). Both indices are
    drawn independently and uniformly, so a pair may repeat a row (probability ``1/n``; it then
    scores 1). A zero row has no direction: every pair that contains one scores 0, never NaN.

    The mean measures the shared offset of the cloud, not how many directions it uses (see
    :func:`effective_rank`): a centred line scores about 0 and an off-centre Gaussian scores high.
    """
    a, b = _random_pairs(X, rng, m)
    return np.clip(np.einsum("ij,ij->i", a, b), -1.0, 1.0)


def _random_pairs(X: object, rng: np.random.Generator | int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors of ``m`` random pairs of rows, both indices drawn independently and uniformly."""
    X = _checks.cloud(X, min_rows=2)
    m = _checks.integer(m, "m", 1)
    rng = _checks.as_rng(rng)
    i = rng.integers(0, len(X), m)
    j = rng.integers(0, len(X), m)
    U = _unit_rows(X)
    return U[i], U[j]


def _unit_rows(X: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length; a zero row stays zero (it has no direction)."""
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return np.divide(X, norms, out=np.zeros_like(X), where=norms > 0)


def cosine_terms(X: np.ndarray, rng: np.random.Generator | int, m: int = 6000) -> np.ndarray:
    r"""Each coordinate's term in the cosine of ``m`` random pairs, shape ``(m, d)``.

    .. math::  t_{pk} = \frac{x_{ik}\,x_{jk}}{\|x_i\|\,\|x_j\|},\qquad \sum_k t_{pk} = \cos(x_i, x_j)

    for the same pairs :func:`random_cosines` draws from the same ``rng`` state. The column means
    are the per-dimension contributions to the mean cosine of Timkey & van Schijndel (2021,
    arXiv:2109.04404); one or a few "rogue" coordinates carrying most of every pair's cosine is the
    failure they find in Transformer language models. A zero row contributes 0 terms.
    """
    a, b = _random_pairs(X, rng, m)
    return a * b


def effective_rank(eigs: np.ndarray) -> float:
    r"""Participation ratio of a spectrum: :math:`PR = (\sum_k \lambda_k)^2 / \sum_k \lambda_k^2`.

    It counts how many directions carry variance: ``k`` equal eigenvalues and zeros elsewhere give
    exactly ``k``, and always ``1 <= PR <= d``. It ignores the mean (pass :func:`cov_eigs`) and the
    scale. A finite sample biases it low: ``n`` isotropic Gaussian points in ``d`` dimensions give
    about ``d / (1 + d/n)`` (see Rudman et al. 2022, arXiv:2108.07344).
    """
    lam = _checks.spectrum(eigs)
    lam = lam / lam.max()
    return float(lam.sum() ** 2 / np.sum(lam**2))


def numerical_rank(eigs: np.ndarray, rtol: float = 1e-12) -> int:
    """How many eigenvalues exceed ``rtol`` times the largest: the directions a cloud occupies at all.

    Unlike :func:`effective_rank` it does not weigh directions by their variance; it only tells
    an empty direction (zero up to rounding, e.g. the one a LayerNorm output cannot move in) from
    a used one.
    """
    lam = _checks.spectrum(eigs)
    return int(np.sum(lam > rtol * lam.max()))


def entropy_rank(eigs: np.ndarray) -> float:
    r"""Entropy effective rank (Roy & Vetterli 2007): :math:`\exp(-\sum_k p_k \log p_k)`, :math:`p = \lambda / \sum\lambda`.

    Computed here on covariance eigenvalues (Roy & Vetterli use singular values of a matrix).
    It lies in ``[1, d]`` and is never below the participation ratio of the same spectrum.
    """
    lam = _checks.spectrum(eigs)
    p = lam / lam.sum()
    p = p[p > 0]
    return float(np.exp(-np.sum(p * np.log(p))))


def isoscore(X: np.ndarray) -> float:
    r"""IsoScore (Rudman, Gillman, Rayne & Eickhoff 2022, arXiv:2108.07344), in ``[0, 1]``.

    Centre, rotate to principal axes, take the variances :math:`\lambda` and normalise
    :math:`\hat\Sigma = \sqrt d\,\lambda / \|\lambda\|`; then
    :math:`\delta = \|\hat\Sigma - \mathbf 1\| / \sqrt{2(d - \sqrt d)}`,
    :math:`\phi = (d - \delta^2 (d - \sqrt d))^2 / d^2` and :math:`\iota = (d\phi - 1)/(d - 1)`.
    Algebraically :math:`\iota = (PR - 1)/(d - 1)`: a rescaled participation ratio, so ``k`` of
    ``d`` directions used equally score :math:`(k-1)/(d-1)`.
    """
    X = _checks.cloud(X, min_rows=2)
    d = X.shape[1]
    if d < 2:
        raise ValueError("X: IsoScore needs at least 2 dimensions")
    lam = _checks.spectrum(cov_eigs(X), name="covariance spectrum of X")
    sigma_hat = np.sqrt(d) * lam / np.linalg.norm(lam)
    delta = np.linalg.norm(sigma_hat - 1.0) / np.sqrt(2.0 * (d - np.sqrt(d)))
    phi = (d - delta**2 * (d - np.sqrt(d))) ** 2 / d**2
    return float(np.clip((d * phi - 1.0) / (d - 1.0), 0.0, 1.0))


def _isoscore_of_spectrum(lam: np.ndarray) -> float:
    """:func:`isoscore` from a covariance spectrum of ``d >= 2`` eigenvalues (same formula, same clipping),
    for callers that have the spectrum but not the rows (``shared.report`` streams them)."""
    lam = _checks.spectrum(lam, name="covariance spectrum")
    d = lam.size
    if d < 2:
        raise ValueError("eigs: IsoScore needs at least 2 dimensions")
    sigma_hat = np.sqrt(d) * lam / np.linalg.norm(lam)
    delta = np.linalg.norm(sigma_hat - 1.0) / np.sqrt(2.0 * (d - np.sqrt(d)))
    phi = (d - delta**2 * (d - np.sqrt(d))) ** 2 / d**2
    return float(np.clip((d * phi - 1.0) / (d - 1.0), 0.0, 1.0))


def uniformity(X: np.ndarray) -> float:
    r"""Wang–Isola uniformity (2020, arXiv:2005.10242) of the rows, projected to the unit sphere.

    .. math::  \mathcal L_{\text{uniform}} = \log \mathbb E_{i<j}\, e^{-2\|u_i - u_j\|^2} = -4 + \log \mathbb E_{i<j}\, e^{4\cos(x_i, x_j)}

    over all pairs (cost ``O(n^2 d)``). Lower is more uniform; the value is ``0`` when all points
    share one direction, and by Jensen at least ``-4 + 4 E[cos]``. Zero rows have no direction and
    are refused.
    """
    X = _checks.cloud(X, min_rows=2)
    norms = np.linalg.norm(X, axis=1)
    if np.any(norms == 0):
        raise ValueError("X: uniformity needs every row to be non-zero (a zero row has no direction)")
    U = X / norms[:, None]
    cos = np.clip((U @ U.T)[np.triu_indices(len(U), k=1)], -1.0, 1.0)
    log_mean = _logsumexp_columns((4.0 * cos)[:, None])[0] - np.log(cos.size)
    return float(-4.0 + log_mean)


def all_meters(X: np.ndarray, rng: np.random.Generator | int) -> dict[str, float]:
    """Every meter of the course on one cloud, by name (random cosines: 6,000 pairs from ``rng``).

    Partition isotropy is ``nan`` where it is undefined (a cloud whose eigenvectors are not
    unique, see :func:`partition_isotropy`); every other meter is always defined.
    """
    X = _checks.cloud(X, min_rows=2)
    eigs = cov_eigs(X)
    try:
        partition = partition_isotropy(X)
    except ValueError:
        partition = float("nan")
    return {
        "partition I": partition,
        "mean cosine": float(random_cosines(X, rng).mean()),
        "effective rank": effective_rank(eigs),
        "entropy rank": entropy_rank(eigs),
        "IsoScore": isoscore(X),
        "uniformity": uniformity(X),
    }


def pair_auc(X: np.ndarray, labels: np.ndarray, rng: np.random.Generator | int, m: int = 20000) -> float:
    r"""How well cosine similarity separates same-label pairs from different-label pairs (ROC AUC).

    Over ``m`` random pairs of distinct rows: the probability that a same-label pair has a higher
    cosine than a different-label pair (ties count one half; Mann-Whitney U / :math:`n_1 n_0`).
    0.5 is chance, 1 is perfect. Like a semantic-similarity benchmark, it compares cosines *across*
    pairs against one global scale, so a shared offset or a few dominating directions hurt it.
    """
    X = _checks.cloud(X, min_rows=2)
    labels = _labels(labels, len(X))
    m = _checks.integer(m, "m", 2)
    rng = _checks.as_rng(rng)
    i = rng.integers(0, len(X), m)
    j = (i + rng.integers(1, len(X), m)) % len(X)
    U = _unit_rows(X)
    score = np.einsum("ij,ij->i", U[i], U[j])
    same = labels[i] == labels[j]
    if same.all() or not same.any():
        raise ValueError("labels: the sampled pairs need both same-label and different-label pairs")
    return _auc(score[same], score[~same])


def _auc(positive: np.ndarray, negative: np.ndarray) -> float:
    """Probability that a positive score beats a negative one, ties counting one half
    (Mann-Whitney U / :math:`n_1 n_0`, from the average ranks of all scores together)."""
    ranks = _average_ranks(np.concatenate([positive, negative]))
    n1, n0 = len(positive), len(negative)
    return float((ranks[:n1].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def _average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n of the entries of ``x``; tied entries share their average rank."""
    ranks = np.empty(len(x))
    ranks[np.argsort(x, kind="stable")] = np.arange(1, len(x) + 1)
    _, tie, counts = np.unique(x, return_inverse=True, return_counts=True)
    return (np.bincount(tie, weights=ranks) / counts)[tie]


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    r"""Spearman's rank correlation: the Pearson correlation of the ranks of ``x`` and ``y``.

    Ties share their average rank. The value lies in ``[-1, 1]``: ``+1`` when ``y`` rises with ``x``
    in every pair, ``-1`` when it always falls; it is unchanged by any increasing transformation
    of either variable. A constant variable has no ranking, and is refused.
    """
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.ndim != 1 or x.shape != y.shape or len(x) < 2:
        raise ValueError(f"x, y: expected two 1-D arrays of the same length >= 2, got shapes {x.shape} and {y.shape}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("x, y: contain NaN or infinite values")
    rx, ry = _average_ranks(x), _average_ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    if not (np.any(rx) and np.any(ry)):
        raise ValueError("x, y: a constant variable has no rank correlation")
    return float(np.clip(rx @ ry / np.sqrt((rx @ rx) * (ry @ ry)), -1.0, 1.0))


def knn_accuracy(
    X_ref: np.ndarray, y_ref: np.ndarray, X: np.ndarray, y: np.ndarray, k: int = 10
) -> float:
    """Share of the rows of ``X`` whose label is the majority label of their ``k`` most cosine-similar
    rows of ``X_ref`` (a tie goes to the smallest label). A per-query ranking: unlike
    :func:`pair_auc` it never compares cosines of different queries with each other.
    """
    X_ref = _checks.cloud(X_ref, name="X_ref")
    X = _checks.cloud(X)
    if X.shape[1] != X_ref.shape[1]:
        raise ValueError(f"X: expected {X_ref.shape[1]} columns like X_ref, got {X.shape[1]}")
    y_ref, y = _labels(y_ref, len(X_ref), "y_ref"), _labels(y, len(X), "y")
    k = _checks.integer(k, "k", 1, len(X_ref))
    sims = _unit_rows(X) @ _unit_rows(X_ref).T
    nearest = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    votes = np.zeros((len(X), int(y_ref.max()) + 1))
    np.add.at(votes, (np.repeat(np.arange(len(X)), k), y_ref[nearest].ravel()), 1.0)
    return float(np.mean(votes.argmax(axis=1) == y))


def _labels(labels: object, n: int, name: str = "labels") -> np.ndarray:
    """Check that ``labels`` holds ``n`` non-negative integer class labels."""
    arr = np.asarray(labels)
    if arr.shape != (n,) or not np.issubdtype(arr.dtype, np.integer) or (n and arr.min() < 0):
        raise ValueError(f"{name}: expected {n} non-negative integer labels, got shape {arr.shape} of {arr.dtype}")
    return arr


def cross_group_cosines(X: np.ndarray, groups: np.ndarray) -> np.ndarray:
    r"""Each coordinate's contribution to the mean cosine over *all* pairs of rows in different groups.

    With unit rows :math:`u_i`, the sum over ordered pairs :math:`(i, j)` from different groups is
    :math:`\sum_{g(i) \ne g(j)} u_i^\top u_j = \|\sum_i u_i\|^2 - \sum_g \|\sum_{i \in g} u_i\|^2`,
    and it splits coordinate by coordinate. Dividing by the number of such pairs gives the
    contributions :math:`c_k`, whose sum is the exact mean cosine that :func:`random_cosines`
    estimates by sampling. Ethayarajh (2019, arXiv:1909.00512) pairs words from different
    contexts; with a sentence index as ``groups``, so does this. The largest :math:`c_k` is the
    "rogue dimension" of Timkey & van Schijndel (2021, arXiv:2109.04404). No sampling, so no seed:
    the value is exact and cheap (``O(n d)``).
    """
    X = _checks.cloud(X, min_rows=2)
    groups = _labels(groups, len(X), "groups")
    _, inverse, sizes = np.unique(groups, return_inverse=True, return_counts=True)
    pairs = len(X) ** 2 - int(np.sum(sizes.astype(np.int64) ** 2))
    if pairs == 0:
        raise ValueError("groups: every row is in the same group, so there is no pair from different groups")
    order = np.argsort(inverse, kind="stable")
    U = _unit_rows(X)
    per_group = np.add.reduceat(U[order], np.concatenate([[0], np.cumsum(sizes)[:-1]]), axis=0)
    return (U.sum(axis=0) ** 2 - np.sum(per_group**2, axis=0)) / pairs


def rank_collapse(X: np.ndarray) -> float:
    r"""How far the rows of ``X`` are from one common direction: :math:`\|X - X_1\|_F / \|X\|_F`.

    :math:`X_1` is the best rank-1 approximation of ``X`` (its top singular triple), so the value
    is :math:`\sqrt{\sum_{k \ge 2} s_k^2 / \sum_k s_k^2}` from the singular values alone: 0 when
    every row is a multiple of one vector (full collapse), up to :math:`\sqrt{1 - 1/\min(n, d)}`
    when the energy is spread evenly. Dong, Cordonnier & Loukas (2021, arXiv:2103.03404) track
    this residual through depth for the tokens of one sequence.
    """
    X = _checks.cloud(X, min_rows=1)
    s = np.linalg.svd(X, compute_uv=False)
    total = np.sum(s**2)
    if total == 0:
        raise ValueError("X: all entries are zero, so it has no direction to collapse onto")
    return float(np.sqrt(max(total - s[0] ** 2, 0.0) / total))


def _pair_rows(S: object, pairs: object) -> tuple[np.ndarray, np.ndarray]:
    """Check a set of sentence vectors and the row indices of its paraphrase pairs."""
    S = _checks.cloud(S, min_rows=2)
    pairs = np.asarray(pairs)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or len(pairs) < 2 or not np.issubdtype(pairs.dtype, np.integer):
        raise ValueError(f"pairs: expected an integer array of shape (P, 2) with P >= 2, got shape {pairs.shape}")
    if pairs.min() < 0 or pairs.max() >= len(S) or len(np.unique(pairs)) != pairs.size:
        raise ValueError(f"pairs: expected distinct row indices of S (0..{len(S) - 1})")
    return S, pairs


def _paraphrase_parts(S: object, pairs: object) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Unit rows of ``S``, the checked ``pairs``, and the paraphrase and unrelated cosines."""
    S, pairs = _pair_rows(S, pairs)
    U = _unit_rows(S)
    members = pairs.T.ravel()
    group = np.tile(np.arange(len(pairs)), 2)
    i, j = np.triu_indices(len(members), k=1)
    other = group[i] != group[j]
    para = np.einsum("ij,ij->i", U[pairs[:, 0]], U[pairs[:, 1]])
    unrelated = np.einsum("ij,ij->i", U[members[i[other]]], U[members[j[other]]])
    return U, pairs, para, unrelated


def paraphrase_cosines(S: np.ndarray, pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cosines of the ``P`` paraphrase pairs (rows ``pairs[p]`` of ``S``), and of every *unrelated*
    pair: two of the ``2P`` sentences that come from different paraphrase pairs."""
    _, _, para, unrelated = _paraphrase_parts(S, pairs)
    return para, unrelated


def paraphrase_check(S: np.ndarray, pairs: np.ndarray) -> dict[str, float]:
    r"""A small semantic test: are paraphrases closer than unrelated sentences?

    ``S`` holds one embedding per sentence, ``pairs`` (shape ``(P, 2)``) the row indices of ``P``
    paraphrase pairs; unrelated pairs are as in :func:`paraphrase_cosines`. Returns the mean
    cosine of each kind, their AUC (the probability that a paraphrase pair has the higher cosine
    of the two, over every paraphrase/unrelated combination; ties count one half), and top-1
    retrieval: the share of the ``2P`` sentences whose most similar other row of ``S`` is their
    paraphrase. Every pair is used, so there is no sampling.
    """
    U, pairs, para, unrelated = _paraphrase_parts(S, pairs)
    C = U @ U.T
    np.fill_diagonal(C, -np.inf)
    nearest = C[pairs.T.ravel()].argmax(axis=1)
    partner = np.concatenate([pairs[:, 1], pairs[:, 0]])
    return {
        "paraphrase cosine": float(para.mean()),
        "unrelated cosine": float(unrelated.mean()),
        "paraphrase AUC": _auc(para, unrelated),
        "top-1 retrieval": float(np.mean(nearest == partner)),
    }
