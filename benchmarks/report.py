"""How fast and how lean ``isotropy_report`` is on a 1,000,000 x 768 float32 matrix, against the floor.

Run with ``uv run python benchmarks/report.py [--dir DIR] [--rows 1000000] [--dims 768] [--repeat 3]``.

The matrix is a cone like a language model's: a shared offset, eight dominant directions and a
decaying per-coordinate spread, generated chunk by chunk from seed 0 and cached as ``.npy`` under
``DIR`` (or ``$ISOTROPY_BENCH_DIR``; default ``<temp dir>/isotropy-bench``), with its first 10^5 rows
as a second file for the growth check. It is a benchmark, not a test: nothing fails; targets are
printed beside the numbers.

Every task runs in a fresh Python process, so its peak resident memory (``ru_maxrss``) is its own;
its time is measured inside the process around the work only (no interpreter start or imports):

* ``floor float32`` / ``floor float64``: one pass of ``chunk.T @ chunk`` over the file (numpy hands
  this to BLAS ``syrk``), read with the same chunked file reads and chunk size as the report, in
  float32 or float64 products, summed in float64. This is the least any meter built on the
  covariance has to do.
* ``floor float32 + projections``: the float32 floor, then a second pass that multiplies every row by
  the ``d`` eigenvectors of the scatter matrix, in the report's blocks, and does nothing else. Any
  report that computes partition isotropy exactly (it needs each row's projection on every
  eigenvector, known only after pass 1) does at least this much, so its ratio to the floor is the
  least ratio an exact two-pass report can reach on this machine.
* ``report float64``: ``isotropy_report(path, 0)`` as a learner calls it (float64 products, exact to
  rounding at any scale, two passes, the Wishart-law baseline at this size). ``report float32``: the
  same with ``compute_dtype=np.float32`` (float32 products, about 1e-5 relative).
  ``report float32, 1 pass``: that with ``partition=False`` (no partition isotropy).
* ``..., 1 thread``: the float32 floor and report again with ``OPENBLAS_NUM_THREADS=1``; their ratio of
  CPU seconds is the one that other work on a shared machine disturbs least.
* ``imports only``: the resident memory of Python with numpy, scipy and the course loaded.

The tasks run in rounds (``--repeat``, default 3), each report right after its floor, so the two
share the machine's load; the table gives medians over rounds, and each ratio is taken within a
round before its median is taken. The targets (peak <= 1 GB, report <= 2.5 x the floor) compare like
with like: the float32 report against the float32 floor; both floors are printed, so the other
ratios can be read too. The file is read once before the timed tasks, so every task reads it from
the page cache (warm): the timings are compute, not disk.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from shared.meters import table_meters

ROOT = Path(__file__).resolve().parent.parent
GENERATION_ROWS = 16384  # rows per seeded generation chunk: the matrix does not depend on the file size
TARGET_MB, TARGET_RATIO = 1024.0, 2.5
METERS = tuple(meter.name for meter in table_meters())  # the report's meters, from the registry


def cone_rows(start_chunk: int, rows: int, d: int, seed: int) -> np.ndarray:
    """Generation chunk ``start_chunk``: offset + 8 dominant directions + decaying spread, float32."""
    fixed = np.random.default_rng([seed, 0])
    offset = 15.0 * _unit(fixed.standard_normal(d))
    dominant, _ = np.linalg.qr(fixed.standard_normal((d, 8)))
    dominant_sd = np.array([6.0, 4.0, 3.0, 2.5, 2.0, 1.5, 1.2, 1.0])
    spread = 0.4 * (1.0 + np.arange(d)) ** -0.3 * fixed.uniform(0.8, 1.2, d)
    rng = np.random.default_rng([seed, 1, start_chunk])
    X = offset + (rng.standard_normal((rows, 8)) * dominant_sd) @ dominant.T + rng.standard_normal((rows, d)) * spread
    return X.astype(np.float32)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def generate(path: Path, n: int, d: int, seed: int = 0) -> None:
    """Write the ``n`` x ``d`` cone to ``path`` chunk by chunk (once; a finished file is reused)."""
    if path.exists():
        return
    partial = path.with_suffix(".partial.npy")
    out = np.lib.format.open_memmap(partial, mode="w+", dtype=np.float32, shape=(n, d))
    for i, start in enumerate(range(0, n, GENERATION_ROWS)):
        rows = min(GENERATION_ROWS, n - start)
        out[start : start + rows] = cone_rows(i, rows, d, seed)
    out.flush()
    del out
    partial.rename(path)


def warm(path: Path) -> float:
    """Read the whole file once, so that the timed tasks read it from the page cache; seconds taken."""
    start = time.perf_counter()
    with open(path, "rb", buffering=0) as f:
        buffer = bytearray(8 * 2**20)
        while f.readinto(buffer):
            pass
    return time.perf_counter() - start


# ----- the tasks, each run in its own process ---------------------------------------------------


def task(name: str, path: Path) -> dict:
    """Run one task in this process; return its time, CPU time, peak memory and the meters it found."""
    from shared import isotropy_report
    from shared.report import default_chunk_rows, projection_block_rows, row_chunks

    result: dict = {}
    start, cpu = time.perf_counter(), time.process_time()
    if name.startswith("floor"):
        dtype = np.float64 if name == "floor float64" else np.float32
        d = int(np.load(path, mmap_mode="r").shape[1])
        chunk_rows = default_chunk_rows(d)  # the report's default chunk
        scatter = np.zeros((d, d))
        for _, chunk in row_chunks(path, chunk_rows):
            X = np.ascontiguousarray(chunk, dtype=dtype)
            scatter += X.T @ X
        result["checksum"] = float(np.trace(scatter))
        if name == "floor float32 + projections":
            # the second pass any exact partition isotropy needs: every row on all d eigenvectors
            # (a product as large as X^T X, and it cannot use its symmetry), in the report's blocks
            _, V = np.linalg.eigh(scatter)
            Ct = np.ascontiguousarray(V.T, dtype=dtype)
            block = projection_block_rows(d, dtype)
            total = 0.0
            for _, chunk in row_chunks(path, chunk_rows):
                for a in range(0, len(chunk), block):
                    total += float((Ct @ chunk[a : a + block].T)[0, 0])
            result["checksum"] += total
    elif name.startswith("report"):
        options = {
            "report float32": {"compute_dtype": np.float32},
            "report float64": {},
            "report float32, 1 pass": {"compute_dtype": np.float32, "partition": False},
        }[name]
        report = isotropy_report(path, 0, progress=False, **options)
        result["meters"] = {m: getattr(report.meters, m) for m in METERS}
        result["uniformity_se"] = report.uniformity_se
        result["chunk_rows"] = report.chunk_rows
        result["table"] = report.table()
    elif name == "exact in memory":
        result["meters"] = exact_meters(np.load(path).astype(np.float64))
    elif name.startswith("generate"):
        _, rows, dims = name.split()
        generate(path, int(rows), int(dims))
    elif name != "imports only":
        raise ValueError(f"unknown task {name!r}")
    result["seconds"] = time.perf_counter() - start
    result["cpu"] = time.process_time() - cpu
    result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result["hwm_mb"] = high_water_mb()
    return result


def high_water_mb() -> float:
    """Peak resident memory of this process image from /proc (reset by exec, unlike ru_maxrss, which
    keeps the parent's peak at fork); NaN where /proc is missing."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def exact_meters(X: np.ndarray) -> dict[str, float]:
    """The course's in-memory meters (exact mean cosine; uniformity is left out: all pairs is O(n^2))."""
    from shared import cov_eigs, cross_group_cosines, effective_rank, entropy_rank, isoscore, partition_isotropy

    eigs = cov_eigs(X)
    return {
        "partition_isotropy": partition_isotropy(X),
        "mean_cosine": float(cross_group_cosines(X, np.arange(len(X))).sum()),
        "effective_rank": effective_rank(eigs),
        "entropy_rank": entropy_rank(eigs),
        "isoscore": isoscore(X),
    }


def run(name: str, path: Path, threads: int | None = None) -> dict:
    """``task(name, path)`` in a fresh process (with ``threads`` BLAS threads), with the load average around it."""
    load = os.getloadavg()[0]
    env = dict(os.environ)
    if threads is not None:
        env["OPENBLAS_NUM_THREADS"] = str(threads)
    done = subprocess.run(
        [sys.executable, __file__, "--task", name, "--file", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        check=False,
    )
    if done.returncode:
        raise RuntimeError(f"task {name!r} failed:\n{done.stderr}")
    result = json.loads(done.stdout.splitlines()[-1])
    result["load"] = (load + os.getloadavg()[0]) / 2
    return result


# ----- the run ----------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default_dir = os.environ.get("ISOTROPY_BENCH_DIR", Path(tempfile.gettempdir()) / "isotropy-bench")
    parser.add_argument("--dir", default=default_dir, help="where the generated matrices are cached")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--small-rows", type=int, default=100_000)
    parser.add_argument("--dims", type=int, default=768)
    parser.add_argument("--repeat", type=int, default=3, help="runs per task; the table shows the fastest")
    parser.add_argument("--task", help=argparse.SUPPRESS)
    parser.add_argument("--file", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.task:
        print(json.dumps(task(args.task, Path(args.file))))
        return 0

    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    big = folder / f"cone_{args.rows}x{args.dims}_float32.npy"
    small = folder / f"cone_{args.small_rows}x{args.dims}_float32.npy"
    for path, n in ((big, args.rows), (small, args.small_rows)):
        start = time.perf_counter()
        existed = path.exists()
        run(f"generate {n} {args.dims}", path)  # in a child: writing the map would swell this process
        note = "cached" if existed else f"generated in {time.perf_counter() - start:.0f} s"
        print(f"{path} ({path.stat().st_size / 2**30:.2f} GiB, {note}); warm read {warm(path):.1f} s")
    print(f"{os.cpu_count()} CPUs; OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}; "
          f"load average before: {os.getloadavg()[0]:.2f}\n")

    plan = [  # (file, task, BLAS threads: None = the machine's default)
        (big, "floor float32", None),
        (big, "report float32", None),
        (big, "report float32, 1 pass", None),
        (big, "floor float32 + projections", None),
        (big, "floor float64", None),
        (big, "report float64", None),
        (big, "floor float32", 1),
        (big, "report float32", 1),
        (small, "floor float32", None),
        (small, "report float32", None),
        (small, "floor float32", 1),
        (small, "report float32", 1),
        (small, "imports only", None),
    ]
    results: dict[tuple, list[dict]] = {key: [] for key in plan}
    for _ in range(args.repeat):  # rounds: each report runs right after its floor, under the same load
        for path, name, threads in plan:
            results[path, name, threads].append(run(name, path, threads))
    exact = run("exact in memory", small)

    rows_of = {big: args.rows, small: args.small_rows}
    print(f"median of {args.repeat} rounds; a ratio is taken within each round, then its median is shown")
    print(f"{'rows':>10s}  {'task':24s} {'seconds':>8s} {'(all runs)':>20s} {'CPU s':>7s} "
          f"{'peak MB':>8s} {'(VmHWM)':>8s} {'/ floor32':>9s} {'/ floor64':>9s} {'load':>5s}")
    ratios: dict[tuple, dict[str, float]] = {}
    for key in plan:
        path, name, threads = key
        runs = results[key]
        ratios[key] = {}
        for floor in ("floor float32", "floor float64"):
            reference = results.get((path, floor, threads))
            if reference and name != "imports only":
                ratios[key][floor] = statistics.median(a["seconds"] / b["seconds"] for a, b in zip(runs, reference))
        cells = [f"{ratios[key][f]:.2f}" if f in ratios[key] else "" for f in ("floor float32", "floor float64")]
        label = name + (", 1 thread" if threads == 1 else "")
        every = ", ".join(f"{r['seconds']:.1f}" for r in runs)
        print(f"{rows_of[path]:>10,}  {label:24s} {statistics.median(r['seconds'] for r in runs):8.2f} {every:>20s} "
              f"{statistics.median(r['cpu'] for r in runs):7.1f} {max(r['peak_mb'] for r in runs):8.0f} "
              f"{max(r['hwm_mb'] for r in runs):8.0f} {cells[0]:>9s} {cells[1]:>9s} "
              f"{statistics.mean(r['load'] for r in runs):5.2f}")

    key = (big, "report float32", None)
    peak = max(r["peak_mb"] for r in results[key])
    ratio = ratios[key]["floor float32"]
    single = results[big, "report float32", 1], results[big, "floor float32", 1]
    cpu_ratio = statistics.median(a["cpu"] / b["cpu"] for a, b in zip(*single))
    print(f"\ntargets, float32 report against the float32 floor: peak {peak:.0f} MB "
          f"(<= {TARGET_MB:.0f}: {'met' if peak <= TARGET_MB else 'MISSED'}), time ratio {ratio:.2f} "
          f"(<= {TARGET_RATIO}: {'met' if ratio <= TARGET_RATIO else 'MISSED'}); with one BLAS thread the CPU-time "
          f"ratio, which other work on the machine disturbs least, is {cpu_ratio:.2f}")
    least = ratios[big, "floor float32 + projections", None]["floor float32"]
    print(f"the least any exact two-pass report can do (the floor, then every row on all {args.dims} eigenvectors): "
          f"{least:.2f} x the floor; the report's time beyond that: {ratio / least:.2f} x")
    for name in ("floor float32", "report float32"):
        wall = [statistics.median(r["seconds"] for r in results[path, name, None]) for path in (big, small)]
        cpu = [statistics.median(r["cpu"] for r in results[path, name, 1]) for path in (big, small)]
        print(f"growth from {args.small_rows:,} to {args.rows:,} rows ({args.rows / args.small_rows:.0f}x): "
              f"{name} x{wall[0] / wall[1]:.1f} in seconds, x{cpu[0] / cpu[1]:.1f} in one-thread CPU seconds")

    first = {key: results[key][0] for key in plan}  # the meters do not depend on the round
    print("\nagreement at the printed three decimals (uniformity: the same sampled rows in both reports):")
    print(f"{'':26s}" + "".join(f"{m:>19s}" for m in METERS))
    lines = [
        (f"{args.rows:,} float32 report", first[big, "report float32", None]["meters"]),
        (f"{args.rows:,} float64 report", first[big, "report float64", None]["meters"]),
        (f"{args.small_rows:,} float32 report", first[small, "report float32", None]["meters"]),
        (f"{args.small_rows:,} exact in memory", exact["meters"]),
    ]
    for label, meters in lines:
        print(f"{label:26s}" + "".join(f"{meters.get(m, float('nan')):>19.3f}" for m in METERS))
    for (label_a, a), (label_b, b) in ((lines[0], lines[1]), (lines[2], lines[3])):
        same = all(f"{a[m]:.3f}" == f"{b[m]:.3f}" for m in b)
        worst = max(abs(a[m] - b[m]) / max(abs(b[m]), 1e-300) for m in b)
        print(f"{label_a} vs {label_b}: {'equal' if same else 'DIFFERENT'} at three decimals; "
              f"largest relative difference {worst:.1e}")
    print(f"\nthe float32 report on {args.rows:,} rows, as printed:\n{first[big, 'report float32', None]['table']}")
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
