"""The report's two streaming passes over row chunks: moments (pass 1) and log partition (pass 2).

:func:`measure` runs them on a :class:`~shared.report.rows.Rows` (each chunk is summarised on its own
and the summaries are merged in row order); :func:`uniformity_of_sample` reads uniformity and its
standard error from the rows pass 1 sampled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import _checks
from ..meters import check_unique_eigenvectors, pair_uniformity
from .progress import Progress
from .rows import Rows

_BLOCK_BYTES = 6 * 2**20  # pass 2 projects blocks of rows whose projections take about 6 MiB


def projection_block_rows(d: int, dtype: np.dtype | type | str) -> int:
    """Rows per block of pass 2's projections: about 6 MiB of projections on ``d`` directions in ``dtype``."""
    d = _checks.integer(d, "d", 1)
    return max(64, _BLOCK_BYTES // (d * np.dtype(dtype).itemsize))


# ----- the two passes --------------------------------------------------------------------------
#
# Each chunk is summarised on its own (its rows divided by a power of two near the chunk's largest
# entry, which is exact in floating point, then every product and sum in float64 unless
# compute_dtype=float32 asks for float32 products), and the summaries are merged in row order. A
# summary at scale 2**e is brought to a larger scale 2**E by multiplying by 2**(e - E), again exact
# (up to underflow of terms far below the largest entry, which the in-memory meters lose as well).
# So no square overflows or underflows at any scale a float can hold, and the same summaries can be
# computed anywhere: in this process, or by dask on the blocks of a dask array.


@dataclass
class _Moments:
    """Pass 1 over some consecutive rows: everything but ``unit_sum`` and ``sample`` is of the rows
    divided by ``2**exponent``."""

    exponent: int
    count: int
    mean: np.ndarray
    scatter: np.ndarray
    sum_squares: float
    unit_sum: np.ndarray
    nonzero: int
    top_norms: list[tuple[int, float]]  # (first row, largest row norm) per chunk, at ``exponent``
    sample: np.ndarray  # unit rows of the sampled rows, in row order
    rows: np.ndarray  # the sampled rows as they are (float64), zero rows too, in row order (if kept)


def _rescaled(m: _Moments, exponent: int) -> _Moments:
    """``m`` at the scale ``2**exponent`` (``exponent >= m.exponent``): multiplied by powers of two."""
    shift = m.exponent - exponent
    if shift == 0:
        return m
    return _Moments(
        exponent, m.count, np.ldexp(m.mean, shift), np.ldexp(m.scatter, 2 * shift),
        math.ldexp(m.sum_squares, 2 * shift), m.unit_sum, m.nonzero,
        [(s, math.ldexp(t, shift)) for s, t in m.top_norms], m.sample, m.rows,
    )


def _merge(a: _Moments, b: _Moments) -> _Moments:
    """Rows ``a`` followed by rows ``b``: Chan, Golub & LeVeque's update at the larger of the two scales."""
    exponent = max(a.exponent, b.exponent)
    a, b = _rescaled(a, exponent), _rescaled(b, exponent)
    count = a.count + b.count
    delta = b.mean - a.mean
    scatter = a.scatter + b.scatter + (a.count * b.count / count) * np.outer(delta, delta)
    return _Moments(
        exponent, count, a.mean + delta * (b.count / count), scatter, a.sum_squares + b.sum_squares,
        a.unit_sum + b.unit_sum, a.nonzero + b.nonzero, a.top_norms + b.top_norms,
        np.concatenate([a.sample, b.sample]), np.concatenate([a.rows, b.rows]),
    )


def _exponent_of_max(raw: np.ndarray, name: str, start: int) -> tuple[np.ndarray, int]:
    """The chunk in float64 and the exponent ``e`` of the power of two ``2**e <= max|x| < 2**(e+1)``."""
    X = np.array(raw, dtype=np.float64, order="C")  # a copy: it is scaled in place
    top = max(float(X.max()), -float(X.min()))
    if not math.isfinite(top):
        bad = ~np.all(np.isfinite(X), axis=1)
        row = start + int(np.argmax(bad))
        raise ValueError(
            f"{name}: row {row:,} (in the chunk of rows {start:,} to {start + len(X) - 1:,}) contains NaN "
            "or infinite values"
        )
    return X, (math.frexp(top)[1] - 1 if top > 0 else 0)


def _scale(X: np.ndarray, exponent: int) -> np.ndarray:
    """``X`` times ``2**-exponent``, in place: exact (a product with a power of two), up to underflow."""
    if -1000 < exponent < 1000:  # 2**-exponent is a float: one multiplication, faster than ldexp
        return np.multiply(X, 2.0**-exponent, out=X)
    return np.ldexp(X, -exponent, out=X)


#: A row whose squared norm, scaled with its chunk, is below this may have lost bits to underflow:
#: its norm is taken after a power of two of its own instead (as shared.meters.unit_rows does).
_TINY_SQUARES = 2.0**-900


def _chunk_moments(raw: np.ndarray, start: int, sample_idx: np.ndarray, wd: np.dtype, name: str,
                   keep_rows: bool = False) -> _Moments:
    """Pass 1 on one chunk whose first row is row ``start`` (``keep_rows``: the sampled rows as they are, too)."""
    X, exponent = _exponent_of_max(raw, name, start)
    k, d = X.shape
    Xs = _scale(X, exponent)  # largest entry in [1, 2)
    squares = np.einsum("ij,ij->i", Xs, Xs)
    # unit rows, from the scaled rows; a row far below the chunk's largest entry (or zero) is
    # normalised on its own, from its entries divided by a power of two near its largest one
    normal = squares >= _TINY_SQUARES
    inverse = np.zeros(k)
    np.divide(1.0, np.sqrt(squares), out=inverse, where=normal)
    unit_sum = inverse @ Xs
    nonzero = int(np.count_nonzero(normal))
    lo, hi = np.searchsorted(sample_idx, [start, start + k])
    picked = sample_idx[lo:hi] - start
    sampled_rows = np.array(raw[picked] if keep_rows else raw[:0], dtype=np.float64).reshape(-1, d)
    sample = Xs[picked] * inverse[picked, None]
    keep = normal[picked]
    small = np.flatnonzero(~normal)
    if small.size:
        R = np.array(raw[small], dtype=np.float64)
        R /= _checks.power_of_two(R, axis=1)
        norms = np.sqrt(np.einsum("ij,ij->i", R, R))
        np.divide(R, norms[:, None], out=R, where=norms[:, None] > 0)
        R[norms == 0] = 0.0
        unit_sum = unit_sum + R.sum(axis=0)
        nonzero += int(np.count_nonzero(norms))
        at = np.minimum(np.searchsorted(small, picked), small.size - 1)
        is_small = small[at] == picked
        sample[is_small] = R[at[is_small]]
        keep |= is_small & (norms[at] > 0)
    sample = sample[keep]

    # Centre on a provisional mean, then measure what is left: r, the mean of the centred rows, is
    # small, so its rounding is relative to the spread, not to the offset. The chunk mean is
    # shift + r, and the scatter about it is Xc^T Xc - k r r^T (exact algebra for any shift).
    shift = Xs.mean(axis=0)
    Xc = np.subtract(Xs, shift, out=Xs)
    r = Xc.mean(axis=0)
    P = Xc if wd == np.float64 else Xc.astype(wd)
    scatter = (P.T @ P).astype(np.float64) - k * np.outer(r, r)
    return _Moments(
        exponent, k, shift + r, scatter, float(squares.sum()), unit_sum, nonzero,
        [(start, float(math.sqrt(squares.max())))], sample, sampled_rows,
    )


@dataclass
class _LogPartition:
    r"""Pass 2 over some rows: :math:`\log Z = \mathrm{top} + \log \mathrm{total}` per direction and sign."""

    top: np.ndarray
    total: np.ndarray


def _merge_log_partition(a: _LogPartition, b: _LogPartition) -> _LogPartition:
    top = np.maximum(a.top, b.top)
    with np.errstate(invalid="ignore"):  # -inf - -inf where neither side has rows yet
        wa, wb = np.exp(a.top - top), np.exp(b.top - top)
    return _LogPartition(top, np.nan_to_num(wa) * a.total + np.nan_to_num(wb) * b.total)


def _chunk_log_partition(
    raw: np.ndarray, exponent: int, Ct: np.ndarray, bound: float, wd: np.dtype
) -> _LogPartition:
    r""":math:`\log Z(c)` for every row ``c`` of ``Ct``, then every ``-c``, over one chunk divided by ``2**exponent``.

    ``bound`` bounds :math:`|c^\top x|` on the chunk; when ``exp`` of it times the rows of a block
    cannot overflow, the block needs no shift and :math:`e^{-p}` is :math:`1/e^{p}` (one ``exp`` for
    both signs); otherwise each direction is shifted by its own maximum. Blocks of about 6 MiB of
    projections keep the elementwise work in cache.
    """
    d = Ct.shape[0]
    out = _LogPartition(np.full(2 * d, -np.inf), np.zeros(2 * d))
    largest = math.log(np.finfo(wd).max)
    block = projection_block_rows(d, wd)
    for a in range(0, len(raw), block):
        X = _scale(np.array(raw[a : a + block], dtype=np.float64), exponent).astype(wd, copy=False)
        P = Ct @ X.T  # (d, rows): one direction per row, so each sum runs along memory
        if bound <= largest - math.log(len(X)) - 1.0:
            np.exp(P, out=P)
            pos = P.sum(axis=1, dtype=np.float64)
            np.reciprocal(P, out=P)
            neg = P.sum(axis=1, dtype=np.float64)
            part = _LogPartition(np.zeros(2 * d), np.concatenate([pos, neg]))
        else:
            high, low = P.max(axis=1), P.min(axis=1)
            pos = np.exp(P - high[:, None]).sum(axis=1, dtype=np.float64)
            neg = np.exp(low[:, None] - P).sum(axis=1, dtype=np.float64)
            part = _LogPartition(np.concatenate([high, -low]).astype(np.float64), np.concatenate([pos, neg]))
        out = _merge_log_partition(out, part)
    return out


@dataclass
class _Found:
    """What the passes over one matrix found: meters' inputs, scale-free (the rows divided by ``2**exponent``)."""

    moments: _Moments
    eigs: np.ndarray  # covariance spectrum of the scaled rows
    partition: float
    partition_note: str
    passes: int


def measure(
    rows: Rows, wd: np.dtype, chunk_rows: int, sample_idx: np.ndarray, partition: bool, bar: Progress,
    keep_rows: bool = False,
) -> _Found:
    """Pass 1 (moments, unit-row sum, row sample, and the sampled rows as they are if ``keep_rows``),
    the spectrum, then pass 2 (partition isotropy) if defined."""
    name = rows.name
    m = rows.reduce(
        lambda start, raw: _chunk_moments(raw, start, sample_idx, wd, name, keep_rows), _merge, chunk_rows,
        lambda k: bar.advance(1, k),
    )
    eigs = np.clip(np.linalg.eigvalsh(m.scatter / m.count)[::-1], 0.0, None)
    # the rule of shared._checks.flat, which the in-memory meters apply: the centred rows at rounding level
    if m.count * eigs.sum() <= (max(m.count, rows.d) * _checks.EPS) ** 2 * m.sum_squares:
        raise ValueError(
            f"{name}: all points coincide (up to rounding), so the covariance spectrum, the ranks and IsoScore "
            "are undefined; pass points that differ"
        )
    value, note, passes = math.nan, "", 1
    if not partition:
        note = "not computed (partition=False)"
    else:
        w, V = np.linalg.eigh(m.scatter + m.count * np.outer(m.mean, m.mean))  # X^T X, uncentred
        try:
            check_unique_eigenvectors(w)
        except ValueError as err:
            note = "undefined: " + str(err).removeprefix("X: ").split(";")[0]
        else:
            rms = math.sqrt(m.sum_squares / (m.count * rows.d))
            Ct = np.ascontiguousarray((V / rms).T, dtype=wd)
            bounds = dict(m.top_norms)
            E = m.exponent
            log_z = rows.reduce(
                lambda start, raw: _chunk_log_partition(raw, E, Ct, bounds[start] / rms, wd),
                _merge_log_partition, chunk_rows, lambda k: bar.advance(2, k),
            )
            log_z = log_z.top + np.log(log_z.total)
            value, passes = float(np.exp(log_z.min() - log_z.max())), 2
    return _Found(moments=m, eigs=eigs, partition=value, partition_note=note, passes=passes)


# ----- uniformity from a sample of rows -------------------------------------------------------


def uniformity_of_sample(U: np.ndarray, population: int, exact: bool) -> tuple[float, float]:
    r"""Uniformity over all pairs of the unit rows ``U`` and its standard error (0 if ``exact``).

    The value and the row sums :math:`r_i` come from :func:`shared.meters.pair_uniformity`, with
    :math:`T = \tfrac12\sum_i r_i`. Leaving row ``i`` out gives :math:`\theta_{(i)} = \log((T - r_i)/P_{K-1})`,
    :math:`P_K = K(K-1)/2`; the jackknife variance :math:`\tfrac{K-1}{K}\sum_i(\theta_{(i)} - \bar\theta)^2`
    (Arvesen 1969, for U-statistics) times :math:`1 - K/m` for sampling ``K`` of ``m`` rows without
    replacement.
    """
    K = len(U)
    if K < 2:
        return math.nan, math.nan
    value, r = pair_uniformity(U)
    if exact or K < 3:
        return value, 0.0
    loo = np.log((r.sum() / 2.0 - r) / ((K - 1) * (K - 2) / 2.0))
    variance = (K - 1) / K * np.sum((loo - loo.mean()) ** 2) * max(0.0, 1.0 - K / population)
    return value, float(math.sqrt(variance))
