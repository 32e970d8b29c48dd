"""How long each explorer takes from a slider change to a new picture.

Run with ``uv run python benchmarks/explorers.py``. Every explorer is built by running its
notebook's own cells (``tests/notebook_cells.py``); then every slider is moved
through its range in ``STEPS`` even steps (a selection slider through each option; the others at
their defaults) and back to its default.
Each move is timed from setting the slider's value to the new JPEG being in the ``Image`` widget,
exactly the work the kernel does when a learner releases a slider. For comparison, the same
moves are timed with the naive approach: build a new figure from the scene and draw all of it.
"""

from __future__ import annotations

import sys
import time
import numpy as np

from shared.explorers import Explorer
from tests.notebook_cells import run, stems

STEPS = 12


def moves(explorer: Explorer) -> list[tuple[str, object]]:
    """Every slider through its range, one at a time, then back to its default."""
    out: list[tuple[str, object]] = []
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


def time_explorer(explorer: Explorer) -> tuple[list[float], list[float]]:
    """Seconds per move: the explorer's way, and the naive way (a new figure, drawn whole)."""
    plan = moves(explorer)
    fast = []
    for name, value in plan:
        start = time.perf_counter()
        explorer.controls[name].value = value
        fast.append(time.perf_counter() - start)
    naive = []
    settings = explorer.values()
    for name, value in plan:
        settings[name] = value
        start = time.perf_counter()
        result = explorer.compute(**{k: settings[k] for k in explorer.computed})
        view = explorer.make_view(*(result if isinstance(result, tuple) else (result,)),
                                  **{k: settings[k] for k in explorer.shown})
        view.full_image()
        naive.append(time.perf_counter() - start)
        view.fig.clear()
    return fast, naive


def main() -> int:
    print(f"{'explorer':34s} {'moves':>5s} {'median ms':>10s} {'p95 ms':>8s}   {'naive median':>12s} {'naive p95':>10s}")
    medians, every_move = [], []
    for stem in stems():
        for explorer in (value for value in run(stem) if isinstance(value, Explorer)):
            fast, naive = time_explorer(explorer)
            ms = lambda xs, q: 1000 * float(np.percentile(xs, q))  # noqa: E731
            medians.append(ms(fast, 50))
            every_move += fast
            label = f"{stem[:2]} {explorer.title.removeprefix('Explorer: ')}"[:34]
            print(f"{label:34s} {len(fast):5d} {ms(fast, 50):10.1f} {ms(fast, 95):8.1f}   "
                  f"{ms(naive, 50):12.1f} {ms(naive, 95):10.1f}")
    print(f"median over all {len(every_move)} moves: {1000 * float(np.median(every_move)):.1f} ms; worst explorer's"
          f" median: {max(medians):.1f} ms (target: at most 100 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
