r"""Meters of isotropy: how evenly a cloud of vectors uses the directions of its space.

No meter is enough on its own: notebook 01 tabulates which one is fooled by which cloud.
All take a cloud ``X`` of shape ``(n points, d dimensions)`` or its covariance spectrum.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from . import _checks
from .clouds import random_rotation

_F = TypeVar("_F", bound=Callable)


def declare_meter(label: str, fmt: str) -> Callable[[_F], _F]:
    """Declare how a meter's value is named and printed: sets ``fn.label`` and ``fn.fmt``."""

    def declare(fn: _F) -> _F:
        fn.label, fn.fmt = label, fmt  # type: ignore[attr-defined]
        return fn

    return declare


@dataclass(frozen=True)
class Reading:
    """One number a figure or an explorer shows: what it is, its value, and its format."""

    label: str
    value: float
    fmt: str = ".3f"

    @property
    def text(self) -> str:
        """The value alone, formatted."""
        return format(self.value, self.fmt)

    def __str__(self) -> str:
        return f"{self.label} = {self.text}"


def read(meter: Callable, value: float, label: str | None = None) -> Reading:
    """A :class:`Reading` of ``value``, named and formatted as ``meter`` declares (``label`` overrides the name)."""
    if not (callable(meter) and hasattr(meter, "label") and hasattr(meter, "fmt")):
        raise TypeError(f"meter: expected one of the toolkit's meters (a function with a label and a format), "
                        f"got {meter!r}")
    if label is not None and not isinstance(label, str):
        raise TypeError(f"label: expected a string or None, got {label!r}")
    return Reading(label or meter.label, _checks.real(value, "value"), meter.fmt)


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
    w, scale = _scaled_cov_eigs(X)
    return _checks.variances(w, scale)


def _scaled_cov_eigs(X: np.ndarray) -> tuple[np.ndarray, float]:
    """Covariance eigenvalues (descending, clipped at 0) of ``X / scale``, and the power of two ``scale``."""
    scale = _checks.power_of_two(X)
    Xs = X / scale
    Xc = Xs - Xs.mean(axis=0)
    w = np.linalg.eigvalsh(Xc.T @ Xc / len(X))[::-1]
    return np.clip(w, 0.0, None), scale


def logsumexp_columns(P: np.ndarray) -> np.ndarray:
    """log(sum_i exp(P[i, j])) for every column j, without overflow."""
    top = P.max(axis=0)
    return top + np.log(np.exp(P - top).sum(axis=0))


@declare_meter("partition I", ".3f")
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


@declare_meter("mean random cosine", "+.3f")
def random_cosines(X: np.ndarray, rng: np.random.Generator | int, m: int = 6000) -> np.ndarray:
    r"""Cosine similarity of ``m`` random pairs of rows: :math:`\cos(x_i, x_j) = x_i^\top x_j / (\|x_i\|\|x_j\|)`.

    Its mean is the anisotropy baseline of Ethayarajh (2019, arXiv:1909.00512). Both indices are
    drawn independently and uniformly, so a pair may repeat a row (probability ``1/n``; it then
    scores 1). A zero row has no direction: the pairs are drawn from the non-zero rows, as if the
    zero rows had been removed (see :mod:`shared._checks`).

    The mean measures the shared offset of the cloud, not how many directions it uses (see
    :func:`effective_rank`): a centred line scores about 0 and an off-centre Gaussian scores high.
    """
    a, b = _random_pairs(X, rng, m)
    return np.clip(np.einsum("ij,ij->i", a, b), -1.0, 1.0)


def _random_pairs(X: object, rng: np.random.Generator | int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors of ``m`` random pairs of rows, both indices drawn independently and uniformly."""
    X = _checks.cloud(X, min_rows=2)
    m = _checks.integer(m, "m", 1)
    _checks.allocation(("m", m), (None, X.shape[1]), (None, 2))
    X, _ = _checks.directions(X)
    rng = _checks.as_rng(rng)
    i = rng.integers(0, len(X), m)
    j = rng.integers(0, len(X), m)
    U = unit_rows(X)
    return U[i], U[j]


def unit_rows(X: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length; a zero row stays zero (it has no direction).

    Each row is first divided by a power of two near its largest entry (exact), so its norm
    neither overflows nor underflows, whatever its magnitude.
    """
    Xs = X / _checks.power_of_two(X, axis=1)
    norms = np.linalg.norm(Xs, axis=1, keepdims=True)
    return np.divide(Xs, norms, out=np.zeros_like(Xs), where=norms > 0)


def cosine_terms(X: np.ndarray, rng: np.random.Generator | int, m: int = 6000) -> np.ndarray:
    r"""Each coordinate's term in the cosine of ``m`` random pairs, shape ``(m, d)``.

    .. math::  t_{pk} = \frac{x_{ik}\,x_{jk}}{\|x_i\|\,\|x_j\|},\qquad \sum_k t_{pk} = \cos(x_i, x_j)

    for the same pairs :func:`random_cosines` draws from the same ``rng`` state. The column means
    are the per-dimension contributions to the mean cosine of Timkey & van Schijndel (2021,
    arXiv:2109.04404); one or a few "rogue" coordinates carrying most of every pair's cosine is the
    failure they find in Transformer language models. Zero rows are left out, as there.
    """
    a, b = _random_pairs(X, rng, m)
    return a * b


@declare_meter("effective rank", ".1f")
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


@declare_meter("entropy rank", ".1f")
def entropy_rank(eigs: np.ndarray) -> float:
    r"""Entropy effective rank (Roy & Vetterli 2007): :math:`\exp(-\sum_k p_k \log p_k)`, :math:`p = \lambda / \sum\lambda`.

    Computed here on covariance eigenvalues (Roy & Vetterli use singular values of a matrix).
    It lies in ``[1, d]`` and is never below the participation ratio of the same spectrum.
    """
    lam = _checks.spectrum(eigs)
    p = lam / lam.sum()
    p = p[p > 0]
    return float(np.exp(-np.sum(p * np.log(p))))


@declare_meter("IsoScore", ".3f")
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
    lam, _ = _scaled_cov_eigs(X)  # IsoScore does not depend on the scale
    return isoscore_of_spectrum(lam)


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


@declare_meter("uniformity", ".3f")
def uniformity(X: np.ndarray) -> float:
    r"""Wang–Isola uniformity (2020, arXiv:2005.10242) of the rows, projected to the unit sphere.

    .. math::  \mathcal L_{\text{uniform}} = \log \mathbb E_{i<j}\, e^{-2\|u_i - u_j\|^2} = -4 + \log \mathbb E_{i<j}\, e^{4\cos(x_i, x_j)}

    over all pairs (cost ``O(n^2 d)``). Lower is more uniform; the value is ``0`` when all points
    share one direction, and by Jensen at least ``-4 + 4 E[cos]``. Zero rows have no direction: they
    are left out, as if removed (at least two non-zero rows are needed).
    """
    X, _ = _checks.directions(_checks.cloud(X, min_rows=2))
    return pair_uniformity(unit_rows(X))[0]


def pair_uniformity(U: np.ndarray) -> tuple[float, np.ndarray]:
    r"""Uniformity over all pairs of the unit rows ``U`` (at least two), and the row sums it is made of.

    With :math:`E_{ij} = e^{-2\|u_i - u_j\|^2} = e^{4\cos_{ij} - 4} \in [e^{-8}, 1]` (no overflow, so
    no log-sum-exp is needed) and row sums :math:`r_i = \sum_{j \ne i} E_{ij}`, the value is
    :math:`\log(T / P)`, :math:`T = \tfrac12\sum_i r_i`, :math:`P = K(K-1)/2`. The row sums give the
    streaming report its jackknife error. Blocks of rows keep the memory at 512 x ``K`` cosines.
    """
    K = len(U)
    r = np.zeros(K)
    for a in range(0, K, 512):  # blocks of rows against the rows from the block on: each pair once
        E = U[a : a + 512] @ U[a:].T  # cosines; rounding may exceed 1 by 1e-16, which exp does not notice
        np.multiply(E, 4.0, out=E)
        np.subtract(E, 4.0, out=E)
        np.exp(E, out=E)
        b = len(E)
        E[:, :b] = np.triu(E[:, :b], k=1)  # within the block: each pair once, no i = j
        r[a : a + b] += E.sum(axis=1)
        r[a:] += E.sum(axis=0)
    return math.log(r.sum() / 2.0 / (K * (K - 1) / 2.0)), r


@declare_meter("mean cosine", "+.3f")
def mean_cosine(X: np.ndarray) -> float:
    r"""Exact mean cosine similarity over all pairs of distinct rows, in ``O(n d)``.

    .. math::  \frac{1}{n(n-1)} \sum_{i \ne j} u_i^\top u_j = \frac{\lVert \sum_i u_i \rVert^2 - \sum_i \lVert u_i \rVert^2}{n(n-1)},
               \qquad u_i = x_i / \lVert x_i \rVert

    The anisotropy baseline of Ethayarajh (2019, arXiv:1909.00512) without sampling noise (what
    :func:`random_cosines` estimates from random pairs). A zero row has no direction: the pairs
    are those of the non-zero rows, as if the zero rows had been removed (at least two are needed),
    as :func:`shared.report.isotropy_report` counts them.
    """
    X, _ = _checks.directions(_checks.cloud(X, min_rows=2))
    total, squares = np.zeros(X.shape[1]), 0.0
    for a in range(0, len(X), ROW_CHUNK):  # in row chunks: a whole vocabulary needs no second copy
        U = unit_rows(X[a:a + ROW_CHUNK])
        total += U.sum(axis=0)
        squares += np.sum(U * U)
    value = (total @ total - squares) / (len(X) * (len(X) - 1))
    return float(np.clip(value, -1.0 / (len(X) - 1), 1.0))  # its bounds, which rounding may cross by 1e-16


ROW_CHUNK = 8192  # rows :func:`mean_cosine` scales at a time


# The six meters of notebook 01's table, in its column order.
METERS = (partition_isotropy, mean_cosine, effective_rank, entropy_rank, isoscore, uniformity)


@dataclass(frozen=True)
class Meters:
    """Every meter of the course on one cloud (:func:`all_meters`); each field is named after its meter."""

    partition_isotropy: float
    mean_cosine: float
    effective_rank: float
    entropy_rank: float
    isoscore: float
    uniformity: float

    def readings(self) -> list[Reading]:
        """The six values, named and formatted as their meters declare."""
        return [read(meter, getattr(self, meter.__name__)) for meter in METERS]


def all_meters(X: np.ndarray) -> Meters:
    """Every meter of the course on one cloud. The mean cosine is exact (all pairs), so no seed is needed.

    Partition isotropy is ``nan`` where it is undefined (a cloud whose eigenvectors are not
    unique, see :func:`partition_isotropy`); every other meter is defined for every cloud with
    spread (a cloud whose points all coincide is refused). Zero rows count as points at the origin
    in the meters of variance and are left out of the mean cosine and uniformity, which need two
    non-zero rows.
    """
    X = _checks.cloud(X, min_rows=2)
    _checks.spread(X, consequence="its spread meters are undefined")
    eigs, _ = _scaled_cov_eigs(X)  # the ranks do not depend on the scale
    try:
        partition = partition_isotropy(X)
    except ValueError:
        partition = float("nan")
    return Meters(partition_isotropy=partition, mean_cosine=mean_cosine(X), effective_rank=effective_rank(eigs),
                  entropy_rank=entropy_rank(eigs), isoscore=isoscore(X), uniformity=uniformity(X))


def cross_group_cosines(X: np.ndarray, groups: np.ndarray) -> np.ndarray:
    r"""Each coordinate's contribution to the mean cosine over *all* pairs of rows in different groups.

    With unit rows :math:`u_i`, the sum over ordered pairs :math:`(i, j)` from different groups is
    :math:`\sum_{g(i) \ne g(j)} u_i^\top u_j = \|\sum_i u_i\|^2 - \sum_g \|\sum_{i \in g} u_i\|^2`,
    and it splits coordinate by coordinate. Dividing by the number of such pairs gives the
    contributions :math:`c_k`, whose sum is the exact mean cosine that :func:`random_cosines`
    estimates by sampling. Ethayarajh (2019, arXiv:1909.00512) pairs words from different
    contexts; with a sentence index as ``groups``, so does this. The largest :math:`c_k` is the
    "rogue dimension" of Timkey & van Schijndel (2021, arXiv:2109.04404). No sampling, so no seed:
    the value is exact and cheap (``O(n d)``). Zero rows (no direction) are left out with their groups.
    """
    X = _checks.cloud(X, min_rows=2)
    groups = _checks.labels(groups, len(X), "groups")
    X, keep = _checks.directions(X)
    groups = groups[keep]
    _, inverse, sizes = np.unique(groups, return_inverse=True, return_counts=True)
    pairs = len(X) ** 2 - int(np.sum(sizes.astype(np.int64) ** 2))
    if pairs == 0:
        raise ValueError("groups: every row is in the same group, so there is no pair from different groups")
    order = np.argsort(inverse, kind="stable")
    U = unit_rows(X)
    per_group = np.add.reduceat(U[order], np.concatenate([[0], np.cumsum(sizes)[:-1]]), axis=0)
    return (U.sum(axis=0) ** 2 - np.sum(per_group**2, axis=0)) / pairs


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

