"""Every explorer driven through its sliders, as a learner would move them."""

import io
import math
import warnings

import numpy as np
import pytest
from PIL import Image

from shared import explorers

FACTORIES = [
    explorers.sphere_cone_explorer,
    explorers.cosine_explorer,
    explorers.attention_explorer,
    explorers.frequency_explorer,
    explorers.rich_explorer,
    explorers.whitening_explorer,
    explorers.real_explorer,
]


def picture(explorer) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(explorer.image.value)).convert("RGB"), dtype=float)


def finite_meters(explorer) -> bool:
    return all(math.isfinite(v) for group in explorer.meters().values() for v in group.values())


@pytest.mark.parametrize("factory", FACTORIES, ids=lambda f: f.__name__)
def test_every_slider_at_min_default_max(factory):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning while moving a slider fails the test
        explorer = factory()
        default_picture, default_text = picture(explorer), repr(explorer)
        for name, control in explorer.controls.items():
            default = control.value
            ends = (control.min, control.max) if hasattr(control, "min") else (control.options[0], control.options[-1])
            for value in [v for v in ends if v != default]:
                control.value = value
                assert explorer.values()[name] == value
                assert finite_meters(explorer), f"{name}={value}: {explorer.meters()}"
                assert repr(explorer) != default_text, f"{name}={value}: the meters did not update"
                changed = np.abs(picture(explorer) - default_picture).mean()
                assert changed > 0.05, f"{name}={value}: the picture did not change"
            control.value = default
        assert repr(explorer) == default_text
        assert np.abs(picture(explorer) - default_picture).mean() < 1.0


def test_sliders_report_on_release_only():
    for factory in FACTORIES:
        for control in factory().controls.values():
            assert control.continuous_update is False
            assert control.description


@pytest.mark.parametrize(
    "factory, expected",
    [
        (explorers.sphere_cone_explorer, ["partition I = 0.690, effective rank = 48.8, mean cosine = -0.003",
                                          "partition I = 0.000, effective rank = 2.3, mean cosine = +0.845"]),
        (explorers.attention_explorer, ["mean cosine = +0.999"]),
        (explorers.frequency_explorer, ["norm, most frequent = 0.724", "norm, least frequent = 6.314"]),
        (explorers.rich_explorer, ["effective rank at step 0 = 49.9", "effective rank at step 60 = 1.0"]),
        (explorers.whitening_explorer, ["partition I = 0.000, mean cosine = +0.846", "held-out pair AUC = 0.822",
                                        "partition I = 0.510, mean cosine = -0.001",
                                        "mean cosine = -0.001, IsoScore = 1.000"]),
        (explorers.real_explorer, ["[layer=6, remedy=none]", "mean cosine = +0.034",
                                   "paraphrase AUC = 1.000, top-1 retrieval = 0.976"]),
    ],
)
def test_defaults_show_the_static_experiment(factory, expected):
    text = repr(factory())
    for fragment in expected:
        assert fragment in text, f"{fragment!r} not in {text!r}"


def test_text_form_is_not_truncated():
    explorer = explorers.whitening_explorer()
    assert explorer._repr_mimebundle_()["text/plain"] == repr(explorer)
    assert "…" not in repr(explorer)


def test_attention_depth_reuses_the_cached_run():
    deep = explorers.attention_scene(depth=30, beta=0.7)
    shallow = explorers.attention_scene(depth=10, beta=0.7)
    assert np.array_equal(shallow["mean_cos"], deep["mean_cos"][:10])


def test_whitening_scene_off_the_sweep_grid():
    on = explorers.whitening_scene(k=2, power=0.35)["current"]["whitening"]
    off = explorers.whitening_scene(k=2, power=0.33)["current"]["whitening"]
    assert all(math.isfinite(v) for v in off.values())
    assert off != on and abs(off["pair AUC"] - on["pair AUC"]) < 0.02
