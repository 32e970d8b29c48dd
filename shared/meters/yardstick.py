r"""The yardstick of notebook 01: when a meter calls a cloud isotropic, measured against a Gaussian of
the same size, and the table that shows it.

Reads each meter's rule from its declaration (:mod:`shared.meters.registry`); one home for the two failures they name (a cone, a collapsed
spread: :func:`failures`), the same-size Gaussian baselines, and the table's cells; both
:func:`meter_table` (clouds in memory) and :func:`shared.report.isotropy_report` (any matrix,
streamed) use them.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .. import _checks
from ..geometry import make_isotropic
from .registry import table_meter, table_meters
from .suite import Meters, all_meters, raw_meters, spectrum_meters



def calls_isotropic(meter: str, value: float, gaussian: float) -> bool:
    """Whether ``value`` of ``meter`` (a field of :class:`Meters`) passes its rule against the value of
    a same-size Gaussian, ``gaussian`` (the rule is declared with the meter: :class:`~shared.meters.Meter`)."""
    return table_meter(meter).calls_isotropic(value, gaussian)


def isotropic_call(meter: str, value: float, gaussian: float) -> bool | None:
    """:func:`calls_isotropic`, or ``None`` when the meter is undefined (``nan``) on the cloud or the baseline."""
    if isinstance(value, float) and math.isnan(value) or isinstance(gaussian, float) and math.isnan(gaussian):
        return None
    return calls_isotropic(meter, value, gaussian)


def isotropic_calls(meters: Meters, gaussian: Meters) -> dict[str, bool | None]:
    """:func:`isotropic_call` of every table meter, keyed by its field of :class:`Meters`."""
    return {m.name: isotropic_call(m.name, meters[m.name], gaussian[m.name]) for m in table_meters()}


# The two failures of notebook 01, by the meter that sees each: a shared offset (a cone) fails the
# mean cosine, variance piled on few directions (a collapsed spread) fails the effective rank.
FAILURE_NAMES = {(True, True): "cone + collapsed spread", (True, False): "cone",
                 (False, True): "collapsed spread", (False, False): "neither"}


def failures(isotropic: Mapping[str, bool | None]) -> tuple[bool, bool]:
    """``(offset, spread)``: whether the mean cosine and the effective rank said not isotropic (an
    undefined call, ``None``, is not a failure)."""
    return isotropic["mean_cosine"] is False, isotropic["effective_rank"] is False


def format_value(value: float, fmt: str) -> str:
    """A meter's value as the table prints it: ``undefined`` for ``nan``."""
    return "undefined" if math.isnan(value) else format(value, fmt)


def mark(isotropic: bool | None) -> str:
    """✓ (isotropic by the rule), ✗ (not), ? (undefined)."""
    return {True: "✓", False: "✗", None: "?"}[isotropic]


def meter_cells(meters: Meters, isotropic: Mapping[str, bool | None] | None,
                texts: Mapping[str, str] | None = None) -> list[str]:
    """The table's cells for ``meters`` in the table's order: each value (or ``texts[key]``) and its mark."""
    cells = []
    for meter in table_meters():
        key = meter.name
        text = (texts or {}).get(key) or format_value(getattr(meters, key), meter.fmt)
        cells.append(text if isotropic is None else f"{text} {mark(isotropic[key])}")
    return cells


def table_row(name: str, cells: list[str], name_width: int, cell_width: int | Sequence[int]) -> str:
    """One line of a meter table: the name left-aligned, then the cells right-aligned (``cell_width``:
    one width for all, or each column's, :func:`column_widths`)."""
    widths = [cell_width] * len(cells) if isinstance(cell_width, int) else list(cell_width)
    return f"{name:{name_width}s}" + "".join(f"{c:>{w}s}" for c, w in zip(cells, widths, strict=True))


def column_widths(rows: Sequence[Sequence[str]], minimum: int) -> list[int]:
    """Each column's width for a table of ``rows`` of cells (the labels' row too): at least ``minimum``
    and two more than its longest cell, so that a long label or value never runs into its neighbour."""
    return [max(minimum, *(len(cell) + 2 for cell in column)) for column in zip(*rows, strict=True)]


def rules_text() -> str:
    """The table meters' rules in words, one clause per meter."""
    return "; ".join(m.rule_text() for m in table_meters())


@dataclass(frozen=True)
class MeterRow:
    """One cloud of a :class:`MeterTable`: its meters, its same-size Gaussian's, and each meter's call.

    ``offset`` is a shared offset large against the spread, which the mean cosine sees: the vectors
    lean one way and, seen from the origin, fill a narrow cone. ``spread`` is variance piled on a
    few directions, which the effective rank sees (a centred line's failure). The two are
    independent: notebook 01's cone shows both, a shifted Gaussian only the first.
    """

    name: str
    meters: Meters
    gaussian: Meters
    isotropic: dict[str, bool | None]

    @property
    def offset(self) -> bool:
        return failures(self.isotropic)[0]

    @property
    def spread(self) -> bool:
        return failures(self.isotropic)[1]

    @property
    def failure(self) -> str:
        """In words: which of the two failures of notebook 01 this cloud shows."""
        return FAILURE_NAMES[failures(self.isotropic)]


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
        labels = [m.label for m in table_meters()]
        gaussians = [(f"(Gaussian, n = {n:,}, d = {d})", meter_cells(base, None)) for (n, d), base in self.baselines.items()]
        clouds = [(row.name, meter_cells(row.meters, row.isotropic), row.failure) for row in self.rows]
        cells = column_widths([labels, *(c for _, c in gaussians), *(c for _, c, _ in clouds)], 16)
        lines = [table_row("cloud", labels, width, cells) + "  failure"]
        lines += [table_row(name, values, width, cells) for name, values in gaussians]
        lines += [table_row(name, values, width, cells) + f"  {failure}" for name, values, failure in clouds]
        lines += textwrap.wrap(f"✓ = isotropic by this meter: {rules_text()}. Failure: a cone (a shared offset) "
                               "where the mean cosine says ✗, a collapsed spread where the effective rank says ✗.",
                               width=110)
        return "\n".join(lines)


def meter_table(clouds: Mapping[str, np.ndarray], seed: int = 100) -> MeterTable:
    """Measure each named cloud with :func:`all_meters` beside a Gaussian of the same ``n`` and ``d``.

    The baseline for shape ``(n, d)`` is :func:`~shared.geometry.make_isotropic` ``(n, d, seed + n)``,
    so clouds of one shape share one baseline. A meter calls a cloud isotropic (✓) by its rule in
    its declaration (:func:`calls_isotropic`), printed under the table (``?`` where a meter is
    undefined, as partition isotropy of a whitened cloud); the last column says which failure the
    cloud shows, if any: a shared
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
        try:  # the cloud first: what it cannot be measured by, its baseline cannot either
            values = all_meters(X)
        except ValueError as error:  # name the cloud, not all_meters' own argument
            raise ValueError(f"clouds[{name!r}]{str(error).removeprefix('X')}") from error
        if shape not in baselines:
            baselines[shape] = gaussian_meters(shape[0], shape[1], seed + shape[0])
        base = baselines[shape]
        rows.append(MeterRow(name=str(name), meters=values, gaussian=base, isotropic=isotropic_calls(values, base)))
    return MeterTable(rows=rows, baselines=baselines)



# ----- the same-size Gaussian baselines ---------------------------------------------------------


def gaussian_meters(n: int, d: int, seed: int) -> Meters:
    """:func:`~shared.meters.all_meters` of :func:`~shared.geometry.make_isotropic` ``(n, d, seed)``: the
    baseline of :func:`meter_table` (a real sample, so its finite-size bias is the cloud's).

    One of two baselines, kept apart on purpose. This one measures a sample with the very meters the
    cloud gets, so every small-sample effect (the sample's mean cosine and uniformity, the
    partition isotropy of few rows) is the cloud's too; it costs ``O(n d^2)`` and holds the ``n x d``
    rows, fine for the notebooks' tables. :func:`wishart_gaussian_meters` estimates the same six
    numbers for the report's large matrices without generating rows: population values for the mean
    cosine (0) and uniformity, and a central-limit model for partition isotropy, which is good for
    many rows and poor for few (at ``n, d = 300, 2``: 0.791 against a sample's 0.962; at 2000 x 50:
    0.699 against 0.675; effective rank, entropy rank and IsoScore agree to sampling noise). Using it
    in :func:`meter_table` would change the Gaussian row of every notebook's table (01, 03, 04, 05,
    09), by more than noise where ``n`` is small.
    """
    return all_meters(make_isotropic(n, d, seed))


def wishart_gaussian_meters(n: int, d: int, rng: np.random.Generator | int, sample_rows: int | None = None) -> Meters:
    r"""The meters of a same-size Gaussian from its scatter matrix alone, in :math:`O(d^3)`.

    **Spectrum.** The centred scatter of ``n`` rows of :math:`N(0, I_d)` is Wishart :math:`W_d(n-1, I)`;
    Bartlett's decomposition draws it exactly as :math:`LL^\top` with :math:`L` lower triangular,
    :math:`L_{ii}^2 \sim \chi^2_{n-1-i}`, :math:`L_{ij} \sim N(0,1)` below the diagonal (with fewer
    rows than dimensions, :math:`A^\top A` for an ``(n-1) x d`` Gaussian ``A``). Its eigenvalues / ``n``
    are a draw of the covariance spectrum, whose participation ratio is close to
    :math:`((n-1)d + 2)/(n + d)` (the ratio of expectations).

    **Partition isotropy.** The uncentred :math:`X^\top X` adds :math:`gg^\top`, :math:`g = \sqrt n\,\bar x
    \sim N(0, I)`. For Gaussian rows :math:`X = U S V^\top` with :math:`U` uniform (Haar) and independent
    of :math:`S`, so along eigenvector ``k`` the scaled projections are :math:`a_k\sqrt n\,\omega`, with
    :math:`\omega` uniform on the unit sphere of :math:`\mathbb R^n` and :math:`a_k^2 = d\,\nu_k/\sum\nu`
    (:math:`\nu`: eigenvalues of :math:`X^\top X`). By the central limit theorem, conditioned on
    :math:`\|\omega\|^2 = 1`, :math:`\ell^\pm_k = \log(Z(\pm c_k)/n)` is normal with mean
    :math:`a^2/2 - v/2`, variance :math:`v = (e^{a^2} - 1 - a^4/2)/n` and covariance
    :math:`(e^{-a^2} - 1 - a^4/2)/n` between the two signs; the ``2d`` values are drawn and
    :math:`I = e^{\min \ell - \max \ell}`.
    **The other meters of the raw vectors** take each meter's Gaussian value: the mean cosine's 0,
    uniformity's exact value, or the meter on ``sample_rows`` (default ``n``) Gaussian rows drawn
    from ``rng`` after the draws above (:meth:`~shared.meters.registry.Meter.of_gaussian`).
    The baseline of :func:`shared.report.isotropy_report` for large matrices.
    """
    n = _checks.integer(n, "n", 2, why="a covariance needs two points")
    d = _checks.integer(d, "d", 2)
    rng = _checks.as_rng(rng)
    dof = n - 1
    if dof >= d:
        L = np.tril(rng.standard_normal((d, d)), k=-1)
        L[np.diag_indices(d)] = np.sqrt(rng.chisquare(dof - np.arange(d)))
        scatter = L @ L.T
    else:
        A = rng.standard_normal((dof, d))
        scatter = A.T @ A
    eigs = np.clip(np.linalg.eigvalsh(scatter / n)[::-1], 0.0, None)
    g = rng.standard_normal(d)
    nu = np.clip(np.linalg.eigvalsh(scatter + np.outer(g, g)), 0.0, None)
    a2 = d * nu / nu.sum()
    var = (np.expm1(a2) - a2**2 / 2.0) / n
    cov = (np.expm1(-a2) - a2**2 / 2.0) / n
    z = rng.standard_normal((2, d))
    safe = np.where(var > 0, var, 1.0)
    pos = np.sqrt(var) * z[0]
    neg = np.where(var > 0, cov / safe, 0.0) * pos + np.sqrt(np.clip(var - cov**2 / safe, 0.0, None)) * z[1]
    ell = np.concatenate([a2 / 2 - var / 2 + pos, a2 / 2 - var / 2 + neg])
    rows = n if sample_rows is None else _checks.integer(sample_rows, "sample_rows", 2)
    others = {m.name: m.of_gaussian(rows, d, rng) for m in raw_meters(("partition_isotropy",))}
    return spectrum_meters(eigs, partition_isotropy=float(np.exp(ell.min() - ell.max())), **others)
