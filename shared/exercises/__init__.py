"""Exercises that check themselves: ``check("01.1", answer)`` prints a verdict.

Two kinds. An :class:`Exercise` asks for a number or a choice and knows its reference answer, a
tolerance and hints that point at the idea to revisit rather than at the answer. An
:class:`Implementation` asks the learner to *write* a function: ``check("01.2", my_effective_rank)``
runs it on a set of named cases (random clouds and edge cases), compares each result with the
toolkit's, and when one differs says which case, what was expected, and, if the result matches
a typical mistake (forgetting to centre, softmax over the wrong axis, ...), which one. An
untouched stub (one that raises ``NotImplementedError``) prints that it is not implemented yet.

Hints come in steps, and ``check`` shows one more step per wrong try of that exercise: first the
idea (which quantity to compute and why), then the detail that usually goes wrong (an axis, a
shape, a scaling), and only from the third try of a function something close to code. A right
answer starts the steps again. A recognised mistake gets its diagnosis instead of a hint step.
Worked solutions are in ``notebooks/SOLUTIONS.md``.

The machinery is in :mod:`shared.exercises.common`; each notebook's exercises are in their own
module, ``nb01`` .. ``nb09``, as a dict ``EXERCISES``. A new notebook's exercises are one new module
``nbNN.py``: every module of this package whose name is ``nb`` and two digits is collected.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

from .common import HINTS_SHOWN, Exercise, Implementation, check_with, verdict_of


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


__all__ = ["EXERCISES", "HINTS_SHOWN", "IMPLEMENTATIONS", "Exercise", "Implementation", "check", "verdict"]
