"""Build a static HTML version of the executed course that opens offline in a browser.

    uv run python scripts/build_site.py [OUTPUT]            # default OUTPUT: build/site
    uv run python scripts/build_site.py --student [OUTPUT]  # without the worked solutions

One page per notebook, with the outputs stored in the repository (which nbval checks against the
code), the theory file and the worked solutions as pages of their own, and an index. Figures are
embedded in the pages; MathJax is copied next to them, so formulas render without a network.
Explorers need a running kernel, so their pages show what the explorer printed at its default
settings instead of the sliders. The student build (``--student``, for a class whose exercises are
graded) leaves out the worked solutions: no solutions page, no link or line that leads to them.
"""

from __future__ import annotations

import html
import re
import shutil
import sys
from pathlib import Path

import jupyter_server_mathjax
import mistune
import nbformat
from nbconvert import HTMLExporter

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_assignments import for_students  # noqa: E402 (what a student's copy leaves out: one home)

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PAGES = {"research/03-isotropy-anisotropy.md": "theory.html", "notebooks/SOLUTIONS.md": "solutions.html"}
MATHJAX = "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"
WIDGET = "application/vnd.jupyter.widget-view+json"


def page_name(link: str, source: Path) -> str:
    """Where a relative link of the repository points in the built site (anchors kept)."""
    target, hash_, anchor = link.partition("#")
    if not target:
        return link
    path = (source.parent / target).resolve().relative_to(ROOT).as_posix()
    if path.endswith(".ipynb"):
        name = Path(path).stem + ".html"
    else:
        name = PAGES.get(path, target)
    return name + hash_ + anchor


def relink(text: str, source: Path) -> str:
    """Rewrite Markdown links ``[..](target)`` that point inside the repository."""
    return re.sub(
        r"\]\((?![a-z]+:)([^)\s]+)\)", lambda m: f"]({page_name(m.group(1), source)})", text
    )


def notebook_page(path: Path, exporter: HTMLExporter, student: bool = False) -> str:
    nb = nbformat.read(path, as_version=4)
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        if student:
            cell.source = for_students(cell.source)
        if cell.cell_type == "markdown":
            cell.source = relink(cell.source, path)
        for output in cell.get("outputs", []):
            output.get("data", {}).pop(WIDGET, None)  # no kernel: show the explorer's text form
    body, _ = exporter.from_notebook_node(nb)
    return re.sub(r'<script src="">\s*</script>', "", body)  # no require.js or jQuery: nothing to load


def markdown_page(path: Path, title: str) -> str:
    render = mistune.create_markdown(plugins=["math", "table"], escape=False)
    body = render(relink(path.read_text(), path))
    body = re.sub(  # GitHub-style anchors on headings, so links with #anchors work
        r"<h([1-6])>(.*?)</h\1>",
        lambda m: f'<h{m.group(1)} id="{anchor(m.group(2))}">{m.group(2)}</h{m.group(1)}>',
        body,
    )
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<script type="text/x-mathjax-config">MathJax.Hub.Config({{tex2jax: {{inlineMath: [["\\\\(", "\\\\)"]]}}}});</script>
<script src="{MATHJAX}"></script>
<style>body{{max-width:52em;margin:2em auto;font-family:sans-serif;line-height:1.5;padding:0 1em}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:.2em .5em}}
pre{{background:#f6f8fa;padding:.8em;overflow:auto}}</style></head>
<body><p><a href="index.html">Course index</a></p>
{body}</body></html>
"""


def anchor(heading_html: str) -> str:
    text = re.sub(r"<[^>]+>", "", html.unescape(heading_html)).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def index_page(student: bool = False) -> str:
    rows = []
    readme = (ROOT / "README.md").read_text()
    for path in NOTEBOOKS:
        match = re.search(rf"\| \d\d \| \[([^\]]+)\]\(notebooks/{re.escape(path.name)}\) \| ([^|]+) \|", readme)
        title, question = (match.group(1), match.group(2).strip()) if match else (path.stem, "")
        rows.append(f'<tr><td><a href="{path.stem}.html">{path.stem[:2]} · {html.escape(title)}</a></td>'
                    f"<td>{html.escape(question)}</td></tr>")
    intro = " and the theory they rest on" if student else ", the theory they rest on, and worked solutions to the exercises"
    links = "" if student else ' ·\n<a href="solutions.html">Worked solutions</a>'
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Isotropy &amp; Anisotropy</title>
<style>body{{max-width:52em;margin:2em auto;font-family:sans-serif;line-height:1.5;padding:0 1em}}
td{{padding:.3em .6em;vertical-align:top}}</style></head>
<body><h1>Isotropy &amp; Anisotropy</h1>
<p>The executed course: nine notebooks with their figures{intro}.</p>
<table>{''.join(rows)}</table>
<p><a href="theory.html">Theory: isotropy and anisotropy of latent spaces</a>{links}</p>
</body></html>
"""


def build(out: Path, student: bool = False) -> list[Path]:
    """Write the site into ``out`` (replaced if it exists) and return the pages written; a ``student``
    build leaves out the worked solutions."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    shutil.copytree(Path(jupyter_server_mathjax.__file__).parent / "static", out / "mathjax")
    exporter = HTMLExporter(template_name="lab", mathjax_url=MATHJAX, require_js_url="", jquery_url="")
    pages = {out / "index.html": index_page(student)}
    for path in NOTEBOOKS:
        pages[out / f"{path.stem}.html"] = notebook_page(path, exporter, student)
    for source, name in PAGES.items():
        if student and source == "notebooks/SOLUTIONS.md":
            continue
        pages[out / name] = markdown_page(ROOT / source, Path(source).stem)
    for page, text in pages.items():
        page.write_text(text, encoding="utf-8")
    return list(pages)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--student"]
    target = Path(args[0]) if args else ROOT / "build" / "site"
    written = build(target, student="--student" in sys.argv[1:])
    print(f"wrote {len(written)} pages to {target}; open {target / 'index.html'}")
