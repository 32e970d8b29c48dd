"""Notebook 09's exercises: the worked solutions pass, and the checks recognise the usual mistakes."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from shared.exercises import Exercise, Implementation
from shared.exercises_decoder import EXERCISES, check, verdict

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = (ROOT / "notebooks" / "SOLUTIONS.md").read_text()
BLOCKS = dict(re.findall(r"### (\d\d\.\d)[^\n]*\n.*?```python\n(.*?)```", SOLUTIONS, re.S))


def solution(exercise: str) -> object:
    namespace: dict = {}
    exec(BLOCKS[exercise], namespace)  # noqa: S102 - the course's own solutions file
    ex = EXERCISES[exercise]
    return namespace[ex.name] if isinstance(ex, Implementation) else namespace["answer"]


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_worked_solution_passes_its_check(exercise, capsys):
    assert exercise.startswith("09.")
    answer = solution(exercise)
    assert verdict(exercise, answer)[0] is True, verdict(exercise, answer)[1]
    check(exercise, answer)
    assert capsys.readouterr().out.startswith(f"Exercise {exercise}: right.")


@pytest.mark.parametrize("exercise", [e for e, ex in sorted(EXERCISES.items()) if isinstance(ex, Exercise)])
def test_a_wrong_choice_gets_a_hint(exercise):
    ex = EXERCISES[exercise]
    wrong = next(c for c in ex.choices if c != ex.reference())
    ok, out = verdict(exercise, wrong)
    assert not ok and "not yet. Hint:" in out
    assert "not answered yet" in verdict(exercise, None)[1]


def _stub(x, gain, eps):
    raise NotImplementedError


def test_an_untouched_stub_and_a_number_are_refused():
    assert "not implemented yet" in verdict("09.1", _stub)[1]
    assert "pass your function itself" in verdict("09.1", 3.0)[1]


MISTAKES = list(EXERCISES["09.1"].mistakes)


@pytest.mark.parametrize("mistake", MISTAKES, ids=[m[:40] for m in MISTAKES])
def test_a_typical_mistake_gets_its_own_message(mistake):
    impl = EXERCISES["09.1"]
    ok, out = verdict("09.1", impl.mistakes[mistake])
    assert not ok
    assert f"Likely mistake: {mistake}." in out, out


def test_cases_are_well_defined_and_the_reference_is_the_decoders():
    from shared.decoder import rms_norm

    for description, kwargs in EXERCISES["09.1"].cases():
        want = rms_norm(**kwargs)
        assert np.all(np.isfinite(want)), description
        assert np.array_equal(EXERCISES["09.1"].reference(**kwargs), want)


def test_unknown_exercise():
    with pytest.raises(ValueError, match="unknown exercise"):
        check("09.9", 1)
