"""Notebook 05's exercises: one rich-get-richer step, written by the learner; a computation on LayerNorm's
gain and a question on the meter table."""

from __future__ import annotations

import numpy as np

from ..mechanisms import rich_get_richer_step
from .common import Exercise, Implementation
from .worked import Worked

#: The notebook's title, as the worked solutions head its part.
TITLE = "Rich-get-richer"


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


def hidden_cases(rng: np.random.Generator) -> list[tuple[str, dict]]:
    """The cases of 05.1 the class never sees, drawn from ``rng`` (seeded by the course's secret seed)."""
    return [
        ("a random spectrum of 17, eta 0.07", dict(lam=rng.uniform(0.1, 5.0, 17), eta=0.07)),
        ("a spectrum of 3 with mean 1, eta 1.3", dict(lam=np.array([2.0, 0.7, 0.3]), eta=1.3)),
        ("a long spectrum of 200, eta 0.01", dict(lam=rng.exponential(2.0, 200), eta=0.01)),
    ]


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
        hidden_cases=hidden_cases,
        worked=Worked(
            question=(r"Write one step of the loop: grow each $\lambda_k$ by the factor $1 + \eta\, d\, "
                      r"\lambda_k / \sum_j \lambda_j$, then divide by the mean."),
            code="""\
import numpy as np


def my_rich_step(lam, eta):
    share = lam / lam.sum()  # each direction's share of the variance
    new = lam * (1 + eta * len(lam) * share)  # the rich grow faster
    return new / new.mean()  # bring the mean back to 1
""",
            why=(r"The growth factor uses the *share* $\lambda_k / \sum_j \lambda_j$, so it does not depend on "
                 "the spectrum's overall scale (the check's second case has mean 7). Dividing by the mean "
                 "(not the sum) keeps the spectrum on the scale where a flat spectrum is all ones."),
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
        kind="Compute",
        worked=Worked(
            question=("A LayerNorm in 50 dimensions has gain 1 on every coordinate but one, where it is 7. "
                      "About what share of the variance of its outputs does that coordinate hold?"),
            code="""\
answer = 7**2 / (7**2 + 50 - 1)  # g^2 / (g^2 + d - 1) = 49 / 98
""",
            why=("After the normalisation each coordinate of a token carries about the same variance, 1 on "
                 "average (a token has squared length $d$). The gain multiplies one coordinate by $g$ and so "
                 "its variance by $g^2$: that coordinate holds $g^2$ of a total $g^2 + (d - 1)$. With $g = 7$ "
                 "and $d = 50$ that is 49 out of 98, a half. The notebook's five-seed table checks the same "
                 "closed form at gains of 3 and 10 against drawn tokens. A stretched coordinate has no mean "
                 "of its own, so it narrows the spread and makes no offset: the mean cosine stays near 0."),
        ),
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
        kind="Explain",
        worked=Worked(
            question=("After 60 steps the effective rank is 1.0. Has the loop made a narrow cone? (a) yes: "
                      "one direction holds all the variance, and a cone is exactly that kind of collapse (b) "
                      "no: a covariance spectrum fixes the spread, not the mean, so the loop gives the points "
                      "no shared offset"),
            code="""\
answer = "b"
""",
            why=("The cloud drawn from the final spectrum is centred (a spectrum has no mean), so notebook "
                 "05's meter table gives a mean cosine of 0.000 next to an effective rank of 1.0. That is the "
                 "centred line of notebook 01, which the ranks and IsoScore flag and the mean cosine does "
                 "not. A cone is a shared offset (notebook 01); the toy, which acts on variances around a "
                 "mean of zero, cannot make one. Run on uncentred vectors, the loop makes a cone only if the "
                 "mean's direction already holds the largest eigenvalue of the second moment, and then the "
                 r"mean cosine is $(2\Phi(\mu/\sigma) - 1)^2$: 0.466 predicted and $+0.443$ to $+0.486$ "
                 r"measured at $\mu/\sigma = 1$."),
        ),
    ),
}

#: What a learner should see at each of the notebook's "Try this." prompts, and why: the notebook's part of
#: the worked solutions' second half (``tests/test_try_this.py`` runs its blocks).
TRY_THIS = r'''The explorer draws `rich_get_richer_run(eta, steps, unevenness)` and reads the effective rank of
the first and last spectrum.

```pycon
>>> from shared import effective_rank, rich_get_richer_run
>>> def explorer(eta=0.18, steps=60, unevenness=0.05):
...     history = rich_get_richer_run(eta, steps, unevenness)
...     print(f"effective rank at step 0 = {effective_rank(history[0]):.1f},"
...           f" effective rank at step {steps} = {effective_rank(history[-1]):.1f}")
...     return history
>>> def first_step_at_one(eta, seed=5):
...     """The first step at which the explorer (seed 5) reads an effective rank of 1.0."""
...     history = rich_get_richer_run(eta, 200, 0.05, seed=seed)
...     return next(t for t, lam in enumerate(history) if round(effective_rank(lam), 1) == 1.0)
>>> def first_step_at_half(eta):
...     """The first step at which one direction holds more than half of the variance."""
...     history = rich_get_richer_run(eta, 200, 0.05)
...     return next(t for t, lam in enumerate(history) if lam.max() > lam.sum() / 2)
```

### Try this 05.1

*Set $\eta$ to 0. Why does the effective rank stay where it started?*

```pycon
>>> history = explorer(eta=0.0, steps=200)
effective rank at step 0 = 49.9, effective rank at step 200 = 49.9
```

With $\eta = 0$ every factor $1 + \eta\, d\, \lambda_k / \sum_j \lambda_j$ is 1: no direction
grows, and dividing by the mean changes nothing. The spectrum stays the slightly uneven start
(effective rank 49.9 of 50) for any number of steps. The amplification rate is the whole mechanism.

### Try this 05.2

*Set the initial unevenness to 0. The spectrum starts perfectly flat: does it collapse? What breaks
the tie in the default run?*

```pycon
>>> history = explorer(unevenness=0.0, steps=200)
effective rank at step 0 = 50.0, effective rank at step 200 = 50.0
>>> history = explorer()
effective rank at step 0 = 49.9, effective rank at step 60 = 1.0
>>> round(float(history[0].min()), 3), round(float(history[0].max()), 3)
(0.9, 1.082)
```

It does not collapse: with all $\lambda_k$ equal every share is $1/d$, every direction grows by
the same factor, and renormalising undoes it (50.0 at every step). In the default run the start
is $1 + 0.05\,\varepsilon_k$, eigenvalues from 0.9 to 1.082: the largest one grows a little
faster at every step, and the feedback turns that head start into a rank of 1.0 by step 60.
(Exercise 05.3 asks the same question as a prediction.)

### Try this 05.3

*Halve $\eta$. How many more steps does the effective rank need to reach 1?*

```pycon
>>> first_step_at_one(0.18), first_step_at_one(0.09)
(26, 41)
>>> first_step_at_half(0.18), first_step_at_half(0.09)
(22, 37)
>>> pairs = [(first_step_at_one(0.18, seed), first_step_at_one(0.09, seed)) for seed in range(5)]
>>> pairs, [round(slow / fast, 2) for fast, slow in pairs]
([(25, 41), (25, 39), (24, 39), (20, 32), (23, 37)], [1.64, 1.56, 1.62, 1.6, 1.61])
>>> 1 + 0.18 * 50, 1 + 0.09 * 50
(10.0, 5.5)
```

It first reads 1.0 at step 26 with $\eta = 0.18$ and at step 41 with $\eta = 0.09$: 15 steps
more, not twice as many. Almost all of the time goes into the race for the lead: one direction
holds more than half of the variance at step 22 and at step 37, and from there both runs need 4
steps to reach 1.0. A direction grows by the factor $1 + \eta d \cdot \text{share}$ per step. While
every share is near $1/d$ the factors are near $1 + \eta$, and the leader's edge grows in proportion
to $\eta$; but as soon as the leader's share is sizeable its factor is large (up to $1 + \eta d$,
10 against 5.5), and what counts then is its logarithm, which halving $\eta$ shrinks by far less
than half. So the race takes 37 steps instead of 22, not 44. Other starting spectra agree: over
five seeds halving $\eta$ multiplies the steps to 1.0 by 1.56 to 1.64 (at 50 and 100 directions in
`tests/test_robust_try_this.py`).
'''
