"""The toolkit as a package: its layers load only what they need."""

import subprocess
import sys


def test_the_core_and_the_exercises_load_neither_drawing_nor_widgets():
    code = ("import sys, shared, shared.exercises; "
            "print(sorted(m for m in ('matplotlib', 'ipywidgets', 'shared.figures', 'shared.explorers', "
            "'shared.real.encoder', 'shared.real.corpus', 'shared.real.encoder_study', 'shared.real.frequency', "
            "'shared.real.negatives', 'shared.real.decoder', 'shared.real.decoder_study', 'shared.real.outside', "
            "'gguf') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"



def test_the_encoders_measurements_load_neither_the_decoder_nor_gguf():
    code = ("import sys, shared.real.encoder_study, shared.real.frequency, shared.real.negatives; "
            "print(sorted(m for m in ('shared.real.decoder', 'shared.real.decoder_study', 'shared.real.outside', "
            "'gguf') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_public_name_is_exported_once():
    import shared

    assert len(shared.__all__) == len(set(shared.__all__))
    assert all(hasattr(shared, name) for name in shared.__all__)


def test_jupyterlab_settings_of_the_course_are_installed_into_its_environment():
    """`uv run jupyter lab` opens without the "get notified about Jupyter news?" prompt, and nothing
    outside the project's environment is configured for it."""
    import json
    from pathlib import Path

    installed = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    source = Path(__file__).resolve().parent.parent / "jupyter" / "overrides.json"
    assert installed.exists(), f"{installed} is missing: run uv sync"
    assert json.loads(installed.read_text()) == json.loads(source.read_text())
    assert json.loads(source.read_text())["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
