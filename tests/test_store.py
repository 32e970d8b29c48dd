"""The study store (shared.store): exact read-back, keys, damaged entries, pickles, concurrent
writers, read-only stores and the modes of what it writes."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import multiprocessing
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from shared import store
from shared.meters import Reading
from shared.meters import ParaphraseCheck, ParaphraseCosines
from shared.real import build, models
from shared.store import __main__ as where

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _fresh_notices(monkeypatch):
    """Each test sees the store's once-per-process notices afresh."""
    monkeypatch.setattr(store.cache, "_NOTICED", set())


def _value() -> ParaphraseCheck:
    """A result of the kinds the store keeps: a dataclass holding a dict of arrays (one large
    enough to be memory-mapped), numpy and Python scalars, NaN, -0.0, None and strings."""
    rng = np.random.default_rng(3)
    big = rng.standard_normal((1000, 300)).astype(np.float32)  # 1.2 MB: a file of its own
    big[0, :3] = [np.nan, -0.0, np.inf]
    draws = {"auc": rng.standard_normal(7), "top1": np.arange(5, dtype=np.int16), "words": np.array(["a", "bé"]),
             "mask": rng.random(4) > 0.5, "big": big}
    return ParaphraseCheck(np.float64(0.1) + 0.2, float("nan"), -0.0, np.float32(0.75), None, 1 / 3, draws, "seed 0")


def _same(a: object, b: object) -> bool:
    """Equal bit for bit, with the same types (arrays: same dtype, shape and bytes)."""
    if isinstance(a, np.ndarray) or isinstance(a, np.generic):
        return type(b) is type(a) and a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, float):
        return type(b) is float and np.float64(a).tobytes() == np.float64(b).tobytes()
    if isinstance(a, dict):
        return type(b) is dict and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if hasattr(a, "__dataclass_fields__"):
        return type(a) is type(b) and all(_same(getattr(a, f), getattr(b, f)) for f in a.__dataclass_fields__)
    return type(a) is type(b) and a == b


def _mapped(array: np.ndarray) -> bool:
    """Whether ``array`` views a memory-mapped file."""
    import mmap

    while array is not None:
        if isinstance(array, mmap.mmap):
            return True
        array = getattr(array, "base", None)
    return False


def _counted(calls: list, value: object):
    def make():
        calls.append(1)
        return value

    return make


def test_what_is_read_back_is_bit_identical_and_large_arrays_are_memory_mapped_read_only(tmp_path):
    value = _value()
    calls = []
    s = store.Store(tmp_path / "store")
    first = s.get("check", ["model:abc", "sentences:1"], _counted(calls, value))
    again = store.Store(tmp_path / "store").get("check", ["model:abc", "sentences:1"], _counted(calls, None))
    assert calls == [1], "computed once, then read"
    for got in (first, again):
        assert _same(value, got)
    big = again.draws["big"]
    assert _mapped(big), "the large array is a view of the file, not a copy"
    assert not big.flags.writeable
    assert again.draws["auc"].flags.writeable, "a small array that was writable stays writable"
    (entry,) = s.entries()
    assert sorted(p.suffix for p in entry.iterdir()) == [".json", ".npy", ".npz"]
    nested = (Reading("mean cosine", np.float64(0.5)), ParaphraseCosines(np.ones(2), np.zeros(3)),
              {(1, 2): [1, "x"], "k": (None, True)})
    assert _same(nested, s.get("nested", ["x"], lambda: nested))
    assert _same(nested, store.Store(tmp_path / "store").get("nested", ["x"], lambda: None))


def test_the_hidden_states_of_a_real_model_are_read_back_exactly(tmp_path):
    from shared.real.encoder import encode

    sentences = ["The cat sat on the mat.", "Prices rose again in May."]
    enc = encode(sentences)
    read = store.Store(tmp_path).get("MiniLM hidden states", models.model_inputs("MiniLM", sentences), lambda: enc)
    again = store.Store(tmp_path).get("MiniLM hidden states", models.model_inputs("MiniLM", sentences), lambda: None)
    assert _same(enc, read) and _same(enc, again)


def test_an_entry_is_named_by_the_model_file_the_sentences_and_the_code(tmp_path, monkeypatch):
    weights = tmp_path / "weights.bin"
    weights.write_bytes(b"one model")
    monkeypatch.setitem(models.MODELS, "MiniLM", dataclasses.replace(models.MODELS["MiniLM"], files=lambda: [weights]))
    base = models.model_inputs("MiniLM", ["a.", "b."])
    assert models.model_inputs("MiniLM", ["a.", "c."]) != base, "other sentences"
    assert models.model_inputs("MiniLM", ["a."]) != base
    weights.write_bytes(b"another model")
    os.utime(weights, ns=(1, 1))
    changed = models.model_inputs("MiniLM", ["a.", "b."])
    assert changed != base, "another model file"
    assert store.entry_name("x", base) != store.entry_name("x", changed) != store.entry_name("y", changed)

    calls = []
    s = store.Store(tmp_path / "store")
    s.get("x", base, _counted(calls, [1.0]))
    s.get("x", base, _counted(calls, [1.0]))
    monkeypatch.setattr(store.keys, "code_version", lambda: "another code version")
    s.get("x", base, _counted(calls, [1.0]))
    assert calls == [1, 1], "another code version names another entry"


def test_the_code_version_follows_the_toolkits_files(tmp_path, monkeypatch):
    package = tmp_path / "shared"
    package.mkdir()
    (package / "meters.py").write_text("A = 1\n")
    monkeypatch.setattr(store.keys, "PACKAGE", package)
    monkeypatch.setattr(store.keys, "_DIGESTS", {})
    one = store.code_version()
    (package / "meters.py").write_text("A = 2\n")
    monkeypatch.setattr(store.keys, "_DIGESTS", {})
    assert store.code_version() != one


def test_an_entry_made_for_other_inputs_is_not_used(tmp_path):
    s = store.Store(tmp_path)
    s.get("x", ["a"], lambda: [1.0])
    (entry,) = s.entries()
    other = tmp_path / store.entry_name("x", ["b"])
    shutil.copytree(entry, other)  # a manifest that names inputs "a" under the name of inputs "b"
    calls = []
    with pytest.warns(store.StoreNotice, match="other inputs"):
        assert s.get("x", ["b"], _counted(calls, [2.0])) == [2.0]
    assert calls == [1]


@pytest.mark.parametrize("damage", ["truncated", "one byte flipped", "no manifest", "manifest cut short", "extra file"])
def test_a_damaged_entry_is_detected_and_rebuilt(tmp_path, damage):
    value = _value()
    s = store.Store(tmp_path)
    s.get("check", ["a"], lambda: value)
    (entry,) = s.entries()
    (npy,) = entry.glob("*.npy")
    if damage == "truncated":
        npy.write_bytes(npy.read_bytes()[:-100])
    elif damage == "one byte flipped":
        data = bytearray(npy.read_bytes())
        data[len(data) // 2] ^= 1
        npy.write_bytes(bytes(data))
    elif damage == "no manifest":
        (entry / store.MANIFEST).unlink()
    elif damage == "manifest cut short":
        text = (entry / store.MANIFEST).read_text()
        (entry / store.MANIFEST).write_text(text[: len(text) // 2])
    else:
        (entry / "notes.txt").write_text("hello")
    calls = []
    with pytest.warns(store.StoreNotice, match="invalid.*rebuilding"):
        got = s.get("check", ["a"], _counted(calls, value))
    assert calls == [1], "rebuilt"
    assert _same(value, got)
    assert _same(value, s.get("check", ["a"], _counted(calls, None))) and calls == [1], "and then read"


class _Planted:
    """What an attacker's pickle would run: it creates a file when unpickled."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return Path.touch, (Path(self.marker),)


def test_a_pickle_planted_in_the_store_is_never_unpickled(tmp_path):
    s = store.Store(tmp_path / "store")
    s.get("check", ["a"], _value)
    (entry,) = s.entries()
    (npy,) = entry.glob("*.npy")
    marker = tmp_path / "unpickled"
    planted = np.empty(1, dtype=object)
    planted[0] = _Planted(str(marker))
    np.save(npy, planted, allow_pickle=True)  # an object array: a pickle inside a .npy file
    manifest = json.loads((entry / store.MANIFEST).read_text())
    manifest["files"][npy.name] = [npy.stat().st_size, store.entries.sha256(npy)]  # a writer who also fixes the manifest
    (entry / store.MANIFEST).write_text(json.dumps(manifest))
    calls = []
    with pytest.warns(store.StoreNotice, match="without pickle"):
        got = s.get("check", ["a"], _counted(calls, _value()))
    assert not marker.exists(), "the pickle was never loaded"
    assert calls == [1] and _same(_value(), got)
    with pytest.warns(store.StoreNotice, match="not stored.*pickle"):
        assert s.get("objects", ["a"], lambda: planted) is planted, "used, but an object array is not stored"
    assert len(s.entries()) == 1 and not marker.exists()


def test_a_manifest_naming_a_class_outside_the_toolkit_is_refused(tmp_path):
    s = store.Store(tmp_path)
    s.get("reading", ["a"], lambda: Reading("x", 1.0))
    (entry,) = s.entries()
    manifest = json.loads((entry / store.MANIFEST).read_text())
    manifest["value"] = {"$class": "subprocess:Popen", "fields": {"args": ["touch", str(tmp_path / "ran")]}}
    (entry / store.MANIFEST).write_text(json.dumps(manifest))
    with pytest.warns(store.StoreNotice, match="outside the toolkit"):
        assert s.get("reading", ["a"], lambda: Reading("x", 1.0)) == Reading("x", 1.0)
    assert not (tmp_path / "ran").exists()


def _fill(directory: str, log: str, start, out) -> None:
    """One of two processes asking for the same entry at once (run by multiprocessing)."""
    def make() -> np.ndarray:
        with open(log, "a") as file:
            file.write(f"{os.getpid()}\n")
        time.sleep(0.5)  # long enough that the other process asks while this one computes
        return np.arange(2_000_000, dtype=np.float64)  # 16 MB: several writes to the file

    start.wait(timeout=60)  # both processes have imported everything: they ask at the same moment
    value = store.Store(directory).get("shared", ["a"], make)
    out.put(hashlib.sha256(value.tobytes()).hexdigest())


def test_two_processes_filling_one_entry_give_one_complete_entry_computed_once(tmp_path):
    context = multiprocessing.get_context("spawn")
    start, out = context.Barrier(2), context.Queue()
    log = tmp_path / "computed"
    processes = [context.Process(target=_fill, args=(str(tmp_path / "store"), str(log), start, out)) for _ in range(2)]
    for p in processes:
        p.start()
    results = [out.get(timeout=120) for _ in processes]
    for p in processes:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert len(log.read_text().split()) == 1, "computed by one process; the other read it"
    assert results[0] == results[1]
    entries = store.Store(tmp_path / "store").entries()
    assert len(entries) == 1 and not [p for p in (tmp_path / "store").iterdir() if p.is_dir() and p.name.startswith(".")]
    assert np.array_equal(store.Store(tmp_path / "store").get("shared", ["a"], lambda: None),
                          np.arange(2_000_000, dtype=np.float64))


def test_a_store_that_cannot_be_written_computes_in_memory_writes_nothing_and_says_so_once(tmp_path):
    s = store.Store(tmp_path / "store", writable=False)
    calls = []
    with pytest.warns(store.StoreNotice, match="cannot be written") as notices:
        assert s.get("x", ["a"], _counted(calls, [1.0])) == [1.0]
        assert s.get("y", ["a"], _counted(calls, [2.0])) == [2.0]
    assert calls == [1, 1] and len(notices) == 1, "computed each time, one notice"
    assert not (tmp_path / "store").exists(), "nothing written"
    store.Store(tmp_path / "store").get("x", ["a"], lambda: [1.0])  # a store filled by its owner...
    before = sorted(p.name for p in (tmp_path / "store").rglob("*"))
    assert s.get("x", ["a"], _counted(calls, None)) == [1.0] and calls == [1, 1], "...is read without writing"
    assert sorted(p.name for p in (tmp_path / "store").rglob("*")) == before


def test_another_user_reads_a_built_store_and_computes_what_is_missing_without_writing(request):
    """As another OS user: root drops to ``nobody`` (the check of writability is the kernel's own,
    not a parameter); anyone else cannot give a store away, so the test needs root."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to run a process as another user")
    closed = [str(p) for p in (ROOT, *ROOT.parents, *Path(sys.executable).parents) if not os.stat(p).st_mode & 0o001]
    if closed:
        pytest.skip("another user cannot reach this checkout or its Python: closed to others: " + ", ".join(sorted(set(closed))))
    top = Path(tempfile.mkdtemp(prefix="course-store-test-"))  # /tmp/pytest-of-root is closed to others
    request.addfinalizer(lambda: shutil.rmtree(top, ignore_errors=True))
    os.chmod(top, 0o755)
    directory = top / "store"
    store.Store(directory).get("x", ["a"], lambda: np.arange(3.0))
    before = sorted((p.name, p.stat().st_mtime_ns) for p in directory.rglob("*"))
    code = ("import warnings, numpy as np; from shared import store; s = store.Store(%r); "
            "print(s.writable, s.get('x', ['a'], lambda: None).tolist(), s.get('y', ['a'], lambda: [7.0]))" % str(directory))
    run = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", code],
                         capture_output=True, text=True, cwd=ROOT, env={**os.environ, "HOME": str(top)}, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[0] == "False [0.0, 1.0, 2.0] [7.0]"
    assert run.stderr.count("StoreNotice") == 1 and "cannot be written" in run.stderr
    assert sorted((p.name, p.stat().st_mtime_ns) for p in directory.rglob("*")) == before, "nothing written"


def test_what_the_store_writes_is_readable_by_all_and_writable_only_by_its_owner(tmp_path):
    old = os.umask(0)  # even a permissive umask gives 0644 and 0755
    try:
        store.Store(tmp_path / "store").get("check", ["a"], _value)
    finally:
        os.umask(old)
    paths = [tmp_path / "store", *(tmp_path / "store").rglob("*")]
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in paths}
    assert all(modes[p.name] == (0o755 if p.is_dir() else 0o644) for p in paths), modes


def test_build_fills_the_store_with_a_progress_bar_and_says_who_can_write_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(build, "steps", lambda notebooks: [("one", lambda: store.remember("one", ["a"], lambda: [1.0])),
                                                 ("two", lambda: store.remember("two", ["a"], lambda: [2.0]))])
    monkeypatch.setenv(store.ENV, str(tmp_path / "elsewhere"))
    assert build.main(["--dir", str(tmp_path / "store")]) == 0
    out, err = capsys.readouterr()
    assert "2/2" in err and "0644" in out and "0755" in out
    assert len(store.Store(tmp_path / "store").entries()) == 2
    assert where.main(["where"]) == 0
    assert capsys.readouterr().out.strip() == str((tmp_path / "store").resolve())


def test_the_store_in_use_is_named_by_the_environment_or_the_users_cache(monkeypatch, tmp_path):
    monkeypatch.setenv(store.ENV, str(tmp_path / "class"))
    assert store.default_directory() == tmp_path / "class"
    monkeypatch.delenv(store.ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert store.default_directory() == tmp_path / "cache" / "isotropy-anisotropy" / "store"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert store.default_directory() == tmp_path / ".cache" / "isotropy-anisotropy" / "store"


def test_prune_removes_only_the_entries_of_another_code_version(tmp_path, monkeypatch):
    s = store.Store(tmp_path)
    s.get("current", ["a"], lambda: [1.0])
    current = store.code_version()
    monkeypatch.setattr(store.keys, "code_version", lambda: "an older version")
    s.get("old", ["a"], lambda: [0.0])
    monkeypatch.setattr(store.keys, "code_version", lambda: current)
    assert len(s.entries()) == 2
    half_written = tmp_path / f".{store.entry_name('current', ['b'])}.x1y2"  # a writer stopped half-way
    half_written.mkdir()
    assert s.prune() == 1 and not half_written.exists()
    assert [p.name for p in s.entries()] == [store.entry_name("current", ["a"])]
    assert s.get("current", ["a"], lambda: None) == [1.0]


def test_the_command_line_names_the_store_without_a_warning(tmp_path):
    run = subprocess.run([sys.executable, "-W", "error", "-m", "shared.store", "where"], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, store.ENV: str(tmp_path / "class store")}, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout == f"{tmp_path / 'class store'}\n"


def test_an_error_of_the_computation_reaches_the_caller_and_leaves_no_entry(tmp_path):
    s = store.Store(tmp_path)

    def missing_model():
        raise FileNotFoundError("no model file")

    with pytest.raises(FileNotFoundError, match="no model file"):
        s.get("x", ["a"], missing_model)
    assert s.entries() == []
    assert s.get("x", ["a"], lambda: [1.0]) == [1.0], "the lock was released"


def test_the_meters_of_the_vocabulary_are_made_by_the_build_and_read_back_not_measured_again(tmp_path, monkeypatch):
    """Notebook 07's section 1 reads what the build measured: every kernel after the first reads the
    entry, and measures nothing (a meter that would run fails the test)."""
    from shared.real import encoder_study, study

    labels = [label for label, _ in build.steps(tmp_path / "no notebooks")]
    assert {"MiniLM vocabulary meters", "bootstrap of the sentence variants",
            "massive coordinates deleted at layer 15"} <= set(labels)
    monkeypatch.setenv(store.ENV, str(tmp_path / "store"))
    monkeypatch.setattr(study, "_HELD", {})  # as a new kernel: nothing read yet
    made = encoder_study.vocabulary_meters()
    assert len(store.default().entries()) >= 1
    monkeypatch.setattr(study, "_HELD", {})

    def measured(*args, **kwargs):
        raise AssertionError("measured again instead of read from the store")

    for name in ("partition_isotropy", "isoscore", "cov_eigs", "random_cosines"):
        monkeypatch.setattr(encoder_study, name, measured)
    read = encoder_study.vocabulary_meters()
    assert _same(made, read)
    assert 0 < read.partition < 0.1 and read.effective_rank < read.gaussian_rank  # the flattened ellipsoid of section 1


def test_the_decoders_header_is_parsed_once_and_read_back_with_the_same_tensors(tmp_path, monkeypatch):
    """The GGUF header (architecture, tokenizer, where each tensor lies) is kept in the store: a
    kernel after the first builds the same model without parsing the file (a parse fails the test)."""
    import gguf

    from shared.real import decoder, study

    monkeypatch.setenv(store.ENV, str(tmp_path / "store"))
    monkeypatch.setattr(study, "_HELD", {})
    first = decoder.load_smollm()
    monkeypatch.setattr(study, "_HELD", {})

    def parse(*args, **kwargs):
        raise AssertionError("the header was parsed again instead of read from the store")

    monkeypatch.setattr(gguf, "GGUFReader", parse)
    again = decoder.load_smollm()
    assert again.config == first.config and again.vocab == first.vocab and list(again.quantized) == list(first.quantized)
    for name, tensor in first.quantized.items():
        other = again.quantized[name]
        assert other.tensor_type == tensor.tensor_type and np.array_equal(other.shape, tensor.shape)
        assert other.data.dtype == tensor.data.dtype and np.array_equal(other.data, tensor.data)
    assert again.tokenizer.encode("Tardigrades survive.").ids == first.tokenizer.encode("Tardigrades survive.").ids
