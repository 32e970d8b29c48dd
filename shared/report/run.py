"""Running the report: :func:`isotropy_report` streams a matrix through the passes and assembles the result.

Also the default chunk size (:func:`default_chunk_rows`).
"""

from __future__ import annotations

import os

import numpy as np

from .. import _checks
from ..meters import raw_meters, spectrum_meters
from .baseline import Baseline, gaussian_baseline
from .passes import measure, uniformity_of_sample
from .progress import Progress
from .result import IsotropyReport
from .rows import DaskRows, open_rows

#: The table meters of the raw vectors that the passes compute exactly; any other meter of the raw
#: vectors is read on the uniformity sample of rows (:func:`~shared.meters.raw_meters`).
STREAMED = ("partition_isotropy", "mean_cosine", "uniformity")
_CHUNK_BYTES = 48 * 2**20  # default chunk: about 48 MiB of rows in the compute dtype
_PROGRESS_ENTRIES = 10**8  # progress=None shows a progress line from this many entries on


def isotropy_report(
    source: np.ndarray | str | os.PathLike[str],
    rng: np.random.Generator | int,
    *,
    chunk_rows: int | None = None,
    compute_dtype: type[np.floating] | str | None = None,
    partition: bool = True,
    uniformity_rows: int = 4000,
    baseline: Baseline | str | None = "auto",
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
    rows = open_rows(source, chunk_rows)
    wd = _compute_dtype(compute_dtype, rows.dtype)
    if isinstance(rows, DaskRows):
        chunk_rows = rows.block_rows
    elif chunk_rows is None:
        chunk_rows = default_chunk_rows(rows.d)
    uniformity_rows = _checks.integer(uniformity_rows, "uniformity_rows", 2)
    partition = _checks.flag(partition, "partition")
    if baseline is not None:
        baseline = _checks.one_of(baseline, Baseline, "baseline")
    if progress is None:
        progress = rows.n * rows.d >= _PROGRESS_ENTRIES
    progress = _checks.flag(progress, "progress")
    seed = int(rng) if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) else None
    rng = _checks.as_rng(rng)

    sample_idx = np.sort(rng.choice(rows.n, size=min(uniformity_rows, rows.n), replace=False))
    bar = Progress(rows.n, 2 if partition else 1, enabled=bool(progress))
    sampled = raw_meters(STREAMED)  # meters of the raw vectors without a pass of their own
    found = measure(rows, wd, chunk_rows, sample_idx, partition, bar, keep_rows=bool(sampled))
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
    uni, uni_se = uniformity_of_sample(moments.sample, population=m, exact=len(moments.sample) == m)
    on_sample = {meter.name: meter.of_cloud(moments.rows) for meter in sampled}
    meters = spectrum_meters(found.eigs, partition_isotropy=found.partition, mean_cosine=mean_cosine, uniformity=uni,
                             **on_sample)
    base, method = gaussian_baseline(baseline, rows.n, rows.d, rng, wd, len(sample_idx))
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
        on_sample=tuple(meter.label for meter in sampled),
        sample_rows=len(sample_idx),
    )


def default_chunk_rows(d: int) -> int:
    """Rows per chunk when ``chunk_rows`` is not given: about 48 MiB of float64 rows of ``d`` entries."""
    d = _checks.integer(d, "d", 1)
    return max(64, _CHUNK_BYTES // (d * 8))


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
