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


def test_a_result_across_processes_is_computed_once_per_run_and_read_back_exactly(tmp_path, monkeypatch):
    import subprocess
    import sys

    import numpy as np

    calls = []

    def make() -> np.ndarray:
        calls.append(1)
        return np.random.default_rng(len(calls)).standard_normal((3, 4)).astype(np.float32)

    monkeypatch.delenv(_cache.RUN_RESULTS, raising=False)
    _cache.across_processes("model", ["a"], make)
    _cache.across_processes("model", ["a"], make)
    assert calls == [1, 1], "without a run directory, every call computes"
    monkeypatch.setenv(_cache.RUN_RESULTS, str(tmp_path))
    first = _cache.across_processes("model", ["a", "b"], make)
    again = _cache.across_processes("model", ["a", "b"], make)
    assert len(calls) == 3 and again is not first and again.dtype == np.float32 and np.array_equal(again, first)
    other = _cache.across_processes("model", ["a", "c"], make)
    assert len(calls) == 4 and not np.array_equal(other, first), "other inputs are computed, never given the result"
    # another process reads what this one wrote: its make() would fail
    code = ("import numpy as np, shared._cache as c; "
            "x = c.across_processes('model', ['a', 'b'], lambda: 1 / 0); print(x.dtype, float(x.sum()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["float32", str(float(first.sum()))]


def test_a_study_memory_shares_its_measurements_across_processes_but_not_its_intermediates(tmp_path, monkeypatch):
    import subprocess
    import sys

    monkeypatch.setenv(_cache.RUN_RESULTS, str(tmp_path))
    memory = _cache.Memory("model", "one sentence.", "another sentence.")
    assert _cache.kept(memory, ("point", 3, "centring"), lambda: [1.5]) == [1.5]
    assert _cache.kept(memory, ("tokens", 3), lambda: [2.5], local=True) == [2.5]
    code = ("import shared._cache as c; m = c.Memory('model', 'one sentence.', 'another sentence.'); "
            "print(c.kept(m, ('point', 3, 'centring'), lambda: 'computed'), "
            "c.kept(m, ('tokens', 3), lambda: 'computed', local=True), "
            "c.kept(c.Memory('model', 'other.'), ('point', 3, 'centring'), lambda: 'computed'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["[1.5]", "computed", "computed"], "read back; an intermediate and another study are computed"
