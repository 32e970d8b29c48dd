"""Every explorer of every notebook, built by the notebook's own cell and driven through its sliders."""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import pytest
from PIL import Image

from shared.explorers import Explorer, choice, explore, slider
from shared.meters import Reading
from tests.notebook_cells import displayed_calls, shown, stems


def explorers_of(stem: str) -> tuple[Explorer, ...]:
    return tuple(value for value in shown(stem) if isinstance(value, Explorer))


# Read from the notebooks' sources, so that collecting the tests runs no notebook; the notebooks run
# (once each, cached) when the first test of each needs its explorers.
EXPLORERS = [(stem, i) for stem in stems() for i in range(displayed_calls(stem, "explore"))]


def picture(explorer: Explorer) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(explorer.image.value)).convert("RGB"), dtype=float)


def finite_readings(explorer: Explorer) -> bool:
    return all(math.isfinite(r.value) for group in explorer.readings().values() for r in group)


@pytest.mark.parametrize("stem", stems())
def test_every_notebook_has_an_explorer_and_each_is_counted_at_collection(stem):
    assert explorers_of(stem) and len(explorers_of(stem)) == displayed_calls(stem, "explore")


@pytest.mark.parametrize("stem, i", EXPLORERS, ids=lambda x: str(x)[:2])
def test_every_slider_at_min_default_max(stem, i):
    explorer = explorers_of(stem)[i]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning while moving a slider fails the test
        default_picture, default_text = picture(explorer), repr(explorer)
        for name, control in explorer.controls.items():
            default = control.value
            ends = (control.min, control.max) if hasattr(control, "min") else (control.options[0], control.options[-1])
            try:
                for value in [v for v in ends if v != default]:
                    control.value = value
                    assert explorer.values()[name] == value
                    assert finite_readings(explorer), f"{name}={value}: {explorer.readings()}"
                    assert repr(explorer) != default_text, f"{name}={value}: the readings did not update"
                    changed = np.abs(picture(explorer) - default_picture).mean()
                    assert changed > 0.02, f"{name}={value}: the picture did not change"
            finally:  # the figure tests look at the same explorer at its defaults
                control.value = default
        assert repr(explorer) == default_text
        assert np.abs(picture(explorer) - default_picture).mean() < 1.0


def test_sliders_report_on_release_only():
    for stem, i in EXPLORERS:
        for control in explorers_of(stem)[i].controls.values():
            assert control.continuous_update is False
            assert control.description


@pytest.mark.parametrize(
    "stem, expected",
    [
        ("01_sphere_vs_cone", ["partition I = 0.690, effective rank = 48.8",
                               "partition I = 0.000, effective rank = 2.3, mean cosine = +0.847"]),
        ("02_illusory_cosine", ["mean random cosine = -0.003, std = 0.143", "mean random cosine = +0.845, std = 0.112"]),
        ("03_attention_contraction", ["after layer 40: mean random cosine = +0.999"]),
        ("05_rich_get_richer", ["effective rank at step 0 = 49.9", "effective rank at step 60 = 1.0"]),
        ("06_whitening", ["original cone: partition I = 0.000, mean random cosine = +0.846",
                          "partition I = 0.510, mean random cosine = -0.001", "IsoScore = 1.000"]),
        ("07_real_transformer", ["[layer=6, remedy=none]", "mean cosine = +0.031", "top-1 retrieval = 0.970",
                                 "AUC against traps = 0.292"]),
        ("08_static_word_vectors", ["[D=1]", "partition I = 0.276", "partition I, original = 0.580",
                                    "mean random cosine = +0.003"]),
        ("09_decoder_llm", ["[layer=15, leave_out=nothing]", "mean cosine = +0.606",
                            "cosine carried by coordinate 507 = 0.384"]),
    ],
)
def test_defaults_show_the_static_experiment(stem, expected):
    text = "\n".join(repr(e) for e in explorers_of(stem))
    for fragment in expected:
        assert fragment in text, f"{fragment!r} not in {text!r}"


def test_text_form_is_not_truncated():
    explorer = explorers_of("06_whitening")[0]
    assert explorer._repr_mimebundle_()["text/plain"] == repr(explorer)
    assert "…" not in repr(explorer)


class CountingView:
    """A stand-in view that records what it was measured and drew (no drawing)."""

    measured: list[tuple[float, float]] = []

    @staticmethod
    def measure(data: float, shift: float = 0.0) -> tuple[float, float]:
        CountingView.measured.append((data, shift))
        return data, shift

    @classmethod
    def of(cls, scene: tuple[float, float]) -> "CountingView":
        view = cls()
        view.draw(scene)
        return view

    def __init__(self) -> None:
        self.drawn: list[tuple[float, float]] = []

    def draw(self, scene: tuple[float, float]) -> None:
        self.drawn.append(scene)

    def image(self) -> bytes:
        return b""

    def readings(self) -> dict[str, list[Reading]]:
        data, shift = self.drawn[-1]
        return {"value": [Reading("sum", data + shift)]}


def test_a_slider_the_compute_function_does_not_take_only_redraws():
    calls: list[float] = []
    CountingView.measured.clear()

    def compute(scale: float) -> float:
        calls.append(scale)
        return 10.0 * scale

    explorer = explore(compute, CountingView, scale=slider("scale", 1.0, 0.0, 2.0, 0.5),
                       shift=slider("shift", 0.0, 0.0, 3.0, 1.0))
    explorer.controls["shift"].value = 2.0
    assert calls == [1.0], "moving a slider that only the view takes must not recompute"
    explorer.controls["scale"].value = 2.0
    explorer.controls["scale"].value = 1.0  # back to a setting computed before: remembered
    assert calls == [1.0, 2.0]
    assert explorer.view.drawn[-1] == (10.0, 2.0)
    # the one memo is compute's: going back remakes the scene (a cheap function of the result), not the result
    assert CountingView.measured == [(10.0, 0.0), (10.0, 2.0), (20.0, 2.0), (10.0, 2.0)]
    assert "sum = 12.000" in repr(explorer)


def test_an_explorer_refuses_a_view_that_cannot_measure():
    with pytest.raises(TypeError, match="view: expected a view class"):
        explore(lambda scale: scale, lambda data: None, scale=slider("scale", 1.0, 0.0, 2.0, 0.5))


def test_controls_are_checked():
    with pytest.raises(ValueError, match="value"):
        slider("x", 5.0, 0.0, 1.0, 0.1)
    with pytest.raises(ValueError, match="value"):
        choice("remedy", ["none", "centring"], "magic")
    with pytest.raises(ValueError, match="controls"):
        explore(lambda: 1.0, CountingView)
    assert type(slider("k", 2, 0, 10, 1)).__name__ == "IntSlider"
    assert type(slider("p", 1.0, 0.0, 1.0, 0.05)).__name__ == "FloatSlider"


class FrameCountingView(CountingView):
    """A stand-in view whose pictures differ by setting, counting the pictures it draws."""

    pictures = 0

    def image(self) -> bytes:
        FrameCountingView.pictures += 1
        data, shift = self.drawn[-1]
        return f"{data}+{shift}".encode()


# the stand-in for a toolkit view: the store keeps frames only of views whose code is the toolkit's
FrameCountingView.__module__ = "shared.figures.counting"


class LearnersView(FrameCountingView):
    """A view defined in a notebook: its code is no part of the store's key."""


def frame_explorer(data: dict) -> Explorer:
    return explore(lambda layer, remedy: data[layer, remedy], FrameCountingView,
                   layer=slider("layer", 1, 0, 2, 1), remedy=choice("remedy", ["none", "centring"], "none"))


def test_frames_are_drawn_once_per_store_and_read_by_every_later_explorer(tmp_path, monkeypatch):
    from shared import store

    monkeypatch.setenv(store.ENV, str(tmp_path / "store"))
    data = {(layer, remedy): 10.0 * layer + (remedy == "centring") for layer in range(3) for remedy in ("none", "centring")}
    FrameCountingView.pictures = 0
    assert frame_explorer(data).live and not store.default().entries(), "frames are drawn only while the store is built"
    monkeypatch.setenv(store.DRAW_FRAMES, "1")
    FrameCountingView.pictures = 0
    first = frame_explorer(data)
    assert not first.live and FrameCountingView.pictures == 6, "each of the six settings is drawn once"
    assert len(store.default().entries()) == 1
    second = frame_explorer(dict(data))  # the same content in another object: the same frames
    assert not second.live and FrameCountingView.pictures == 6, "the second explorer drew again"
    for layer in range(3):
        for remedy in ("none", "centring"):
            second.controls["layer"].value, second.controls["remedy"].value = layer, remedy
            assert second.image.value == f"{data[layer, remedy]}+0.0".encode()
            assert f"sum = {data[layer, remedy]:.3f}" in repr(second)
    assert FrameCountingView.pictures == 6, "a move drew a picture in the kernel"
    # in the page: one stack for the layers, one per layer for the remedies, each linked to its slider
    links = {(link.source[0].description, id(link.target[0])) for link in second._links}
    assert len(links) == 4 and {name for name, _ in links} == {"layer", "remedy"}
    assert second.children[-1] is second._stacks[0] and len(second._stacks[0].children) == 3


def test_edited_data_is_drawn_live_and_a_store_that_cannot_be_written_is_only_read(tmp_path, monkeypatch):
    from shared import store

    shelf = store.Store(tmp_path / "store", writable=False)
    monkeypatch.setattr(store, "default", lambda: shelf)
    data = {(layer, remedy): 1.0 + layer for layer in range(3) for remedy in ("none", "centring")}
    FrameCountingView.pictures = 0
    explorer = frame_explorer(data)
    assert explorer.live and FrameCountingView.pictures == 1 and not (tmp_path / "store").exists()
    explorer.controls["layer"].value = 2
    assert explorer.image.value == b"3.0+0.0" and FrameCountingView.pictures == 2

    monkeypatch.setattr(store, "default", lambda: store.Store(tmp_path / "store"))
    monkeypatch.setenv(store.DRAW_FRAMES, "1")
    assert not frame_explorer(data).live  # the owner of the store draws the frames, while building it
    monkeypatch.delenv(store.DRAW_FRAMES)
    monkeypatch.setattr(store, "default", lambda: shelf)
    assert not frame_explorer(data).live  # and a reader reads them
    data[2, "none"] = 4.5  # a learner's edit: other content, no frames for it, a live redraw
    edited = frame_explorer(data)
    assert edited.live
    edited.controls["layer"].value = 2
    assert edited.image.value == b"4.5+0.0"


def test_sliders_the_browser_cannot_number_keep_the_explorer_live(tmp_path, monkeypatch):
    from shared import store

    monkeypatch.setenv(store.ENV, str(tmp_path / "store"))
    monkeypatch.setenv(store.DRAW_FRAMES, "1")  # as while the store is built
    assert explore(lambda layer: float(layer), FrameCountingView, layer=slider("layer", 1, 1, 3, 1)).live  # from 1
    assert explore(lambda scale: scale, FrameCountingView, scale=slider("scale", 1.0, 0.0, 2.0, 0.5)).live  # a float
    assert explore(lambda layer: float(layer), FrameCountingView, layer=slider("layer", 1, 0, 300, 1)).live  # too many
    assert not explore(lambda layer: float(layer), FrameCountingView, layer=slider("layer", 1, 0, 3, 1)).live


def test_an_explorer_with_frames_sends_three_widgets_per_frame(tmp_path, monkeypatch):
    """Each widget is a message to the page when the cell runs, and a kernel's output socket drops
    messages past 1,000 queued for a busy server (its "idle" among them, which leaves the notebook
    waiting): the frames share their layouts and style, three widgets a frame (readings, picture,
    their box), not seven, and the stacks share their layout (09's 124 frames were about 970 messages)."""
    from ipywidgets.widgets.widget import _instances

    from shared import store

    monkeypatch.setenv(store.ENV, str(tmp_path / "store"))
    monkeypatch.setenv(store.DRAW_FRAMES, "1")
    data = {(layer, remedy): 10.0 * layer + (remedy == "centring") for layer in range(3) for remedy in ("none", "centring")}
    frame_explorer(data)  # draws the frames into the store
    before = set(_instances)
    explorer = frame_explorer(data)
    assert not explorer.live
    made = len(set(_instances) - before)
    frames, stacks = 6, 1 + 3  # a stack for the layer slider, and one for the remedy at each layer
    # per frame 3; per stack 2 (it and its link to its slider); the sliders (each with its layout and
    # style), the heading (the same), the explorer's box and layout, the three shared layouts and the style: 15
    assert made == 3 * frames + 2 * stacks + 15, f"{made} widgets for {frames} frames and {stacks} stacks"


def test_a_view_the_learner_defined_has_no_frames_even_where_the_store_would_draw_them(tmp_path, monkeypatch):
    """The store's key holds the toolkit's code, not a notebook's: a learner's own view (here one that
    only inherits a toolkit view's drawing) is always drawn live, and nothing of it is stored."""
    from shared import store

    monkeypatch.setenv(store.ENV, str(tmp_path / "store"))
    monkeypatch.setenv(store.DRAW_FRAMES, "1")
    data = {(layer, remedy): float(layer) for layer in range(3) for remedy in ("none", "centring")}
    explorer = explore(lambda layer, remedy: data[layer, remedy], LearnersView,
                       layer=slider("layer", 1, 0, 2, 1), remedy=choice("remedy", ["none", "centring"], "none"))
    assert explorer.live and not store.default().entries()
    assert not frame_explorer(data).live, "the toolkit's stand-in gets frames from the same store"


# ----- drawn ahead: the settings one notch away, sent to the page --------------------------------------


def ahead_explorer() -> Explorer:
    return explore(lambda scale, remedy: round(10.0 * scale, 6) + (remedy == "centring"), FrameCountingView,
                   scale=slider("scale", 0.1, 0.01, 0.12, 0.01),
                   shift=slider("shift", 0, 0, 3, 1), remedy=choice("remedy", ["none", "centring"]))


def test_the_settings_drawn_ahead_are_one_notch_away_the_slider_moved_first_in_its_direction(monkeypatch):
    explorer = ahead_explorer()
    sent: list[tuple[dict, list]] = []
    monkeypatch.setattr(explorer._ahead, "send", lambda content, buffers: sent.append((content, buffers)))
    explorer._page_says(explorer._ahead, {"ready": True}, [])  # a page opened: ready (no kernel's loop here)
    explorer.controls["shift"].value = 3  # to its end: nothing beyond it
    explorer.controls["shift"].value = 2  # moved down
    ahead = explorer._settings_ahead()
    assert [(s["scale"], s["shift"], s["remedy"]) for s in ahead] == [
        (0.1, 1, "none"), (0.1, 3, "none"), (0.09, 2, "none"), (0.11, 2, "none"), (0.1, 2, "centring")]
    FrameCountingView.pictures = 0
    assert explorer.draw_ahead() == 4 and FrameCountingView.pictures == 4  # shift=3 was drawn when shown
    # the page gets all five, each under the key it computes from its sliders (ahead.js: notches)
    assert [content["key"] for content, _ in sent] == ["9,1,0", "9,3,0", "8,2,0", "10,2,0", "9,2,1"]
    assert [buffers for _, buffers in sent][3] == [b"1.1+2"]
    assert "sum = 3.100" in sent[3][0]["readout"]
    assert explorer.draw_ahead() == 0 and len(sent) == 5  # drawn and sent once
    explorer._page_says(explorer._ahead, {"ready": True}, [])  # the page reloaded: it holds nothing
    assert explorer.draw_ahead() == 0 and len(sent) == 10  # nothing drawn, all sent again


def test_a_move_to_a_setting_drawn_ahead_shows_it_without_drawing_and_the_view_catches_up():
    explorer = ahead_explorer()
    explorer.draw_ahead()
    FrameCountingView.pictures = 0
    explorer.controls["scale"].value = 0.11  # as the page's slider sets it, one notch up
    assert FrameCountingView.pictures == 0, "a setting drawn ahead is not drawn again"
    assert explorer.image.value == b"1.1+0" and "sum = 1.100" in repr(explorer)
    assert explorer.view.drawn[-1] == (1.1, 0.0)  # the view, asked for, draws the setting shown
    assert not explorer._in_page, "no page said it was ready: nothing is sent"
    explorer.controls["scale"].value = 0.12  # not drawn ahead: drawn now
    assert FrameCountingView.pictures == 1 and explorer.image.value == b"1.2+0"


def test_nothing_is_drawn_ahead_where_the_environment_says_so(monkeypatch):
    from shared.ahead import DRAW_AHEAD, Ahead

    monkeypatch.setenv(DRAW_AHEAD, "0")
    explorer = ahead_explorer()
    assert explorer._ahead is None and not any(isinstance(w, Ahead) for w in explorer.children)
    explorer.controls["scale"].value = 0.11  # live, as before
    assert explorer.image.value == b"1.1+0"


@pytest.mark.parametrize("stem, i", EXPLORERS, ids=lambda x: str(x)[:2])
def test_every_picture_drawn_ahead_is_the_one_the_explorer_draws_for_its_setting(stem, i):
    """Each notebook's explorer: the pictures and readings drawn ahead of its default setting are,
    setting by setting, those its view draws when the setting is shown (the page shows the first):
    the readings exactly, the pictures as closely as two redraws of one setting agree."""
    explorer = explorers_of(stem)[i]
    if not explorer.live:
        pytest.skip("frames: every setting is in the page already")
    defaults = explorer.values()
    try:
        explorer.draw_ahead()
        for setting in explorer._settings_ahead():
            picture_ahead, readings_ahead = explorer._drawn[explorer._key(setting)]
            for name, value in setting.items():
                explorer.controls[name].value = value
            view = explorer.view  # draws the setting shown, now
            assert view.readings() == readings_ahead, setting
            now = np.asarray(Image.open(io.BytesIO(view.image())).convert("RGB"), dtype=float)
            ahead = np.asarray(Image.open(io.BytesIO(picture_ahead)).convert("RGB"), dtype=float)
            # the same picture up to a redraw's own (a blitted redraw after other settings differs from a
            # full one by less than this: tests/test_figures.py, test_fast_redraw_matches_a_full_redraw)
            assert np.abs(now - ahead).mean() < 1.0, f"{setting}: the picture drawn ahead is not the one drawn now"
            for name, value in defaults.items():
                explorer.controls[name].value = value
    finally:
        for name, value in defaults.items():
            explorer.controls[name].value = value


def test_in_a_running_kernel_the_settings_are_drawn_ahead_after_a_move_and_a_new_move_stops_them():
    """On a running event loop (a kernel's), drawing ahead starts when the page says it is ready and
    after each move, one picture per turn of the loop; a move stops what was left of the last one,
    and a setting whose computation fails stops drawing ahead, raising nothing into the loop."""
    import asyncio

    def compute(scale, remedy):
        if remedy == "centring" and scale > 0.1:
            raise ValueError("no such setting")
        return round(10.0 * scale, 6)

    async def run() -> tuple[list[str], list[str], list[dict]]:
        errors: list[dict] = []
        asyncio.get_running_loop().set_exception_handler(lambda _loop, context: errors.append(context))
        explorer = explore(compute, FrameCountingView, scale=slider("scale", 0.1, 0.01, 0.12, 0.01),
                           shift=slider("shift", 0, 0, 3, 1), remedy=choice("remedy", ["none", "centring"]))
        sent: list[str] = []
        explorer._ahead.send = lambda content, buffers: sent.append(content["key"])
        explorer._page_says(explorer._ahead, {"ready": True}, [])
        assert sent == [], "drawn after the message is handled, not within it"
        await asyncio.sleep(0.2)
        first = list(sent)
        sent.clear()
        explorer.controls["scale"].value = 0.11  # held: nothing drawn now; then ahead of 0.11
        explorer.controls["scale"].value = 0.12  # at once again: what was left of the last move is dropped
        await asyncio.sleep(0.2)
        return first, sent, errors

    first, second, errors = asyncio.run(run())
    assert first == ["10,0,0", "8,0,0", "9,1,0", "9,0,1"]
    # ahead of 0.12 (scale's end): 0.11 (drawn before, sent already), shift 1, then remedy centring, which fails
    assert second == ["11,1,0"] and errors == []


def test_a_setting_the_page_held_is_not_sent_back_and_a_page_that_did_not_hold_it_gets_it(monkeypatch):
    """The page says which setting a move shows, and whether it held its picture, before the slider's
    own message: held, the kernel takes the setting in without sending picture or readings back; not
    held, it sends them, also to a window that says so after the kernel took the move from another."""
    explorer = ahead_explorer()
    explorer._ahead.send = lambda content, buffers: None
    sent: list[str] = []
    for name, widget in (("picture", explorer._live), ("readings", explorer.readout)):
        monkeypatch.setattr(widget, "send_state", lambda key=None, name=name: sent.append(name))
    explorer._page_says(explorer._ahead, {"ready": True}, [])
    explorer.draw_ahead()
    explorer._page_says(explorer._ahead, {"shows": "10,0,0", "held": True}, [])
    explorer.controls["scale"].value = 0.11
    assert sent == [] and explorer.image.value == b"1.1+0" and "sum = 1.100" in repr(explorer)
    explorer._page_says(explorer._ahead, {"shows": "10,0,0", "held": False}, [])  # a second window, later
    assert sent == ["picture", "readings"]
    sent.clear()
    explorer._page_says(explorer._ahead, {"shows": "11,0,0", "held": False}, [])  # a jump: drawn, and sent
    explorer.controls["scale"].value = 0.12
    assert sent == ["picture", "readings"] and explorer.image.value == b"1.2+0"


def test_a_move_not_held_draws_its_setting_once():
    explorer = ahead_explorer()
    explorer.draw_ahead()  # the view drew other settings since: the current one is drawn again when shown
    drawn, FrameCountingView.pictures = len(explorer.view.drawn), 0
    explorer.controls["shift"].value = 3  # two notches: not drawn ahead
    assert FrameCountingView.pictures == 1 and len(explorer.view.drawn) == drawn + 1


def test_a_value_off_its_sliders_grid_names_no_setting_and_nothing_past_an_end_is_drawn_ahead():
    """A slider whose value lies between its notches (set by code, or made so) keys no setting: it is
    drawn when shown and never taken for its neighbour; nor is a setting past a slider's end (a high
    end off the grid) drawn ahead under the key of the end."""
    off = explore(lambda scale: round(10 * scale, 6), FrameCountingView, scale=slider("scale", 0.15, 0.0, 1.0, 0.1))
    assert off._key() is None and off._settings_ahead() == []
    off.controls["scale"].value = 0.1
    assert "sum = 1.000" in repr(off) and off.image.value == b"1.0+0.0"
    off.controls["scale"].value = 0.15  # back, off the grid: drawn again, not read under 0.1's notch
    assert "sum = 1.500" in repr(off)
    for control, value, ahead in ((slider("scale", 0.8, 0.0, 1.0, 0.4), 0.8, [0.4]),
                                  (slider("k", 8, 0, 10, 4), 8, [4]),
                                  (slider("p", 0.25, 0.05, 0.95, 0.1), 0.25, [0.35, 0.15])):
        explorer = explore(lambda scale: scale, FrameCountingView, scale=control)
        explorer._moved = ("scale", 1)
        assert [s["scale"] for s in explorer._settings_ahead()] == ahead, (control, value)


def test_a_setting_that_warns_is_not_drawn_ahead_and_warns_when_moved_to():
    import warnings as w

    def compute(scale):
        if scale > 0.1:
            w.warn("a setting of its own", RuntimeWarning, stacklevel=1)
        return round(10 * scale, 6)

    explorer = explore(compute, FrameCountingView, scale=slider("scale", 0.1, 0.01, 0.12, 0.01))
    with w.catch_warnings():
        w.simplefilter("error")  # drawing ahead lets none out
        assert explorer.draw_ahead() == 1 and explorer._key({"scale": 0.11}) not in explorer._drawn
    with pytest.warns(RuntimeWarning, match="a setting of its own"):
        explorer.controls["scale"].value = 0.11
    assert "sum = 1.100" in repr(explorer)
