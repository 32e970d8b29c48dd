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
``solution("01.1")``, which reads it from ``notebooks/SOLUTIONS.md`` (its one home) and shows it
folded, opened by a click. Each notebook's exercise cells carry that call commented out, so
running the notebook never shows it, and a build of graded homework can drop the line.

The machinery is in :mod:`shared.exercises.common`; each notebook's exercises are in their own
module, ``nb01`` .. ``nb09``, as a dict ``EXERCISES``. A new notebook's exercises are one new module
``nbNN.py``: every module of this package whose name is ``nb`` and two digits is collected.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from dataclasses import dataclass
from pathlib import Path

from .common import HINTS_SHOWN, Exercise, Implementation, check_with, verdict_of

#: The worked solutions, one section ``### NN.K · Kind`` per exercise.
SOLUTIONS = Path(__file__).resolve().parents[2] / "notebooks" / "SOLUTIONS.md"


def _collect() -> dict[str, Exercise | Implementation]:
    found: dict[str, Exercise | Implementation] = {}
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__) if re.fullmatch(r"nb\d\d", m.name)):
        exercises = importlib.import_module(f"{__name__}.{module}").EXERCISES
        if not all(key.startswith(module[2:] + ".") for key in exercises):
            raise ValueError(f"shared.exercises.{module}: every exercise number must start with {module[2:]}.")
        found.update(exercises)
    return dict(sorted(found.items()))


#: Every exercise of the course by number ("01.1", ...), from the modules nb01, nb02, ...
EXERCISES: dict[str, Exercise | Implementation] = _collect()
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


@dataclass(frozen=True, repr=False)
class WorkedSolution:
    """One exercise's worked solution as ``notebooks/SOLUTIONS.md`` states it: shown folded in a
    notebook (a ``<details>`` element, opened by a click), as plain text elsewhere."""

    exercise: str
    text: str

    def _repr_markdown_(self) -> str:
        return (f"<details><summary>Worked solution {self.exercise} (click to open; try the exercise "
                f"first)</summary>\n\n{self.text}\n\n</details>")

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:  # a console without markdown shows the text itself
        return self.text


def solution(exercise: str) -> WorkedSolution:
    """The worked solution of ``exercise`` (``"01.1"``, ...), read from ``notebooks/SOLUTIONS.md``:
    its heading, the question, the code and why it is right."""
    if not isinstance(exercise, str) or exercise not in EXERCISES:
        raise ValueError(f"exercise: unknown exercise {exercise!r}; known: {', '.join(EXERCISES)}")
    if not SOLUTIONS.is_file():
        raise ValueError(f"exercise: the worked solutions are not part of this copy of the course ({SOLUTIONS})")
    text = SOLUTIONS.read_text(encoding="utf-8")
    found = re.search(rf"^### {re.escape(exercise)} · .*?(?=^#{{1,3}} |\Z)", text, re.M | re.S)
    if found is None:
        raise ValueError(f"exercise: {SOLUTIONS.name} has no section '### {exercise} · ...'")
    return WorkedSolution(exercise, found.group(0).strip())


__all__ = ["EXERCISES", "HINTS_SHOWN", "IMPLEMENTATIONS", "Exercise", "Implementation", "WorkedSolution", "check",
           "solution", "verdict"]
