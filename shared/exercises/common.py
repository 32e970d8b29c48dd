"""The machinery of the self-checking exercises: the two kinds (:class:`Exercise`,
:class:`Implementation`) and the verdicts (the clouds that several notebooks' checks share are in
:mod:`shared.exercises.clouds`). What each kind checks is described in :mod:`shared.exercises`; the exercises themselves are
in ``nb01`` .. ``nb09``.
"""

from __future__ import annotations

import decimal
import dis
import functools
import inspect
import math
import numbers
import re
import types
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from .watch import ran_message, toolkit_ran
from .worked import KINDS, Worked, check_worked


#: A blank in a code skeleton, for the learner to fill.
BLANK = "____"


#: A mistake's id: stable across rewordings of what the check says about it.
MISTAKE_ID = re.compile(r"[a-z][a-z0-9_]{0,47}")


class Mistake(NamedTuple):
    """A typical mistake: what the check says when an answer looks like it, and its model (the wrong
    number, or a function that makes the mistake)."""

    says: str
    model: object


def _check_hints(hints: object, least: int) -> None:
    if not isinstance(hints, tuple) or len(hints) < least or not all(isinstance(h, str) and h for h in hints):
        raise ValueError(f"hints: expected a tuple of at least {least} non-empty steps, got {hints!r}")


def _check_mistakes(owner: object, kind: type | tuple[type, ...]) -> None:
    """Make ``owner.mistakes`` a dict of :class:`Mistake` by id, refusing a bad id or model."""
    mistakes = {}
    for key, value in dict(owner.mistakes).items():
        if not isinstance(key, str) or not MISTAKE_ID.fullmatch(key):
            raise ValueError(f"mistakes: {key!r} is not an id ({MISTAKE_ID.pattern})")
        if not (isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str) and value[0]
                and isinstance(value[1], kind)):
            raise ValueError(f"mistakes: {key} should be (what the check says, its model), got {value!r}")
        mistakes[key] = Mistake(*value)
    object.__setattr__(owner, "mistakes", mistakes)


@dataclass(frozen=True)
class Exercise:
    """An exercise answered by a number or a choice: its reference answer, how close is close
    enough, and what to say. The question itself is asked in the notebook (and restated in its
    worked solution, ``worked``). ``hints`` are steps, one more shown per wrong try: first the idea
    to revisit, then where to look; none of them states the answer."""

    reference: Callable[[], float | str]
    right: str
    hints: tuple[str, ...]
    rel_tol: float = 0.02
    abs_tol: float = 0.0
    choices: tuple[str, ...] = ()
    #: Typical wrong numbers by id: (what the check says, the number). An answer within the tolerance
    #: of one of them is told which mistake it looks like (the tolerance must reject every one).
    mistakes: Mapping[str, Mistake] = field(default_factory=dict)
    #: Its kind (one of ``KINDS``) and worked solution (:mod:`shared.exercises.worked`), which every
    #: exercise of the course has.
    kind: str = "Explain"
    worked: Worked | None = None

    def __post_init__(self) -> None:
        _check_hints(self.hints, 2)
        check_worked(self.worked, self.kind, KINDS)
        _check_mistakes(self, (int, float))
        if not self.choices:
            for mistake, (_, value) in self.mistakes.items():
                if math.isclose(value, float(self.reference()), rel_tol=self.rel_tol, abs_tol=self.abs_tol):
                    raise ValueError(f"mistakes: {value!r} ({mistake}) is within the tolerance of the answer")


@dataclass(frozen=True)
class Implementation:
    """An exercise answered by a function named ``name``, checked against ``reference`` on ``cases``.

    ``cases()`` gives (description, keyword arguments) pairs; ``mistakes`` maps a typical mistake's
    id to (what the check says, a function that makes it), so a wrong result can be recognised. A
    mistake whose result depends on an arbitrary choice of the learner's (which matrix went into an
    eigensolver, whose eigenvector signs follow from it, which eps) returns a list of the possible
    results; matching any of them counts.
    """

    name: str
    reference: Callable[..., object]
    cases: Callable[[], list[tuple[str, dict]]]
    mistakes: dict[str, Mistake]
    right: str
    #: Steps, one more shown per wrong try: the idea (which quantity to compute and why, in words),
    #: then the detail that usually goes wrong (axis, shape, scaling), and last a skeleton of the
    #: code with blanks (``____``) to fill, never the whole solution (that is ``solution(...)``).
    hints: tuple[str, str, str]
    rtol: float = 1e-6
    #: What to say when the function returns NaN or inf where the toolkit does not, for exercises
    #: where a likely cause is known (an exp that overflows); empty where it is not.
    nonfinite: str = ""
    #: The toolkit's functions that compute this exercise's answer, by dotted name. While the learner's
    #: function runs, any code of their modules that executes, however it was reached (a name, a module
    #: looked up at run time, getattr, a table, a callable object, a wrapper), or their source executed
    #: again, is reported: see :func:`shared.exercises.watch.toolkit_ran`.
    toolkit: tuple[str, ...] = ()
    #: numpy and scipy functions that do (part of) this exercise's work, by dotted name, with what to
    #: say when one runs inside the learner's function; an empty text means it is accepted.
    libraries: Mapping[str, str] = field(default_factory=dict)
    #: The cases graded homework adds, which the class never sees (other sizes, seeds, edge cases): public
    #: code drawing from a generator seeded by the course's secret seed (:func:`shared.exercises.hidden_cases`).
    hidden_cases: Callable[[np.random.Generator], list[tuple[str, dict]]] | None = None
    worked: Worked | None = None  # its worked solution, as for an Exercise
    kind = "Implement"

    def __post_init__(self) -> None:
        _check_hints(self.hints, 3)
        check_worked(self.worked, self.kind, (self.kind,))
        _check_mistakes(self, Callable)
        if BLANK not in self.hints[-1]:
            raise ValueError(f"hints: the last step must be a skeleton with blanks ({BLANK}), got {self.hints[-1]!r}")


# ----- verdicts -------------------------------------------------------------------------------------


def _as_number(answer: object) -> float | None:
    """``answer`` as a float if it is a real number (an int, a float, a numpy scalar, a 0-d array, a
    Decimal or a Fraction); ``None`` otherwise."""
    if isinstance(answer, np.ndarray) and answer.ndim == 0:
        answer = answer[()]
    if isinstance(answer, (bool, np.bool_)):
        return None
    if isinstance(answer, (numbers.Real, decimal.Decimal, Fraction)):
        value = float(answer)
        return value if math.isfinite(value) else None
    return None


#: A letter answer however the option is typed: "b", "B", "(b)", "b)", "b.", "(b) adding ...", "b) adding ...".
LETTER = re.compile(r"\(\s*([a-z])\s*\)\.?(?:\s.*)?|([a-z])(?:\s*[).:](?:\s.*)?)?", re.S | re.I)


def chosen_letter(answer: object) -> str | None:
    """The option letter ``answer`` names, lower case, or ``None``: a letter alone (in brackets, with a
    full stop or a closing bracket, in quotes, any case) or followed by the option's words, as in
    "(b) adding ..." or "b) adding ...". A letter must stand apart ("a shared offset" names none)."""
    if not isinstance(answer, str):
        return None
    text = answer.strip().strip("\"'`").strip()
    found = LETTER.fullmatch(text)
    if found is None or len(re.findall(r"\(\s*[a-z]\s*\)", text, re.I)) > 1:  # "(a) or (b)" names two
        return None
    return (found.group(1) or found.group(2)).lower()


def _looks_like_a_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Verdict:
    """Whether an answer is right, what to tell the learner, and whether that included a hint step."""

    ok: bool
    text: str
    hinted: bool = False
    #: The id of the mistake the answer was recognised as, if any.
    mistake: str = ""


def _hint(hints: tuple[str, ...], tries: int) -> str:
    """The hint step for a learner who has had ``tries`` hints on this exercise already."""
    step = min(tries, len(hints) - 1)
    return f"Hint {step + 1} of {len(hints)}: {hints[step]}"


def _answer_verdict(exercise: str, ex: Exercise, answer: object, tries: int) -> Verdict:
    expected = ex.reference()
    if ex.choices:
        given = chosen_letter(answer)
        if given not in ex.choices:
            return Verdict(False, f"Exercise {exercise}: answer with one of {', '.join(ex.choices)} (the letter of "
                           "the option).")
        ok = given == expected
    else:
        value = _as_number(answer)
        if value is None:
            if isinstance(answer, str) and _looks_like_a_number(answer.strip()):
                return Verdict(False, f"Exercise {exercise}: {answer!r} is text; remove the quotes so that the "
                               "answer is a number.")
            return Verdict(False, f"Exercise {exercise}: answer with a number.")
        ok = math.isclose(value, float(expected), rel_tol=ex.rel_tol, abs_tol=ex.abs_tol)
        if not ok:
            for mistake, (says, wrong) in ex.mistakes.items():
                if math.isclose(value, wrong, rel_tol=ex.rel_tol, abs_tol=ex.abs_tol):
                    return Verdict(False, f"Exercise {exercise}: not yet. Likely mistake: {says}.", mistake=mistake)
    if ok:
        return Verdict(True, f"Exercise {exercise}: right. {ex.right}")
    return Verdict(False, f"Exercise {exercise}: not yet. {_hint(ex.hints, tries)}", hinted=True)


def _close(got: object, want: object, rtol: float) -> bool:
    try:
        got_arr = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return False
    want_arr = np.asarray(want, dtype=float)
    if got_arr.shape != want_arr.shape:
        return False
    scale = max(1.0, float(np.max(np.abs(want_arr), initial=0.0)))
    return bool(np.all(np.isfinite(got_arr)) and np.allclose(got_arr, want_arr, rtol=rtol, atol=rtol * scale))


def _numeric(value: object) -> np.ndarray | None:
    """``value`` as a float array, or ``None`` if it is not numbers."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None


def _show(value: object) -> str:
    arr = _numeric(value)
    if arr is None:
        return f"a {type(value).__name__}, not numbers"
    if arr.ndim == 0:
        return f"{float(arr):.6g}"
    return f"an array of shape {arr.shape}"


def _where_it_differs(got: np.ndarray, want: np.ndarray, rtol: float) -> str:
    """Where an array of the right shape differs from the expected one, and by how much."""
    if got.ndim == 0:
        return f"returned {float(got):.6g}, expected {float(want):.6g}"
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    off = ~np.isclose(got, want, rtol=rtol, atol=rtol * scale)
    at = np.unravel_index(int(np.argmax(np.abs(got - want))), got.shape)
    where = at[0] if got.ndim == 1 else tuple(int(i) for i in at)
    return (f"returned an array of the right shape {got.shape}, but {int(off.sum())} of its {got.size} entries "
            f"differ from the toolkit's; the largest difference is at index {where}: {got[at]:.6g} instead of "
            f"{want[at]:.6g}")


def _is_toolkit(obj: object) -> bool:
    """Whether ``obj`` is a function, class or module of the course's toolkit (``shared``), other
    than the exercises' own machinery."""
    module = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None)
    if not isinstance(module, str):
        return False
    return (module == "shared" or module.startswith("shared.")) and not module.startswith("shared.exercises")


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    """``code`` and every code object nested in it (inner functions, lambdas, comprehensions)."""
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def toolkit_calls(fn: object) -> list[str]:
    """The names of the toolkit's functions and classes that ``fn`` refers to, sorted.

    Read from the code, not by running it: the global and closure names each code object loads
    (nested functions and lambdas included), resolved to the objects they name, so a learner's own
    function that happens to share a toolkit name is not one, and ``import shared`` followed by
    ``shared.meters.effective_rank`` is. Helpers the learner defined next to ``fn`` (same globals)
    are followed. Functions of ``shared.exercises`` (the checks' own models of mistakes) are not
    read.
    """
    found: set[str] = set()
    seen: set[int] = set()
    todo: list[object] = [fn]
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, functools.partial):
            todo += [obj.func, *obj.args, *obj.keywords.values()]
            continue
        if isinstance(obj, types.MethodType):
            todo.append(obj.__func__)
            continue
        if _is_toolkit(obj) and not isinstance(obj, types.ModuleType) and callable(obj):
            found.add(getattr(obj, "__name__", repr(obj)))
            continue
        if not isinstance(obj, types.FunctionType) or str(obj.__module__).startswith("shared.exercises"):
            continue
        todo += [*(obj.__defaults__ or ()), *(obj.__kwdefaults__ or {}).values()]  # def f(X, rank=effective_rank)
        closure = {}
        for name, cell in zip(obj.__code__.co_freevars, obj.__closure__ or ()):
            try:
                closure[name] = cell.cell_contents
            except ValueError:  # a cell not filled yet
                pass
        loaded, attributes = [], set()
        for code in _code_objects(obj.__code__):
            for instruction in dis.get_instructions(code):
                if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
                    loaded.append(obj.__globals__.get(instruction.argval))
                elif instruction.opname in ("LOAD_DEREF", "LOAD_CLASSDEREF") and instruction.argval in closure:
                    loaded.append(closure[instruction.argval])
                elif instruction.opname in ("LOAD_ATTR", "LOAD_METHOD", "IMPORT_FROM"):
                    attributes.add(instruction.argval)
        modules = [m for m in loaded if isinstance(m, types.ModuleType) and _is_toolkit(m)]
        while modules:  # shared.meters.effective_rank: follow attributes of toolkit modules
            module = modules.pop()
            for name in attributes:
                value = getattr(module, name, None)
                if isinstance(value, types.ModuleType) and _is_toolkit(value) and id(value) not in seen:
                    seen.add(id(value))
                    modules.append(value)
                elif value is not None:
                    loaded.append(value)
        for value in loaded:
            if _is_toolkit(value) or (isinstance(value, types.FunctionType) and value.__globals__ is obj.__globals__):
                todo.append(value)
            elif isinstance(value, functools.partial):
                todo.append(value)
    return sorted(found)


def _misnamed(impl: Implementation, fn: Callable, kwargs: dict) -> str | None:
    """What to say if ``fn`` cannot be called with the stub's parameter names, else ``None``."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a signature: let the call decide
        return None
    try:
        signature.bind(**kwargs)
    except TypeError:
        wanted = ", ".join(kwargs)
        given = ", ".join(str(p) for p in signature.parameters.values())
        return (f"Keep the names of the stub's parameters, {wanted}: the check calls "
                f"{impl.name}({', '.join(f'{k}=...' for k in kwargs)}), and yours is defined as "
                f"{impl.name}({given}). Rename them back and run the cell again.")
    return None


def _matches(got: object, wrong: object, rtol: float) -> bool:
    """Whether ``got`` is what a mistake gives: its result, or one of its possible results (a list)."""
    if isinstance(wrong, list):
        return any(_close(got, w, rtol) for w in wrong)
    return _close(got, wrong, rtol)


def _implementation_verdict(exercise: str, impl: Implementation, fn: object, tries: int) -> Verdict:
    hint = _hint(impl.hints, tries)
    if not callable(fn):
        return Verdict(False, f"Exercise {exercise}: pass your function itself, {impl.name}, not {type(fn).__name__}.")
    used = toolkit_calls(fn)
    if used:
        return Verdict(False, f"Exercise {exercise}: write it yourself. {impl.name} calls the toolkit's "
                       f"{' and '.join(used)}, which compute{'s' if len(used) == 1 else ''} the answer for you (the "
                       "check compares with the toolkit, so agreeing with it would prove nothing). Write the "
                       "computation with numpy; the toolkit stays for the notebook's demonstrations.")
    cases = impl.cases()
    misnamed = _misnamed(impl, fn, cases[0][1])
    if misnamed:
        return Verdict(False, f"Exercise {exercise}: not yet. {misnamed}")
    for description, kwargs in cases:
        inputs = {k: np.array(v, copy=True) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        got, seen = toolkit_ran(impl.toolkit, impl.libraries, fn, inputs)
        ran = ran_message(exercise, impl.name, impl.libraries, seen)
        if ran:
            return Verdict(False, ran)
        if isinstance(got, NotImplementedError):
            return Verdict(False, f"Exercise {exercise}: not implemented yet. Write the body of {impl.name} in "
                           "place of `raise NotImplementedError` and run the cell again.")
        if isinstance(got, Exception):  # the learner's code: report whatever it raised, by case
            return Verdict(False, f"Exercise {exercise}: not yet. On {description}, {impl.name} raised "
                           f"{type(got).__name__}: {got}. {hint}", hinted=True)
        if isinstance(got, BaseException):  # KeyboardInterrupt, SystemExit: not the check's to swallow
            raise got
        if any(isinstance(v, np.ndarray) and not np.array_equal(v, kwargs[k]) for k, v in inputs.items()):
            return Verdict(False, f"Exercise {exercise}: not yet. On {description}, {impl.name} changed its input "
                           "array in place; compute on a copy (X - m makes a new array, X -= m does not).")
        if got is None:
            return Verdict(False, f"Exercise {exercise}: not yet. On {description}, {impl.name} returned None: it "
                           "computes something but gives nothing back. End it with a return statement (return ...).")
        want = impl.reference(**kwargs)
        if _close(got, want, impl.rtol):
            continue
        arr = _numeric(got)
        if arr is None or arr.shape != np.shape(want):
            return Verdict(False, f"Exercise {exercise}: not yet. On {description}, {impl.name} returned "
                           f"{_show(got)}; expected {_show(want)}. {hint}", hinted=True)
        said = f"Exercise {exercise}: not yet. On {description}, {impl.name}"
        if not np.all(np.isfinite(arr)):
            bad = int(np.sum(~np.isfinite(arr)))
            return Verdict(False, f"{said} returned NaN or inf ({bad} of {arr.size} entries) where the toolkit's "
                           f"result is finite. {impl.nonfinite or 'Look for a division by zero, a log of zero or a square root of a negative number.'}")
        differs = _where_it_differs(arr, np.asarray(want, dtype=float), impl.rtol)
        with np.errstate(all="ignore"):  # a model of a mistake may divide by zero where the mistake does
            named = [mistake for mistake, (_, wrong) in impl.mistakes.items() if _matches(got, wrong(**kwargs), impl.rtol)]
        if named:  # a diagnosis, not a hint: it walks no step
            return Verdict(False, f"{said} {differs}. Likely mistake: {impl.mistakes[named[0]].says}.",
                           mistake=named[0])
        return Verdict(False, f"{said} {differs}. {hint}", hinted=True)
    return Verdict(True, f"Exercise {exercise}: right. It agrees with the toolkit on all {len(cases)} cases. {impl.right}")


#: How many hint steps each exercise has shown since its last right answer, by exercise number: the
#: state that makes :func:`check_with` show one more step per wrong try.
HINTS_SHOWN: dict[str, int] = {}


def verdict_of(exercises: Mapping[str, Exercise | Implementation], exercise: str, answer: object,
               tries: int = 0) -> tuple[bool, str]:
    """Whether ``answer`` to ``exercise`` (a key of ``exercises``) is right, and what to tell the learner.

    A wrong answer gets hint step ``tries + 1`` (the last step once ``tries`` reaches it); this
    function keeps no state, :func:`check_with` counts the tries.
    """
    found = _verdict(exercises, exercise, answer, tries)
    return found.ok, found.text


def _verdict(exercises: Mapping[str, Exercise | Implementation], exercise: str, answer: object,
             tries: int) -> Verdict:
    if not isinstance(exercise, str):
        raise TypeError(f"exercise: expected an exercise number such as '01.1', got {exercise!r}")
    if exercise not in exercises:
        raise ValueError(f"exercise: unknown exercise {exercise!r}; known: {', '.join(exercises)}")
    if isinstance(tries, bool) or not isinstance(tries, int) or tries < 0:
        raise ValueError(f"tries: expected a count of earlier hints (an integer >= 0), got {tries!r}")
    ex = exercises[exercise]
    if answer is None or answer is Ellipsis:
        what = "your function" if isinstance(ex, Implementation) else "your answer"
        return Verdict(False, f"Exercise {exercise}: not answered yet. Replace None with {what} and run the cell again.")
    if isinstance(ex, Implementation):
        return _implementation_verdict(exercise, ex, answer, tries)
    return _answer_verdict(exercise, ex, answer, tries)


def outcome_of(ex: Exercise | Implementation, found: Verdict) -> dict[str, str]:
    """What a verdict was, for the class view: ``{"outcome": "right"}``, a named mistake by its
    stable id (the key it is declared under, :attr:`Verdict.mistake`), the class of what the
    learner's function raised, or ``unrecognised``."""
    if found.ok:
        return {"outcome": "right"}
    if found.mistake in ex.mistakes:
        return {"outcome": "mistake", "mistake": found.mistake}
    raised = re.search(r" raised ([A-Za-z_][A-Za-z0-9_]{0,63}): ", found.text)
    if isinstance(ex, Implementation) and raised:
        return {"outcome": "error", "error": raised.group(1)}
    return {"outcome": "unrecognised"}


def _send_event(ex: Exercise | Implementation, exercise: str, found: Verdict) -> None:
    """One event per check for the class view (:mod:`shared.events`), unless the learner turned them off."""
    from shared import events

    if events.enabled():
        kind = "implementation" if isinstance(ex, Implementation) else "question"
        events.emit(exercise, kind, attempt=events.next_attempt(exercise), **outcome_of(ex, found))


def check_with(exercises: Mapping[str, Exercise | Implementation], exercise: str, answer: object) -> None:
    """Print the verdict on ``answer`` to ``exercise``: right, or what to revisit.

    Each wrong try that gets a hint shows the next step of the exercise's hints (the first try the
    idea, later tries more detail); a right answer starts the steps again from the first.
    """
    found = _verdict(exercises, exercise, answer, HINTS_SHOWN.get(exercise, 0))
    _send_event(exercises[exercise], exercise, found)
    if found.ok:
        HINTS_SHOWN.pop(exercise, None)
    elif found.hinted:
        HINTS_SHOWN[exercise] = HINTS_SHOWN.get(exercise, 0) + 1
    print(found.text)
