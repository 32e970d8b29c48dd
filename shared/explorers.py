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

Frames: where every slider of an explorer has a few settings the browser can name by position (a
:func:`choice`, or a whole-number :func:`slider` from 0 by 1; at most :data:`FRAMES` settings in all),
the picture and readings of every setting are a *frame*, and the explorer holds all of them in the
browser: one ``ipywidgets.Stack`` per slider, linked to it in the browser (``jslink``), shows the
frame of the current setting, so a move swaps pictures in the page and asks the kernel for nothing.
The frames come from the study store (:mod:`shared.store`), keyed by the content of what the view
draws (``compute``'s results for every setting, the view's class, matplotlib's and Pillow's
versions and the toolkit's code): drawn once per machine, by whoever fills the store and only
then (``python -m shared.real.build``, which sets :data:`shared.store.DRAW_FRAMES`), and read by
every kernel; without frames an explorer is live. A learner who
changes the data draws other content, finds no frames for it and gets the live explorer, redrawn
by the kernel on each move; a store this user cannot write is only read.

Drawn ahead: a live explorer, after each move, draws the settings one notch away on each slider (the
slider just moved first, in the direction it moved) while the learner looks, one picture at a time so
that a move in between waits for one at most, and sends them to the page (:class:`shared.ahead.Ahead`), which
holds the last :data:`~shared.ahead.AHEAD_KEPT`: a move to one of them shows its picture and readings at once, from
the page, which tells the kernel so (before the slider's own message), and the kernel sends nothing
back. Any other move (a jump, a drag) is drawn when it comes. Nothing is drawn ahead where :data:`~shared.ahead.DRAW_AHEAD` is ``0`` in the environment
(the class server sets it: thirty learners' guesses would cost the machine's cores many times what
they look at), nor outside a running kernel.

The explorer's text form (what a notebook stores as ``text/plain``) lists its settings and the
view's readings, so the regression tests compare the numbers it shows.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import inspect
import itertools
import os
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as widgets
from ipywidgets.widgets.widget_string import HTMLStyle
import numpy as np

from . import _checks
from .ahead import AHEAD_KEPT, AHEAD_PAUSE, DRAW_AHEAD, Ahead, notch, notch_value, notches_of
from ._stored import digest_content
from .figures.engine import storable, stored_drawing

REMEMBERED = 32
CSS_CLASS = "course-explorer"  # how a page (and the browser tests) finds an explorer
FRAMES = 256  # at most this many settings are drawn ahead as frames
FRAMES_KEY_SECONDS = 2.0  # computing every setting to key the frames may take this long, else the explorer stays live
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
        self._view: Any = None
        self._frames = _frames(self)
        heading = widgets.HTML(f"<h4>{html.escape(title)}</h4>")
        if self._frames is not None:
            self._stacks, self._links = self._frame_stacks()
            super().__init__([heading, *controls.values(), self._stacks[0]])
            self.add_class(CSS_CLASS)
            return
        self._stale = False  # the view drew a setting ahead, not the current one
        self._drawn: OrderedDict[str, tuple[bytes, dict]] = OrderedDict()  # key -> (picture, readings)
        self._in_page: OrderedDict[str, None] = OrderedDict()  # keys the page holds (Ahead), oldest first
        self._generation, self._moved, self._page_ready = 0, (next(iter(controls)), 1), False
        self._page_holds: dict[str, bool] = {}  # setting -> whether every page that moved to it held it
        self._live = widgets.Image(value=self.view.image(), format="jpeg", layout=widgets.Layout(width="100%"))
        self._readings = self.view.readings()
        if self._key() is not None:
            _remembered(self._drawn, self._key(), lambda: (self._live.value, self._readings))
        self.readout = widgets.HTML(_readout_html(self._readings))
        shown = [heading, *controls.values(), self.readout, self._live]
        self._ahead = None
        if os.environ.get(DRAW_AHEAD, "1") != "0" and all(notches_of(c) != "none" for c in controls.values()):
            self._ahead = Ahead(controls=[c.model_id for c in controls.values()], image=self._live.model_id,
                                readout=self.readout.model_id, axes=[notches_of(c) for c in controls.values()],
                                layout=widgets.Layout(display="none"))
            self._ahead.on_msg(self._page_says)
            shown.append(self._ahead)
        super().__init__(shown)
        self.add_class(CSS_CLASS)
        for control in controls.values():
            control.observe(self._on_change, names="value")

    @property
    def live(self) -> bool:
        """Whether the kernel redraws on every move (no frames for this explorer's content)."""
        return self._frames is None

    @property
    def view(self) -> Any:
        """The view drawing the current setting (in an explorer with frames, made when first asked for)."""
        if self._view is None:
            self._view = self.make_view.of(self._scene())
        elif self._frames is not None or self._stale:
            self._view.draw(self._scene())
            self._stale = False
        return self._view

    @property
    def image(self) -> widgets.Image:
        """The ``Image`` widget showing the current setting's picture."""
        if self._frames is None:
            return self._live
        return self._frames_images[self._frame_index()]

    def _frame_index(self) -> int:
        index = 0
        for name, (values, _) in zip(self.controls, self._frames["axes"]):
            index = index * len(values) + values.index(self.controls[name].value)
        return index

    def _frame_stacks(self) -> tuple[list[widgets.Stack], list[widgets.Widget]]:
        """One Stack per setting of the sliders before the last (nested, the first slider outermost),
        each linked in the browser to its slider; their leaves are the frames (readings, picture)."""
        # Every widget is one message to the page when the cell runs: the frames share their layouts and
        # style, so a frame costs three (its readings, its picture and the box holding both) instead of
        # seven, and the stacks share theirs. 09's 124 frames had sent about 970 messages at once, near
        # the 1,000 a kernel's output socket holds for a busy server before it drops messages (the
        # cell's "idle" among them: the notebook then waits for ever)
        image_layout, html_layout, box_layout = widgets.Layout(width="100%"), widgets.Layout(), widgets.Layout()
        html_style = HTMLStyle()
        self._frames_images = [widgets.Image(value=image.tobytes(), format="jpeg", layout=image_layout)
                               for image in self._frames["images"]]
        leaves = [widgets.VBox([widgets.HTML(_readout_html(readings), layout=html_layout, style=html_style), image],
                               layout=box_layout)
                  for readings, image in zip(self._frames["readings"], self._frames_images)]
        axes = self._frames["axes"]
        stacks: list[widgets.Stack] = []
        links: list[widgets.Widget] = []

        def level(depth: int, start: int, size: int) -> widgets.Widget:
            values, trait = axes[depth]
            step = size // len(values)
            children = [leaves[start + i] if depth == len(axes) - 1 else level(depth + 1, start + i * step, step)
                        for i in range(len(values))]
            control = list(self.controls.values())[depth]
            stack = widgets.Stack(children, selected_index=values.index(control.value), layout=box_layout)
            stacks.append(stack)
            links.append(widgets.jslink((control, trait), (stack, "selected_index")))
            return stack

        outermost = level(0, 0, len(leaves))
        return [outermost, *(stack for stack in stacks if stack is not outermost)], links

    def values(self) -> dict[str, Any]:
        """The current slider values, by name."""
        return {name: control.value for name, control in self.controls.items()}

    def _inputs(self, values: dict[str, Any] | None = None) -> tuple[tuple, dict[str, Any]]:
        """The view's arguments for the current sliders (or the setting ``values``): ``compute``'s
        result, and the shown sliders."""
        values = self.values() if values is None else values
        key = tuple(values[name] for name in self.computed)
        data = _remembered(self._results, key, lambda: self.compute(**{name: values[name] for name in self.computed}))
        return data if isinstance(data, tuple) else (data,), {name: values[name] for name in self.shown}

    def _scene(self, values: dict[str, Any] | None = None) -> Any:
        """What the view draws for the current sliders (or the setting ``values``): its ``measure`` of
        :meth:`_inputs`."""
        data, options = self._inputs(values)
        return self.make_view.measure(*data, **options)

    def _on_change(self, change: dict) -> None:
        name = next(n for n, c in self.controls.items() if c is change["owner"])
        old, new = (notch(change["owner"], v) for v in (change["old"], change["new"]))
        self._moved = (name, -1 if None not in (old, new) and new < old else 1)
        self.refresh()

    def _key(self, values: dict[str, Any] | None = None) -> str | None:
        """The setting ``values`` (the current one by default) as the page names it: each slider's notch
        (shared/data/ahead.js); None where a value is not on its slider's grid (set by code, or a
        slider the page cannot number), which is drawn when shown and never held."""
        values = self.values() if values is None else values
        notches = [notch(control, values[name]) for name, control in self.controls.items()]
        return None if None in notches else ",".join(map(str, notches))

    def refresh(self) -> None:
        """Recompute (if a computed slider moved), redraw the picture and the readings (a live
        explorer; one with frames shows the current one already), unless it was drawn ahead; then draw
        ahead the settings one notch away."""
        if self._frames is not None:
            return
        self._generation += 1
        key = self._key()
        if key is not None and key in self._drawn:  # drawn ahead (the page shows it already, where it holds it) or before
            picture, self._readings = _remembered(self._drawn, key, None)
            self._stale = True
        else:
            self._view.draw(self._scene())
            self._stale = False
            picture, self._readings = self._view.image(), self._view.readings()
            if key is not None:
                _remembered(self._drawn, key, lambda: (picture, self._readings))
        shown = _readout_html(self._readings)
        held = self._page_holds.pop(key, False) and key in self._in_page
        for widget, value in ((self._live, picture), (self.readout, shown)):
            if held:  # the page showed its own copy (it said so before the slider's message): not sent again
                with widget._lock_property(value=value):  # as ipywidgets does for a value the page sent
                    widget.value = value
            else:
                widget.value = value
        self._page_holds.clear()
        self._draw_ahead_later(self._generation)

    def _page_says(self, _widget: Any, content: dict, _buffers: list) -> None:
        """A page showing the explorer is ready (a window opened or reloaded): it holds nothing, so
        what was drawn ahead of the current setting is sent again (and drawn, where it was not)."""
        if content.get("ready"):
            self._page_ready = True
            self._in_page.clear()
            self._generation += 1
            self._draw_ahead_later(self._generation)
        elif content.get("shows") is not None:  # a slider moved in a page, which held that setting's picture or not
            key, held = str(content["shows"]), content.get("held") is True
            if key == self._key() and not held and key not in self._page_holds:
                # the move is shown in the kernel already (another window moved it): this page needs it
                self._live.send_state("value")
                self.readout.send_state("value")
            else:
                self._page_holds[key] = self._page_holds.get(key, True) and held

    def _settings_ahead(self) -> list[dict[str, Any]]:
        """The settings one notch away from the current one on each slider: the slider just moved first,
        in the direction it moved, then the way back, then the other sliders."""
        current = self.values()
        moved, direction = self._moved
        order = [moved, *(name for name in self.controls if name != moved)]
        settings = []
        for name in order:
            for step in (direction, -direction):
                value = notch_value(self.controls[name], current[name], step)
                if value is not None:
                    settings.append({**current, name: value})
        return settings

    def draw_ahead(self) -> int:
        """Draw the settings one notch away now (what a kernel does between moves) and send a page that
        is ready those it does not hold. Returns how many pictures were drawn."""
        if self._frames is not None:
            return 0
        return sum(self._draw_one_ahead(setting) for setting in self._settings_ahead())

    def _draw_ahead_later(self, generation: int) -> None:
        """Draw ahead one setting at a time on the kernel's event loop, a pause between two (a move that
        came meanwhile is read first), until the settings are drawn or the sliders moved again."""
        if self._ahead is None or not self._page_ready:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not in a running kernel: nothing is drawn ahead
            return
        todo = self._settings_ahead()

        def step() -> None:
            if generation == self._generation and todo:
                self._draw_one_ahead(todo.pop(0))
                loop.call_later(AHEAD_PAUSE, step)

        loop.call_later(AHEAD_PAUSE, step)

    def _draw_one_ahead(self, setting: dict[str, Any]) -> bool:
        """Draw ``setting`` (unless drawn already) and send it to the page (unless it holds it). Returns
        whether a picture was drawn."""
        key = self._key(setting)
        drawn = key not in self._drawn
        if drawn:
            self._stale = True  # from here, the view no longer shows the current setting
            with warnings.catch_warnings(record=True) as caught:  # this setting's own, kept for its move
                warnings.simplefilter("always")
                try:
                    self._view.draw(self._scene(setting))
                    made = self._view.image(), self._view.readings()
                except Exception:  # noqa: BLE001 (drawn, and failing, if moved to)
                    caught.append(None)
            if caught:  # not drawn ahead: when moved to, computed and drawn again, where it warns or fails
                self._results.pop(tuple(setting[name] for name in self.computed), None)
                return False
            _remembered(self._drawn, key, lambda: made)
        if self._ahead is not None and self._page_ready and key not in self._in_page:
            picture, readings = self._drawn[key]
            self._ahead.send({"key": key, "readout": _readout_html(readings)}, [picture])
            _remembered(self._in_page, key, lambda: None, AHEAD_KEPT)
        return drawn

    def readings(self) -> dict[str, list]:
        """The numbers the explorer shows beside its picture (the view's readings)."""
        if self._frames is not None:
            return self._frames["readings"][self._frame_index()]
        return self._readings

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


def _readout_html(readings: dict[str, list]) -> str:
    rows = "".join(
        f"<tr><td style='padding-right:1em'><b>{html.escape(group)}</b></td><td>"
        + " &nbsp;·&nbsp; ".join(html.escape(str(r)) for r in values)
        + "</td></tr>"
        for group, values in readings.items()
    )
    return f"<table style='font-family:monospace;font-size:12px;white-space:nowrap'>{rows}</table>"


def _axis(control: widgets.Widget) -> tuple[list, str] | None:
    """The values of a slider in the order the browser numbers them, and the trait that carries
    that number: a choice's options (its ``index``), a whole-number slider's values from 0 by 1
    (its ``value``); None for any other slider (the browser cannot name its frame)."""
    if isinstance(control, widgets.SelectionSlider):
        return list(control.options), "index"
    if isinstance(control, widgets.IntSlider) and control.min == 0 and control.step == 1:
        return list(range(control.max + 1)), "value"
    return None


def _frames(explorer: Explorer) -> dict | None:
    """The explorer's frames: ``axes`` (each slider's values and trait), and for every setting (the
    first slider outermost) its picture (``images``, JPEG bytes as uint8 arrays) and ``readings``;
    read from the study store, drawn into it while the store is built
    (:data:`shared.store.DRAW_FRAMES`) by a user who may write it; None
    where the explorer stays live (a view defined outside the toolkit, sliders the browser cannot
    number, too many settings, content the store cannot key or that takes too long to compute, or no
    frames and a store it cannot write)."""
    if not storable(explorer.make_view):  # before computing every setting to key frames that cannot exist
        return None
    axes = [_axis(control) for control in explorer.controls.values()]
    if any(axis is None for axis in axes) or np.prod([len(values) for values, _ in axes]) > FRAMES:
        return None
    names = list(explorer.controls)
    settings = [dict(zip(names, setting)) for setting in itertools.product(*(values for values, _ in axes))]
    digest = hashlib.sha256()
    start = time.perf_counter()
    for setting in settings:
        try:
            digest_content(digest, explorer._inputs(setting))
        except TypeError:  # content the store cannot keep, so cannot name
            return None
        if time.perf_counter() - start > FRAMES_KEY_SECONDS:
            return None
    frames = stored_drawing("explorer frames", explorer.make_view, digest, lambda: _draw_frames(explorer, settings))
    if frames is None:
        return None
    return {"axes": axes, **frames}


def _draw_frames(explorer: Explorer, settings: list[dict[str, Any]]) -> dict:
    """The picture and readings of every setting, drawn the way a live explorer draws them."""
    images, readings = [], []
    view = None
    for setting in settings:
        scene = explorer._scene(setting)
        if view is None:
            view = explorer.make_view.of(scene)
        else:
            view.draw(scene)
        images.append(np.frombuffer(view.image(), dtype=np.uint8))
        readings.append(view.readings())
    return {"images": images, "readings": readings}


def _remembered(memory: OrderedDict, key: Any, make: Callable[[], Any] | None, keep: int = REMEMBERED) -> Any:
    """``memory[key]``, made by ``make()`` if absent; the oldest of more than ``keep`` is forgotten."""
    if key in memory:
        memory.move_to_end(key)
    else:
        memory[key] = make()
        if len(memory) > keep:
            memory.popitem(last=False)
    return memory[key]


def explore(compute: Callable[..., Any], view: type, title: str = "Explorer",
            **controls: widgets.Widget) -> Explorer:
    """Sliders (``controls``, by name) wired to ``compute`` and a ``view`` class (a
    :class:`~shared.figures.View`: its ``measure``, ``of`` and ``draw``); see the module text."""
    return Explorer(compute, view, controls, title)
