"""What a live explorer (:mod:`shared.explorers`) needs to draw ahead: the page's side of it
(:class:`Ahead`, an anywidget whose code is ``shared/data/ahead.js``) and how the page and the kernel
name a setting, each slider's *notch* (its step from the low end; a choice's index)."""

from __future__ import annotations

import decimal
import math
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets as widgets
import traitlets

DRAW_AHEAD = "ISOTROPY_DRAW_AHEAD"  # "0" in the environment: a live explorer draws nothing ahead
AHEAD_KEPT = 32  # settings drawn ahead that the page holds (shared/data/ahead.js, KEEP), and the kernel
AHEAD_PAUSE = 0.002  # seconds between two pictures drawn ahead: the kernel reads a move that came meanwhile


class Ahead(anywidget.AnyWidget):
    """The pictures a live explorer drew ahead, held in the page (``shared/data/ahead.js``), which shows
    one when a slider is moved to its setting. ``controls``, ``image`` and ``readout`` name the explorer's
    widgets; ``axes`` says how to number each slider's notch (``[low, step]``, or None for a choice)."""

    _esm = (Path(__file__).parent / "data" / "ahead.js").read_text(encoding="utf-8")
    controls = traitlets.List(traitlets.Unicode()).tag(sync=True)
    axes = traitlets.List().tag(sync=True)
    image = traitlets.Unicode().tag(sync=True)
    readout = traitlets.Unicode().tag(sync=True)


GRID = 1e-9  # how far (in steps) a slider's value may lie from its grid and still name a notch


def notches_of(control: widgets.Widget) -> list | str | None:
    """How the page numbers ``control``'s notches (shared/data/ahead.js): None for a choice (its
    index), ``[low, step]`` for a slider, ``"none"`` for any other control (nothing drawn ahead)."""
    if isinstance(control, widgets.SelectionSlider):
        return None
    if isinstance(control, (widgets.IntSlider, widgets.FloatSlider)):
        return [control.min, control.step]
    return "none"


def notch(control: widgets.Widget, value: Any) -> int | None:
    """The notch of ``value`` on ``control``, as the page numbers it; None where ``value`` is off the
    slider's grid from ``low`` by ``step`` (by more than :data:`GRID` of a step), or the control is no
    slider (the page does the same)."""
    if isinstance(control, widgets.SelectionSlider):
        return list(control.options).index(value)
    if not isinstance(control, (widgets.IntSlider, widgets.FloatSlider)):
        return None
    steps = (value - control.min) / control.step
    nearest = math.floor(steps + 0.5)  # JavaScript's Math.round
    return nearest if abs(steps - nearest) <= GRID else None


def notch_value(control: widgets.Widget, value: Any, step: int) -> Any:
    """The value ``step`` notches from ``value`` on ``control``, or None past its ends or off its
    grid (a float slider's rounded to the decimals of its low end and step, as the page's slider
    sets it)."""
    here = notch(control, value)
    if here is None:
        return None
    there = here + step
    if isinstance(control, widgets.SelectionSlider):
        return control.options[there] if 0 <= there < len(control.options) else None
    if isinstance(control, widgets.IntSlider):
        found = control.min + there * control.step
    else:
        places = max(0, *(-decimal.Decimal(repr(float(v))).as_tuple().exponent for v in (control.min, control.step)))
        found = round(control.min + there * control.step, places)
    return found if control.min <= found <= control.max and notch(control, found) == there else None
