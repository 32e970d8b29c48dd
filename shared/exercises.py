"""Exercises that check themselves: ``check("01.1", answer)`` prints a verdict.

Two kinds. An :class:`Exercise` asks for a number or a choice and knows its reference answer, a
tolerance and a hint that points at the idea to revisit rather than at the answer. An
:class:`Implementation` asks the learner to *write* a function: ``check("01.2", my_effective_rank)``
runs it on a set of named cases (random clouds and edge cases), compares each result with the
toolkit's, and when one differs says which case, what was expected, and, if the result matches
a typical mistake (forgetting to centre, softmax over the wrong axis, ...), which one. An
untouched stub (one that raises ``NotImplementedError``) prints that it is not implemented yet.
Worked solutions are in ``notebooks/SOLUTIONS.md``.
"""

from __future__ import annotations

import decimal
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .clouds import make_cone, make_isotropic, random_rotation
from .mechanisms import attention_step, bigram_language, logit_gradient, rich_get_richer_step, softmax_rows
from .meters import (
    log_partition,
    logsumexp_columns,
    cov_eigs,
    cross_group_cosines,
    effective_rank,
    entropy_rank,
    mean_cosine,
    partition_isotropy,
)
from .pca import principal_axes
from .remedies import all_but_the_top


@dataclass(frozen=True)
class Exercise:
    """An exercise answered by a number or a choice: its reference answer, how close is close
    enough, and what to say. The question itself is asked in the notebook (and restated in
    ``notebooks/SOLUTIONS.md``)."""

    reference: Callable[[], float | str]
    right: str
    hint: str
    rel_tol: float = 0.02
    abs_tol: float = 0.0
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Implementation:
    """An exercise answered by a function named ``name``, checked against ``reference`` on ``cases``.

    ``cases()`` gives (description, keyword arguments) pairs; ``mistakes`` maps the words for a
    typical mistake to a function that makes it, so a wrong result can be recognised.
    """

    name: str
    reference: Callable[..., object]
    cases: Callable[[], list[tuple[str, dict]]]
    mistakes: dict[str, Callable[..., object]]
    right: str
    hint: str
    rtol: float = 1e-6


# ----- reference cases and typical mistakes of the implementation exercises ----------------------


def _cloud(n: int, d: int, seed: int, scales: tuple[float, ...] | None = None, shift: float = 0.0) -> np.ndarray:
    """A Gaussian cloud with distinct per-axis scales (so principal directions are unique)."""
    rng = np.random.default_rng(seed)
    scales = np.linspace(3.0, 0.5, d) if scales is None else np.asarray(scales)
    return rng.standard_normal((n, d)) * scales + shift * rng.standard_normal(d)


def _unit(X: np.ndarray) -> np.ndarray:
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def _participation(lam: np.ndarray) -> float:
    return float(lam.sum() ** 2 / np.sum(lam**2))


def _cloud_cases() -> list[tuple[str, dict]]:
    line = np.outer(np.random.default_rng(5).standard_normal(300), _unit(np.ones((1, 6)))[0])
    return [
        ("an isotropic Gaussian (400 x 8)", dict(X=make_isotropic(400, 8, 1))),
        ("a Gaussian shifted by +5 (400 x 8)", dict(X=make_isotropic(400, 8, 2) + 5.0)),
        ("a narrow cone (400 x 8)", dict(X=make_cone(400, 8, 3))),
        ("a centred line (300 x 6)", dict(X=line)),
        ("fewer points than dimensions (6 x 10)", dict(X=make_isotropic(6, 10, 4))),
    ]


def _lm_case(vocab: int, d: int, seed: int, exponent: float) -> dict:
    rng = np.random.default_rng(seed)
    E, E_out = rng.standard_normal((vocab, d)), rng.standard_normal((vocab, d))
    H = np.tanh(E @ (rng.standard_normal((d, d)) / np.sqrt(d)))
    return dict(H=H, Q=softmax_rows(H @ E_out.T), P=bigram_language(vocab, exponent))


def _ratio(log_z: np.ndarray) -> float:
    return float(np.exp(log_z.min() - log_z.max()))


def _original_isotropy(X: np.ndarray, C: np.ndarray | None = None) -> float:
    """Mu & Viswanath's estimator at the vectors' own scale, over +c and -c for the columns of C
    (default: the eigenvectors of X^T X)."""
    C = np.linalg.eigh(X.T @ X)[1] if C is None else C
    return _ratio(log_partition(X, C))


def _isotropy_cases() -> list[tuple[str, dict]]:
    rng = np.random.default_rng(8)
    cone = 0.4 * make_cone(400, 6, 8)
    return [
        ("an uneven Gaussian with a small offset (300 x 5)",
         dict(X=_cloud(300, 5, 1, scales=(1.0, 0.8, 0.6, 0.5, 0.4), shift=0.3))),
        ("a cone of short vectors (400 x 6)", dict(X=cone)),
        ("a cloud of tiny vectors, entries about 0.05 (200 x 4)",
         dict(X=0.05 * _cloud(200, 4, 2, scales=(1.0, 0.7, 0.5, 0.3), shift=1.0))),
        ("an offset along no principal axis (300 x 3)",
         dict(X=rng.standard_normal((300, 3)) * [1.2, 0.6, 0.3] @ random_rotation(3, 9) + [0.8, -0.2, 0.5])),
    ]


IMPLEMENTATIONS: dict[str, Implementation] = {
    "01.1": Implementation(
        name="my_effective_rank",
        reference=lambda X: effective_rank(cov_eigs(X)),
        cases=_cloud_cases,
        mistakes={
            "the cloud was not centred: the eigenvalues of X^T X / n, not of the covariance, carry the "
            "offset": lambda X: _participation(np.linalg.eigvalsh(X.T @ X / len(X))),
            "singular values are standard deviations: square them to get variances": lambda X: _participation(
                np.linalg.svd(X - X.mean(axis=0), compute_uv=False)),
            "that is the entropy rank exp(-sum p log p), not the participation ratio": lambda X: entropy_rank(
                cov_eigs(X)),
            "the numerator is the square of the sum, (sum lambda)^2, not the sum itself": lambda X: float(
                cov_eigs(X).sum() / np.sum(cov_eigs(X) ** 2)),
            "sum / largest eigenvalue is another effective dimension; this one is (sum)^2 / sum of squares":
                lambda X: float(cov_eigs(X).sum() / cov_eigs(X).max()),
        },
        right="Centre, take the covariance eigenvalues, then (sum)^2 / sum of squares: 1 for a line, d for a "
        "sphere, and blind to a shift.",
        hint="Centre X (subtract the mean of each column), form the covariance, take its eigenvalues with "
        "np.linalg.eigvalsh, then (sum)^2 / (sum of squares).",
    ),
    "02.1": Implementation(
        name="my_mean_cosine",
        reference=mean_cosine,
        cases=lambda: [
            ("an isotropic Gaussian (300 x 8)", dict(X=make_isotropic(300, 8, 1))),
            ("a Gaussian shifted by +2 (300 x 8)", dict(X=make_isotropic(300, 8, 2) + 2.0)),
            ("two points", dict(X=np.array([[1.0, 0.0], [1.0, 1.0]]))),
            ("points of very different lengths (200 x 5)",
             dict(X=(make_isotropic(200, 5, 3) + 1.0) * np.geomspace(0.1, 100.0, 200)[:, None])),
        ],
        mistakes={
            "each point was paired with itself too (n^2 pairs); pairs of distinct points exclude the "
            "diagonal": lambda X: float(np.mean(_unit(X) @ _unit(X).T)),
            "the rows were not normalised: that is the mean dot product, not the mean cosine": lambda X: float(
                (X @ X.T)[~np.eye(len(X), dtype=bool)].mean()),
            "the columns were normalised instead of the rows (axis=0 instead of axis=1)": lambda X: float(
                ((X / np.linalg.norm(X, axis=0)) @ (X / np.linalg.norm(X, axis=0)).T)[~np.eye(len(X), dtype=bool)].mean()),
            "each pair was counted twice but divided by the number of unordered pairs": lambda X: 2 * mean_cosine(X),
        },
        right="Normalise the rows, then average u_i . u_j over the n(n-1) ordered pairs i != j; the sum of "
        "the unit vectors gives it in O(n d).",
        hint="Divide each row by its own norm (axis=1), take all dot products U @ U.T, and average those off "
        "the diagonal.",
    ),
    "03.1": Implementation(
        name="my_attention_step",
        reference=attention_step,
        cases=lambda: [
            ("300 tokens in 2-D, beta 0.6, alpha 0.09", dict(X=make_isotropic(300, 2, 3) + [0.6, 0.36], beta=0.6,
                                                            alpha=0.09)),
            ("40 tokens in 5-D, beta 2, alpha 0.5", dict(X=_cloud(40, 5, 6), beta=2.0, alpha=0.5)),
            ("pure attention (alpha 1)", dict(X=_cloud(30, 3, 7), beta=1.0, alpha=1.0)),
            ("large scores (tokens of size 30)", dict(X=30.0 * _cloud(20, 3, 8), beta=1.0, alpha=0.3)),
        ],
        mistakes={
            "the softmax ran over the wrong axis: each row of weights must sum to 1 (axis=1)": lambda X, beta, alpha:
                X + alpha * (softmax_rows(beta * X @ X.T).T @ X - X),  # scores are symmetric: .T = over axis 0
            "the residual is missing: this returns the average itself, not a step of size alpha toward it":
                lambda X, beta, alpha: softmax_rows(beta * X @ X.T) @ X,
            "the step adds alpha times the average, X + alpha A X; it should move toward it, X + alpha (A X - X)":
                lambda X, beta, alpha: X + alpha * softmax_rows(beta * X @ X.T) @ X,
            "beta is missing from the scores": lambda X, beta, alpha: X + alpha * (softmax_rows(X @ X.T) @ X - X),
        },
        right="Scores beta X X^T, a softmax along each row (max subtracted first), then X + alpha (A X - X): "
        "each token moves a fraction alpha toward its weighted average.",
        hint="A = softmax of beta * X @ X.T along axis 1 (subtract each row's maximum before np.exp), then "
        "return X + alpha * (A @ X - X).",
    ),
    "04.1": Implementation(
        name="output_gradient",
        reference=lambda H, Q, P: logit_gradient(Q, P).T @ H,
        cases=lambda: [
            ("6 tokens in 3-D, Zipf exponent 1", _lm_case(6, 3, 1, 1.0)),
            ("10 tokens in 4-D, Zipf exponent 2", _lm_case(10, 4, 2, 2.0)),
            ("8 tokens in 2-D, uniform frequencies", _lm_case(8, 2, 3, 0.0)),
        ],
        mistakes={
            "the push is not weighted by how often each context occurs: use p_c q(w|c), with p_c = P.sum(axis=1)":
                lambda H, Q, P: (Q - P).T @ H,
            "the sign is flipped: the gradient is push minus pull, p_c q - P": lambda H, Q, P: -(logit_gradient(Q, P).T @ H),
            "only the push: the pull -P(c, w) toward the true targets is missing": lambda H, Q, P: (
                P.sum(axis=1)[:, None] * Q).T @ H,
            "only the pull: the push p_c q(w|c) away from every context is missing": lambda H, Q, P: -(P.T @ H),
            "the sum runs over the wrong index: output row w sums over contexts c, so G.T @ H, not G @ H":
                lambda H, Q, P: logit_gradient(Q, P) @ H,
        },
        right="G = p_c q(w|c) - P(c, w), and row w of the gradient is sum_c G[c, w] h_c = (G.T @ H)[w]: a rare "
        "token, almost never a target, gets almost only the push.",
        hint="p_c = P.sum(axis=1); G = p_c[:, None] * Q - P (one row per context); the gradient of the output "
        "vectors is G.T @ H.",
    ),
    "05.1": Implementation(
        name="my_rich_step",
        reference=rich_get_richer_step,
        cases=lambda: [
            ("a nearly flat spectrum of 50, eta 0.18", dict(lam=1.0 + 0.05 * np.random.default_rng(5).standard_normal(50),
                                                           eta=0.18)),
            ("a spectrum with mean 7, eta 0.3", dict(lam=np.array([14.0, 9.0, 7.0, 5.0, 0.0]), eta=0.3)),
            ("a flat spectrum", dict(lam=np.ones(8), eta=0.5)),
            ("eta 0", dict(lam=np.array([3.0, 1.0, 0.5]), eta=0.0)),
        ],
        mistakes={
            "the spectrum was not renormalised: divide by its mean afterwards": lambda lam, eta: lam * (
                1 + eta * len(lam) * lam / lam.sum()),
            "renormalised by the sum instead of the mean": lambda lam, eta: (r := lam * (
                1 + eta * len(lam) * lam / lam.sum())) / r.sum(),
            "each direction grows by its share lambda_k / sum(lambda), not by lambda_k itself": lambda lam, eta: (
                r := lam * (1 + eta * len(lam) * lam)) / r.mean(),
            "the factor d is missing: 1 + eta d lambda_k / sum(lambda)": lambda lam, eta: (r := lam * (
                1 + eta * lam / lam.sum())) / r.mean(),
        },
        right="Each direction grows by 1 + eta d (its share), then the mean is brought back to 1: a flat spectrum "
        "stays flat, and any edge compounds.",
        hint="share = lam / lam.sum(); new = lam * (1 + eta * len(lam) * share); return new / new.mean().",
    ),
    "06.1": Implementation(
        name="my_all_but_the_top",
        reference=all_but_the_top,
        cases=lambda: [
            ("an uneven Gaussian shifted by +3, k = 1", dict(X=_cloud(300, 6, 1, shift=3.0), k=1)),
            ("the same cloud, k = 3", dict(X=_cloud(300, 6, 1, shift=3.0), k=3)),
            ("a narrow cone, k = 2", dict(X=make_cone(300, 8, 2), k=2)),
            ("k = 0 (centring only)", dict(X=_cloud(100, 4, 3, shift=2.0), k=0)),
        ],
        mistakes={
            "the bottom k directions were removed: np.linalg.eigh sorts eigenvalues in ascending order, so the "
            "top ones are the last columns": lambda X, k: (Xc := X - X.mean(axis=0)) - (
                Xc @ (V := np.linalg.eigh(np.cov(Xc.T))[1][:, :k])) @ V.T,
            "the top k directions were kept instead of removed": lambda X, k: (Xc := X - X.mean(axis=0)) @ (
                V := principal_axes(X).axes[:, :k]) @ V.T,
            "the mean was not removed: centre first, then project out the top directions": lambda X, k: X - (
                X @ (V := principal_axes(X).axes[:, :k])) @ V.T,
            "the uncentred vectors were projected, as in the last step of the paper's Algorithm 1; the course "
            "projects the centred ones, so the result has zero mean": lambda X, k: X - X.mean(axis=0) - (
                X @ (V := principal_axes(X).axes[:, :k])) @ V.T,
            "the eigenvectors are the columns of the matrix eigh returns, not its rows": lambda X, k: (
                Xc := X - X.mean(axis=0)) - (Xc @ (V := principal_axes(X).axes.T[:, :k])) @ V.T,
        },
        right="Centre, find the top k principal directions of the centred cloud, subtract each point's "
        "projection on them: the mean and the dominant directions are gone, the rest is untouched.",
        hint="Xc = X - X.mean(axis=0); the eigenvectors of np.cov(Xc.T) for the k largest eigenvalues (eigh "
        "returns them last); return Xc - (Xc @ U) @ U.T.",
    ),
    "07.1": Implementation(
        name="mean_cosine_across",
        reference=lambda X, groups: float(cross_group_cosines(X, groups).sum()),
        cases=lambda: [
            ("3 sentences of 5 tokens with a shared offset",
             dict(X=make_isotropic(15, 6, 1) + 1.5, groups=np.repeat([0, 1, 2], 5))),
            ("sentences of unequal length", dict(X=make_isotropic(12, 4, 2) + 0.5, groups=np.array([0] * 7 + [1] * 2 + [2] * 3))),
            ("every token its own sentence", dict(X=make_isotropic(20, 5, 3) + 1.0, groups=np.arange(20))),
            ("tokens of very different lengths",
             dict(X=(make_isotropic(16, 4, 4) + 1.0) * np.geomspace(0.1, 50, 16)[:, None], groups=np.arange(16) % 4)),
        ],
        mistakes={
            "pairs from the same sentence were counted too: only tokens from different sentences pair up":
                lambda X, groups: mean_cosine(X),
            "the rows were not normalised: that is the mean dot product, not the mean cosine": lambda X, groups: float(
                (X @ X.T)[groups[:, None] != groups[None, :]].mean()),
            "a token was paired with itself: the diagonal belongs to the same sentence": lambda X, groups: float(
                (_unit(X) @ _unit(X).T)[(groups[:, None] != groups[None, :]) | np.eye(len(X), dtype=bool)].mean()),
        },
        right="Average the cosine over the pairs whose tokens come from different sentences, Ethayarajh's "
        "baseline: a shared offset counts, the similarity of a sentence's own tokens does not.",
        hint="U = rows of X divided by their norms; C = U @ U.T; keep the entries where groups differ "
        "(groups[:, None] != groups[None, :]) and average them.",
    ),
    "08.1": Implementation(
        name="my_partition_isotropy",
        reference=lambda X: partition_isotropy(X, rescale=False),
        cases=_isotropy_cases,
        mistakes={
            "only one sign of each eigenvector was used: Z(c) and Z(-c) differ when the cloud is not centred, "
            "and the sign np.linalg.eigh returns is arbitrary, so evaluate both c and -c": lambda X: _ratio(
                logsumexp_columns(X @ np.linalg.eigh(X.T @ X)[1])),
            "the eigenvectors of the covariance (the centred cloud) were used; the estimator takes the "
            "eigenvectors of X^T X, uncentred": lambda X: _original_isotropy(
                X, np.linalg.eigh(np.cov(X.T))[1]),
            "the cloud was centred before Z was computed; the shared offset is what the estimator must see":
                lambda X: _original_isotropy(X - X.mean(axis=0)),
            "the ratio is inverted: min Z / max Z lies in [0, 1], max / min is its reciprocal": lambda X: 1.0 / (
                _original_isotropy(X)),
            "the rows were normalised first; the estimator takes the vectors as they are, lengths included":
                lambda X: _original_isotropy(_unit(X)),
            "the cloud was divided by its root-mean-square entry: that is the course's rescaled estimator, "
            "partition_isotropy(X); the original takes Z at the vectors' own scale": lambda X: partition_isotropy(X),
        },
        right="Eigenvectors of X^T X, log Z(c) by log-sum-exp for every c and -c, then exp(min - max): Mu & "
        "Viswanath's estimator, with both signs so that LAPACK's choice cannot change it.",
        hint="C = np.linalg.eigh(X.T @ X)[1]; P = X @ C; log Z of each column of P and of -P (subtract the "
        "column's maximum before np.exp); return exp(min log Z - max log Z).",
    ),
}


# ----- exercises answered by a number or a choice --------------------------------------------------

EXERCISES: dict[str, Exercise | Implementation] = {
    "01.2": Exercise(
        reference=lambda: 10.0,
        right="k equal eigenvalues give a participation ratio of exactly k.",
        hint="Write PR = (sum of eigenvalues)^2 / (sum of squares) for k equal values c: what cancels?",
        abs_tol=0.05,
    ),
    "01.3": Exercise(
        reference=lambda: "c",
        right="IsoScore centres the cloud first, so it sees only the spread, which is perfectly even.",
        hint="Ask of each meter: does it centre the cloud before measuring? A shift moves only the mean.",
        choices=("a", "b", "c"),
    ),
    "02.2": Exercise(
        reference=lambda: 1.0 / math.sqrt(200),
        right="About 1/sqrt(d): in high dimension random vectors are nearly orthogonal.",
        hint="Notebook 02 found 0.143 for d = 50. How does the spread of a dot product of unit vectors "
        "scale with the number of coordinates?",
        rel_tol=0.15,
    ),
    "02.3": Exercise(
        reference=lambda: "b",
        right="A high random-pair cosine is the baseline of a cloud that leans one way: a shared offset. It "
        "says nothing about meaning, nor about how the variance is spread.",
        hint="Recall notebook 01's centred line (one direction, mean cosine +0.000) and shifted Gaussian "
        "(every direction, mean cosine +0.901): which of the two has a high mean cosine, and why?",
        choices=("a", "b", "c"),
    ),
    "03.2": Exercise(
        reference=lambda: "b",
        right="Averaging pulls every token to a weighted mean of the tokens, which is never exactly 0: once "
        "the spread is smaller than that small offset, every cosine is near 1.",
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
    "04.2": Exercise(
        reference=lambda: 0.1,
        right="Its frequency is the maximum, so the factor is 1 - 0.9 * 1 = 0.1.",
        hint="Evaluate 1 - gamma * sqrt(f / f_max) for the token with f = f_max.",
        abs_tol=1e-6,
    ),
    "04.3": Exercise(
        reference=lambda: "a",
        right="Direction-only meters cannot see a positive rescaling of each token, by construction; the "
        "length-weighted meters could, and barely move only because the pull shortens few tokens by much.",
        hint="What does multiplying a vector by a positive number change, and which of the two meters is "
        "computed from unit vectors only?",
        choices=("a", "b", "c"),
    ),
    "04.4": Exercise(
        reference=lambda: "b",
        right="With equal frequencies push and pull balance for every token, so no band leans; untied, the "
        "output matrix forms the same cone and the input embeddings a later one.",
        hint="Compare the uniform-frequency run with the untied run: in which one does some matrix still "
        "form a rare cone?",
        choices=("a", "b", "c"),
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
        "A cone is a shared offset, and the toy's centred clouds have none.",
        hint="Read the mean cosine column of the meter table for step 60, and recall notebook 01's centred line.",
        choices=("a", "b"),
    ),
    "06.2": Exercise(
        reference=lambda: 7.68,
        right="768 / 100 = 7.68, so 7 or 8 components; the rule was tuned on 300-d static vectors, so treat "
        "it as a starting point to check against a task.",
        hint="Mu & Viswanath's rule scales with the dimension d: divide.",
        abs_tol=0.7,
    ),
    "06.3": Exercise(
        reference=lambda: "b",
        right="After whitening X^T X = nI: the eigenbasis is any orthonormal basis.",
        hint="Which eigenvalues does a whitened cloud have, and what does that say about its eigenvectors?",
        choices=("a", "b", "c"),
    ),
    "06.4": Exercise(
        reference=lambda: "a",
        right="Where the labels live decides: whitening equalises every direction, which lifts weak label "
        "directions and shrinks strong ones; that is why it helps cloud B and hurts cloud A.",
        hint="Compare the label directions' share of the variance in cloud B before and after each remedy.",
        choices=("a", "b", "c"),
    ),
    "07.2": Exercise(
        reference=lambda: "a",
        right="Mean cosine reads the shared offset; effective rank reads the covariance, which ignores the offset.",
        hint="Write down what each meter is computed from: the raw vectors, or the vectors minus their mean?",
        choices=("a", "b", "c"),
    ),
    "07.3": Exercise(
        reference=lambda: "b",
        right="Over most of the range, frequent words have larger input embeddings; notebook 04's pull assumed "
        "the opposite sign.",
        hint="Read the sign of the static embeddings' Spearman rho, then the median norm per frequency bin.",
        choices=("a", "b", "c"),
    ),
    "07.4": Exercise(
        reference=lambda: "b",
        right="An interval speaks about this model and this test set: a difference outside it is larger than "
        "resampling the pairs produces; one inside it is not shown, which is not the same as shown equal.",
        hint="What does the bootstrap resample, and what would it take to speak about other models?",
        choices=("a", "b", "c"),
    ),
    "08.2": Exercise(
        reference=lambda: "a",
        right="The frequent words and the rare words lean along nearly opposite mean directions (cosine -0.868): "
        "words of middling rank cancel the frequent words' offset, and the rarest words tip the whole "
        "vocabulary into their own cone.",
        hint="Look at the cosine between the mean direction of the most frequent rows and that of the rarest "
        "rows: what happens to the mean of a set that holds both?",
        choices=("a", "b", "c"),
    ),
    "08.3": Exercise(
        reference=lambda: "b",
        right="After centring every Z(c) is at least n, with equality along an emptied direction; all-but-the-top "
        "leaves the other directions as they were, so the minimum stays n while each removal can only lower "
        "the maximum, whatever the removed direction carried.",
        hint="Compare Z(c) = sum_i exp(c^T x_i) with n when the c^T x_i average to 0 (e^t >= 1 + t), and ask "
        "what removing a direction does to the smallest and the largest Z.",
        choices=("a", "b", "c"),
    ),
    "08.4": Exercise(
        reference=lambda: "b",
        right="Norm falls with rank (rho = -0.359): frequent words are longer, as in notebook 04's trained toy and "
        "notebook 07's static embeddings, and against the premise of the frequency pull.",
        hint="Read the median norm per rank band from the most frequent band to the rarest: does it rise or "
        "fall, and what sign does that give against log rank?",
        choices=("a", "b", "c"),
    ),
    **IMPLEMENTATIONS,
}
EXERCISES = dict(sorted(EXERCISES.items()))


# ----- verdicts -------------------------------------------------------------------------------------


def _as_number(answer: object) -> float | None:
    """``answer`` as a float if it is a real number (an int, a float, a numpy scalar, a 0-d array, a
    Decimal or a Fraction); ``None`` otherwise."""
    if isinstance(answer, np.ndarray) and answer.ndim == 0:
        answer = answer[()]
    if isinstance(answer, (bool, np.bool_)):
        return None
    if isinstance(answer, (numbers.Real, decimal.Decimal, Fraction)):
        value = float(answer)
        return value if math.isfinite(value) else None
    return None


def _looks_like_a_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _answer_verdict(exercise: str, ex: Exercise, answer: object) -> tuple[bool, str]:
    expected = ex.reference()
    if ex.choices:
        given = str(answer).strip().lower().strip("()\"'")
        if given not in ex.choices:
            return False, f"Exercise {exercise}: answer with one of {', '.join(ex.choices)}."
        ok = given == expected
    else:
        value = _as_number(answer)
        if value is None:
            if isinstance(answer, str) and _looks_like_a_number(answer.strip()):
                return False, (f"Exercise {exercise}: {answer!r} is text; remove the quotes so that the answer "
                               "is a number.")
            return False, f"Exercise {exercise}: answer with a number."
        ok = math.isclose(value, float(expected), rel_tol=ex.rel_tol, abs_tol=ex.abs_tol)
    if ok:
        return True, f"Exercise {exercise}: right. {ex.right}"
    return False, f"Exercise {exercise}: not yet. Hint: {ex.hint}"


def _close(got: object, want: object, rtol: float) -> bool:
    try:
        got_arr = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return False
    want_arr = np.asarray(want, dtype=float)
    if got_arr.shape != want_arr.shape:
        return False
    scale = max(1.0, float(np.max(np.abs(want_arr), initial=0.0)))
    return bool(np.all(np.isfinite(got_arr)) and np.allclose(got_arr, want_arr, rtol=rtol, atol=rtol * scale))


def _show(value: object) -> str:
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0:
        return f"{float(arr):.6g}"
    return f"an array of shape {arr.shape}"


def _implementation_verdict(exercise: str, impl: Implementation, fn: object) -> tuple[bool, str]:
    if not callable(fn):
        return False, f"Exercise {exercise}: pass your function itself, {impl.name}, not {type(fn).__name__}."
    cases = impl.cases()
    for description, kwargs in cases:
        inputs = {k: np.array(v, copy=True) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        try:
            got = fn(**inputs)
        except NotImplementedError:
            return False, (f"Exercise {exercise}: not implemented yet. Write the body of {impl.name} in place of "
                           "`raise NotImplementedError` and run the cell again.")
        except Exception as error:  # the learner's code: report whatever it raised, by case
            return False, (f"Exercise {exercise}: not yet. On {description}, {impl.name} raised "
                           f"{type(error).__name__}: {error}. Hint: {impl.hint}")
        if any(isinstance(v, np.ndarray) and not np.array_equal(v, kwargs[k]) for k, v in inputs.items()):
            return False, (f"Exercise {exercise}: not yet. On {description}, {impl.name} changed its input "
                           "array in place; compute on a copy (X - m makes a new array, X -= m does not).")
        want = impl.reference(**kwargs)
        if _close(got, want, impl.rtol):
            continue
        if np.shape(got) != np.shape(want):
            return False, (f"Exercise {exercise}: not yet. On {description}, {impl.name} returned "
                           f"{_show(got)}; expected {_show(want)}. Hint: {impl.hint}")
        if not np.all(np.isfinite(np.asarray(got, dtype=float))):
            return False, (f"Exercise {exercise}: not yet. On {description}, {impl.name} returned NaN or inf. "
                           "Likely mistake: exp overflowed; subtract each row's maximum before np.exp.")
        said = f"Exercise {exercise}: not yet. On {description}, {impl.name} returned {_show(got)}, expected {_show(want)}."
        for mistake, wrong in impl.mistakes.items():
            if _close(got, wrong(**kwargs), impl.rtol):
                return False, f"{said} Likely mistake: {mistake}."
        return False, f"{said} Hint: {impl.hint}"
    return True, f"Exercise {exercise}: right. It agrees with the toolkit on all {len(cases)} cases. {impl.right}"


def verdict(exercise: str, answer: object) -> tuple[bool, str]:
    """Whether ``answer`` to ``exercise`` (``"01.1"``, ...) is right, and what to tell the learner."""
    if not isinstance(exercise, str):
        raise TypeError(f"exercise: expected an exercise number such as '01.1', got {exercise!r}")
    if exercise not in EXERCISES:
        raise ValueError(f"exercise: unknown exercise {exercise!r}; known: {', '.join(EXERCISES)}")
    ex = EXERCISES[exercise]
    if answer is None or answer is Ellipsis:
        what = "your function" if isinstance(ex, Implementation) else "your answer"
        return False, f"Exercise {exercise}: not answered yet. Replace None with {what} and run the cell again."
    if isinstance(ex, Implementation):
        return _implementation_verdict(exercise, ex, answer)
    return _answer_verdict(exercise, ex, answer)


def check(exercise: str, answer: object) -> None:
    """Print the verdict on ``answer`` to ``exercise``: right, or what to revisit."""
    print(verdict(exercise, answer)[1])
