"""One view per figure of notebooks 01 to 06 (the toys), each drawing the scene its ``measure`` computes.

Every view follows one pattern: it is built from the arrays (or the typed results) a notebook
holds, ``SphereConeView(X_iso, X_cone)``, and draws exactly those. What it draws is computed first,
without matplotlib, by the view's ``measure`` (a pure function of :mod:`shared.figures.scenes_toys`,
here :func:`~shared.figures.scenes_toys.sphere_cone_scene`) into a *scene*; ``view.draw(scene)`` then
only sets the artists' data and the axis limits. ``view.update(...)`` takes the constructor's
arguments and does both; ``view.readings()`` gives the numbers the view annotates, each named and
formatted as its meter declares. A notebook shows a view as a static figure (its PNG); an explorer
(:mod:`shared.explorers`) calls ``measure`` and then ``draw`` on every slider move. The base class,
the style and the fast redraw are in :mod:`shared.figures.engine`.
"""

from __future__ import annotations

import matplotlib as mpl
import numpy as np

from ..remedies import SweptRemedy
from . import scenes_toys as scenes
from .engine import (
    BLUE,
    DARK_BLUE,
    DARK_RED,
    GOLD,
    GREEN,
    GREY,
    INK,
    ORANGE,
    RED,
    View,
    decade_below,
    nice_limit,
    square_limits,
)
from .scenes_common import COSINE_BINS

__all__ = [
    "AttentionView",
    "CosineView",
    "DegenerationView",
    "FrequencyView",
    "RemedyView",
    "RichGetRicherView",
    "SphereConeView",
    "TradeoffView",
]


# --------------------------------------------------------------------------------------------
# 01: sphere vs cone
# --------------------------------------------------------------------------------------------


class SphereConeView(View):
    """Two clouds, *not* centred, on the plane of their mean direction (:func:`~shared.geometry.mean_plane`),
    with the origin marked, and both covariance spectra (:func:`~shared.figures.sphere_cone_scene`).

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
            square_limits(ax, np.vstack(scene.coords))
        self.axes[2].set_ylim(decade_below(np.nanmin(np.concatenate(scene.fractions))), 1.5)


# --------------------------------------------------------------------------------------------
# 02: illusory cosine similarity
# --------------------------------------------------------------------------------------------


class CosineView(View):
    """Histograms (densities) of two sets of random-pair cosines, with their means
    (:func:`~shared.figures.cosine_scene`)."""

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
    angular-spread curves up to ``depth`` (default: the whole run; :func:`~shared.figures.attention_scene`)."""

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
    (:func:`~shared.figures.frequency_scene`).

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
        square_limits(ax_pca, scene.pca)


class DegenerationView(View):
    """A :class:`~shared.mechanisms.DegenerationRun`: the mean cosine within each frequency band
    against training step (the chosen ``step`` marked), and the embeddings at that step on their
    top two principal axes and as norm against frequency rank, coloured by rank (bright = frequent;
    :func:`~shared.figures.degeneration_scene`)."""

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
    effective rank against step (:func:`~shared.figures.rich_get_richer_scene`)."""

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
        ax_spec.set_ylim(max(decade_below(min(1.0, np.nanmin(scene.spectra))), self.FLOOR), 1.5)
        steps = len(scene.effective_rank) - 1
        self.rank_line.set_data(np.arange(steps + 1), scene.effective_rank)
        ax_rank.set_xlim(0, nice_limit(max(steps, 1)))


# --------------------------------------------------------------------------------------------
# 06: remedies
# --------------------------------------------------------------------------------------------

class RemedyView(View):
    """Clouds after remedies (``clouds``: name to array) and their random-pair cosines (``cosines``,
    same names): partition isotropy as bars, and the cosine distributions
    (:func:`~shared.figures.remedy_scene`)."""

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
    starred and the settings ``k`` and ``power`` circled (:func:`~shared.figures.tradeoff_scene`)."""

    measure = staticmethod(scenes.tradeoff_scene)
    FIGSIZE, NCOLS, TITLE = (7.5, 5.0), 1, "Held-out pair AUC against IsoScore"
    REMEDY_COLORS = {SweptRemedy.ALL_BUT_THE_TOP.value: ORANGE, SweptRemedy.WHITENING.value: GREEN}

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
