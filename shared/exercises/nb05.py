"""Notebook 05's exercises: one rich-get-richer step, written by the learner; a computation on LayerNorm's
gain and a question on the meter table."""

from __future__ import annotations

import numpy as np

from ..mechanisms import rich_get_richer_step
from .common import Exercise, Implementation


def grown(lam: np.ndarray, eta: float) -> np.ndarray:
    """Each direction grown by 1 + eta d (its share), before renormalising."""
    return lam * (1 + eta * len(lam) * lam / lam.sum())


def not_renormalised(lam: np.ndarray, eta: float) -> np.ndarray:
    return grown(lam, eta)


def renormalised_by_the_sum(lam: np.ndarray, eta: float) -> np.ndarray:
    new = grown(lam, eta)
    return new / new.sum()


def grows_by_lambda(lam: np.ndarray, eta: float) -> np.ndarray:
    new = lam * (1 + eta * len(lam) * lam)
    return new / new.mean()


def renormalised_by_the_max(lam: np.ndarray, eta: float) -> np.ndarray:
    new = grown(lam, eta)
    return new / new.max()


def additive_growth(lam: np.ndarray, eta: float) -> np.ndarray:
    new = lam + eta * len(lam) * lam / lam.sum()
    return new / new.mean()


def no_factor_d(lam: np.ndarray, eta: float) -> np.ndarray:
    new = lam * (1 + eta * lam / lam.sum())
    return new / new.mean()


EXERCISES: dict[str, Exercise | Implementation] = {
    "05.1": Implementation(
        name="my_rich_step",
        toolkit=("shared.mechanisms.richer.rich_get_richer_step",),
        reference=rich_get_richer_step,
        cases=lambda: [
            ("a nearly flat spectrum of 50, eta 0.18", dict(lam=1.0 + 0.05 * np.random.default_rng(5).standard_normal(50),
                                                           eta=0.18)),
            ("a spectrum with mean 7, eta 0.3", dict(lam=np.array([14.0, 9.0, 7.0, 5.0, 0.0]), eta=0.3)),
            ("a flat spectrum", dict(lam=np.ones(8), eta=0.5)),
            ("eta 0", dict(lam=np.array([3.0, 1.0, 0.5]), eta=0.0)),
        ],
        mistakes={
            "not_renormalised": ("the spectrum was not renormalised: divide by its mean afterwards", not_renormalised),
            "renormalised_by_sum": ("renormalised by the sum instead of the mean", renormalised_by_the_sum),
            "renormalised_by_max": ("renormalised by the largest value instead of the mean: the mean must come back "
                                    "to 1", renormalised_by_the_max),
            "additive_growth": ("the growth was added, lambda_k + eta d (its share); it multiplies: lambda_k (1 + eta "
                                "d (its share)), so a direction grows in proportion to what it holds", additive_growth),
            "grows_by_lambda": ("each direction grows by its share lambda_k / sum(lambda), not by lambda_k itself",
                                grows_by_lambda),
            "no_factor_d": ("the factor d is missing: 1 + eta d lambda_k / sum(lambda)", no_factor_d),
        },
        right="Each direction grows by 1 + eta d (its share), then the mean is brought back to 1: a flat spectrum "
        "stays flat, and any edge compounds.",
        hints=(
            "Every direction grows in proportion to the share of the total variance it already holds, so the "
            "larger ones grow faster; afterwards the whole spectrum is rescaled so that its average is back to "
            "one.",
            "Test your growth factor on a flat spectrum of d directions: every share is then 1/d, and each "
            "direction must grow by exactly 1 + eta. What must multiply the share for that to hold?",
            "Fill the blanks:\n"
            "    share = ____                      # the shares add up to 1\n"
            "    new = lam * (1 + eta * ____)      # a flat spectrum grows by 1 + eta\n"
            "    return ____                       # np.mean of the result is 1",
        ),
    ),
    "05.3": Exercise(
        reference=lambda: 49 / (49 + 49),  # g^2 / (g^2 + d - 1) with g = 7, d = 50
        right="g^2 / (g^2 + d - 1) = 49 / 98, a half: one gain entry of 7 gives its coordinate as much variance as "
        "the 49 others together, a collapsed spread that no offset comes with.",
        hints=(
            "After the normalisation every coordinate of a token carries about the same variance, and the gain "
            "multiplies one coordinate. How does multiplying a coordinate by g change its variance?",
            "Count variance in units of one ordinary coordinate's: how many units does the stretched coordinate "
            "carry, and how many do all the coordinates carry together?",
        ),
        rel_tol=0.0,
        abs_tol=0.002,  # 49/98 = 0.5; 49/99 (d instead of d - 1) is wrong
        mistakes={
            "d_not_d_minus_1": ("d instead of d - 1 in the denominator: besides the stretched coordinate there are "
                                "d - 1 = 49 others", 49 / 99),
            "g_not_g_squared": ("g instead of g^2: multiplying a coordinate by g multiplies its variance by g^2",
                                7 / (7 + 49)),
            "no_gain": ("that is the stretched coordinate's variance against one other coordinate's, g^2 / 1, or its "
                        "share without the gain; the share is its variance over the total of all d", 1 / 50),
        },
    ),
    "05.2": Exercise(
        reference=lambda: "b",
        right="A collapsed spread is notebook 01's centred line: the ranks see it, the mean cosine does not. "
        "A cone is a shared offset, and the toy's centred clouds have none.",
        hints=(
            "A cone is a shared offset: the points lean one way from the origin. A collapsed spread is another "
            "failure. The loop changes only a spectrum, which says nothing about where the centre of the cloud "
            "is: which failure can it make?",
            "Read on to the meter table of the next section and its mean cosine column for step 60; then recall "
            "notebook 01's centred line.",
        ),
        choices=("a", "b"),
    ),
}
