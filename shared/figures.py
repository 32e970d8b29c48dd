"""The course's plot style and one view per experiment figure.

Every view follows one pattern: it is built from the arrays (or the typed results) a notebook
holds, ``SphereConeView(X_iso, X_cone)``, and draws exactly those. ``view.update(...)`` takes the
same arguments and redraws; ``view.readings()`` gives the numbers the view annotates, each named
and formatted as its meter declares. A notebook shows a view as a static figure (its PNG); an
explorer (:mod:`shared.explorers`) calls ``update`` on every slider move. The fast redraw itself
is private plumbing in :mod:`shared._redraw`.
"""

from __future__ import annotations

import math
from contextlib import AbstractContextManager
from typing import Any

import matplotlib as mpl
import numpy as np

from ._redraw import LiveFigure, nice_limit
from .mechanisms import AttentionRun, DegenerationRun, angular_std, band_cosines
from .meters import (
    Reading,
    cov_eigs,
    effective_rank,
    gaussian_effective_rank,
    isoscore,
    isotropy_or_range,
    mean_cosine,
    partition_isotropy,
    read,
    random_cosines,
)
from .pca import mean_plane, pca_2d, principal_axes

__all__ = [
    "AttentionView",
    "CosineView",
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

COSINE_BINS = np.linspace(-1.0, 1.0, 60)


def course_style() -> AbstractContextManager[None]:
    """The course's matplotlib style, as a context manager: ``with course_style(): ...``.

    Every view of this module draws inside it; a learner's own plot can too. Nothing outside
    the ``with`` block changes.
    """
    return mpl.rc_context(STYLE)


class View(LiveFigure):
    """A course figure: ``ncols`` panels in a row, in the course's style."""

    def __init__(self, figsize: tuple[float, float], ncols: int, title: str) -> None:
        super().__init__(figsize, ncols, title, STYLE)
        self._readings: dict[str, list[Reading]] = {}

    def readings(self) -> dict[str, list[Reading]]:
        """The numbers this view annotates, by group (what an explorer prints beside its sliders)."""
        return self._readings


def _fractions(eigs: np.ndarray) -> np.ndarray:
    """Eigenvalues as fractions of the total variance; exact zeros become NaN (no point on a log axis)."""
    f = eigs / eigs.sum()
    return np.where(f > 0, f, np.nan)


def _decade_below(x: float) -> float:
    """The power of ten at or below ``x / 2``: a log axis floor that moves only a decade at a time."""
    return 10.0 ** math.floor(math.log10(max(x, 1e-300) / 2))


def _density(values: np.ndarray, bins: np.ndarray) -> np.ndarray:
    """Histogram of ``values`` over ``bins`` as a density (area 1)."""
    counts, _ = np.histogram(values, bins=bins)
    return counts / (counts.sum() * np.diff(bins))


def _square_limits(ax: Any, points: np.ndarray) -> None:
    """Symmetric, equal x and y limits that hold every point, snapped to a nice value."""
    lim = nice_limit(1.05 * max(np.abs(points).max(), 1e-12))
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)


# --------------------------------------------------------------------------------------------
# 01: sphere vs cone
# --------------------------------------------------------------------------------------------


class SphereConeView(View):
    """Two clouds, *not* centred, on the plane of their mean direction (:func:`~shared.pca.mean_plane`),
    with the origin marked, and both covariance spectra.

    A cone stands off the origin and leans along its mean direction (the arrow from the origin to
    the mean); an isotropic cloud sits around the origin. Each panel writes the median angle of the
    rows to their mean direction, measured in the full space. Readings per cloud: partition
    isotropy, effective rank, and the exact mean cosine over all pairs (no sampling, so no seed).
    """

    def __init__(self, X_iso: np.ndarray, X_cone: np.ndarray) -> None:
        super().__init__((14.0, 4.6), 3, "Sphere vs cone: where the points sit relative to the origin")
        ax_iso, ax_cone, ax_spec = self.axes
        d = np.shape(X_iso)[1]
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
        self.update(X_iso, X_cone)

    def update(self, X_iso: np.ndarray, X_cone: np.ndarray) -> None:
        planes = [mean_plane(X_iso), mean_plane(X_cone)]
        eig_iso, eig_cone = cov_eigs(X_iso), cov_eigs(X_cone)
        self.iso.set_offsets(planes[0].coords)
        self.cone.set_offsets(planes[1].coords)
        for arrow, text, plane, X in zip(self.arrows, self.angle_texts, planes, (X_iso, X_cone)):
            arrow.set_data([0.0, float(np.linalg.norm(np.mean(X, axis=0)))], [0.0, 0.0])
            text.set_text(f"median angle to the mean: {np.median(plane.angles):.0f}°")
        self.spec_iso.set_ydata(_fractions(eig_iso))
        self.spec_cone.set_ydata(_fractions(eig_cone))
        for ax in self.axes[:2]:
            _square_limits(ax, np.vstack([planes[0].coords, planes[1].coords]))
        fractions = np.concatenate([_fractions(eig_iso), _fractions(eig_cone)])
        self.axes[2].set_ylim(_decade_below(np.nanmin(fractions)), 1.5)
        self._readings = {
            name: [read(partition_isotropy, partition_isotropy(X)), read(effective_rank, effective_rank(eigs)),
                   read(mean_cosine, mean_cosine(X))]
            for name, X, eigs in [("isotropic", X_iso, eig_iso), ("cone", X_cone, eig_cone)]
        }


# --------------------------------------------------------------------------------------------
# 02: illusory cosine similarity
# --------------------------------------------------------------------------------------------


class CosineView(View):
    """Histograms (densities) of two sets of random-pair cosines, with their means."""

    def __init__(self, cos_iso: np.ndarray, cos_cone: np.ndarray) -> None:
        super().__init__((9.5, 5.0), 1, "Random-pair cosine similarity: a cone makes everything look alike")
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
        self.update(cos_iso, cos_cone)

    def update(self, cos_iso: np.ndarray, cos_cone: np.ndarray) -> None:
        ax = self.axes[0]
        top = 0.0
        self._readings = {}
        for hist, line, cos, name, group in [
            (self.hist_iso, self.mean_iso, np.asarray(cos_iso), "iso", "isotropic"),
            (self.hist_cone, self.mean_cone, np.asarray(cos_cone), "cone", "cone"),
        ]:
            density = _density(cos, COSINE_BINS)
            hist.set_data(density)
            line.set_xdata([cos.mean()] * 2)
            line.set_label(f"{name} mean = {cos.mean():+.2f}")
            top = max(top, density.max())
            self._readings[group] = [read(random_cosines, cos.mean()), Reading("std", float(cos.std()))]
        ax.set_ylim(0, nice_limit(1.05 * top))
        ax.legend(loc="upper left")


# --------------------------------------------------------------------------------------------
# 03: self-attention contraction
# --------------------------------------------------------------------------------------------


class AttentionView(View):
    """A 2-D token cloud at layers 0, depth/4 and depth of a run, and its mean-cosine and
    angular-spread curves up to ``depth`` (default: the whole run)."""

    COLORS = (BLUE, ORANGE, RED)

    def __init__(self, run: AttentionRun, depth: int | None = None) -> None:
        super().__init__((13.0, 5.0), 2, "Self-attention contracts a sequence onto one ray")
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
        self.update(run, depth)

    def update(self, run: AttentionRun, depth: int | None = None) -> None:
        depth = run.depth if depth is None else int(depth)
        if not 1 <= depth <= run.depth:
            raise ValueError(f"depth: expected 1..{run.depth} (the layers this run has), got {depth}")
        if run.clouds[0].shape[1] != 2:
            raise ValueError(f"run: the view draws 2-D clouds, this run's are {run.clouds[0].shape[1]}-D")
        ax, ax_curve = self.axes
        shown = (0, max(1, round(depth / 4)), depth)
        for scatter, layer in zip(self.snaps, shown):
            scatter.set_offsets(run.clouds[layer])
            scatter.set_label(f"layer {layer}")
        ax.legend(loc="upper left")
        every = np.vstack([run.clouds[layer] for layer in shown] + [np.zeros((1, 2))])
        lo, hi = every.min(axis=0), every.max(axis=0)
        half = nice_limit(0.55 * max(hi - lo))
        centre = np.round((lo + hi) / 2 / (half / 2)) * (half / 2)
        ax.set_xlim(centre[0] - half, centre[0] + half)
        ax.set_ylim(centre[1] - half, centre[1] + half)
        layers = np.arange(1, depth + 1)
        mean_cos, spread = np.array(run.mean_cos[:depth]), np.array(run.angular_std[:depth])
        self.cos_line.set_data(layers, mean_cos)
        self.spread_line.set_data(layers, spread)
        ax_curve.set_xlim(0, nice_limit(depth + 0.5))
        values = np.concatenate([mean_cos, spread])
        ax_curve.set_ylim(-nice_limit(-values.min()) if values.min() < 0 else 0.0, nice_limit(1.05 * values.max()))
        self._readings = {f"after layer {depth}": [read(random_cosines, mean_cos[-1]),
                                                   read(angular_std, spread[-1])]}


# --------------------------------------------------------------------------------------------
# 04: frequency
# --------------------------------------------------------------------------------------------


class FrequencyView(View):
    """Embedding norm against frequency rank, and the PCA picture, coloured by frequency rank.

    Rows of ``emb`` are tokens in order of frequency (row 0 the most frequent), ``freq`` their
    frequencies. Colour encodes ``log10`` of the frequency rank (bright = frequent), which does not
    depend on the Zipf exponent, so the colour scale stays put while the exponent slider moves.
    Tokens are drawn rarest first, so the few frequent ones are not hidden under the many rare ones.
    """

    def __init__(self, freq: np.ndarray, emb: np.ndarray) -> None:
        super().__init__((14.0, 5.0), 2, "A frequency pull changes norms, not directions")
        ax_norm, ax_pca = self.axes
        ranks = np.arange(len(emb), 0, -1)  # drawing order: rarest first
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
        self.update(freq, emb)

    def update(self, freq: np.ndarray, emb: np.ndarray) -> None:
        if len(freq) != len(emb):
            raise ValueError(f"freq: expected one frequency per row of emb ({len(emb)}), got {len(freq)}")
        ax_norm, ax_pca = self.axes
        norms = np.linalg.norm(emb, axis=1)
        P = pca_2d(emb)
        ranks = np.arange(len(norms), 0, -1)
        self.norms.set_offsets(np.column_stack([ranks, norms[::-1]]))
        self.pca.set_offsets(P[::-1])
        ax_norm.set_ylim(0, nice_limit(1.05 * norms.max()))
        _square_limits(ax_pca, P)
        self._readings = {"embeddings": [
            Reading("norm, most frequent", float(norms[0]), ".2f"), Reading("norm, least frequent", float(norms[-1]), ".2f"),
            read(partition_isotropy, partition_isotropy(emb)), read(mean_cosine, mean_cosine(emb)),
        ]}


class DegenerationView(View):
    """A :class:`~shared.mechanisms.DegenerationRun`: the mean cosine within each frequency band
    against training step (the chosen ``step`` marked), and the embeddings at that step on their
    top two principal axes and as norm against frequency rank, coloured by rank (bright = frequent)."""

    BAND_COLORS = {"frequent": ORANGE, "middle": GREY, "rare": RED, "overall": INK}

    def __init__(self, run: DegenerationRun, step: int | None = None) -> None:
        super().__init__((17.0, 5.0), 3, "A language model trained by likelihood (Gao et al. 2019)")
        ax_cos, ax_pca, ax_norm = self.axes
        vocab = run.emb.shape[1]
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
        self.update(run, step)

    def update(self, run: DegenerationRun, step: int | None = None) -> None:
        k = len(run.steps) - 1 if step is None else run.at(step)
        ax_cos, ax_pca, ax_norm = self.axes
        bands = band_cosines(run)
        for band, line in self.curves.items():
            line.set_data(run.steps, getattr(bands, band))
        ax_cos.legend(loc="lower right", title=f"Zipf exponent {run.exponent:g}, {'tied' if run.tied else 'untied'}")
        ax_cos.set_xlim(0, nice_limit(1.2 * max(run.steps[-1], 1)))
        ax_cos.set_xticks(run.steps, [str(t) for t in run.steps], fontsize=9)
        ax_cos.minorticks_off()
        self.marker.set_xdata([run.steps[k]] * 2)
        X = run.emb[k]
        U = X / np.linalg.norm(X, axis=1, keepdims=True)  # directions: what a cosine sees
        P = U @ principal_axes(U).axes[:, :2]  # not centred, so the origin stays the origin
        self.pca.set_offsets(P[::-1])
        self.step_text.set_text(f"step {run.steps[k]}")
        norms = np.linalg.norm(X, axis=1)
        self.norms.set_offsets(np.column_stack([np.arange(len(X), 0, -1), norms[::-1]]))
        # one scale for the whole run, so that stepping through training only redraws the points
        ax_norm.set_ylim(0, nice_limit(1.05 * np.linalg.norm(run.emb, axis=2).max()))
        self._readings = {f"step {run.steps[k]}": [
            read(mean_cosine, getattr(bands, band)[k], f"{band} band mean cosine") for band in ("frequent", "middle", "rare")
        ] + [read(mean_cosine, bands.overall[k], "all tokens mean cosine"), read(effective_rank, effective_rank(cov_eigs(X)))]}


# --------------------------------------------------------------------------------------------
# 05: rich-get-richer
# --------------------------------------------------------------------------------------------


class RichGetRicherView(View):
    """Sorted spectra at four steps of a run (``history[t]`` = spectrum after ``t`` steps), and the
    effective rank against step."""

    COLORS = mpl.colormaps["viridis"](np.linspace(0.15, 0.9, 4))
    FLOOR = 1e-8  # directions starved below this share run off the bottom of the plot

    def __init__(self, history: np.ndarray) -> None:
        super().__init__((13.0, 5.0), 2, "Rich-get-richer dynamics collapse the spread")
        ax_spec, ax_rank = self.axes
        d = np.shape(history)[1]
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
        self.update(history)

    def update(self, history: np.ndarray) -> None:
        ax_spec, ax_rank = self.axes
        history = np.asarray(history)
        steps = len(history) - 1
        eff_rank = np.array([effective_rank(lam) for lam in history])
        lowest = 1.0
        for line, step in zip(self.spectra, (0, round(steps / 6), round(steps * 25 / 60), steps)):
            f = _fractions(np.sort(history[step])[::-1])
            line.set_ydata(f)
            line.set_label(f"step {step}")
            lowest = min(lowest, np.nanmin(f))
        ax_spec.legend(loc="upper right")
        ax_spec.set_ylim(max(_decade_below(lowest), self.FLOOR), 1.5)
        self.rank_line.set_data(np.arange(steps + 1), eff_rank)
        ax_rank.set_xlim(0, nice_limit(max(steps, 1)))
        self._readings = {"spectrum": [read(effective_rank, eff_rank[0], "effective rank at step 0"),
                                       read(effective_rank, eff_rank[-1], f"effective rank at step {steps}")]}


# --------------------------------------------------------------------------------------------
# 06: remedies
# --------------------------------------------------------------------------------------------

class RemedyView(View):
    """Clouds after remedies (``clouds``: name to array) and their random-pair cosines (``cosines``,
    same names): partition isotropy as bars, and the cosine distributions."""

    COLORS = (RED, ORANGE, GREEN, BLUE)

    def __init__(self, clouds: dict[str, np.ndarray], cosines: dict[str, np.ndarray]) -> None:
        super().__init__((13.5, 5.0), 2, "Remedies restore isotropy and re-centre cosine")
        ax_bar, ax_cos = self.axes
        k = len(clouds)
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
        self.update(clouds, cosines)

    def update(self, clouds: dict[str, np.ndarray], cosines: dict[str, np.ndarray]) -> None:
        if list(clouds) != list(cosines) or len(clouds) != len(self.bars):
            raise ValueError(f"cosines: expected the same {len(self.bars)} names as clouds, got {list(cosines)}")
        ax_cos = self.axes[1]
        top = 0.0
        self._readings = {}
        for i, (name, X) in enumerate(clouds.items()):
            isotropy = isotropy_or_range(X)
            self.bars[i].set_height(isotropy.value)
            self.bar_text[i].set_position((i, isotropy.value + 0.02))
            self.bar_text[i].set_text(isotropy.label)
            self.bar_names[i].set_text(name)
            density = _density(cosines[name], COSINE_BINS)
            self.hists[i].set_data(density)
            self.hists[i].set_label(name)
            top = max(top, density.max())
            self._readings[name] = [isotropy.reading(), read(random_cosines, np.mean(cosines[name])),
                                    read(isoscore, isoscore(X))]
        ax_cos.set_ylim(0, nice_limit(1.05 * top))
        ax_cos.legend(loc="upper left")


class TradeoffView(View):
    """A remedy sweep (:class:`~shared.remedies.Sweep`) of a cloud called ``name``: held-out pair AUC
    against IsoScore for every all-but-the-top ``k`` and whitening power ``p``, the best setting
    starred and the settings ``k`` and ``power`` circled."""

    def __init__(self, sweep: Any, name: str = "", k: int = 2, power: float = 1.0) -> None:
        super().__init__((7.5, 5.0), 1, "Held-out pair AUC against IsoScore")
        (ax,) = self.axes
        self.curves = {name: ax.plot([], [], "o-", ms=3.5, color=color, label=name)[0]
                       for name, color in (("all-but-the-top", ORANGE), ("whitening", GREEN))}
        self.labels = [ax.annotate(f"k={k}", (0, 0), textcoords="offset points", xytext=(6, 4), fontsize=9,
                                   color=ORANGE) for k in (0, 1, 2, 5)]
        self.star, = ax.plot([], [], "*", ms=18, color=GOLD, mec="black")
        self.markers = {name: ax.plot([], [], "o", ms=13, mfc="none", mec=color, mew=2.5)[0]
                        for name, color in (("all-but-the-top", ORANGE), ("whitening", GREEN))}
        ax.axhline(0.5, color="black", ls=":", lw=1)
        ax.text(1.0, 0.5, "chance ", ha="right", va="bottom", fontsize=9, transform=ax.get_yaxis_transform())
        ax.set_xlim(0, 1)
        ax.set_ylim(0.45, 1.0)
        ax.set_xlabel("IsoScore of held-out points (1 = isotropic)")
        ax.set_ylabel("held-out pair AUC (same label vs different)")
        self.moving = [*self.curves.values(), *self.labels, self.star, *self.markers.values()]
        self.update(sweep, name, k, power)

    def update(self, sweep: Any, name: str = "", k: int = 2, power: float = 1.0) -> None:
        ax = self.axes[0]
        for remedy, line in self.curves.items():
            curve = sweep.curve(remedy)
            line.set_data(curve.isoscore, curve.pair_auc)
        abtt = sweep.curve("all-but-the-top")
        for label, k_shown in zip(self.labels, (0, 1, 2, 5)):
            i = abtt.index(k_shown)
            label.xy = (abtt.isoscore[i], abtt.pair_auc[i])
        best, i = sweep.best()
        curve = sweep.curve(best)
        self.star.set_data([curve.isoscore[i]], [curve.pair_auc[i]])
        self.star.set_label(f"best: {best} {curve.describe(i)}")
        self._readings = {}
        for remedy, setting in (("all-but-the-top", k), ("whitening", power)):
            curve = sweep.curve(remedy)
            j = curve.index(setting)
            self.markers[remedy].set_data([curve.isoscore[j]], [curve.pair_auc[j]])
            self._readings[f"{remedy} {curve.describe(j)}"] = [
                read(isoscore, curve.isoscore[j]), Reading("held-out pair AUC", float(curve.pair_auc[j])),
                Reading("kNN accuracy", float(curve.knn_accuracy[j]))]
        ax.legend(handles=[*self.curves.values(), self.star], loc="lower left", title=name or None)


# --------------------------------------------------------------------------------------------
# 07: a real Transformer
# --------------------------------------------------------------------------------------------


class LayerCurvesView(View):
    """Per-layer meters of the real model (:class:`~shared.realmodel.LayerProfile`): mean cosine
    beside published curves, effective rank, and rank collapse."""

    def __init__(self, profile: Any, published: dict[str, tuple[float, ...]], dim: int) -> None:
        super().__init__((17.0, 5.0), 3, "all-MiniLM-L6-v2, layer by layer, on the course corpus")
        self.update(profile, published, dim)

    def update(self, profile: Any, published: dict[str, tuple[float, ...]], dim: int) -> None:
        ax_cos, ax_rank, ax_collapse = self.axes
        for ax in self.axes:
            ax.cla()
        layers = np.arange(len(profile.mean_cosine))
        depth = layers / layers[-1]
        for (name, values), style in zip(published.items(), ("s--", "^:")):
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
        ax_rank.axhline(gaussian_effective_rank(n, dim), color="black", ls=":", lw=1.2,
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
    embeddings, and contextual vectors at a few ``layers``."""

    def __init__(self, data: Any, layers: tuple[int, ...] = (0, 3, 6)) -> None:
        super().__init__((14.0, 5.0), 2, "Norm against word frequency in a real model")
        self.update(data, layers)

    def update(self, data: Any, layers: tuple[int, ...] = (0, 3, 6)) -> None:
        ax_vocab, ax_ctx = self.axes
        for ax in self.axes:
            ax.cla()
        centres = (data.zipf_bins[:-1] + data.zipf_bins[1:]) / 2
        vocab, ctx = data.vocabulary, data.context
        ax_vocab.scatter(vocab.zipf, vocab.norm, s=3, alpha=0.15, color=BLUE, edgecolors="none",
                         label=f"{len(vocab.zipf):,} vocabulary words")
        ax_vocab.plot(centres, vocab.median[0], "o-", color=INK, lw=2.4, label="median per frequency bin")
        ax_vocab.set_xlabel("word frequency (Zipf scale: 3 = once per million words)")
        ax_vocab.set_ylabel("input embedding norm")
        ax_vocab.set_title(f"Static embeddings: Spearman ρ = {vocab.spearman[0]:+.2f}")
        ax_vocab.legend(loc="upper left")
        colors = mpl.colormaps["viridis"](np.linspace(0.1, 0.85, len(layers)))
        for layer, color in zip(layers, colors):
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
    pairs, unrelated pairs and traps among the held-out sentences."""

    BINS = np.linspace(-1.0, 1.0, 81)
    SENTENCE_BINS = np.linspace(-1.0, 1.0, 41)
    # Fixed scales (they hold every layer and remedy of the course corpus), so that settings can be
    # compared by eye and a move redraws only the bars; a taller histogram widens the scale.
    TOKEN_TOP, SENTENCE_TOP = 12.0, 0.6

    def __init__(self, point: Any) -> None:
        super().__init__((13.5, 5.0), 2, "A real Transformer: one layer, one remedy, held-out data")
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
        zero = np.zeros(len(self.SENTENCE_BINS) - 1)
        self.unrelated = ax_sent.stairs(zero, self.SENTENCE_BINS, fill=True, alpha=0.5, color=GREY)
        self.paraphrase = ax_sent.stairs(zero, self.SENTENCE_BINS, fill=True, alpha=0.6, color=GREEN)
        self.traps = ax_sent.stairs(zero, self.SENTENCE_BINS, color=ORANGE, lw=2.2)
        ax_sent.set_xlim(-1, 1)
        ax_sent.set_ylim(0, 1)
        ax_sent.set_xlabel("cosine of two sentence vectors")
        ax_sent.set_ylabel("share of pairs")
        ax_sent.set_title("Sentence pairs (held-out half)")
        self.moving = [self.token_hist, self.token_mean, self.unrelated, self.paraphrase, self.traps]
        self.update(point)

    def update(self, point: Any) -> None:
        ax_tok, ax_sent = self.axes
        self.token_hist.set_data(point.token_hist)
        self.token_mean.set_xdata([point.mean_cosine] * 2)
        self.token_hist.set_label(f"layer {point.layer}, {point.remedy}")
        self.token_mean.set_label(f"mean = {point.mean_cosine:+.3f}")
        ax_tok.legend(loc="upper left")
        ax_tok.set_ylim(0, max(self.TOKEN_TOP, nice_limit(1.05 * point.token_hist.max())))
        for stairs, values, name in [(self.unrelated, point.unrelated, "unrelated pairs"),
                                     (self.paraphrase, point.paraphrase, "paraphrase pairs"),
                                     (self.traps, point.traps, "traps")]:
            counts, _ = np.histogram(values, bins=self.SENTENCE_BINS)
            share = counts / len(values)
            if stairs is self.traps:  # an outline: no line along the empty bins
                share = np.where(counts > 0, share, np.nan)
            stairs.set_data(share)
            stairs.set_label(f"{name} ({len(values)}), mean {values.mean():+.2f}")
        self.paraphrase.set_label(self.paraphrase.get_label() + f", AUC {point.check.auc:.3f}")
        self.traps.set_label(self.traps.get_label() + f"; paraphrases win {point.check.trap_auc:.3f}")
        top = max(np.nanmax(s.get_data().values) for s in (self.unrelated, self.paraphrase, self.traps))
        ax_sent.set_ylim(0, max(self.SENTENCE_TOP, nice_limit(1.05 * top)))
        ax_sent.legend(loc="upper left")
        self._readings = point.readings()


# --------------------------------------------------------------------------------------------
# 08: static word vectors
# --------------------------------------------------------------------------------------------


class StaticVectorsView(View):
    """All-but-the-top on a set of word vectors, one setting ``D`` at a time.

    Built from the arrays of a sweep the notebook holds: the covariance spectrum and random-pair
    cosines of the unprocessed vectors (``eigs_before``, ``cosines_before``), the same for every
    number of removed directions ``D = 0, 1, ...`` (rows of ``eigs`` and ``cosines``), and
    partition isotropy for every ``D`` by the course's estimator (``isotropy``) and by the original
    one, without rescaling (``isotropy_original``). ``published`` is a reference value drawn as a
    line (Mu & Viswanath's "after", say). Three panels: both spectra (directions emptied by the
    remedy have no variance and leave the log axis), both cosine histograms, and both isotropy
    curves with ``D`` marked. Every scale is set from the whole sweep, so moving ``D`` only redraws.
    """

    EMPTY = 1e-12  # eigenvalues below this share of the largest are emptied directions

    def __init__(self, eigs_before: np.ndarray, cosines_before: np.ndarray, eigs: np.ndarray, cosines: np.ndarray,
                 isotropy: np.ndarray, isotropy_original: np.ndarray, published: float | None = None,
                 D: int = 1) -> None:
        super().__init__((17.0, 5.0), 3, "All-but-the-top on static word vectors (Mu & Viswanath 2018)")
        ax_spec, ax_cos, ax_iso = self.axes
        d = len(eigs_before)
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
        self.update(eigs_before, cosines_before, eigs, cosines, isotropy, isotropy_original, published, D)

    def update(self, eigs_before: np.ndarray, cosines_before: np.ndarray, eigs: np.ndarray, cosines: np.ndarray,
               isotropy: np.ndarray, isotropy_original: np.ndarray, published: float | None = None,
               D: int = 1) -> None:
        ax_spec, ax_cos, ax_iso = self.axes
        eigs_before, eigs = np.asarray(eigs_before, dtype=float), np.asarray(eigs, dtype=float)
        cosines_before, cosines = np.asarray(cosines_before, dtype=float), np.asarray(cosines, dtype=float)
        isotropy, isotropy_original = np.asarray(isotropy, dtype=float), np.asarray(isotropy_original, dtype=float)
        settings = len(eigs)
        if not (len(cosines) == len(isotropy) == len(isotropy_original) == settings):
            raise ValueError(f"cosines, isotropy, isotropy_original: expected one row per D like eigs ({settings}), "
                             f"got {len(cosines)}, {len(isotropy)}, {len(isotropy_original)}")
        if not 0 <= int(D) < settings:
            raise ValueError(f"D: expected 0..{settings - 1} (the settings of the sweep), got {D}")
        D = int(D)
        shown = np.where(eigs > self.EMPTY * eigs.max(axis=1, keepdims=True), eigs, np.nan)
        before = np.where(eigs_before > self.EMPTY * eigs_before.max(), eigs_before, np.nan)
        self.spec_before.set_ydata(before)
        self.spec_after.set_ydata(shown[D])
        self.spec_after.set_label(f"after D = {D}")
        ax_spec.legend(loc="upper right")
        every = np.concatenate([before, shown.ravel()])
        ax_spec.set_ylim(_decade_below(np.nanmin(every)), nice_limit(2.0 * np.nanmax(every)))
        densities = [_density(c, COSINE_BINS) for c in (cosines_before, *cosines)]
        self.hist_before.set_data(densities[0])
        self.hist_after.set_data(densities[D + 1])
        self.mean_before.set_xdata([cosines_before.mean()] * 2)
        self.mean_after.set_xdata([cosines[D].mean()] * 2)
        self.hist_before.set_label(f"unprocessed, mean {cosines_before.mean():+.3f}")
        self.hist_after.set_label(f"after D = {D}, mean {cosines[D].mean():+.3f}")
        ax_cos.set_ylim(0, nice_limit(1.05 * max(dens.max() for dens in densities)))
        ax_cos.legend(loc="upper left")
        steps = np.arange(settings)
        self.curve.set_data(steps, isotropy)
        self.curve_original.set_data(steps, isotropy_original)
        for mark, values in zip(self.marks, (isotropy, isotropy_original)):
            mark.set_data([D], [values[D]])
        self.published.set_visible(published is not None)
        if published is not None:
            self.published.set_ydata([published] * 2)
            self.published.set_label(f"published: {published:g}")
        ax_iso.set_xlim(-0.5, settings - 0.5)
        ax_iso.set_xticks(steps)
        ax_iso.legend(handles=[self.curve, self.curve_original] + ([self.published] if published is not None else []),
                      loc="upper left")
        self._readings = {
            "unprocessed": [read(random_cosines, cosines_before.mean()), read(effective_rank, effective_rank(eigs_before))],
            f"after D = {D}": [read(partition_isotropy, isotropy[D]),
                               read(partition_isotropy, isotropy_original[D], "partition I, original"),
                               read(random_cosines, cosines[D].mean()), read(effective_rank, effective_rank(eigs[D]))],
        }


# --------------------------------------------------------------------------------------------
# 09: a decoder LLM (self-contained: draws only the arrays of shared.realdecoder's results)
# --------------------------------------------------------------------------------------------


class DecoderLayersView(View):
    """SmolLM2 layer by layer (:class:`~shared.realdecoder.DecoderProfile`) beside MiniLM on the same
    sentences (:class:`~shared.realdecoder.EncoderSide`): the cross-sentence mean cosine (all
    tokens, first tokens left out, massive coordinates deleted too), the largest entry as a multiple
    of the median entry, and the attention every head gives the first token."""

    def __init__(self, profile: Any, side: Any) -> None:
        super().__init__((17.0, 5.0), 3, "SmolLM2-135M layer by layer, on the course corpus")
        self.update(profile, side)

    def update(self, profile: Any, side: Any) -> None:
        ax_cos, ax_big, ax_att = self.axes
        for ax in self.axes:
            ax.cla()
        layers = np.arange(len(profile.mean_cosine))
        depth = layers / layers[-1]
        enc_depth = np.arange(len(side.mean_cosine)) / (len(side.mean_cosine) - 1)
        ax_cos.plot(depth, profile.mean_cosine, "o-", color=RED, lw=2.4, ms=4, label="SmolLM2, all tokens")
        ax_cos.plot(depth, profile.mean_cosine_rest, "s--", color=ORANGE, lw=1.6, ms=3,
                    label="SmolLM2, first token left out")
        ax_cos.plot(depth, profile.mean_cosine_trimmed, "^-", color=GREEN, lw=2.0, ms=4,
                    label=f"... and the {len(profile.massive)} massive coordinates deleted")
        ax_cos.plot(enc_depth, side.mean_cosine, "D:", color=BLUE, lw=2.0, ms=5, label="MiniLM-L6, same sentences")
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
    cosines of token pairs from different sentences, and the coordinates that carry their mean."""

    BINS = np.linspace(-1.0, 1.0, 81)
    TOP = 8  # coordinates shown
    # Fixed scales (they hold every layer and setting of the course corpus), so that settings compare
    # by eye and a move redraws only the bars; a taller histogram or a larger term widens the scale.
    HIST_TOP, TERM_TOP = 8.0, 0.8

    def __init__(self, point: Any) -> None:
        super().__init__((13.5, 5.0), 2, "SmolLM2-135M: one layer, something left out")
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
        self.update(point)

    def update(self, point: Any) -> None:
        ax_hist, ax_terms = self.axes
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
        self._readings = point.readings()
