"""How long each notebook takes to run top to bottom, and how much memory its kernel needs.

Run with ``uv run python benchmarks/notebooks.py [notebooks/07_real_transformer.ipynb ...]``
(default: every notebook). Each notebook is executed in a fresh kernel, as "Restart kernel and
run all" would; the time of its cells is measured inside the kernel, and so is the kernel's peak
resident memory (``ru_maxrss``). The course's targets: every notebook in seconds; notebook 04, which
trains six small language models, in at most 10 s of cells; notebook 07, which runs a real
Transformer, in under 30 s with a peak below 1.5 GB; notebook 08, which streams GloVe's 400,000 word
vectors, in at most 15 s of cells with a peak below 1 GB; notebook 09, which runs a 135M-parameter
decoder, in at most 60 s with the kernel's start and a peak below 1.5 GB. Notebooks 07 and 09
read the study store in use (``python -m shared.store where``; ``python -m shared.real.build`` fills it): the first run fills it, and
``benchmarks/store.py`` measures them with it filled; on a filled store, notebooks 07 and 09 are to
run in at most 5 s each with the kernel's start (they would then cost about what reading the store costs).

``--cells NOTEBOOK`` runs one notebook the same way and prints the kernel's CPU seconds cell by cell
(the first row is the kernel's start, before any cell): where a notebook's time goes, and whether
matplotlib and scipy are loaded yet.

``--baseline`` measures instead what one idle kernel holds before any notebook runs: its resident
and proportional set sizes (``/proc/self/smaps_rollup``; PSS counts a page shared by N processes as
1/N) bare, with numpy and ``import shared``, and with matplotlib, ipywidgets and the course's
drawings and explorers: the per-kernel baseline of a class.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from shared.real.models import real_models

ROOT = Path(__file__).resolve().parent.parent
# target seconds (of the cells alone, or including the kernel's start) and peak MB
LIMITS = {
    "04_frequency_collapse": ("cells", 10.0, 1536.0),
    "08_static_word_vectors": ("cells", 15.0, 1024.0),
}


def limit(stem: str) -> tuple[str, float, float] | None:
    """The target of the notebook ``stem``: :data:`LIMITS`, or for a real model's notebook its record's
    (07 encodes 683 sentences in float64 numpy, about 6 s, and bootstraps the remedies; 09 runs 228
    sentences through a 30-block decoder in float32)."""
    models = {m.stem: ("with kernel start", m.seconds, m.megabytes) for m in real_models()}
    return models.get(stem, LIMITS.get(stem))
START = "import time as _bench_time\n_bench_start = _bench_time.perf_counter()"
STOP = (
    "import resource as _bench_resource\n"
    "_bench_usage = _bench_resource.getrusage(_bench_resource.RUSAGE_SELF)\n"
    "print(_bench_time.perf_counter() - _bench_start, _bench_usage.ru_maxrss, _bench_usage.ru_utime + _bench_usage.ru_stime)"
)


def measure(path: Path) -> tuple[float, float, float, float]:
    """Seconds for the cells, seconds including the kernel's start, peak kernel memory in MB, and the
    kernel's CPU seconds (all threads: on a machine shared with other work, wall time alone misleads)."""
    nb = nbformat.read(path, as_version=4)
    nb.cells = [nbformat.v4.new_code_cell(START), *nb.cells, nbformat.v4.new_code_cell(STOP)]
    start = time.perf_counter()
    NotebookClient(nb, timeout=600, resources={"metadata": {"path": str(path.parent)}}).execute()
    total = time.perf_counter() - start
    cells, rss_kb, cpu = map(float, nb.cells[-1].outputs[0]["text"].split())
    return cells, total, rss_kb / 1024, cpu


PROBE = (
    "import resource as _bench_resource, sys as _bench_sys\n"
    "_bench_usage = _bench_resource.getrusage(_bench_resource.RUSAGE_SELF)\n"
    "print(_bench_usage.ru_utime + _bench_usage.ru_stime, 'matplotlib' in _bench_sys.modules, 'scipy' in _bench_sys.modules)"
)


def cell_costs(path: Path) -> list[tuple[str, float, bool, bool]]:
    """The kernel's CPU seconds for each code cell of the notebook at ``path`` run in a new kernel (the
    first row: the kernel's start), each with the cell's first line and whether matplotlib and scipy
    were loaded after it."""
    nb = nbformat.read(path, as_version=4)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    nb.cells = [nbformat.v4.new_code_cell(PROBE)]
    for cell in code:
        nb.cells += [cell, nbformat.v4.new_code_cell(PROBE)]
    NotebookClient(nb, timeout=600, resources={"metadata": {"path": str(path.parent)}}).execute()
    rows, before = [], 0.0
    labels = ["(kernel start)", *(cell.source.strip().splitlines()[0] if cell.source.strip() else "" for cell in code)]
    for label, probe in zip(labels, nb.cells[0::2]):
        cpu, matplotlib, scipy = probe.outputs[0]["text"].split()
        rows.append((label, float(cpu) - before, matplotlib == "True", scipy == "True"))
        before = float(cpu)
    return rows


MEMORY = (
    "def _bench_memory():\n"
    "    rollup = dict(line.split(':', 1) for line in open('/proc/self/smaps_rollup').read().splitlines()[1:])\n"
    "    print(int(rollup['Rss'].split()[0]) // 1024, int(rollup['Pss'].split()[0]) // 1024)\n"
    "_bench_memory()"
)
STAGES = {
    "bare kernel": "",
    "numpy, import shared": "import numpy, shared",
    "matplotlib, ipywidgets, the course's drawings and explorers":
        "import matplotlib, ipywidgets, shared.explorers, shared.figures.engine, shared.figures.views_real,"
        " shared.figures.views_toys",
}


def baseline() -> dict[str, tuple[int, int]]:
    """Resident and proportional set size in MB of a new kernel at each of :data:`STAGES`."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(f"{code}\n{MEMORY}") for code in STAGES.values()]
    NotebookClient(nb, timeout=600).execute()
    return {stage: tuple(map(int, cell.outputs[0]["text"].split())) for stage, cell in zip(STAGES, nb.cells)}


def main(paths: list[str]) -> int:
    if len(paths) == 2 and paths[0] == "--cells":
        rows = cell_costs(Path(paths[1]).resolve())
        print(f"{'CPU s':>6s}  matplotlib  scipy  cell")
        for label, cpu, matplotlib, scipy in rows:
            print(f"{cpu:6.2f}  {'loaded' if matplotlib else '-':>10s}  {'loaded' if scipy else '-':>5s}  {label[:80]}")
        print(f"{sum(r[1] for r in rows):6.2f}  in all")
        return 0
    if paths == ["--baseline"]:
        print(f"{'one idle kernel':62s} {'RSS MB':>7s} {'PSS MB':>7s}")
        for stage, (rss, pss) in baseline().items():
            print(f"{stage:62s} {rss:7d} {pss:7d}")
        return 0
    notebooks = [Path(p).resolve() for p in paths] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    print(f"{'notebook':28s} {'cells s':>8s} {'with kernel start s':>20s} {'peak MB':>8s} {'CPU s':>7s}")
    failed = False
    for path in notebooks:
        cells, total, peak, cpu = measure(path)
        target = limit(path.stem)
        verdict = ""
        if target:
            what, seconds, megabytes = target
            ok = (cells if what == "cells" else total) <= seconds and peak < megabytes
            failed |= not ok
            verdict = f"  target <= {seconds:.0f} s ({what}), < {megabytes / 1024:.1f} GB: {'met' if ok else 'MISSED'}"
        print(f"{path.stem:28s} {cells:8.1f} {total:20.1f} {peak:8.0f} {cpu:7.1f}{verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
