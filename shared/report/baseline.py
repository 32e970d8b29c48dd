"""The same-size Gaussian baseline of the report: the six meters of a Gaussian with the matrix's ``n`` and ``d``.

Sampled and streamed through the passes (:func:`streamed_gaussian_meters`), or drawn as a Wishart
scatter matrix (:func:`shared.meters.wishart_gaussian_meters`); :func:`gaussian_baseline` picks one.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .._checks import Choice, one_of
from ..meters import Meters, gaussian_uniformity, raw_meters, spectrum_meters, wishart_gaussian_meters
from .passes import measure
from .progress import Progress
from .rows import Rows



class Baseline(Choice):
    """How :func:`~shared.report.isotropy_report` finds its same-size Gaussian (its ``baseline``)."""

    AUTO = "auto"  # a sample up to 2 million entries (always below 1,000 rows), else the Wishart draw
    SAMPLE = "sample"  # a seeded N(0, I) matrix streamed through the same passes
    WISHART = "wishart"  # the spectrum from one exact draw of the scatter matrix, no rows generated

_SAMPLE_LIMIT = 2 * 10**6  # "auto" baseline: a real Gaussian sample up to this many entries
_CLT_MIN_ROWS = 1000  # ... and always below this many rows, where the Wishart model's CLT is too rough
_GAUSSIAN_BLOCK = 4096  # rows per seeded block of the sampled Gaussian baseline


def gaussian_baseline(
    method: Baseline | None, n: int, d: int, rng: np.random.Generator, wd: np.dtype, sample_rows: int | None = None
) -> tuple[Meters | None, str]:
    """The table meters of a Gaussian with the same ``n`` and ``d``, and a sentence saying how they were found
    (``method`` as :func:`~shared.report.isotropy_report`'s ``baseline``; ``wd``: the dtype of the products;
    ``sample_rows``: how many rows the report read its sampled meters on, ``n`` when ``None``)."""
    if method is None:
        return None, "none"
    method = one_of(method, Baseline, "baseline")
    if method is Baseline.AUTO:
        method = Baseline.SAMPLE if n * d <= _SAMPLE_LIMIT or n < _CLT_MIN_ROWS else Baseline.WISHART
    seed = int(rng.integers(2**63))
    exact = (
        f"mean cosine 0 and uniformity {gaussian_uniformity(d):.3f} = -4 + log 0F1(; d/2; 4) are exact for "
        "random directions"
    )
    if method is Baseline.SAMPLE:
        return streamed_gaussian_meters(n, d, seed, wd, sample_rows), (
            f"a N(0, I) sample of the same size (seed {seed}), run through the same passes; {exact}."
        )
    return wishart_gaussian_meters(n, d, np.random.default_rng(seed), sample_rows), (
        f"spectrum meters from one exact draw of a same-size Gaussian's scatter matrix (Bartlett's Wishart "
        f"decomposition, seed {seed}, no rows generated); partition I from that draw with a central-limit "
        f"model of the sums Z(±c); {exact}."
    )


def streamed_gaussian_meters(n: int, d: int, seed: int, wd: np.dtype, sample_rows: int | None = None) -> Meters:
    """The meters of a seeded N(0, I) matrix of ``n`` x ``d``, generated block by block and streamed
    through the report's passes (no rows kept): the report's ``"sample"`` baseline. The meters of the
    raw vectors other than partition isotropy are each meter's Gaussian value (the mean cosine's 0,
    uniformity's exact value, or the meter on a sample of ``sample_rows`` Gaussian rows,
    :meth:`~shared.meters.registry.Meter.of_gaussian`)."""
    no_sample = np.empty(0, dtype=np.int64)
    found = measure(_GaussianRows(n, d, seed), wd, _GAUSSIAN_BLOCK, no_sample, True, Progress(n, 2, False))
    rng = np.random.default_rng([seed, 0, 1])  # apart from the blocks' generators
    rows = n if sample_rows is None else sample_rows
    others = {m.name: m.of_gaussian(rows, d, rng) for m in raw_meters(("partition_isotropy",))}
    return spectrum_meters(found.eigs, partition_isotropy=found.partition, **others)


class _GaussianRows(Rows):
    """``n`` x ``d`` standard normal rows, generated in seeded blocks (the same matrix at any chunk size)."""

    name = "Gaussian baseline"

    def __init__(self, n: int, d: int, seed: int) -> None:
        self.n, self.d, self.seed = n, d, seed
        self.dtype = np.dtype(np.float32)

    def chunks(self, rows: int) -> Iterator[tuple[int, np.ndarray]]:  # noqa: ARG002 (fixed blocks)
        for block, start in enumerate(range(0, self.n, _GAUSSIAN_BLOCK)):
            k = min(_GAUSSIAN_BLOCK, self.n - start)
            yield start, np.random.default_rng([self.seed, block]).standard_normal((k, self.d), dtype=np.float32)
