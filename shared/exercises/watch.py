"""What runs inside a learner's function: the watch behind the check's "write it yourself".

An implement-it exercise names the toolkit's functions that compute its answer. While the learner's
function runs, :func:`toolkit_ran` watches every Python function that starts (``sys.setprofile``,
and ``threading.setprofile`` for threads the function starts): code from the files of those toolkit
functions, however it was reached, code identical to theirs (their source executed again), a library
function the exercise names, or a call that would switch the watch off. :func:`ran_message` says what
was seen. The same verdict runs in class and in the graded test cells, so both refuse the same things.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
import threading
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass


def _code_print(code: types.CodeType) -> tuple:
    """What identifies a function's code whatever file or line it was compiled at: its bytecode, names
    and constants (nested code by its own print)."""
    consts = tuple(_code_print(c) if isinstance(c, types.CodeType) else repr(c) for c in code.co_consts)
    return (code.co_code, code.co_names, code.co_varnames, code.co_freevars, consts)


@functools.lru_cache(maxsize=None)
def _module_code(filename: str) -> dict[tuple, str]:
    """Every function's code in the source file ``filename`` (nested ones too), by its print, to its
    qualified name."""
    with open(filename, encoding="utf-8") as source:
        todo = list(compile(source.read(), filename, "exec").co_consts)
    found = {}
    while todo:
        code = todo.pop()
        if isinstance(code, types.CodeType):
            found[_code_print(code)] = code.co_qualname
            todo += code.co_consts
    return found


@dataclass(frozen=True)
class _Watched:
    """What :func:`toolkit_ran` looks for: the toolkit's files (by path, to their module's name), the
    prints of their code, and the library functions' code objects (to their dotted name)."""

    files: dict[str, str]
    prints: dict[tuple, str]
    libraries: dict[types.CodeType, str]


@functools.lru_cache(maxsize=None)
def _watched(toolkit: tuple[str, ...], libraries: tuple[str, ...]) -> _Watched:
    """What to look for, from the dotted names of the toolkit's functions and of the library functions
    (modules imported here, when a check first runs, so that loading the exercises loads no model)."""
    files, prints = {}, {}
    for dotted in toolkit:
        module = importlib.import_module(dotted.rpartition(".")[0])
        files[module.__file__] = module.__name__
        prints.update({key: f"{module.__name__}.{name}" for key, name in _module_code(module.__file__).items()})
    codes = {}
    for dotted in libraries:
        module, _, name = dotted.rpartition(".")
        code = getattr(inspect.unwrap(getattr(importlib.import_module(module), name)), "__code__", None)
        if code is not None:
            codes[code] = dotted
    return _Watched(files, prints, codes)


#: The calls that would switch the watch of :func:`toolkit_ran` off or replace it.
_UNWATCHERS = {sys.setprofile: "sys.setprofile", sys.settrace: "sys.settrace", threading.setprofile: "threading.setprofile",
               threading.settrace: "threading.settrace"}


def toolkit_ran(toolkit: tuple[str, ...], libraries: Mapping[str, str], fn: Callable,
                kwargs: dict) -> tuple[object, list[str]]:
    """Call ``fn(**kwargs)`` and watch what runs inside it (``sys.setprofile``, threads it starts
    included): return its result (or the exception it raised) and what was seen, each as
    ``"toolkit: shared.meters.spectrum.effective_rank"``, ``"copy: ..."`` (code identical to the
    toolkit's, as when its source is executed again) or ``"library: scipy.special.softmax"``."""
    watched = _watched(tuple(toolkit), tuple(libraries))
    seen: dict[str, None] = {}
    known: dict[types.CodeType, str | None] = {}

    def what(code: types.CodeType) -> str | None:
        if code.co_filename in watched.files:
            return f"toolkit: {watched.files[code.co_filename]}.{code.co_qualname}"
        if code in watched.libraries:
            return f"library: {watched.libraries[code]}"
        printed = watched.prints.get(_code_print(code)) if watched.prints else None
        return f"copy: {printed}" if printed else None

    closing = []  # set just before the watch removes itself, with a call it would otherwise report

    def watch(frame: types.FrameType, event: str, arg: object) -> None:
        if closing:
            return
        if event == "c_call" and arg in _UNWATCHERS:
            seen[f"unwatch: {_UNWATCHERS[arg]}"] = None
        if event != "call":
            return
        code = frame.f_code
        if code not in known:
            known[code] = what(code)
        if known[code]:
            seen[known[code]] = None

    before, before_threads = sys.getprofile(), threading.getprofile()
    threading.setprofile(watch)
    sys.setprofile(watch)
    try:
        result: object = fn(**kwargs)
    except BaseException as error:  # the learner's code: handed back to the caller to report
        result = error
    finally:
        closing.append(True)
        sys.setprofile(before)
        threading.setprofile(before_threads)
    return result, list(seen)


def ran_message(exercise: str, name: str, libraries: Mapping[str, str], seen: list[str]) -> str | None:
    """The verdict's text on what ran inside the learner's function ``name``, or ``None`` if nothing
    counts (a library function whose text in ``libraries`` is empty is accepted)."""
    toolkit = sorted({s.split(": ", 1)[1] for s in seen if s.startswith("toolkit: ")})
    copies = sorted({s.split(": ", 1)[1] for s in seen if s.startswith("copy: ")})
    named = [s.split(": ", 1)[1] for s in seen if s.startswith("library: ")]
    named = [name for name in dict.fromkeys(named) if libraries.get(name)]
    unwatched = sorted({s.split(": ", 1)[1] for s in seen if s.startswith("unwatch: ")})
    if unwatched:
        return (f"Exercise {exercise}: write it yourself. {name} called {' and '.join(unwatched)}, which "
                "switches off the check's watch of what runs inside it; a function of your own has no need to.")
    if toolkit:
        return (f"Exercise {exercise}: write it yourself. While {name} ran, the toolkit's own "
                f"{' and '.join(toolkit)} ran inside it, which computes the answer for you (the check compares "
                "with the toolkit, so agreeing with it would prove nothing). Write the computation with numpy; the "
                "toolkit stays for the notebook's demonstrations.")
    if copies:
        return (f"Exercise {exercise}: write it yourself. While {name} ran, code identical to the toolkit's "
                f"{' and '.join(copies)} ran inside it (its source, executed again), which computes the answer for "
                "you. Write the computation with numpy yourself.")
    if named:
        return (f"Exercise {exercise}: write it yourself. While {name} ran, {' and '.join(named)} ran inside "
                f"it: {' '.join(libraries[name] for name in named)}")
    return None
