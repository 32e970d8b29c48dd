"""How long the README's test command takes, and how its two workers share the work.

Run with ``uv run python benchmarks/suite.py`` on a quiet machine. It runs ``uv run pytest`` (the
default suite: two worker processes, the long ``exhaustive`` and ``e2e`` suites left out) with
``-v --durations=0``, then prints the wall time against the course's target (three minutes on two
cores), the time each worker spent in tests, and the test files and notebooks that took longest.
Collection time is printed by pytest itself at the start of its output.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 180.0  # seconds, on two cores


def main() -> int:
    start = time.perf_counter()
    done = subprocess.run(["uv", "run", "pytest", "-v", "--durations=0"],
                          cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    lines = done.stdout.splitlines()
    worker: dict[str, str] = {}
    for line in lines:
        if m := re.match(r"\[(gw\d+)\] \[\s*\d+%\] \w+ (.+?)\s*$", line):
            # -v prints a notebook cell as "notebooks/x::ipynb::Cell 3", --durations as "notebooks/x.ipynb::Cell 3"
            worker[m.group(2).replace("::ipynb", ".ipynb")] = m.group(1)
    per_worker: Counter[str] = Counter()
    per_file: Counter[str] = Counter()
    for line in lines:
        if (m := re.match(r"\s*([\d.]+)s (?:call|setup|teardown)\s+(.+?)\s*$", line)) and m.group(2) in worker:
            per_worker[worker[m.group(2)]] += float(m.group(1))
            per_file[m.group(2).split("::", 1)[0]] += float(m.group(1))
    print(lines[-1] if lines else done.stderr[-2000:])
    for line in lines:
        if line.startswith(("FAILED", "ERROR")):
            print(line)
    print(f"wall time {wall:.0f} s (target {TARGET:.0f} s on two cores): {'met' if wall <= TARGET else 'MISSED'}")
    for name, seconds in sorted(per_worker.items()):
        print(f"  {name}: {seconds:.0f} s in tests")
    print("slowest files:")
    for path, seconds in per_file.most_common(8):
        print(f"  {seconds:6.1f} s  {path}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
