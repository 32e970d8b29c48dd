"""Slider panels that rerun each experiment live.

Each experiment has a *scene*: a pure function from slider values to the data its figure and its
meters show (tests call these directly). An :class:`Explorer` only wires sliders to a scene and
a :mod:`shared.figures` view: on a change it recomputes the scene, moves the view's artists and
puts the new JPEG into an ``ipywidgets.Image``. Sliders report a value when released
(``continuous_update=False``), so a drag sends one redraw, never a backlog.

The explorer's text form (what a notebook stores as ``text/plain``) lists its settings and its
meters, so regression tests compare the numbers it shows.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from functools import lru_cache, partial
from typing import Any

import ipywidgets as widgets
import numpy as np

from .clouds import PlantedCloud, make_planted, sphere_and_cone
from .realmodel import REAL_REMEDIES, real_point, real_study
from .mechanisms import AttentionRun, attention_run, frequency_run, rich_get_richer_run
from .meters import (
    basis_isotropy,
    cov_eigs,
    effective_rank,
    isoscore,
    partition_isotropy,
    random_cosines,
)
from .pca import pca_2d
from .remedies import all_but_the_top, sweep_remedies, zca_whiten
from .figures import (
    AttentionView,
    CosineView,
    FrequencyView,
    RealModelView,
    RichGetRicherView,
    SphereConeView,
    View,
    WhiteningView,
)

Meters = dict[str, dict[str, float]]

# --------------------------------------------------------------------------------------------
# Scenes: pure functions of the slider values
# --------------------------------------------------------------------------------------------


def _describe(X: np.ndarray, rng: np.random.Generator) -> dict[str, Any]:
    """PCA picture, spectrum, random cosines and meters of one cloud."""
    eigs = cov_eigs(X)
    cos = random_cosines(X, rng)
    return {
        "pca": pca_2d(X),
        "eigs": eigs,
        "cos": cos,
        "meters": {
            "partition I": partition_isotropy(X),
            "effective rank": effective_rank(eigs),
            "mean cosine": float(cos.mean()),
            "cosine std": float(cos.std()),
        },
    }


@lru_cache(maxsize=1)
def _reference() -> tuple[dict[str, Any], dict]:
    """The isotropic reference (no slider moves it) and the cosine generator's state after it."""
    X_iso, _ = sphere_and_cone()
    rng = np.random.default_rng(2)
    summary = _describe(X_iso, rng)
    for value in summary.values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return summary, rng.bit_generator.state


def cone_scene(strength: float = 4.0, residual: float = 0.10) -> dict[str, Any]:
    """Both reference clouds (seed 0) with their PCA pictures, spectra and random cosines (seed 2).

    At the defaults these are exactly the clouds and cosines of notebooks 01 and 02. The
    isotropic cloud does not depend on the sliders and is computed once.
    """
    _, X_cone = sphere_and_cone(strength, residual)
    iso, state = _reference()
    rng = np.random.default_rng(2)
    rng.bit_generator.state = state
    cone = _describe(X_cone, rng)
    scene: dict[str, Any] = {"meters": {"isotropic": iso["meters"], "cone": cone["meters"]}}
    for name, part in [("iso", iso), ("cone", cone)]:
        scene[f"pca_{name}"] = part["pca"]
        scene[f"eig_{name}"] = part["eigs"]
        scene[f"cos_{name}"] = part["cos"]
    return scene


_attention_runs: dict[tuple[float, float, float], AttentionRun] = {}


def attention_scene(
    depth: int = 40, beta: float = 0.6, alpha: float = 0.09, offset: float = 0.7
) -> dict[str, Any]:
    """The cloud at layers ``0, depth/4, depth`` and the curves up to ``depth`` (notebook 03).

    Runs are kept per ``(beta, alpha, offset)`` and extended as needed, so moving the depth
    slider computes only layers not computed before.
    """
    key = (beta, alpha, offset)
    if key not in _attention_runs:
        if len(_attention_runs) >= 32:
            _attention_runs.clear()
        _attention_runs[key] = attention_run(0, beta, alpha, offset)
    run = _attention_runs[key].extend(depth)
    shown = (0, max(1, round(depth / 4)), depth)
    mean_cos, spread = np.array(run.mean_cos[:depth]), np.array(run.spread[:depth])
    return {
        "snapshots": [(layer, run.clouds[layer]) for layer in shown],
        "mean_cos": mean_cos,
        "spread": spread,
        "meters": {
            f"after layer {depth}": {"mean cosine": float(mean_cos[-1]), "angular std": float(spread[-1])}
        },
    }


def frequency_scene(exponent: float = 1.0, strength: float = 0.9) -> dict[str, Any]:
    """Zipfian embeddings after the frequency pull: norms, PCA picture, isotropy (notebook 04)."""
    freq, emb = frequency_run(exponent, strength)
    norms = np.linalg.norm(emb, axis=1)
    return {
        "freq": freq,
        "norms": norms,
        "pca": pca_2d(emb),
        "meters": {
            "embeddings": {
                "norm, most frequent": float(norms[0]),
                "norm, least frequent": float(norms[-1]),
                "partition I": partition_isotropy(emb),
            }
        },
    }


def rich_scene(eta: float = 0.18, steps: int = 60, spread: float = 0.05) -> dict[str, Any]:
    """Spectra under the rich-get-richer update and the effective rank per step (notebook 05)."""
    history = rich_get_richer_run(eta, steps, spread)
    eff = np.array([effective_rank(lam) for lam in history])
    return {
        "history": history,
        "eff_rank": eff,
        "shown_steps": (0, round(steps / 6), round(steps * 25 / 60), steps),
        "meters": {
            "spectrum": {"effective rank at step 0": float(eff[0]), f"effective rank at step {steps}": float(eff[-1])}
        },
    }


WHITENED_BASES = 20


@lru_cache(maxsize=64)
def _remedied(kind: str, amount: float) -> tuple[np.ndarray, float, str, float]:
    """The cone after one remedy, with its partition isotropy, that value's label and IsoScore."""
    _, X = sphere_and_cone()
    if kind == "abtt":
        X = all_but_the_top(X, int(amount))
    elif kind == "whiten":
        X = zca_whiten(X, amount)
    try:
        value = partition_isotropy(X)
        label = f"{value:.2f}"
    except ValueError:  # a fully whitened cloud: every orthonormal basis is an eigenbasis
        spread = basis_isotropy(X, np.random.default_rng(6), bases=WHITENED_BASES)
        value = float(np.median(spread))
        label = f"{spread.min():.2f}-{spread.max():.2f}"
    X.setflags(write=False)
    return X, value, label, isoscore(X)


PLANTED_SEED = 7
FIT, HELD = slice(0, 1000), slice(1000, None)


@lru_cache(maxsize=1)
def planted_tradeoff() -> tuple[PlantedCloud, dict[str, dict[str, np.ndarray]]]:
    """Notebook 06's planted cloud (2,000 points, seed 7) and its remedy sweep, fitted on the
    first half (``FIT``) and measured on the second (``HELD``)."""
    planted = make_planted(2000, 50, PLANTED_SEED)
    return planted, sweep_remedies(planted.X[FIT], planted.labels[FIT], planted.X[HELD], planted.labels[HELD])


def _sweep_point(remedy: str, setting: float) -> dict[str, float]:
    """The sweep's measurements at one setting (computed afresh if it is off the sweep's grid)."""
    planted, sweep = planted_tradeoff()
    rows = sweep[remedy]
    hits = np.flatnonzero(np.isclose(rows["setting"], setting, atol=1e-9))
    if hits.size == 0:
        grid = {"ks": [int(setting)], "powers": []} if remedy == "all-but-the-top" else {"ks": [], "powers": [setting]}
        rows = sweep_remedies(planted.X[FIT], planted.labels[FIT], planted.X[HELD], planted.labels[HELD], **grid)[remedy]
        hits = np.array([0])
    return {key: float(values[hits[0]]) for key, values in rows.items() if key != "setting"}


def whitening_scene(k: int = 2, power: float = 1.0) -> dict[str, Any]:
    """The cone before and after all-but-the-top (``k``) and partial whitening (``power``), and
    the same two settings on the planted cloud's trade-off curve.

    Random cosines come from one generator seeded 6, drawn in row order as in notebook 06.
    Where the whitened cloud's eigenvectors are not unique (``power = 1``), its isotropy bar is
    the median over random eigenbases and its label gives their range.
    """
    rows = [
        ("original cone", _remedied("none", 0.0)),
        (f"all-but-the-top (k={k})", _remedied("abtt", float(k))),
        ("ZCA whitened" if power == 1 else f"whitened (p={power:.2f})", _remedied("whiten", float(power))),
    ]
    rng = np.random.default_rng(6)
    scene: dict[str, Any] = {"isotropy": {}, "isotropy_label": {}, "cosines": {}, "meters": {}}
    for name, (X, value, label, iso) in rows:
        cos = random_cosines(X, rng)
        scene["isotropy"][name] = value
        scene["isotropy_label"][name] = label
        scene["cosines"][name] = cos
        meter = "partition I" if "-" not in label else f"partition I (median of {WHITENED_BASES} bases)"
        scene["meters"][name] = {meter: value, "mean cosine": float(cos.mean()), "IsoScore": iso}
    _, sweep = planted_tradeoff()
    best = max(((name, int(np.argmax(rows["pair AUC"]))) for name, rows in sweep.items()),
               key=lambda item: sweep[item[0]]["pair AUC"][item[1]])
    scene["tradeoff"], scene["best"] = sweep, best
    scene["current"] = {"all-but-the-top": _sweep_point("all-but-the-top", k), "whitening": _sweep_point("whitening", power)}
    for remedy, label in [("all-but-the-top", f"k={k}"), ("whitening", f"p={power:.2f}")]:
        point = scene["current"][remedy]
        scene["meters"][f"planted cloud, {remedy} {label}"] = {
            "held-out pair AUC": point["pair AUC"], "kNN accuracy": point["kNN accuracy"], "IsoScore": point["IsoScore"],
        }
    return scene


def real_scene(layer: int = 6, remedy: str = "none") -> dict[str, Any]:
    """Held-out tokens and sentences of the real model at one layer, after one remedy (notebook 07).

    Remedies are fitted on the tokens of the fit half and measured on the other half. Token
    cosines are over *all* pairs of held-out tokens from different sentences (exact, no sampling);
    sentence vectors are the mean of their token vectors, the model's own pooling.
    """
    if remedy not in REAL_REMEDIES:
        raise ValueError(f"remedy: expected one of {REAL_REMEDIES}, got {remedy!r}")
    layer = int(layer)
    if not 0 <= layer <= real_study().enc.states.shape[0] - 1:
        raise ValueError(f"layer: expected 0..{real_study().enc.states.shape[0] - 1}, got {layer}")
    point = real_point(layer, remedy)
    return {"layer": layer, "remedy": remedy, **point}


# --------------------------------------------------------------------------------------------
# Explorer plumbing
# --------------------------------------------------------------------------------------------


def slider(kind: str, description: str, value: float, low: float, high: float, step: float) -> widgets.Widget:
    """A labelled slider that reports its value on release (no backlog while dragging)."""
    cls = widgets.IntSlider if kind == "int" else widgets.FloatSlider
    return cls(
        value=value, min=low, max=high, step=step, description=description,
        continuous_update=False, style={"description_width": "240px"},
        layout=widgets.Layout(width="500px"),
    )


def _fmt(name: str, value: float) -> str:
    """A meter's value as the notebooks print it: ranks to 0.1, cosines signed, the rest to 0.001."""
    if "rank" in name:
        return f"{value:.1f}"
    if "cosine" in name and "std" not in name:
        return f"{value:+.3f}"
    return f"{value:.3f}"


class Explorer(widgets.VBox):
    """Sliders wired to a scene function and a view; the picture is an ``ipywidgets.Image``."""

    def __init__(
        self,
        title: str,
        scene: Callable[..., dict[str, Any]],
        view: Callable[[dict[str, Any]], View],
        controls: dict[str, widgets.Widget],
    ) -> None:
        self.title = title
        self.scene_fn = scene
        self.controls = controls
        self.scene = scene(**self.values())
        self.make_view = view
        self.view = view(self.scene)
        self.image = widgets.Image(value=self.view.image(), format="jpeg", layout=widgets.Layout(width="100%"))
        self.readout = widgets.HTML(self._readout_html())
        super().__init__([widgets.HTML(f"<h4>{html.escape(title)}</h4>"), *controls.values(), self.readout, self.image])
        for control in controls.values():
            control.observe(self._on_change, names="value")

    def values(self) -> dict[str, Any]:
        """The current slider values, by scene argument name."""
        return {name: control.value for name, control in self.controls.items()}

    def _on_change(self, _change: dict) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Recompute the scene from the sliders and redraw the picture and the meters."""
        self.scene = self.scene_fn(**self.values())
        self.view.update(self.scene)
        self.image.value = self.view.image()
        self.readout.value = self._readout_html()

    def meters(self) -> Meters:
        """The numbers the explorer shows beside its picture."""
        return self.scene["meters"]

    def _readout_html(self) -> str:
        rows = "".join(
            f"<tr><td style='padding-right:1em'><b>{html.escape(group)}</b></td><td>"
            + " &nbsp;·&nbsp; ".join(f"{html.escape(k)} {_fmt(k, v)}" for k, v in values.items())
            + "</td></tr>"
            for group, values in self.meters().items()
        )
        return f"<table style='font-family:monospace;font-size:12px;white-space:nowrap'>{rows}</table>"

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        """The widget view, with the whole text form (ipywidgets would cut it at 110 characters)."""
        bundle = super()._repr_mimebundle_(**kwargs)
        bundle["text/plain"] = repr(self)
        return bundle

    def __repr__(self) -> str:
        settings = ", ".join(f"{k}={v}" for k, v in self.values().items())
        lines = [f"{self.title} [{settings}]"]
        for group, values in self.meters().items():
            lines.append(f"  {group}: " + ", ".join(f"{k} = {_fmt(k, v)}" for k, v in values.items()))
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# One explorer per notebook
# --------------------------------------------------------------------------------------------


def sphere_cone_explorer() -> Explorer:
    """Notebook 01: cone strength and residual noise against the isotropic reference."""
    return Explorer(
        "Explorer: sphere vs cone",
        cone_scene,
        SphereConeView,
        {
            "strength": slider("float", "s: cone strength (shared offset)", 4.0, 0.0, 10.0, 0.25),
            "residual": slider("float", "σ: residual noise per direction", 0.10, 0.01, 1.0, 0.01),
        },
    )


def cosine_explorer() -> Explorer:
    """Notebook 02: cone strength and residual against the random-pair cosine histograms."""
    return Explorer(
        "Explorer: illusory cosine similarity",
        cone_scene,
        CosineView,
        {
            "strength": slider("float", "s: cone strength (shared offset)", 4.0, 0.0, 10.0, 0.25),
            "residual": slider("float", "σ: residual noise per direction", 0.10, 0.01, 1.0, 0.01),
        },
    )


def attention_explorer() -> Explorer:
    """Notebook 03: depth, softmax sharpness, step size and starting offset."""
    return Explorer(
        "Explorer: self-attention contraction",
        attention_scene,
        AttentionView,
        {
            "depth": slider("int", "depth: attention layers", 40, 1, 120, 1),
            "beta": slider("float", "β: softmax sharpness", 0.6, 0.0, 5.0, 0.1),
            "alpha": slider("float", "α: step size (residual mix)", 0.09, 0.0, 1.0, 0.01),
            "offset": slider("float", "offset: start distance from origin", 0.7, 0.0, 3.0, 0.1),
        },
    )


def frequency_explorer() -> Explorer:
    """Notebook 04: Zipf exponent and pull strength."""
    return Explorer(
        "Explorer: frequency-induced collapse",
        frequency_scene,
        FrequencyView,
        {
            "exponent": slider("float", "s: Zipf exponent", 1.0, 0.0, 2.0, 0.05),
            "strength": slider("float", "γ: pull strength", 0.9, 0.0, 0.99, 0.01),
        },
    )


def rich_explorer() -> Explorer:
    """Notebook 05: amplification rate, number of steps and initial spread."""
    return Explorer(
        "Explorer: rich-get-richer",
        rich_scene,
        RichGetRicherView,
        {
            "eta": slider("float", "η: amplification rate", 0.18, 0.0, 0.5, 0.01),
            "steps": slider("int", "steps: training steps", 60, 1, 200, 1),
            "spread": slider("float", "spread: initial unevenness", 0.05, 0.0, 0.3, 0.01),
        },
    )


def whitening_explorer() -> Explorer:
    """Notebook 06: all-but-the-top ``k`` and whitening strength ``p``."""
    return Explorer(
        "Explorer: whitening remedy",
        whitening_scene,
        partial(WhiteningView, panels=("bars", "cosines", "tradeoff")),
        {
            "k": slider("int", "k: top components removed", 2, 0, 10, 1),
            "power": slider("float", "p: whitening strength, Σ^(−p/2)", 1.0, 0.0, 1.0, 0.05),
        },
    )


def real_explorer() -> Explorer:
    """Notebook 07: layer of all-MiniLM-L6-v2 and remedy, on held-out tokens and sentences.

    All 7 x 4 settings are computed when the explorer is made (about two seconds), so that a
    slider move only redraws the picture.
    """
    for layer in range(real_study().enc.states.shape[0]):
        for name in REAL_REMEDIES:
            real_point(layer, name)
    remedy = widgets.SelectionSlider(
        options=list(REAL_REMEDIES), value="none", description="remedy (fitted on the other half)",
        continuous_update=False, style={"description_width": "240px"}, layout=widgets.Layout(width="500px"),
    )
    return Explorer(
        "Explorer: a real Transformer",
        real_scene,
        RealModelView,
        {"layer": slider("int", "layer (0 = embedding layer)", 6, 0, 6, 1), "remedy": remedy},
    )
