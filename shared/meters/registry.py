"""How a meter is declared and read: its label and format, and the :class:`Reading` a figure shows.

A meter is a function of a cloud (or of its spectrum) that :func:`declare_meter` gives a ``label``
and a ``fmt``; :func:`read` turns one of its values into a :class:`Reading`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from .. import _checks

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
