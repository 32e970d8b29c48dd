"""The toolkit as a package: its layers load only what they need."""

import subprocess
import sys


def test_the_core_and_the_exercises_load_neither_drawing_nor_widgets():
    code = ("import sys, shared, shared.exercises; "
            "print(sorted(m for m in ('matplotlib', 'ipywidgets', 'shared.figures', 'shared.explorers', "
            "'shared.encoder', 'shared.realmodel') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_public_name_is_exported_once():
    import shared

    assert len(shared.__all__) == len(set(shared.__all__))
    assert all(hasattr(shared, name) for name in shared.__all__)
