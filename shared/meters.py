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
    n_same = int(same.sum())
    if n_same == 0 or n_same == m:
        raise ValueError("labels: the sampled pairs need both same-label and different-label pairs")
    ranks = np.empty(m)
    ranks[np.argsort(score, kind="stable")] = np.arange(1, m + 1)
    _, tie, counts = np.unique(score, return_inverse=True, return_counts=True)
    ranks = (np.bincount(tie, weights=ranks) / counts)[tie]  # ties share their average rank
    return float((ranks[same].sum() - n_same * (n_same + 1) / 2) / (n_same * (m - n_same)))


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
