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


def test_the_model_adds_reading_exercises_prompts_and_running(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 99 · Title\n\n**Time:** about 20 minutes. " + "word " * 291),
        nbformat.v4.new_code_cell("x = 1  # code is not prose " + "word " * 500),
        nbformat.v4.new_markdown_cell("```python\nnot counted either\n```\n**Try this.**\n1. One.\n2. Two.\n\nAfter."),
        nbformat.v4.new_markdown_cell("**Your turn · 99.1 · Implement.** Write.\n\n**99.2 · Predict.** Say.\n\n"
                                      "**99.3 · Explain.** Why."),
    ]
    path = tmp_path / "99_title.ipynb"
    nbformat.write(nb, path)
    t = reading_time.notebook_time(path, run_seconds=30.0)
    # words: 2 (99 Title) + 4 (Time about 20 minutes) + 291 + 2 (Try this) + 4 (1 One 2 Two) + 1 (After)
    # + 5 (Your turn 99.1 Implement Write) + 3 + 3; code cells and fenced blocks do not count
    assert (t.words, t.questions, t.implementations, t.prompts, t.claimed) == (315, 2, 1, 2, 20)
    assert t.estimate == pytest.approx(315 / 150 + 2 * 3 + 8 + 2 * 2 + 30 / 60)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_counts_find_the_exercises_and_prompts(path):
    t = reading_time.notebook_time(path)
    assert t.implementations == 1 and 2 <= t.questions <= 3
    assert 3 <= t.prompts <= 5
    assert t.words > 500


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_claimed_time_is_within_a_quarter_of_the_estimate(path):
    t = reading_time.notebook_time(path)
    assert abs(t.off_by) <= reading_time.TOLERANCE, (
        f"{path.name}: claims about {t.claimed} minutes, the model estimates {t.estimate:.0f} "
        f"({t.words} words, {t.questions} questions, {t.implementations} to implement, {t.prompts} prompts)")


def test_teaching_guide_gives_each_notebook_the_time_its_header_claims():
    guide = (ROOT / "TEACHING.md").read_text(encoding="utf-8")
    stated = dict(re.findall(r"^### (\d\d) · .*\(about (\d+) minutes\)", guide, re.M))
    claimed = {path.stem[:2]: str(reading_time.notebook_time(path).claimed) for path in NOTEBOOKS}
    assert stated == claimed
