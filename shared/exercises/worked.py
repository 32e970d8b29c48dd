"""The worked solutions: what each exercise's home holds of its solution (:class:`Worked`), how
``solution("NN.K")`` shows it, and ``notebooks/SOLUTIONS.md`` made from the homes (:func:`document`)."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import NamedTuple


class Worked(NamedTuple):
    """An exercise's worked solution, as ``solution("NN.K")`` shows it and ``notebooks/SOLUTIONS.md``
    prints it: the question as the notebook asks it, code that answers it (pasted into the exercise
    cell, it passes the check), and why that is right (the usual mistakes, what the numbers mean)."""

    question: str
    code: str
    why: str


#: The kinds of question an ``Exercise`` asks (an ``Implementation`` is "Implement").
KINDS = ("Predict", "Explain", "Compute")


def check_worked(worked: object, kind: object, kinds: tuple[str, ...]) -> None:
    """Refuse a worked solution that is not ``None`` or a :class:`Worked` of non-empty texts, and a
    ``kind`` not among ``kinds``."""
    if worked is not None and not (isinstance(worked, Worked) and all(isinstance(t, str) and t for t in worked)):
        raise ValueError(f"worked: expected Worked(question, code, why) of non-empty texts, got {worked!r}")
    if kind not in kinds:
        raise ValueError(f"kind: expected one of {', '.join(kinds)}, got {kind!r}")


@dataclass(frozen=True, repr=False)
class WorkedSolution:
    """One exercise's worked solution: shown folded in a notebook (a ``<details>`` element, opened by a
    click), as plain text elsewhere."""

    exercise: str
    text: str

    def _repr_markdown_(self) -> str:
        return (f"<details><summary>Worked solution {self.exercise} (click to open; try the exercise "
                f"first)</summary>\n\n{self.text}\n\n</details>")

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:  # a console without markdown shows the text itself
        return self.text


def section(exercise: str, ex: object) -> str:
    """The worked solution of ``exercise`` (its entry ``ex``): heading, question, code, why."""
    if ex.worked is None:
        raise ValueError(f"exercise: {exercise} has no worked solution in shared/exercises/nb{exercise[:2]}.py")
    question, code, why = ex.worked
    return f"### {exercise} · {ex.kind}\n\n{question}\n\n```python\n{code}```\n\n{why}"


#: The opening of the worked solutions, and of their second half, the answers to the "Try this." prompts.
OPENING = """\
# Worked solutions

Try each exercise in its notebook first: after a wrong try the check gives a hint without giving
the answer away, and one more step of it after each further wrong try (the idea first, then the
detail that usually goes wrong, and for a function last a skeleton of the code with blanks to
fill). In a notebook, `solution("01.1")` (commented out in each exercise cell) shows the section
below, folded, opened by a click. Each solution below is code you can paste into the exercise cell,
followed by why it is right. The test suite runs every block here and checks it passes its exercise.
"""
TRY_THIS_OPENING = """\
# Try this: what the explorers show

Every notebook ends its explorer with a few **Try this.** prompts. The answers below say what a
learner should see at each prompt's settings and why. Each one carries the calls behind its
figures: the explorer's function (or the toolkit functions its view reads) at the prompt's
settings, with what they print. The blocks of a notebook run in order, in one namespace, and the
test suite runs them (`tests/test_try_this.py`): a figure that drifts from what the explorer shows
fails it. To show a class the same numbers, paste a block into the notebook below its explorer.
"""


def document(exercises: dict[str, object], notebooks: dict[str, ModuleType]) -> str:
    """The text of ``notebooks/SOLUTIONS.md``: for each notebook (its module, by number), the worked
    solutions of its ``exercises``; then each notebook's answers to its "Try this." prompts."""
    parts = [OPENING]
    for nn, module in notebooks.items():
        parts.append(f"## {nn} · {module.TITLE}")
        parts += [section(name, ex) for name, ex in exercises.items() if name[:2] == nn]
    parts.append(TRY_THIS_OPENING)
    for nn, module in notebooks.items():
        parts.append(f"## Try this · {nn} · {module.TITLE}\n\n{module.TRY_THIS.rstrip()}")
    return "\n\n".join(part.rstrip("\n") for part in parts) + "\n"
