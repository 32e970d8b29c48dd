r"""Partition isotropy (Mu & Viswanath 2018): how evenly :math:`Z(c) = \sum_i e^{c^\top x_i}` spreads over directions.

With its log-sum-exp, its value over random bases where the eigenvectors are not unique, and the
value or range a figure shows (:func:`isotropy_or_range`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _checks
from ..geometry import random_rotation
from .registry import Reading, declare_meter, read
from .spectrum import check_unique_eigenvectors


def logsumexp_columns(P: np.ndarray) -> np.ndarray:
    """log(sum_i exp(P[i, j])) for every column j, without overflow."""
    top = P.max(axis=0)
    return top + np.log(np.exp(P - top).sum(axis=0))


@declare_meter("partition I", ".3f", formula="min over c of Z(c) / max over c of Z(c), Z(c) = Σ_i exp(c · x_i), "
               "c the ± eigenvectors of XᵀX (Mu & Viswanath 2018)", range="(0, 1]",
               invariances=("rotation", "scale", "row order"), rule="at least", amount=0.5, sees="offset", column=1,
               undefined_on="a cloud whose eigenvectors are not unique")
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
      not: an isotropic Gaussian scaled by 0.01 would score about 0.999); the value is the same at
      every scale from the smallest to the largest float;
    * ``log Z`` is computed with log-sum-exp, so no scale overflows and nothing is clipped.

    ``rescale=False`` skips the division, as in the original estimator: then the value depends on
    the cloud's scale (tiny clouds look isotropic because every ``Z(c)`` is close to ``n``).

    The mean is *not* removed: a shared offset is exactly what makes a cone. The value is 1 for
    a perfectly isotropic cloud and tends to 0 for a cone; a finite Gaussian sample scores below 1.

    ``directions`` (shape ``(d, k)``, unit columns) replaces the eigenvectors. Without it, a
    cloud whose eigenvectors are not unique is refused with a ``ValueError``: when two positive
    eigenvalues of :math:`X^\top X` coincide (a whitened cloud has all ``d`` equal), every unit
    vector of their eigenspace is an eigenvector, and "the" eigenvectors would be whatever the
    LAPACK build happens to return. Use :func:`basis_isotropy` for such a cloud. Two eigenvalues
    coincide when they agree to a relative ``1e-8`` *of each other* (``_checks.EIGEN_TIE``), so the
    many small, distinct eigenvalues of a needle-thin cone are fine. Coinciding *zero* eigenvalues
    (below ``1e-10`` of the largest) are harmless: ``Z`` is the same along every direction in
    which the cloud is empty.

    ``X`` needs two points: a single point has no isotropy to measure (its value would depend on
    ``d`` alone).
    """
    X = _checks.cloud(X, min_rows=2)
    rescale = _checks.flag(rescale, "rescale")
    Xs = _rms_scaled(X) if rescale else X
    if directions is None:
        Xe = Xs if rescale else X / _checks.power_of_two(X)  # eigenvectors do not depend on the scale
        w, C = np.linalg.eigh(Xe.T @ Xe)
        check_unique_eigenvectors(w)
    else:
        C = _checks.cloud(directions, name="directions")
        if C.shape[0] != X.shape[1]:
            raise ValueError(
                f"directions: expected {X.shape[1]} rows (one per dimension of X), got {C.shape[0]}"
            )
        if not np.allclose(np.linalg.norm(C, axis=0), 1.0, atol=1e-8):
            raise ValueError("directions: every column must be a unit vector")
    log_z = log_partition(Xs, C)
    if not np.all(np.isfinite(log_z)):
        raise ValueError(
            f"X: with rescale=False, c^T x overflows float64 (largest |x| is {np.abs(X).max():.1e}); "
            "pass rescale=True or scale X down"
        )
    return float(np.exp(log_z.min() - log_z.max()))


def _rms_scaled(X: np.ndarray) -> np.ndarray:
    """``X`` divided by its root-mean-square entry (the scale partition isotropy is defined at).

    The root mean square is taken of ``X`` divided by a power of two (exactly), so it neither
    overflows nor underflows, and the result is the same bit for bit at any scale.
    """
    Xs = X / _checks.power_of_two(X)
    rms = np.sqrt(np.mean(Xs**2))
    if rms == 0:
        raise ValueError("X: every entry is zero; partition isotropy is undefined")
    return Xs / rms


def log_partition(Xs: np.ndarray, C: np.ndarray) -> np.ndarray:
    """``log Z(c)`` for every column ``c`` of ``C``, then for every ``-c``: shape ``(2 k,)``."""
    P = Xs @ C
    return np.concatenate([logsumexp_columns(P), logsumexp_columns(-P)])


def basis_isotropy(X: np.ndarray, rng: np.random.Generator | int, bases: int = 50) -> np.ndarray:
    """:func:`partition_isotropy` over ``bases`` uniformly random orthonormal bases, one value each.

    For a cloud whose :math:`X^\top X` is a multiple of the identity (a whitened cloud), *every*
    orthonormal basis is an eigenbasis, so the Mu & Viswanath estimator is a random variable, not
    a number. Its distribution (for example its median and range) is a property of the cloud that
    no LAPACK choice can move.
    """
    X = _checks.cloud(X, min_rows=2)
    bases = _checks.integer(bases, "bases", 1)
    _checks.allocation(("bases", bases), (None, len(X)), (None, X.shape[1]))  # the projections on every basis
    rng = _checks.as_rng(rng)
    d = X.shape[1]
    Q = np.hstack([random_rotation(d, rng) for _ in range(bases)])
    log_z = log_partition(_rms_scaled(X), Q).reshape(2, bases, d)
    return np.exp(log_z.min(axis=(0, 2)) - log_z.max(axis=(0, 2)))


#: How many random eigenbases, from which seed, :func:`isotropy_or_range` measures an undefined cloud on.
WHITENED_BASES, BASES_SEED = 20, 6


@dataclass(frozen=True)
class Isotropy:
    """Partition isotropy as a bar shows it: a ``value``, and for a cloud whose eigenvectors are not
    unique (``over_bases``) the ``low`` to ``high`` range over random eigenbases, ``value`` their median."""

    value: float
    over_bases: bool = False
    low: float = float("nan")
    high: float = float("nan")

    @property
    def label(self) -> str:
        return f"{self.low:.2f}-{self.high:.2f}" if self.over_bases else f"{self.value:.2f}"

    def reading(self) -> Reading:
        if self.over_bases:
            return Reading(f"partition I (median of {WHITENED_BASES} bases)", self.value)
        return read(partition_isotropy, self.value)


def isotropy_or_range(X: np.ndarray) -> Isotropy:
    """Partition isotropy of ``X``; where it is undefined (eigenvectors not unique, as after full
    whitening), the median and range of :func:`basis_isotropy` over :data:`WHITENED_BASES` random
    eigenbases (seed :data:`BASES_SEED`): what notebook 06 prints and its remedy figure draws."""
    X = _checks.cloud(X, min_rows=2)
    try:
        return Isotropy(value=partition_isotropy(X))
    except ValueError:
        by_basis = basis_isotropy(X, np.random.default_rng(BASES_SEED), bases=WHITENED_BASES)
        return Isotropy(value=float(np.median(by_basis)), over_bases=True, low=float(by_basis.min()),
                        high=float(by_basis.max()))
