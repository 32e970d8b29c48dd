"""The course's plot style and one view per experiment figure.

Every view follows one pattern: it is built from the arrays (or the typed results) a notebook
holds, ``SphereConeView(X_iso, X_cone)``, and draws exactly those. What it draws is computed first,
without matplotlib, by the view's ``measure`` (a pure function of :mod:`shared.scenes`, here
:func:`~shared.scenes.sphere_cone_scene`) into a *scene*; ``view.draw(scene)`` then only sets the
artists' data and the axis limits. ``view.update(...)`` takes the constructor's arguments and does
both; ``view.readings()`` gives the numbers the view annotates, each named and formatted as its meter
declares. A notebook shows a view as a static figure (its PNG); an explorer (:mod:`shared.explorers`)
calls ``measure`` and then ``draw`` on every slider move. The fast redraw itself is private plumbing
in :mod:`shared._redraw`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, ClassVar

import matplotlib as mpl
import numpy as np

from . import scenes
from ._redraw import LiveFigure, nice_limit
from .meters import Reading
from .scenes import COSINE_BINS

__all__ = [
    "AttentionView",
    "CosineView",
    "DecoderLayersView",
    "DecoderView",
    "DegenerationView",
    "FrequencyView",
    "LayerCurvesView",
    "NormFrequencyView",
    "RealModelView",
    "RemedyView",
    "RichGetRicherView",
    "SphereConeView",
    "StaticVectorsView",
    "TradeoffView",
    "View",
    "course_style",
    "nice_limit",
]

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
    return mpl.rc_context(STYLE)


class View(LiveFigure):
    """A course figure: ``NCOLS`` panels in a row, in the course's style, drawing one scene.

    A subclass names its pure function (``measure``), its size and title, builds its artists once
    (``_build``, from the first scene) and draws a scene (``_draw``).
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
        super().__init__(self.FIGSIZE, self.NCOLS, self.TITLE, STYLE)
        self.scene = scene
        self._build(scene)
        self.draw(scene)

    def _build(self, scene: Any) -> None:
        """Create the artists (most of them empty) and the fixed labels; default: nothing."""

    def _draw(self, scene: Any) -> None:
        raise NotImplementedError

    def draw(self, scene: Any) -> None:
        """Draw ``scene`` (the result of ``measure``): set the artists' data and the axis limits."""
        self.scene = scene
        self._draw(scene)

    def update(self, *data: Any, **options: Any) -> None:
        """Measure the constructor's arguments and draw them."""
        self.draw(type(self).measure(*data, **options))

    def readings(self) -> dict[str, list[Reading]]:
        """The numbers this view annotates, by group (what an explorer prints beside its sliders)."""
        return getattr(self.scene, "readings", {})


def _decade_below(x: float) -> float:
    """The power of ten at or below ``x / 2``: a log axis floor that moves only a decade at a time."""
    return 10.0 ** math.floor(math.log10(max(x, 1e-300) / 2))


def _square_limits(ax: Any, points: np.ndarray) -> None:
    """Symmetric, equal x and y limits that hold every point, snapped to a nice value."""
    lim = nice_limit(1.05 * max(np.abs(points).max(), 1e-12))
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)


# --------------------------------------------------------------------------------------------
# 01: sphere vs cone
# --------------------------------------------------------------------------------------------


class SphereConeView(View):
    """Two clouds, *not* centred, on the plane of their mean direction (:func:`~shared.geometry.mean_plane`),
    with the origin marked, and both covariance spectra (:func:`~shared.scenes.sphere_cone_scene`).

    A cone stands off the origin and leans along its mean direction (the arrow from the origin to
    the mean); an isotropic cloud sits around the origin. Each panel writes the median angle of the
    rows to their mean direction, measured in the full space. Readings per cloud: partition
    isotropy, effective rank, and the exact mean cosine over all pairs (no sampling, so no seed).
    """

    measure = staticmethod(scenes.sphere_cone_scene)
    FIGSIZE, NCOLS, TITLE = (14.0, 4.6), 3, "Sphere vs cone: where the points sit relative to the origin"

    def _build(self, scene: scenes.SphereConeScene) -> None:
        ax_iso, ax_cone, ax_spec = self.axes
        d = len(scene.fractions[0])
        kw = dict(s=7, alpha=0.35, edgecolors="none")
        self.iso = ax_iso.scatter([], [], color=BLUE, **kw)
        self.cone = ax_cone.scatter([], [], color=RED, **kw)
        self.arrows, self.angle_texts = [], []
        for ax, name in [(ax_iso, "Isotropic"), (ax_cone, "Narrow cone (anisotropic)")]:
            ax.set_aspect("equal")
            ax.set_xlabel("along the mean direction")
            ax.set_ylabel("across it (widest direction)")
            ax.set_title(name)
            ax.axhline(0.0, color="0.8", lw=0.8, zorder=0)
            ax.axvline(0.0, color="0.8", lw=0.8, zorder=0)
            ax.plot([0.0], [0.0], "k+", ms=11, mew=1.8, zorder=4)
            ax.annotate("origin", (0.0, 0.0), xytext=(-6, -13), textcoords="offset points", ha="right", fontsize=9)
            arrow, = ax.plot([0.0, 0.0], [0.0, 0.0], "-", color="black", lw=2.2, zorder=5)
            text = ax.text(0.03, 0.95, "", transform=ax.transAxes, va="top", fontsize=10,
                           bbox=dict(facecolor="white", edgecolor="0.8", alpha=0.85))
            self.arrows.append(arrow)
            self.angle_texts.append(text)
        rank = np.arange(1, d + 1)
        self.spec_iso, = ax_spec.plot(rank, np.ones(d), "o-", color=BLUE, ms=3.5, label="isotropic")
        self.spec_cone, = ax_spec.plot(rank, np.ones(d), "s-", color=RED, ms=3.5, label="cone")
        ax_spec.set_yscale("log")
        ax_spec.set_xlabel("eigenvalue rank")
        ax_spec.set_ylabel("fraction of variance (log)")
        ax_spec.set_title("Covariance spectrum: flat vs spiked")
        ax_spec.legend(loc="upper right")
        self.moving = [self.iso, self.cone, self.spec_iso, self.spec_cone, *self.arrows, *self.angle_texts]

    def _draw(self, scene: scenes.SphereConeScene) -> None:
        self.iso.set_offsets(scene.coords[0])
        self.cone.set_offsets(scene.coords[1])
        for arrow, text, norm, angle in zip(self.arrows, self.angle_texts, scene.mean_norm, scene.median_angle):
            arrow.set_data([0.0, norm], [0.0, 0.0])
            text.set_text(f"median angle to the mean: {angle:.0f}°")
        self.spec_iso.set_ydata(scene.fractions[0])
        self.spec_cone.set_ydata(scene.fractions[1])
        for ax in self.axes[:2]:
            _square_limits(ax, np.vstack(scene.coords))
        self.axes[2].set_ylim(_decade_below(np.nanmin(np.concatenate(scene.fractions))), 1.5)


# --------------------------------------------------------------------------------------------
# 02: illusory cosine similarity
# --------------------------------------------------------------------------------------------


class CosineView(View):
    """Histograms (densities) of two sets of random-pair cosines, with their means
    (:func:`~shared.scenes.cosine_scene`)."""

    measure = staticmethod(scenes.cosine_scene)
    FIGSIZE, NCOLS, TITLE = (9.5, 5.0), 1, "Random-pair cosine similarity: a cone makes everything look alike"

    def _build(self, scene: scenes.CosineScene) -> None:
        (ax,) = self.axes
        zero = np.zeros(len(COSINE_BINS) - 1)
        self.hist_iso = ax.stairs(zero, COSINE_BINS, fill=True, alpha=0.6, color=BLUE, label="isotropic")
        self.hist_cone = ax.stairs(zero, COSINE_BINS, fill=True, alpha=0.6, color=RED, label="narrow cone")
        self.mean_iso = ax.axvline(0, color=DARK_BLUE, ls="--", lw=1.8)
        self.mean_cone = ax.axvline(0, color=DARK_RED, ls="--", lw=1.8)
        ax.set_xlim(-1, 1)
        ax.set_xlabel("cosine similarity of a random pair")
        ax.set_ylabel("density")
        self.moving = [self.hist_iso, self.hist_cone, self.mean_iso, self.mean_cone]

    def _draw(self, scene: scenes.CosineScene) -> None:
        ax = self.axes[0]
        for hist, line, dens, mean, name in zip((self.hist_iso, self.hist_cone), (self.mean_iso, self.mean_cone),
                                                scene.density, scene.mean, ("iso", "cone")):
            hist.set_data(dens)
            line.set_xdata([mean] * 2)
            line.set_label(f"{name} mean = {mean:+.2f}")
        ax.set_ylim(0, nice_limit(1.05 * max(d.max() for d in scene.density)))
        ax.legend(loc="upper left")


# --------------------------------------------------------------------------------------------
# 03: self-attention contraction
# --------------------------------------------------------------------------------------------


class AttentionView(View):
    """A 2-D token cloud at layers 0, depth/4 and depth of a run, and its mean-cosine and
    angular-spread curves up to ``depth`` (default: the whole run; :func:`~shared.scenes.attention_scene`)."""

    measure = staticmethod(scenes.attention_scene)
    FIGSIZE, NCOLS, TITLE = (13.0, 5.0), 2, "Self-attention contracts a sequence onto one ray"
    COLORS = (BLUE, ORANGE, RED)

    def _build(self, scene: scenes.AttentionScene) -> None:
        ax, ax_curve = self.axes
        self.snaps = [ax.scatter([], [], s=10, alpha=0.5, color=c, edgecolors="none") for c in self.COLORS]
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

    def _draw(self, scene: scenes.AttentionScene) -> None:
        ax, ax_curve = self.axes
        for scatter, layer, cloud in zip(self.snaps, scene.shown, scene.clouds):
            scatter.set_offsets(cloud)
            scatter.set_label(f"layer {layer}")
        ax.legend(loc="upper left")
        every = np.vstack([*scene.clouds, np.zeros((1, 2))])
        lo, hi = every.min(axis=0), every.max(axis=0)
        half = nice_limit(0.55 * max(hi - lo))
        centre = np.round((lo + hi) / 2 / (half / 2)) * (half / 2)
        ax.set_xlim(centre[0] - half, centre[0] + half)
        ax.set_ylim(centre[1] - half, centre[1] + half)
        layers = np.arange(1, scene.depth + 1)
        self.cos_line.set_data(layers, scene.mean_cos)
        self.spread_line.set_data(layers, scene.spread)
        ax_curve.set_xlim(0, nice_limit(scene.depth + 0.5))
        values = np.concatenate([scene.mean_cos, scene.spread])
        ax_curve.set_ylim(-nice_limit(-values.min()) if values.min() < 0 else 0.0, nice_limit(1.05 * values.max()))


# --------------------------------------------------------------------------------------------
# 04: frequency
# --------------------------------------------------------------------------------------------


class FrequencyView(View):
    """Embedding norm against frequency rank, and the PCA picture, coloured by frequency rank
    (:func:`~shared.scenes.frequency_scene`).

    Rows of ``emb`` are tokens in order of frequency (row 0 the most frequent), ``freq`` their
    frequencies. Colour encodes ``log10`` of the frequency rank (bright = frequent), which does not
    depend on the Zipf exponent, so the colour scale stays put while the exponent slider moves.
    Tokens are drawn rarest first, so the few frequent ones are not hidden under the many rare ones.
    """

    measure = staticmethod(scenes.frequency_scene)
    FIGSIZE, NCOLS, TITLE = (14.0, 5.0), 2, "A frequency pull changes norms, not directions"

    def _build(self, scene: scenes.FrequencyScene) -> None:
        ax_norm, ax_pca = self.axes
        ranks = np.arange(len(scene.norms), 0, -1)  # drawing order: rarest first
        kw = dict(c=np.log10(ranks), cmap="plasma_r", s=9, edgecolors="none")
        self.norms = ax_norm.scatter(ranks, np.zeros(len(ranks)), **kw)
        self.pca = ax_pca.scatter(np.zeros(len(ranks)), np.zeros(len(ranks)), **kw)
        ax_norm.set_xscale("log")
        ax_norm.set_xlim(0.7, len(ranks) * 1.4)
        ax_norm.set_xlabel("token frequency rank (log), left = most frequent")
        ax_norm.set_ylabel("embedding norm")
        ax_norm.set_title("Norm against frequency")
        self.centre = ax_pca.scatter(0, 0, marker="+", s=200, color="black", label="global centre")
        ax_pca.set_aspect("equal")
        ax_pca.set_xlabel("PC 1")
        ax_pca.set_ylabel("PC 2")
        ax_pca.set_title("Top two principal axes")
        ax_pca.legend(loc="upper right")
        for ax, sc in [(ax_norm, self.norms), (ax_pca, self.pca)]:
            self.fig.colorbar(sc, ax=ax, fraction=0.046, pad=0.02).set_label("log10 frequency rank (bright = frequent)")
        self.moving = [self.norms, self.pca, self.centre]

    def _draw(self, scene: scenes.FrequencyScene) -> None:
        ax_norm, ax_pca = self.axes
        if len(scene.norms) != len(self.norms.get_offsets()):
            raise ValueError(f"emb: this view draws {len(self.norms.get_offsets())} tokens, got {len(scene.norms)}")
        ranks = np.arange(len(scene.norms), 0, -1)
        self.norms.set_offsets(np.column_stack([ranks, scene.norms[::-1]]))
        self.pca.set_offsets(scene.pca[::-1])
        ax_norm.set_ylim(0, nice_limit(1.05 * scene.norms.max()))
        _square_limits(ax_pca, scene.pca)


class DegenerationView(View):
    """A :class:`~shared.mechanisms.DegenerationRun`: the mean cosine within each frequency band
    against training step (the chosen ``step`` marked), and the embeddings at that step on their
    top two principal axes and as norm against frequency rank, coloured by rank (bright = frequent;
    :func:`~shared.scenes.degeneration_scene`)."""

    measure = staticmethod(scenes.degeneration_scene)
    FIGSIZE, NCOLS, TITLE = (17.0, 5.0), 3, "A language model trained by likelihood (Gao et al. 2019)"
    BAND_COLORS = {"frequent": ORANGE, "middle": GREY, "rare": RED, "overall": INK}

    def _build(self, scene: scenes.DegenerationScene) -> None:
        ax_cos, ax_pca, ax_norm = self.axes
        vocab = len(scene.norms)
        self.curves = {band: ax_cos.plot([], [], "o" + ("-" if band != "overall" else "--"), ms=4,
                                         lw=2.2 if band != "overall" else 1.4, color=color, label=band)[0]
                       for band, color in self.BAND_COLORS.items()}
        self.marker = ax_cos.axvline(0, color="black", ls=":", lw=1.2)
        ax_cos.axhline(0, color="black", lw=0.8)
        ax_cos.set_xscale("symlog", linthresh=50)
        ax_cos.set_xlabel("training step (linear to 50, then log)")
        ax_cos.set_ylabel("mean cosine within the band")
        ax_cos.set_ylim(-0.7, 1.0)
        ax_cos.set_title("Mean cosine by frequency band")
        ranks = np.arange(vocab, 0, -1)  # drawing order: rarest first
        kw = dict(c=np.log10(ranks), cmap="plasma_r", s=16, edgecolors="none")
        self.pca = ax_pca.scatter(np.zeros(vocab), np.zeros(vocab), **kw)
        self.origin = ax_pca.scatter(0, 0, marker="+", s=160, color="black")
        self.step_text = ax_pca.text(0.03, 0.97, "", transform=ax_pca.transAxes, va="top", fontsize=11)
        ax_pca.set_aspect("equal")
        ax_pca.set_xlim(-1.1, 1.1)
        ax_pca.set_ylim(-1.1, 1.1)
        ax_pca.set_xlabel("PC 1 of the directions")
        ax_pca.set_ylabel("PC 2 of the directions")
        ax_pca.set_title("Directions of the embeddings")
        self.norms = ax_norm.scatter(ranks, np.zeros(vocab), **kw)
        ax_norm.set_xscale("log")
        ax_norm.set_xlim(0.7, vocab * 1.4)
        ax_norm.set_xlabel("frequency rank (log), left = most frequent")
        ax_norm.set_ylabel("embedding norm")
        ax_norm.set_title("Norm against frequency")
        self.fig.colorbar(self.norms, ax=ax_norm, fraction=0.046, pad=0.02).set_label("log10 frequency rank")
        self.moving = [*self.curves.values(), self.marker, self.pca, self.origin, self.step_text, self.norms]

    def _draw(self, scene: scenes.DegenerationScene) -> None:
        ax_cos, ax_pca, ax_norm = self.axes
        steps, k = scene.steps, scene.k
        for band, line in self.curves.items():
            line.set_data(steps, scene.bands[band])
        ax_cos.legend(loc="lower right", title=f"Zipf exponent {scene.exponent:g}, {'tied' if scene.tied else 'untied'}")
        ax_cos.set_xlim(0, nice_limit(1.2 * max(steps[-1], 1)))
        ax_cos.set_xticks(steps, [str(t) for t in steps], fontsize=9)
        ax_cos.minorticks_off()
        self.marker.set_xdata([steps[k]] * 2)
        self.pca.set_offsets(scene.pca[::-1])
        self.step_text.set_text(f"step {steps[k]}")
        self.norms.set_offsets(np.column_stack([np.arange(len(scene.norms), 0, -1), scene.norms[::-1]]))
        # one scale for the whole run, so that stepping through training only redraws the points
        ax_norm.set_ylim(0, nice_limit(1.05 * scene.norm_top))


# --------------------------------------------------------------------------------------------
# 05: rich-get-richer
# --------------------------------------------------------------------------------------------


class RichGetRicherView(View):
    """Sorted spectra at four steps of a run (``history[t]`` = spectrum after ``t`` steps), and the
    effective rank against step (:func:`~shared.scenes.rich_get_richer_scene`)."""

    measure = staticmethod(scenes.rich_get_richer_scene)
    FIGSIZE, NCOLS, TITLE = (13.0, 5.0), 2, "Rich-get-richer dynamics collapse the spread"
    COLORS = mpl.colormaps["viridis"](np.linspace(0.15, 0.9, 4))
    FLOOR = 1e-8  # directions starved below this share run off the bottom of the plot

    def _build(self, scene: scenes.RichGetRicherScene) -> None:
        ax_spec, ax_rank = self.axes
        d = scene.spectra.shape[1]
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

    def _draw(self, scene: scenes.RichGetRicherScene) -> None:
        ax_spec, ax_rank = self.axes
        for line, step, f in zip(self.spectra, scene.steps, scene.spectra):
            line.set_ydata(f)
            line.set_label(f"step {step}")
        ax_spec.legend(loc="upper right")
        ax_spec.set_ylim(max(_decade_below(min(1.0, np.nanmin(scene.spectra))), self.FLOOR), 1.5)
        steps = len(scene.effective_rank) - 1
        self.rank_line.set_data(np.arange(steps + 1), scene.effective_rank)
        ax_rank.set_xlim(0, nice_limit(max(steps, 1)))


# --------------------------------------------------------------------------------------------
# 06: remedies
# --------------------------------------------------------------------------------------------

class RemedyView(View):
    """Clouds after remedies (``clouds``: name to array) and their random-pair cosines (``cosines``,
    same names): partition isotropy as bars, and the cosine distributions
    (:func:`~shared.scenes.remedy_scene`)."""

    measure = staticmethod(scenes.remedy_scene)
    FIGSIZE, NCOLS, TITLE = (13.5, 5.0), 2, "Remedies restore isotropy and re-centre cosine"
    COLORS = (RED, ORANGE, GREEN, BLUE)

    def _build(self, scene: scenes.RemedyScene) -> None:
        ax_bar, ax_cos = self.axes
        k = len(scene.names)
        if not 1 <= k <= len(self.COLORS):
            raise ValueError(f"clouds: expected 1 to {len(self.COLORS)} clouds, got {k}")
        self.bars = ax_bar.bar(range(k), np.zeros(k), color=self.COLORS[:k], edgecolor="black", width=0.6)
        self.bar_text = [ax_bar.text(i, 0, "", ha="center", fontsize=11) for i in range(k)]
        self.bar_names = [ax_bar.text(i, -0.03, "", ha="center", va="top", fontsize=10, clip_on=False,
                                      transform=ax_bar.get_xaxis_transform()) for i in range(k)]
        ax_bar.set_xticks(range(k), [""] * k)
        ax_bar.set_xlim(-0.6, k - 0.4)
        ax_bar.set_ylim(0, 1.08)
        ax_bar.set_ylabel("partition isotropy (1 = isotropic)")
        ax_bar.set_title("Isotropy after each remedy")
        zero = np.zeros(len(COSINE_BINS) - 1)
        self.hists = [ax_cos.stairs(zero, COSINE_BINS, lw=2.2, color=c) for c in self.COLORS[:k]]
        ax_cos.axvline(0, color="black", ls=":", lw=1)
        ax_cos.set_xlim(-1, 1)
        ax_cos.set_xlabel("cosine similarity of a random pair")
        ax_cos.set_ylabel("density")
        ax_cos.set_title("Random-pair cosine after each remedy")
        self.moving = [*self.bars, *self.bar_text, *self.bar_names, *self.hists]

    def _draw(self, scene: scenes.RemedyScene) -> None:
        if len(scene.names) != len(self.bars):
            raise ValueError(f"clouds: this view draws {len(self.bars)} clouds, got {len(scene.names)}")
        for i, (name, isotropy, density) in enumerate(zip(scene.names, scene.isotropy, scene.density)):
            self.bars[i].set_height(isotropy.value)
            self.bar_text[i].set_position((i, isotropy.value + 0.02))
            self.bar_text[i].set_text(isotropy.label)
            self.bar_names[i].set_text(name)
            self.hists[i].set_data(density)
            self.hists[i].set_label(name)
        ax_cos = self.axes[1]
        ax_cos.set_ylim(0, nice_limit(1.05 * max(d.max() for d in scene.density)))
        ax_cos.legend(loc="upper left")


class TradeoffView(View):
    """A remedy sweep (:class:`~shared.remedies.Sweep`) of a cloud called ``name``: held-out pair AUC
    against IsoScore for every all-but-the-top ``k`` and whitening power ``p``, the best setting
    starred and the settings ``k`` and ``power`` circled (:func:`~shared.scenes.tradeoff_scene`)."""

    measure = staticmethod(scenes.tradeoff_scene)
    FIGSIZE, NCOLS, TITLE = (7.5, 5.0), 1, "Held-out pair AUC against IsoScore"
    REMEDY_COLORS = {"all-but-the-top": ORANGE, "whitening": GREEN}

    def _build(self, scene: scenes.TradeoffScene) -> None:
        (ax,) = self.axes
        self.curves = {name: ax.plot([], [], "o-", ms=3.5, color=color, label=name)[0]
                       for name, color in self.REMEDY_COLORS.items()}
        self.labels = {k: ax.annotate(f"k={k}", (0, 0), textcoords="offset points", xytext=(6, 4), fontsize=9,
                                      color=ORANGE) for k in scene.k_labels}
        self.star, = ax.plot([], [], "*", ms=18, color=GOLD, mec="black")
        self.markers = {name: ax.plot([], [], "o", ms=13, mfc="none", mec=color, mew=2.5)[0]
                        for name, color in self.REMEDY_COLORS.items()}
        ax.axhline(0.5, color="black", ls=":", lw=1)
        ax.text(1.0, 0.5, "chance ", ha="right", va="bottom", fontsize=9, transform=ax.get_yaxis_transform())
        ax.set_xlim(0, 1)
        ax.set_ylim(0.45, 1.0)
        ax.set_xlabel("IsoScore of held-out points (1 = isotropic)")
        ax.set_ylabel("held-out pair AUC (same label vs different)")
        self.moving = [*self.curves.values(), *self.labels.values(), self.star, *self.markers.values()]

    def _draw(self, scene: scenes.TradeoffScene) -> None:
        for remedy, line in self.curves.items():
            line.set_data(*scene.curves[remedy])
            self.markers[remedy].set_data(*([value] for value in scene.chosen[remedy]))
        for k, label in self.labels.items():
            label.xy = scene.k_labels[k]
        self.star.set_data(*([value] for value in scene.best))
        self.star.set_label(scene.best_label)
        self.axes[0].legend(handles=[*self.curves.values(), self.star], loc="lower left", title=scene.name or None)


# --------------------------------------------------------------------------------------------
# 07: a real Transformer
# --------------------------------------------------------------------------------------------


class LayerCurvesView(View):
    """Per-layer meters of the real model (:class:`~shared.realmodel.LayerProfile`): mean cosine
    beside published curves, effective rank, and rank collapse (:func:`~shared.scenes.layer_curves_scene`)."""

    measure = staticmethod(scenes.layer_curves_scene)
    FIGSIZE, NCOLS, TITLE = (17.0, 5.0), 3, "all-MiniLM-L6-v2, layer by layer, on the course corpus"

    def _draw(self, scene: scenes.LayerCurvesScene) -> None:
        ax_cos, ax_rank, ax_collapse = self.axes
        for ax in self.axes:
            ax.cla()
        profile, dim = scene.profile, scene.dim
        layers = np.arange(len(profile.mean_cosine))
        depth = layers / layers[-1]
        for (name, values), style in zip(scene.published.items(), ("s--", "^:")):
            ax_cos.plot(np.arange(len(values)) / (len(values) - 1), values, style, color=GREY, ms=4,
                        label=f"{name} (published, Ethayarajh 2019)")
        ax_cos.plot(depth, profile.mean_cosine, "o-", color=RED, lw=2.4, label="MiniLM-L6 (measured here)")
        ax_cos.set_xlim(-0.03, 1.03)
        ax_cos.set_ylim(0, 1)
        ax_cos.set_xlabel("relative depth (layer / number of layers)")
        ax_cos.set_ylabel("mean cosine of tokens from different contexts")
        ax_cos.set_title("Anisotropy across depth")
        ax_cos.legend(loc="upper left")
        n = profile.tokens
        ax_rank.plot(layers, profile.effective_rank, "o-", color=BLUE, lw=2.4, label="MiniLM-L6 tokens")
        ax_rank.axhline(scene.gaussian_rank, color="black", ls=":", lw=1.2,
                        label=f"isotropic Gaussian, same n={n:,} and d={dim}")
        ax_rank.set_ylim(0, dim)
        ax_rank.set_xlabel("layer (0 = embedding layer)")
        ax_rank.set_ylabel("effective rank (participation ratio)")
        ax_rank.set_title("Directions in use")
        ax_rank.legend(loc="center right")
        ax_collapse.fill_between(layers, profile.rank_collapse_q1, profile.rank_collapse_q3, color=GREEN,
                                 alpha=0.25, label="middle half of sentences")
        ax_collapse.plot(layers, profile.rank_collapse, "o-", color=GREEN, lw=2.4, label="median sentence")
        ax_collapse.axhline(profile.rank_collapse_gaussian, color="black", ls=":", lw=1.2,
                            label="Gaussian sentences, same lengths")
        ax_collapse.set_ylim(0, 1)
        ax_collapse.set_xlabel("layer (0 = embedding layer)")
        ax_collapse.set_ylabel("‖X − best rank-1‖ / ‖X‖ (0 = collapsed)")
        ax_collapse.set_title("Tokens of one sentence: partial contraction")
        ax_collapse.legend(loc="lower left")
        for ax in (ax_rank, ax_collapse):
            ax.set_xticks(layers)


class NormFrequencyView(View):
    """Vector norm against word frequency (:class:`~shared.realmodel.NormFrequency`): static input
    embeddings, and contextual vectors at a few ``layers`` (:func:`~shared.scenes.norm_frequency_scene`)."""

    measure = staticmethod(scenes.norm_frequency_scene)
    FIGSIZE, NCOLS, TITLE = (14.0, 5.0), 2, "Norm against word frequency in a real model"

    def _draw(self, scene: scenes.NormFrequencyScene) -> None:
        ax_vocab, ax_ctx = self.axes
        for ax in self.axes:
            ax.cla()
        centres, vocab, ctx = scene.centres, scene.data.vocabulary, scene.data.context
        ax_vocab.scatter(vocab.zipf, vocab.norm, s=3, alpha=0.15, color=BLUE, edgecolors="none",
                         label=f"{len(vocab.zipf):,} vocabulary words")
        ax_vocab.plot(centres, vocab.median[0], "o-", color=INK, lw=2.4, label="median per frequency bin")
        ax_vocab.set_xlabel("word frequency (Zipf scale: 3 = once per million words)")
        ax_vocab.set_ylabel("input embedding norm")
        ax_vocab.set_title(f"Static embeddings: Spearman ρ = {vocab.spearman[0]:+.2f}")
        ax_vocab.legend(loc="upper left")
        colors = mpl.colormaps["viridis"](np.linspace(0.1, 0.85, len(scene.layers)))
        for layer, color in zip(scene.layers, colors):
            ax_ctx.plot(centres, ctx.median[layer], "o-", color=color, lw=2.2,
                        label=f"layer {layer}: ρ = {ctx.spearman[layer]:+.2f}")
        ax_ctx.set_xlabel("word frequency (Zipf scale)")
        ax_ctx.set_ylabel("median hidden-state norm")
        ax_ctx.set_title(f"In context ({len(ctx.zipf):,} corpus words)")
        ax_ctx.legend(loc="lower left")
        for ax in self.axes:
            ax.set_xlim(0.8, 8.2)


class RealModelView(View):
    """One layer and remedy of the real model (:class:`~shared.realmodel.RealPoint`): the cosine
    distribution of held-out token pairs from different sentences, and the cosines of paraphrase
    pairs, unrelated pairs and traps among the held-out sentences
    (:func:`~shared.scenes.sentence_pairs_scene`)."""

    measure = staticmethod(scenes.sentence_pairs_scene)
    FIGSIZE, NCOLS, TITLE = (13.5, 5.0), 2, "A real Transformer: one layer, one remedy, held-out data"
    BINS = np.linspace(-1.0, 1.0, 81)
    # Fixed scales (they hold every layer and remedy of the course corpus), so that settings can be
    # compared by eye and a move redraws only the bars; a taller histogram widens the scale.
    TOKEN_TOP, SENTENCE_TOP = 12.0, 0.6

    def _build(self, scene: scenes.SentencePairsScene) -> None:
        ax_tok, ax_sent = self.axes
        zero = np.zeros(len(self.BINS) - 1)
        self.token_hist = ax_tok.stairs(zero, self.BINS, fill=True, alpha=0.6, color=RED)
        self.token_mean = ax_tok.axvline(0, color=DARK_RED, ls="--", lw=1.8)
        ax_tok.axvline(0, color="black", ls=":", lw=1)
        ax_tok.set_xlim(-1, 1)
        ax_tok.set_ylim(0, 8)
        ax_tok.set_xlabel("cosine of two tokens from different sentences")
        ax_tok.set_ylabel("density")
        ax_tok.set_title("Token pairs from different sentences (held-out half)")
        zero = np.zeros(len(scene.bins) - 1)
        self.unrelated = ax_sent.stairs(zero, scene.bins, fill=True, alpha=0.5, color=GREY)
        self.paraphrase = ax_sent.stairs(zero, scene.bins, fill=True, alpha=0.6, color=GREEN)
        self.traps = ax_sent.stairs(zero, scene.bins, color=ORANGE, lw=2.2)
        ax_sent.set_xlim(-1, 1)
        ax_sent.set_ylim(0, 1)
        ax_sent.set_xlabel("cosine of two sentence vectors")
        ax_sent.set_ylabel("share of pairs")
        ax_sent.set_title("Sentence pairs (held-out half)")
        self.moving = [self.token_hist, self.token_mean, self.unrelated, self.paraphrase, self.traps]

    def _draw(self, scene: scenes.SentencePairsScene) -> None:
        ax_tok, ax_sent = self.axes
        point = scene.point
        self.token_hist.set_data(point.token_hist)
        self.token_mean.set_xdata([point.mean_cosine] * 2)
        self.token_hist.set_label(f"layer {point.layer}, {point.remedy}")
        self.token_mean.set_label(f"mean = {point.mean_cosine:+.3f}")
        ax_tok.legend(loc="upper left")
        ax_tok.set_ylim(0, max(self.TOKEN_TOP, nice_limit(1.05 * point.token_hist.max())))
        for stairs, name in [(self.unrelated, "unrelated pairs"), (self.paraphrase, "paraphrase pairs"),
                             (self.traps, "traps")]:
            share, count, mean = scene.share[name]
            stairs.set_data(share)
            stairs.set_label(f"{name} ({count}), mean {mean:+.2f}")
        self.paraphrase.set_label(self.paraphrase.get_label() + f", AUC {point.check.auc:.3f}")
        self.traps.set_label(self.traps.get_label() + f"; paraphrases win {point.check.trap_auc:.3f}")
        top = max(np.nanmax(share) for share, _, _ in scene.share.values())
        ax_sent.set_ylim(0, max(self.SENTENCE_TOP, nice_limit(1.05 * top)))
        ax_sent.legend(loc="upper left")


# --------------------------------------------------------------------------------------------
# 08: static word vectors
# --------------------------------------------------------------------------------------------


class StaticVectorsView(View):
    """All-but-the-top on a set of word vectors, one setting ``D`` at a time
    (:func:`~shared.scenes.static_vectors_scene`).

    Built from the arrays of a sweep the notebook holds: the covariance spectrum and random-pair
    cosines of the unprocessed vectors (``eigs_before``, ``cosines_before``), the same for every
    number of removed directions ``D = 0, 1, ...`` (rows of ``eigs`` and ``cosines``), and
    partition isotropy for every ``D`` by the course's estimator (``isotropy``) and by the original
    one, without rescaling (``isotropy_original``). ``published`` is a reference value drawn as a
    line (Mu & Viswanath's "after", say). Three panels: both spectra (directions emptied by the
    remedy have no variance and leave the log axis), both cosine histograms, and both isotropy
    curves with ``D`` marked. Every scale is set from the whole sweep, so moving ``D`` only redraws.
    """

    measure = staticmethod(scenes.static_vectors_scene)
    FIGSIZE, NCOLS, TITLE = (17.0, 5.0), 3, "All-but-the-top on static word vectors (Mu & Viswanath 2018)"

    def _build(self, scene: scenes.StaticVectorsScene) -> None:
        ax_spec, ax_cos, ax_iso = self.axes
        d = len(scene.before)
        rank = np.arange(1, d + 1)
        self.spec_before, = ax_spec.plot(rank, np.ones(d), "o-", color=RED, ms=3.5, label="unprocessed")
        self.spec_after, = ax_spec.plot(rank, np.ones(d), "s-", color=BLUE, ms=3.5, label="after")
        ax_spec.set_yscale("log")
        ax_spec.set_xlim(0, d + 1)
        ax_spec.set_xlabel("eigenvalue rank")
        ax_spec.set_ylabel("variance along the direction (log)")
        ax_spec.set_title("Covariance spectrum")
        zero = np.zeros(len(COSINE_BINS) - 1)
        self.hist_before = ax_cos.stairs(zero, COSINE_BINS, fill=True, alpha=0.45, color=RED)
        self.hist_after = ax_cos.stairs(zero, COSINE_BINS, fill=True, alpha=0.45, color=BLUE)
        self.mean_before = ax_cos.axvline(0, color=DARK_RED, ls="--", lw=1.8)
        self.mean_after = ax_cos.axvline(0, color=DARK_BLUE, ls="--", lw=1.8)
        ax_cos.axvline(0, color="black", ls=":", lw=1)
        ax_cos.set_xlim(-1, 1)
        ax_cos.set_xlabel("cosine similarity of a random pair")
        ax_cos.set_ylabel("density")
        ax_cos.set_title("Random-pair cosine")
        self.curve, = ax_iso.plot([], [], "o-", color=BLUE, ms=4, lw=2.2, label="course (rescaled)")
        self.curve_original, = ax_iso.plot([], [], "s-", color=GREEN, ms=4, lw=2.2, label="original (no rescaling)")
        self.marks = [ax_iso.plot([], [], "o", ms=13, mfc="none", mec=color, mew=2.5)[0] for color in (BLUE, GREEN)]
        self.published = ax_iso.axhline(0, color=GREY, ls="--", lw=1.4, label="published")
        ax_iso.set_ylim(0, 1)
        ax_iso.set_xlabel("D: top principal directions removed (0 = centring only)")
        ax_iso.set_ylabel("partition isotropy (1 = isotropic)")
        ax_iso.set_title("Partition isotropy against D")
        self.moving = [self.spec_before, self.spec_after, self.hist_before, self.hist_after, self.mean_before,
                       self.mean_after, self.curve, self.curve_original, *self.marks, self.published]

    def _draw(self, scene: scenes.StaticVectorsScene) -> None:
        ax_spec, ax_cos, ax_iso = self.axes
        D, published = scene.D, scene.published
        self.spec_before.set_ydata(scene.before)
        self.spec_after.set_ydata(scene.after)
        self.spec_after.set_label(f"after D = {D}")
        ax_spec.legend(loc="upper right")
        low, high = scene.spectrum_range
        ax_spec.set_ylim(_decade_below(low), nice_limit(2.0 * high))
        self.hist_before.set_data(scene.density_before)
        self.hist_after.set_data(scene.density_after)
        self.mean_before.set_xdata([scene.mean_before] * 2)
        self.mean_after.set_xdata([scene.mean_after] * 2)
        self.hist_before.set_label(f"unprocessed, mean {scene.mean_before:+.3f}")
        self.hist_after.set_label(f"after D = {D}, mean {scene.mean_after:+.3f}")
        ax_cos.set_ylim(0, nice_limit(1.05 * scene.density_top))
        ax_cos.legend(loc="upper left")
        steps = np.arange(len(scene.isotropy))
        self.curve.set_data(steps, scene.isotropy)
        self.curve_original.set_data(steps, scene.isotropy_original)
        for mark, values in zip(self.marks, (scene.isotropy, scene.isotropy_original)):
            mark.set_data([D], [values[D]])
        self.published.set_visible(published is not None)
        if published is not None:
            self.published.set_ydata([published] * 2)
            self.published.set_label(f"published: {published:g}")
        ax_iso.set_xlim(-0.5, len(steps) - 0.5)
        ax_iso.set_xticks(steps)
        ax_iso.legend(handles=[self.curve, self.curve_original] + ([self.published] if published is not None else []),
                      loc="upper left")


# --------------------------------------------------------------------------------------------
# 09: a decoder LLM (self-contained: draws only the arrays of shared.realdecoder's results)
# --------------------------------------------------------------------------------------------


class DecoderLayersView(View):
    """SmolLM2 layer by layer (:class:`~shared.realdecoder.DecoderProfile`) beside MiniLM on the same
    sentences (:class:`~shared.realdecoder.EncoderSide`): the cross-sentence mean cosine (all
    tokens, first tokens left out, massive coordinates deleted too), the largest entry as a multiple
    of the median entry, and the attention every head gives the first token
    (:func:`~shared.scenes.decoder_layers_scene`)."""

    measure = staticmethod(scenes.decoder_layers_scene)
    FIGSIZE, NCOLS, TITLE = (17.0, 5.0), 3, "SmolLM2-135M layer by layer, on the course corpus"

    def _draw(self, scene: scenes.DecoderLayersScene) -> None:
        ax_cos, ax_big, ax_att = self.axes
        for ax in self.axes:
            ax.cla()
        profile, side, depth = scene.profile, scene.side, scene.depth
        layers = np.arange(len(profile.mean_cosine))
        ax_cos.plot(depth, profile.mean_cosine, "o-", color=RED, lw=2.4, ms=4, label="SmolLM2, all tokens")
        ax_cos.plot(depth, profile.mean_cosine_rest, "s--", color=ORANGE, lw=1.6, ms=3,
                    label="SmolLM2, first token left out")
        ax_cos.plot(depth, profile.mean_cosine_trimmed, "^-", color=GREEN, lw=2.0, ms=4,
                    label=f"... and the {len(profile.massive)} massive coordinates deleted")
        ax_cos.plot(scene.encoder_depth, side.mean_cosine, "D:", color=BLUE, lw=2.0, ms=5,
                    label="MiniLM-L6, same sentences")
        ax_cos.axhline(0, color="black", ls=":", lw=1)
        ax_cos.set_xlim(-0.03, 1.03)
        ax_cos.set_ylim(-0.05, 1)
        ax_cos.set_xlabel("relative depth (layer / number of layers)")
        ax_cos.set_ylabel("mean cosine of tokens from different sentences")
        ax_cos.set_title("The cone, and what carries it")
        ax_cos.legend(loc="upper right")
        ax_big.semilogy(layers, profile.largest, "o-", color=RED, lw=2.4, ms=4, label="first token of a sentence")
        ax_big.semilogy(layers, profile.largest_rest, "s-", color=GREY, lw=1.8, ms=3, label="every other token")
        ax_big.axhline(100, color="black", ls=":", lw=1.2, label="100 × median (massive)")
        ax_big.set_xlabel("layer (0 = token embeddings)")
        ax_big.set_ylabel("largest |entry| / median |entry| of the layer")
        ax_big.set_title("Massive activations")
        ax_big.legend(loc="lower right")
        blocks = layers[1:]
        ax_att.bar(blocks, profile.first_attention, color=RED, alpha=0.75, label="attention to the first token")
        ax_att.axhline(profile.uniform_first, color="black", ls=":", lw=1.2,
                       label=f"attention spread evenly ({profile.uniform_first:.3f})")
        ax_att.set_ylim(0, 1)
        ax_att.set_xlabel("block")
        ax_att.set_ylabel("mean weight on the first token (queries at position ≥ 2)")
        ax_att.set_title("An attention sink")
        ax_att.legend(loc="upper left")


class DecoderView(View):
    """One layer of SmolLM2 with something left out (:class:`~shared.realdecoder.DecoderPoint`): the
    cosines of token pairs from different sentences, and the coordinates that carry their mean
    (:func:`~shared.scenes.decoder_scene`)."""

    measure = staticmethod(scenes.decoder_scene)
    FIGSIZE, NCOLS, TITLE = (13.5, 5.0), 2, "SmolLM2-135M: one layer, something left out"
    BINS = np.linspace(-1.0, 1.0, 81)
    TOP = 8  # coordinates shown
    # Fixed scales (they hold every layer and setting of the course corpus), so that settings compare
    # by eye and a move redraws only the bars; a taller histogram or a larger term widens the scale.
    HIST_TOP, TERM_TOP = 8.0, 0.8

    def _build(self, scene: scenes.DecoderScene) -> None:
        ax_hist, ax_terms = self.axes
        self.hist = ax_hist.stairs(np.zeros(len(self.BINS) - 1), self.BINS, fill=True, alpha=0.6, color=RED)
        self.mean = ax_hist.axvline(0, color=DARK_RED, ls="--", lw=1.8)
        ax_hist.axvline(0, color="black", ls=":", lw=1)
        ax_hist.set_xlim(-1, 1)
        ax_hist.set_ylim(0, self.HIST_TOP)
        ax_hist.set_xlabel("cosine of two tokens from different sentences")
        ax_hist.set_ylabel("density")
        ax_hist.set_title("Token pairs from different sentences")
        self.bars = ax_terms.bar(np.arange(self.TOP), np.zeros(self.TOP), color=BLUE, alpha=0.8)
        ax_terms.set_xticks(np.arange(self.TOP))
        ax_terms.set_ylim(0, self.TERM_TOP)
        ax_terms.set_xlabel("the eight largest terms (the coordinate is above its bar)")
        ax_terms.set_ylabel("its term in the mean cosine")
        ax_terms.set_title("Which coordinates carry the mean cosine")
        self.labels = [ax_terms.text(i, 0, "", ha="center", va="bottom", fontsize=9) for i in range(self.TOP)]
        self.moving = [self.hist, self.mean, *self.bars, *self.labels]

    def _draw(self, scene: scenes.DecoderScene) -> None:
        ax_hist, ax_terms = self.axes
        point = scene.point
        self.hist.set_data(point.hist)
        self.mean.set_xdata([point.mean_cosine] * 2)
        self.hist.set_label(f"layer {point.layer}, left out: {point.leave_out}")
        self.mean.set_label(f"mean = {point.mean_cosine:+.3f} (all pairs)")
        ax_hist.legend(loc="upper left")
        ax_hist.set_ylim(0, max(self.HIST_TOP, nice_limit(1.05 * point.hist.max())))
        for bar, label, coord, term in zip(self.bars, self.labels, point.top, point.top_terms):
            bar.set_height(max(term, 0.0))
            label.set_position((bar.get_x() + bar.get_width() / 2, max(term, 0.0)))
            label.set_text(str(int(coord)))
        ax_terms.set_ylim(0, max(self.TERM_TOP, nice_limit(1.1 * max(float(point.top_terms.max()), 1e-6))))
