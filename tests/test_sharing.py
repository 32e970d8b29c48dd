"""How the default run divides and shares its work (tests/sharing.py)."""

from pathlib import Path

from tests.sharing import TOGETHER, ByFile

TESTS = Path(__file__).resolve().parent


def test_a_notebook_and_a_module_are_one_unit_and_the_in_process_modules_share_one():
    unit = ByFile.__new__(ByFile)._split_scope  # a pure function of the test's id
    assert unit("notebooks/07_real_transformer.ipynb::Cell 3") == unit("notebooks/07_real_transformer.ipynb::Cell 0")
    assert unit("notebooks/07_real_transformer.ipynb::Cell 3") != unit("notebooks/09_decoder_llm.ipynb::Cell 3")
    assert unit("tests/test_meters.py::TestX::test_a") == unit("tests/test_meters.py::test_b[1]") == "tests/test_meters.py"
    assert len({unit(f"tests/{name}::test_x") for name in TOGETHER}) == 1
    assert unit("tests/test_meters.py::test_b") != unit(f"tests/{TOGETHER[0]}::test_x")


def test_the_modules_kept_together_exist():
    assert all((TESTS / name).is_file() for name in TOGETHER)
