"""Slider panels: sliders wired to a function that computes and a view that draws.

A notebook writes the wiring in one visible cell::

    explore(sphere_and_cone, SphereConeView,
            strength=slider("s: cone strength", 4.0, 0.0, 10.0, 0.25),
            residual=slider("σ: residual noise", 0.10, 0.01, 1.0, 0.01))

On every move, the sliders that ``compute`` takes as parameters are passed to it; its result
(a tuple is spread into arguments) and the remaining sliders are passed to the view's ``update``.
So a slider that only changes what is *shown* (a depth, a highlighted setting) costs a redraw,
not a recomputation. Results are remembered for the last :data:`REMEMBERED` settings of
``compute``'s sliders, so going back to a setting is instant. Sliders report a value when released
(``continuous_update=False``), so a drag sends one redraw, never a backlog.

The explorer's text form (what a notebook stores as ``text/plain``) lists its settings and the
view's readings, so the regression tests compare the numbers it shows.
"""

from __future__ import annotations

import html
import inspect
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets

from . import _checks

REMEMBERED = 32
_STYLE = {"description_width": "240px"}
_LAYOUT = {"width": "500px"}


def slider(description: str, value: float, low: float, high: float, step: float) -> widgets.Widget:
    """A labelled slider from ``low`` to ``high`` that reports its value on release.

    Whole-number arguments give an integer slider, anything else a float slider.
    """
    if not isinstance(description, str):
        raise TypeError(f"description: expected a string, got {description!r}")
    whole = all(isinstance(v, int) and not isinstance(v, bool) for v in (value, low, high, step))
    value, low, high, step = (_checks.real(v, name) for v, name in
                              ((value, "value"), (low, "low"), (high, "high"), (step, "step")))
    if whole:
        value, low, high, step = int(value), int(low), int(high), int(step)
    if not low <= value <= high or not step > 0:
        raise ValueError(f"value: expected low <= value <= high and step > 0, got {value} in [{low}, {high}] step {step}")
    cls = widgets.IntSlider if whole else widgets.FloatSlider
    return cls(value=value, min=low, max=high, step=step, description=description, continuous_update=False,
               style=_STYLE, layout=widgets.Layout(**_LAYOUT))


def choice(description: str, options: Sequence[Any], value: Any = None) -> widgets.Widget:
    """A slider over a list of options (for example the names of remedies)."""
    if not isinstance(description, str):
        raise TypeError(f"description: expected a string, got {description!r}")
    options = _checks.sequence(options, "options")
    if not options:
        raise ValueError("options: expected at least one option")
    value = options[0] if value is None else value
    if value not in options:
        raise ValueError(f"value: expected one of {options}, got {value!r}")
    return widgets.SelectionSlider(options=options, value=value, description=description, continuous_update=False,
                                   style=_STYLE, layout=widgets.Layout(**_LAYOUT))


class Explorer(widgets.VBox):
    """Sliders, the view's readings and its picture (an ``ipywidgets.Image``), in one column."""

    def __init__(self, compute: Callable[..., Any], view: Callable[..., Any], controls: dict[str, widgets.Widget],
                 title: str) -> None:
        if not controls:
            raise ValueError("controls: an explorer needs at least one slider")
        params = inspect.signature(compute).parameters
        takes_all = any(p.kind is p.VAR_KEYWORD for p in params.values())
        self.compute, self.make_view, self.controls, self.title = compute, view, controls, title
        self.computed = [name for name in controls if takes_all or name in params]
        self.shown = [name for name in controls if name not in self.computed]
        self._results: OrderedDict[tuple, tuple] = OrderedDict()
        data, options = self._inputs()
        self.view = view(*data, **options)
        self.image = widgets.Image(value=self.view.image(), format="jpeg", layout=widgets.Layout(width="100%"))
        self.readout = widgets.HTML(self._readout_html())
        super().__init__([widgets.HTML(f"<h4>{html.escape(title)}</h4>"), *controls.values(), self.readout, self.image])
        for control in controls.values():
            control.observe(self._on_change, names="value")

    def values(self) -> dict[str, Any]:
        """The current slider values, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def _inputs(self) -> tuple[tuple, dict[str, Any]]:
        """The view's arguments for the current sliders: ``compute``'s result, and the shown sliders."""
        values = self.values()
        key = tuple(values[name] for name in self.computed)
        if key in self._results:
            self._results.move_to_end(key)
        else:
            result = self.compute(**{name: values[name] for name in self.computed})
            self._results[key] = result if isinstance(result, tuple) else (result,)
            if len(self._results) > REMEMBERED:
                self._results.popitem(last=False)
        return self._results[key], {name: values[name] for name in self.shown}

    def _on_change(self, _change: dict) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Recompute (if a computed slider moved), redraw the picture and the readings."""
        data, options = self._inputs()
        self.view.update(*data, **options)
        self.image.value = self.view.image()
        self.readout.value = self._readout_html()

    def readings(self) -> dict[str, list]:
        """The numbers the explorer shows beside its picture (the view's readings)."""
        return self.view.readings()

    def _readout_html(self) -> str:
        rows = "".join(
            f"<tr><td style='padding-right:1em'><b>{html.escape(group)}</b></td><td>"
            + " &nbsp;·&nbsp; ".join(html.escape(str(r)) for r in values)
            + "</td></tr>"
            for group, values in self.readings().items()
        )
        return f"<table style='font-family:monospace;font-size:12px;white-space:nowrap'>{rows}</table>"

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        """The widget view, with the whole text form (ipywidgets would cut it at 110 characters)."""
        bundle = super()._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        return bundle

    def __repr__(self) -> str:
        settings = ", ".join(f"{k}={v}" for k, v in self.values().items())
        lines = [f"{self.title} [{settings}]"]
        for group, values in self.readings().items():
            lines.append(f"  {group}: " + ", ".join(str(r) for r in values))
        return "\n".join(lines)


def explore(compute: Callable[..., Any], view: Callable[..., Any], title: str = "Explorer",
            **controls: widgets.Widget) -> Explorer:
    """Sliders (``controls``, by name) wired to ``compute`` and a ``view`` class; see the module text."""
    return Explorer(compute, view, controls, title)
