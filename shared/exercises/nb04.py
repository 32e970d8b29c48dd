"""Notebook 04's exercises: the gradient on the output vectors, written by the learner; three questions."""

from __future__ import annotations

import numpy as np

from ..mechanisms import bigram_language, logit_gradient, softmax_rows
from .common import Exercise, Implementation


def lm_case(vocab: int, d: int, seed: int, exponent: float) -> dict:
    """Contexts ``H``, the model's predictions ``Q`` and a Zipf bigram language ``P`` of ``vocab`` tokens."""
    rng = np.random.default_rng(seed)
    E, E_out = rng.standard_normal((vocab, d)), rng.standard_normal((vocab, d))
    H = np.tanh(E @ (rng.standard_normal((d, d)) / np.sqrt(d)))
    return dict(H=H, Q=softmax_rows(H @ E_out.T), P=bigram_language(vocab, exponent))


def reference_gradient(H: np.ndarray, Q: np.ndarray, P: np.ndarray) -> np.ndarray:
    return logit_gradient(Q, P).T @ H


def unweighted_push(H: np.ndarray, Q: np.ndarray, P: np.ndarray) -> np.ndarray:
    return (Q - P).T @ H


def flipped_sign(H: np.ndarray, Q: np.ndarray, P: np.ndarray) -> np.ndarray:
    return -(logit_gradient(Q, P).T @ H)


def push_only(H: np.ndarray, Q: np.ndarray, P: np.ndarray) -> np.ndarray:
    return (P.sum(axis=1)[:, None] * Q).T @ H


def pull_only(H: np.ndarray, Q: np.ndarray, P: np.ndarray) -> np.ndarray:  # noqa: ARG001 (the mistake drops Q)
    return -(P.T @ H)


def per_example(H: np.ndarray, Q: np.ndarray, P: np.ndarray) -> np.ndarray:
    return (Q - P / P.sum(axis=1, keepdims=True)).T @ H


def wrong_axis_p(H: np.ndarray, Q: np.ndarray, P: np.ndarray) -> np.ndarray:
    return (P.sum(axis=0)[:, None] * Q - P).T @ H


def divided_by_contexts(H: np.ndarray, Q: np.ndarray, P: np.ndarray) -> list[np.ndarray]:
    """The gradient divided by the number of contexts, or with every p_c taken as 1 / that number."""
    n = len(P)
    return [reference_gradient(H, Q, P) / n, (Q / n - P).T @ H, (Q - P).T @ H / n]


def wrong_index(H: np.ndarray, Q: np.ndarray, P: np.ndarray) -> np.ndarray:
    return logit_gradient(Q, P) @ H


EXERCISES: dict[str, Exercise | Implementation] = {
    "04.1": Exercise(
        reference=lambda: "b",
        right="Direction-only meters cannot see a positive rescaling of each token, however strong or however "
        "spread over the vocabulary; a vector added to every token turns them all toward it, a shared offset, "
        "which is what the mean cosine reads.",
        hints=(
            "Write down what each of the two meters is computed from: the vectors as they are, or only their "
            "directions?",
            "What does multiplying a vector by a positive number change: its length, its direction, or both? "
            "Which of the three changes does something other than multiply each token by a positive number?",
        ),
        choices=("a", "b", "c"),
    ),
    "04.2": Implementation(
        name="output_gradient",
        toolkit=("shared.mechanisms.frequency.logit_gradient",),
        reference=reference_gradient,
        cases=lambda: [
            ("6 tokens in 3-D, Zipf exponent 1", lm_case(6, 3, 1, 1.0)),
            ("10 tokens in 4-D, Zipf exponent 2", lm_case(10, 4, 2, 2.0)),
            ("8 tokens in 2-D, uniform frequencies", lm_case(8, 2, 3, 0.0)),
        ],
        mistakes={
            "unweighted_push": ("the push is not weighted by how often each context occurs: use p_c q(w|c), with "
                                "p_c = P.sum(axis=1)", unweighted_push),
            "per_example": ("this is the per-example gradient q(w|c) - P(w|c) of one context, summed with every "
                            "context weighted equally; the expected loss weights context c by how often it occurs: "
                            "p_c (q(w|c) - P(w|c)) = p_c q(w|c) - P(c, w)", per_example),
            "wrong_axis_probabilities": (
                "the context probabilities p_c were summed over the wrong axis: P.sum(axis=0) gives how often each "
                "token is a target; how often context c occurs is the sum of its row, P.sum(axis=1)", wrong_axis_p),
            "divided_by_contexts": (
                "the result was divided by the number of contexts (a mean over c, or p_c taken as 1 / number of "
                "contexts); P already holds the probability of each pair, so the gradient is the plain sum over c, "
                "each context weighted by its own p_c", divided_by_contexts),
            "flipped_sign": ("the sign is flipped: the gradient is push minus pull, p_c q - P", flipped_sign),
            "push_only": ("only the push: the pull -P(c, w) toward the true targets is missing", push_only),
            "pull_only": ("only the pull: the push p_c q(w|c) away from every context is missing", pull_only),
            "wrong_index": ("the sum runs over the wrong index: output row w sums over contexts c, so G.T @ H, not "
                            "G @ H", wrong_index),
        },
        right="G = p_c q(w|c) - P(c, w), and row w of the gradient is sum_c G[c, w] h_c = (G.T @ H)[w]: a rare "
        "token, almost never a target, gets almost only the push.",
        hints=(
            "Every context pushes each output vector away from its state, in proportion to how often the context "
            "occurs and how likely the model made that token, and pulls the true targets toward it, in proportion "
            "to how often the pair occurs. One output vector's gradient adds up push minus pull over the "
            "contexts, each times the context's state.",
            "How often context c occurs is read from P, which holds the probability of each (context, token) "
            "pair: decide which of P's two sums gives one number per context, and check that those numbers add "
            "up to 1.",
            "Fill the blanks; the result has one row per output token and one column per dimension:\n"
            "    p_c = ____                        # one number per context\n"
            "    G = ____                          # push minus pull, one row per context\n"
            "    return ____                       # shape (number of tokens, d)",
        ),
    ),
    "04.3": Exercise(
        reference=lambda: "c",
        right="With equal frequencies push and pull balance for every token, so the rare half does not lean; "
        "untied, the output matrix forms the same cone and the input embeddings a later, weaker one.",
        hints=(
            "Think about which tokens lean, and why: what do they receive at every step that the frequent tokens "
            "do not?",
            "Compare the uniform-frequency run with the untied run: in which one does some matrix still form a "
            "rare cone?",
        ),
        choices=("a", "b", "c"),
    ),
    "04.4": Exercise(
        reference=lambda: 1 - 0.9 * 0.1,
        right="With Zipf exponent 1 the 100th token is a hundredth as frequent as the first, so the factor is "
        "1 - 0.9 * sqrt(1/100) = 1 - 0.09 = 0.91: it keeps most of its length.",
        hints=(
            "The pull multiplies each token by a factor that depends on its frequency relative to the most "
            "frequent token's. With Zipf exponent 1, how frequent is the 100th token compared with the first?",
            "Find the factor in Part 1's description of the pull and notice how the relative frequency enters "
            "it (not as it is). Then put in the ratio you found and gamma.",
        ),
        rel_tol=0.0,
        abs_tol=0.002,  # 0.91 to three decimals; 0.90 and 0.92 are wrong
        mistakes={
            "no_square_root": ("the square root is missing: the factor is 1 - gamma sqrt(f / f_max), and "
                               "sqrt(1/100) = 1/10", 1 - 0.9 / 100),
            "the_part_taken_off": ("that is the part taken off, gamma sqrt(f / f_max); the factor that multiplies the "
                                   "embedding is 1 minus it", 0.9 * 0.1),
            "most_frequent_token": ("that is the factor of the most frequent token, 1 - gamma; the 100th is a "
                                    "hundredth as frequent", 1 - 0.9),
        },
    ),
}
