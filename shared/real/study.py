"""How a model study is kept: what a kernel read from a file, or measured from a study, once.

Holds the results of the functions decorated with :func:`once`, all without arguments: the
models' weights (:func:`~shared.real.encoder.load_minilm`, :func:`~shared.real.encoder.word_embeddings`,
:func:`~shared.real.decoder.load_smollm`), GloVe's word list (:func:`~shared.real.glove.glove_words`),
wordfreq's table, and the course corpus run through each model
(:func:`~shared.real.encoder_study.real_study`, :func:`~shared.real.decoder_study.decoder_study`).
Everything measured from a study is kept by that study object (:func:`kept`), so it lives exactly
as long as the study does. :func:`clear` empties the cache and so frees all of it (the next call
reads again).

Behind it sits the machine's study store (:mod:`shared.store`): a study's :class:`Memory` names
the study's inputs, and :func:`kept` takes what is measured from it from the store, or computes it
there once for every kernel of the machine.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

_HELD: dict[str, Any] = {}


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


class Memory(dict):
    """What is measured from one study, by key. ``inputs`` name the study (its models' files and
    its sentences, :func:`shared.real.models.model_inputs`): with them, :func:`kept` uses the study store."""

    def __init__(self, *inputs: str) -> None:
        super().__init__()
        self.inputs = inputs


def kept(memory: dict[Hashable, Any], key: Hashable, make: Callable[[], T], local: bool = False) -> T:
    """``memory[key]``, made by ``make()`` the first time: how a study keeps what is measured from it.

    When ``memory`` is a :class:`Memory`, the result comes from the study store (:mod:`shared.store`),
    named by the study's inputs and ``repr(key)`` (keys are tuples of strings and numbers), unless
    ``local``: the study's intermediate arrays (read-only views the measurements share) stay in
    this process."""
    if key not in memory:
        from .. import (
            store,  # imported on use: ``import shared`` reads no model and no store
        )

        inputs = () if local else getattr(memory, "inputs", ())
        memory[key] = store.remember(repr(key), inputs, make) if inputs else make()
    return memory[key]
