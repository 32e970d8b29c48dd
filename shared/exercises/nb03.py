"""Notebook 03's exercises: one attention step, written by the learner; two questions on contraction."""

from __future__ import annotations

import numpy as np

from ..geometry import make_isotropic
from ..mechanisms import attention_step, softmax_rows
from .common import Exercise, Implementation, gaussian_cloud


def softmax_over_columns(X: np.ndarray, beta: float, alpha: float) -> np.ndarray:
    return X + alpha * (softmax_rows(beta * X @ X.T).T @ X - X)  # scores are symmetric: .T = over axis 0


def no_residual(X: np.ndarray, beta: float, alpha: float) -> np.ndarray:
    return softmax_rows(beta * X @ X.T) @ X


def adds_the_average(X: np.ndarray, beta: float, alpha: float) -> np.ndarray:
    return X + alpha * softmax_rows(beta * X @ X.T) @ X


def scaled_by_sqrt_d(X: np.ndarray, beta: float, alpha: float) -> np.ndarray:
    return X + alpha * (softmax_rows(beta * X @ X.T / np.sqrt(X.shape[1])) @ X - X)


def sqrt_d_instead_of_beta(X: np.ndarray, beta: float, alpha: float) -> np.ndarray:  # noqa: ARG001
    return X + alpha * (softmax_rows(X @ X.T / np.sqrt(X.shape[1])) @ X - X)


#: Constants a learner may add to the weights ("to avoid a division by zero", "a floor").
CONSTANTS = (1.0, 0.5, 0.1, 0.01, 1e-3, 1e-4, 1e-5, 1e-6)


def constant_in_weights(X: np.ndarray, beta: float, alpha: float) -> list[np.ndarray]:
    """The weights with a constant c added: to exp(S - max) before normalising, to the softmax after it,
    or as e^c in the numerator only (exp(S + c) over the sum of exp(S))."""
    S = beta * X @ X.T
    W = np.exp(S - S.max(axis=1, keepdims=True))
    found = []
    for c in CONSTANTS:
        for A in ((W + c) / (W + c).sum(axis=1, keepdims=True), softmax_rows(S) + c, np.exp(c) * softmax_rows(S)):
            found.append(X + alpha * (A @ X - X))
    return found


def no_beta(X: np.ndarray, beta: float, alpha: float) -> np.ndarray:  # noqa: ARG001 (the mistake drops it)
    return X + alpha * (softmax_rows(X @ X.T) @ X - X)


EXERCISES: dict[str, Exercise | Implementation] = {
    "03.1": Implementation(
        name="my_attention_step",
        toolkit=("shared.mechanisms.attention.attention_step", "shared.mechanisms.attention.softmax_rows"),
        libraries={"scipy.special.softmax": "it computes the softmax, the step this exercise asks you to write (subtract each row's maximum, exponentiate, divide by the row's sum)."},
        reference=attention_step,
        cases=lambda: [
            ("300 tokens in 2-D, beta 0.6, alpha 0.09", dict(X=make_isotropic(300, 2, 3) + [0.6, 0.36], beta=0.6,
                                                            alpha=0.09)),
            ("40 tokens in 5-D, beta 2, alpha 0.5", dict(X=gaussian_cloud(40, 5, 6), beta=2.0, alpha=0.5)),
            ("pure attention (alpha 1)", dict(X=gaussian_cloud(30, 3, 7), beta=1.0, alpha=1.0)),
            ("large scores (tokens of size 30)", dict(X=30.0 * gaussian_cloud(20, 3, 8), beta=1.0, alpha=0.3)),
        ],
        mistakes={
            "softmax_over_columns": ("the softmax ran over the wrong axis: each row of weights must sum to 1 "
                                     "(axis=1)", softmax_over_columns),
            "no_residual": ("the residual is missing: this returns the average itself, not a step of size alpha "
                            "toward it", no_residual),
            "adds_the_average": ("the step adds alpha times the average, X + alpha A X; it should move toward it, "
                                 "X + alpha (A X - X)", adds_the_average),
            "sqrt_d_instead_of_beta": (
                "the scores were scaled by 1/sqrt(d), as in a Transformer's scaled dot-product attention, instead "
                "of by beta: in this notebook beta is the scaling (its sharpness), so the scores are beta X X^T",
                sqrt_d_instead_of_beta),
            "beta_and_sqrt_d": ("the scores were divided by sqrt(d) as well as multiplied by beta; in this toy beta "
                                "plays that role alone, so the scores are beta X X^T", scaled_by_sqrt_d),
            "no_beta": ("beta is missing from the scores", no_beta),
            "constant_in_weights": (
                "a constant was added to the weights (to the exponentials before the division, or to the softmax "
                "itself): the weights are exp(score) over the row's sum, nothing added. A constant added to the "
                "scores before np.exp is harmless (each row is divided by its own sum), which is why subtracting "
                "the row's maximum changes nothing", constant_in_weights),
        },
        right="Scores beta X X^T, a softmax along each row (max subtracted first), then X + alpha (A X - X): "
        "each token moves a fraction alpha toward its weighted average.",
        hints=(
            "Each token becomes a weighted average of all the tokens of its sequence: the weights come from its "
            "dot products with them, sharpened by beta and turned into positive weights that sum to one. Then the "
            "token moves only a fraction alpha of the way toward that average.",
            "Decide what one row of the score matrix is: the scores of one token against every token. The "
            "weights of one token are what must sum to one, so pick the softmax's axis from that; the largest "
            "score you subtract before np.exp must come from the same place.",
            "Fill the blanks; the last line must give X itself at alpha = 0 and the average A @ X at alpha = 1:\n"
            "    S = beta * ____                               # n x n scores\n"
            "    W = np.exp(S - S.max(axis=____, keepdims=True))\n"
            "    A = W / ____                                  # the weights of each token sum to 1\n"
            "    return ____",
        ),
        nonfinite="Likely mistake: exp overflowed on large scores; subtract each row's maximum before np.exp.",
    ),
    "03.2": Exercise(
        reference=lambda: "b",
        right="Averaging pulls every token to a weighted mean of the tokens, which is never exactly 0: once "
        "the spread is smaller than that small offset, every cosine is near 1.",
        hints=(
            "Each layer replaces every token by an average of its sequence. What does averaging again and again "
            "do to the spread of the tokens, and around which point do they end up?",
            "Run attention_run(120, offset=0.0) and compare the length of the mean of run.clouds[-1] with the "
            "spread of its tokens around that mean: once the spread is the smaller, which way does every token "
            "point?",
        ),
        choices=("a", "b", "c"),
    ),
    "03.3": Exercise(
        reference=lambda: "a",
        right="Attention mixes tokens only within their own sequence; sequences that share nothing at the "
        "start share nothing at the end.",
        hints=(
            "Attention mixes a token only with the tokens of its own sequence. What could two tokens of different "
            "sequences share after 40 layers that they did not share at the start?",
            "Each sequence shrinks toward its own weighted mean. With a shift of its own, where does each "
            "sequence's mean point, and how are those directions related from one sequence to the next?",
        ),
        choices=("a", "b", "c"),
    ),
}
