r"""Meters of isotropy: how evenly a cloud of vectors uses the directions of its space.

No meter is enough on its own: notebook 01 tabulates which one is fooled by which cloud.
All take a cloud ``X`` of shape ``(n points, d dimensions)`` or its covariance spectrum.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import NamedTuple, TypeVar

import numpy as np

from . import _checks
from .clouds import make_isotropic, random_rotation

_F = TypeVar("_F", bound=Callable)


def _meter(label: str, fmt: str) -> Callable[[_F], _F]:
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


def _logsumexp_columns(P: np.ndarray) -> np.ndarray:
    """log(sum_i exp(P[i, j])) for every column j, without overflow."""
    top = P.max(axis=0)
    return top + np.log(np.exp(P - top).sum(axis=0))


@_meter("partition I", ".3f")
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


def _log_partition(Xs: np.ndarray, C: np.ndarray) -> np.ndarray:
    """``log Z(c)`` for every column ``c`` of ``C``, then for every ``-c``: shape ``(2 k,)``."""
    P = Xs @ C
    return np.concatenate([_logsumexp_columns(P), _logsumexp_columns(-P)])


def _check_unique_eigenvectors(w: np.ndarray, zero: float = 1e-10) -> None:
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
    rng = _checks.as_rng(rng)
    d = X.shape[1]
    Q = np.hstack([random_rotation(d, rng) for _ in range(bases)])
    log_z = _log_partition(_rms_scaled(X), Q).reshape(2, bases, d)
    return np.exp(log_z.min(axis=(0, 2)) - log_z.max(axis=(0, 2)))


@_meter("mean random cosine", "+.3f")
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
    """Rows scaled to unit length; a zero row stays zero (it has no direction).

    Each row is first divided by a power of two near its largest entry (exact), so its norm
    neither overflows nor underflows, whatever its magnitude.
    """
    Xs = X / _checks.power_of_two(X, axis=1)
    norms = np.linalg.norm(Xs, axis=1, keepdims=True)
    return np.divide(Xs, norms, out=np.zeros_like(Xs), where=norms > 0)


#: Cosines are rounded to this many decimals before they are ranked, so that cosines equal up to
#: rounding error (about ``d * eps``) tie instead of being ordered by it.
COSINE_DECIMALS = 12


def _rankable(cos: np.ndarray) -> np.ndarray:
    """Cosines rounded to :data:`COSINE_DECIMALS` decimals: equal up to rounding means tied."""
    return np.round(cos, COSINE_DECIMALS)


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


@_meter("effective rank", ".1f")
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


@_meter("numerical rank", "d")
def numerical_rank(eigs: np.ndarray, rtol: float = 1e-12) -> int:
    """How many eigenvalues exceed ``rtol`` times the largest: the directions a cloud occupies at all.

    Unlike :func:`effective_rank` it does not weigh directions by their variance; it only tells
    an empty direction (zero up to rounding, e.g. the one a LayerNorm output cannot move in) from
    a used one. An all-zero spectrum (a cloud with no spread) has rank 0.
    """
    lam = _checks.spectrum(eigs, allow_zero=True)
    rtol = _checks.real(rtol, "rtol", 0.0, 1.0)
    return int(np.sum(lam > rtol * lam.max()))


@_meter("entropy rank", ".1f")
def entropy_rank(eigs: np.ndarray) -> float:
    r"""Entropy effective rank (Roy & Vetterli 2007): :math:`\exp(-\sum_k p_k \log p_k)`, :math:`p = \lambda / \sum\lambda`.

    Computed here on covariance eigenvalues (Roy & Vetterli use singular values of a matrix).
    It lies in ``[1, d]`` and is never below the participation ratio of the same spectrum.
    """
    lam = _checks.spectrum(eigs)
    p = lam / lam.sum()
    p = p[p > 0]
    return float(np.exp(-np.sum(p * np.log(p))))


@_meter("IsoScore", ".3f")
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
    return _isoscore_of_spectrum(lam)


def _isoscore_of_spectrum(lam: np.ndarray) -> float:
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


@_meter("uniformity", ".3f")
def uniformity(X: np.ndarray) -> float:
    r"""Wang–Isola uniformity (2020, arXiv:2005.10242) of the rows, projected to the unit sphere.

    .. math::  \mathcal L_{\text{uniform}} = \log \mathbb E_{i<j}\, e^{-2\|u_i - u_j\|^2} = -4 + \log \mathbb E_{i<j}\, e^{4\cos(x_i, x_j)}

    over all pairs (cost ``O(n^2 d)``). Lower is more uniform; the value is ``0`` when all points
    share one direction, and by Jensen at least ``-4 + 4 E[cos]``. Zero rows have no direction and
    are refused.
    """
    X = _checks.cloud(X, min_rows=2)
    if not np.all(X.any(axis=1)):
        raise ValueError("X: uniformity needs every row to be non-zero (a zero row has no direction)")
    return _pair_uniformity(_unit_rows(X))[0]


def _pair_uniformity(U: np.ndarray) -> tuple[float, np.ndarray]:
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


@_meter("mean cosine", "+.3f")
def mean_cosine(X: np.ndarray) -> float:
    r"""Exact mean cosine similarity over all pairs of distinct rows, in ``O(n d)``.

    .. math::  \frac{1}{n(n-1)} \sum_{i \ne j} u_i^\top u_j = \frac{\lVert \sum_i u_i \rVert^2 - \sum_i \lVert u_i \rVert^2}{n(n-1)},
               \qquad u_i = x_i / \lVert x_i \rVert

    The anisotropy baseline of Ethayarajh (2019, arXiv:1909.00512) without sampling noise (what
    :func:`random_cosines` estimates from random pairs). A zero row has no direction: it scores 0
    with every other row.
    """
    X = _checks.cloud(X, min_rows=2)
    U = _unit_rows(X)
    total = U.sum(axis=0)
    return float((total @ total - np.sum(U * U)) / (len(U) * (len(U) - 1)))


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
    spread (a cloud whose points all coincide is refused).
    """
    X = _checks.cloud(X, min_rows=2)
    _checks.spread(X, consequence="its spread meters are undefined")
    eigs, _ = _scaled_cov_eigs(X)  # the ranks do not depend on the scale
    try:
        partition = partition_isotropy(X)
    except ValueError:
        partition = float("nan")
    return Meters(partition, mean_cosine(X), effective_rank(eigs), entropy_rank(eigs), isoscore(X), uniformity(X))


# When a meter calls a cloud isotropic: its value against the value of a Gaussian with the same
# number of points and dimensions (notebook 01 explains each rule and the cloud that fools it).
# "at least": value >= amount x Gaussian's; "within": |value - Gaussian's| <= amount;
# "at most above": value <= Gaussian's + amount.
ISOTROPIC_IF: dict[str, tuple[str, float]] = {
    "partition_isotropy": ("at least", 0.5),
    "mean_cosine": ("within", 0.1),
    "effective_rank": ("at least", 0.8),
    "entropy_rank": ("at least", 0.8),
    "isoscore": ("at least", 0.8),
    "uniformity": ("at most above", 0.5),
}


# The meters of the table that look at the raw vectors, so that a shared offset moves them; the
# others centre the cloud first and see only how its variance is spread (notebook 01).
LOOK_AT_RAW_VECTORS = ("partition_isotropy", "mean_cosine", "uniformity")


def calls_isotropic(meter: str, value: float, gaussian: float) -> bool:
    """Whether ``value`` of ``meter`` (a field of :class:`Meters`) passes its rule in :data:`ISOTROPIC_IF`."""
    if not isinstance(meter, str):
        raise TypeError(f"meter: expected the name of a meter (a string), got {meter!r}")
    if meter not in ISOTROPIC_IF:
        raise ValueError(f"meter: expected one of {list(ISOTROPIC_IF)}, got {meter!r}")
    value, gaussian = _checks.real(value, "value"), _checks.real(gaussian, "gaussian")
    kind, amount = ISOTROPIC_IF[meter]
    if kind == "at least":
        return bool(value >= amount * gaussian)
    if kind == "within":
        return bool(abs(value - gaussian) <= amount)
    return bool(value <= gaussian + amount)


def _rules_text() -> str:
    """The rules of :data:`ISOTROPIC_IF` in words, one clause per meter."""
    labels = {meter.__name__: meter.label for meter in METERS}
    words = {"at least": "at least {a} x the Gaussian's", "within": "within {a} of the Gaussian's",
             "at most above": "at most the Gaussian's + {a}"}
    return "; ".join(f"{labels[m]} {words[kind].format(a=amount)}" for m, (kind, amount) in ISOTROPIC_IF.items())


@dataclass(frozen=True)
class MeterRow:
    """One cloud of a :class:`MeterTable`: its meters, its same-size Gaussian's, and the verdicts.

    ``offset`` is a shared offset large against the spread, which the mean cosine sees: the vectors
    lean one way and, seen from the origin, fill a narrow cone. ``spread`` is variance piled on a
    few directions, which the effective rank sees (a centred line's failure). The two are
    independent: notebook 01's cone shows both, a shifted Gaussian only the first.
    """

    name: str
    meters: Meters
    gaussian: Meters
    isotropic: dict[str, bool]

    @property
    def offset(self) -> bool:
        return not self.isotropic["mean_cosine"]

    @property
    def spread(self) -> bool:
        return not self.isotropic["effective_rank"]

    @property
    def failure(self) -> str:
        """In words: which of the two failures of notebook 01 this cloud shows."""
        return {(True, True): "cone + collapsed spread", (True, False): "cone",
                (False, True): "collapsed spread", (False, False): "neither"}[self.offset, self.spread]


@dataclass(frozen=True)
class MeterTable:
    """Notebook 01's yardstick for several clouds: every meter beside a same-size Gaussian baseline."""

    rows: list[MeterRow]
    baselines: dict[tuple[int, int], Meters]

    def row(self, name: str) -> MeterRow:
        """The row of the cloud called ``name``."""
        for row in self.rows:
            if row.name == name:
                return row
        raise ValueError(f"name: no cloud called {name!r}; the table has {[r.name for r in self.rows]}")

    def __str__(self) -> str:
        width = max(28, *(len(r.name) + 1 for r in self.rows))
        lines = [f"{'cloud':{width}s}" + "".join(f"{m.label:>16s}" for m in METERS) + "  failure"]
        for (n, d), base in self.baselines.items():
            name = f"(Gaussian, n = {n:,}, d = {d})"
            lines.append(f"{name:{width}s}" + "".join(f"{r.text:>16s}" for r in base.readings()))
        for row in self.rows:
            cells = [f"{r.text} {'✓' if row.isotropic[m.__name__] else '✗'}"
                     for m, r in zip(METERS, row.meters.readings())]
            lines.append(f"{row.name:{width}s}" + "".join(f"{c:>16s}" for c in cells) + f"  {row.failure}")
        lines += textwrap.wrap(f"✓ = isotropic by this meter: {_rules_text()}. Failure: a cone (a shared offset) "
                               "where the mean cosine says ✗, a collapsed spread where the effective rank says ✗.",
                               width=110)
        return "\n".join(lines)


def meter_table(clouds: Mapping[str, np.ndarray], seed: int = 100) -> MeterTable:
    """Measure each named cloud with :func:`all_meters` beside a Gaussian of the same ``n`` and ``d``.

    The baseline for shape ``(n, d)`` is :func:`~shared.clouds.make_isotropic` ``(n, d, seed + n)``,
    so clouds of one shape share one baseline. A meter calls a cloud isotropic (✓) by its rule in
    :data:`ISOTROPIC_IF` (:func:`calls_isotropic`), printed under the table; the last column says which failure the cloud shows, if any: a shared
    offset (mean cosine off the baseline) and/or a collapsed spread (effective rank below 0.8 of
    the baseline's). A claim that a mechanism *produces* a failure needs a row for the mechanism,
    a row for the same toy with it switched off, and the baseline.
    """
    if not isinstance(clouds, Mapping):
        raise TypeError(f"clouds: expected a mapping from a name to a cloud (a dict), got {type(clouds).__name__}")
    if not clouds:
        raise ValueError("clouds: expected at least one cloud, got an empty mapping")
    seed = _checks.integer(seed, "seed", 0)
    baselines: dict[tuple[int, int], Meters] = {}
    rows = []
    for name, X in clouds.items():
        X = _checks.cloud(X, name=f"clouds[{name!r}]", min_rows=2)
        shape = X.shape
        if shape not in baselines:
            baselines[shape] = all_meters(make_isotropic(shape[0], shape[1], seed + shape[0]))
        try:
            values = all_meters(X)
        except ValueError as error:  # name the cloud, not all_meters' own argument
            raise ValueError(f"clouds[{name!r}]{str(error).removeprefix('X')}") from error
        base = baselines[shape]
        verdicts = {key: calls_isotropic(key, getattr(values, key), getattr(base, key)) for key in ISOTROPIC_IF}
        rows.append(MeterRow(str(name), values, base, verdicts))
    return MeterTable(rows, baselines)


@_meter("pair AUC", ".3f")
def pair_auc(X: np.ndarray, labels: np.ndarray, rng: np.random.Generator | int, m: int = 20000) -> float:
    r"""How well cosine similarity separates same-label pairs from different-label pairs (ROC AUC).

    Over ``m`` random pairs of distinct rows: the probability that a same-label pair has a higher
    cosine than a different-label pair (ties count one half; Mann-Whitney U / :math:`n_1 n_0`;
    cosines equal up to rounding are ties).
    0.5 is chance, 1 is perfect. Like a semantic-similarity benchmark, it compares cosines *across*
    pairs against one global scale, so a shared offset or a few dominating directions hurt it.
    """
    X = _checks.cloud(X, min_rows=2)
    labels = _checks.labels(labels, len(X))
    m = _checks.integer(m, "m", 2)
    rng = _checks.as_rng(rng)
    i = rng.integers(0, len(X), m)
    j = (i + rng.integers(1, len(X), m)) % len(X)
    U = _unit_rows(X)
    score = _rankable(np.einsum("ij,ij->i", U[i], U[j]))
    same = labels[i] == labels[j]
    if same.all() or not same.any():
        raise ValueError(
            "labels: the sampled pairs need both same-label and different-label pairs; "
            "use labels with at least two classes and a repeated class, or a larger m"
        )
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


@_meter("Spearman rho", "+.3f")
def spearman(x: np.ndarray, y: np.ndarray) -> float:
    r"""Spearman's rank correlation: the Pearson correlation of the ranks of ``x`` and ``y``.

    Ties share their average rank. The value lies in ``[-1, 1]``: ``+1`` when ``y`` rises with ``x``
    in every pair, ``-1`` when it always falls; it is unchanged by any increasing transformation
    of either variable. A constant variable has no ranking, and is refused.
    """
    x = _checks.vector(x, "x", min_size=2)
    y = _checks.vector(y, "y")
    if y.shape != x.shape:
        raise ValueError(f"y: expected the same length as x ({len(x)}), got {len(y)}")
    rx, ry = _average_ranks(x), _average_ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    for name, r in [("x", rx), ("y", ry)]:
        if not np.any(r):
            raise ValueError(f"{name}: is constant, and a constant variable has no rank correlation")
    return float(np.clip(rx @ ry / np.sqrt((rx @ rx) * (ry @ ry)), -1.0, 1.0))


@_meter("kNN accuracy", ".3f")
def knn_accuracy(
    X_ref: np.ndarray, y_ref: np.ndarray, X: np.ndarray, y: np.ndarray, k: int = 10
) -> float:
    """Share of the rows of ``X`` whose label is the majority label of their ``k`` most cosine-similar
    rows of ``X_ref`` (a tie goes to the smallest label). A per-query ranking: unlike
    :func:`pair_auc` it never compares cosines of different queries with each other.

    Cosines equal up to rounding tie; a tie for the ``k``-th place goes to the earlier rows of
    ``X_ref``, so the neighbours are well defined even when many cosines are equal.
    """
    X_ref = _checks.cloud(X_ref, name="X_ref")
    X = _checks.cloud(X)
    if X.shape[1] != X_ref.shape[1]:
        raise ValueError(f"X: expected {X_ref.shape[1]} columns like X_ref, got {X.shape[1]}")
    y_ref = _checks.labels(y_ref, len(X_ref), "y_ref", rows_of="X_ref")
    y = _checks.labels(y, len(X), "y", rows_of="X")
    k = _checks.integer(k, "k", 1, len(X_ref), why="at most the number of rows of X_ref")
    sims = _rankable(_unit_rows(X) @ _unit_rows(X_ref).T)
    kth = -np.partition(-sims, k - 1, axis=1)[:, k - 1 : k]  # each query's k-th largest cosine
    above, tied = sims > kth, sims == kth
    chosen = above | (tied & (np.cumsum(tied, axis=1) <= k - above.sum(axis=1, keepdims=True)))
    classes, ref_class = np.unique(y_ref, return_inverse=True)  # votes per class present, not per label value
    votes = chosen.astype(float) @ (ref_class[:, None] == np.arange(len(classes)))
    return float(np.mean(classes[votes.argmax(axis=1)] == y))


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
    groups = _checks.labels(groups, len(X), "groups")
    _, inverse, sizes = np.unique(groups, return_inverse=True, return_counts=True)
    pairs = len(X) ** 2 - int(np.sum(sizes.astype(np.int64) ** 2))
    if pairs == 0:
        raise ValueError("groups: every row is in the same group, so there is no pair from different groups")
    order = np.argsort(inverse, kind="stable")
    U = _unit_rows(X)
    per_group = np.add.reduceat(U[order], np.concatenate([[0], np.cumsum(sizes)[:-1]]), axis=0)
    return (U.sum(axis=0) ** 2 - np.sum(per_group**2, axis=0)) / pairs


@_meter("rank collapse", ".3f")
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


def _pair_rows(S: object, pairs: object, name: str = "pairs") -> tuple[np.ndarray, np.ndarray]:
    """Check a set of sentence vectors and the row indices of its pairs (paraphrases, or traps)."""
    S = _checks.cloud(S, name="S", min_rows=2)
    pairs = _checks.integers(pairs, name, ndim=2)
    if pairs.shape[1] != 2 or len(pairs) < 2:
        raise ValueError(f"{name}: expected an integer array of shape (P, 2) with P >= 2, got shape {pairs.shape}")
    if pairs.min() < 0 or pairs.max() >= len(S) or len(np.unique(pairs)) != pairs.size:
        raise ValueError(f"{name}: expected distinct row indices of S (0..{len(S) - 1})")
    return S, pairs


def _paraphrase_parts(S: object, pairs: object) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Unit rows of ``S``, the checked ``pairs``, and the paraphrase and unrelated cosines."""
    S, pairs = _pair_rows(S, pairs)
    U = _unit_rows(S)
    members = U[pairs.T.ravel()]
    G = members @ members.T  # every cosine among the 2P sentences
    P = len(pairs)
    para = G[np.arange(P), np.arange(P) + P]
    _, _, (a, b) = _unrelated_pairs(P)
    return U, pairs, para, G[a, b]


def _unrelated_pairs(n_pairs: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unrelated pairs among the ``2P`` sentences of ``P`` pairs: the paraphrase pairs ``i < j``
    they come from, and the two sentences as positions in ``pairs.T.ravel()``, four per ``(i, j)``."""
    i, j = np.triu_indices(n_pairs, k=1)
    a = np.stack([i, i, i + n_pairs, i + n_pairs], axis=1).ravel()
    b = np.stack([j, j + n_pairs, j, j + n_pairs], axis=1).ravel()
    return np.repeat(i, 4), np.repeat(j, 4), np.stack([a, b])


class ParaphraseCosines(NamedTuple):
    """Cosines of paraphrase pairs and of unrelated pairs (:func:`paraphrase_cosines`)."""

    paraphrase: np.ndarray
    unrelated: np.ndarray


def paraphrase_cosines(S: np.ndarray, pairs: np.ndarray) -> ParaphraseCosines:
    """Cosines of the ``P`` paraphrase pairs (rows ``pairs[p]`` of ``S``), and of every *unrelated*
    pair: two of the ``2P`` sentences that come from different paraphrase pairs."""
    _, _, para, unrelated = _paraphrase_parts(S, pairs)
    return ParaphraseCosines(para, unrelated)


RESAMPLED = ("auc", "top1", "trap_auc")  # the figures of a ParaphraseCheck that carry bootstrap draws


@dataclass(frozen=True)
class ParaphraseCheck:
    """:func:`paraphrase_check`: mean cosines of both kinds of pair, their AUC and top-1 retrieval;
    with ``traps``, the negation traps' mean cosine and ``trap_auc``; with ``rng``, bootstrap draws
    of the AUCs and of top-1 retrieval (``draws[name]``, one value per resample) and
    :meth:`interval`."""

    paraphrase_cosine: float
    unrelated_cosine: float
    auc: float
    top1: float
    trap_cosine: float | None = None
    trap_auc: float | None = None
    draws: dict[str, np.ndarray] | None = None
    resampling: str | None = None  # identifies the resamples, so that only paired checks are subtracted

    def interval(self, name: str, level: float = 0.95, minus: ParaphraseCheck | None = None) -> tuple[float, float]:
        """Bootstrap percentile interval of ``name`` (``"auc"``, ``"top1"`` or ``"trap_auc"``) at
        ``level``; with ``minus``, of the *difference* ``self - minus``, resample by resample (both
        checks must come from the same pairs and the same seed, so each resample compares the
        same sentences)."""
        if name not in RESAMPLED:
            raise ValueError(f"name: expected one of {RESAMPLED}, got {name!r}")
        level = _checks.real(level, "level", 0.0, 1.0)
        if not 0.0 < level < 1.0:
            raise ValueError(f"level: expected a probability strictly between 0 and 1, got {level}")
        values = self._draws(name)
        if minus is not None:
            _checks.instance(minus, ParaphraseCheck, "minus")
            if minus.resampling != self.resampling:
                raise ValueError("minus: was resampled differently; give both checks the same pairs, traps,"
                                 " rng seed and number of resamples")
            values = values - minus._draws(name)
        low, high = np.percentile(values, [50 * (1 - level), 50 * (1 + level)])
        return float(low), float(high)

    def _draws(self, name: str) -> np.ndarray:
        if self.draws is None:
            raise ValueError("this check has no bootstrap draws; call paraphrase_check with rng=<seed>")
        if name not in self.draws:
            raise ValueError(f"this check has no {name!r}: call paraphrase_check with traps")
        return self.draws[name]

    def readings(self) -> list[Reading]:
        readings = [Reading("paraphrase cosine", self.paraphrase_cosine, "+.3f"),
                    Reading("unrelated cosine", self.unrelated_cosine, "+.3f"),
                    Reading("paraphrase AUC", self.auc), Reading("top-1 retrieval", self.top1)]
        if self.trap_auc is not None:
            readings.append(Reading("AUC against negation traps", self.trap_auc))
        return readings


def paraphrase_check(
    S: np.ndarray,
    pairs: np.ndarray,
    traps: np.ndarray | None = None,
    rng: np.random.Generator | int | None = None,
    resamples: int = 1000,
) -> ParaphraseCheck:
    r"""A small semantic test: are paraphrases closer than unrelated sentences?

    ``S`` holds one embedding per sentence, ``pairs`` (shape ``(P, 2)``) the row indices of ``P``
    paraphrase pairs; unrelated pairs are as in :func:`paraphrase_cosines`. Returns the mean
    cosine of each kind, their AUC (the probability that a paraphrase pair has the higher cosine
    of the two, over every paraphrase/unrelated combination; ties count one half), and top-1
    retrieval: the share of the ``2P`` sentences whose most similar other row of ``S`` is their
    paraphrase. Every pair is used, so there is no sampling. Cosines equal up to rounding tie
    (in the AUC, and in retrieval, where a tie goes to the earlier row).

    ``traps`` (shape ``(T, 2)``, ``T >= 2``, rows of ``S`` not in ``pairs``): pairs of sentences that share
    most words but not the meaning (negation traps). Adds their mean cosine and the AUC of
    paraphrases against them: the probability that a paraphrase pair has the higher cosine.

    ``rng``: draw ``resamples`` bootstrap resamples of the paraphrase pairs (and, independently,
    of the traps), each pair drawn as often as its multinomial count, and recompute every AUC and
    top-1 retrieval on each resample: unrelated pairs are the pairs of sentences from two
    *different* drawn paraphrase pairs, weighted by how often both were drawn; retrieval still
    searches all rows of ``S``. The draws give :meth:`ParaphraseCheck.interval`. They are exact
    sums of counts, so they do not depend on the BLAS build; the same seed and pairs give the
    same resamples, so checks of two remedies on one seed are paired.
    """
    U, pairs, para, unrelated = _paraphrase_parts(S, pairs)
    C = _rankable(U @ U.T)
    np.fill_diagonal(C, -np.inf)
    nearest = C[pairs.T.ravel()].argmax(axis=1)
    partner = np.concatenate([pairs[:, 1], pairs[:, 0]])
    hits = (nearest == partner).reshape(2, -1).sum(axis=0)  # per paraphrase pair: 0, 1 or 2
    para_r, unrelated_r = _rankable(para), _rankable(unrelated)
    figures = dict(paraphrase_cosine=float(para.mean()), unrelated_cosine=float(unrelated.mean()),
                   auc=_auc(para_r, unrelated_r), top1=float(hits.sum() / (2 * len(pairs))))
    if traps is not None:
        _, traps = _pair_rows(S, traps, "traps")
        if np.isin(traps, pairs).any():
            raise ValueError("traps: share rows with pairs; a sentence is either in a paraphrase pair or in a trap")
        trap = _rankable(np.einsum("ij,ij->i", U[traps[:, 0]], U[traps[:, 1]]))
        figures.update(trap_cosine=float(trap.mean()), trap_auc=_auc(para_r, trap))
    if rng is None:
        return ParaphraseCheck(**figures)
    resamples = _checks.integer(resamples, "resamples", 2)
    rng = _checks.as_rng(rng)
    P = len(pairs)
    w = rng.multinomial(P, np.full(P, 1.0 / P), size=resamples).astype(float)
    draws = {"auc": _resampled_auc(para_r, unrelated_r, w), "top1": w @ hits / (2.0 * P)}
    fingerprint = [P, resamples]
    if traps is not None:
        T = len(traps)
        v = rng.multinomial(T, np.full(T, 1.0 / T), size=resamples).astype(float)
        wins = _wins(para_r, trap)  # (P, T): 1, 1/2 or 0
        draws["trap_auc"] = np.einsum("bp,pt,bt->b", w, wins, v) / (P * T)
        fingerprint.append(T)
    for values in draws.values():
        values.setflags(write=False)
    seed_state = rng.bit_generator.state  # after the draws: the same seed and sizes give the same state
    return ParaphraseCheck(**figures, draws=draws, resampling=repr((fingerprint, seed_state)))


def _wins(positive: np.ndarray, negative: np.ndarray) -> np.ndarray:
    """``(len(positive), len(negative))``: 1 where the positive score is higher, 1/2 on a tie."""
    return (positive[:, None] > negative[None, :]) + 0.5 * (positive[:, None] == negative[None, :])


def _resampled_auc(para: np.ndarray, unrelated: np.ndarray, w: np.ndarray, block: int = 256) -> np.ndarray:
    """The paraphrase AUC on each resample (rows of ``w``: how often each pair is drawn).

    Unrelated pair ``n`` joins pairs ``i(n) < j(n)`` and counts ``w_i w_j`` times; paraphrase pair
    ``p`` counts ``w_p`` times. Wins are summed per ``(p, (i, j))`` once (a ``P x P(P-1)/2`` table),
    then weighted per resample; every term is a multiple of 1/2 far below 2**53, so the sums are
    exact in any order.
    """
    P = len(para)
    i, j, _ = _unrelated_pairs(P)
    four = unrelated.reshape(-1, 4)[None, :, :]  # the four unrelated pairs of each (i, j)
    K = np.sum(para[:, None, None] > four, axis=2) + 0.5 * np.sum(para[:, None, None] == four, axis=2)
    first, second = i[::4], j[::4]
    out = np.empty(len(w))
    for start in range(0, len(w), block):
        wt = np.ascontiguousarray(w[start : start + block].T)  # (P, block): rows index fast
        out[start : start + block] = np.einsum("kb,kb->b", K.T @ wt, wt[first] * wt[second])
    pairs_weight = w.sum(axis=1)
    unrelated_weight = 4.0 * (pairs_weight**2 - np.sum(w**2, axis=1)) / 2.0
    return out / (pairs_weight * unrelated_weight)
