"""The toolkit as a package: its layers load only what they need."""

import subprocess
import sys


def test_the_core_and_the_exercises_load_neither_drawing_nor_widgets_nor_scipy_nor_any_model():
    """``import shared`` loads of the real models only GloVe's reader and how a study is kept: any other
    module of ``shared.real`` (a model, its study; a new one too) is loaded only when imported."""
    code = ("import sys, shared, shared.exercises; "
            "print(sorted(m for m in sys.modules if m in ('matplotlib', 'ipywidgets', 'shared.figures', "
            "'shared.explorers', 'gguf', 'safetensors', 'tokenizers', 'pyarrow', 'scipy') "
            "or m.startswith('shared.real.') and m not in ('shared.real.glove', 'shared.real.study')))")
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
    # a notebook the learner saves keeps its widgets, so it hides its answers again once reopened
    assert json.loads(source.read_text())["@jupyter-widgets/jupyterlab-manager:plugin"]["saveState"] is True
    # closing a notebook shuts its kernel down: a learner holds the kernels of the notebooks they have open
    assert json.loads(source.read_text())["@jupyterlab/notebook-extension:tracker"]["kernelShutdown"] is True


# ----- the layout (CONTRIBUTING.md): small modules, private names at home, imports as layers ----------

import ast  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

PACKAGE = Path(__file__).resolve().parent.parent / "shared"


def _modules() -> dict[str, Path]:
    """Every module of the toolkit by dotted name (a package by its ``__init__``)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(name: str, path: Path) -> list[tuple[str, list[str]]]:
    """``(module imported from, names taken)`` for each relative import in module ``name`` (anywhere in it)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            out.append((f"{base}.{node.module}" if node.module else base, [a.name for a in node.names]))
    return out


def test_no_module_of_the_toolkit_is_over_500_lines():
    long = {name: n for name, path in _modules().items() if (n := len(path.read_text().splitlines())) > 500}
    assert not long, long


def test_private_names_stay_in_their_module():
    modules = _modules()
    reached = [(name, source, imported) for name, path in modules.items()
               for source, names in _imports(name, path)
               for imported in names if imported.startswith("_") and f"{source}.{imported}" not in modules]
    assert not reached, reached


def _all_imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The toolkit modules ``name`` imports anywhere in it (at import time or inside a function):
    relative or absolute, ``from`` or plain."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            found |= {f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return {m for m in found if m in modules and m != name}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (a list of its nodes, the first repeated at the end), or None."""
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt, path + [nxt])):
                return found
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start, [start])):
            return found
    return None


def test_the_toolkit_imports_form_no_cycle_at_import_time_or_inside_functions():
    """No module reaches itself through the imports of others, counting those inside functions (which
    run later, but still tie the modules together): the study store knows no model, the meter registry
    no meter module."""
    modules = _modules()
    graph = {name: _all_imports(name, path, modules) for name, path in modules.items()}
    # the package itself (shared/__init__, which re-exports the layers) is on top: no module imports it
    assert not [name for name, targets in graph.items() if "shared" in targets], "a module imports the package"
    found = _cycle(graph)
    assert found is None, "import cycle: " + " -> ".join(found)


def test_the_cycle_check_finds_a_cycle_inside_functions(tmp_path):
    """The check above can fail: two modules that import each other inside functions form a cycle."""
    one, two = tmp_path / "one.py", tmp_path / "two.py"
    one.write_text("def f():\n    from . import two\n")
    two.write_text("def g():\n    from .one import f\n")
    modules = {"pkg.one": one, "pkg.two": two}
    graph = {name: _all_imports(name, path, modules) for name, path in modules.items()}
    assert _cycle(graph) == ["pkg.one", "pkg.two", "pkg.one"]


#: The toolkit's layers from the bottom up: the rows of CONTRIBUTING.md's table, in its order.
LAYERS = (("shared.events",), ("shared._checks",), ("shared.geometry",), ("shared.meters",), ("shared.report",), ("shared.mechanisms",),
          ("shared.remedies",), ("shared.store", "shared._stored"), ("shared.real",), ("shared.figures",),
          ("shared.explorers", "shared.ahead", "shared.predictions"), ("shared.exercises",))


def _layer(module: str) -> int:
    """The row of ``module`` in :data:`LAYERS`; the package ``shared`` itself, which re-exports them all, is on top."""
    if module == "shared":
        return len(LAYERS)
    rows = [row for row, prefixes in enumerate(LAYERS) if any(module == p or module.startswith(p + ".") for p in prefixes)]
    assert rows, f"{module} is in no row of LAYERS (and of CONTRIBUTING.md's table)"
    return rows[0]


def _imports_at_import_time(name: str, path: Path) -> list[str]:
    """The toolkit modules ``name`` imports when it is imported: relative or absolute, at module level
    or inside a module-level ``if`` or ``try`` (not inside a function, which runs later)."""
    modules = _modules()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                    source = f"{base}.{node.module}" if node.module else base
                else:
                    source = node.module or ""
                found.extend(f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names)
            elif isinstance(node, ast.Import):
                found.extend(a.name for a in node.names)
            elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for field in ("body", "orelse", "finalbody", "handlers"):
                    visit([n for n in getattr(node, field, []) if isinstance(n, ast.stmt)] if field != "handlers"
                          else [s for h in getattr(node, field, []) for s in h.body])

    visit(ast.parse(path.read_text()).body)
    return [m for m in found if m == "shared" or m.startswith("shared.")]


def test_the_toolkit_imports_read_as_layers():
    """At import time a module imports only its own layer or the layers below it (the study store's
    imports of the model modules are inside its functions, CONTRIBUTING's one exception)."""
    modules = _modules()
    for name in modules:
        _layer(name)  # every module has its row
    upward = [f"{name} imports {target}" for name, path in modules.items()
              for target in _imports_at_import_time(name, path) if _layer(target) > _layer(name)]
    assert not upward, upward


def test_the_layers_are_contributing_s_table():
    """CONTRIBUTING.md's table names each row's modules and packages (``store.py``, ``geometry/``): the
    same rows, in the same order, as :data:`LAYERS`."""
    text = (PACKAGE.parent / "CONTRIBUTING.md").read_text()
    table = text[text.index("| layer | where |"):].split("\n\n")[0].splitlines()[2:]
    rows = [tuple("shared." + w.rstrip("/").removesuffix(".py") for w in re.findall(r"`([^`]+(?:/|\.py))`", line.split("|")[2]))
            for line in table]
    assert tuple(rows) == LAYERS
