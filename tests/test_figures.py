import os
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
    DecoderLayersView,
    DecoderView,
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
from tests.notebook_cells import run, shown


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
    from shared.real.encoder_study import real_point

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
    X_iso, X_cone = sphere_and_cone()
    with pytest.raises(ValueError, match=r"X_cone: expected the dimension of X_iso \(50\), got 49"):
        SphereConeView.measure(X_iso, X_cone[:, :49])
    with pytest.raises(ValueError, match="freq: expected one frequency per row of emb"):
        FrequencyView.measure(np.ones(3), X_iso)
    with pytest.raises(TypeError, match="sweep: expected a Sweep"):
        TradeoffView.measure("cloud A")


def test_real_model_figures_draw_without_warnings():
    from shared.real.encoder_study import PUBLISHED_MEAN_COSINE, layer_profile
    from shared.real.frequency import norm_frequency

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


# ----- every figure shows what its notebook's text says about it --------------------------------
# Each test takes the views a notebook itself displays (its own cells, run as a learner runs them),
# draws them (Agg) and checks the text's claim on the drawn artists: where points sit, which way a
# curve goes, where a histogram's mass lies, what a legend names.


def views(stem: str, cls: type) -> list:
    return [v for v in shown(stem) if isinstance(v, cls)]


def explorer(stem: str, cls: type):
    from shared.explorers import Explorer

    return next(v for v in shown(stem) if isinstance(v, Explorer) and isinstance(v.view, cls))


def centre_of_mass(stairs) -> float:
    """The mean of a histogram drawn as stairs (values per bin over its edges)."""
    data = stairs.get_data()
    values = np.nan_to_num(np.asarray(data.values, dtype=float))
    centres = (data.edges[:-1] + data.edges[1:]) / 2
    return float(np.sum(values * centres) / np.sum(values))


def share_beyond(stairs, low: float) -> float:
    data = stairs.get_data()
    values = np.nan_to_num(np.asarray(data.values, dtype=float))
    return float(values[data.edges[:-1] >= low].sum() / values.sum())


def legend_texts(ax) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_02_the_isotropic_histogram_sits_at_0_and_the_cone_is_shifted_right():
    """02: "random pairs of the isotropic cloud have a mean cosine of -0.003 ... in the cone the whole
    histogram is shifted right: mean +0.845 ... only a small share of pairs score below one half"."""
    (view,) = views("02_illusory_cosine", CosineView)
    assert abs(centre_of_mass(view.hist_iso)) < 0.02
    assert centre_of_mass(view.hist_cone) == pytest.approx(0.845, abs=0.02)
    assert share_beyond(view.hist_cone, 0.5) > 0.9 and share_beyond(view.hist_iso, 0.5) < 0.01
    assert view.mean_iso.get_xdata()[0] == pytest.approx(-0.003, abs=5e-4)
    assert view.mean_cone.get_xdata()[0] == pytest.approx(0.845, abs=5e-4)
    assert legend_texts(view.axes[0]) == ["isotropic", "narrow cone", "iso mean = -0.00", "cone mean = +0.85"]


def test_03_the_cloud_contracts_onto_a_ray_away_from_the_origin():
    """03: "after one layer ... mean cosine 0.270, angular standard deviation 1.224 rad; by layer 10
    (orange) they have bunched up; by layer 40 (red) a tight knot away from the origin, all pointing
    the same way: mean cosine 0.999, angular standard deviation 0.033 rad"."""
    (view,) = views("03_attention_contraction", AttentionView)
    layers, cos = view.cos_line.get_data()
    _, spread = view.spread_line.get_data()
    assert layers[0] == 1 and layers[-1] == 40
    assert round(cos[0], 3) == 0.270 and round(cos[-1], 3) == 0.999
    assert round(spread[0], 3) == 1.224 and round(spread[-1], 3) == 0.033
    assert spread[-1] < spread[9] < spread[0], "the spread contracts"
    labels = legend_texts(view.axes[0])
    assert labels == ["layer 0", "layer 10", "layer 40", "origin"]
    assert mpl.colors.same_color(view.snaps[1].get_facecolor()[0][:3], "#e67e22")  # orange
    assert mpl.colors.same_color(view.snaps[2].get_facecolor()[0][:3], "#c0392b")  # red
    knot = view.snaps[2].get_offsets()
    centre = knot.mean(axis=0)
    assert np.linalg.norm(centre) > 5 * np.linalg.norm(knot - centre, axis=1).max(), "a tight knot off the origin"
    (x0, x1), (y0, y1) = view.axes[0].get_xlim(), view.axes[0].get_ylim()
    assert x0 < 0 < x1 and y0 < 0 < y1, "the origin is in the panel"


def test_04_norm_rises_with_rank_and_the_frequent_tokens_sit_at_the_centre():
    """04: "the most frequent token keeps a norm of 0.72, the least frequent 6.31, and norm rises
    steadily with rank (left). In the PCA picture (right) the bright, frequent tokens sit at the
    centre and the dark, rare ones around them"."""
    (view,) = views("04_frequency_collapse", FrequencyView)
    ranks, norms = view.norms.get_offsets().T
    order = np.argsort(ranks)
    assert round(norms[order][0], 2) == 0.72 and round(norms[order][-1], 2) == 6.31
    # On the drawn log axis: the median norm rises from band to band of ranks 1-3, 3-10, ..., 300-1200
    # (one token's norm is noisy: beyond rank 30 the Gaussian's own spread of norms is larger than the pull)
    edges = [1, 3, 10, 30, 100, 300, 1201]
    medians = [np.median(norms[(ranks >= lo) & (ranks < hi)]) for lo, hi in zip(edges, edges[1:])]
    assert all(a < b for a, b in zip(medians, medians[1:])), medians
    pca = view.pca.get_offsets()[order]  # rows back in rank order
    distance = np.linalg.norm(pca, axis=1)
    # the brightest (the ten most frequent) sit at the centre; the pull shrinks only the first few dozen ranks
    assert np.median(distance[:10]) < 0.5 * np.median(distance[300:])
    assert np.median(distance[:10]) < np.median(distance[10:30]) < np.median(distance[300:])
    assert legend_texts(view.axes[1]) == ["global centre"]


def test_04_the_rare_band_leans_into_a_cone_and_opposes_the_frequent_one():
    """04: "the rare half ... climbs from +0.002 at the start to +0.674 after 200 steps and +0.877 after
    1,600. The frequent tokens form a cone first (+0.898 at step 200), which loosens (+0.484 at step
    1,600) ... the directions of the rare tokens (dark) gather on one side and those of the frequent
    tokens (bright) on the opposite side"."""
    view = views("04_frequency_collapse", DegenerationView)[0]
    steps, rare = view.curves["rare"].get_data()
    _, frequent = view.curves["frequent"].get_data()
    at = {int(s): i for i, s in enumerate(steps)}
    assert [round(rare[at[s]], 3) for s in (0, 200, 1600)] == [0.002, 0.674, 0.877]
    assert [round(frequent[at[s]], 3) for s in (200, 1600)] == [0.898, 0.484]
    assert legend_texts(view.axes[0]) == ["frequent", "middle", "rare", "overall"]
    assert view.marker.get_xdata()[0] == 1600 and view.step_text.get_text() == "step 1600"
    pca = view.pca.get_offsets()[::-1]  # drawn rarest first: back to rank order
    rare_side, frequent_side = pca[64:].mean(axis=0), pca[:13].mean(axis=0)
    assert rare_side @ frequent_side < 0, "the two bands lean to opposite sides"


def test_05_the_spectrum_tilts_and_the_effective_rank_falls_from_50_to_1():
    """05: "the spectrum starts flat (step 0) and tilts more at every snapshot; by step 60 the top
    direction holds almost all the variance ... shares below 1e-8 fall off the bottom ... the effective
    rank (right) stays near 50 for a while, then falls steeply, from 49.9 at the start to 1.0"."""
    (view,) = views("05_rich_get_richer", RichGetRicherView)
    tops = [np.nanmax(line.get_ydata()) for line in view.spectra]
    assert tops[0] < 0.03 and all(a < b for a, b in zip(tops, tops[1:])) and tops[-1] > 0.99
    assert [t.split()[-1] for t in legend_texts(view.axes[0])][::3] == ["0", "60"]
    assert view.axes[0].get_ylim()[0] == pytest.approx(1e-8)
    steps, rank = view.rank_line.get_data()
    assert round(rank[0], 1) == 49.9 and round(rank[-1], 1) == 1.0
    assert rank[10] > 45, "near 50 for a while"
    assert np.all(np.diff(rank) <= 1e-9), "and then it only falls"


def test_06_the_bars_and_histograms_show_each_remedy():
    """06: "the cone starts at partition isotropy 0.000 and a mean random cosine of +0.846. All-but-the-top
    with k = 2 lifts the isotropy to 0.510 and brings the mean cosine to -0.001. ZCA whitening ...
    from 0.933 to 0.963 over 20 random eigenbases (the bar shows the median, 0.954)"."""
    (view,) = views("06_whitening", RemedyView)
    assert [round(bar.get_height(), 3) for bar in view.bars] == [0.000, 0.510, 0.954]
    assert [t.get_text() for t in view.bar_text] == ["0.00", "0.51", "0.93-0.96"]
    assert [t.get_text() for t in view.bar_names] == ["original cone", "all-but-the-top (k=2)", "ZCA whitened"]
    cone, abtt, white = (centre_of_mass(h) for h in view.hists)
    assert cone == pytest.approx(0.846, abs=0.02) and abs(abtt) < 0.02 and abs(white) < 0.02
    assert legend_texts(view.axes[1]) == ["original cone", "all-but-the-top (k=2)", "ZCA whitened"]


def test_06_the_trade_off_stars_k_1_for_cloud_a_and_full_whitening_for_cloud_b():
    """06, cloud A: "removing the top direction (k = 1) gives the best score of the whole sweep, 0.935
    (gold star), at an IsoScore of only 0.079 ... by k = 5 the pair AUC is 0.506, chance, and IsoScore
    has risen to 0.860. Whitening traces an arc: its pair AUC peaks at 0.742 (p = 0.6) and falls to
    0.615 at full ZCA". Cloud B: "the pair AUC climbs to 0.676 at full ZCA"."""
    a, b = views("06_whitening", TradeoffView)
    star = [float(v[0]) for v in a.star.get_data()]
    assert [round(v, 3) for v in star] == [0.079, 0.935]
    assert a.star.get_label() == "best: all-but-the-top k=1"
    assert [round(v, 3) for v in a.labels[5].xy] == [0.860, 0.506]
    _, auc = a.curves["whitening"].get_data()
    assert round(auc.max(), 3) == 0.742 and 0 < np.argmax(auc) < len(auc) - 1 and round(auc[-1], 3) == 0.615
    assert a.axes[0].get_legend().get_title().get_text() == "cloud A: labels in strong directions"
    _, auc_b = b.curves["whitening"].get_data()
    assert np.argmax(auc_b) == len(auc_b) - 1 and round(auc_b[-1], 3) == 0.676
    assert b.star.get_label() == "best: whitening p=1.00"
    assert legend_texts(b.axes[0])[:2] == ["all-but-the-top", "whitening"]


def test_08_the_spectrum_has_a_cliff_and_the_two_isotropy_curves_part_ways():
    """08: "the last 7 of GloVe's 50 directions hold only 0.002 of the variance together ... the mean
    cosine of random pairs falls from +0.027 to +0.002 ... the original estimator on the centred
    variant never falls ... the course's estimator peaks at D = 1"."""
    (view,) = views("08_static_word_vectors", StaticVectorsView)
    before = view.spec_before.get_ydata()
    assert round(float(np.nansum(before[-7:]) / np.nansum(before)), 3) == 0.002
    assert round(view.mean_before.get_xdata()[0], 3) == 0.027 and abs(view.mean_after.get_xdata()[0]) < 0.005
    assert abs(centre_of_mass(view.hist_after)) < 0.02 < centre_of_mass(view.hist_before)
    _, course = view.curve.get_data()
    _, original = view.curve_original.get_data()
    assert np.argmax(course) == 1 and np.all(np.diff(original) > -1e-9), "plateaus, but never a fall"
    assert view.published.get_visible() and view.published.get_ydata()[0] == 0.6
    assert legend_texts(view.axes[2]) == ["course (rescaled)", "original (no rescaling)", "published: 0.6"]


@pytest.mark.exhaustive  # long: runs the real model again (or trains 12,800 steps); .ci/run runs it
def test_07_the_layer_curves_rise_then_drop_and_stay_below_a_gaussian():
    """07: "mean cosine across sentences rises from +0.073 after the embedding layer to +0.236 after
    layer 5 ... (halfway through the model, +0.198 against BERT's published 0.420) ... drops to +0.031
    at the last layer ... the rank-1 residual falls from 0.915 to 0.751, against 0.944 for Gaussian
    sentences ... effective rank ... climbs back to 151.4 at layer 6, all far below the 363.6 of a
    Gaussian of the same size (dotted line)"."""
    (view,) = views("07_real_transformer", LayerCurvesView)
    ax_cos, ax_rank, ax_collapse = view.axes
    lines = {line.get_label(): line for line in ax_cos.get_lines()}
    ours = lines["MiniLM-L6 (measured here)"].get_ydata()
    assert [round(ours[i], 3) for i in (0, 5, 6)] == [0.073, 0.236, 0.031] and np.argmax(ours) == 5
    bert = lines["BERT-base (published, Ethayarajh 2019)"]
    assert bert.get_ydata()[list(bert.get_xdata()).index(0.5)] == 0.420
    assert round(float(np.interp(0.5, lines["MiniLM-L6 (measured here)"].get_xdata(), ours)), 3) == 0.198
    rank, gaussian = ax_rank.get_lines()
    assert round(gaussian.get_ydata()[0], 1) == 363.6 and np.all(rank.get_ydata() < gaussian.get_ydata()[0])
    assert round(rank.get_ydata()[-1], 1) == 151.4
    median, gaussian = ax_collapse.get_lines()
    assert [round(median.get_ydata()[i], 3) for i in (0, -1)] == [0.915, 0.751]
    assert np.all(median.get_ydata() < gaussian.get_ydata()[0]) and round(gaussian.get_ydata()[0], 3) == 0.944


def test_07_static_norms_rise_with_frequency_and_contextual_ones_fall():
    """07: "static input embeddings: norm rises with frequency (Spearman rho = +0.810): the median norm
    climbs from 0.85 for the rarest words (Zipf 1-2) to 1.30 at Zipf 5-6 ... shorter again (0.91 at
    Zipf 7-8) ... contextual hidden states agree in sign with the pull ... from layer 3 on"."""
    (view,) = views("07_real_transformer", NormFrequencyView)
    ax_vocab, ax_ctx = view.axes
    assert ax_vocab.get_title() == "Static embeddings: Spearman ρ = +0.81"
    (median,) = ax_vocab.get_lines()
    zipf, norm = median.get_data()
    assert [round(float(norm[np.argmin(np.abs(zipf - z))]), 2) for z in (1.5, 5.5, 7.5)] == [0.85, 1.30, 0.91]
    assert np.nanargmax(norm) == np.argmin(np.abs(zipf - 5.5))
    labels = legend_texts(ax_ctx)
    assert [label.split(":")[0] for label in labels] == ["layer 0", "layer 3", "layer 6"]
    assert all("ρ = -" in label for label in labels[1:]), labels


def test_07_centring_moves_the_token_histogram_to_0():
    """07, Try this: "at layer 3, switch from none to centring. The token histogram jumps to 0"; the
    explorer starts at layer 6 with no remedy, mean cosine +0.031."""
    ex = explorer("07_real_transformer", RealModelView)
    # ex.view is the current setting's figure each time it is asked for (with frames in the store,
    # the kernel draws it only then: the browser shows the stored picture)
    assert ex.view.token_mean.get_label() == "mean = +0.031"
    try:
        ex.controls["layer"].value = 3
        assert centre_of_mass(ex.view.token_hist) > 0.15
        ex.controls["remedy"].value = "centring"
        assert abs(centre_of_mass(ex.view.token_hist)) < 0.02
        assert abs(ex.view.token_mean.get_xdata()[0]) < 0.01
    finally:
        ex.controls["remedy"].value, ex.controls["layer"].value = "none", 6
    names = [label.split(" (")[0] for label in legend_texts(ex.view.axes[1])]
    assert names == ["unrelated pairs", "paraphrase pairs", "traps"]


@pytest.mark.exhaustive  # long: runs the real model again (or trains 12,800 steps); .ci/run runs it
def test_09_the_cone_is_not_the_first_tokens_and_lives_in_the_massive_coordinates():
    """09: "the mean cosine of tokens from different sentences is +0.605 at layer 2 ... leaving out the
    first token barely moves it (+0.617 instead of +0.606 at layer 15, and by at most 0.080 in any
    layer) ... deleting the 19 massive coordinates brings it down to between +0.061 and +0.145 in
    layers 2 to 29"; section 4: "from block 4 on most blocks put more than half of their attention on
    the first token (up to 0.918), against 0.175 for evenly spread attention ... blocks 11 and 12 are
    the clear exceptions (0.262 and 0.073) ... blocks 1 and 2 (0.160 and 0.133)"."""
    (view,) = views("09_decoder_llm", DecoderLayersView)
    ax_cos, _, ax_att = view.axes
    lines = {line.get_label(): line.get_ydata() for line in ax_cos.get_lines()}
    every, rest = lines["SmolLM2, all tokens"], lines["SmolLM2, first token left out"]
    trimmed = lines["... and the 19 massive coordinates deleted"]
    assert round(every[2], 3) == 0.605 and [round(every[15], 3), round(rest[15], 3)] == [0.606, 0.617]
    assert round(np.abs(every - rest).max(), 3) == 0.080
    assert [round(trimmed[2:30].min(), 3), round(trimmed[2:30].max(), 3)] == [0.061, 0.145]
    assert "MiniLM-L6, same sentences" in lines
    heights = np.array([bar.get_height() for bar in ax_att.patches])
    uniform = [line for line in ax_att.get_lines() if line.get_label().startswith("attention spread evenly")][0]
    assert round(uniform.get_ydata()[0], 3) == 0.175 and round(heights.max(), 3) == 0.918
    assert [round(heights[b - 1], 3) for b in (1, 2, 11, 12)] == [0.160, 0.133, 0.262, 0.073]
    assert np.mean(heights[3:] > 0.5) > 0.5, "from block 4 on most blocks give the first token more than half"


def test_09_the_explorer_shows_coordinate_507_carrying_the_cone():
    """09's explorer at its default (layer 15, nothing left out): mean cosine +0.606, coordinate 507
    carries 0.384 of it, the tallest bar."""
    view = explorer("09_decoder_llm", DecoderView).view
    assert view.mean.get_label() == "mean = +0.606 (all pairs)"
    assert view.labels[0].get_text() == "507" and round(view.bars[0].get_height(), 3) == 0.384
    heights = [bar.get_height() for bar in view.bars]
    assert heights == sorted(heights, reverse=True)
    assert centre_of_mass(view.hist) == pytest.approx(0.606, abs=0.03)


def test_scenes_are_measured_without_matplotlib():
    import subprocess
    import sys

    code = ("import sys, shared, shared.figures.scenes_toys; "
            "s = shared.figures.scenes_toys.sphere_cone_scene(*shared.sphere_and_cone()); "
            "print(round(s.median_angle[1]), 'matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["17", "False"]


def test_a_view_draws_the_scene_it_is_given_and_shows_its_readings():
    X_iso, X_cone = sphere_and_cone()
    scene = SphereConeView.measure(X_iso, X_cone)
    view = SphereConeView.of(scene)
    assert view.readings() is scene.readings
    assert np.array_equal(view.cone.get_offsets(), scene.coords[1])
    assert view.arrows[1].get_xdata()[1] == scene.mean_norm[1]
    other = SphereConeView.measure(*sphere_and_cone(2.0))
    view.draw(other)
    assert np.array_equal(view.cone.get_offsets(), other.coords[1]) and view.readings() is other.readings


def test_06_the_trade_off_explorer_shows_the_verdict_flip_under_a_steep_noise_spectrum():
    """06: "On cloud B's own draw with this spectrum (the trade-off explorer's third cloud), all-but-the-top
    at k = 5 reaches 0.929 against 0.676 for full whitening": the explorer offers that cloud, and on it
    the gold star moves from whitening (cloud B) to all-but-the-top k = 5."""
    ex = explorer("06_whitening", TradeoffView)
    cloud = ex.controls["cloud"]
    assert "B, noise spectrum j^-3" in list(cloud.options)
    try:
        cloud.value = "B: labels in weak directions"
        assert ex.view.star.get_label() == "best: whitening p=1.00"
        cloud.value = "B, noise spectrum j^-3"
        assert ex.view.star.get_label() == "best: all-but-the-top k=5"
        assert round(float(ex.view.star.get_data()[1][0]), 3) == 0.929
        _, auc = ex.view.curves["whitening"].get_data()
        assert round(auc[-1], 3) == 0.676
    finally:
        cloud.value = "A: labels in strong directions"


STORED_VIEW = '''
import hashlib, json, sys
import numpy as np
from IPython.core.formatters import DisplayFormatter
from shared.figures.engine import View

values, how = [float(v) for v in sys.argv[1].split(",")], sys.argv[2]

class Dots(View):
    FIGSIZE, NCOLS, TITLE = (3.0, 2.0), 1, "dots"
    measure = staticmethod(lambda values: (np.asarray(values, dtype=float),))
    def _build(self, scene):
        self.line, = self.axes[0].plot([], [], "o")
    def _draw(self, scene):
        self.line.set_data(np.arange(len(scene[0])), scene[0])
        self.axes[0].set_xlim(-1, len(scene[0]))
        self.axes[0].set_ylim(0, 10)

if how == "mine":  # a learner's own view: defined in the notebook
    class Dots(Dots):
        pass
else:  # the stand-in for a toolkit view (the toolkit's own load matplotlib, or need a model's data)
    Dots.__module__ = "shared.figures.dots"
if how == "rc":  # a learner's own matplotlib setting
    import matplotlib
    matplotlib.rcParams["lines.markersize"] = 12.0
shown, _ = DisplayFormatter().format(Dots(values))  # as a notebook shows a figure
print(json.dumps({"png": hashlib.sha256(shown["image/png"]).hexdigest(), "text": shown["text/plain"],
                  "matplotlib": "matplotlib" in sys.modules}))
'''


def test_a_static_figure_the_store_holds_is_shown_from_it_without_matplotlib(tmp_path):
    """A toolkit view shown as a static figure, drawn while the store was built, is read back byte for
    byte in another kernel, which loads no matplotlib (IPython's display probes the view's attributes,
    which must not draw it). What the store cannot know is drawn: other numbers (a learner's own data),
    a view the learner defined (even one named like the toolkit's), the learner's matplotlib settings."""
    import json
    import subprocess
    import sys

    from shared import store

    def show(values: str, how: str = "course", build: bool = False) -> dict:
        env = {**os.environ, store.ENV: str(tmp_path / "store"), store.DRAW_FRAMES: "1" if build else "0"}
        run = subprocess.run([sys.executable, "-c", STORED_VIEW, values, how], env=env, capture_output=True,
                             text=True, check=True)
        return json.loads(run.stdout)

    drawn = show("1,5,3")
    assert drawn["matplotlib"] and not (tmp_path / "store").exists(), "only the store's build stores pictures"
    built = show("1,5,3", build=True)
    assert built == drawn
    assert len(list((tmp_path / "store").glob("view-picture-*"))) == 1
    read = show("1,5,3")
    assert read == {**drawn, "matplotlib": False}, "the stored picture differs, or matplotlib was loaded"
    edited = show("1,5,4")
    assert edited["matplotlib"] and edited["png"] != drawn["png"] and edited["text"] == drawn["text"]
    # a view the learner defined: drawn, never read from the store nor stored in it
    assert show("1,5,3", "mine", build=True)["matplotlib"]
    assert len(list((tmp_path / "store").glob("view-picture-*"))) == 1, "a learner's view was stored"
    mine = show("1,5,3", "mine")
    assert mine["matplotlib"] and mine["png"] == drawn["png"], "the same drawing code draws the same picture"
    # the learner's matplotlib settings: drawn with them, not read from the course's picture
    styled = show("1,5,3", "rc")
    assert styled["png"] != drawn["png"], "the learner's matplotlib settings are not in the picture"


def test_a_view_whose_scene_cannot_be_drawn_fails_at_every_showing_and_never_shows_half_a_figure():
    """Drawing a scene fails (a NaN density: no axis limit fits it) when the figure is first made, at
    its first showing: every later showing fails the same way, rather than showing the figure as far
    as it got."""
    import dataclasses

    from IPython.core.formatters import DisplayFormatter

    rng = np.random.default_rng(0)
    scene = CosineView(rng.uniform(-1, 1, 200), rng.uniform(0, 1, 200)).scene
    broken = CosineView.of(dataclasses.replace(scene, density=(scene.density[0] * np.nan, scene.density[1])))
    for _ in range(2):
        with pytest.raises(ValueError, match="nan"):
            broken._repr_png_()
    shown, _ = DisplayFormatter().format(broken)  # IPython prints the failure and shows the text form only
    assert "image/png" not in shown
    broken.draw(scene)  # a scene that can be drawn: the view draws it whole
    assert broken._repr_png_() == CosineView.of(scene)._repr_png_()
