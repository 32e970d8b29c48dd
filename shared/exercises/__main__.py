"""``python -m shared.exercises solutions > notebooks/SOLUTIONS.md``: the worked solutions, made from the
exercises' homes (``shared/exercises/nbNN.py``), written to standard output."""

from __future__ import annotations

import sys

from . import worked_solutions

if __name__ == "__main__":
    if sys.argv[1:] != ["solutions"]:
        raise SystemExit("usage: python -m shared.exercises solutions > notebooks/SOLUTIONS.md")
    sys.stdout.reconfigure(encoding="utf-8", newline="\n")
    sys.stdout.write(worked_solutions())
