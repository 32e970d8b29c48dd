"""Fast redraw for live figures: the plumbing that makes a slider move cheap.

A :class:`LiveFigure` owns a matplotlib ``Figure`` (no pyplot, so nothing global changes).
:meth:`LiveFigure.image` redraws only the artists listed in ``moving`` (and the legends) over a
cached picture of everything else (axes, ticks, labels), and redraws the whole figure only when an
axis limit changes. What is drawn, and from which data, is the business of the subclasses in
:mod:`shared.figures`; this module knows nothing about the course.
"""

from __future__ import annotations

import io
import math
from typing import Any

import matplotlib as mpl
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from PIL import Image


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


class LiveFigure:
    """A figure of ``ncols`` panels in a row, drawn under the matplotlib settings ``style``."""

    def __init__(self, figsize: tuple[float, float], ncols: int, title: str, style: dict[str, Any]) -> None:
        self.style = style
        with mpl.rc_context(style):
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
        with mpl.rc_context(self.style):
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
        with mpl.rc_context(self.style):
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
            with mpl.rc_context(self.style):
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
    buf = io.BytesIO()
    rgba = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba())
    rgba.convert("RGB").save(buf, format="jpeg", quality=95)
    return buf.getvalue()
