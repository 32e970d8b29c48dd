"""Notebook 07's exercises: the mean cosine across sentences, written by the learner; three questions."""

from __future__ import annotations

import numpy as np

from ..geometry import make_isotropic
from ..meters import cross_group_cosines, mean_cosine
from .clouds import unit
from .common import Exercise, Implementation
from .worked import Worked

#: The notebook's title, as the worked solutions head its part.
TITLE = "The cone in a real Transformer"


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


def hidden_cases(rng: np.random.Generator) -> list[tuple[str, dict]]:
    """The cases of 07.1 the class never sees, drawn from ``rng`` (seeded by the course's secret seed)."""
    s = int(rng.integers(10**6))
    return [
        ("tokens whose sentences are not in order",
         dict(X=make_isotropic(18, 5, s) + 0.8, groups=rng.permutation(np.arange(18) % 4))),
        ("two sentences of 1 and 9 tokens", dict(X=make_isotropic(10, 3, s + 1) + 0.3, groups=np.array([7] + [2] * 9))),
    ]


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
        hidden_cases=hidden_cases,
        worked=Worked(
            question=("Write Ethayarajh's baseline for a set of tokens: the mean cosine over all pairs of "
                      "tokens that come from *different* sentences, where `groups[i]` is the sentence of "
                      "token `i`."),
            code="""\
import numpy as np


def mean_cosine_across(X, groups):
    U = X / np.linalg.norm(X, axis=1, keepdims=True)  # unit rows
    C = U @ U.T
    different = groups[:, None] != groups[None, :]  # pairs from different sentences
    return C[different].mean()
""",
            why=("Only pairs from different sentences count, so tokens of one sentence, which share their "
                 "context, do not inflate the baseline (Ethayarajh samples words from different contexts for "
                 "this reason). The mask also removes the diagonal, since a token is in its own sentence. The "
                 r"toolkit's `cross_group_cosines` computes the same mean without the $n \times n$ matrix, "
                 "from the sums of the unit vectors per sentence."),
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
        kind="Explain",
        worked=Worked(
            question=("After centring, the held-out mean cosine drops to almost 0 while the effective rank "
                      "does not move at all. Why? (a) centring removes only the shared mean, and the "
                      "effective rank sees only the covariance (b) centring is fitted on the other half, so "
                      "it cannot change the held-out rank at all (c) the effective rank is rounded, so a "
                      "small change in the spectrum does not show"),
            code="""\
answer = "a"
""",
            why=("Subtracting a fixed vector shifts the cloud without changing its shape: the covariance, and "
                 "so every meter computed from it (effective rank, IsoScore), is exactly the same. The mean "
                 "cosine, by contrast, is dominated by the shared offset (notebook 02), which is what "
                 "centring removes. That the remedy was fitted on the other half does not matter for this: "
                 "the shift is still one fixed vector."),
        ),
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
        kind="Explain",
        worked=Worked(
            question=("Do the model's *static input embeddings* follow the assumption of notebook 04's "
                      "frequency pull, that frequent words have small norms? (a) yes: the Spearman "
                      "correlation is negative, so frequent words are the short ones (b) mostly not: norm "
                      "rises with frequency, except among the most frequent words (c) there is no relation at "
                      "all: norm and frequency are independent of one another"),
            code="""\
answer = "b"
""",
            why=(r"Spearman's $\rho$ is $+0.810$ and the median norm climbs from 0.85 (Zipf 1–2) to 1.30 (Zipf "
                 "5–6); only the roughly one hundred most frequent words fall back (0.91 at Zipf 7–8). "
                 "Notebook 04's pull fixed the sign by construction, and its trained toy draws a U (the "
                 "rarest and the most frequent tokens longer than the middle) where these static norms draw "
                 "an inverted U; a real model's sign depends on its training, and this one's contextual "
                 "vectors show the opposite relation to its static ones (clearly when every occurrence "
                 "counts, more weakly per word type)."),
        ),
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
        kind="Explain",
        worked=Worked(
            question=("At layer 3, whitening cut to 128 directions has top-1 retrieval 0.797 against 0.891 "
                      "without a remedy, and the 95% interval of the difference excludes 0. At the last layer "
                      "the difference is within the noise. What may you conclude? (a) whitening hurts "
                      "retrieval on every model, since the interval excludes zero (b) here, at layer 3 only, "
                      "the loss exceeds what resampling the pairs produces (c) at the last layer whitening "
                      "and no remedy are equally good, since the interval contains zero"),
            code="""\
answer = "b"
""",
            why=("The bootstrap of Appendix C redraws the held-out pairs of one split, so its interval "
                 "measures how much the figure would move on another hundred pairs like these, from the same "
                 "model and the same fit half (section 5's 20 splits add the other source of chance: there "
                 "this loss appears in 20 of 20 splits): it says nothing about other models (a), where "
                 "notebook 06 and SimCSE's whitened BERT-base show whitening helping. An interval of the "
                 "difference that contains 0 means the test cannot tell the two apart; it does not show them "
                 "equal (c): with a hundred pairs, a difference of a few retrievals is within the noise "
                 "either way."),
        ),
    ),
}

#: What a learner should see at each of the notebook's "Try this." prompts, and why: the notebook's part of
#: the worked solutions' second half (``tests/test_try_this.py`` runs its blocks).
TRY_THIS = r'''The explorer shows `real_point(layer, remedy)`: held-out tokens and sentences of all-MiniLM-L6-v2
on the course corpus, with the remedy fitted on the other half. Encoding the corpus takes a few
seconds; after that every setting is cached.

```pycon
>>> import numpy as np
>>> from shared.real.encoder_study import real_point
>>> def explorer(layer, remedy, show=("held-out tokens", "held-out sentences")):
...     point = real_point(layer, remedy)
...     for group, readings in point.readings().items():
...         if group in show:
...             print(f"layer {layer}, {remedy}, {group}: " + ", ".join(str(r) for r in readings))
...     return point
```

### Try this 07.1

*With no remedy, step the layer from 0 to 6. Where is the token histogram furthest from 0, and
what happens at layer 6?*

```pycon
>>> for layer in range(7):
...     point = explorer(layer, "none", show="held-out tokens")
layer 0, none, held-out tokens: mean cosine = +0.073, effective rank = 81.0, cosine carried by coordinate 63 = 0.028
layer 1, none, held-out tokens: mean cosine = +0.157, effective rank = 58.2, cosine carried by coordinate 157 = 0.030
layer 2, none, held-out tokens: mean cosine = +0.190, effective rank = 57.0, cosine carried by coordinate 223 = 0.065
layer 3, none, held-out tokens: mean cosine = +0.201, effective rank = 64.8, cosine carried by coordinate 223 = 0.075
layer 4, none, held-out tokens: mean cosine = +0.217, effective rank = 63.5, cosine carried by coordinate 223 = 0.089
layer 5, none, held-out tokens: mean cosine = +0.239, effective rank = 60.7, cosine carried by coordinate 223 = 0.143
layer 6, none, held-out tokens: mean cosine = +0.031, effective rank = 140.8, cosine carried by coordinate 99 = 0.002
```

The mean cosine climbs from $+0.073$ at the embedding layer to $+0.239$ at layer 5, the furthest
from 0, with a growing share carried by one coordinate (223: 0.065 at layer 2, 0.143 at layer 5).
At layer 6 it falls back to $+0.031$ and the effective rank jumps from 60.7 to 140.8, well above
any earlier layer (81.0 at the embeddings): the last layer's tokens are spread over many more
directions and hardly lean, and no single coordinate carries their mean (coordinate 99: 0.002).
Why the last layer differs is not measured here; notebook 07 notes that this model was tuned
contrastively to tell sentences apart, on the output of its last layer, which is a candidate.

### Try this 07.2

*At layer 3, switch from* none *to* centring*. The token histogram jumps to 0; does the paraphrase
panel get better or worse?*

```pycon
>>> for remedy in ("none", "centring"):
...     point = explorer(3, remedy)
layer 3, none, held-out tokens: mean cosine = +0.201, effective rank = 64.8, cosine carried by coordinate 223 = 0.075
layer 3, none, held-out sentences: paraphrase cosine = +0.880, unrelated cosine = +0.599, paraphrase AUC = 0.995, top-1 retrieval = 0.891, AUC against traps = 0.087
layer 3, centring, held-out tokens: mean cosine = +0.002, effective rank = 64.8, cosine carried by coordinate 63 = 0.000
layer 3, centring, held-out sentences: paraphrase cosine = +0.704, unrelated cosine = +0.009, paraphrase AUC = 0.998, top-1 retrieval = 0.901, AUC against traps = 0.076
```

Slightly better, and the tokens' spread does not change at all. The token mean cosine drops from
$+0.201$ to $+0.002$ while the effective rank stays 64.8 (centring only shifts the cloud). On the
sentence vectors, paraphrase and unrelated cosines both fall (from $+0.880$ to $+0.704$ and from
$+0.599$ to $+0.009$), so the gap between them widens, yet what matters is their order: the
paraphrase AUC moves from 0.995 to 0.998 and top-1 retrieval from 0.891 to 0.901, while the AUC
against traps falls from 0.087 to 0.076. Centring makes the cosines read like similarities, but
on this model it changes the ranking little; notebook 07's 20-split table says how often such a
change survives another split.

### Try this 07.3

*At layer 3, switch to* whitening*. Where do the traps sit against the paraphrase pairs, before
and after?*

```pycon
>>> for remedy in ("none", "whitening"):
...     point = explorer(3, remedy, show="held-out sentences")
...     print(f"  median cosine: traps {np.median(point.traps):+.3f}, paraphrases"
...           f" {np.median(point.paraphrase):+.3f}, unrelated {np.median(point.unrelated):+.3f}")
layer 3, none, held-out sentences: paraphrase cosine = +0.880, unrelated cosine = +0.599, paraphrase AUC = 0.995, top-1 retrieval = 0.891, AUC against traps = 0.087
  median cosine: traps +0.972, paraphrases +0.894, unrelated +0.602
layer 3, whitening, held-out sentences: paraphrase cosine = +0.507, unrelated cosine = +0.007, paraphrase AUC = 0.920, top-1 retrieval = 0.599, AUC against traps = 0.065
  median cosine: traps +0.895, paraphrases +0.534, unrelated +0.007
```

Above the paraphrases both times. Without a remedy a trap's two sentences (the same words, a
different meaning) have a median cosine of $+0.972$ against $+0.894$ for a paraphrase pair; the
AUC against traps is 0.087, so a trap outscores a paraphrase pair in about nine comparisons of ten.
Whitening lowers every cosine, the paraphrases' most ($+0.534$ against the traps' $+0.895$), and
the AUC against traps falls to 0.065. A remedy that rescales directions cannot separate two
sentences whose vectors nearly coincide: a trap's two sentences share their words, and their
pooled vectors stay closer than a paraphrase pair's, with whitening as without it.

### Try this 07.4

*Compare* whitening *with* whitening, k = 128 *at any layer. Which one spreads the tokens over
more directions, and which one keeps paraphrases apart from unrelated pairs?*

```pycon
>>> for layer in (0, 3, 6):
...     for remedy in ("whitening", "whitening, k = 128"):
...         point = explorer(layer, remedy, show=())
...         print(f"layer {layer}, {remedy:18s}: effective rank {point.effective_rank:.1f},"
...               f" paraphrase AUC {point.check.auc:.3f}, top-1 retrieval {point.check.top1:.3f}")
layer 0, whitening         : effective rank 241.6, paraphrase AUC 0.768, top-1 retrieval 0.045
layer 0, whitening, k = 128: effective rank 114.9, paraphrase AUC 0.988, top-1 retrieval 0.772
layer 3, whitening         : effective rank 272.4, paraphrase AUC 0.920, top-1 retrieval 0.599
layer 3, whitening, k = 128: effective rank 113.4, paraphrase AUC 0.996, top-1 retrieval 0.797
layer 6, whitening         : effective rank 209.4, paraphrase AUC 0.974, top-1 retrieval 0.708
layer 6, whitening, k = 128: effective rank 103.8, paraphrase AUC 1.000, top-1 retrieval 0.970
```

Full whitening spreads the tokens over more directions at every layer (effective rank 241.6,
272.4 and 209.4 at layers 0, 3 and 6, against 114.9, 113.4 and 103.8 cut to 128), and cut to 128
keeps paraphrases apart from unrelated pairs better (paraphrase AUC 0.988, 0.996 and 1.000
against 0.768, 0.920 and 0.974). Full whitening lifts the weakest of the 384 directions to unit
variance, and for the sentence vectors those are estimated from the 338 sentences of the fit half,
the smallest poorly (notebook 07); keeping the top 128 drops them, and shrunk whitening, which
keeps every direction but damps the poorly measured ones, recovers most of the loss too. The more isotropic version is the worse one for the task, as in
notebook 06's cloud A.
'''
