"""The toolkit's one cache: what is read from a file, or run through a model, once per kernel.

Holds the results of the functions decorated with :func:`once`, all without arguments: the
models' weights (:func:`~shared.encoder.load_minilm`, :func:`~shared.encoder.word_embeddings`,
:func:`~shared.decoder.load_smollm`), GloVe's word list (:func:`~shared.glove.glove_words`),
wordfreq's table, and the course corpus run through each model (:func:`~shared.realmodel.real_study`,
:func:`~shared.realdecoder.decoder_study`). Everything measured from a study is kept by that study
object (:func:`kept`), so it lives exactly as long as the study does. :func:`clear` empties the
cache and so frees all of it (the next call reads again); :func:`held` names what it holds.

The course's test run starts many processes (two workers and a kernel per notebook) that each need
the corpus run through the two models, and what is measured from it. When the environment variable
:data:`RUN_RESULTS` names a directory (the test suite sets it, for one run), :func:`across_processes`
computes such a result in the first process that asks and writes it there; the others read it
(pickle keeps every value exactly). A study's :class:`Memory` names the study's inputs, so that
:func:`kept` shares each measurement the same way. Without the variable, as in a learner's
kernel, everything is computed in the process that asks.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import pickle
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

_HELD: dict[str, Any] = {}
RUN_RESULTS = "COURSE_RUN_RESULTS"


def once(read: Callable[[], T]) -> Callable[[], T]:
    """``read`` (a function without arguments), run on the first call and its result kept until :func:`clear`."""
    name = f"{read.__module__}.{read.__qualname__}"

    @functools.wraps(read)
    def cached() -> T:
        if name not in _HELD:
            _HELD[name] = read()
        return _HELD[name]

    return cached


def clear() -> None:
    """Forget everything the cache holds (and so every study's measurements)."""
    _HELD.clear()


def held() -> tuple[str, ...]:
    """The functions whose results the cache holds now, by module and name."""
    return tuple(sorted(_HELD))


class Memory(dict):
    """What is measured from one study, by key. ``inputs`` name the study (its model and sentences):
    with them, a test run computes each measurement once for all its processes (:func:`kept`)."""

    def __init__(self, *inputs: str) -> None:
        super().__init__()
        self.inputs = inputs


def kept(memory: dict[Hashable, Any], key: Hashable, make: Callable[[], T], local: bool = False) -> T:
    """``memory[key]``, made by ``make()`` the first time: how a study keeps what is measured from it.

    When ``memory`` is a :class:`Memory`, ``make()`` runs through :func:`across_processes`, named by
    the study's inputs and ``repr(key)`` (keys are tuples of strings and numbers), unless ``local``:
    the study's intermediate arrays (read-only views the measurements share) stay in this process."""
    if key not in memory:
        inputs = () if local else getattr(memory, "inputs", ())
        memory[key] = across_processes(repr(key), inputs, make) if inputs else make()
    return memory[key]


def across_processes(name: str, inputs: Sequence[str], make: Callable[[], T]) -> T:
    """``make()``, computed once for all the processes of a test run (see the module's text).

    ``name`` and ``inputs`` (what ``make`` depends on besides the code: a model's name and the
    sentences it runs through, or a study's inputs and a measurement's key) name the result, so
    other inputs are never given it. In the directory that :data:`RUN_RESULTS` names, one process
    computes and writes the result while holding a lock, and the others wait and read it. Without
    that directory, or where file locks are not available, ``make()``."""
    directory = os.environ.get(RUN_RESULTS)
    if not directory or not Path(directory).is_dir():
        return make()
    try:
        import fcntl
    except ImportError:  # not a POSIX system: every process computes for itself
        return make()
    digest = hashlib.sha256(json.dumps([name, *inputs]).encode()).hexdigest()[:16]
    path = Path(directory) / f"{digest}.pickle"
    with open(path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if path.exists():
                with open(path, "rb") as file:
                    return pickle.load(file)  # noqa: S301 - written by this function in this test run
            value = make()
            part = path.with_suffix(".part")
            with open(part, "wb") as file:
                pickle.dump(value, file, protocol=pickle.HIGHEST_PROTOCOL)
            part.replace(path)
            return value
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
