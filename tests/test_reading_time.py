"""Each notebook's claimed time matches what it asks of a learner (benchmarks/reading_time.py's model).

Only counts are compared here (prose words, exercises, prompts), which do not depend on the
machine; the running times are the ones recorded in the benchmark script.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from benchmarks import reading_time

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def test_the_model_adds_reading_exercises_predictions_prompts_and_running(tmp_path):
    nb = nbformat.v4.new_notebook()
    printed = nbformat.v4.new_code_cell("print(table)")
    printed.outputs = [nbformat.v4.new_output("stream", name="stdout", text="meter   value\nrank    17.3\ncosine  +0.845\n"),
                       nbformat.v4.new_output("stream", name="stderr", text="a warning is not read\n")]
    appendix_table = nbformat.v4.new_code_cell("print(more)")
    appendix_table.outputs = [nbformat.v4.new_output("stream", name="stdout", text="not on the lesson's path\n")]
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 99 · Title\n\n**Time:** about 20 minutes. " + "word " * 291),
        nbformat.v4.new_code_cell("x = 1  # code is not prose " + "word " * 500),
        nbformat.v4.new_markdown_cell("**Predict first.** Guess."),
        printed,
        nbformat.v4.new_markdown_cell("```python\nnot counted either\n```\n**Try this.**\n1. One.\n2. Two.\n\nAfter."),
        nbformat.v4.new_markdown_cell("**Your turn · 99.1 · Implement.** Write.\n\n**99.2 · Predict.** Say.\n\n"
                                      "Before the appendix.\n\n## Appendix A · Extra\n\n**99.3 · Explain.** Why."),
        appendix_table,
    ]
    path = tmp_path / "99_title.ipynb"
    nbformat.write(nb, path)
    t = reading_time.notebook_time(path, run_seconds=30.0)
    # words: 2 (99 Title) + 4 (Time about 20 minutes) + 291 + 3 (Predict first Guess) + 2 (Try this)
    # + 4 (1 One 2 Two) + 1 (After) + 5 (Your turn 99.1 Implement Write) + 3 (99.2 Predict Say)
    # + 3 (Before the appendix); code, fenced blocks and the appendix do not count, but its exercise does
    assert (t.words, t.printed) == (318, 6)  # meter value rank 17.3 cosine +0.845
    assert (t.questions, t.implementations, t.predictions, t.prompts, t.claimed) == (2, 1, 1, 2, 20)
    assert t.reading == pytest.approx(324 / reading_time.WORDS_PER_MINUTE)
    assert t.hands_on == pytest.approx(2 * 3 + 8 + 1 + 2 * 2 + 30 / 60)
    assert t.estimate == pytest.approx(t.reading + t.hands_on)


def test_the_reading_rate_is_a_technical_one():
    assert 100 <= reading_time.WORDS_PER_MINUTE <= 120


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_counts_find_the_exercises_and_prompts(path):
    t = reading_time.notebook_time(path)
    assert t.implementations == 1 and 2 <= t.questions <= 3
    assert 3 <= t.prompts <= 5 and 1 <= t.predictions <= 5
    assert t.words > 500 and t.printed > 50, "every notebook prints tables a learner reads"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_claimed_time_is_within_a_quarter_of_the_estimate(path):
    t = reading_time.notebook_time(path)
    assert abs(t.off_by) <= reading_time.TOLERANCE, (
        f"{path.name}: claims about {t.claimed} minutes, the model estimates {t.estimate:.0f} "
        f"({t.words} words, {t.printed} printed, {t.questions} questions, {t.implementations} to implement, "
        f"{t.predictions} predictions, {t.prompts} prompts)")


def test_teaching_guide_gives_each_notebook_the_time_its_header_claims():
    guide = (ROOT / "TEACHING.md").read_text(encoding="utf-8")
    stated = dict(re.findall(r"^### (\d\d) · .*\(about (\d+) minutes, estimated\)", guide, re.M))
    claimed = {path.stem[:2]: str(reading_time.notebook_time(path).claimed) for path in NOTEBOOKS}
    assert stated == claimed


def test_teaching_guide_plans_a_90_minute_class_for_each_notebook():
    """The class plan's table: per notebook, the minutes of a 90-minute class spent reading together
    and hands-on, which add up to 90, with hands-on time in every class."""
    guide = (ROOT / "TEACHING.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| \[(\d\d)\]\([^)]*\) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|", guide, re.M)
    assert sorted(r[0] for r in rows) == sorted(path.stem[:2] for path in NOTEBOOKS)
    for name, alone, together, hands_on, rest in rows:
        t = reading_time.notebook_time(next(p for p in NOTEBOOKS if p.stem.startswith(name)))
        assert int(alone) == t.claimed, f"{name}: the plan's time alone is not the header's"
        assert int(together) + int(hands_on) + int(rest) == 90, f"{name}: the class does not fill 90 minutes"
        assert int(hands_on) >= 20, f"{name}: a class needs hands-on time"


def test_every_time_shown_is_labelled_an_estimate():
    """The headers, the teaching guide's headings and its class table, and the benchmark's table say
    that the minutes are an estimate from a model, not a measurement."""
    for path in NOTEBOOKS:
        header = nbformat.read(path, as_version=4).cells[0].source
        line = re.search(r"\*\*Time:\*\* about \d+ minutes[^.]*", header).group(0)
        assert "an estimate" in line and "not timed" in line, f"{path.name}: {line!r}"
    guide = (ROOT / "TEACHING.md").read_text(encoding="utf-8")
    headings = re.findall(r"^### \d\d · .*minutes.*$", guide, re.M)
    assert len(headings) == len(NOTEBOOKS) and all(h.endswith("minutes, estimated)") for h in headings), headings
    assert "| notebook | alone (estimated) |" in guide
    assert "no learner has been timed" in guide
    assert "not a measurement" in reading_time.__doc__
