"""Slider panels: sliders wired to a function that computes and a view that draws.

A notebook writes the wiring in one visible cell::

    explore(sphere_and_cone, SphereConeView,
            strength=slider("s: cone strength", 4.0, 0.0, 10.0, 0.25),
            residual=slider("σ: residual noise", 0.10, 0.01, 1.0, 0.01))

On every move, the sliders that ``compute`` takes as parameters are passed to it; its result
(a tuple is spread into arguments) and the remaining sliders are passed to the view's ``measure``
(a pure function of the scenes of :mod:`shared.figures`, no drawing), and the scene it returns to the view's
``draw``. So a slider that only changes what is *shown* (a depth, a highlighted setting) costs a
scene and a redraw, not a recomputation. The results of ``compute`` are remembered for the last
:data:`REMEMBERED` settings of its sliders, so going back to a setting recomputes nothing: the one
memo between a slider and a measurement (a scene is a cheap function of a result, made again). Sliders report a value when released
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

    def __init__(self, compute: Callable[..., Any], view: type, controls: dict[str, widgets.Widget],
                 title: str) -> None:
        if not controls:
            raise ValueError("controls: an explorer needs at least one slider")
        if not all(callable(getattr(view, name, None)) for name in ("measure", "of")):
            raise TypeError(f"view: expected a view class (with measure, of and draw), got {view!r}")
        params = inspect.signature(compute).parameters
        takes_all = any(p.kind is p.VAR_KEYWORD for p in params.values())
        self.compute, self.make_view, self.controls, self.title = compute, view, controls, title
        self.computed = [name for name in controls if takes_all or name in params]
        self.shown = [name for name in controls if name not in self.computed]
        self._results: OrderedDict[tuple, tuple] = OrderedDict()
        self.view = view.of(self._scene())
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
        data = _remembered(self._results, key, lambda: self.compute(**{name: values[name] for name in self.computed}))
        return data if isinstance(data, tuple) else (data,), {name: values[name] for name in self.shown}

    def _scene(self) -> Any:
        """What the view draws for the current sliders: its ``measure`` of :meth:`_inputs`."""
        data, options = self._inputs()
        return self.make_view.measure(*data, **options)

    def _on_change(self, _change: dict) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Recompute (if a computed slider moved), redraw the picture and the readings."""
        self.view.draw(self._scene())
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


def _remembered(memory: OrderedDict[tuple, Any], key: tuple, make: Callable[[], Any]) -> Any:
    """``memory[key]``, made by ``make()`` if absent; the oldest of more than :data:`REMEMBERED` is forgotten."""
    if key in memory:
        memory.move_to_end(key)
    else:
        memory[key] = make()
        if len(memory) > REMEMBERED:
            memory.popitem(last=False)
    return memory[key]


def explore(compute: Callable[..., Any], view: type, title: str = "Explorer",
            **controls: widgets.Widget) -> Explorer:
    """Sliders (``controls``, by name) wired to ``compute`` and a ``view`` class (a
    :class:`~shared.figures.View`: its ``measure``, ``of`` and ``draw``); see the module text."""
    return Explorer(compute, view, controls, title)
