import io
import warnings

import matplotlib as mpl
import numpy as np
import pytest
from PIL import Image

from shared.explorers import attention_scene, cone_scene, real_scene, whitening_scene
from shared.figures import (
    STYLE,
    AttentionView,
    LayerCurvesView,
    NormFrequencyView,
    RealModelView,
    SphereConeView,
    WhiteningView,
    course_style,
    nice_limit,
)


def pixels(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=float)


@pytest.mark.parametrize("x, expected", [(0.7, 0.8), (1.0, 1.0), (1.01, 1.5), (3.3, 4.0), (42.0, 50.0), (9e-4, 1e-3)])
def test_nice_limit(x, expected):
    assert nice_limit(x) == pytest.approx(expected)


def test_nice_limit_refuses_non_positive():
    with pytest.raises(ValueError, match="positive"):
        nice_limit(0.0)


def test_importing_and_drawing_leave_global_style_alone():
    before = dict(mpl.rcParams)
    SphereConeView(cone_scene())._repr_png_()
    assert dict(mpl.rcParams) == before
    with course_style():
        assert mpl.rcParams["axes.facecolor"] == STYLE["axes.facecolor"]
    assert mpl.rcParams["axes.facecolor"] == before["axes.facecolor"]


@pytest.mark.parametrize(
    "view_cls, scene, moved",
    [
        (SphereConeView, cone_scene, dict(strength=2.0)),
        (AttentionView, attention_scene, dict(beta=2.0)),
        (WhiteningView, whitening_scene, dict(k=5)),
        (RealModelView, real_scene, dict(layer=3, remedy="whitening")),
    ],
)
def test_fast_redraw_matches_a_full_redraw(view_cls, scene, moved):
    """Blitting only the moving artists must give the picture a full redraw gives."""
    view = view_cls(scene())
    view.image()
    view.update(scene(**moved))
    fast = pixels(view.image())
    fresh = view_cls(scene(**moved))
    fresh.image()  # lay out the same way (layout is frozen after the first draw)
    full = pixels(fresh.full_image())
    assert fast.shape == full.shape
    assert np.abs(fast - full).mean() < 1.0, "blitted picture differs from a full redraw"


def test_static_figure_is_a_png_with_a_stable_text_form():
    view = WhiteningView(whitening_scene())
    assert view._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"
    assert repr(view) == "<WhiteningView: Experiment 6: remedies restore isotropy and re-centre cosine>"


def test_real_model_figures_draw_without_warnings():
    from shared.realmodel import PUBLISHED_MEAN_COSINE, layer_profile, norm_frequency

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for view in (LayerCurvesView(layer_profile(), PUBLISHED_MEAN_COSINE, dim=384), NormFrequencyView(norm_frequency())):
            assert view._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"
    # the curves drawn are the profile's numbers, on relative depth
    view = LayerCurvesView(layer_profile(), PUBLISHED_MEAN_COSINE, dim=384)
    ours = view.axes[0].get_lines()[-1]
    assert np.allclose(ours.get_xdata(), np.arange(7) / 6)
    assert np.allclose(ours.get_ydata(), layer_profile()["mean cosine"])
