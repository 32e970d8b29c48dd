"""The engine every view draws with: a figure that redraws fast, the course's style and the View base class.

A :class:`LiveFigure` owns a matplotlib ``Figure`` (no pyplot, so nothing global changes).
:meth:`LiveFigure.image` redraws only the artists listed in ``moving`` (and the legends) over a
cached picture of everything else (axes, ticks, labels), and redraws the whole figure only when an
axis limit changes. A :class:`View` is a LiveFigure in the course's style (:data:`STYLE`) that
draws one scene; what is drawn, and from which data, is the business of its subclasses in
:mod:`shared.figures.views_toys` and :mod:`shared.figures.views_real`.
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from importlib.metadata import version
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np

from .. import store
from .._stored import digest_content
from ..meters import Reading

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.backends.backend_agg import FigureCanvasAgg

T = TypeVar("T")

__all__ = [
    "BLUE",
    "DARK_BLUE",
    "DARK_RED",
    "GOLD",
    "GREEN",
    "GREY",
    "INK",
    "ORANGE",
    "RED",
    "STYLE",
    "LiveFigure",
    "View",
    "course_style",
    "decade_below",
    "nice_limit",
    "square_limits",
]


def nice_limit(x: float) -> float:
    """The smallest of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten that is at least ``x`` (``x > 0``).

    Axis limits snapped to such values stay put while a slider moves a little, so most redraws
    can reuse the cached background.
    """
    if not (math.isfinite(x) and x > 0):
        raise ValueError(f"x: expected a positive finite number, got {x}")
    power = 10.0 ** math.floor(math.log10(x))
    for step in (1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0):
        if step * power >= x * (1 - 1e-12):
            return step * power
    return 10.0 * power


def _rc(style: dict[str, Any]) -> AbstractContextManager[Any]:
    """matplotlib's settings ``style`` for the ``with`` block (matplotlib is loaded here, when a
    picture is first drawn, not when a view's module is imported)."""
    import matplotlib as mpl

    return mpl.rc_context(style)


def stored_drawing(name: str, view: type, digest: Any, draw: Callable[[], T]) -> T | None:
    """What the study store holds as ``name`` for the view class ``view`` and the content ``digest`` (a
    ``hashlib`` hash fed with what is drawn, :func:`shared._stored.digest_content`) under this
    matplotlib, Pillow and matplotlib settings: drawn by ``draw()`` and stored when missing while the
    store is built by a user who may write it (:data:`shared.store.DRAW_FRAMES`); None otherwise (the
    caller draws live), and always None for a view defined outside the toolkit (a learner's own: the
    store's key knows only the toolkit's code)."""
    if not storable(view):
        return None
    inputs = [f"view:{view.__module__}:{view.__qualname__}", f"content:{digest.hexdigest()}",
              *(f"{library} {version(library)}" for library in ("matplotlib", "pillow")), *_changed_settings()]
    shelf = store.default()
    found = shelf.find(name, inputs)
    if found is None and shelf.writable and os.environ.get(store.DRAW_FRAMES) == "1":
        found = shelf.get(name, inputs, draw)
    return found


_TOOLKIT = __name__.split(".")[0] + "."  # "shared.": the package whose code is the store's code version


def storable(view: type) -> bool:
    """Whether the study store may hold drawings of the view class ``view``: only the toolkit's views,
    whose code is part of the store's key (a view defined in a notebook is always drawn live)."""
    return view.__module__.startswith(_TOOLKIT)


# matplotlib settings that do not change what a view draws on its own canvas (where figures are shown,
# how a session behaves); any other setting changed from matplotlib's defaults is part of a drawing's key
_NOT_DRAWN = ("backend", "backend_fallback", "interactive", "toolbar", "timezone", "figure.max_open_warning",
              "savefig.directory", "webagg.", "keymap.", "tk.", "macosx.")


def _changed_settings() -> list[str]:
    """The matplotlib settings of this process that differ from matplotlib's defaults, as ``name=value``
    (none where matplotlib is not loaded: nothing can have changed them)."""
    mpl = sys.modules.get("matplotlib")
    if mpl is None or not hasattr(mpl, "rcParamsDefault"):
        return []
    defaults = mpl.rcParamsDefault
    return sorted(f"{name}={value!r}" for name, value in mpl.rcParams.items()
                  if not name.startswith(_NOT_DRAWN) and value != defaults.get(name))


class LiveFigure:
    """A figure of ``ncols`` panels in a row, drawn under the matplotlib settings ``style``."""

    def __init__(self, figsize: tuple[float, float], ncols: int, title: str, style: dict[str, Any]) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.style = style
        with _rc(style):
            self.fig = Figure(figsize=figsize, layout="constrained")
            FigureCanvasAgg(self.fig)
            self.axes = list(self.fig.subplots(1, ncols, squeeze=False)[0])
            self.fig.suptitle(title, fontsize=12.5, fontweight="bold")
        self.title = title
        self._unlaid: list | None = None  # the panels' positions before any layout
        self.moving: list[Artist] = []
        self._background: Any = None
        self._layout_key: tuple = ()
        self._legend_pixels: dict[int, tuple[tuple, Any]] = {}

    def _layout(self) -> tuple:
        """What forces a full redraw when it changes: the axis limits."""
        return tuple(lim for ax in self.fig.axes for lim in (ax.get_xlim(), ax.get_ylim()))

    def _dynamic(self) -> list[Artist]:
        """The moving artists and the legends (a legend's text may carry a number that moves)."""
        legends = [ax.get_legend() for ax in self.fig.axes]
        return self.moving + [leg for leg in legends if leg is not None]

    def full_image(self) -> bytes:
        """Draw the whole figure from scratch and encode it (the slow path, for comparison)."""
        self._stop_blitting()
        with _rc(self.style):
            self.fig.canvas.draw()
        return _jpeg(self.fig.canvas)

    def _stop_blitting(self) -> None:
        for artist in self._dynamic():
            artist.set_animated(False)
        self._background = None

    def _repr_png_(self) -> bytes:
        """The whole figure as PNG at 100 dpi: how a notebook shows it as a static figure."""
        self._stop_blitting()
        buf = io.BytesIO()
        with _rc(self.style):
            self.fig.savefig(buf, format="png", dpi=100)
        return buf.getvalue()

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.title}>"

    def image(self) -> bytes:
        """JPEG of the current state, redrawing only the moving artists when the layout is unchanged."""
        canvas = self.fig.canvas
        dynamic = self._dynamic()
        for artist in dynamic:
            artist.set_animated(True)
        for artist in self.moving:
            artist.set_in_layout(False)  # where a moving label sits must not move the panels
        key = self._layout()
        if self._background is None or key != self._layout_key:
            # New limits can change the width of tick labels: lay the figure out again, from the
            # same starting positions (so the same limits always give the same picture), then
            # freeze that layout, so that the blitted redraws in between need no layout pass.
            if self._unlaid is None:
                self._unlaid = [(ax, ax.get_position(original=True).frozen()) for ax in self.fig.axes]
            for ax, position in self._unlaid:
                ax.set_position(position, which="both")
            self.fig.set_layout_engine("constrained")
            with _rc(self.style):
                canvas.draw()
            self.fig.set_layout_engine("none")
            self._background = canvas.copy_from_bbox(self.fig.bbox)
            self._layout_key = key
            self._legend_pixels.clear()
        else:
            canvas.restore_region(self._background)
        for artist in dynamic:
            if artist.get_visible():
                self._draw_dynamic(artist)
        return _jpeg(canvas)

    def _draw_dynamic(self, artist: Artist) -> None:
        """Draw one moving artist; a legend whose texts did not change is pasted from a cache.

        Legends must be opaque (``legend.framealpha`` 1) for this: their pixels then do not depend
        on what lies beneath, and rendering their text is the slowest part of a redraw.
        """
        from matplotlib.legend import Legend

        canvas = self.fig.canvas
        if not isinstance(artist, Legend):
            self.fig.draw_artist(artist)
            return
        texts = tuple(t.get_text() for t in artist.get_texts())
        cached = self._legend_pixels.get(id(artist.axes))
        if cached is not None and cached[0] == texts:
            canvas.restore_region(cached[1])
            return
        self.fig.draw_artist(artist)
        box = artist.get_window_extent(canvas.get_renderer()).padded(1)
        self._legend_pixels[id(artist.axes)] = (texts, canvas.copy_from_bbox(box))


def _jpeg(canvas: FigureCanvasAgg) -> bytes:
    """The canvas buffer as a JPEG at quality 95.

    Encoding is on the path of every slider move: JPEG takes about 1 ms for an explorer's
    picture where PNG takes about 9 ms, and at this quality the difference is not visible.
    """
    from PIL import Image

    buf = io.BytesIO()
    rgba = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba())
    rgba.convert("RGB").save(buf, format="jpeg", quality=95)
    return buf.getvalue()


# The palette: every colour a view uses comes from here.
BLUE, RED, ORANGE, GREEN, INK = "#2980b9", "#c0392b", "#e67e22", "#27ae60", "#2c3e50"
DARK_BLUE, DARK_RED, GREY, GOLD = "#1b4f72", "#7b241c", "#7f8c8d", "gold"

STYLE: dict[str, Any] = {
    "figure.dpi": 72,
    "savefig.dpi": 72,
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 11,
    "figure.facecolor": "white",
    "axes.facecolor": "#f8f9fa",
    "axes.grid": True,
    "grid.alpha": 0.35,
    "legend.fontsize": 9,
    "legend.framealpha": 1.0,  # opaque legends: the fast redraw pastes them from a cache
}


def course_style() -> AbstractContextManager[None]:
    """The course's matplotlib style, as a context manager: ``with course_style(): ...``.

    Every view of this module draws inside it; a learner's own plot can too. Nothing outside
    the ``with`` block changes.
    """
    return _rc(STYLE)


class View(LiveFigure):
    """A course figure: ``NCOLS`` panels in a row, in the course's style, drawing one scene.

    A subclass names its pure function (``measure``), its size and title, builds its artists once
    (``_build``, from the first scene) and draws a scene (``_draw``).

    The matplotlib figure is made when it is first needed (an attribute of the figure is asked for,
    a picture is drawn): a view shown once as a static figure whose picture the study store holds
    (drawn there while the store was built, :data:`shared.store.DRAW_FRAMES`, for the same scene
    under the same code, matplotlib and Pillow) is shown from the store, without loading matplotlib.
    A scene that differs in any number (a learner's own data) has no stored picture and is drawn.
    """

    measure: ClassVar[Callable[..., Any]]
    FIGSIZE: ClassVar[tuple[float, float]]
    NCOLS: ClassVar[int]
    TITLE: ClassVar[str]

    def __init__(self, *data: Any, **options: Any) -> None:
        self._start(type(self).measure(*data, **options))

    @classmethod
    def of(cls, scene: Any) -> View:
        """The view of a scene already measured (what an explorer builds)."""
        view = cls.__new__(cls)
        view._start(scene)
        return view

    def _start(self, scene: Any) -> None:
        self.scene = scene
        self.title = self.TITLE

    def _make_figure(self) -> None:
        """The figure, its artists, and the current scene drawn on them. If that fails, the view is
        left as it was: its next use tries again and fails the same way, never showing half a figure."""
        before = set(self.__dict__)
        self._making = True
        try:
            super().__init__(self.FIGSIZE, self.NCOLS, self.TITLE, STYLE)
            self._build(self.scene)
            self._draw(self.scene)
        except BaseException:
            for name in set(self.__dict__) - before:
                del self.__dict__[name]
            raise

    def __getattr__(self, name: str) -> Any:
        # Called only for an attribute the view does not have yet: one of its figure's, before the
        # figure is made (once; never for the names that copy, pickle and IPython's display probe for).
        if (name.startswith(("__", "_repr_", "_ipython_")) or "scene" not in self.__dict__
                or "_making" in self.__dict__):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        self._make_figure()
        return getattr(self, name)

    def _repr_png_(self) -> bytes:
        """The whole figure as PNG at 100 dpi; a view whose figure is not made yet is read from the
        study store when it holds this scene's picture (and stored there while the store is built)."""
        if "_making" not in self.__dict__:
            picture = self._stored_png()
            if picture is not None:
                return picture
        return super()._repr_png_()

    def _stored_png(self) -> bytes | None:
        digest = hashlib.sha256()
        try:
            digest_content(digest, self.scene)
        except TypeError:  # a scene the store cannot keep, so cannot name
            return None
        picture = stored_drawing("view picture", type(self), digest,
                                 lambda: np.frombuffer(super(View, self)._repr_png_(), np.uint8))
        return None if picture is None else picture.tobytes()

    def _build(self, scene: Any) -> None:
        """Create the artists (most of them empty) and the fixed labels; default: nothing."""

    def _draw(self, scene: Any) -> None:
        raise NotImplementedError

    def draw(self, scene: Any) -> None:
        """Draw ``scene`` (the result of ``measure``): set the artists' data and the axis limits."""
        self.scene = scene
        if "_making" not in self.__dict__:
            self._make_figure()  # draws the scene
        else:
            self._draw(scene)

    def update(self, *data: Any, **options: Any) -> None:
        """Measure the constructor's arguments and draw them."""
        self.draw(type(self).measure(*data, **options))

    def readings(self) -> dict[str, list[Reading]]:
        """The numbers this view annotates, by group (what an explorer prints beside its sliders)."""
        return getattr(self.scene, "readings", {})


def decade_below(x: float) -> float:
    """The power of ten at or below ``x / 2``: a log axis floor that moves only a decade at a time."""
    return 10.0 ** math.floor(math.log10(max(x, 1e-300) / 2))


def square_limits(ax: Any, points: np.ndarray) -> None:
    """Symmetric, equal x and y limits that hold every point, snapped to a nice value."""
    lim = nice_limit(1.05 * max(np.abs(points).max(), 1e-12))
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
