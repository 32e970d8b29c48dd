"""What the figures of notebooks 07 to 09 (the real models) draw, computed without drawing: one pure function per view.

Scenes as in :mod:`shared.figures.scenes_toys`: a view's ``measure`` is the function here, and no
matplotlib is loaded. Most of these scenes carry a typed result of :mod:`shared.real.encoder_study` or
:mod:`shared.real.decoder_study` as it is and add only what the view draws besides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _checks
from ..meters import effective_rank, gaussian_effective_rank, partition_isotropy, random_cosines, read
from .scenes_common import Readings, density

__all__ = [
    "DecoderLayersScene",
    "DecoderScene",
    "LayerCurvesScene",
    "NormFrequencyScene",
    "SentencePairsScene",
    "StaticVectorsScene",
    "decoder_layers_scene",
    "decoder_scene",
    "layer_curves_scene",
    "norm_frequency_scene",
    "sentence_pairs_scene",
    "static_vectors_scene",
]


# ----- 07: the real model ---------------------------------------------------------------------


@dataclass(frozen=True)
class LayerCurvesScene:
    """A :class:`~shared.real.encoder_study.LayerProfile` as drawn: the profile, published curves (name to
    values per layer), the width ``dim`` and the effective rank of an isotropic Gaussian of the same
    number of tokens and width (``gaussian_rank``)."""

    profile: Any
    published: dict[str, tuple[float, ...]]
    dim: int
    gaussian_rank: float


def layer_curves_scene(profile: Any, published: dict[str, tuple[float, ...]], dim: int) -> LayerCurvesScene:
    """What :class:`~shared.figures.LayerCurvesView` draws; the baseline is
    :func:`~shared.meters.gaussian_effective_rank` of ``profile.tokens`` points in ``dim`` dimensions."""
    dim = _checks.integer(dim, "dim", 1)
    if not isinstance(published, dict):
        raise TypeError(f"published: expected a dict, name to values per layer, got {published!r}")
    return LayerCurvesScene(profile=profile, published=published, dim=dim,
                            gaussian_rank=float(gaussian_effective_rank(profile.tokens, dim)))


@dataclass(frozen=True)
class SentencePairsScene:
    """A :class:`~shared.real.encoder_study.RealPoint` as drawn: the point, and the share of paraphrase pairs,
    unrelated pairs and traps in each bin of ``bins`` (``share``: name to (shares, count, mean); an
    empty bin of the traps is NaN, so its outline draws no line there)."""

    point: Any
    bins: np.ndarray
    share: dict[str, tuple[np.ndarray, int, float]]
    readings: Readings


SENTENCE_BINS = np.linspace(-1.0, 1.0, 41)


def sentence_pairs_scene(point: Any) -> SentencePairsScene:
    """What :class:`~shared.figures.RealModelView` draws of one layer and remedy of the real model."""
    share = {}
    for name, values in (("unrelated pairs", point.unrelated), ("paraphrase pairs", point.paraphrase),
                         ("traps", point.traps)):
        counts, _ = np.histogram(values, bins=SENTENCE_BINS)
        s = counts / len(values)
        share[name] = (np.where(counts > 0, s, np.nan) if name == "traps" else s, len(values), float(values.mean()))
    return SentencePairsScene(point=point, bins=SENTENCE_BINS, share=share, readings=point.readings())


@dataclass(frozen=True)
class NormFrequencyScene:
    """A :class:`~shared.real.frequency.NormFrequency` as drawn: the data, the ``layers`` whose medians are
    drawn, and the centres of its frequency bins (``centres``)."""

    data: Any
    layers: tuple[int, ...]
    centres: np.ndarray


def norm_frequency_scene(data: Any, layers: tuple[int, ...] = (0, 3, 6)) -> NormFrequencyScene:
    """What :class:`~shared.figures.NormFrequencyView` draws: norm against frequency at ``layers``."""
    layers = tuple(_checks.integer(layer, "layers", 0, len(data.context.median) - 1) for layer in layers)
    return NormFrequencyScene(data=data, layers=layers, centres=(data.zipf_bins[:-1] + data.zipf_bins[1:]) / 2)


# ----- 08: static word vectors ----------------------------------------------------------------


@dataclass(frozen=True)
class StaticVectorsScene:
    """All-but-the-top at one ``D`` of a sweep: spectra with emptied directions as NaN
    (``before``, ``after``; ``spectrum_range`` the smallest and largest over the whole sweep),
    cosine densities and means before and after, the top of every density of the sweep
    (``density_top``), both isotropy curves over ``D`` and the published line."""

    D: int
    before: np.ndarray
    after: np.ndarray
    spectrum_range: tuple[float, float]
    density_before: np.ndarray
    density_after: np.ndarray
    density_top: float
    mean_before: float
    mean_after: float
    isotropy: np.ndarray
    isotropy_original: np.ndarray
    published: float | None
    readings: Readings


EMPTY = 1e-12  # eigenvalues below this share of the largest are emptied directions


def static_vectors_scene(eigs_before: np.ndarray, cosines_before: np.ndarray, eigs: np.ndarray, cosines: np.ndarray,
                         isotropy: np.ndarray, isotropy_original: np.ndarray, published: float | None = None,
                         D: int = 1) -> StaticVectorsScene:
    """What :class:`~shared.figures.StaticVectorsView` draws of an all-but-the-top sweep (Mu &
    Viswanath 2018) at ``D``: rows of ``eigs``, ``cosines``, ``isotropy``, ``isotropy_original``
    are the settings ``D = 0, 1, ...``."""
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
    shown = np.where(eigs > EMPTY * eigs.max(axis=1, keepdims=True), eigs, np.nan)
    before = np.where(eigs_before > EMPTY * eigs_before.max(), eigs_before, np.nan)
    every = np.concatenate([before, shown.ravel()])
    densities = [density(c) for c in (cosines_before, *cosines)]
    return StaticVectorsScene(
        D=D, before=before, after=shown[D], spectrum_range=(float(np.nanmin(every)), float(np.nanmax(every))),
        density_before=densities[0], density_after=densities[D + 1],
        density_top=float(max(dens.max() for dens in densities)),
        mean_before=float(cosines_before.mean()), mean_after=float(cosines[D].mean()),
        isotropy=isotropy, isotropy_original=isotropy_original,
        published=None if published is None else _checks.real(published, "published"),
        readings={
            "unprocessed": [read(random_cosines, cosines_before.mean()), read(effective_rank, effective_rank(eigs_before))],
            f"after D = {D}": [read(partition_isotropy, isotropy[D]),
                               read(partition_isotropy, isotropy_original[D], "partition I, original"),
                               read(random_cosines, cosines[D].mean()), read(effective_rank, effective_rank(eigs[D]))],
        })


# ----- 09: the decoder ------------------------------------------------------------------------


@dataclass(frozen=True)
class DecoderLayersScene:
    """A :class:`~shared.real.decoder_study.DecoderProfile` and an :class:`~shared.real.decoder_study.EncoderSide`
    as drawn: both on relative depth (``depth``, ``encoder_depth``: layer / number of layers)."""

    profile: Any
    side: Any
    depth: np.ndarray
    encoder_depth: np.ndarray


def decoder_layers_scene(profile: Any, side: Any) -> DecoderLayersScene:
    """What :class:`~shared.figures.DecoderLayersView` draws: the decoder's and the encoder's curves."""
    layers, enc_layers = len(profile.mean_cosine), len(side.mean_cosine)
    if layers < 2 or enc_layers < 2:
        raise ValueError(f"profile, side: expected at least two layers each, got {layers} and {enc_layers}")
    return DecoderLayersScene(profile=profile, side=side, depth=np.arange(layers) / (layers - 1),
                              encoder_depth=np.arange(enc_layers) / (enc_layers - 1))


@dataclass(frozen=True)
class DecoderScene:
    """A :class:`~shared.real.decoder_study.DecoderPoint` as drawn, and its readings."""

    point: Any
    readings: Readings


def decoder_scene(point: Any) -> DecoderScene:
    """What :class:`~shared.figures.DecoderView` draws: the point's histogram and largest terms."""
    return DecoderScene(point=point, readings=point.readings())
