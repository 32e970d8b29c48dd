"""Every "Try this." prompt has an answer in SOLUTIONS.md, and every number in an answer is computed.

SOLUTIONS.md answers the prompts of each notebook in a section ``## Try this · NN · ...``, one
``### Try this NN.k`` per prompt. The figures an answer quotes come from ``pycon`` blocks: calls of
the explorer's function (or the toolkit functions its view reads) at the prompt's settings, with the
output they print. This test runs those blocks as doctests, one namespace per notebook, so an
answer whose figures drift from what the explorer shows fails here; the prose-number test then
accepts a number in the answer's text only if such a block (or a notebook) prints it.

The blocks of 01-06 and 08 take seconds and run by default. Those of 07 and 09 run the real
models (the encoder over the corpus, the decoder and its per-layer profile, well over 30 s on
two cores), so they run with the long suites (``-m exhaustive``, which ``.ci/run`` includes).
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "notebooks" / "SOLUTIONS.md"
STEMS = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
REAL_MODELS = ("07", "09")  # their blocks encode or decode the corpus: long
SECTION = re.compile(r"^## Try this · (\d\d) · .*?(?=^## |\Z)", re.S | re.M)
ANSWER = re.compile(r"^### Try this (\d\d)\.(\d+)\b.*?(?=^### |^## |\Z)", re.S | re.M)
PYCON = re.compile(r"```pycon\n(.*?)```", re.S)
PROMPT = re.compile(r"^(\d+)\. ", re.M)


def sections() -> dict[str, str]:
    """The Try-this section of each notebook, by its two-digit number."""
    return {m.group(1): m.group(0) for m in SECTION.finditer(SOLUTIONS.read_text(encoding="utf-8"))}


def prompts(stem: str) -> list[int]:
    """The numbers of the prompts in the notebook's "Try this." list."""
    for cell in jupytext.read(ROOT / "notebooks" / f"{stem}.py").cells:
        if cell.cell_type == "markdown" and "**Try this.**" in cell.source:
            listing = cell.source.split("**Try this.**", 1)[1].split("\n\n", 1)[0]
            return [int(n) for n in PROMPT.findall(listing)]
    return []


def test_prompts_are_found_in_every_notebook():
    assert all(len(prompts(stem)) >= 3 for stem in STEMS), {stem: prompts(stem) for stem in STEMS}


@pytest.mark.parametrize("stem", STEMS, ids=lambda s: s[:2])
def test_every_prompt_has_one_answer_with_computed_figures(stem):
    section = sections().get(stem[:2])
    assert section is not None, f"SOLUTIONS.md has no section '## Try this · {stem[:2]} · ...'"
    answers = [(m.group(1), int(m.group(2)), m.group(0)) for m in ANSWER.finditer(section)]
    assert [nb for nb, _, _ in answers] == [stem[:2]] * len(answers)
    assert [k for _, k, _ in answers] == prompts(stem), "one answer per prompt, in the notebook's order"
    for _, k, text in answers:
        outputs = [ex.want for block in PYCON.findall(text)
                   for ex in doctest.DocTestParser().get_examples(block) if ex.want.strip()]
        assert outputs, f"answer {stem[:2]}.{k} prints nothing: its figures are not computed by any block"


@pytest.mark.parametrize("stem", [pytest.param(s, marks=pytest.mark.exhaustive) if s[:2] in REAL_MODELS else s
                                  for s in STEMS], ids=lambda s: s[:2])
def test_answer_blocks_print_what_the_answers_quote(stem):
    section = sections().get(stem[:2])
    assert section is not None
    source = "\n".join(PYCON.findall(section))
    test = doctest.DocTestParser().get_doctest(source, {"__name__": f"try_this_{stem[:2]}"}, f"Try this · {stem[:2]}",
                                               str(SOLUTIONS), 0)
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    result = runner.run(test, out=report.append, clear_globs=True)
    assert result.attempted > 0
    assert result.failed == 0, "".join(report)
