"""The toolkit's one cache (shared._cache): files read once, clearable, and what it holds is named."""

from shared import _cache
from shared.glove import glove_words


def test_a_file_is_read_once_until_the_cache_is_cleared():
    first = glove_words()
    assert "shared.glove._glove_words" in _cache.held()
    assert glove_words() is first, "read once: the second call reads nothing"
    _cache.clear()
    assert _cache.held() == ()
    again = glove_words()
    assert again is not first and again == first


def test_once_keeps_a_result_and_kept_keeps_a_measurement_with_its_owner():
    calls = []

    @_cache.once
    def read() -> list:
        calls.append(1)
        return [len(calls)]

    assert read() is read() and calls == [1]
    _cache.clear()
    assert read() == [2]
    memory: dict = {}
    assert _cache.kept(memory, ("point", 3), lambda: object()) is _cache.kept(memory, ("point", 3), lambda: 0)
    assert list(memory) == [("point", 3)]
    _cache.clear()
