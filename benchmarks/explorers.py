"""How long each explorer takes from a slider change to a new picture.

Run with ``uv run python benchmarks/explorers.py [notebooks/NN_name.ipynb ...]`` (default: every
notebook). Each notebook runs top to bottom in a fresh kernel, as a learner's would; a last cell,
added for the benchmark, then finds every explorer the notebook displayed (IPython's ``Out``) and
moves every slider through its range in ``STEPS`` even steps (a selection slider through each
option; the others at their defaults) and back to its default, inside that kernel.
Each move is timed from setting the slider's value to the new JPEG being in the ``Image`` widget,
exactly the work the kernel does when a learner releases a slider. For comparison, the same
moves are timed with the naive approach: build a new figure from the scene and draw all of it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import nbformat
import numpy as np
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
STEPS = 12
# Run in the notebook's kernel after its own cells; prints one JSON line per explorer.
TIMING = """
import json as _json, time as _time
import numpy as _np
from shared.explorers import Explorer as _Explorer


def _moves(explorer):
    out = []
    for name, control in explorer.controls.items():
        if hasattr(control, "options"):  # a selection slider: every option in turn
            out += [(name, option) for option in control.options if option != control.value]
            out.append((name, control.value))
            continue
        kind = type(control.value)
        for value in _np.linspace(control.min, control.max, %(steps)d):
            value = kind(round(value / control.step) * control.step)
            if value != (out[-1][1] if out and out[-1][0] == name else control.value):
                out.append((name, value))
        out.append((name, control.value))
    return out


def _timed(explorer):
    plan = _moves(explorer)
    fast = []
    for name, value in plan:
        start = _time.perf_counter()
        explorer.controls[name].value = value
        fast.append(_time.perf_counter() - start)
    naive = []
    settings = explorer.values()
    for name, value in plan:
        settings[name] = value
        start = _time.perf_counter()
        result = explorer.compute(**{k: settings[k] for k in explorer.computed})
        view = explorer.make_view(*(result if isinstance(result, tuple) else (result,)),
                                  **{k: settings[k] for k in explorer.shown})
        view.full_image()
        naive.append(_time.perf_counter() - start)
        view.fig.clear()
    return fast, naive


for _explorer in [v for _, v in sorted(Out.items()) if isinstance(v, _Explorer)]:
    print(_json.dumps([_explorer.title, *_timed(_explorer)]))
""" % {"steps": STEPS}


def time_notebook(path: Path) -> list[tuple[str, list[float], list[float]]]:
    """For each explorer of the notebook: its title and seconds per move, its way and the naive way."""
    nb = nbformat.read(path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(TIMING))
    env = {**os.environ, "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1")}
    client = NotebookClient(nb, timeout=900, resources={"metadata": {"path": str(path.parent)}})
    client.execute(env=env)
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("name") == "stdout")
    return [tuple(json.loads(line)) for line in text.splitlines() if line.startswith("[")]


def main(paths: list[str]) -> int:
    notebooks = [Path(p).resolve() for p in paths] or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    print(f"{'explorer':34s} {'moves':>5s} {'median ms':>10s} {'p95 ms':>8s}   {'naive median':>12s} {'naive p95':>10s}")
    medians, every_move = [], []
    for path in notebooks:
        stem = path.stem
        for title, fast, naive in time_notebook(path):
            ms = lambda xs, q: 1000 * float(np.percentile(xs, q))  # noqa: E731
            medians.append(ms(fast, 50))
            every_move += fast
            label = f"{stem[:2]} {title.removeprefix('Explorer: ')}"[:34]
            print(f"{label:34s} {len(fast):5d} {ms(fast, 50):10.1f} {ms(fast, 95):8.1f}   "
                  f"{ms(naive, 50):12.1f} {ms(naive, 95):10.1f}")
    print(f"median over all {len(every_move)} moves: {1000 * float(np.median(every_move)):.1f} ms; worst explorer's"
          f" median: {max(medians):.1f} ms (target: at most 100 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
