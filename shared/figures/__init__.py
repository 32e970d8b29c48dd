"""The course's figures: what each one draws (its scene, numpy only) and the view that draws it (matplotlib).

* :mod:`~shared.figures.engine`: the fast redraw (:class:`~shared.figures.engine.LiveFigure`), the
  course's plot style and the :class:`View` base class every view shares;
* :mod:`~shared.figures.scenes_toys` and :mod:`~shared.figures.scenes_real`: what each figure of
  notebooks 01 to 06 and 07 to 09 draws, computed without matplotlib (with the helpers of both in
  :mod:`~shared.figures.scenes_common`);
* :mod:`~shared.figures.views_toys` and :mod:`~shared.figures.views_real`: one view per figure.

``import shared.figures`` loads the scenes only; the views and the engine are imported on first use
(``from shared.figures import SphereConeView``): what a figure will show can be computed where
matplotlib is not wanted. The engine and the real models' views load matplotlib only when a figure
is first drawn, so a notebook of 07 to 09 whose static figures and explorer frames the study store
holds runs without it; the toy views (01 to 06) load it on import.
"""

from importlib import import_module
from typing import Any

from .scenes_common import (
    density,
    fractions,
)
from .scenes_real import (
    DecoderLayersScene,
    DecoderScene,
    LayerCurvesScene,
    NormFrequencyScene,
    SentencePairsScene,
    StaticVectorsScene,
    decoder_layers_scene,
    decoder_scene,
    layer_curves_scene,
    norm_frequency_scene,
    sentence_pairs_scene,
    static_vectors_scene,
)
from .scenes_toys import (
    AttentionScene,
    CosineScene,
    DegenerationScene,
    FrequencyScene,
    RemedyScene,
    RichGetRicherScene,
    SphereConeScene,
    TradeoffScene,
    attention_scene,
    cosine_scene,
    degeneration_scene,
    frequency_scene,
    remedy_scene,
    rich_get_richer_scene,
    sphere_cone_scene,
    tradeoff_scene,
)

# The names below live in the engine and the views' modules: each is imported when first asked for.
_LAZY = {
    "BLUE": "engine",
    "DARK_BLUE": "engine",
    "DARK_RED": "engine",
    "GOLD": "engine",
    "GREEN": "engine",
    "GREY": "engine",
    "INK": "engine",
    "ORANGE": "engine",
    "RED": "engine",
    "STYLE": "engine",
    "View": "engine",
    "course_style": "engine",
    "nice_limit": "engine",
    "DecoderLayersView": "views_real",
    "DecoderView": "views_real",
    "LayerCurvesView": "views_real",
    "NormFrequencyView": "views_real",
    "RealModelView": "views_real",
    "StaticVectorsView": "views_real",
    "AttentionView": "views_toys",
    "CosineView": "views_toys",
    "DegenerationView": "views_toys",
    "FrequencyView": "views_toys",
    "RemedyView": "views_toys",
    "RichGetRicherView": "views_toys",
    "SphereConeView": "views_toys",
    "TradeoffView": "views_toys",
}


def __getattr__(name: str) -> Any:
    """A view or a name of the engine, imported on first use."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_LAZY[name]}"), name)


__all__ = [
    "AttentionScene",
    "AttentionView",
    "BLUE",
    "CosineScene",
    "CosineView",
    "DARK_BLUE",
    "DARK_RED",
    "DecoderLayersScene",
    "DecoderLayersView",
    "DecoderScene",
    "DecoderView",
    "DegenerationScene",
    "DegenerationView",
    "FrequencyScene",
    "FrequencyView",
    "GOLD",
    "GREEN",
    "GREY",
    "INK",
    "LayerCurvesScene",
    "LayerCurvesView",
    "NormFrequencyScene",
    "NormFrequencyView",
    "ORANGE",
    "RED",
    "RealModelView",
    "RemedyScene",
    "RemedyView",
    "RichGetRicherScene",
    "RichGetRicherView",
    "STYLE",
    "SentencePairsScene",
    "SphereConeScene",
    "SphereConeView",
    "StaticVectorsScene",
    "StaticVectorsView",
    "TradeoffScene",
    "TradeoffView",
    "View",
    "attention_scene",
    "cosine_scene",
    "course_style",
    "decoder_layers_scene",
    "decoder_scene",
    "degeneration_scene",
    "density",
    "fractions",
    "frequency_scene",
    "layer_curves_scene",
    "nice_limit",
    "norm_frequency_scene",
    "remedy_scene",
    "rich_get_richer_scene",
    "sentence_pairs_scene",
    "sphere_cone_scene",
    "static_vectors_scene",
    "tradeoff_scene",
]
