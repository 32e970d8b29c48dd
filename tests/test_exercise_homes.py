"""One home per exercise: its module ``shared/exercises/nbNN.py`` holds its reference, cases, hidden cases,
mistakes, hints and worked solution, and everything else is made from there: ``notebooks/SOLUTIONS.md``,
``solution("NN.K")``, the graded homework's sources and the grader's hidden cases."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from shared.exercises import EXERCISES, NOTEBOOKS, SOLUTIONS, Exercise, Implementation, Worked, hidden_cases, solution
from shared.exercises import worked_solutions
from shared.exercises.worked import KINDS

ROOT = Path(__file__).resolve().parent.parent
REGENERATE = "uv run python -m shared.exercises solutions > notebooks/SOLUTIONS.md"


def test_solutions_md_is_what_the_exercises_homes_make():
    written = SOLUTIONS.read_text(encoding="utf-8")
    made = worked_solutions()
    if written != made:
        line = next(i for i, (a, b) in enumerate(zip(written.splitlines() + [""], made.splitlines() + [""])) if a != b)
        pytest.fail(f"notebooks/SOLUTIONS.md differs from its exercises' homes (shared/exercises/nbNN.py) from line "
                    f"{line + 1} on: edit the homes, then run `{REGENERATE}`")


def test_the_command_writes_the_solutions():
    out = subprocess.run([sys.executable, "-m", "shared.exercises", "solutions"], capture_output=True, check=True,
                         cwd=ROOT).stdout
    assert out.decode("utf-8") == worked_solutions()
    wrong = subprocess.run([sys.executable, "-m", "shared.exercises"], capture_output=True, text=True, cwd=ROOT)
    assert wrong.returncode != 0 and "solutions" in wrong.stderr


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_each_exercise_keeps_everything_in_its_notebooks_module(exercise):
    """Reference, cases, hidden cases, mistakes, hints and worked solution: all in the entry of its
    module ``nbNN``, and the code it runs defined there (or in the shared machinery, ``common``)."""
    ex, module = EXERCISES[exercise], NOTEBOOKS[exercise[:2]]
    assert module.EXERCISES[exercise] is ex
    assert isinstance(ex.worked, Worked) and all(ex.worked)
    assert ex.hints and ex.right
    home = (module.__name__, "shared.exercises.common")
    if isinstance(ex, Implementation):
        assert ex.kind == "Implement" and ex.mistakes and ex.hidden_cases is not None
        for part in (ex.cases, ex.hidden_cases, *(m.model for m in ex.mistakes.values())):
            assert part.__module__ in home, f"{exercise}: {part.__qualname__} is defined in {part.__module__}"
        assert f"def {ex.name}(" in ex.worked.code
    else:
        assert isinstance(ex, Exercise) and ex.kind in KINDS
        assert ex.reference.__module__ == module.__name__
        assert re.search(r"^answer = ", ex.worked.code, re.M)
    assert isinstance(module.TITLE, str) and module.TITLE and isinstance(module.TRY_THIS, str) and module.TRY_THIS


def test_solution_shows_the_section_its_home_makes():
    shown = str(solution("01.1"))
    assert shown.startswith("### 01.1 · Implement\n\n") and EXERCISES["01.1"].worked.code in shown
    assert shown in worked_solutions()
    with pytest.raises(ValueError, match="unknown exercise"):
        solution("01.9")


def test_the_hidden_cases_are_public_code_whose_seed_decides_the_data():
    ex = next(name for name, e in EXERCISES.items() if isinstance(e, Implementation))
    one, again, other = hidden_cases(ex, 7), hidden_cases(ex, 7), hidden_cases(ex, 8)
    assert [d for d, _ in one] == [d for d, _ in other]  # the descriptions are public
    first = lambda cases: np.concatenate([np.ravel(v) for _, kw in cases for v in kw.values()])  # noqa: E731
    assert np.array_equal(first(one), first(again)) and not np.array_equal(first(one), first(other))
    visible = {d for d, _ in EXERCISES[ex].cases()}
    assert not visible & {d for d, _ in one}, "a hidden case is named like one the class sees"
    with pytest.raises(ValueError, match="no hidden cases"):
        hidden_cases("01.2", 7)


#: Where exercise-specific material would be written a second time.
ELSEWHERE = ["classroom", "scripts", "benchmarks"]


def test_no_other_file_defines_an_exercises_cases_or_solutions():
    """The grader, the assignments and the benchmarks read the exercises from their homes: none of
    their files defines cases (a ``def`` whose name says cases, a table of them), names an exercise's
    number in code, or holds a line of a worked solution's code."""
    solution_lines = {line.strip() for ex in EXERCISES.values() for line in ex.worked.code.splitlines()
                      if len(line.strip()) > 12 and not line.startswith(("import ", "def "))}
    found = []
    for folder in ELSEWHERE:
        for path in sorted((ROOT / folder).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            where = path.relative_to(ROOT)
            found += [f"{where}: def {m}" for m in re.findall(r"^\s*def (\w*cases\w*)\(", text, re.M)]
            found += [f"{where}: a table of cases" for _ in re.findall(r"^[A-Z_]*CASES\w*\s*[:=]", text, re.M)]
            found += [f"{where}: {line}" for line in solution_lines if line in text]
            found += [f"{where}: exercise {m} in code" for m in re.findall(r"(?<![\w.])\"(\d\d\.\d)\":", text)]
    assert found == []

