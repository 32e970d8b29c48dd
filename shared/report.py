r"""Is *your* embedding space a cone? :func:`isotropy_report` puts notebook 01's six meters on any matrix.

The matrix may be far larger than memory (say 1,000,000 x 768 float32, 3 GB in a ``.npy`` file): it is
read in row chunks, at most twice, and the memory used is :math:`O(d^2)` plus one chunk.

* **Pass 1** accumulates the mean, the centred scatter matrix (merged chunk by chunk with the update
  of Chan, Golub & LeVeque 1979, never as :math:`E[xx^\top] - \mu\mu^\top`, which cancels for a cone
  with a large mean), the sum of the unit rows (the exact mean cosine), and a random sample of rows
  (uniformity). Ranks and IsoScore follow from the covariance spectrum.
* **Pass 2** is needed only by partition isotropy: it projects every row on the eigenvectors of
  :math:`X^\top X` found after pass 1 and keeps a running log-sum-exp per direction.

The report compares every meter with a Gaussian of the same size (same ``n`` and ``d``) and applies
notebook 01's rules (the ✓/✗ of its "which meter lies when" table); ``print(report)`` shows the table,
which failure and the verdict, ``print(report.details())`` also the rules and the baseline's provenance.
"""

from __future__ import annotations

import math
import mmap
import textwrap
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable, Literal

import numpy as np

from . import _checks
from .meters import METERS, Meters, check_unique_eigenvectors, effective_rank, entropy_rank, isoscore_of_spectrum
from .meters import pair_uniformity
from .yardstick import (
    FAILURE_NAMES,
    LOOK_AT_RAW_VECTORS,
    failures,
    format_value,
    gaussian_uniformity,
    mark,
    meter_cells,
    rules_text,
    table_row,
    verdicts,
    wishart_gaussian_meters,
)

BaselineMethod = Literal["auto", "sample", "wishart"]

_CHUNK_BYTES = 48 * 2**20  # default chunk: about 48 MiB of rows in the compute dtype
_SAMPLE_LIMIT = 2 * 10**6  # "auto" baseline: a real Gaussian sample up to this many entries
_CLT_MIN_ROWS = 1000  # ... and always below this many rows, where the Wishart model's CLT is too rough
_PROGRESS_ENTRIES = 10**8  # progress=None shows a progress line from this many entries on
_GAUSSIAN_BLOCK = 4096  # rows per seeded block of the sampled Gaussian baseline
_BLOCK_BYTES = 6 * 2**20  # pass 2 projects blocks of rows whose projections take about 6 MiB


# ----- results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """One meter on the user's matrix against the same-size Gaussian, by notebook 01's rule.

    ``isotropic`` is ``None`` when the meter is undefined; ``sees`` is ``"offset"`` for a meter that
    looks at the raw vectors (a shared offset moves it) and ``"spread"`` for one that centres first.
    """

    meter: str
    value: float
    baseline: float
    isotropic: bool | None
    sees: Literal["offset", "spread"]
    fmt: str


@dataclass(frozen=True)
class IsotropyReport:
    r"""What :func:`isotropy_report` measured. ``print(report)`` shows :meth:`table` (the meters beside the
    Gaussian, which failure, the verdict); ``print(report.details())`` adds how each number was obtained.

    ``meters`` are the user's six meters and ``baseline`` those of a Gaussian with the same ``n`` and
    ``d`` (``None`` when no baseline was asked for); ``baseline_method`` says how it was obtained.
    ``mean`` and ``eigs`` are the mean vector and the covariance spectrum (descending, as
    :func:`shared.meters.cov_eigs`; variances beyond the float64 range, of entries beyond about
    1e154 or below 1e-154, read ``inf`` or 0 there, while the meters are computed on the rows divided
    by a power of two and are exact at every scale); ``mean_share`` is :math:`\|\bar x\|^2 / \overline{\|x\|^2}`, the share
    of the average squared norm that the mean vector carries (0 for a centred cloud, 1 when every row
    is the same). ``partition_note`` says why partition isotropy is ``nan`` (empty when it is defined).
    The mean cosine is exact (all ``n_nonzero (n_nonzero - 1)`` ordered pairs of distinct non-zero
    rows); uniformity is estimated from ``uniformity_rows`` random non-zero rows, all pairs among them,
    with standard error ``uniformity_se`` (0 when every row was used, so the value is exact).
    """

    n: int
    d: int
    dtype: str
    compute_dtype: str
    chunk_rows: int
    passes: int
    zero_rows: int
    meters: Meters
    baseline: Meters | None
    baseline_method: str
    partition_note: str
    uniformity_se: float
    uniformity_rows: int
    mean_share: float
    seed: int | None
    mean: np.ndarray = field(repr=False)
    eigs: np.ndarray = field(repr=False)

    def verdicts(self) -> tuple[Verdict, ...]:
        """Notebook 01's ✓/✗ for each meter against the same-size Gaussian (empty without a baseline)."""
        if self.baseline is None:
            return ()
        marks = verdicts(self.meters, self.baseline)
        return tuple(
            Verdict(meter=meter.label, value=getattr(self.meters, meter.__name__),
                    baseline=getattr(self.baseline, meter.__name__), isotropic=marks[meter.__name__],
                    sees="offset" if meter.__name__ in LOOK_AT_RAW_VECTORS else "spread", fmt=meter.fmt)
            for meter in METERS
        )

    def diagnosis(self) -> str:
        """One sentence in notebook 01's words: a cone (a shared offset), a collapsed spread, both, or neither."""
        if self.baseline is None:
            return "no baseline, so no verdict"
        m, b = self.meters, self.baseline
        marks = verdicts(m, b)
        offset, spread_failed = failures(marks)
        lean = (
            f"the rows lean one way (mean cosine {m.mean_cosine:+.3f}; the mean vector carries "
            f"{100 * self.mean_share:.0f}% of the average squared norm)"
        )
        narrow = (
            f"the variance around the mean is spread more unevenly over the directions than a Gaussian's "
            f"(effective rank {m.effective_rank:.1f} of {self.d}, against {b.effective_rank:.1f} for the Gaussian)"
        )
        if offset and spread_failed:
            return f"a cone with a collapsed spread: {lean}, and {narrow}."
        if offset:
            return (
                f"a cone: {lean}, while the spread around the mean is as even as the Gaussian's by the effective "
                "rank. Subtracting the mean vector removes the cone (notebook 06)."
            )
        if spread_failed:
            return (
                f"a collapsed spread, not a cone: {narrow}, though the rows do not lean one way (mean cosine "
                f"{m.mean_cosine:+.3f}). Subtracting the mean will not change this; whitening evens the spread on the rows "
                "it is fitted on (notebook 06), so check it on held-out rows (notebook 07)."
            )
        odd = [meter.label for meter in METERS if marks[meter.__name__] is False]
        if odd:
            return (
                f"neither failure by the mean cosine and the effective rank, but {' and '.join(odd)} "
                "differ from the Gaussian: look at how the points are distributed, not only at the mean and "
                "the spectrum."
            )
        return "as isotropic as a Gaussian of the same size, by all six meters."

    def table(self) -> str:
        """The learner's view: notebook 01's meters beside the same-size Gaussian, which failure, and
        the verdict. :meth:`details` adds how every number was obtained."""
        lines = [f"isotropy report: {self.n:,} rows x {self.d:,} dimensions ({self.dtype})", *self._rows(), ""]
        if self.baseline is not None:
            lines.append(f"which failure: {FAILURE_NAMES[failures(verdicts(self.meters, self.baseline))]}")
        lines += textwrap.wrap(f"verdict: {self.diagnosis()}", width=110)
        if self.uniformity_sampled:
            lines.append(f"(uniformity: all pairs of {self.uniformity_rows:,} random rows, ± its standard error)")
        if self.baseline is not None:
            lines.append("(✓ = isotropic by notebook 01's rules; report.details() shows them and how the baseline was drawn)")
        return "\n".join(lines)

    def details(self) -> str:
        """:meth:`table` with its provenance: the passes and chunks, notebook 01's rules, how the Gaussian
        baseline was obtained (seed, Wishart draw or sample, the exact uniformity by 0F1), the pairs the
        mean cosine and uniformity use, and each meter grouped by what it sees."""
        lines = [
            f"isotropy report: {self.n:,} rows x {self.d:,} dimensions ({self.dtype}); {self.passes} "
            f"pass{'es' if self.passes > 1 else ''} in chunks of {self.chunk_rows:,} rows, products in "
            f"{self.compute_dtype}, sums in float64",
            *self._rows(),
            "",
        ]
        if self.baseline is not None:
            lines += textwrap.wrap(f"✓ = isotropic by this meter (notebook 01's rules): {rules_text()}.", width=110)
            lines.append(f"baseline: {self.baseline_method}")
        lines.append(self._method_line())
        if self.partition_note:
            lines.append(f"partition I: {self.partition_note}")
        if self.baseline is not None:
            lines.append("")
            for sees, heading in (
                ("offset", "meters that look at the raw vectors (a shared offset moves all three; partition I and "
                 "uniformity also react to an uneven spread):"),
                ("spread", "meters that centre first (they see only how the variance is spread):"),
            ):
                lines.append(heading)
                for v in self.verdicts():
                    if v.sees == sees:
                        value, base = format_value(v.value, v.fmt), format_value(v.baseline, v.fmt)
                        lines.append(f"  {mark(v.isotropic)} {v.meter:15s} {value:>9s} vs {base:>9s}")
            lines.append("")
            lines += textwrap.wrap(f"verdict: {self.diagnosis()}", width=110)
        return "\n".join(lines)

    def _rows(self) -> list[str]:
        """The table's heading, the Gaussian's row (when there is a baseline) and the matrix's row."""
        rows = [table_row("", [meter.label for meter in METERS], 24, 17)]
        marks = None
        if self.baseline is not None:
            rows.append(table_row("Gaussian, same n and d", meter_cells(self.baseline, None), 24, 17))
            marks = verdicts(self.meters, self.baseline)
        texts = {"uniformity": f"{self.meters.uniformity:.3f}±{self.uniformity_se:.3f}"} if self.uniformity_sampled else {}
        rows.append(table_row("your matrix", meter_cells(self.meters, marks, texts), 24, 17))
        return rows

    @property
    def uniformity_sampled(self) -> bool:
        """Whether uniformity is an estimate from a sample of the non-zero rows (else it is exact)."""
        return self.uniformity_rows < self.n - self.zero_rows

    def _method_line(self) -> str:
        nonzero = self.n - self.zero_rows
        zero = f"; {self.zero_rows:,} zero rows have no direction and are left out of both" if self.zero_rows else ""
        if self.uniformity_sampled:
            seed = f"seed {self.seed}" if self.seed is not None else "from the given Generator"
            how = f"{self.uniformity_rows:,} random rows ({seed}), all pairs, ± jackknife standard error"
        else:
            how = "every row, all pairs (exact)"
        return f"mean cosine: exact over all {nonzero * (nonzero - 1):,} ordered pairs; uniformity: {how}{zero}."

    def __str__(self) -> str:
        return self.table()


# ----- the public function ---------------------------------------------------------------------


def isotropy_report(
    source: np.ndarray | str | os.PathLike[str],
    rng: np.random.Generator | int,
    *,
    chunk_rows: int | None = None,
    compute_dtype: type[np.floating] | str | None = None,
    partition: bool = True,
    uniformity_rows: int = 4000,
    baseline: BaselineMethod | None = "auto",
    progress: bool | None = None,
) -> IsotropyReport:
    r"""Notebook 01's six meters on any embedding matrix, in at most two streaming passes over row chunks.

    ``source`` is a 2-D array (``n`` points x ``d`` dimensions), a path to a ``.npy`` file (``str``,
    ``bytes`` or ``os.PathLike``), a ``numpy.memmap``, or a ``dask.array`` (each pass then summarises
    its row blocks with dask, where dask runs them, and merges the summaries; ``chunk_rows``, if given,
    re-chunks it). A masked array is measured only when no entry is masked (the meters have no rule
    for a missing entry; :mod:`shared._checks`). A path, or a memmap of a whole file, is read chunk by chunk with ordinary file
    reads into one reused buffer, so resident memory stays at one chunk (reading through a memory map
    would keep every touched page resident). A Fortran-ordered ``.npy`` is read the same way, with ``d``
    column reads per chunk of rows. ``rng`` (a Generator or an int seed) draws the uniformity sample
    and the baseline.

    What is computed, and how it equals the in-memory meters of :mod:`shared.meters`:

    * ``eigs``: covariance spectrum :math:`\Sigma = \tfrac1n \sum_i (x_i - \bar x)(x_i - \bar x)^\top` as
      :func:`~shared.meters.cov_eigs`. Each chunk ``B`` (``k`` rows, mean :math:`\bar x_B`, centred scatter
      :math:`M_B`) is merged into the running ``(n_A, \bar x_A, M_A)`` by Chan et al.'s update
      :math:`M = M_A + M_B + \tfrac{n_A k}{n_A + k}\,\delta\delta^\top`, :math:`\delta = \bar x_B - \bar x_A`.
    * ``effective_rank`` (participation ratio), ``entropy_rank`` (Roy & Vetterli 2007) and ``isoscore``
      (Rudman et al. 2022, arXiv:2108.07344; :math:`(PR - 1)/(d - 1)`) of that spectrum.
    * ``mean_cosine``: exact, over all ordered pairs of distinct rows (Ethayarajh 2019,
      arXiv:1909.00512, estimates it from random pairs): with unit rows :math:`u_i`,
      :math:`\sum_{i \ne j} u_i^\top u_j = \|\sum_i u_i\|^2 - m`, divided by :math:`m(m-1)`. A zero row
      has no direction: the ``m`` rows counted are the non-zero ones (``zero_rows`` says how many were
      left out), so padding rows do not dilute the value; fewer than two non-zero rows are refused
      (the toolkit's one rule for zero rows, :mod:`shared._checks`). This is
      :func:`~shared.meters.cross_group_cosines` summed, on the non-zero rows, each its own group.
    * ``partition_isotropy``: the course's :func:`~shared.meters.partition_isotropy` (Mu & Viswanath 2018,
      arXiv:1702.01417, with ``c`` and ``-c`` and rows divided by the RMS entry): pass 2 streams
      :math:`\log Z(\pm c) = \log\sum_i e^{\pm c^\top x_i/\mathrm{rms}}` with a running log-sum-exp over the
      eigenvectors ``c`` of the uncentred :math:`X^\top X = M + n\bar x\bar x^\top`. When two positive
      eigenvalues coincide the eigenvectors are not unique: the value is then ``nan``, pass 2 is
      skipped and ``partition_note`` says why (``partition=False`` skips it on purpose).
    * ``uniformity`` (Wang & Isola 2020, arXiv:2005.10242): :math:`\log \operatorname{mean}_{i<j}
      e^{-2\|u_i - u_j\|^2}` over all pairs of ``uniformity_rows`` non-zero rows drawn at random without
      replacement (all of them when there are fewer: then it is exact and equals
      :func:`~shared.meters.uniformity`). ``uniformity_se`` is the jackknife standard error of this
      U-statistic (leave one row out), times the finite-population factor :math:`\sqrt{1 - K/m}`.

    Every chunk is first divided by a power of two near its largest entry (exact in floating point),
    and each row by one near its own largest entry before its norm is taken, so no square overflows
    or underflows: the values equal the in-memory meters from the smallest to the largest float, in
    either memory order. ``compute_dtype`` is the dtype of the two large matrix products (the
    chunk's scatter :math:`X_c^\top X_c` and pass 2's projections); every other sum, and every sum
    across chunks, is float64. ``None`` (float64) agrees with the in-memory meters to rounding
    (1e-9 relative or better); ``np.float32`` is about twice as fast on float32 data and agrees to
    about 1e-5 relative (the printed three decimals). ``chunk_rows`` defaults to about 48 MiB of
    float64 rows.

    ``baseline`` is how the Gaussian of the same ``n`` and ``d`` is obtained (the method is stated in
    ``baseline_method`` and printed): ``"sample"`` streams a seeded N(0, I) matrix through the same two
    passes; ``"wishart"`` draws the Gaussian's scatter matrix directly (Bartlett decomposition of the
    Wishart law, :math:`O(d^3)`, no rows) for the spectrum meters, and obtains partition isotropy from
    that draw with a central-limit model of the sums :math:`Z(\pm c)`; ``"auto"`` samples up to
    2e6 entries (or below 1,000 rows) and uses the Wishart draw beyond. Either way the mean cosine
    baseline is 0 and the uniformity baseline is the exact value for uniform directions,
    :math:`-4 + \log {}_0F_1(; d/2; 4)` (a Bessel function: :math:`\mathbb E\, e^{4\cos} =
    \Gamma(\tfrac d2)\,(2/4)^{d/2-1} I_{d/2-1}(4)`). ``None``: no baseline and no verdicts.

    ``progress`` writes one updating line to stderr; ``None`` shows it only from 1e8 entries on, so
    runs of course-sized clouds print nothing.
    """
    if chunk_rows is not None:
        chunk_rows = _checks.integer(chunk_rows, "chunk_rows", 1)
    rows = _open(source, chunk_rows)
    wd = _compute_dtype(compute_dtype, rows.dtype)
    if isinstance(rows, _DaskRows):
        chunk_rows = rows.block_rows
    elif chunk_rows is None:
        chunk_rows = default_chunk_rows(rows.d)
    uniformity_rows = _checks.integer(uniformity_rows, "uniformity_rows", 2)
    partition = _checks.flag(partition, "partition")
    if baseline is not None and not isinstance(baseline, str):
        raise TypeError(f"baseline: expected 'auto', 'sample', 'wishart' or None, got {baseline!r}")
    if baseline not in ("auto", "sample", "wishart", None):
        raise ValueError(f"baseline: expected 'auto', 'sample', 'wishart' or None, got {baseline!r}")
    if progress is None:
        progress = rows.n * rows.d >= _PROGRESS_ENTRIES
    progress = _checks.flag(progress, "progress")
    seed = int(rng) if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) else None
    rng = _checks.as_rng(rng)

    sample_idx = np.sort(rng.choice(rows.n, size=min(uniformity_rows, rows.n), replace=False))
    bar = _Progress(rows.n, 2 if partition else 1, enabled=bool(progress))
    found = _measure(rows, wd, chunk_rows, sample_idx, partition, bar)
    bar.close()

    moments = found.moments
    m = moments.nonzero
    _checks.enough_directions(m, rows.n, "source")  # the mean cosine and uniformity need two directions
    if len(moments.sample) < 2:  # the rows drawn for uniformity were nearly all zero rows
        raise ValueError(
            f"uniformity_rows: of the {len(sample_idx):,} rows drawn for uniformity only {len(moments.sample)} "
            f"{'is' if len(moments.sample) == 1 else 'are'} non-zero ({rows.n - m:,} rows of source are zero rows, "
            "which have no direction); pass a larger uniformity_rows"
        )
    mean_cosine = (moments.unit_sum @ moments.unit_sum - m) / (m * (m - 1.0))
    mean_cosine = float(np.clip(mean_cosine, -1.0 / (m - 1), 1.0))  # its bounds, which rounding may cross
    uni, uni_se = _uniformity_of_sample(moments.sample, population=m, exact=len(moments.sample) == m)
    meters = Meters(
        partition_isotropy=found.partition,
        mean_cosine=mean_cosine,
        effective_rank=effective_rank(found.eigs),
        entropy_rank=entropy_rank(found.eigs),
        isoscore=isoscore_of_spectrum(found.eigs),
        uniformity=uni,
    )
    base, method = gaussian_baseline(baseline, rows.n, rows.d, rng, wd)
    with np.errstate(over="ignore", under="ignore"):  # squares beyond float64 (entries past 1e154): inf, as said
        eigs = np.ldexp(found.eigs, 2 * moments.exponent)
    return IsotropyReport(
        n=rows.n,
        d=rows.d,
        dtype=str(rows.dtype),
        compute_dtype=str(wd),
        chunk_rows=chunk_rows,
        passes=found.passes,
        zero_rows=rows.n - m,
        meters=meters,
        baseline=base,
        baseline_method=method,
        partition_note=found.partition_note,
        uniformity_se=uni_se,
        uniformity_rows=len(moments.sample),
        mean_share=float(moments.mean @ moments.mean / (moments.sum_squares / rows.n)),
        seed=seed,
        mean=np.ldexp(moments.mean, moments.exponent),
        eigs=eigs,
    )


def default_chunk_rows(d: int) -> int:
    """Rows per chunk when ``chunk_rows`` is not given: about 48 MiB of float64 rows of ``d`` entries."""
    d = _checks.integer(d, "d", 1)
    return max(64, _CHUNK_BYTES // (d * 8))


def projection_block_rows(d: int, dtype: np.dtype | type | str) -> int:
    """Rows per block of pass 2's projections: about 6 MiB of projections on ``d`` directions in ``dtype``."""
    d = _checks.integer(d, "d", 1)
    return max(64, _BLOCK_BYTES // (d * np.dtype(dtype).itemsize))


def row_chunks(source: np.ndarray | str | os.PathLike[str], chunk_rows: int) -> Iterator[tuple[int, np.ndarray]]:
    """``(first row, chunk)`` for consecutive chunks of ``chunk_rows`` rows of ``source``, read as
    :func:`isotropy_report` reads them (a ``.npy`` path: ordinary file reads into one reused buffer,
    so a chunk is valid until the next one is read)."""
    chunk_rows = _checks.integer(chunk_rows, "chunk_rows", 1)
    yield from _open(source, chunk_rows).chunks(chunk_rows)


def _compute_dtype(value: object, stored: np.dtype) -> np.dtype:
    """The dtype of the products inside a chunk: float32 or float64."""
    if value is None:
        return np.dtype(np.float64)
    try:
        wd = np.dtype(value)
    except TypeError:
        raise TypeError(f"compute_dtype: expected float32 or float64, got {value!r}") from None
    if wd not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"compute_dtype: expected float32 or float64, got {wd}")
    return wd


# ----- reading rows in chunks ------------------------------------------------------------------


class _Rows:
    """A matrix of ``n`` rows and ``d`` columns stored as ``dtype``, readable in row chunks."""

    name: str = "source"
    n: int
    d: int
    dtype: np.dtype

    def chunks(self, rows: int) -> Iterator[tuple[int, np.ndarray]]:
        """``(first row, chunk)`` pairs covering every row in order; a chunk is valid until the next."""
        raise NotImplementedError

    def reduce(
        self,
        summarise: Callable[[int, np.ndarray], object],
        merge: Callable[[object, object], object],
        rows: int,
        progress: Callable[[int], None],
    ) -> object:
        """``summarise(first row, chunk)`` for every chunk, merged in row order: ``merge(earlier, later)``."""
        total = None
        for start, chunk in self.chunks(rows):
            part = summarise(start, chunk)
            total = part if total is None else merge(total, part)
            progress(len(chunk))
        return total


class _ArrayRows(_Rows):
    """Row slices of an array (in memory, or a memory map that is not a whole file)."""

    def __init__(self, X: np.ndarray) -> None:
        self.X = X
        self.n, self.d = X.shape
        self.dtype = X.dtype

    def chunks(self, rows: int) -> Iterator[tuple[int, np.ndarray]]:
        for start in range(0, self.n, rows):
            yield start, self.X[start : start + rows]


class _FileRows(_Rows):
    """A C-ordered matrix stored in a file at byte ``offset``, read with ``readinto`` into one buffer."""

    def __init__(self, path: Path, offset: int, shape: tuple[int, int], dtype: np.dtype) -> None:
        self.path, self.offset = path, offset
        self.n, self.d = shape
        self.dtype = dtype
        needed = offset + self.n * self.d * dtype.itemsize
        if path.stat().st_size < needed:
            raise ValueError(
                f"source: {path} is truncated: its header promises {needed:,} bytes, the file has "
                f"{path.stat().st_size:,}"
            )

    def chunks(self, rows: int) -> Iterator[tuple[int, np.ndarray]]:
        buffer = np.empty((min(rows, self.n), self.d), dtype=self.dtype)
        with open(self.path, "rb", buffering=0) as f:
            f.seek(self.offset)
            for start in range(0, self.n, rows):
                chunk = buffer[: min(rows, self.n - start)]
                self._read_exactly(f, chunk.reshape(-1), f"at row {start:,}")
                yield start, chunk

    def _read_exactly(self, f: BinaryIO, into: np.ndarray, where: str) -> None:
        """Fill the contiguous 1-D array ``into`` from ``f`` (``readinto`` may return fewer bytes)."""
        view = memoryview(into.view(np.uint8))
        done = 0
        while done < len(view):
            got = f.readinto(view[done:])
            if not got:
                raise ValueError(f"source: {self.path} ended early, {where}")
            done += got


class _FortranFileRows(_FileRows):
    """A Fortran-ordered (column after column) matrix in a file: a chunk of rows is ``d`` reads of
    ``rows`` entries each, one per column, into one reused buffer."""

    def chunks(self, rows: int) -> Iterator[tuple[int, np.ndarray]]:
        size = self.dtype.itemsize
        buffer = np.empty((self.d, min(rows, self.n)), dtype=self.dtype)
        with open(self.path, "rb", buffering=0) as f:
            for start in range(0, self.n, rows):
                k = min(rows, self.n - start)
                columns = buffer[:, :k] if k == buffer.shape[1] else np.empty((self.d, k), dtype=self.dtype)
                for j in range(self.d):
                    f.seek(self.offset + (j * self.n + start) * size)
                    self._read_exactly(f, columns[j], f"in column {j:,}")
                yield start, columns.T


class _DaskRows(_Rows):
    """A ``dask.array`` of rows: each pass summarises its row blocks with dask (on whatever scheduler or
    cluster is active) and merges the summaries in a tree, in row order; only the summaries, about
    ``d x d`` floats each, travel."""

    def __init__(self, X: object, rows: int | None) -> None:
        self.X = X.rechunk({0: rows if rows is not None else X.chunks[0], 1: -1})
        self.n, self.d = (int(s) for s in X.shape)
        self.dtype = np.dtype(X.dtype)
        self.block_rows = max(self.X.chunks[0])

    def chunks(self, rows: int) -> Iterator[tuple[int, np.ndarray]]:  # noqa: ARG002 (its own blocks)
        start = 0
        for block in self.X.blocks:
            chunk = np.asarray(block.compute())
            yield start, chunk
            start += len(chunk)

    def reduce(self, summarise, merge, rows, progress):  # noqa: ARG002 (its own blocks)
        import dask

        starts = np.concatenate([[0], np.cumsum(self.X.chunks[0])[:-1]])
        parts = [dask.delayed(summarise)(int(s), b) for s, b in zip(starts, self.X.to_delayed().ravel(), strict=True)]
        while len(parts) > 1:
            pairs = [dask.delayed(merge)(a, b) for a, b in zip(parts[::2], parts[1::2])]
            parts = pairs + ([parts[-1]] if len(parts) % 2 else [])
        total = parts[0].compute()
        progress(self.n)
        return total


class _GaussianRows(_Rows):
    """``n`` x ``d`` standard normal rows, generated in seeded blocks (the same matrix at any chunk size)."""

    name = "Gaussian baseline"

    def __init__(self, n: int, d: int, seed: int) -> None:
        self.n, self.d, self.seed = n, d, seed
        self.dtype = np.dtype(np.float32)

    def chunks(self, rows: int) -> Iterator[tuple[int, np.ndarray]]:  # noqa: ARG002 (fixed blocks)
        for block, start in enumerate(range(0, self.n, _GAUSSIAN_BLOCK)):
            k = min(_GAUSSIAN_BLOCK, self.n - start)
            yield start, np.random.default_rng([self.seed, block]).standard_normal((k, self.d), dtype=np.float32)


def _open(source: object, chunk_rows: int | None) -> _Rows:
    """Check ``source`` and return a chunk reader for it."""
    if isinstance(source, (str, bytes, os.PathLike)):
        rows = _npy_rows(Path(os.fsdecode(source)))
    elif isinstance(source, np.memmap) and _maps_a_whole_file(source):
        reader = _FileRows if source.flags.c_contiguous else _FortranFileRows
        rows = reader(Path(source.filename), int(source.offset), source.shape, source.dtype)
    elif type(source).__module__.split(".")[0] == "dask":  # a dask array: dask is imported only then
        if getattr(source, "ndim", None) != 2:
            raise ValueError(f"source: expected a 2-D dask array (points x dimensions), got shape {source.shape}")
        _check_dtype(np.dtype(source.dtype))
        rows = _DaskRows(source, chunk_rows)
    else:
        source = _checks.unmasked(source, "source")
        try:
            arr = np.asarray(source)
        except ValueError as err:  # ragged rows
            raise ValueError(f"source: rows of different lengths; expected a 2-D array ({err})") from None
        except TypeError as err:
            raise TypeError(f"source: expected a 2-D array or a path to a .npy file ({err})") from None
        _check_dtype(arr.dtype)
        rows = _ArrayRows(_check_shape(arr))
    _check_dtype(rows.dtype)
    _check_shape(rows)
    return rows


def _maps_a_whole_file(X: np.memmap) -> bool:
    """True for a memmap of a whole array in a file (``np.load(mmap_mode=...)``, ``np.memmap(...)``):
    then ``filename`` and ``offset`` locate its rows. A slice of one shares the parent's attributes,
    which no longer describe it, so it is read through the map instead. A copy-on-write map may hold
    changes the file does not, so it is too."""
    return (
        isinstance(X.base, mmap.mmap)
        and X.filename is not None
        and X.ndim == 2
        and (X.flags.c_contiguous or X.flags.f_contiguous)
        and getattr(X, "mode", "r") != "c"
    )


def _npy_rows(path: Path) -> _Rows:
    """A reader for a ``.npy`` file: its header gives shape, dtype and where the rows start."""
    if not path.is_file():
        raise ValueError(f"source: no file at {path}")
    with open(path, "rb") as f:
        try:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
            else:
                fortran, shape, dtype = True, None, None  # rare: let np.load parse it
        except ValueError as err:
            raise ValueError(f"source: {path} is not a .npy file ({err})") from None
        offset = f.tell()
    if shape is None:
        arr = np.load(path, mmap_mode="r")
        _check_dtype(arr.dtype)
        return _ArrayRows(_check_shape(arr))
    _check_dtype(dtype)
    if len(shape) != 2:
        raise ValueError(f"source: expected a 2-D array (points x dimensions), got shape {shape}")
    return (_FortranFileRows if fortran else _FileRows)(path, offset, shape, dtype)


def _check_dtype(dtype: np.dtype) -> None:
    if not (np.issubdtype(dtype, np.floating) or np.issubdtype(dtype, np.integer)):
        raise TypeError(f"source: expected real numbers (a float or int dtype), got dtype {dtype}")


def _check_shape(rows: np.ndarray | _Rows) -> np.ndarray | _Rows:
    shape = rows.shape if isinstance(rows, np.ndarray) else (rows.n, rows.d)
    if len(shape) != 2:
        raise ValueError(f"source: expected a 2-D array (points x dimensions), got shape {shape}")
    n, d = shape
    if n == 0:
        raise ValueError(f"source: is empty (shape {shape})")
    if n < 2:
        raise ValueError(f"source: needs at least 2 rows (points) for a covariance, got {n}")
    if d < 2:
        raise ValueError(f"source: needs at least 2 columns (dimensions): isotropy compares directions, got {d}")
    return rows


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


def _rescaled(m: _Moments, exponent: int) -> _Moments:
    """``m`` at the scale ``2**exponent`` (``exponent >= m.exponent``): multiplied by powers of two."""
    shift = m.exponent - exponent
    if shift == 0:
        return m
    return _Moments(
        exponent, m.count, np.ldexp(m.mean, shift), np.ldexp(m.scatter, 2 * shift),
        math.ldexp(m.sum_squares, 2 * shift), m.unit_sum, m.nonzero,
        [(s, math.ldexp(t, shift)) for s, t in m.top_norms], m.sample,
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
        np.concatenate([a.sample, b.sample]),
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


def _chunk_moments(raw: np.ndarray, start: int, sample_idx: np.ndarray, wd: np.dtype, name: str) -> _Moments:
    """Pass 1 on one chunk whose first row is row ``start``."""
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
        [(start, float(math.sqrt(squares.max())))], sample,
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


def _measure(
    rows: _Rows, wd: np.dtype, chunk_rows: int, sample_idx: np.ndarray, partition: bool, bar: _Progress
) -> _Found:
    """Pass 1 (moments, unit-row sum, row sample), the spectrum, then pass 2 (partition isotropy) if defined."""
    name = rows.name
    m = rows.reduce(
        lambda start, raw: _chunk_moments(raw, start, sample_idx, wd, name), _merge, chunk_rows,
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


def _uniformity_of_sample(U: np.ndarray, population: int, exact: bool) -> tuple[float, float]:
    r"""Uniformity over all pairs of the unit rows ``U`` and its standard error (0 if ``exact``).

    The value and the row sums :math:`r_i` come from :func:`shared.meters._pair_uniformity`, with
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


# ----- the same-size Gaussian baseline ---------------------------------------------------------


def gaussian_baseline(
    method: BaselineMethod | None, n: int, d: int, rng: np.random.Generator, wd: np.dtype
) -> tuple[Meters | None, str]:
    """The six meters of a Gaussian with the same ``n`` and ``d``, and a sentence saying how they were found
    (``method`` as :func:`isotropy_report`'s ``baseline``; ``wd``: the dtype of the products)."""
    if method is None:
        return None, "none"
    if method == "auto":
        method = "sample" if n * d <= _SAMPLE_LIMIT or n < _CLT_MIN_ROWS else "wishart"
    seed = int(rng.integers(2**63))
    exact = (
        f"mean cosine 0 and uniformity {gaussian_uniformity(d):.3f} = -4 + log 0F1(; d/2; 4) are exact for "
        "random directions"
    )
    if method == "sample":
        return streamed_gaussian_meters(n, d, seed, wd), (
            f"a N(0, I) sample of the same size (seed {seed}), run through the same passes; {exact}."
        )
    return wishart_gaussian_meters(n, d, np.random.default_rng(seed)), (
        f"spectrum meters from one exact draw of a same-size Gaussian's scatter matrix (Bartlett's Wishart "
        f"decomposition, seed {seed}, no rows generated); partition I from that draw with a central-limit "
        f"model of the sums Z(±c); {exact}."
    )


def streamed_gaussian_meters(n: int, d: int, seed: int, wd: np.dtype) -> Meters:
    """The meters of a seeded N(0, I) matrix of ``n`` x ``d``, generated block by block and streamed
    through the report's passes (no rows kept): the report's ``"sample"`` baseline."""
    no_sample = np.empty(0, dtype=np.int64)
    found = _measure(_GaussianRows(n, d, seed), wd, _GAUSSIAN_BLOCK, no_sample, True, _Progress(n, 2, False))
    return Meters(
        partition_isotropy=found.partition,
        mean_cosine=0.0,
        effective_rank=effective_rank(found.eigs),
        entropy_rank=entropy_rank(found.eigs),
        isoscore=isoscore_of_spectrum(found.eigs),
        uniformity=gaussian_uniformity(d),
    )


# ----- progress --------------------------------------------------------------------------------


class _Progress:
    """One updating line on stderr (at most twice a second), or nothing when not enabled."""

    def __init__(self, rows: int, passes: int, enabled: bool) -> None:
        self.rows, self.passes, self.enabled = rows, passes, enabled
        self.done = 0
        self.start = self.last = time.perf_counter()

    def advance(self, pass_number: int, rows: int) -> None:
        if not self.enabled:
            return
        self.done += rows
        now = time.perf_counter()
        if now - self.last < 0.5 and self.done < self.rows * self.passes:
            return
        self.last = now
        share = self.done / (self.rows * self.passes)
        sys.stderr.write(
            f"\risotropy_report: pass {pass_number}/{self.passes}, {100 * share:5.1f}% of the reading done, "
            f"{now - self.start:6.1f} s"
        )
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")
            sys.stderr.flush()
