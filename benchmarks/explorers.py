"""How long each explorer takes from a slider change to a new picture.

Run with ``uv run python benchmarks/explorers.py``. For every explorer, every slider is moved
through its range in ``STEPS`` even steps (a selection slider through each option; the others at
their defaults) and back to its default.
Each move is timed from setting the slider's value to the new JPEG being in the ``Image`` widget,
exactly the work the kernel does when a learner releases a slider. For comparison, the same
moves are timed with the naive approach: build a new figure from the scene and draw all of it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np

from shared import explorers

STEPS = 12

EXPLORERS: dict[str, Callable[[], explorers.Explorer]] = {
    "01 sphere vs cone": explorers.sphere_cone_explorer,
    "02 illusory cosine": explorers.cosine_explorer,
    "03 attention": explorers.attention_explorer,
    "04 frequency": explorers.frequency_explorer,
    "05 rich-get-richer": explorers.rich_explorer,
    "06 whitening": explorers.whitening_explorer,
    "07 real Transformer": explorers.real_explorer,
}


def moves(explorer: explorers.Explorer) -> list[tuple[str, float]]:
    """Every slider through its range, one at a time, then back to its default."""
    out = []
    for name, control in explorer.controls.items():
        if hasattr(control, "options"):  # a selection slider: every option in turn
            out += [(name, option) for option in control.options if option != control.value]
            out.append((name, control.value))
            continue
        kind = type(control.value)
        for value in np.linspace(control.min, control.max, STEPS):
            value = kind(round(value / control.step) * control.step)
            if value != (out[-1][1] if out and out[-1][0] == name else control.value):
                out.append((name, value))
        out.append((name, control.value))
    return out


def time_explorer(make: Callable[[], explorers.Explorer]) -> tuple[list[float], list[float]]:
    explorer = make()
    plan = moves(explorer)
    fast = []
    for name, value in plan:
        start = time.perf_counter()
        explorer.controls[name].value = value
        fast.append(time.perf_counter() - start)
    naive = []
    settings = {name: control.value for name, control in explorer.controls.items()}
    for name, value in plan:
        settings[name] = value
        start = time.perf_counter()
        view = explorer.make_view(explorer.scene_fn(**settings))
        view.full_image()
        naive.append(time.perf_counter() - start)
        view.fig.clear()
    return fast, naive


def main() -> int:
    print(f"{'explorer':22s} {'moves':>5s} {'median ms':>10s} {'p95 ms':>8s}   {'naive median':>12s} {'naive p95':>10s}")
    worst = 0.0
    for label, make in EXPLORERS.items():
        fast, naive = time_explorer(make)
        ms = lambda xs, q: 1000 * float(np.percentile(xs, q))  # noqa: E731
        worst = max(worst, ms(fast, 50))
        print(f"{label:22s} {len(fast):5d} {ms(fast, 50):10.1f} {ms(fast, 95):8.1f}   "
              f"{ms(naive, 50):12.1f} {ms(naive, 95):10.1f}")
    print(f"worst median: {worst:.1f} ms (target: at most 100 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
