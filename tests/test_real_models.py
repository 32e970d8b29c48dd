"""The real models' records (shared.real.models): everything that acts on every model reads them, so a
new model is one record and its notebook."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest

from benchmarks import notebooks as notebook_benchmark
from benchmarks import reading_time
from classroom import install
from shared import store
from shared.real import build, models

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def fake_model(tmp_path, monkeypatch):
    """A model declared as a newcomer would: one record (its file, its entries' module, its notebook)."""
    weights = tmp_path / "fake.bin"
    weights.write_bytes(b"the weights of a fake model")
    entries = types.ModuleType("shared.real.fake_study")
    entries.store_entries = lambda: [("corpus through Fake", lambda: None)]
    monkeypatch.setitem(sys.modules, "shared.real.fake_study", entries)  # its study module
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "10_fake_model.ipynb").write_text("{}")
    record = models.declare_model(models.RealModel("Fake", lambda: [weights], libraries=("numpy",),
                                                   entries=("fake_study",), notebook="10_fake_model.ipynb",
                                                   seconds=12.0, megabytes=640.0))
    try:
        yield record, tmp_path
    finally:
        models.undeclare_model("Fake")
    assert "Fake" not in models.MODELS


def test_a_new_model_is_one_record_and_every_reader_sees_it(fake_model):
    record, folder = fake_model
    inputs = models.model_inputs("Fake", ["One sentence."])
    assert f"Fake/fake.bin:{store.file_digest(folder / 'fake.bin')}" in inputs  # its entries' keys
    assert any(i.startswith("Fake reads with numpy ") for i in inputs)
    assert models.model_files("Fake") == [folder / "fake.bin"]
    labels = [label for label, _ in build.steps(folder / "notebooks")]  # what the build fills
    assert "corpus through Fake" in labels and labels[-1] == "notebook 10, run once"
    assert labels.index("corpus through Fake") < labels.index("notebook 10, run once")
    assert notebook_benchmark.limit("10_fake_model") == ("with kernel start", 12.0, 640.0)  # its targets
    assert reading_time.recorded_seconds("10_fake_model") == 12.0
    assert models.real_model("Fake") is record and record in models.real_models()


def test_an_unknown_model_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match=r"model: expected one of \['MiniLM', 'SmolLM2'.*got 'GPT'"):
        models.model_inputs("GPT")
    with pytest.raises(TypeError, match="model: expected one of"):
        models.real_model(3)
    with pytest.raises(ValueError, match="already declared"):
        models.declare_model(models.RealModel("MiniLM", list, (), (), "x.ipynb", 1.0, 1.0))


def test_each_record_names_its_notebook_and_modules_that_say_what_the_build_fills():
    for record in models.real_models():
        assert (ROOT / "notebooks" / record.notebook).is_file(), record.notebook
        for module in record.entries:
            assert (ROOT / "shared" / "real" / f"{module}.py").is_file(), module
            assert re.search(r"^def store_entries\(", (ROOT / "shared" / "real" / f"{module}.py").read_text(), re.M)


def test_the_class_install_reads_the_records_of_the_toolkit_it_installs():
    assert install.model_notebooks(Path(sys.executable)) == [m.notebook for m in models.real_models()]


@pytest.mark.parametrize("path", ["classroom/install.py", "benchmarks/store.py", "benchmarks/classroom.py",
                                  "benchmarks/notebooks.py", "benchmarks/reading_time.py", "scripts/make_assignments.py",
                                  "shared/store/__init__.py", "shared/store/cache.py", "shared/real/build.py"])
def test_no_reader_names_a_models_notebook_or_the_model(path):
    """Only the record says which notebook reads a model: a reader that names one in a string (or
    the model's name) would miss the next model."""
    text = (ROOT / path).read_text()
    for record in models.real_models():
        assert not re.search(rf"[\"']({record.stem}|{record.stem[:3]}|{record.name}\b)", text), (path, record.name)
