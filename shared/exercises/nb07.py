"""Notebook 07's exercises: the mean cosine across sentences, written by the learner; three questions."""

from __future__ import annotations

import numpy as np

from ..geometry import make_isotropic
from ..meters import cross_group_cosines, mean_cosine
from .common import Exercise, Implementation, unit


def reference_mean_cosine_across(X: np.ndarray, groups: np.ndarray) -> float:
    return float(cross_group_cosines(X, groups).sum())


def same_sentence_counted(X: np.ndarray, groups: np.ndarray) -> float:  # noqa: ARG001 (the mistake ignores them)
    return mean_cosine(X)


def dot_products_across(X: np.ndarray, groups: np.ndarray) -> float:
    return float((X @ X.T)[groups[:, None] != groups[None, :]].mean())


def paired_with_itself(X: np.ndarray, groups: np.ndarray) -> float:
    keep = (groups[:, None] != groups[None, :]) | np.eye(len(X), dtype=bool)
    return float((unit(X) @ unit(X).T)[keep].mean())


def sentence_by_sentence(X: np.ndarray, groups: np.ndarray) -> float:
    C = unit(X) @ unit(X).T
    means = [C[groups == g][:, groups != g].mean() for g in np.unique(groups)]
    return float(np.mean(means))


EXERCISES: dict[str, Exercise | Implementation] = {
    "07.1": Implementation(
        name="mean_cosine_across",
        toolkit=("shared.meters.cosines.cross_group_cosines", "shared.meters.cosines.mean_cosine"),
        libraries={"scipy.spatial.distance.cdist": "", "scipy.spatial.distance.pdist": ""},  # the cosines may come from scipy
        reference=reference_mean_cosine_across,
        cases=lambda: [
            ("3 sentences of 5 tokens with a shared offset",
             dict(X=make_isotropic(15, 6, 1) + 1.5, groups=np.repeat([0, 1, 2], 5))),
            ("sentences of unequal length", dict(X=make_isotropic(12, 4, 2) + 0.5, groups=np.array([0] * 7 + [1] * 2 + [2] * 3))),
            ("every token its own sentence", dict(X=make_isotropic(20, 5, 3) + 1.0, groups=np.arange(20))),
            ("tokens of very different lengths",
             dict(X=(make_isotropic(16, 4, 4) + 1.0) * np.geomspace(0.1, 50, 16)[:, None], groups=np.arange(16) % 4)),
        ],
        mistakes={
            "same_sentence_counted": ("pairs from the same sentence were counted too: only tokens from different "
                                      "sentences pair up", same_sentence_counted),
            "not_normalised": ("the rows were not normalised: that is the mean dot product, not the mean cosine",
                               dot_products_across),
            "paired_with_itself": ("a token was paired with itself: the diagonal belongs to the same sentence",
                                   paired_with_itself),
            "sentence_by_sentence": ("the mean was taken sentence by sentence and those means averaged, which weighs "
                                     "a short sentence's pairs as much as a long one's; average over all kept pairs "
                                     "at once", sentence_by_sentence),
        },
        right="Average the cosine over the pairs whose tokens come from different sentences, Ethayarajh's "
        "baseline: a shared offset counts, the similarity of a sentence's own tokens does not.",
        hints=(
            "Like the mean cosine, but only pairs of tokens from different sentences count: turn every token into "
            "a unit vector, take the cosine of every pair, and average over the pairs whose two tokens come from "
            "different sentences.",
            "Which pairs to keep is decided by groups alone: compare each token's label with every other token's "
            "to get an n x n table of True and False. Then ask what that table says on its diagonal, and whether "
            "a short sentence's pairs should weigh as much as a long one's.",
            "Fill the blanks:\n"
            "    U = X / ____                      # unit rows\n"
            "    C = U @ U.T\n"
            "    keep = ____                       # n x n: True where the two tokens' sentences differ\n"
            "    return ____",
        ),
    ),
    "07.3": Exercise(
        reference=lambda: "a",
        right="Mean cosine reads the shared offset; effective rank reads the covariance, which ignores the offset.",
        hints=(
            "Write down what each meter is computed from: the raw vectors, or the vectors minus their mean?",
            "Centring subtracts the same vector from every token. Which matrix does that leave unchanged, and "
            "which meter is read from it?",
        ),
        choices=("a", "b", "c"),
    ),
    "07.2": Exercise(
        reference=lambda: "b",
        right="Over most of the range, frequent words have larger input embeddings; notebook 04's pull assumed "
        "the opposite sign.",
        hints=(
            "Frequent words with small norms would show as norm falling as frequency rises. Look at the sign of "
            "the correlation, and at the norms bin by bin.",
            "Read the sign of the static embeddings' Spearman rho, then the median norm per frequency bin.",
        ),
        choices=("a", "b", "c"),
    ),
    "07.4": Exercise(
        reference=lambda: "b",
        right="An interval speaks about this model and this test set: a difference outside it is larger than "
        "resampling the pairs produces; one inside it is not shown, which is not the same as shown equal.",
        hints=(
            "An interval is a statement about the data it resampled. Ask what was resampled here, and what a "
            "difference inside the interval does and does not show.",
            "What does the bootstrap resample, and what would it take to speak about other models?",
        ),
        choices=("a", "b", "c"),
    ),
}
