"""The exercises: every worked solution passes its check, and the checks say useful things."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shared.exercises import EXERCISES, check, verdict

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = (ROOT / "notebooks" / "SOLUTIONS.md").read_text()
BLOCKS = dict(re.findall(r"### (\d\d\.\d)[^\n]*\n.*?```python\n(.*?)```", SOLUTIONS, re.S))


def test_every_exercise_has_one_worked_solution():
    assert sorted(BLOCKS) == sorted(EXERCISES)


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_worked_solution_passes_its_check(exercise, capsys):
    namespace: dict = {}
    exec(BLOCKS[exercise], namespace)  # noqa: S102 - the course's own solutions file
    assert verdict(exercise, namespace["answer"])[0] is True
    check(exercise, namespace["answer"])
    assert capsys.readouterr().out.startswith(f"Exercise {exercise}: right.")


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_unanswered_and_wrong_answers_get_a_hint_not_the_answer(exercise, capsys):
    check(exercise, None)
    assert "not answered yet" in capsys.readouterr().out
    ex = EXERCISES[exercise]
    wrong = next(c for c in ex.choices if c != ex.reference()) if ex.choices else float(ex.reference()) * 3 + 5
    ok, out = verdict(exercise, wrong)
    assert not ok
    assert "not yet. Hint:" in out
    if not ex.choices:
        assert f"{ex.reference()}" not in out, "the hint must not give the answer away"


def test_answers_of_the_wrong_kind():
    assert verdict("01.3", "d") == (False, "Exercise 01.3: answer with one of a, b, c.")
    assert verdict("01.1", "ten") == (False, "Exercise 01.1: answer with a number.")
    assert verdict("01.1", True)[0] is False
    assert verdict("01.3", " (C) ")[0] is True


def test_unknown_exercise():
    with pytest.raises(ValueError, match="unknown exercise"):
        check("99.9", 1)


@pytest.mark.parametrize("notebook", sorted((ROOT / "notebooks").glob("0*.py")), ids=lambda p: p.stem[:2])
def test_each_notebook_ends_with_two_to_four_unanswered_exercises(notebook):
    text = notebook.read_text()
    asked = re.findall(r'check\("(\d\d\.\d)", answer\)', text)
    assert 2 <= len(asked) <= 4
    assert all(ex.startswith(notebook.stem[:2]) and ex in EXERCISES for ex in asked)
    assert text.count("answer = None") == len(asked), "stored exercise cells hold the unanswered stub"
    assert text.index("## Exercises") > text.index("explore(")
