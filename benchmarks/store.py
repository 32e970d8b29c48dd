"""The real models' notebooks (07 and 09) with a warm study store: time with the kernel's start, and memory per kernel.

Run with ``uv run python benchmarks/store.py [--store DIR] [--kernels K]``. Without ``--store``, a
fresh store is filled first in a temporary directory (``python -m shared.real.build``, timed: the
cold cost a machine pays once). Then each notebook runs top to bottom in ``K`` kernels one after
the other (``ISOTROPY_STORE`` pointing at the store, one BLAS thread), each kept alive after its
last cell; with all ``K`` alive, each kernel's memory is read from ``/proc/PID/smaps_rollup``:
its PSS (shared pages divided among the processes that map them), split into private memory
(``Pss_Anon``) and file pages (``Pss_File``: the store's memory-mapped arrays and the libraries,
shared by every kernel). For a class of ``N`` kernels, a kernel adds about ``Pss_Anon`` plus
its file pages divided by ``N``; the table prints that for ``N = 30`` too, and each kernel's CPU
seconds (wall time on a busy machine also counts the waiting).

Targets on two cores: each notebook at most 10 s with the kernel's start, and at most 300 MB of
PSS per kernel.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from shared.real.models import real_models

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS, TARGET_MB, CLASS = 10.0, 300.0, 30


def smaps_rollup(pid: int) -> dict[str, float]:
    """The kernel's memory in MB from ``/proc/PID/smaps_rollup``: Rss, Pss, Pss_Anon, Pss_File."""
    values = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, _, rest = line.partition(":")
        values[name] = float(rest.split()[0]) / 1024
    return {k: values.get(k, 0.0) for k in ("Rss", "Pss", "Pss_Anon", "Pss_File", "Pss_Shmem")}


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds the process has used (``/proc/PID/stat``): on a machine shared
    with other work, the kernel's own cost, where wall time also counts the waiting."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_alive(path: Path, env: dict[str, str]) -> tuple[NotebookClient, float, int]:
    """Run the notebook top to bottom in a new kernel and leave the kernel running: the client,
    seconds from starting the kernel to the last cell's end, and the kernel's process id."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.km = client.create_kernel_manager()
    client.start_new_kernel(env=env)
    client.start_new_kernel_client()
    for index, cell in enumerate(nb.cells):
        client.execute_cell(cell, index)
    seconds = time.perf_counter() - start
    return client, seconds, client.km.provisioner.process.pid


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", help="a filled study store (default: fill a fresh one first)")
    parser.add_argument("--kernels", type=int, default=2, help="kernels per notebook, alive together (default 2)")
    args = parser.parse_args(argv)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "MALLOC_MMAP_THRESHOLD_": "131072"}  # as on the class server
    temporary = None
    if args.store:
        store = Path(args.store).resolve()
    else:
        temporary = tempfile.TemporaryDirectory(prefix="course-store-")
        store = Path(temporary.name) / "store"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "shared.real.build", "--dir", str(store)], cwd=ROOT, env=env,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(f"filling the store (cold, once per machine): {time.perf_counter() - start:.0f} s")
    env["ISOTROPY_STORE"] = str(store)
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'notebook':22s} {'kernel':>6s} {'s with start':>12s} {'CPU s':>6s} {'PSS MB':>7s} {'anon MB':>8s} {'file MB':>8s}"
          f" {f'MB in a class of {CLASS}':>19s}")
    failed = False
    try:
        for stem in (model.stem for model in real_models()):  # the notebooks that read the real models
            alive = []
            try:
                for _ in range(args.kernels):
                    alive.append(run_alive(ROOT / "notebooks" / f"{stem}.ipynb", env))
                for k, (_, seconds, pid) in enumerate(alive, 1):
                    memory = smaps_rollup(pid)
                    in_class = memory["Pss_Anon"] + memory["Pss_Shmem"] + memory["Pss_File"] * len(alive) / CLASS
                    ok = seconds <= TARGET_SECONDS and memory["Pss"] <= TARGET_MB
                    failed |= not ok
                    print(f"{stem:22s} {k:6d} {seconds:12.1f} {cpu_seconds(pid):6.1f} {memory['Pss']:7.0f} {memory['Pss_Anon']:8.0f}"
                          f" {memory['Pss_File']:8.0f} {in_class:19.0f}   {'met' if ok else 'MISSED'}")
            finally:
                for client, _, _ in alive:
                    client._cleanup_kernel()  # stops the kernel and its channels
    finally:
        if temporary is not None:
            temporary.cleanup()
    print(f"targets: at most {TARGET_SECONDS:.0f} s with the kernel's start and {TARGET_MB:.0f} MB of PSS per kernel"
          f" ({args.kernels} kernels alive)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
