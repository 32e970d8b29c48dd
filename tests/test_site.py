"""The printable course: one command builds a static site with every notebook and its figures."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent


def load_builder():
    spec = importlib.util.spec_from_file_location("build_site", ROOT / "scripts" / "build_site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_site_has_every_page_with_its_figures_and_works_offline(tmp_path):
    out = tmp_path / "site"
    pages = load_builder().build(out)
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert {p.name for p in pages} == {"index.html", "theory.html", "solutions.html"} | {f"{p.stem}.html" for p in notebooks}
    index = (out / "index.html").read_text()
    for nb in notebooks:
        page = (out / f"{nb.stem}.html").read_text()
        assert f'href="{nb.stem}.html"' in index
        figures = sum("image/png" in o.get("data", {}) for c in nbformat.read(nb, 4).cells for o in c.get("outputs", []))
        assert figures >= 1 and page.count("data:image/png;base64,") >= figures, f"{nb.name}: figures missing"
        assert "Explorer:" in page, f"{nb.name}: the explorer's text form is missing"
        assert "theory.html#" in page, f"{nb.name}: the theory link was not rewritten"
    for page in out.glob("*.html"):
        text = page.read_text()
        assert not re.search(r'<script[^>]+src="https?:', text), f"{page.name} loads a script from the network"
        assert not re.search(r'<link[^>]+href="https?:[^"]+\.css', text), f"{page.name} loads a stylesheet from the network"
    assert (out / "mathjax" / "MathJax.js").exists()
    theory = (out / "theory.html").read_text()
    assert 'id="2-measuring-isotropy"' in theory and 'href="01_sphere_vs_cone.html"' in theory


def test_student_site_leaves_out_the_worked_solutions(tmp_path):
    """The build for a graded class: no solutions page, and no page links or leads to one."""
    out = tmp_path / "site"
    pages = load_builder().build(out, student=True)
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    assert {p.name for p in pages} == {"index.html", "theory.html"} | {f"{p.stem}.html" for p in notebooks}
    for page in pages:
        text = page.read_text()
        assert "solutions.html" not in text and "SOLUTIONS.md" not in text, f"{page.name} leads to the solutions"
        assert not re.search(r'solution\("\d\d\.\d"\)', text), f"{page.name} shows how to open a solution"
