"""The exercises as the notebooks ask them: right options spread over the letters, every question
before the prose that explains it and after the data it reads, every "Predict first" made before
its answer is visible, and the worked solution shown only on request."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from shared.exercises import EXERCISES, Exercise

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("0[1-9]_*.ipynb"))
CHOICES = sorted(name for name, ex in EXERCISES.items() if isinstance(ex, Exercise) and ex.choices)


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def source(cell: dict) -> str:
    return "".join(cell["source"])


def test_no_letter_is_right_in_more_than_two_fifths_of_the_multiple_choice_questions():
    letters = Counter(EXERCISES[name].reference() for name in CHOICES)
    assert len(CHOICES) >= 10
    worst, count = letters.most_common(1)[0]
    assert count <= 0.4 * len(CHOICES), f"option {worst} is right in {count} of {len(CHOICES)}: {dict(letters)}"
    assert set(letters) == {"a", "b", "c"}, "every letter is right somewhere"


def test_the_notebooks_and_the_worked_solutions_state_the_same_options():
    solutions = (ROOT / "notebooks" / "SOLUTIONS.md").read_text(encoding="utf-8")
    for name in CHOICES:
        notebook = next(p for p in NOTEBOOKS if p.name.startswith(name[:2]))
        asked = re.search(rf"\*\*{re.escape(name)} · \w+\.\*\* [^\n]*?(\(a\) [^\n]*)", notebook.with_suffix(".py").read_text())
        stated = re.search(rf"^### {re.escape(name)} · \w+\n\n[^\n]*?(\(a\) [^\n]*)", solutions, re.M)
        assert asked and stated, name
        assert asked.group(1).strip() == stated.group(1).strip(), name
        answer = re.search(rf"^### {re.escape(name)} · .*?answer = \"(\w)\"", solutions, re.M | re.S).group(1)
        assert answer == EXERCISES[name].reference(), name


def predictions(path: Path) -> list[tuple[int, list[dict], dict]]:
    """Each "Predict first" prompt: its cell's index, the code cells that answer it (up to the next
    markdown cell, after the cell of its widget, ``predict(...)``, whose output is the question
    itself and stays open) and that markdown cell."""
    found = []
    nb = cells(path)
    for i, cell in enumerate(nb):
        if cell["cell_type"] == "markdown" and "**Predict first.**" in source(cell):
            j = i + 1
            if nb[j]["cell_type"] == "code" and source(nb[j]).startswith("predict("):
                j += 1
            answering = []
            while nb[j]["cell_type"] == "code":
                answering.append(nb[j])
                j += 1
            found.append((i, answering, nb[j]))
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_the_output_that_answers_a_prediction_is_folded_and_the_prose_after_it_compares(path):
    found = predictions(path)
    assert found, f"{path.name} has no 'Predict first' prompt"
    for index, answering, after in found:
        assert answering, f"{path.name}: prompt in cell {index} is not followed by the cell that answers it"
        assert any(cell["outputs"] for cell in answering), f"{path.name}: cell {index}'s answer prints nothing"
        for cell in answering:
            assert cell["metadata"].get("jupyter", {}).get("outputs_hidden") is True, (
                f"{path.name}: the output answering the prompt of cell {index} is not folded: {source(cell)[:60]!r}")
        assert source(after).startswith("**Compare with your guess"), (
            f"{path.name}: the prose after the prompt of cell {index} starts with the answer: {source(after)[:60]!r}")


def test_there_are_predictions_in_every_notebook_and_all_are_counted():
    assert sum(len(predictions(path)) for path in NOTEBOOKS) >= 27


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_the_worked_solution_is_a_commented_call_in_each_exercise_cell(path):
    code = [source(cell) for cell in cells(path) if cell["cell_type"] == "code"]
    asked = [re.search(r'^check\("(\d\d\.\d)"', c, re.M) for c in code]
    asked = [(c, m.group(1)) for c, m in zip(code, asked) if m]
    assert asked
    for cell, name in asked:
        assert f'\n# solution("{name}")' in cell, f"{path.name}: the cell of {name} has no commented reveal"
    assert not any(re.search(r"^\s*solution\(", c, re.M) for c in code), "a stored cell reveals a solution"
    assert "from shared.exercises import check, solution" in code[0] + "".join(code)


# Where each question's explanation starts: a phrase of the prose that answers it, which must come
# after the question; and, where the question reads a printed table, a phrase of the cell that prints
# it, which must come before.
EXPLAINED_BY = {
    "01.2": ("**What the table teaches.**", "print(meter_table(clouds))"),
    "02.1": ("their cosine is about $\\mathcal N(0, 1/d)$", None),
    "02.2": ("Two points share the direction $u$, which carries most of their length", "CosineView(cos_iso, cos_cone)"),
    "03.2": ("**What the table says.** Attention makes a **cone, not a collapsed spread**", None),
    "03.3": ("**What you see.** In all five seeds", None),
    "04.1": ("**What the table says.** The pull leaves every meter where it was", "print(meter_table({\"frequency pull"),
    "04.3": ("**Which control stops it?**", None),
    "05.3": ("which then holds a share $g_k^2 / (g_k^2 + d - 1)$", None),
    "05.2": ("A spectrum is a covariance, and a covariance says nothing about where the cloud's centre is", None),
    "06.2": ("every unit vector is an eigenvector, and the ones a LAPACK routine returns", "X_white = zca_whiten(X_cone)"),
    "06.3": ("### Why whitening hurts cloud A, and helps cloud B", 'TradeoffView(sweeps["B: labels in weak directions"]'),
    "07.3": ("**What you see.** Centring takes the held-out mean cosine to about 0", "for layer in (3, 6):"),
    "07.2": ("**What you see.** Two opposite answers.", "NormFrequencyView(freq)"),
    "07.4": ("On this split, cut to 128 directions, shrunk, or fitted on all", "checks = variant_checks()"),
    "08.1": ("Frequent words and rare words lean in nearly opposite directions", "ROWS = (10_000, 50_000"),
    "08.3": ("**Why they differ.** After centring, every direction has $Z(c) \\ge n$", "StaticVectorsView(eigs_raw"),
    "08.4": ("**What you see.** Norm falls with rank", None),
    "09.2": ("**What you see.** A cone from layer 2 on", "DecoderLayersView(profile"),
    "09.3": ("The mean is pulled up by the \"the\" tokens", None),
}


@pytest.mark.parametrize("name", sorted(EXPLAINED_BY))
def test_a_question_comes_before_the_prose_that_explains_it_and_after_its_data(name):
    path = next(p for p in NOTEBOOKS if p.name.startswith(name[:2]))
    text = "\n".join(source(cell) for cell in cells(path))
    asked = text.index(f"**{name} · ")
    explained, data = EXPLAINED_BY[name]
    assert text.count(explained) == 1, f"{name}: the explaining phrase is not unique: {explained!r}"
    assert asked < text.index(explained), f"{name} is asked after the prose that explains it"
    if data is not None:
        assert text.index(data) < asked, f"{name} is asked before the output it reads"


# Phrases that answered a question from above it, before it was moved or the prose reworded: none may
# come before the question again.
ANSWERED_ABOVE = {
    "04.1": ["direction untouched", "norms, not directions", "changes only lengths"],
    "06.3": ["Whitening gives every direction unit variance", "the weak label directions",
             "whitening raises the share", "whitening amplifies noise"],
    "08.4": ["had norm rising with", "the most frequent tokens the longest vectors"],
}


@pytest.mark.parametrize("name", sorted(ANSWERED_ABOVE))
def test_no_prose_above_a_question_gives_its_answer(name):
    path = next(p for p in NOTEBOOKS if p.name.startswith(name[:2]))
    text = "\n".join(source(cell) for cell in cells(path))
    above = text[: text.index(f"**{name} · ")]
    assert not [phrase for phrase in ANSWERED_ABOVE[name] if phrase in above], f"{name} is answered above it"


def test_every_question_has_its_explanation_placed():
    questions = {name for name, ex in EXERCISES.items() if isinstance(ex, Exercise)}
    unplaced = questions - set(EXPLAINED_BY)
    assert unplaced <= {"01.3", "04.4", "06.4"}, "only computations whose working the prose never shows"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_the_output_right_after_a_question_is_folded(path):
    """A question asked just before the table that answers it does not show that table unasked."""
    nb = cells(path)
    for i, cell in enumerate(nb):
        if cell["cell_type"] == "code" and re.search(r'^check\("\d\d\.\d", answer\)', source(cell), re.M):
            j = i + 1
            while j < len(nb) and nb[j]["cell_type"] == "code":
                assert nb[j]["metadata"].get("jupyter", {}).get("outputs_hidden") is True, (
                    f"{path.name}: the output after the question of cell {i} is not folded")
                j += 1


# --- the reveal: what each prediction hides until its guess is committed (shared/predictions.py) ----

def hidden_by(path: Path) -> dict[str, list[dict]]:
    """Each prediction of a notebook and the cells its widget hides: those after the widget's cell,
    up to and including the first one tagged ``reveal-end`` (what ``shared/data/reveal.js`` hides)."""
    from shared.predictions import END_TAG

    nb, found = cells(path), {}
    for i, cell in enumerate(nb):
        asked = re.match(r'predict\("([^"]+)"\)', source(cell)) if cell["cell_type"] == "code" else None
        if asked:
            ends = [j for j in range(i + 1, len(nb)) if END_TAG in nb[j]["metadata"].get("tags", [])]
            found[asked.group(1)] = nb[i + 1:ends[0] + 1] if ends else []
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_each_prediction_hides_its_folded_answer_and_the_prose_that_explains_it_and_nothing_more(path):
    hidden = hidden_by(path)
    assert hidden, f"{path.name} has no prediction widget"
    for (index, answering, compare), (number, cells_hidden) in zip(predictions(path), hidden.items(), strict=True):
        assert cells_hidden, f"{path.name}: prediction {number} has no cell tagged reveal-end after it"
        ids = [c["id"] for c in cells_hidden]
        assert all(c["id"] in ids for c in answering), f"{path.name}: {number} leaves a folded answer shown"
        assert compare["id"] in ids, f"{path.name}: {number} leaves 'Compare with your guess' shown"
        assert cells_hidden[-1]["cell_type"] == "markdown", f"{path.name}: {number} ends on a code cell"
        texts = [source(c) for c in cells_hidden]
        assert not any(t.startswith("predict(") or "**Predict first.**" in t for t in texts), (
            f"{path.name}: {number} hides the next prediction")
        if re.search(r"\*\*\d\d\.\d · ", source(compare)):  # a question between the answer and its explanation
            assert source(compare) != texts[-1], f"{path.name}: {number} shows the explanation below its question"


def test_every_prediction_has_its_own_end_in_the_notebook_and_in_its_mirror():
    from shared.predictions import END_TAG, PREDICTIONS

    ends = {}
    for path in NOTEBOOKS:
        nb = cells(path)
        tagged = [i for i, c in enumerate(nb) if END_TAG in c["metadata"].get("tags", [])]
        hidden = hidden_by(path)
        assert len(tagged) == len(hidden), f"{path.name}: {len(tagged)} reveal-end tags for {len(hidden)} predictions"
        ends.update({number: [c["id"] for c in cells_hidden][-1:] for number, cells_hidden in hidden.items()})
        mirror = path.with_suffix(".py").read_text(encoding="utf-8")
        assert mirror.count(f'tags=["{END_TAG}"]') == len(tagged), f"{path.stem}.py does not keep the reveal-end tags"
    assert sorted(ends) == sorted(PREDICTIONS) and all(ends.values())
    assert len({tuple(v) for v in ends.values()}) == len(ends), "two predictions share one end"


def test_the_widget_carries_its_reveal_and_keeps_its_text_and_its_commit():
    from shared.predictions import END_TAG, Reveal, predict

    widget = predict("02.p1")
    assert isinstance(widget.reveal, Reveal) and widget.reveal in widget.children
    assert (widget.reveal.number, widget.reveal.end_tag, widget.reveal.committed) == ("02.p1", END_TAG, "")
    assert "export default" in widget.reveal._esm and "end_tag" in widget.reveal._esm
    assert repr(widget) == "Prediction 02.p1: pick or type a guess, then commit it"
    widget.choice.value = "close_to_1"
    assert widget.commit() == "close_to_1" and widget.reveal.committed == "close_to_1"
    assert widget.reveal.revealed is False  # the learner shows the answer in the page, when it is time

