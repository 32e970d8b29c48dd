"""Meters read from a covariance spectrum: the ranks, IsoScore and rank collapse, and the spectrum itself.

Each takes a cloud ``X`` of shape ``(n points, d dimensions)`` or its covariance eigenvalues
(:func:`cov_eigs`).
"""

from __future__ import annotations

import numpy as np

from .. import _checks
from .registry import declare_meter, scaled_cov_eigs


def cov_eigs(X: np.ndarray) -> np.ndarray:
    r"""Eigenvalues of the covariance of ``X``, in descending order.

    .. math::  \Sigma = \tfrac1n (X - \bar x)^\top (X - \bar x),\qquad \lambda_1 \ge \dots \ge \lambda_d \ge 0

    Rounding can leave the smallest eigenvalues a hair below zero; they are clipped to 0.
    Eigenvalues do not depend on any choice of eigenvectors, so this is safe to print.

    A cloud whose points coincide up to rounding (see :func:`shared._checks.flat`) has no spread:
    its spectrum is exactly zero (which the rank meters refuse), not rounding noise.
    """
    X = _checks.cloud(X, min_rows=2)
    if _checks.flat(X):
        return np.zeros(X.shape[1])
    w, scale = scaled_cov_eigs(X)
    return _checks.variances(w, scale)


def check_unique_eigenvectors(w: np.ndarray, zero: float = 1e-10) -> None:
    """Refuse a spectrum in which two neighbouring positive eigenvalues coincide (``_checks.EIGEN_TIE``).

    Each gap is compared with the eigenvalues it separates, not with the largest one: small
    eigenvalues that differ from each other are distinct, however large the top one is.
    Eigenvalues below ``zero`` times the largest count as zero (the cloud is empty along them).
    """
    w = np.sort(w)
    positive = w[w > zero * w[-1]]
    tie = np.diff(positive) <= _checks.EIGEN_TIE * positive[1:]
    if np.any(tie):
        tied = int(np.sum(tie)) + 1
        raise ValueError(
            f"X: {tied} eigenvalues of X^T X coincide, so its eigenvectors are not unique and the "
            "estimator would depend on the basis LAPACK picks; use basis_isotropy(X, rng) or pass "
            "explicit directions"
        )


@declare_meter("effective rank", ".1f", formula="(Σλ)² / Σλ² of the covariance spectrum λ (participation ratio)",
               range="[1, d]", invariances=("rotation", "scale", "shift", "row order"), reads="spectrum",
               rule="at least", amount=0.8, sees="spread", column=3)
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


def gaussian_effective_rank(n: int, d: int) -> float:
    r"""The participation ratio a Gaussian sample of ``n`` points in ``d`` dimensions is expected to
    have: :math:`d\,m / (m + d + 1)` with :math:`m = n - 1` degrees of freedom after centring.

    The ratio of the first two moments of a Wishart matrix,
    :math:`E[\operatorname{tr} S]^2 / E[\operatorname{tr} S^2]`; for large ``n`` and ``d`` it tends to
    :math:`d / (1 + d/n)` (the Marchenko-Pastur limit). It is ``d`` only when ``n`` is much larger
    than ``d``: the baseline any covariance meter must be compared with.
    """
    n = _checks.integer(n, "n", 2, why="a covariance needs two points")
    d = _checks.integer(d, "d", 1)
    m = n - 1
    return d * m / (m + d + 1)


@declare_meter("numerical rank", "d")
def numerical_rank(eigs: np.ndarray, rtol: float = 1e-12) -> int:
    """How many eigenvalues exceed ``rtol`` times the largest: the directions a cloud occupies at all.

    Unlike :func:`effective_rank` it does not weigh directions by their variance; it only tells
    an empty direction (zero up to rounding, e.g. the one a LayerNorm output cannot move in) from
    a used one. An all-zero spectrum (a cloud with no spread) has rank 0.
    """
    lam = _checks.spectrum(eigs, allow_zero=True)
    rtol = _checks.real(rtol, "rtol", 0.0, 1.0)
    return int(np.sum(lam > rtol * lam.max()))


@declare_meter("entropy rank", ".1f", formula="exp(H(λ / Σλ)), H the Shannon entropy (Roy & Vetterli 2007)",
               range="[1, d]", invariances=("rotation", "scale", "shift", "row order"), reads="spectrum",
               rule="at least", amount=0.8, sees="spread", column=4)
def entropy_rank(eigs: np.ndarray) -> float:
    r"""Entropy effective rank (Roy & Vetterli 2007): :math:`\exp(-\sum_k p_k \log p_k)`, :math:`p = \lambda / \sum\lambda`.

    Computed here on covariance eigenvalues (Roy & Vetterli use singular values of a matrix).
    It lies in ``[1, d]`` and is never below the participation ratio of the same spectrum.
    """
    lam = _checks.spectrum(eigs)
    p = lam / lam.sum()
    p = p[p > 0]
    return float(np.exp(-np.sum(p * np.log(p))))


def isoscore_of_spectrum(lam: np.ndarray) -> float:
    """:func:`isoscore` from a covariance spectrum of ``d >= 2`` eigenvalues, for callers that have
    the spectrum but not the rows (``shared.report`` streams them)."""
    lam = _checks.spectrum(lam, name="covariance spectrum")
    d = lam.size
    if d < 2:
        raise ValueError("eigs: IsoScore needs at least 2 dimensions")
    sigma_hat = np.sqrt(d) * lam / np.linalg.norm(lam)
    delta = np.linalg.norm(sigma_hat - 1.0) / np.sqrt(2.0 * (d - np.sqrt(d)))
    phi = (d - delta**2 * (d - np.sqrt(d))) ** 2 / d**2
    return float(np.clip((d * phi - 1.0) / (d - 1.0), 0.0, 1.0))


@declare_meter("IsoScore", ".3f", formula="(PR - 1) / (d - 1), PR the participation ratio (Rudman et al. 2022)",
               range="[0, 1]", invariances=("rotation", "scale", "shift", "row order"),
               rule="at least", amount=0.8, sees="spread", column=5, of_spectrum=isoscore_of_spectrum)
def isoscore(X: np.ndarray) -> float:
    r"""IsoScore (Rudman, Gillman, Rayne & Eickhoff 2022, arXiv:2108.07344), in ``[0, 1]``.

    Centre, rotate to principal axes, take the variances :math:`\lambda` and normalise
    :math:`\hat\Sigma = \sqrt d\,\lambda / \|\lambda\|`; then
    :math:`\delta = \|\hat\Sigma - \mathbf 1\| / \sqrt{2(d - \sqrt d)}`,
    :math:`\phi = (d - \delta^2 (d - \sqrt d))^2 / d^2` and :math:`\iota = (d\phi - 1)/(d - 1)`.
    Algebraically :math:`\iota = (PR - 1)/(d - 1)`: a rescaled participation ratio, so ``k`` of
    ``d`` directions used equally score :math:`(k-1)/(d-1)`. A cloud whose points coincide (up to
    rounding) has no spread, and is refused.
    """
    X = _checks.cloud(X, min_rows=2)
    d = X.shape[1]
    if d < 2:
        raise ValueError("X: IsoScore needs at least 2 dimensions")
    _checks.spread(X, consequence="IsoScore has no spread to measure")
    lam, _ = scaled_cov_eigs(X)  # IsoScore does not depend on the scale
    return isoscore_of_spectrum(lam)


@declare_meter("rank collapse", ".3f")
def rank_collapse(X: np.ndarray) -> float:
    r"""How far the rows of ``X`` are from one common direction: :math:`\|X - X_1\|_F / \|X\|_F`.

    :math:`X_1` is the best rank-1 approximation of ``X`` (its top singular triple), so the value
    is :math:`\sqrt{\sum_{k \ge 2} s_k^2 / \sum_k s_k^2}` from the singular values alone: 0 when
    every row is a multiple of one vector (full collapse), up to :math:`\sqrt{1 - 1/\min(n, d)}`
    when the energy is spread evenly. Dong, Cordonnier & Loukas (2021, arXiv:2103.03404) track a
    related residual through depth for the tokens of one sequence, the distance from a matrix
    whose rows are all equal, :math:`X - \mathbf 1 x^\top`; the rank-1 residual also counts tokens
    that share one direction with different lengths as collapsed.
    """
    X = _checks.cloud(X, min_rows=1)
    s = np.linalg.svd(X / _checks.power_of_two(X), compute_uv=False)  # the ratio is scale-free
    total = np.sum(s**2)
    if total == 0:
        raise ValueError("X: all entries are zero, so it has no direction to collapse onto")
    return float(np.sqrt(np.sum(s[1:] ** 2) / total))
