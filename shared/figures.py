"""The course's plot style and one view per experiment figure.

A view owns a matplotlib ``Figure`` (no pyplot, so nothing global changes) and draws one
experiment from a *scene*, the plain data a pure function of :mod:`shared.explorers` computes.
The notebook shows ``view.fig`` as its static figure; the explorer calls ``view.update(scene)``
and ``view.image()`` on every slider change. ``image()`` redraws only the artists that move and
keeps a cached background of everything else (axes, ticks, labels), which is what makes a
redraw fast; it redraws the whole figure when the axis limits or the layout change.
"""

from __future__ import annotations

import io
import math
from contextlib import AbstractContextManager
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from PIL import Image

BLUE, RED, ORANGE, GREEN, INK = "#2980b9", "#c0392b", "#e67e22", "#27ae60", "#2c3e50"

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
    "legend.framealpha": 1.0,
}


def course_style() -> AbstractContextManager[None]:
    """The course's matplotlib style, as a context manager: ``with course_style(): ...``.

    Every view of this module draws inside it; a learner's own plot can too. Nothing outside
    the ``with`` block changes.
    """
    return mpl.rc_context(STYLE)


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


class View:
    """Base class: a figure, the artists that move, and a fast path to image bytes."""

    def __init__(self, figsize: tuple[float, float], ncols: int, title: str) -> None:
        with course_style():
            self.fig = Figure(figsize=figsize, layout="constrained")
            FigureCanvasAgg(self.fig)
            self.axes = list(self.fig.subplots(1, ncols, squeeze=False)[0])
            self.fig.suptitle(title, fontsize=12.5, fontweight="bold")
        self.title = title
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
        return _to_image(self.fig.canvas, draw=True)

    def _stop_blitting(self) -> None:
        for artist in self._dynamic():
            artist.set_animated(False)
        self._background = None

    def _repr_png_(self) -> bytes:
        """The whole figure as PNG at 100 dpi: how a notebook shows a view as a static figure."""
        self._stop_blitting()
        buf = io.BytesIO()
        with course_style():
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
        key = self._layout()
        if self._background is None or key != self._layout_key:
            with course_style():
                canvas.draw()
            # Lay the figure out once; later full redraws keep those positions (much faster).
            self.fig.set_layout_engine("none")
            self._background = canvas.copy_from_bbox(self.fig.bbox)
            self._layout_key = key
            self._legend_pixels.clear()
        else:
            canvas.restore_region(self._background)
        for artist in dynamic:
            if artist.get_visible():
                self._draw_dynamic(artist)
        return _to_image(canvas)

    def _draw_dynamic(self, artist: Artist) -> None:
        """Draw one moving artist; a legend whose texts did not change is pasted from a cache.

        Legends are opaque (``legend.framealpha`` 1), so their pixels do not depend on what lies
        beneath, and rendering their text is the slowest part of a redraw.
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


def _to_image(canvas: FigureCanvasAgg, draw: bool = False) -> bytes:
    """The canvas buffer as a JPEG at quality 95.

    Encoding is on the path of every slider move: JPEG takes about 1 ms for an explorer's
    picture where PNG takes about 9 ms, and at this quality the difference is not visible.
    """
    if draw:
        with course_style():
            canvas.draw()
    buf = io.BytesIO()
    rgba = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba())
    rgba.convert("RGB").save(buf, format="jpeg", quality=95)
    return buf.getvalue()


# --------------------------------------------------------------------------------------------
# 01: sphere vs cone
# --------------------------------------------------------------------------------------------


class SphereConeView(View):
    """PCA scatter of the isotropic and the cone cloud on shared axes, and both spectra."""

    def __init__(self, scene: dict) -> None:
        super().__init__((14.0, 4.6), 3, "Experiment 1: isotropic sphere vs anisotropic cone")
        ax_iso, ax_cone, ax_spec = self.axes
        d = len(scene["eig_iso"])
        kw = dict(s=7, alpha=0.35, edgecolors="none")
        self.iso = ax_iso.scatter(*scene["pca_iso"].T, color=BLUE, **kw)
        self.cone = ax_cone.scatter(*scene["pca_cone"].T, color=RED, **kw)
        for ax, name in [(ax_iso, "Isotropic"), (ax_cone, "Narrow cone (anisotropic)")]:
            ax.set_aspect("equal")
            ax.set_xlabel("PC 1")
            ax.set_ylabel("PC 2")
            ax.set_title(name)
        rank = np.arange(1, d + 1)
        self.spec_iso, = ax_spec.plot(rank, _fractions(scene["eig_iso"]), "o-", color=BLUE, ms=3.5, label="isotropic")
        self.spec_cone, = ax_spec.plot(rank, _fractions(scene["eig_cone"]), "s-", color=RED, ms=3.5, label="cone")
        ax_spec.set_yscale("log")
        ax_spec.set_xlabel("eigenvalue rank")
        ax_spec.set_ylabel("fraction of variance (log)")
        ax_spec.set_title("Covariance spectrum: flat vs spiked")
        ax_spec.legend(loc="upper right")
        self.moving = [self.iso, self.cone, self.spec_iso, self.spec_cone]
        self.update(scene)

    def update(self, scene: dict) -> None:
        self.iso.set_offsets(scene["pca_iso"])
        self.cone.set_offsets(scene["pca_cone"])
        self.spec_iso.set_ydata(_fractions(scene["eig_iso"]))
        self.spec_cone.set_ydata(_fractions(scene["eig_cone"]))
        lim = nice_limit(1.05 * max(np.abs(scene["pca_iso"]).max(), np.abs(scene["pca_cone"]).max()))
        for ax in self.axes[:2]:
            ax.set_xlim(-lim, lim)
            ax.set_ylim(-lim, lim)
        fractions = np.concatenate([_fractions(scene["eig_iso"]), _fractions(scene["eig_cone"])])
        low = fractions[fractions > 0].min()
        self.axes[2].set_ylim(_decade_below(low), 1.5)


def _decade_below(x: float) -> float:
    """The power of ten at or below ``x / 2``: a log axis floor that moves only a decade at a time."""
    return 10.0 ** math.floor(math.log10(max(x, 1e-300) / 2))


def _fractions(eigs: np.ndarray) -> np.ndarray:
    """Eigenvalues as fractions of the total variance; exact zeros become NaN (no point on a log axis)."""
    f = eigs / eigs.sum()
    return np.where(f > 0, f, np.nan)


# --------------------------------------------------------------------------------------------
# 02: illusory cosine similarity
# --------------------------------------------------------------------------------------------

COSINE_BINS = np.linspace(-1.0, 1.0, 60)


class CosineView(View):
    """Histograms (densities) of random-pair cosines for the two clouds, with their means."""

    def __init__(self, scene: dict) -> None:
        super().__init__((9.5, 5.0), 1, "Random-pair cosine similarity: a cone makes everything look alike")
        (ax,) = self.axes
        zero = np.zeros(len(COSINE_BINS) - 1)
        self.hist_iso = ax.stairs(zero, COSINE_BINS, fill=True, alpha=0.6, color=BLUE, label="isotropic")
        self.hist_cone = ax.stairs(zero, COSINE_BINS, fill=True, alpha=0.6, color=RED, label="narrow cone")
        self.mean_iso = ax.axvline(0, color="#1b4f72", ls="--", lw=1.8)
        self.mean_cone = ax.axvline(0, color="#7b241c", ls="--", lw=1.8)
        ax.set_xlim(-1, 1)
        ax.set_xlabel("cosine similarity of a random pair")
        ax.set_ylabel("density")
        self.moving = [self.hist_iso, self.hist_cone, self.mean_iso, self.mean_cone]
        self.update(scene)

    def update(self, scene: dict) -> None:
        ax = self.axes[0]
        top = 0.0
        for hist, line, cos, name in [
            (self.hist_iso, self.mean_iso, scene["cos_iso"], "iso"),
            (self.hist_cone, self.mean_cone, scene["cos_cone"], "cone"),
        ]:
            density, _ = np.histogram(cos, bins=COSINE_BINS, density=True)
            hist.set_data(density)
            line.set_xdata([cos.mean()] * 2)
            line.set_label(f"{name} mean = {cos.mean():+.2f}")
            top = max(top, density.max())
        ax.set_ylim(0, nice_limit(1.05 * top))
        ax.legend(loc="upper left")


# --------------------------------------------------------------------------------------------
# 03: self-attention contraction
# --------------------------------------------------------------------------------------------


class AttentionView(View):
    """The token cloud at three depths, and the mean-cosine and angular-spread curves."""

    COLORS = (BLUE, ORANGE, RED)

    def __init__(self, scene: dict) -> None:
        super().__init__((13.0, 5.0), 2, "Experiment 3: self-attention contracts a cloud into a cone")
        ax, ax_curve = self.axes
        self.snaps = [
            ax.scatter(*cloud.T, s=10, alpha=0.5, color=c, edgecolors="none")
            for (_, cloud), c in zip(scene["snapshots"], self.COLORS)
        ]
        self.origin = ax.scatter(0, 0, marker="+", s=160, color="black", label="origin")
        ax.set_aspect("equal")
        ax.set_xlabel("dim 0")
        ax.set_ylabel("dim 1")
        ax.set_title("Token cloud after several attention layers")
        self.cos_line, = ax_curve.plot([], [], "o-", color=RED, ms=3, label="mean pairwise cosine")
        self.spread_line, = ax_curve.plot([], [], "s-", color=BLUE, ms=3, label="angular std (radians)")
        ax_curve.set_xlabel("attention layer (depth)")
        ax_curve.set_ylabel("value")
        ax_curve.set_title("Angular spread contracts, cosine saturates")
        ax_curve.legend(loc="center right")
        self.moving = [*self.snaps, self.origin, self.cos_line, self.spread_line]
        self.update(scene)

    def update(self, scene: dict) -> None:
        ax, ax_curve = self.axes
        for scatter, (layer, cloud) in zip(self.snaps, scene["snapshots"]):
            scatter.set_offsets(cloud)
            scatter.set_label(f"layer {layer}")
        ax.legend(loc="upper left")
        every = np.vstack([cloud for _, cloud in scene["snapshots"]] + [np.zeros((1, 2))])
        lo, hi = every.min(axis=0), every.max(axis=0)
        half = nice_limit(0.55 * max(hi - lo))
        centre = np.round((lo + hi) / 2 / (half / 2)) * (half / 2)
        ax.set_xlim(centre[0] - half, centre[0] + half)
        ax.set_ylim(centre[1] - half, centre[1] + half)
        layers = np.arange(1, len(scene["mean_cos"]) + 1)
        self.cos_line.set_data(layers, scene["mean_cos"])
        self.spread_line.set_data(layers, scene["spread"])
        ax_curve.set_xlim(0, nice_limit(layers[-1] + 0.5))
        values = np.concatenate([scene["mean_cos"], scene["spread"]])
        ax_curve.set_ylim(min(0.0, -nice_limit(-values.min())) if values.min() < 0 else 0.0,
                          nice_limit(1.05 * values.max()))


# --------------------------------------------------------------------------------------------
# 04: frequency-induced collapse
# --------------------------------------------------------------------------------------------


class FrequencyView(View):
    """Embedding norm against frequency rank, and the PCA picture, coloured by frequency rank.

    Colour encodes ``log10`` of the frequency rank (bright = frequent), which does not depend on
    the Zipf exponent, so the colour scale stays put while the exponent slider moves. Tokens are
    drawn rarest first, so the few frequent ones are not hidden under the many rare ones.
    """

    def __init__(self, scene: dict) -> None:
        super().__init__((14.0, 5.0), 2, "Experiment 4: token frequency collapses variance and norm")
        ax_norm, ax_pca = self.axes
        ranks = np.arange(len(scene["norms"]), 0, -1)  # drawing order: rarest first
        kw = dict(c=np.log10(ranks), cmap="plasma_r", s=9, edgecolors="none")
        self.norms = ax_norm.scatter(ranks, scene["norms"][::-1], **kw)
        self.pca = ax_pca.scatter(*scene["pca"][::-1].T, **kw)
        ax_norm.set_xscale("log")
        ax_norm.set_xlim(0.7, len(ranks) * 1.4)
        ax_norm.set_xlabel("token frequency rank (log), left = most frequent")
        ax_norm.set_ylabel("embedding norm")
        ax_norm.set_title("Frequent tokens have small norm")
        self.centre = ax_pca.scatter(0, 0, marker="+", s=200, color="black", label="global centre")
        ax_pca.set_aspect("equal")
        ax_pca.set_xlabel("PC 1")
        ax_pca.set_ylabel("PC 2")
        ax_pca.set_title("Frequent tokens sit at the centre, rare ones spread out")
        ax_pca.legend(loc="upper right")
        for ax, sc in [(ax_norm, self.norms), (ax_pca, self.pca)]:
            self.fig.colorbar(sc, ax=ax, fraction=0.046, pad=0.02).set_label("log10 frequency rank (bright = frequent)")
        self.moving = [self.norms, self.pca, self.centre]
        self.update(scene)

    def update(self, scene: dict) -> None:
        ax_norm, ax_pca = self.axes
        ranks = np.arange(len(scene["norms"]), 0, -1)
        self.norms.set_offsets(np.column_stack([ranks, scene["norms"][::-1]]))
        self.pca.set_offsets(scene["pca"][::-1])
        ax_norm.set_ylim(0, nice_limit(1.05 * scene["norms"].max()))
        lim = nice_limit(1.05 * np.abs(scene["pca"]).max())
        ax_pca.set_xlim(-lim, lim)
        ax_pca.set_ylim(-lim, lim)


# --------------------------------------------------------------------------------------------
# 05: rich-get-richer
# --------------------------------------------------------------------------------------------


class RichGetRicherView(View):
    """Sorted spectra at four training steps, and the effective rank against step."""

    COLORS = mpl.colormaps["viridis"](np.linspace(0.15, 0.9, 4))
    FLOOR = 1e-8  # directions starved below this share run off the bottom of the plot

    def __init__(self, scene: dict) -> None:
        super().__init__((13.0, 5.0), 2, "Experiment 5: rich-get-richer dynamics flatten the space")
        ax_spec, ax_rank = self.axes
        d = scene["history"].shape[1]
        rank = np.arange(1, d + 1)
        self.spectra = [ax_spec.plot(rank, np.ones(d), "o-", ms=3, color=c)[0] for c in self.COLORS]
        ax_spec.set_yscale("log")
        ax_spec.set_xlabel("eigenvalue rank")
        ax_spec.set_ylabel("fraction of variance (log)")
        ax_spec.set_title("The spectrum tilts from flat to spiked")
        self.rank_line, = ax_rank.plot([], [], "-", color=RED, lw=2.4)
        ax_rank.axhline(d, color=BLUE, ls="--", lw=1.4, label=f"ambient dim = {d}")
        ax_rank.axhline(1, color="black", ls=":", lw=1.2, label="single direction")
        ax_rank.set_ylim(0, d * 1.05)
        ax_rank.set_xlabel("training step")
        ax_rank.set_ylabel("effective rank (directions used)")
        ax_rank.set_title("Effective dimensionality collapses")
        ax_rank.legend(loc="upper right")
        self.moving = [*self.spectra, self.rank_line]
        self.update(scene)

    def update(self, scene: dict) -> None:
        ax_spec, ax_rank = self.axes
        history = scene["history"]
        lowest = 1.0
        for line, step in zip(self.spectra, scene["shown_steps"]):
            f = _fractions(np.sort(history[step])[::-1])
            line.set_ydata(f)
            line.set_label(f"step {step}")
            lowest = min(lowest, np.nanmin(f))
        ax_spec.legend(loc="upper right")
        ax_spec.set_ylim(max(_decade_below(lowest), self.FLOOR), 1.5)
        steps = np.arange(len(scene["eff_rank"]))
        self.rank_line.set_data(steps, scene["eff_rank"])
        ax_rank.set_xlim(0, nice_limit(max(steps[-1], 1)))


# --------------------------------------------------------------------------------------------
# 06: whitening
# --------------------------------------------------------------------------------------------


class WhiteningView(View):
    """The remedies of notebook 06, as up to three panels chosen by ``panels``.

    ``"bars"``: partition isotropy of the cone after each remedy; ``"cosines"``: the random-pair
    cosine distributions; ``"tradeoff"``: on the planted cloud, held-out pair AUC against
    IsoScore for every all-but-the-top ``k`` and whitening strength ``p``, with the best setting
    starred and the current ``k`` and ``p`` circled.
    """

    COLORS = (RED, ORANGE, GREEN)
    TITLES = {
        ("bars", "cosines"): "Experiment 6: remedies restore isotropy and re-centre cosine",
        ("tradeoff",): "What isotropy costs: held-out pair AUC against IsoScore",
        ("bars", "cosines", "tradeoff"): "Experiment 6: remedies, and what isotropy costs",
    }

    def __init__(self, scene: dict, panels: tuple[str, ...] = ("bars", "cosines")) -> None:
        width = {1: 7.0, 2: 13.5, 3: 19.0}[len(panels)]
        super().__init__((width, 5.0), len(panels), self.TITLES[panels])
        self.panels = dict(zip(panels, self.axes))
        for name, ax in self.panels.items():
            getattr(self, f"_init_{name}")(ax, scene)
        self.update(scene)

    def _init_bars(self, ax: Any, scene: dict) -> None:
        names = list(scene["isotropy"])
        self.bars = ax.bar(range(len(names)), np.zeros(len(names)), color=self.COLORS, edgecolor="black", width=0.6)
        self.bar_text = [ax.text(i, 0, "", ha="center", fontsize=11) for i in range(len(names))]
        self.bar_names = [
            ax.text(i, -0.03, "", ha="center", va="top", fontsize=10, clip_on=False,
                    transform=ax.get_xaxis_transform())
            for i in range(len(names))
        ]
        ax.set_xticks(range(len(names)), [""] * len(names))
        ax.set_xlim(-0.6, len(names) - 0.4)
        ax.set_ylim(0, 1.08)
        ax.set_ylabel("partition isotropy (1 = isotropic)")
        ax.set_title("Isotropy after each remedy")
        self.moving += [*self.bars, *self.bar_text, *self.bar_names]

    def _init_cosines(self, ax: Any, scene: dict) -> None:
        zero = np.zeros(len(COSINE_BINS) - 1)
        self.hists = [ax.stairs(zero, COSINE_BINS, lw=2.2, color=c) for c in self.COLORS]
        ax.axvline(0, color="black", ls=":", lw=1)
        ax.set_xlim(-1, 1)
        ax.set_xlabel("cosine similarity of a random pair")
        ax.set_ylabel("density")
        ax.set_title("Random-pair cosine after each remedy")
        self.moving += self.hists

    def _init_tradeoff(self, ax: Any, scene: dict) -> None:
        sweep = scene["tradeoff"]
        for (name, rows), color in zip(sweep.items(), (ORANGE, GREEN)):
            ax.plot(rows["IsoScore"], rows["pair AUC"], "o-", ms=3.5, color=color, label=name)
        for k in (0, 1, 2, 5):
            rows = sweep["all-but-the-top"]
            ax.annotate(f"k={k}", (rows["IsoScore"][k], rows["pair AUC"][k]), textcoords="offset points",
                        xytext=(6, -10 if k == 5 else 4), fontsize=9, color=ORANGE)
        name, i = scene["best"]
        ax.plot(sweep[name]["IsoScore"][i], sweep[name]["pair AUC"][i], "*", ms=18, color="gold",
                mec="black", label=f"best: {name} {_setting(name, sweep[name]['setting'][i])}")
        self.markers = {
            name: ax.plot([], [], "o", ms=13, mfc="none", mec=color, mew=2.5)[0]
            for name, color in (("all-but-the-top", ORANGE), ("whitening", GREEN))
        }
        ax.axhline(0.5, color="black", ls=":", lw=1)
        ax.text(1.0, 0.5, "chance ", ha="right", va="bottom", fontsize=9, transform=ax.get_yaxis_transform())
        ax.set_xlim(0, 1)
        ax.set_ylim(0.45, 1.0)
        ax.set_xlabel("IsoScore of held-out points (1 = isotropic)")
        ax.set_ylabel("held-out pair AUC (same label vs different)")
        ax.set_title("Planted cloud: more isotropy is not better")
        ax.legend(loc="lower left")
        self.moving += list(self.markers.values())

    def update(self, scene: dict) -> None:
        if "bars" in self.panels:
            for i, (name, value) in enumerate(scene["isotropy"].items()):
                self.bars[i].set_height(value)
                self.bar_text[i].set_position((i, value + 0.02))
                self.bar_text[i].set_text(scene["isotropy_label"].get(name, f"{value:.2f}"))
                self.bar_names[i].set_text(name)
        if "cosines" in self.panels:
            ax = self.panels["cosines"]
            top = 0.0
            for hist, (name, cos) in zip(self.hists, scene["cosines"].items()):
                density, _ = np.histogram(cos, bins=COSINE_BINS, density=True)
                hist.set_data(density)
                hist.set_label(name)
                top = max(top, density.max())
            ax.set_ylim(0, nice_limit(1.05 * top))
            ax.legend(loc="upper left")
        if "tradeoff" in self.panels:
            for name, point in scene["current"].items():
                self.markers[name].set_data([point["IsoScore"]], [point["pair AUC"]])


def _setting(remedy: str, value: float) -> str:
    return f"k={int(value)}" if remedy == "all-but-the-top" else f"p={value:.2f}"


# --------------------------------------------------------------------------------------------
# 07: a real Transformer
# --------------------------------------------------------------------------------------------


class LayerCurvesView(View):
    """Per-layer meters of the real model: mean cosine beside the published curves, effective
    rank, and rank collapse. A static figure (no explorer moves it)."""

    def __init__(self, profile: dict, published: dict[str, tuple[float, ...]], dim: int) -> None:
        super().__init__((17.0, 5.0), 3, "all-MiniLM-L6-v2, layer by layer, on the course corpus")
        ax_cos, ax_rank, ax_collapse = self.axes
        layers = np.arange(len(profile["mean cosine"]))
        depth = layers / layers[-1]
        for (name, values), style in zip(published.items(), ("s--", "^:")):
            ax_cos.plot(np.arange(len(values)) / (len(values) - 1), values, style, color="#7f8c8d", ms=4,
                        label=f"{name} (published, Ethayarajh 2019)")
        ax_cos.plot(depth, profile["mean cosine"], "o-", color=RED, lw=2.4, label="MiniLM-L6 (measured here)")
        ax_cos.set_xlim(-0.03, 1.03)
        ax_cos.set_ylim(0, 1)
        ax_cos.set_xlabel("relative depth (layer / number of layers)")
        ax_cos.set_ylabel("mean cosine of tokens from different contexts")
        ax_cos.set_title("Anisotropy across depth")
        ax_cos.legend(loc="upper left")
        n = int(profile["tokens"])
        ax_rank.plot(layers, profile["effective rank"], "o-", color=BLUE, lw=2.4, label="MiniLM-L6 tokens")
        ax_rank.axhline(dim / (1 + dim / n), color="black", ls=":", lw=1.2,
                        label=f"isotropic Gaussian, same n={n:,} and d={dim}")
        ax_rank.set_ylim(0, dim)
        ax_rank.set_xlabel("layer (0 = embedding layer)")
        ax_rank.set_ylabel("effective rank (participation ratio)")
        ax_rank.set_title("Directions in use")
        ax_rank.legend(loc="center right")
        ax_collapse.fill_between(layers, profile["rank collapse q1"], profile["rank collapse q3"], color=GREEN,
                                 alpha=0.25, label="middle half of sentences")
        ax_collapse.plot(layers, profile["rank collapse"], "o-", color=GREEN, lw=2.4, label="median sentence")
        ax_collapse.set_ylim(0, 1)
        ax_collapse.set_xlabel("layer (0 = embedding layer)")
        ax_collapse.set_ylabel("‖X − best rank-1‖ / ‖X‖ (0 = collapsed)")
        ax_collapse.set_title("Tokens of one sentence: no rank collapse")
        ax_collapse.legend(loc="lower left")
        for ax in (ax_rank, ax_collapse):
            ax.set_xticks(layers)


class NormFrequencyView(View):
    """Vector norm against word frequency: static input embeddings, and contextual vectors."""

    def __init__(self, data: dict, layers: tuple[int, ...] = (0, 3, 6)) -> None:
        super().__init__((14.0, 5.0), 2, "Norm against word frequency in a real model")
        ax_vocab, ax_ctx = self.axes
        centres = (data["zipf bins"][:-1] + data["zipf bins"][1:]) / 2
        vocab = data["vocabulary"]
        ax_vocab.scatter(vocab["zipf"], vocab["norm"], s=3, alpha=0.15, color=BLUE, edgecolors="none",
                         label=f"{len(vocab['zipf']):,} vocabulary words")
        medians, counts = vocab["binned"]
        ax_vocab.plot(centres, medians, "o-", color=INK, lw=2.4, label="median per frequency bin")
        ax_vocab.set_xlabel("word frequency (Zipf scale: 3 = once per million words)")
        ax_vocab.set_ylabel("input embedding norm")
        ax_vocab.set_title(f"Static embeddings: Spearman ρ = {vocab['spearman']:+.2f}")
        ax_vocab.legend(loc="upper left")
        ctx = data["context"]
        colors = mpl.colormaps["viridis"](np.linspace(0.1, 0.85, len(layers)))
        for layer, color in zip(layers, colors):
            medians, _ = ctx["binned"][layer]
            ax_ctx.plot(centres, medians, "o-", color=color, lw=2.2,
                        label=f"layer {layer}: ρ = {ctx['spearman'][layer]:+.2f}")
        ax_ctx.set_xlabel("word frequency (Zipf scale)")
        ax_ctx.set_ylabel("median hidden-state norm")
        ax_ctx.set_title(f"In context ({len(ctx['zipf']):,} corpus words)")
        ax_ctx.legend(loc="lower left")
        for ax in self.axes:
            ax.set_xlim(0.8, 8.2)


class RealModelView(View):
    """Held-out tokens and sentences at one layer after one remedy: the token-pair cosine
    distribution, and paraphrase against unrelated sentence cosines."""

    BINS = np.linspace(-1.0, 1.0, 81)
    SENTENCE_BINS = np.linspace(-1.0, 1.0, 41)
    # Fixed scales (they hold every layer and remedy of the course corpus), so that settings can be
    # compared by eye and a move redraws only the bars; a taller histogram widens the scale.
    TOKEN_TOP, SENTENCE_TOP = 12.0, 0.6

    def __init__(self, scene: dict) -> None:
        super().__init__((13.5, 5.0), 2, "A real Transformer: one layer, one remedy, held-out data")
        ax_tok, ax_sent = self.axes
        zero = np.zeros(len(self.BINS) - 1)
        self.token_hist = ax_tok.stairs(zero, self.BINS, fill=True, alpha=0.6, color=RED)
        self.token_mean = ax_tok.axvline(0, color="#7b241c", ls="--", lw=1.8)
        ax_tok.axvline(0, color="black", ls=":", lw=1)
        ax_tok.set_xlim(-1, 1)
        ax_tok.set_ylim(0, 8)
        ax_tok.set_xlabel("cosine of two tokens from different sentences")
        ax_tok.set_ylabel("density")
        ax_tok.set_title("Token pairs (all pairs, held-out half)")
        zero = np.zeros(len(self.SENTENCE_BINS) - 1)
        self.unrelated = ax_sent.stairs(zero, self.SENTENCE_BINS, fill=True, alpha=0.5, color="#7f8c8d")
        self.paraphrase = ax_sent.stairs(zero, self.SENTENCE_BINS, fill=True, alpha=0.6, color=GREEN)
        ax_sent.set_xlim(-1, 1)
        ax_sent.set_ylim(0, 1)
        ax_sent.set_xlabel("cosine of two sentence vectors")
        ax_sent.set_ylabel("share of pairs")
        ax_sent.set_title("Paraphrases vs unrelated sentences (held-out)")
        self.moving = [self.token_hist, self.token_mean, self.unrelated, self.paraphrase]
        self.update(scene)

    def update(self, scene: dict) -> None:
        ax_tok, ax_sent = self.axes
        self.token_hist.set_data(scene["token_hist"])
        mean = scene["meters"]["held-out tokens"]["mean cosine"]
        self.token_mean.set_xdata([mean] * 2)
        self.token_hist.set_label(f"layer {scene['layer']}, {scene['remedy']}")
        self.token_mean.set_label(f"mean = {mean:+.3f}")
        ax_tok.legend(loc="upper left")
        ax_tok.set_ylim(0, max(self.TOKEN_TOP, nice_limit(1.05 * scene["token_hist"].max())))
        check = scene["meters"]["held-out sentences"]
        for stairs, values, name in [(self.unrelated, scene["unrelated"], "unrelated pairs"),
                                     (self.paraphrase, scene["paraphrase"], "paraphrase pairs")]:
            counts, _ = np.histogram(values, bins=self.SENTENCE_BINS)
            stairs.set_data(counts / len(values))
            stairs.set_label(f"{name} ({len(values)}), mean {values.mean():+.2f}")
        self.paraphrase.set_label(self.paraphrase.get_label() + f", AUC {check['paraphrase AUC']:.3f}")
        top = max(s.get_data().values.max() for s in (self.unrelated, self.paraphrase))
        ax_sent.set_ylim(0, max(self.SENTENCE_TOP, nice_limit(1.05 * top)))
        ax_sent.legend(loc="upper left")
