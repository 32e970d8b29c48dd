"""What the figures of notebooks 01 to 06 (the toys) draw, computed without drawing: one pure function per view.

A view only draws. The numbers and curves it shows (projections, spectra, histograms, the readings
beside an explorer's sliders) are computed here, from the arrays or typed results a notebook
holds, into a *scene*: a dataclass of named arrays and a ``readings`` dict (group name to
:class:`~shared.meters.Reading`). ``SphereConeView.measure(X_iso, X_cone)`` is
:func:`sphere_cone_scene`; an explorer calls it on every slider move and hands the scene to the
view's ``draw``. No matplotlib here: what a figure will show can be checked from its scene alone.
The scenes of notebooks 07 to 09 are in :mod:`shared.figures.scenes_real`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _checks
from ..mechanisms import AttentionRun, DegenerationRun, angular_std, band_cosines
from ..meters import (
    Isotropy,
    Reading,
    cov_eigs,
    effective_rank,
    isoscore,
    isotropy_or_range,
    mean_cosine,
    partition_isotropy,
    random_cosines,
    read,
)
from ..geometry import mean_plane, pca_2d, principal_axes
from ..remedies import Sweep, all_but_the_top, zca_whiten
from .scenes_common import Readings, density, fractions

__all__ = [
    "AttentionScene",
    "CosineScene",
    "DegenerationScene",
    "FrequencyScene",
    "RemedyScene",
    "RichGetRicherScene",
    "SphereConeScene",
    "TradeoffScene",
    "attention_scene",
    "cosine_scene",
    "degeneration_scene",
    "frequency_scene",
    "remedy_scene",
    "rich_get_richer_scene",
    "sphere_cone_scene",
    "tradeoff_scene",
]


# ----- 01: sphere vs cone ---------------------------------------------------------------------


@dataclass(frozen=True)
class SphereConeScene:
    """Both clouds on the plane of their mean direction (``coords``, *not* centred: the origin stays
    the origin), the length of each mean (``mean_norm``), the median angle of the rows to it in
    degrees, measured in the full space (``median_angle``), and each covariance spectrum as
    fractions of the variance (``fractions``). Pairs are (isotropic, cone)."""

    coords: tuple[np.ndarray, np.ndarray]
    mean_norm: tuple[float, float]
    median_angle: tuple[float, float]
    fractions: tuple[np.ndarray, np.ndarray]
    readings: Readings


def sphere_cone_scene(X_iso: np.ndarray, X_cone: np.ndarray) -> SphereConeScene:
    """What :class:`~shared.figures.SphereConeView` draws: :func:`~shared.geometry.mean_plane` of each cloud,
    its spectrum, and per cloud partition isotropy (Mu & Viswanath 2018), effective rank and the exact
    mean cosine over all pairs (no sampling, so no seed)."""
    X_iso, X_cone = _checks.cloud(X_iso, "X_iso", min_rows=2), _checks.cloud(X_cone, "X_cone", min_rows=2)
    if X_iso.shape[1] != X_cone.shape[1]:
        raise ValueError(f"X_cone: expected the dimension of X_iso ({X_iso.shape[1]}), got {X_cone.shape[1]}")
    planes = [mean_plane(X) for X in (X_iso, X_cone)]
    eigs = [cov_eigs(X) for X in (X_iso, X_cone)]
    return SphereConeScene(
        coords=(planes[0].coords, planes[1].coords),
        mean_norm=tuple(float(np.linalg.norm(X.mean(axis=0))) for X in (X_iso, X_cone)),
        median_angle=tuple(float(np.median(p.angles)) for p in planes),
        fractions=(fractions(eigs[0]), fractions(eigs[1])),
        readings={name: [read(partition_isotropy, partition_isotropy(X)), read(effective_rank, effective_rank(lam)),
                         read(mean_cosine, mean_cosine(X))]
                  for name, X, lam in [("isotropic", X_iso, eigs[0]), ("cone", X_cone, eigs[1])]},
    )


# ----- 02: illusory cosine --------------------------------------------------------------------


@dataclass(frozen=True)
class CosineScene:
    """Densities of two sets of random-pair cosines over :data:`~shared.figures.scenes_common.COSINE_BINS` and their means; pairs
    are (isotropic, cone)."""

    density: tuple[np.ndarray, np.ndarray]
    mean: tuple[float, float]
    readings: Readings


def cosine_scene(cos_iso: np.ndarray, cos_cone: np.ndarray) -> CosineScene:
    """What :class:`~shared.figures.CosineView` draws: each histogram, its mean and standard deviation."""
    cos = [_checks.vector(c, name) for c, name in ((cos_iso, "cos_iso"), (cos_cone, "cos_cone"))]
    return CosineScene(
        density=(density(cos[0]), density(cos[1])),
        mean=(float(cos[0].mean()), float(cos[1].mean())),
        readings={group: [read(random_cosines, c.mean()), Reading("std", float(c.std()))]
                  for group, c in zip(("isotropic", "cone"), cos)},
    )


# ----- 03: attention --------------------------------------------------------------------------


@dataclass(frozen=True)
class AttentionScene:
    """A run up to ``depth``: the 2-D clouds at the ``shown`` layers (0, depth/4, depth), and per layer
    1..depth the mean random cosine and the angular spread (radians)."""

    depth: int
    shown: tuple[int, int, int]
    clouds: tuple[np.ndarray, ...]
    mean_cos: np.ndarray
    spread: np.ndarray
    readings: Readings


def attention_scene(run: AttentionRun, depth: int | None = None) -> AttentionScene:
    """What :class:`~shared.figures.AttentionView` draws, up to ``depth`` (default: the whole run)."""
    _checks.instance(run, AttentionRun, "run")
    depth = run.depth if depth is None else _checks.integer(depth, "depth", 1)
    if not 1 <= depth <= run.depth:
        raise ValueError(f"depth: expected 1..{run.depth} (the layers this run has), got {depth}")
    if run.clouds[0].shape[1] != 2:
        raise ValueError(f"run: the view draws 2-D clouds, this run's are {run.clouds[0].shape[1]}-D")
    shown = (0, max(1, round(depth / 4)), depth)
    mean_cos, spread = np.array(run.mean_cos[:depth]), np.array(run.angular_std[:depth])
    return AttentionScene(depth=depth, shown=shown, clouds=tuple(run.clouds[layer] for layer in shown),
                          mean_cos=mean_cos, spread=spread,
                          readings={f"after layer {depth}": [read(random_cosines, mean_cos[-1]),
                                                             read(angular_std, spread[-1])]})


# ----- 04: frequency --------------------------------------------------------------------------


@dataclass(frozen=True)
class FrequencyScene:
    """Embeddings in order of frequency (row 0 the most frequent): their ``norms`` and their
    coordinates on the top two principal axes (``pca``)."""

    norms: np.ndarray
    pca: np.ndarray
    readings: Readings


def frequency_scene(freq: np.ndarray, emb: np.ndarray) -> FrequencyScene:
    """What :class:`~shared.figures.FrequencyView` draws: norms, the PCA picture, and partition
    isotropy and exact mean cosine of the embeddings."""
    emb = _checks.cloud(emb, "emb", min_rows=2)
    freq = _checks.vector(freq, "freq")
    if len(freq) != len(emb):
        raise ValueError(f"freq: expected one frequency per row of emb ({len(emb)}), got {len(freq)}")
    norms = np.linalg.norm(emb, axis=1)
    return FrequencyScene(norms=norms, pca=pca_2d(emb), readings={"embeddings": [
        Reading("norm, most frequent", float(norms[0]), ".2f"), Reading("norm, least frequent", float(norms[-1]), ".2f"),
        read(partition_isotropy, partition_isotropy(emb)), read(mean_cosine, mean_cosine(emb))]})


@dataclass(frozen=True)
class DegenerationScene:
    """A :class:`~shared.mechanisms.DegenerationRun` at snapshot ``k``: the band curves against
    ``steps`` (``bands``: band name to mean cosine per snapshot), the directions of the embeddings
    on their top two principal axes, not centred (``pca``), their ``norms``, and ``norm_top``, the
    largest norm over the whole run (one scale for every step)."""

    exponent: float
    tied: bool
    steps: np.ndarray
    k: int
    bands: dict[str, np.ndarray]
    pca: np.ndarray
    norms: np.ndarray
    norm_top: float
    readings: Readings


def degeneration_scene(run: DegenerationRun, step: int | None = None) -> DegenerationScene:
    """What :class:`~shared.figures.DegenerationView` draws at ``step`` (default: the last snapshot):
    band mean cosines (Gao et al. 2019), and the effective rank of the embeddings there."""
    _checks.instance(run, DegenerationRun, "run")
    k = len(run.steps) - 1 if step is None else run.at(step)
    bands = band_cosines(run)
    X = run.emb[k]
    U = X / np.linalg.norm(X, axis=1, keepdims=True)  # directions: what a cosine sees
    curves = {band: np.asarray(getattr(bands, band)) for band in ("frequent", "middle", "rare", "overall")}
    return DegenerationScene(
        exponent=run.exponent, tied=run.tied, steps=run.steps, k=k, bands=curves,
        pca=U @ principal_axes(U).axes[:, :2], norms=np.linalg.norm(X, axis=1),
        norm_top=float(np.linalg.norm(run.emb, axis=2).max()),
        readings={f"step {run.steps[k]}": [
            read(mean_cosine, curves[band][k], f"{band} band mean cosine") for band in ("frequent", "middle", "rare")
        ] + [read(mean_cosine, curves["overall"][k], "all tokens mean cosine"),
             read(effective_rank, effective_rank(cov_eigs(X)))]},
    )


# ----- 05: rich-get-richer --------------------------------------------------------------------


@dataclass(frozen=True)
class RichGetRicherScene:
    """Sorted spectra as fractions of the variance at four ``steps`` (rows of ``spectra``), and the
    effective rank after every step (``effective_rank[t]``)."""

    steps: tuple[int, ...]
    spectra: np.ndarray
    effective_rank: np.ndarray
    readings: Readings


def rich_get_richer_scene(history: np.ndarray) -> RichGetRicherScene:
    """What :class:`~shared.figures.RichGetRicherView` draws of ``history`` (``history[t]`` = spectrum
    after ``t`` steps): the spectrum at steps 0, T/6, 25T/60, T and the effective rank throughout."""
    history = _checks.cloud(history, "history")
    T = len(history) - 1
    steps = (0, round(T / 6), round(T * 25 / 60), T)
    eff_rank = np.array([effective_rank(lam) for lam in history])
    return RichGetRicherScene(
        steps=steps, spectra=np.array([fractions(np.sort(history[t])[::-1]) for t in steps]), effective_rank=eff_rank,
        readings={"spectrum": [read(effective_rank, eff_rank[0], "effective rank at step 0"),
                               read(effective_rank, eff_rank[-1], f"effective rank at step {T}")]})


# ----- 06: remedies ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RemedyScene:
    """Per cloud (in order of ``names``): its partition isotropy, or its range over eigenbases where
    it is undefined (``isotropy``), and the density of its random-pair cosines (``density``)."""

    names: tuple[str, ...]
    isotropy: tuple[Isotropy, ...]
    density: tuple[np.ndarray, ...]
    readings: Readings


def remedy_scene(clouds: dict[str, np.ndarray], cosines: dict[str, np.ndarray]) -> RemedyScene:
    """What :class:`~shared.figures.RemedyView` draws: per cloud, :func:`~shared.meters.isotropy_or_range`,
    the cosine histogram, and the readings (isotropy, mean random cosine, IsoScore of Rudman et al. 2022)."""
    if not isinstance(clouds, dict) or not isinstance(cosines, dict):
        raise TypeError("clouds, cosines: expected two dicts, name to array")
    if list(clouds) != list(cosines):
        raise ValueError(f"cosines: expected the same {len(clouds)} names as clouds, got {list(cosines)}")
    isotropy = tuple(isotropy_or_range(X) for X in clouds.values())
    cos = [_checks.vector(cosines[name], f"cosines[{name!r}]") for name in clouds]
    return RemedyScene(
        names=tuple(clouds), isotropy=isotropy, density=tuple(density(c) for c in cos),
        readings={name: [iso.reading(), read(random_cosines, c.mean()), read(isoscore, isoscore(X))]
                  for (name, X), iso, c in zip(clouds.items(), isotropy, cos)})


@dataclass(frozen=True)
class TradeoffScene:
    """A remedy sweep as points (IsoScore, held-out pair AUC): one curve per remedy (``curves``: the
    remedy's name to its two arrays), where the ``k`` labels sit (``k_labels``: k to its point), the
    best setting (``best``, ``best_label``), the circled settings (``chosen``: name to point), and
    the cloud's ``name``."""

    name: str
    curves: dict[str, tuple[np.ndarray, np.ndarray]]
    k_labels: dict[int, tuple[float, float]]
    best: tuple[float, float]
    best_label: str
    chosen: dict[str, tuple[float, float]]
    readings: Readings


TRADEOFF_K_LABELS = (0, 1, 2, 5)


def tradeoff_scene(sweep: Any, name: str = "", k: int = 2, power: float = 1.0) -> TradeoffScene:
    """What :class:`~shared.figures.TradeoffView` draws of a :class:`~shared.remedies.Sweep`: both
    curves, the best setting, the settings ``k`` and ``power`` and their readings."""
    _checks.instance(sweep, Sweep, "sweep")
    if not isinstance(name, str):
        raise TypeError(f"name: expected a string, got {name!r}")
    curves = {c.remedy: c for c in (sweep.curve(all_but_the_top), sweep.curve(zca_whiten))}
    abtt = sweep.curve(all_but_the_top)
    best, i = sweep.best()
    chosen, readings = {}, {}
    for curve, setting in ((abtt, k), (sweep.curve(zca_whiten), power)):
        j = curve.index(setting)
        chosen[curve.remedy] = (float(curve.isoscore[j]), float(curve.pair_auc[j]))
        readings[f"{curve.remedy} {curve.describe(j)}"] = [
            read(isoscore, curve.isoscore[j]), Reading("held-out pair AUC", float(curve.pair_auc[j])),
            Reading("kNN accuracy", float(curve.knn_accuracy[j]))]
    return TradeoffScene(
        name=name, curves={r: (c.isoscore, c.pair_auc) for r, c in curves.items()},
        k_labels={kk: (float(abtt.isoscore[abtt.index(kk)]), float(abtt.pair_auc[abtt.index(kk)]))
                  for kk in TRADEOFF_K_LABELS},
        best=(float(best.isoscore[i]), float(best.pair_auc[i])), best_label=f"best: {best.remedy} {best.describe(i)}",
        chosen=chosen, readings=readings)
