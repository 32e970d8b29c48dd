"""Exercises that check themselves: ``check("01.1", answer)`` prints a verdict.

Each exercise knows its reference answer (computed with the toolkit where it is a computation),
a tolerance for numbers, and a hint that points at the idea to revisit rather than at the answer.
An unanswered exercise (``None``) prints a reminder and counts as not passed. Worked solutions are
in ``notebooks/SOLUTIONS.md``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .clouds import make_cone, make_planted
from .mechanisms import attention_run, rich_get_richer_run
from .meters import cov_eigs, effective_rank
from .remedies import sweep_remedies


@dataclass(frozen=True)
class Exercise:
    """One exercise: its reference answer, how close is close enough, and what to say.

    The question itself is asked in the notebook (and restated in ``notebooks/SOLUTIONS.md``).
    """

    reference: Callable[[], float | str]
    right: str
    hint: str
    rel_tol: float = 0.02
    abs_tol: float = 0.0
    choices: tuple[str, ...] = ()


def _first(condition: np.ndarray) -> int:
    """Index of the first True (the condition must hold somewhere)."""
    return int(np.argmax(condition))


def _best_k() -> int:
    planted = make_planted(2000, 50, 7)
    curve = sweep_remedies(planted.X[:1000], planted.labels[:1000], planted.X[1000:], planted.labels[1000:],
                           powers=[]).all_but_the_top
    return int(curve.setting[np.argmax(curve.pair_auc)])


def _layer_of_most_cosine() -> float:
    from .realmodel import layer_profile  # the real model is loaded only when this exercise is checked

    return float(np.argmax(layer_profile().mean_cosine))


EXERCISES: dict[str, Exercise] = {
    "01.1": Exercise(
        reference=lambda: 10.0,
        right="k equal eigenvalues give a participation ratio of exactly k.",
        hint="Write PR = (sum of eigenvalues)^2 / (sum of squares) for k equal values c: what cancels?",
        abs_tol=0.05,
    ),
    "01.2": Exercise(
        reference=lambda: effective_rank(cov_eigs(make_cone(2000, 50, 3, strength=2.0, residual=0.1))),
        right="A weaker cone puts less of the variance on u, so more directions count.",
        hint="Use cov_eigs on the cloud, then effective_rank on the eigenvalues (not on the cloud itself).",
    ),
    "01.3": Exercise(
        reference=lambda: "c",
        right="IsoScore centres the cloud first, so it sees only the spread, which is perfectly even.",
        hint="Ask of each meter: does it centre the cloud before measuring? A shift moves only the mean.",
        choices=("a", "b", "c"),
    ),
    "02.1": Exercise(
        reference=lambda: 1.0 / math.sqrt(200),
        right="About 1/sqrt(d): in high dimension random vectors are nearly orthogonal.",
        hint="Notebook 02 found 0.143 for d = 50. How does the spread of a dot product of unit vectors "
        "scale with the number of coordinates?",
        rel_tol=0.15,
    ),
    "02.2": Exercise(
        reference=lambda: "b",
        right="A high random-pair cosine is the baseline of a cloud that leans one way: a shared offset. It "
        "says nothing about meaning, nor about how the variance is spread.",
        hint="Recall notebook 01's centred line (one direction, mean cosine +0.000) and shifted Gaussian "
        "(every direction, mean cosine +0.901): which of the two has a high mean cosine, and why?",
        choices=("a", "b", "c"),
    ),
    "03.1": Exercise(
        reference=lambda: float(_first(np.asarray(attention_run().mean_cos) > 0.9) + 1),
        right="Contraction is gradual at first, then the cosine saturates.",
        hint="run.mean_cos[l - 1] is the value after layer l: find the first index above 0.9 and add 1.",
        rel_tol=0.0,
    ),
    "03.2": Exercise(
        reference=lambda: "b",
        right="Averaging pulls every token to the weighted mean, and a finite sample's mean is never "
        "exactly 0: once the spread is smaller than that tiny offset, every cosine is near 1.",
        hint="Run attention_run(120, offset=0.0) and look at run.clouds[-1]: how far is its centre from "
        "the origin compared with its spread?",
        choices=("a", "b", "c"),
    ),
    "03.3": Exercise(
        reference=lambda: "b",
        right="Attention mixes tokens only within their own sequence; sequences that share nothing at the "
        "start share nothing at the end.",
        hint="Look at the 'own shift' rows of the many-sequences table: within against across.",
        choices=("a", "b", "c"),
    ),
    "04.1": Exercise(
        reference=lambda: 0.1,
        right="Its frequency is the maximum, so the factor is 1 - 0.9 * 1 = 0.1.",
        hint="Evaluate 1 - strength * sqrt(f / f_max) for the token with f = f_max.",
        abs_tol=1e-6,
    ),
    "04.2": Exercise(
        reference=lambda: "a",
        right="A meter of isotropy judges directions (and the cloud's overall scale); the pull only "
        "changes each token's own length.",
        hint="Compare the two rows of the meter table, pull and no pull. What does the pull change about "
        "each token, and what does it leave alone?",
        choices=("a", "b", "c"),
    ),
    "04.3": Exercise(
        reference=lambda: "b",
        right="With equal frequencies every token is pulled as often as it is pushed, so no token drifts; "
        "untied, the output matrix forms the same cone and the input embeddings a later one.",
        hint="Compare the uniform-frequency run with the untied run: in which one does some matrix still "
        "form a rare cone?",
        choices=("a", "b", "c"),
    ),
    "05.1": Exercise(
        reference=lambda: float(_first(np.array([effective_rank(lam) for lam in rich_get_richer_run()]) < 2)),
        right="The collapse is slow at first and then abrupt: positive feedback compounds.",
        hint="history[t] is the spectrum after t steps: compute effective_rank for each and find the first "
        "below 2.",
        rel_tol=0.0,
    ),
    "05.2": Exercise(
        reference=lambda: "b",
        right="With every share equal, every factor is equal: there is no winner to feed.",
        hint="Look at the update: what does a direction gain relative to the others if all shares are equal?",
        choices=("a", "b"),
    ),
    "05.3": Exercise(
        reference=lambda: "b",
        right="A collapsed spread is notebook 01's centred line: the ranks see it, the mean cosine does not. "
        "A cone is an offset, and this loop never creates one.",
        hint="Read the mean cosine column of the meter table for step 60, and recall notebook 01's centred line.",
        choices=("a", "b"),
    ),
    "06.1": Exercise(
        reference=lambda: 7.68,
        right="768 / 100 = 7.68, so 7 or 8 components; the rule was tuned on 300-d static vectors, so treat "
        "it as a starting point to check against a task.",
        hint="Mu & Viswanath's rule scales with the dimension d: divide.",
        abs_tol=0.7,
    ),
    "06.2": Exercise(
        reference=lambda: "b",
        right="After whitening X^T X = nI: the eigenbasis is any orthonormal basis.",
        hint="Which eigenvalues does a whitened cloud have, and what does that say about its eigenvectors?",
        choices=("a", "b", "c"),
    ),
    "06.3": Exercise(
        reference=lambda: float(_best_k()),
        right="Removing the one direction that carries no label helps; every further one removes labels.",
        hint="Look at sweep['all-but-the-top']: which setting has the largest 'pair AUC'?",
        rel_tol=0.0,
    ),
    "07.1": Exercise(
        reference=_layer_of_most_cosine,
        right="The middle layers are the most anisotropic; contrastive training flattens the last one.",
        hint="np.argmax over profile['mean cosine'] gives the position of the largest value; position = layer.",
        rel_tol=0.0,
    ),
    "07.2": Exercise(
        reference=lambda: "a",
        right="Mean cosine reads the shared offset; effective rank reads the covariance, which ignores the offset.",
        hint="Write down what each meter is computed from: the raw vectors, or the vectors minus their mean?",
        choices=("a", "b", "c"),
    ),
    "07.3": Exercise(
        reference=lambda: "b",
        right="Over most of the range, frequent words have larger input embeddings; notebook 04's sign does not hold.",
        hint="Read the sign of the static embeddings' Spearman rho, then the median norm per frequency bin.",
        choices=("a", "b", "c"),
    ),
}


def verdict(exercise: str, answer: object) -> tuple[bool, str]:
    """Whether ``answer`` to ``exercise`` (``"01.1"``, ...) is right, and what to tell the learner."""
    if exercise not in EXERCISES:
        raise ValueError(f"exercise: unknown exercise {exercise!r}; known: {', '.join(EXERCISES)}")
    ex = EXERCISES[exercise]
    if answer is None or answer is Ellipsis:
        return False, f"Exercise {exercise}: not answered yet. Replace None with your answer and run the cell again."
    expected = ex.reference()
    if ex.choices:
        given = str(answer).strip().lower().strip("()")
        if given not in ex.choices:
            return False, f"Exercise {exercise}: answer with one of {', '.join(ex.choices)}."
        ok = given == expected
    else:
        if not isinstance(answer, numbers.Real) or isinstance(answer, bool) or not math.isfinite(answer):
            return False, f"Exercise {exercise}: answer with a number."
        ok = math.isclose(float(answer), float(expected), rel_tol=ex.rel_tol, abs_tol=ex.abs_tol)
    if ok:
        return True, f"Exercise {exercise}: right. {ex.right}"
    return False, f"Exercise {exercise}: not yet. Hint: {ex.hint}"


def check(exercise: str, answer: object) -> None:
    """Print the verdict on ``answer`` to ``exercise``: right, or a hint about what to revisit."""
    print(verdict(exercise, answer)[1])
