"""Exercises that check themselves: ``check("01.1", answer)`` prints a verdict.

Two kinds. An :class:`Exercise` asks for a number or a choice and knows its reference answer, a
tolerance and hints that point at the idea to revisit rather than at the answer. An
:class:`Implementation` asks the learner to *write* a function: ``check("01.1", my_effective_rank)``
runs it on a set of named cases (random clouds and edge cases), compares each result with the
toolkit's, and when one differs says which case, what was expected, and, if the result matches
a typical mistake (forgetting to centre, softmax over the wrong axis, ...), which one. An
untouched stub (one that raises ``NotImplementedError``) prints that it is not implemented yet.

Hints come in steps, and ``check`` shows one more step per wrong try of that exercise: first the
idea (which quantity to compute and why), then one step of reasoning toward the detail that usually
goes wrong (an axis, a shape, a scaling), and from the third try of a function a skeleton of the code with blanks to
fill, whose blanks are the learner's decisions. A right answer starts the steps again. A recognised
mistake gets its diagnosis (and its id, for the record) instead of a hint step. A function that hands
the work to the toolkit's own (``effective_rank``, ``mean_cosine``, ...) is told to write it itself,
with what was seen: a call the check can read in its code, or the toolkit's code running inside it
however it was reached (:mod:`shared.exercises.watch`); matching the reference by calling it proves
nothing.

No hint is the answer. The worked solution is shown only when asked for, by
``solution("01.1")``, which shows it folded, opened by a click. Each notebook's exercise cells carry
that call commented out, so running the notebook never shows it, and a build of graded homework can
drop the line.

The machinery is in :mod:`shared.exercises.common`; each notebook's exercises are in their own
module, ``nb01`` .. ``nb09``, the one home of each exercise: as a dict ``EXERCISES``, each entry
holds its reference, its cases, the cases graded homework adds (``hidden_cases``, public code; only
their seed is secret), its mistakes, its hints and its worked solution (``worked``); the module also
holds the notebook's ``TITLE`` and the answers to its "Try this." prompts (``TRY_THIS``).
``notebooks/SOLUTIONS.md`` and the graded homework (``scripts/make_assignments.py``) are made from
them: ``python -m shared.exercises solutions > notebooks/SOLUTIONS.md``. A new notebook's exercises
are one new module ``nbNN.py``: every module of this package whose name is ``nb`` and two digits is
collected.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path
from types import ModuleType

import numpy as np

from .common import HINTS_SHOWN, Exercise, Implementation, check_with, verdict_of
from .worked import Worked, WorkedSolution, document, section

#: The course's worked solutions, as ``python -m shared.exercises solutions`` writes them.
SOLUTIONS = Path(__file__).resolve().parents[2] / "notebooks" / "SOLUTIONS.md"


def _collect() -> tuple[dict[str, Exercise | Implementation], dict[str, ModuleType]]:
    found: dict[str, Exercise | Implementation] = {}
    modules: dict[str, ModuleType] = {}
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__) if re.fullmatch(r"nb\d\d", m.name)):
        modules[module[2:]] = importlib.import_module(f"{__name__}.{module}")
        exercises = modules[module[2:]].EXERCISES
        if not all(key.startswith(module[2:] + ".") for key in exercises):
            raise ValueError(f"shared.exercises.{module}: every exercise number must start with {module[2:]}.")
        found.update(exercises)
    return dict(sorted(found.items())), modules


#: Every exercise of the course by number ("01.1", ...), from the modules nb01, nb02, ...; and those
#: modules by notebook ("01", ...).
EXERCISES, NOTEBOOKS = _collect()
#: The exercises answered by writing a function.
IMPLEMENTATIONS: dict[str, Implementation] = {k: v for k, v in EXERCISES.items() if isinstance(v, Implementation)}


def verdict(exercise: str, answer: object, tries: int = 0) -> tuple[bool, str]:
    """Whether ``answer`` to ``exercise`` (``"01.1"``, ...) is right, and what to tell the learner
    (hint step ``tries + 1`` if it is wrong)."""
    return verdict_of(EXERCISES, exercise, answer, tries)


def check(exercise: str, answer: object) -> None:
    """Print the verdict on ``answer`` to ``exercise``: right, or what to revisit (one more hint step
    per wrong try)."""
    check_with(EXERCISES, exercise, answer)


def hidden_cases(exercise: str, seed: int) -> list[tuple[str, dict]]:
    """The cases of the implement-it ``exercise`` that the class never sees, drawn by its home's
    ``hidden_cases`` with the course's secret ``seed`` (and the exercise's number)."""
    impl = IMPLEMENTATIONS.get(exercise) if isinstance(exercise, str) else None
    if impl is None or impl.hidden_cases is None:
        raise ValueError(f"exercise: {exercise!r} has no hidden cases; these do: "
                         f"{', '.join(k for k, v in IMPLEMENTATIONS.items() if v.hidden_cases)}")
    return impl.hidden_cases(np.random.default_rng([seed, int(exercise[:2]), int(exercise[3:])]))


def solution(exercise: str) -> WorkedSolution:
    """The worked solution of ``exercise`` (``"01.1"``, ...): its heading, the question, the code and
    why it is right."""
    if not isinstance(exercise, str) or exercise not in EXERCISES:
        raise ValueError(f"exercise: unknown exercise {exercise!r}; known: {', '.join(EXERCISES)}")
    return WorkedSolution(exercise, section(exercise, EXERCISES[exercise]))


def worked_solutions() -> str:
    """``notebooks/SOLUTIONS.md``, made from the exercises' homes: every exercise's worked solution by
    notebook, then each notebook's answers to its "Try this." prompts."""
    return document(EXERCISES, NOTEBOOKS)


__all__ = ["EXERCISES", "HINTS_SHOWN", "IMPLEMENTATIONS", "NOTEBOOKS", "Exercise", "Implementation", "Worked",
           "WorkedSolution", "check", "hidden_cases", "solution", "verdict", "worked_solutions"]
