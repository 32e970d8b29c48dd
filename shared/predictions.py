"""Committed predictions: each "Predict first" prompt of the notebooks as a small widget.

A notebook writes, right below the prompt::

    predict("02.p1")

and the learner picks one of the options (or types a guess of their own) and presses *Commit*.
The cells below the widget, up to and including the first one tagged ``reveal-end`` (the folded
output that answers the prompt and the prose that explains it), stay hidden in JupyterLab and
Notebook 7 until the learner has committed a guess and pressed *Show the answer*
(:class:`Reveal`, its front end ``data/reveal.js``); the browser remembers the reveal.
The committed option goes to the class view as one event (:mod:`shared.events`; a typed guess is
sent as ``typed``, never its text), so the teacher sees how the class voted before anyone is told.

Run unattended (nbval, a notebook run top to bottom) the widget only waits: nothing blocks and
nothing is sent, and nbval, which reads only the stored outputs, sees every cell. Its text form
(what a notebook stores as ``text/plain``) names the prediction and its options, never the answer.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

import anywidget
import ipywidgets as widgets
import traitlets

#: The tag of the last cell a prediction hides until its guess is committed and the answer asked for.
END_TAG = "reveal-end"

@dataclass(frozen=True)
class Prediction:
    """A "Predict first" prompt: the question in a few words, and the options as (id, words)."""

    question: str
    options: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        ids = [i for i, _ in self.options]
        if len(ids) < 2 or len(set(ids)) != len(ids) or not all(re.fullmatch(r"[a-z][a-z0-9_]{0,47}", i) for i in ids):
            raise ValueError(f"options: expected two or more distinct ids (lower case, digits, _), got {ids}")
        if "typed" in ids:
            raise ValueError("options: 'typed' is kept for a guess typed by the learner")


def _p(question: str, *options: str) -> Prediction:
    """A prediction whose option ids are the options' first words, as ``near_1``."""
    return Prediction(question, tuple((re.sub(r"[^a-z0-9]+", "_", o.split(":")[0].lower()).strip("_"), o) for o in options))


#: Every "Predict first" prompt of the course, by notebook and order of appearance ("01.p1", ...).
PREDICTIONS: dict[str, Prediction] = {
    "01.p1": _p("The cone's effective rank, of 50", "close to 50", "about 10", "close to 1"),
    "01.p2": _p("Which meters notice a shift of +3 on every coordinate?", "none", "the cosine meters only",
                "the spectrum meters only", "all of them"),
    "02.p1": _p("The mean cosine of two random points of the cone", "about 0", "about a half", "close to 1"),
    "02.p2": _p("Does centring remove the rogue coordinate's grip on the cosine?", "yes", "no", "partly"),
    "03.p1": _p("The mean cosine after 40 layers of attention", "near 0", "about halfway", "near 1"),
    "04.p1": _p("The most frequent token's norm, and a cone from the pull?", "about sqrt 50, no cone",
                "smaller, no cone", "smaller, and a cone", "larger, and a cone"),
    "04.p2": _p("Which band becomes a cone?", "the frequent tokens", "the rare ones", "both", "neither"),
    "04.p3": _p("Trained four times longer, the rare cone", "grows", "stays", "fades", "depends on the regime"),
    "05.p1": _p("Are 60 steps enough for the largest eigenvalue (10 % above the mean) to take over?", "yes", "no"),
    "05.p2": _p("What the loop makes of a start that is barely a cone", "a strong cone", "nothing changes",
                "a collapsed spread"),
    "05.p3": _p("Which of the two makes a cone, which a collapsed spread?", "first a cone, second a spread",
                "first a spread, second a cone", "both cones", "both spreads"),
    "06.p1": _p("Is the whitened cloud's partition isotropy exactly 1?", "yes exactly 1", "close to 1 not exactly",
                "far from 1"),
    "06.p2": _p("Which setting separates the labels best?", "raw", "centring only", "removing the top direction",
                "full whitening", "depends on the cloud"),
    "06.p3": _p("Labels in weak directions again: does whitening win again?", "yes", "no"),
    "06.p4": _p("On the mixed cloud, which remedy wins?", "the strong direction's", "the weak directions'",
                "depends on the seed"),
    "07.p1": _p("A trained model's input embeddings", "close to the sphere", "close to the cone"),
    "07.p2": _p("This model's last layer", "a strong cone", "close to isotropic", "as in the middle layers"),
    "07.p3": _p("Do frequent words have the smaller norms here?", "yes", "no", "no relation"),
    "07.p4": _p("Which remedy makes held-out tokens most isotropic?", "centring", "all but the top", "whitening"),
    "07.p5": _p("Does a remedy make the hard negatives easier?", "yes", "no", "only the easy ones"),
    "08.p1": _p("GloVe's 50,000 most frequent words", "a cone", "a collapsed spread", "both", "neither"),
    "08.p2": _p("More, rarer rows: the cone", "weaker", "stronger", "neither"),
    "08.p3": _p("Does partition isotropy keep rising with D?", "yes", "no it peaks", "no it falls at once"),
    "08.p4": _p("Does removing the top directions help both benchmarks?", "both", "one of them", "neither"),
    "08.p5": _p("Is the first principal axis the one most tied to frequency?", "yes", "no"),
    "09.p1": _p("Where the decoder's vocabulary lands", "near the sphere", "a cone", "a collapsed spread"),
    "09.p2": _p("What carries this decoder's cone?", "the first token", "a few coordinates", "all of them"),
}


class Reveal(anywidget.AnyWidget):
    """Hides the cells after the prediction's cell, up to the one tagged :data:`END_TAG`, until
    ``committed`` is set and the learner presses *Show the answer* (then ``revealed`` is true)."""

    _esm = (Path(__file__).parent / "data" / "reveal.js").read_text(encoding="utf-8")
    number = traitlets.Unicode().tag(sync=True)
    end_tag = traitlets.Unicode(END_TAG, read_only=True).tag(sync=True)
    committed = traitlets.Unicode("").tag(sync=True)
    revealed = traitlets.Bool(False).tag(sync=True)


class PredictionWidget(widgets.VBox):
    """The options of one prediction, a box to type a guess instead, and *Commit*."""

    def __init__(self, number: str, prediction: Prediction) -> None:
        self.number, self.prediction, self.committed = number, prediction, None
        self.choice = widgets.RadioButtons(options=[(words, i) for i, words in prediction.options], value=None,
                                           layout={"width": "auto"})
        self.typed = widgets.Text(placeholder="or type your own guess", layout={"width": "400px"})
        self.button = widgets.Button(description="Commit my guess", button_style="primary", disabled=True)
        self.after = widgets.HTML(f"<i>Prediction {html.escape(number)}: pick or type a guess, then commit it; "
                                  "then show the answer below and read on.</i>")
        self.reveal = Reveal(number=number)
        self.choice.observe(self._ready, "value")
        self.typed.observe(self._ready, "value")
        self.button.on_click(lambda _: self.commit())
        super().__init__([widgets.HTML(f"<b>Your prediction: {html.escape(prediction.question)}</b>"), self.choice,
                          self.typed, self.button, self.after, self.reveal])
        self.add_class("course-prediction")

    def _ready(self, _change=None) -> None:
        self.button.disabled = self.committed is not None or (self.choice.value is None and not self.typed.value.strip())

    def commit(self) -> str:
        """Commit the picked option (or the typed guess): send it once, lock the widget, let the learner
        show the answer.
        Returns the option id sent (``typed`` for a typed guess)."""
        if self.committed is not None:
            return self.committed
        if self.choice.value is None and not self.typed.value.strip():
            raise ValueError(f"prediction {self.number}: pick an option or type a guess before committing")
        guess = self.choice.value if self.choice.value is not None else "typed"
        from . import events

        events.emit(self.number, "prediction", "guess", events.next_attempt(self.number), guess=guess)
        self.committed = self.reveal.committed = guess
        for control in (self.choice, self.typed, self.button):
            control.disabled = True
        said = dict(self.prediction.options).get(guess, self.typed.value.strip())
        self.after.value = (f"Committed: <b>{html.escape(said)}</b>. When it is time, show the answer, open the "
                            "folded output below and compare it with your guess before you read the explanation.")
        return guess

    def __repr__(self) -> str:
        return f"Prediction {self.number}: pick or type a guess, then commit it"


def predict(number: str) -> PredictionWidget:
    """The widget of prediction ``number`` ("01.p1", ...): pick or type a guess and commit it."""
    if not isinstance(number, str) or number not in PREDICTIONS:
        raise ValueError(f"number: unknown prediction {number!r}; known: {', '.join(PREDICTIONS)}")
    return PredictionWidget(number, PREDICTIONS[number])


__all__ = ["END_TAG", "PREDICTIONS", "Prediction", "PredictionWidget", "Reveal", "predict"]
