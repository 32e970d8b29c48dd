"""The notebooks as documents: paired with their mirrors, complete, and linked to the theory.

nbval (``--nbval`` in pyproject.toml) separately runs every cell and compares its outputs.
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
THEORY = ROOT / "research" / "03-isotropy-anisotropy.md"
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def test_there_are_nine_notebooks():
    assert [p.stem for p in NOTEBOOKS] == [
        "01_sphere_vs_cone",
        "02_illusory_cosine",
        "03_attention_contraction",
        "04_frequency_collapse",
        "05_rich_get_richer",
        "06_whitening",
        "07_real_transformer",
        "08_static_word_vectors",
        "09_decoder_llm",
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_ipynb_and_py_mirror_hold_the_same_cells(path):
    ipynb = nbformat.read(path, as_version=4)
    mirror = jupytext.read(path.with_suffix(".py"))
    pairs = list(zip(ipynb.cells, mirror.cells, strict=True))
    for i, (a, b) in enumerate(pairs):
        assert (a.cell_type, a.source) == (b.cell_type, b.source), f"cell {i} differs between .ipynb and .py"
        assert a.metadata.get("tags") == b.metadata.get("tags"), f"cell {i}'s tags differ between .ipynb and .py"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_outputs_are_complete_and_clean(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code), "run the notebook top to bottom before saving"
    for cell in code:
        assert not any(o.output_type == "error" for o in cell.outputs)
        assert not any("nbval" in tag for tag in cell.metadata.get("tags", []))
        assert "NBVAL" not in cell.source
        assert not any(getattr(o, "name", "") == "stderr" for o in cell.outputs), "a cell wrote to stderr"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_header_states_question_time_and_theory_link(path):
    first = nbformat.read(path, as_version=4).cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("# ")
    for needed in ("**Question.**", "**Time:**", "**After this notebook you can**", "**Theory:**"):
        assert needed in first.source
    assert "../research/03-isotropy-anisotropy.md#" in first.source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_has_a_prediction_an_explorer_and_prompts(path):
    text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells)
    assert "**Predict first.**" in text
    assert "explore(" in text
    assert "**Try this.**" in text
    assert "**Where this leads.**" in text


def github_anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown file."""
    anchors: set[str] = set()
    in_fence = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
        if in_fence or not re.match(r"#{1,6} ", line):
            continue
        text = re.sub(r"<[^>]+>", "", line.lstrip("#").strip()).lower()
        slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
        candidate, k = slug, 0
        while candidate in anchors:
            k += 1
            candidate = f"{slug}-{k}"
        anchors.add(candidate)
    return anchors


def test_github_anchor_rules():
    assert github_anchors("## 4.1 Self-attention as a contraction\n## Q&A: why?") == {
        "41-self-attention-as-a-contraction",
        "qa-why",
    }


def relative_links(path: Path) -> list[str]:
    if path.suffix == ".ipynb":
        text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")
    else:
        text = path.read_text()
    return [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]


DOCUMENTS = [THEORY, ROOT / "README.md", ROOT / "TEACHING.md", ROOT / "notebooks" / "SOLUTIONS.md"]


@pytest.mark.parametrize("path", [*NOTEBOOKS, *DOCUMENTS], ids=lambda p: p.name)
def test_relative_links_resolve(path):
    links = relative_links(path)
    assert links or path.name == "SOLUTIONS.md", "expected at least one link"
    for link in links:
        target, _, anchor = link.partition("#")
        file = (path.parent / target).resolve() if target else path
        assert file.exists(), f"{link}: {file} does not exist"
        if anchor and file.suffix == ".md":
            assert anchor in github_anchors(file.read_text()), f"{link}: no heading with anchor #{anchor}"


def test_theory_links_every_notebook():
    targets = {Path(link.partition("#")[0]).name for link in relative_links(THEORY)}
    assert {p.name for p in NOTEBOOKS} <= targets
