"""The toolkit's in-process cache (shared.real.study): files read once, clearable; a study's measurements
come from the study store."""

from shared.real import study
from shared.real.glove import glove_words


def test_a_file_is_read_once_until_the_cache_is_cleared():
    first = glove_words()
    assert glove_words() is first, "read once: the second call reads nothing"
    study.clear()
    again = glove_words()
    assert again is not first and again == first


def test_once_keeps_a_result_and_kept_keeps_a_measurement_with_its_owner():
    calls = []

    @study.once
    def read() -> list:
        calls.append(1)
        return [len(calls)]

    assert read() is read() and calls == [1]
    study.clear()
    assert read() == [2]
    memory: dict = {}
    assert study.kept(memory, ("point", 3), lambda: object()) is study.kept(memory, ("point", 3), lambda: 0)
    assert list(memory) == [("point", 3)]
    study.clear()


def test_a_study_memory_takes_its_measurements_from_the_store_but_keeps_its_intermediates(tmp_path, monkeypatch):
    import subprocess
    import sys

    from shared import store

    monkeypatch.setenv(store.ENV, str(tmp_path))
    memory = study.Memory("model", "one sentence.", "another sentence.")
    assert study.kept(memory, ("point", 3, "centring"), lambda: [1.5]) == [1.5]
    assert study.kept(memory, ("tokens", 3), lambda: [2.5], local=True) == [2.5]
    assert len(store.default().entries()) == 1, "the measurement is stored, the intermediate is not"
    code = ("import shared.real.study as c; m = c.Memory('model', 'one sentence.', 'another sentence.'); "
            "print(c.kept(m, ('point', 3, 'centring'), lambda: 'computed'), "
            "c.kept(m, ('tokens', 3), lambda: 'computed', local=True), "
            "c.kept(c.Memory('model', 'other.'), ('point', 3, 'centring'), lambda: 'computed'), "
            "c.kept({}, ('point', 3, 'centring'), lambda: 'computed'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["[1.5]", "computed", "computed", "computed"], \
        "read back; an intermediate, another study and a plain dict are computed"
