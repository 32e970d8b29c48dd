"""Prose cannot go stale: every number a notebook's text quotes is one its code prints or writes.

The course's other documents (the theory file, TEACHING, SOLUTIONS and the README) are held to the
same rule against every notebook together: a number they quote must be printed or written by some
notebook (published figures included: the notebooks print them beside their own), or stand in one
of the document's own code blocks (``answer = 768 / 100  # 7.68``). In SOLUTIONS.md the answers to
the notebooks' "Try this." prompts quote figures that their ``pycon`` blocks print; those blocks run
as doctests (tests/test_try_this.py), so a figure quoted there is one a test computes.

A number in a markdown cell (a decimal such as 0.690 or -0.003, or a grouped integer such as
1,200) must equal, as a number, one that appears in the notebook's stored outputs or in its code.
A figure derived in the text (1/50 = 0.020) has to be computed and printed by the notebook too.
A sign written in the text must match; an unsigned number may match either sign. Numbers in
link targets, section numbers (§4.2) and identifiers such as arXiv:1909.00512 are not quotes of a
measurement, and neither is the line that states an exercise (``**03.1 · Compute.** ... exceed 0.9``)
nor the label of an exercise or prompt (``exercise 08.3``, ``Try this 09.4``).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

NUMBER = re.compile(r"(?<![\w.,§])([-+−]?)(\d{1,3}(?:,\d{3})+|\d+\.\d+)(?![\w])")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
EXERCISE = re.compile(r"\*\*\d\d\.\d · ")
IDENTIFIER = re.compile(r"arXiv:\s*\d{4}\.\d{4,5}|\b\d{4}\.\d{4,5}\b|\b(?:[Tt]ry this|[Ee]xercises?) \d\d\.\d\b")


def numbers(text: str) -> list[tuple[str, float]]:
    """Every (sign, value) quoted in ``text``; sign is "" where the text writes none."""
    text = IDENTIFIER.sub(" ", LINK_TARGET.sub("]", text))
    out = []
    for sign, digits in NUMBER.findall(text.replace("−", "-")):
        value = float(digits.replace(",", ""))
        out.append((sign, value))
    return out


def available(nb: nbformat.NotebookNode) -> set[float]:
    """Signed values printed by the notebook (text outputs) or written in its code."""
    texts = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        texts.append(cell.source)
        for output in cell.outputs:
            if output.output_type == "stream":
                texts.append(output.text)
            elif "data" in output and "text/plain" in output.data:
                texts.append(output.data["text/plain"])
    found = set()
    for text in texts:
        for sign, value in numbers(text):
            found.add(-value if sign == "-" else value)
        # plain integers in code and outputs count too (1,200 in prose, 1200 in code)
        found.update(float(m) for m in re.findall(r"(?<![\w.])(\d+)(?![\w.])", text))
    return found


def stale(path: Path) -> list[str]:
    nb = nbformat.read(path, as_version=4)
    have = available(nb)
    missing = []
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        text = "\n".join(line for line in cell.source.splitlines() if not EXERCISE.match(line))
        for sign, value in numbers(text):
            signed = -value if sign == "-" else value
            ok = signed in have if sign else (value in have or -value in have)
            if not ok:
                missing.append(f"{sign}{value:g}")
    return missing


def test_numbers_are_read_with_their_sign_and_grouping():
    assert numbers("mean −0.003 and +0.845, 1,200 tokens, arXiv:1909.00512, §4.2, [§2](x.md#2-0.5)") == [
        ("-", 0.003), ("+", 0.845), ("", 1200.0)]
    assert numbers("### Try this 09.4, as exercise 08.3 and Exercise 05.3 ask: 0.583") == [("", 0.583)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_every_number_in_the_text_is_printed_or_written_in_code(path):
    missing = stale(path)
    assert not missing, f"{path.name}: quoted in the text but neither printed nor in the code: {missing}"


DOCUMENTS = [ROOT / "research" / "03-isotropy-anisotropy.md", ROOT / "TEACHING.md", ROOT / "README.md",
             ROOT / "notebooks" / "SOLUTIONS.md"]
CODE_BLOCK = re.compile(r"```[a-z]*\n(.*?)```", re.S)


@pytest.fixture(scope="module")
def printed_anywhere() -> set[float]:
    have = set()
    for path in NOTEBOOKS:
        have |= available(nbformat.read(path, as_version=4))
    return have


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_every_number_in_a_document_is_printed_by_a_notebook(path, printed_anywhere):
    text = path.read_text(encoding="utf-8")
    have = set(printed_anywhere)
    for block in CODE_BLOCK.findall(text):
        have |= {-v if s == "-" else v for s, v in numbers(block)}
        have.update(float(m) for m in re.findall(r"(?<![\w.])(\d+)(?![\w.])", block))
    prose = CODE_BLOCK.sub(" ", text)
    prose = "\n".join(line for line in prose.splitlines() if not EXERCISE.match(line))
    missing = sorted({f"{s}{v:g}" for s, v in numbers(prose)
                      if not ((-v if s == "-" else v) in have if s else (v in have or -v in have))})
    assert not missing, f"{path.name}: quoted but printed by no notebook: {missing}"


def test_the_readmes_browser_figures_are_the_ones_the_benchmark_wrote():
    """The README's line of one learner's slider medians in a browser quotes the run that
    ``benchmarks/browser.py`` wrote to ``benchmarks/results/browser.json``: every notebook's median and
    p95, the moves the page held, and the floor."""
    import json

    results = json.loads((ROOT / "benchmarks" / "results" / "browser.json").read_text())
    readme = (ROOT / "README.md").read_text().splitlines()

    def line(start: str) -> str:
        return next(text for text in readme if text.startswith(start))

    medians, held = line("one learner in a browser, slider median / p95"), line("moves whose picture the page held")
    for stem, row in results["notebooks"].items():
        assert f"{stem[:2]} {row['median_ms']} / {row['p95_ms']}" in medians, (stem, row)
        if row["drawn_ahead"]:
            assert f"{stem[:2]} {row['drawn_ahead']} of {row['moves']}" in held, (stem, row)
    floor = results["live_floor"]
    assert f"{floor['median_ms']} / {floor['p95_ms']}" in line("a live explorer whose kernel draws nothing")
