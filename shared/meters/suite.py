"""The table meters together on one cloud: :class:`Meters` and :func:`all_meters` (notebook 01's columns).

Which meters there are, and in what order, is the registry's (:func:`~shared.meters.registry.table_meters`):
a meter declared with a rule appears here, in the report and in notebook 01's table without an edit
to this module. It imports the meters' modules, so that importing it declares all of them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _checks
from . import cosines, partition, spectrum  # noqa: F401 (declares the table meters of these modules)
from .registry import Meter, Reading, Reads, read, scaled_cov_eigs, table_meters


@dataclass(frozen=True)
class Meters:
    """Every table meter on one cloud, by its name: ``m.mean_cosine`` or ``m["mean_cosine"]``.

    ``values`` maps each name of :func:`~shared.meters.registry.table_meters` to its value (``nan``
    where the meter is undefined on the cloud); a missing or unknown name is refused. A ``Meters``
    made before another meter joined the table lacks it: make it again."""

    values: dict[str, float]

    def __post_init__(self) -> None:
        names = [m.name for m in table_meters()]
        if not isinstance(self.values, dict) or sorted(self.values) != sorted(names):
            got = sorted(self.values) if isinstance(self.values, dict) else self.values
            raise ValueError(f"values: expected a value for each of {names}, got {got!r}")
        object.__setattr__(self, "values", dict(self.values))  # its own copy: the caller's dict may change

    def __hash__(self) -> int:
        return hash(tuple(sorted(self.values.items())))

    def __iter__(self):
        return iter(self.values)

    def __contains__(self, name: object) -> bool:
        return name in self.values

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "values":
            raise AttributeError(name)
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(f"Meters has no meter {name!r}; it has {list(self.values)}") from None

    def __getitem__(self, name: str) -> float:
        return self.values[name]

    def readings(self) -> list[Reading]:
        """The values, named and formatted as their meters declare, in the table's order."""
        return [read(meter.fn, self.values[meter.name]) for meter in table_meters()]


def all_meters(X: np.ndarray) -> Meters:
    """Every table meter on one cloud. The mean cosine is exact (all pairs), so no seed is needed.

    Partition isotropy is ``nan`` where it is undefined (a cloud whose eigenvectors are not
    unique, see :func:`~shared.meters.partition_isotropy`); every other meter is defined for every cloud with
    spread (a cloud whose points all coincide is refused). Zero rows count as points at the origin
    in the meters of variance and are left out of the mean cosine and uniformity, which need two
    non-zero rows.
    """
    X = _checks.cloud(X, min_rows=2)
    _checks.spread(X, consequence="its spread meters are undefined")
    eigs, _ = scaled_cov_eigs(X)  # the ranks do not depend on the scale
    return Meters({meter.name: meter.of_cloud(X, eigs) for meter in table_meters()})


def raw_meters(given: Iterable[str] = ()) -> tuple[Meter, ...]:
    """The table meters that the covariance spectrum does not determine (they read the raw vectors),
    but those named in ``given``: the meters the streamed report (:mod:`shared.report`) reads on its
    sample of rows, and whose Gaussian value its baselines take from the meter
    (:meth:`~shared.meters.registry.Meter.of_gaussian`), beside the ones it has a pass of its own for."""
    return tuple(m for m in table_meters() if m.reads is Reads.CLOUD and m.of_spectrum is None and m.name not in given)


def spectrum_meters(eigs: np.ndarray, **streamed: float) -> Meters:
    """The table meters from a covariance spectrum, with the values the spectrum does not determine
    (the meters of the raw vectors) given by name in ``streamed``; a meter neither gives is ``nan``.
    How the streamed report (:mod:`shared.report`) and its Gaussian baselines fill a :class:`Meters`."""
    names = [meter.name for meter in table_meters()]
    unknown = sorted(set(streamed) - set(names))
    if unknown:
        raise ValueError(f"streamed: {unknown} name no table meter; the table has {names}")
    values = {}
    for meter in table_meters():
        if meter.name in streamed:
            values[meter.name] = float(streamed[meter.name])
        elif meter.reads is Reads.SPECTRUM:
            values[meter.name] = float(meter.fn(eigs))
        elif meter.of_spectrum is not None:
            values[meter.name] = float(meter.of_spectrum(eigs))
        else:
            values[meter.name] = math.nan
    return Meters(values)
