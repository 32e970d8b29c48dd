"""Run a notebook's code cells as a learner would, and keep what each cell displays.

Used by the tests (explorers driven through their sliders, figures that follow an edited data
cell). A cell "displays" the value of its last line when that
line is an expression, as in Jupyter. Cells run in one namespace, from the top, in a working
directory of the notebooks folder, and stop before the exercises.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import os
from collections.abc import Callable
from pathlib import Path

import jupytext

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"


def code_cells(stem: str) -> list[str]:
    """Sources of the code cells of ``notebooks/<stem>.py`` that come before its exercises."""
    cells = []
    for cell in jupytext.read(NOTEBOOKS / f"{stem}.py").cells:
        if cell.cell_type == "markdown" and "## Exercises" in cell.source:
            break
        if cell.cell_type == "code":
            cells.append(cell.source)
    return cells


def run(stem: str, edit: Callable[[str], str] | None = None) -> list[object]:
    """Execute the notebook's cells (each passed through ``edit`` first) and return what they display."""
    namespace: dict = {"__name__": "__notebook__"}
    shown: list[object] = []
    cwd = os.getcwd()
    os.chdir(NOTEBOOKS)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for source in code_cells(stem):
                tree = ast.parse(edit(source) if edit else source)
                last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
                body = tree.body[:-1] if last else tree.body
                exec(compile(ast.Module(body, []), stem, "exec"), namespace)  # noqa: S102 - the course's own notebooks
                if last is not None:
                    value = eval(compile(ast.Expression(last.value), stem, "eval"), namespace)  # noqa: S307
                    if value is not None:
                        shown.append(value)
    finally:
        os.chdir(cwd)
    return shown


@functools.lru_cache(maxsize=None)
def shown(stem: str) -> tuple[object, ...]:
    """What the notebook's cells display (:func:`run`), each view drawn once: run once per process and
    shared by the explorer and figure tests, which ``tests/sharing.py`` keeps on one worker."""
    values = tuple(run(stem))
    for value in values:
        if hasattr(value, "_repr_png_"):
            value._repr_png_()
    return values


def displayed_calls(stem: str, name: str) -> int:
    """How many code cells (before the exercises) display the value of a call to ``name``, read from
    the source without running it: what a test can be parametrised by at collection time."""
    count = 0
    for source in code_cells(stem):
        tree = ast.parse(source)
        last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        if last is not None and isinstance(last.value, ast.Call) and getattr(last.value.func, "id", None) == name:
            count += 1
    return count


def stems() -> list[str]:
    """The notebooks, by file name without extension."""
    return sorted(p.stem for p in NOTEBOOKS.glob("[0-9][0-9]_*.py"))
