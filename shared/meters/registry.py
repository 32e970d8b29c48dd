"""The meter registry: each meter declared once (label, format, formula, range, invariances and,
for notebook 01's table, its rule against a same-size Gaussian), and the :class:`Reading` a figure shows.

:func:`declare_meter` decorates a meter's function. Given a ``rule``, the meter joins the table:
:func:`table_meters` lists it, so :func:`~shared.meters.all_meters`, :class:`~shared.meters.Meters`,
:func:`~shared.meters.meter_table` (notebook 01's "which meter lies when" table), the streamed
:func:`~shared.report.isotropy_report` and its printed table, and the invariance tests all pick it
up. Choices are enums (:class:`Rule`, :class:`Sees`, :class:`Reads`, :class:`Invariance`): an unknown
name is refused with the known ones.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from .. import _checks
from .._checks import Choice

_F = TypeVar("_F", bound=Callable)


class Rule(Choice):
    """When a table meter calls a cloud isotropic, against the value ``g`` of a same-size Gaussian."""

    AT_LEAST = "at least"  # value >= amount x g
    WITHIN = "within"  # |value - g| <= amount
    AT_MOST_ABOVE = "at most above"  # value <= g + amount


class Sees(Choice):
    """What moves a table meter: a shared offset (it reads the raw vectors) or only the spread (it centres first)."""

    OFFSET = "offset"
    SPREAD = "spread"


class Reads(Choice):
    """What a meter's function takes: a cloud ``X`` (rows are points) or its covariance spectrum."""

    CLOUD = "cloud"
    SPECTRUM = "spectrum"


class Invariance(Choice):
    """A change of the cloud that leaves a meter's value unchanged."""

    ROTATION = "rotation"  # X -> X Q for an orthogonal Q
    SCALE = "scale"  # X -> c X for c > 0
    SHIFT = "shift"  # X -> X + b for one vector b
    ROW_ORDER = "row order"  # X -> X[permutation]


def scaled_cov_eigs(X: np.ndarray) -> tuple[np.ndarray, float]:
    """Covariance eigenvalues (descending, clipped at 0) of ``X / scale``, and the power of two ``scale``:
    the spectrum a meter that reads it is handed (here, below the meters that declare themselves)."""
    scale = _checks.power_of_two(X)
    Xs = X / scale
    Xc = Xs - Xs.mean(axis=0)
    w = np.linalg.eigvalsh(Xc.T @ Xc / len(X))[::-1]
    return np.clip(w, 0.0, None), scale


_RULE_WORDS = {Rule.AT_LEAST: "at least {a} x the Gaussian's", Rule.WITHIN: "within {a} of the Gaussian's",
               Rule.AT_MOST_ABOVE: "at most the Gaussian's + {a}"}


@dataclass(frozen=True)
class Meter:
    """One meter, as declared: its function, how it prints, what it computes, and (table meters) its rule.

    ``reads`` says whether ``fn`` takes the cloud or its covariance spectrum; ``of_spectrum``, for a
    cloud meter that the spectrum determines, computes it from the spectrum (the streamed report
    uses it). ``undefined_on`` names the clouds on which ``fn`` refuses (a ``ValueError``): there
    the table shows the meter as undefined (``nan``) instead of refusing the cloud. ``gaussian``,
    when known exactly, is its value on a same-size Gaussian as a function of ``(n, d)`` (the mean
    cosine's is 0); without it the report's baselines sample one (:meth:`of_gaussian`).
    """

    fn: Callable = field(repr=False)
    label: str
    fmt: str
    formula: str
    range: str
    invariances: frozenset[Invariance]
    reads: Reads = Reads.CLOUD
    rule: Rule | None = None
    amount: float | None = None
    sees: Sees | None = None
    column: int | None = None
    of_spectrum: Callable | None = field(default=None, repr=False)
    undefined_on: str = ""
    gaussian: Callable[[int, int], float] | None = field(default=None, repr=False)

    @property
    def name(self) -> str:
        """The meter's key: its function's name (a field of :class:`~shared.meters.Meters`)."""
        return self.fn.__name__

    def of_cloud(self, X: np.ndarray, eigs: np.ndarray | None = None) -> float:
        """The meter on the cloud ``X`` (``eigs``: its covariance spectrum, when already computed);
        ``nan`` where it is undefined (see ``undefined_on``)."""
        try:
            if self.reads is Reads.SPECTRUM:
                return float(self.fn(scaled_cov_eigs(X)[0] if eigs is None else eigs))
            return float(self.fn(X))
        except ValueError:
            if self.undefined_on:
                return float("nan")
            raise

    def of_gaussian(self, n: int, d: int, rng: np.random.Generator | int) -> float:
        """The meter on a Gaussian of ``n`` points in ``d`` dimensions: its declared value
        (``gaussian(n, d)``) when known, else the meter on a N(0, I) sample of that size drawn with ``rng``."""
        n, d = _checks.integer(n, "n", 2), _checks.integer(d, "d", 1)
        if self.gaussian is not None:
            return float(self.gaussian(n, d))
        return self.of_cloud(_checks.as_rng(rng).standard_normal((n, d)))

    def calls_isotropic(self, value: float, gaussian: float) -> bool:
        """Whether ``value`` passes this meter's rule against the Gaussian's ``gaussian``."""
        value, gaussian = _checks.real(value, "value"), _checks.real(gaussian, "gaussian")
        if self.rule is Rule.AT_LEAST:
            return bool(value >= self.amount * gaussian)
        if self.rule is Rule.WITHIN:
            return bool(abs(value - gaussian) <= self.amount)
        if self.rule is Rule.AT_MOST_ABOVE:
            return bool(value <= gaussian + self.amount)
        raise ValueError(f"meter: {self.name} has no rule against the Gaussian (it is not a table meter)")

    def rule_text(self) -> str:
        """The rule in words, e.g. ``"effective rank at least 0.8 x the Gaussian's"``."""
        return f"{self.label} {_RULE_WORDS[self.rule].format(a=self.amount)}"


_TABLE: dict[str, Meter] = {}


def declare_meter(label: str, fmt: str, *, formula: str = "", range: str = "",  # noqa: A002 (a meter's range)
                  invariances: Iterable[Invariance | str] = (), reads: Reads | str = Reads.CLOUD,
                  rule: Rule | str | None = None, amount: float | None = None, sees: Sees | str | None = None,
                  column: int | None = None, of_spectrum: Callable | None = None,
                  undefined_on: str = "", gaussian: Callable[[int, int], float] | None = None) -> Callable[[_F], _F]:
    """Declare a meter where its function is defined: how its value is named and printed (``fn.label``,
    ``fn.fmt``), its formula, range and invariances (``fn.meter``, a :class:`Meter`). With a ``rule``
    (and its ``amount`` and what it ``sees``) it joins notebook 01's table (:func:`register`) at
    ``column`` (after the others when ``None``). ``gaussian(n, d)``: its value on a same-size
    Gaussian, when known exactly; the report samples one otherwise. A meter of the raw vectors
    (neither ``reads="spectrum"`` nor ``of_spectrum``) is read by the report on its sample of rows."""

    def declare(fn: _F) -> _F:
        meter = Meter(fn=fn, label=label, fmt=fmt, formula=formula, range=range,
                      invariances=frozenset(Invariance(v) for v in invariances), reads=Reads(reads),
                      rule=None if rule is None else Rule(rule), amount=amount,
                      sees=None if sees is None else Sees(sees), column=column, of_spectrum=of_spectrum,
                      undefined_on=undefined_on, gaussian=gaussian)
        fn.label, fn.fmt, fn.meter = label, fmt, meter  # type: ignore[attr-defined]
        if meter.rule is not None:
            register(meter)
        return fn

    return declare


def register(meter: Meter) -> Meter:
    """Add ``meter`` to notebook 01's table (what :func:`declare_meter` does given a ``rule``)."""
    if not isinstance(meter, Meter):
        raise TypeError(f"meter: expected a Meter (see declare_meter), got {meter!r}")
    if meter.rule is None or meter.sees is None or meter.amount is None or not math.isfinite(meter.amount):
        raise ValueError(f"meter: {meter.name} needs a rule, a finite amount and what it sees to join the table")
    if meter.column is not None and (not isinstance(meter.column, int) or isinstance(meter.column, bool)):
        raise TypeError(f"column: expected a whole number or None, got {meter.column!r}")
    if meter.name.startswith("_") or meter.name in ("values", "readings"):
        raise ValueError(f"meter: {meter.name!r} cannot name a table meter (it is private or an attribute of Meters)")
    if (meter.reads is Reads.SPECTRUM or meter.of_spectrum is not None) and Invariance.SCALE not in meter.invariances:
        raise ValueError(f"meter: {meter.name} is read from the spectrum, which the toolkit hands over divided by a "
                         "power of two (exact); only a scale-invariant meter can be (declare 'scale')")
    old = _TABLE.get(meter.name)
    same_function = old is not None and (old.fn.__module__, old.fn.__qualname__) == (meter.fn.__module__,
                                                                                     meter.fn.__qualname__)
    if old is not None and old is not meter and not same_function:
        raise ValueError(f"meter: a table meter called {meter.name!r} is already declared")
    _TABLE[meter.name] = meter  # a module reloaded (autoreload) replaces its own meters in place
    return meter


def unregister(name: str) -> None:
    """Take the meter called ``name`` out of the table."""
    table_meter(name)
    del _TABLE[name]


def table_meters() -> tuple[Meter, ...]:
    """The meters of notebook 01's table, in its column order."""
    order = list(_TABLE.values())
    return tuple(sorted(order, key=lambda m: (m.column is None, m.column or 0, order.index(m))))


def table_meter(name: str) -> Meter:
    """The table meter whose key is ``name`` (a field of :class:`~shared.meters.Meters`)."""
    if not isinstance(name, str):
        raise TypeError(f"meter: expected the name of a meter (a string), got {name!r}")
    if name not in _TABLE:
        raise ValueError(f"meter: expected one of {[m.name for m in table_meters()]}, got {name!r}")
    return _TABLE[name]


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
