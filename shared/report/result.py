"""The report's result and how it prints: :class:`IsotropyReport`, with a :class:`MeterLine` per meter.

``print(report)`` shows the table, which failure and the verdict; ``report.details()`` adds the rules
and how every number was obtained.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

import numpy as np

from ..meters import (
    FAILURE_NAMES,
    Meters,
    Sees,
    column_widths,
    failures,
    format_value,
    isotropic_calls,
    mark,
    meter_cells,
    rules_text,
    table_meters,
    table_row,
)


@dataclass(frozen=True)
class MeterLine:
    """One meter's line of the report: its value on the user's matrix against the same-size Gaussian's,
    and whether it calls the matrix isotropic by its rule.

    ``isotropic`` is ``None`` when the meter is undefined; ``sees`` is :attr:`Sees.OFFSET` for a meter that
    looks at the raw vectors (a shared offset moves it) and :attr:`Sees.SPREAD` for one that centres first.
    """

    meter: str
    value: float
    baseline: float
    isotropic: bool | None
    sees: Sees
    fmt: str


@dataclass(frozen=True)
class IsotropyReport:
    r"""What :func:`~shared.report.isotropy_report` measured. ``print(report)`` shows :meth:`table` (the meters beside the
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
    with standard error ``uniformity_se`` (0 when every row was used, so the value is exact). A meter
    of the raw vectors without a pass of its own (``on_sample``, by label) is read on the rows drawn
    for uniformity as they are (``sample_rows`` of them, zero rows included): exact when they are all.
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
    on_sample: tuple[str, ...] = ()  # the labels of the meters read on a sample of rows
    sample_rows: int = 0  # how many: the rows drawn for uniformity, zero rows included

    def meter_lines(self) -> tuple[MeterLine, ...]:
        """Notebook 01's ✓/✗ for each meter against the same-size Gaussian (empty without a baseline)."""
        if self.baseline is None:
            return ()
        marks = isotropic_calls(self.meters, self.baseline)
        return tuple(
            MeterLine(meter=meter.label, value=self.meters[meter.name], baseline=self.baseline[meter.name],
                      isotropic=marks[meter.name], sees=meter.sees, fmt=meter.fmt)
            for meter in table_meters()
        )

    def diagnosis(self) -> str:
        """One sentence in notebook 01's words: a cone (a shared offset), a collapsed spread, both, or neither."""
        if self.baseline is None:
            return "no baseline, so no verdict"
        m, b = self.meters, self.baseline
        marks = isotropic_calls(m, b)
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
        odd = [meter.label for meter in table_meters() if marks[meter.name] is False]
        if odd:
            return (
                f"neither failure by the mean cosine and the effective rank, but {' and '.join(odd)} "
                "differ from the Gaussian: look at how the points are distributed, not only at the mean and "
                "the spectrum."
            )
        return f"as isotropic as a Gaussian of the same size, by all {_count(len(table_meters()))} meters."

    def table(self) -> str:
        """The learner's view: notebook 01's meters beside the same-size Gaussian, which failure, and
        the verdict. :meth:`details` adds how every number was obtained."""
        lines = [f"isotropy report: {self.n:,} rows x {self.d:,} dimensions ({self.dtype})", *self._rows(), ""]
        if self.baseline is not None:
            lines.append(f"which failure: {FAILURE_NAMES[failures(isotropic_calls(self.meters, self.baseline))]}")
        lines += textwrap.wrap(f"verdict: {self.diagnosis()}", width=110)
        if self.uniformity_sampled:
            lines.append(f"(uniformity: all pairs of {self.uniformity_rows:,} random rows, ± its standard error)")
        if self.on_sample and self.sample_rows < self.n:
            lines.append(f"({', '.join(self.on_sample)}: on {self.sample_rows:,} random rows)")
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
            offset_meters = sum(meter.sees is Sees.OFFSET for meter in table_meters())
            for sees, heading in (
                (Sees.OFFSET, f"meters that look at the raw vectors (a shared offset moves all {_count(offset_meters)}; "
                 "partition I and uniformity also react to an uneven spread):"),
                (Sees.SPREAD, "meters that centre first (they see only how the variance is spread):"),
            ):
                lines.append(heading)
                label = max(15, *(len(v.meter) for v in self.meter_lines()))  # labels do not run into values
                for v in self.meter_lines():
                    if v.sees == sees:
                        value, base = format_value(v.value, v.fmt), format_value(v.baseline, v.fmt)
                        lines.append(f"  {mark(v.isotropic)} {v.meter:{label}s} {value:>9s} vs {base:>9s}")
            lines.append("")
            lines += textwrap.wrap(f"verdict: {self.diagnosis()}", width=110)
        return "\n".join(lines)

    def _rows(self) -> list[str]:
        """The table's heading, the Gaussian's row (when there is a baseline) and the matrix's row."""
        rows = [("", [meter.label for meter in table_meters()])]
        marks = None
        if self.baseline is not None:
            rows.append(("Gaussian, same n and d", meter_cells(self.baseline, None)))
            marks = isotropic_calls(self.meters, self.baseline)
        texts = {"uniformity": f"{self.meters.uniformity:.3f}±{self.uniformity_se:.3f}"} if self.uniformity_sampled else {}
        rows.append(("your matrix", meter_cells(self.meters, marks, texts)))
        widths = column_widths([cells for _, cells in rows], 17)
        return [table_row(name, cells, 24, widths) for name, cells in rows]

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
        sampled = ""
        if self.on_sample:
            rows = f"{self.sample_rows:,} random rows" if self.sample_rows < self.n else "every row (exact)"
            sampled = f"; {', '.join(self.on_sample)}: on {rows}, as they are"
        return (f"mean cosine: exact over all {nonzero * (nonzero - 1):,} ordered pairs; uniformity: {how}{zero}"
                f"{sampled}.")

    def __str__(self) -> str:
        return self.table()


def _count(n: int) -> str:
    """``n`` in words up to twelve (the report's sentences), else in digits."""
    words = ("zero one two three four five six seven eight nine ten eleven twelve").split()
    return words[n] if n < len(words) else str(n)
