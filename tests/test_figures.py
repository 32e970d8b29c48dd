import io
import warnings

import matplotlib as mpl
import numpy as np
import pytest
from PIL import Image

from functools import lru_cache

from shared import (
    all_but_the_top,
    attention_run,
    cov_eigs,
    degeneration_run,
    frequency_pull,
    gaussian_with_spectrum,
    make_isotropic,
    zipf_frequencies,
    make_planted,
    partition_isotropy,
    mean_plane,
    random_cosines,
    rich_get_richer_run,
    sphere_and_cone,
    sweep_remedies,
    zca_whiten,
)
from shared.figures import (
    STYLE,
    AttentionView,
    CosineView,
    DegenerationView,
    FrequencyView,
    LayerCurvesView,
    NormFrequencyView,
    RealModelView,
    RemedyView,
    RichGetRicherView,
    SphereConeView,
    StaticVectorsView,
    TradeoffView,
    course_style,
    nice_limit,
)
from tests.notebook_cells import run


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
    SphereConeView(*sphere_and_cone())._repr_png_()
    assert dict(mpl.rcParams) == before
    with course_style():
        assert mpl.rcParams["axes.facecolor"] == STYLE["axes.facecolor"]
    assert mpl.rcParams["axes.facecolor"] == before["axes.facecolor"]


def remedies(k: int, power: float) -> tuple[dict, dict]:
    _, X = sphere_and_cone()
    clouds = {"cone": X, "abtt": all_but_the_top(X, k), "whitened": zca_whiten(X, power)}
    rng = np.random.default_rng(6)
    return clouds, {name: random_cosines(C, rng) for name, C in clouds.items()}


def pulled(exponent: float, gamma: float) -> tuple:
    freq = zipf_frequencies(1200, exponent)
    return freq, frequency_pull(make_isotropic(1200, 50, 4), freq, gamma)


@lru_cache(maxsize=None)
def degeneration(exponent: float):
    return degeneration_run(exponent, checkpoints=(0, 200, 400, 1600))


def planted_sweep(seed: int):
    planted = make_planted(600, 20, seed)
    return sweep_remedies(planted.X[:300], planted.labels[:300], planted.X[300:], planted.labels[300:])


@lru_cache(maxsize=None)
def abtt_sweep(seed: int) -> tuple:
    """An uneven, shifted Gaussian and all-but-the-top for D = 0..4: what StaticVectorsView draws."""
    X = gaussian_with_spectrum(600, np.geomspace(4.0, 0.05, 12), seed) + 0.8
    processed = [all_but_the_top(X, D) for D in range(5)]
    return (cov_eigs(X), random_cosines(X, 0), np.array([cov_eigs(Y) for Y in processed]),
            np.array([random_cosines(Y, 0) for Y in processed]), np.array([partition_isotropy(Y) for Y in processed]),
            np.array([partition_isotropy(Y, rescale=False) for Y in processed]), 0.6)


def real(layer: int, remedy: str):
    from shared.realmodel import real_point

    return (real_point(layer, remedy),)


CASES = {
    "sphere and cone": (SphereConeView, lambda: sphere_and_cone(), lambda: sphere_and_cone(2.0)),
    "cosines": (CosineView, lambda: (random_cosines(sphere_and_cone().iso, 2), random_cosines(sphere_and_cone().cone, 2)),
                lambda: (random_cosines(sphere_and_cone(1.0).iso, 2), random_cosines(sphere_and_cone(1.0).cone, 2))),
    "attention": (AttentionView, lambda: (attention_run(40),), lambda: (attention_run(40, beta=2.0),)),
    "rich-get-richer": (RichGetRicherView, lambda: (rich_get_richer_run(),), lambda: (rich_get_richer_run(0.1, 90),)),
    "frequency pull": (FrequencyView, lambda: pulled(1.0, 0.9), lambda: pulled(0.5, 0.3)),
    "degeneration, a training step": (DegenerationView, lambda: (degeneration(1.0), 1600), lambda: (degeneration(1.0), 200)),
    "degeneration, another run": (DegenerationView, lambda: (degeneration(1.0), 400), lambda: (degeneration(2.0), 400)),
    "remedies": (RemedyView, lambda: remedies(2, 1.0), lambda: remedies(5, 0.5)),
    "trade-off": (TradeoffView, lambda: (planted_sweep(1), "cloud A"), lambda: (planted_sweep(2), "cloud B")),
    "real model": (RealModelView, lambda: real(6, "none"), lambda: real(3, "whitening")),
    "all-but-the-top, another D": (StaticVectorsView, lambda: (*abtt_sweep(1), 1), lambda: (*abtt_sweep(1), 4)),
    "all-but-the-top, another cloud": (StaticVectorsView, lambda: (*abtt_sweep(1), 2), lambda: (*abtt_sweep(2), 2)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_fast_redraw_matches_a_full_redraw(name):
    """Blitting only the moving artists must give the picture a full redraw gives."""
    view_cls, before, after = CASES[name]
    view = view_cls(*before())
    view.image()
    view.update(*after())
    fast = pixels(view.image())
    fresh = view_cls(*after())
    fresh.image()  # lay out the same way (layout is frozen after the first draw)
    full = pixels(fresh.full_image())
    assert fast.shape == full.shape
    assert np.abs(fast - full).mean() < 1.0, "blitted picture differs from a full redraw"
    assert view.readings() == fresh.readings()


def test_a_view_draws_the_arrays_it_is_given():
    X_iso, X_cone = sphere_and_cone()
    view = SphereConeView(X_iso, X_cone)
    assert np.allclose(view.iso.get_offsets(), mean_plane(X_iso).coords)
    assert np.allclose(view.cone.get_offsets(), mean_plane(X_cone).coords)
    squashed = X_iso * np.r_[np.ones(25), np.full(25, 0.01)]
    view.update(squashed, X_cone)
    assert np.allclose(view.iso.get_offsets(), mean_plane(squashed).coords)
    assert view.readings()["isotropic"][1].value < 26


def test_editing_a_notebook_data_cell_changes_its_figure():
    """A learner who edits the cell that builds the clouds sees the figure follow."""
    def figures(edit=None) -> list[bytes]:
        return [v._repr_png_() for v in run("01_sphere_vs_cone", edit) if isinstance(v, SphereConeView)]

    original = figures()
    edited = figures(lambda source: source.replace("X_iso, X_cone = sphere_and_cone()",
                                                   "X_iso, X_cone = sphere_and_cone(strength=1.0)"))
    assert len(original) == len(edited) == 1
    assert original[0] != edited[0]
    assert np.abs(pixels(original[0]) - pixels(edited[0])).mean() > 1.0


def test_static_figure_is_a_png_with_a_stable_text_form():
    view = RemedyView(*remedies(2, 1.0))
    assert view._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"
    assert repr(view) == "<RemedyView: Remedies restore isotropy and re-centre cosine>"


def test_views_refuse_data_they_cannot_draw():
    with pytest.raises(ValueError, match="depth: expected 1..40"):
        AttentionView(attention_run(40), depth=41)
    clouds, cos = remedies(2, 1.0)
    with pytest.raises(ValueError, match="cosines: expected the same 3 names"):
        RemedyView(clouds, {"cone": cos["cone"]})
    with pytest.raises(ValueError, match="setting: whitening was not measured at 0.33"):
        TradeoffView(planted_sweep(1), "cloud A", k=2, power=0.33)
    with pytest.raises(ValueError, match=r"D: expected 0..4"):
        StaticVectorsView(*abtt_sweep(1), 5)


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
    assert np.allclose(ours.get_ydata(), layer_profile().mean_cosine)


def test_the_trade_off_legend_is_titled_with_the_cloud_it_was_given():
    sweep = planted_sweep(1)
    view = TradeoffView(sweep, "cloud A", k=2, power=1.0)
    assert view.axes[0].get_legend().get_title().get_text() == "cloud A"
    view.update(planted_sweep(2), "cloud B", k=1, power=1.0)
    assert view.axes[0].get_legend().get_title().get_text() == "cloud B"


def test_the_cone_panel_keeps_the_origin_and_the_cone_stands_off_it():
    """01's caption: the isotropic cloud sits around the origin, the cone stands off it along its mean."""
    X_iso, X_cone = sphere_and_cone()
    view = SphereConeView(X_iso, X_cone)
    ax_iso, ax_cone = view.axes[:2]
    for ax in (ax_iso, ax_cone):
        (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
        assert x0 < 0 < x1 and y0 < 0 < y1, "the origin is inside the panel"
    cone = view.cone.get_offsets()
    iso = view.iso.get_offsets()
    assert np.all(cone[:, 0] > 0), "every point of the cone lies on the far side of the origin"
    assert cone[:, 0].mean() > 2 * cone[:, 0].std()
    assert abs(iso[:, 0].mean()) < 0.2 * iso[:, 0].std(), "the isotropic cloud is centred on the origin"
    assert view.arrows[1].get_xdata()[1] == pytest.approx(np.linalg.norm(X_cone.mean(axis=0)))
    assert view.angle_texts[0].get_text().endswith("89°") and view.angle_texts[1].get_text().endswith("17°")
