"""The toolkit's one cache: what is read from a file, or run through a model, once per kernel.

Holds the results of the functions decorated with :func:`once`, all without arguments: the
models' weights (:func:`~shared.encoder.load_minilm`, :func:`~shared.encoder.word_embeddings`,
:func:`~shared.decoder.load_smollm`), GloVe's word list (:func:`~shared.glove.glove_words`),
wordfreq's table, and the course corpus run through each model (:func:`~shared.realmodel.real_study`,
:func:`~shared.realdecoder.decoder_study`). Everything measured from a study is kept by that study
object (:func:`kept`), so it lives exactly as long as the study does. :func:`clear` empties the
cache and so frees all of it (the next call reads again); :func:`held` names what it holds.
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


def held() -> tuple[str, ...]:
    """The functions whose results the cache holds now, by module and name."""
    return tuple(sorted(_HELD))


def kept(memory: dict[Hashable, Any], key: Hashable, make: Callable[[], T]) -> T:
    """``memory[key]``, made by ``make()`` the first time: how a study keeps what is measured from it."""
    if key not in memory:
        memory[key] = make()
    return memory[key]
