"""Notebook 08's exercises: Mu & Viswanath's partition isotropy, written by the learner; three questions."""

from __future__ import annotations

import numpy as np

from ..geometry import make_cone, random_rotation
from ..meters import log_partition, logsumexp_columns, partition_isotropy
from .clouds import gaussian_cloud, unit
from .common import Exercise, Implementation
from .worked import Worked

#: The notebook's title, as the worked solutions head its part.
TITLE = "Static word vectors"


def ratio(log_z: np.ndarray) -> float:
    """min Z / max Z from the values of log Z."""
    return float(np.exp(log_z.min() - log_z.max()))


def original_isotropy(X: np.ndarray, C: np.ndarray | None = None) -> float:
    """Mu & Viswanath's estimator at the vectors' own scale, over +c and -c for the columns of C
    (default: the eigenvectors of X^T X)."""
    C = np.linalg.eigh(X.T @ X)[1] if C is None else C
    return ratio(log_partition(X, C))


def isotropy_cases() -> list[tuple[str, dict]]:
    rng = np.random.default_rng(8)
    cone = 0.4 * make_cone(400, 6, 8)
    return [
        ("an uneven Gaussian with a small offset (300 x 5)",
         dict(X=gaussian_cloud(300, 5, 1, scales=(1.0, 0.8, 0.6, 0.5, 0.4), shift=0.3))),
        ("a cone of short vectors (400 x 6)", dict(X=cone)),
        ("a cloud of tiny vectors, entries about 0.05 (200 x 4)",
         dict(X=0.05 * gaussian_cloud(200, 4, 2, scales=(1.0, 0.7, 0.5, 0.3), shift=1.0))),
        ("an offset along no principal axis (300 x 3)",
         dict(X=rng.standard_normal((300, 3)) * [1.2, 0.6, 0.3] @ random_rotation(3, 9) + [0.8, -0.2, 0.5])),
        ("long vectors, c^T x up to about 800: exp overflows (120 x 3)", dict(X=long_vectors())),
    ]


def long_vectors() -> np.ndarray:
    """Points at about +-800 along three axes (50, 40 and 30 of them, random signs): every Z(c) is
    about e^800, beyond float64 (e^709.8), while the ratio of two of them is near 1."""
    rng = np.random.default_rng(11)
    axes = np.repeat(np.eye(3), [50, 40, 30], axis=0) * rng.choice([-1.0, 1.0], size=(120, 1))
    return 800.0 * axes + rng.standard_normal((120, 3))


def reference_original(X: np.ndarray) -> float:
    return partition_isotropy(X, rescale=False)


def one_sign(X: np.ndarray) -> float:
    return ratio(logsumexp_columns(X @ np.linalg.eigh(X.T @ X)[1]))


def eigenvectors_as_rows(X: np.ndarray) -> float:
    return original_isotropy(X, np.linalg.eigh(X.T @ X)[1].T)


def covariance_eigenvectors(X: np.ndarray) -> float:
    return original_isotropy(X, np.linalg.eigh(np.cov(X.T))[1])


def centred_first(X: np.ndarray) -> float:
    return original_isotropy(X - X.mean(axis=0))


def inverted(X: np.ndarray) -> float:
    return 1.0 / original_isotropy(X)


def rows_normalised(X: np.ndarray) -> float:
    return original_isotropy(unit(X))


def rescaled(X: np.ndarray) -> float:
    return partition_isotropy(X)


def hidden_cases(rng: np.random.Generator) -> list[tuple[str, dict]]:
    """The cases of 08.2 the class never sees, drawn from ``rng`` (seeded by the course's secret seed)."""
    s = int(rng.integers(10**6))
    return [
        ("an uneven Gaussian with an offset (150 x 4)",
         dict(X=gaussian_cloud(150, 4, s, scales=(1.1, 0.9, 0.5, 0.2), shift=0.5))),
        ("a cone of short vectors (300 x 5)", dict(X=0.3 * make_cone(300, 5, s + 1))),
        ("long vectors, where exp overflows without log-sum-exp (200 x 3)",
         dict(X=gaussian_cloud(200, 3, s + 2, scales=(40.0, 30.0, 20.0), shift=60.0))),
    ]


EXERCISES: dict[str, Exercise | Implementation] = {
    "08.2": Implementation(
        name="my_partition_isotropy",
        toolkit=("shared.meters.partition.partition_isotropy", "shared.meters.partition.log_partition",
                 "shared.meters.partition.logsumexp_columns"),
        libraries={"scipy.special.logsumexp": ""},  # the prompt asks for log-sum-exp: scipy's is allowed
        reference=reference_original,
        cases=isotropy_cases,
        mistakes={
            "one_sign": ("only one sign of each eigenvector was used: Z(c) and Z(-c) differ when the cloud is not "
                         "centred, and the sign np.linalg.eigh returns is arbitrary, so evaluate both c and -c",
                         one_sign),
            "eigenvectors_as_rows": ("the eigenvectors were read as rows: np.linalg.eigh returns them as the columns "
                                     "of its second result, so the directions are C[:, j], and X @ C projects on all "
                                     "of them at once (not X @ C.T)", eigenvectors_as_rows),
            "covariance_eigenvectors": ("the eigenvectors of the covariance (the centred cloud) were used; the "
                                        "estimator takes the eigenvectors of X^T X, uncentred",
                                        covariance_eigenvectors),
            "centred_first": ("the cloud was centred before Z was computed; the shared offset is what the estimator "
                              "must see", centred_first),
            "inverted": ("the ratio is inverted: min Z / max Z lies in [0, 1], max / min is its reciprocal", inverted),
            "rows_normalised": ("the rows were normalised first; the estimator takes the vectors as they are, "
                                "lengths included", rows_normalised),
            "rescaled": ("the cloud was divided by its root-mean-square entry: that is the course's rescaled "
                         "estimator, partition_isotropy(X); the original takes Z at the vectors' own scale", rescaled),
        },
        right="Eigenvectors of X^T X, log Z(c) by log-sum-exp for every c and -c, then exp(min - max): Mu & "
        "Viswanath's estimator, with both signs so that LAPACK's choice cannot change it.",
        hints=(
            "Probe the cloud along its principal directions, found from the vectors as they are (not centred), in "
            "both senses of each. For every direction, the partition function sums the exponentials of the "
            "points' projections on it; the estimator is the smallest partition function over the largest.",
            "Keep every Z as a logarithm: exp of a projection of 800 overflows, while log Z does not. The "
            "log of a sum of exponentials stays finite if you take out each direction's largest term first and "
            "add it back after the log.",
            "Fill the blanks:\n"
            "    C = np.linalg.eigh(____)[1]       # the directions, one per column, mean kept in\n"
            "    P = ____                          # c^T x_i for every point, every c and every -c\n"
            "    top = P.max(axis=____)            # one value per direction\n"
            "    log_z = ____                      # log Z of every direction, without overflow\n"
            "    return ____                       # min Z / max Z, from the logs",
        ),
        nonfinite="Likely mistake: exp overflowed; compute log Z with the column's maximum subtracted before np.exp "
        "(log-sum-exp), and exp only the final difference.",
        hidden_cases=hidden_cases,
        worked=Worked(
            question=(r"Write Mu & Viswanath's original estimator: the eigenvectors $c$ of $X^\top X$ (not of "
                      r"the covariance: the mean stays in), $\log Z(c) = \log \sum_i e^{c^\top x_i}$ computed "
                      r"with log-sum-exp, for every $c$ *and* $-c$, then $I = \min Z / \max Z$. No rescaling."),
            code="""\
import numpy as np


def my_partition_isotropy(X):
    _, C = np.linalg.eigh(X.T @ X)  # eigenvectors of X^T X, uncentred: the offset stays in
    P = np.hstack([X @ C, -(X @ C)])  # c^T x_i for every c and every -c
    top = P.max(axis=0)
    log_z = top + np.log(np.exp(P - top).sum(axis=0))  # log-sum-exp: no overflow
    return float(np.exp(log_z.min() - log_z.max()))
""",
            why=(r"Three details make the number well defined. The eigenvectors are those of $X^\top X$, so "
                 "the direction of a shared offset is among them; the covariance's eigenvectors would miss it "
                 "when the offset does not lie along a principal axis (the check's last case). Both signs are "
                 r"evaluated: for a cloud that is not centred $Z(c) \ne Z(-c)$, and `np.linalg.eigh` returns "
                 "each eigenvector with an arbitrary sign, so evaluating only the returned $c$ gives a value "
                 "that depends on the library build (Mu & Viswanath's formula, as printed, does that). And "
                 r"the ratio is taken of logarithms, $\exp(\min \log Z - \max \log Z)$, so no exponential "
                 "overflows. The toolkit's `partition_isotropy(X)` adds one more step, a division by the "
                 "root-mean-square entry, which makes the value independent of the cloud's scale; "
                 "`rescale=False` is the function above."),
        ),
    ),
    "08.1": Exercise(
        reference=lambda: "a",
        right="The frequent words and the rare words lean along nearly opposite mean directions (cosine -0.868): "
        "words of middling rank cancel the frequent words' offset, and the rarest words tip the whole "
        "vocabulary into their own cone.",
        hints=(
            "A mean cosine reads the mean direction of the set. What happens to the mean of a set when you add "
            "rows that lean another way?",
            "Look at the cosine between the mean direction of the most frequent rows and that of the rarest rows: "
            "what happens to the mean of a set that holds both?",
        ),
        choices=("a", "b", "c"),
        kind="Explain",
        worked=Worked(
            question=("The mean cosine of the first 10,000 rows is $+0.220$, of the first 100,000 only "
                      "$+0.012$, and of all 400,000 again $+0.113$. Why does it fall and then rise? (a) "
                      "frequent and rare words lean in nearly opposite directions, so a mix partly cancels "
                      "(b) more rows always give a smaller mean cosine, and the last value is just noise (c) "
                      "rare words are isotropic, so adding them only dilutes the offset of the frequent words"),
            code="""\
answer = "a"
""",
            why=("The mean direction of the 10,000 most frequent rows and that of the rows ranked 100,001 to "
                 "400,000 have a cosine of $-0.868$. A set of frequent words shares one offset; adding words "
                 "of middling rank pulls the mean vector towards zero (its norm falls from 2.31 at 10,000 "
                 "rows to 0.51 at 100,000), and the many rare words then dominate with an offset of their own "
                 "(1.40 for all rows). The mean cosine is exact here (every pair), so none of this is noise."),
        ),
    ),
    "08.3": Exercise(
        reference=lambda: "a",
        right="After centring every Z(c) is at least n, with equality along an emptied direction; the centred "
        "all-but-the-top leaves the other directions as they were, so the minimum stays n while each removal can "
        "only lower the maximum, whatever the removed direction carried. (Algorithm 1 as written leaves a shared "
        "offset along the removed directions, and there the estimator can fall.)",
        hints=(
            "Ask what bounds each Z(c) from below once the cloud is centred, and what removing a direction does "
            "to the projections along it.",
            "Compare Z(c) = sum_i exp(c^T x_i) with n when the c^T x_i average to 0 (e^t >= 1 + t), and ask what "
            "removing a direction does to the smallest and the largest Z.",
        ),
        choices=("a", "b", "c"),
        kind="Explain",
        worked=Worked(
            question=("After the course's (centred) all-but-the-top with $D = 10$, the original estimator "
                      "reads 0.733 and the course's 0.085. Why can the original never fall as directions are "
                      "removed from the centred vectors? (a) an emptied direction holds the minimum at its "
                      "lowest, while the maximum only falls (b) the vectors become more isotropic with every "
                      "direction that is removed from the cloud (c) the original estimator has a bug that "
                      "makes it ignore the removed directions"),
            code="""\
answer = "a"
""",
            why=(r"After centring, the projections $c^\top x_i$ on any direction average to 0, and since $e^t "
                 r"\ge 1 + t$, $Z(c) = \sum_i e^{c^\top x_i} \ge n$, with equality exactly along an empty "
                 "direction. All-but-the-top leaves the projections on the remaining principal directions as "
                 "they were and empties the removed ones. So from $D = 1$ on the minimum is exactly $n$, and "
                 "removing a direction can only take a candidate for the maximum away: the value rises when "
                 "the removed direction held the largest $Z$ and stays flat otherwise (0.580 at $D = 1$ and "
                 "2), at any scale, whatever the directions carried. The effective rank shows the cost: it "
                 "falls from 38.2 at $D = 1$ to 32.3 at $D = 10$. The course's estimator divides by the "
                 "root-mean-square entry, which shrinks as directions are removed, so the remaining, uneven "
                 "directions weigh more and the value falls after $D = 1$. The argument needs the centred "
                 "projection and both signs of every direction: Mu & Viswanath's Algorithm 1 as written "
                 "projects the uncentred vector, leaves every word the same coordinate $a$ along each removed "
                 r"direction, so $Z(\pm u) = n e^{\pm a}$ and one of the two lies below $n$; by the same "
                 "estimator it drops below its centred value (0.483) and stays there (0.329 to 0.374 for $D = "
                 "1$ to 10)."),
        ),
    ),
    "08.4": Exercise(
        reference=lambda: "c",
        right="Norm falls with rank (rho = -0.359): frequent words are longer, as in notebook 04's trained toy and "
        "notebook 07's static embeddings, and against the premise of the frequency pull.",
        hints=(
            "A Spearman correlation asks whether one quantity rises or falls with the rank of the other. Decide "
            "which way the norm moves as words get rarer.",
            "Read the median norm per rank band from the most frequent band to the rarest: does it rise or fall, "
            "and what sign does that give against log rank?",
        ),
        choices=("a", "b", "c"),
        kind="Predict",
        worked=Worked(
            question=("Over all 400,000 GloVe words, is the Spearman correlation between a vector's norm and "
                      "its log frequency rank positive, negative or about zero? (a) positive: rare words are "
                      "longer, and frequent words are shorter (b) about zero: norm does not follow frequency "
                      "at all (c) negative: frequent words are longer"),
            code="""\
answer = "c"
""",
            why=(r"$\rho = -0.359$: the median norm falls from 5.35 (ranks 11–100) to 4.31 (ranks "
                 "50,001–400,000), so frequent words are longer. Only the ten most frequent words are shorter "
                 "again. This is the sign of notebook 04's trained toy and of notebook 07's static input "
                 "embeddings, and the opposite of the premise of notebook 04's frequency pull."),
        ),
    ),
}

#: What a learner should see at each of the notebook's "Try this." prompts, and why: the notebook's part of
#: the worked solutions' second half (``tests/test_try_this.py`` runs its blocks).
TRY_THIS = r'''The explorer shows the sweep of section 3: all-but-the-top with $D$ = 0 to 10 on the 50,000 most
frequent GloVe vectors, read by both estimators of partition isotropy.

```pycon
>>> import numpy as np
>>> from shared import all_but_the_top, cov_eigs, effective_rank, glove_vectors, partition_isotropy, random_cosines
>>> X = glove_vectors(50_000)
>>> eigs_raw = cov_eigs(X)
>>> def explorer(D):
...     Y = all_but_the_top(X, D)
...     print(f"after D = {D:2d}: partition I = {partition_isotropy(Y):.3f}, partition I, original ="
...           f" {partition_isotropy(Y, rescale=False):.3f}, mean random cosine = {random_cosines(Y, 0).mean():+.3f},"
...           f" effective rank = {effective_rank(cov_eigs(Y)):.1f}")
...     return Y
>>> print(f"unprocessed: mean random cosine = {random_cosines(X, 0).mean():+.3f},"
...       f" effective rank = {effective_rank(eigs_raw):.1f}")
unprocessed: mean random cosine = +0.027, effective rank = 36.9
```

### Try this 08.1

*Move $D$ from 0 to 1. Which part of the spectrum disappears, and what happens to the cosine
histogram? Why does centring ($D = 0$) already move the histogram's mean to 0?*

```pycon
>>> Y = explorer(0)
after D =  0: partition I = 0.223, partition I, original = 0.483, mean random cosine = +0.002, effective rank = 36.9
>>> Y = explorer(1)
after D =  1: partition I = 0.276, partition I, original = 0.580, mean random cosine = +0.003, effective rank = 38.2
>>> np.round(eigs_raw[:3] / eigs_raw.sum(), 3).tolist(), np.round(cov_eigs(Y)[:2] / eigs_raw.sum(), 3).tolist()
([0.065, 0.043, 0.042], [0.043, 0.042])
```

The head of the spectrum: the top eigenvalue, 0.065 of the variance, is gone, and the second and
third (0.043 and 0.042) now lead. GloVe's spectrum has no single dominant direction, so removing
it changes little: the effective rank rises only from 36.9 to 38.2. The histogram hardly moves
($+0.002$ to $+0.003$): its mean was already at 0 after centring, which removes the shared offset
that made the unprocessed mean $+0.027$. A mean random cosine reads the offset, not the spread, so
only the subtraction of the mean shows in it.

### Try this 08.2

*Move $D$ from 1 to 10. The two isotropy curves part: which one would you trust to choose $D$, and
what does the spectrum panel show that the original estimator rewards?*

```pycon
>>> for D in (2, 3, 5, 10):
...     Y = explorer(D)
after D =  2: partition I = 0.259, partition I, original = 0.580, mean random cosine = +0.002, effective rank = 37.9
after D =  3: partition I = 0.258, partition I, original = 0.628, mean random cosine = +0.001, effective rank = 37.6
after D =  5: partition I = 0.215, partition I, original = 0.664, mean random cosine = +0.002, effective rank = 36.5
after D = 10: partition I = 0.085, partition I, original = 0.733, mean random cosine = +0.001, effective rank = 32.3
```

The course's estimator falls (0.276 at $D = 1$ to 0.085 at $D = 10$) while the original rises
(0.580 to 0.733). The spectrum panel shows what the original rewards: every removed direction is
emptied, and after centring an empty direction has $Z(c) = n$ exactly, the lowest value any
direction can have (exercise 08.3), so the minimum is pinned and each removal can only lower the
maximum. The effective rank shows the cost: 38.2 at $D = 1$, 32.3 at $D = 10$. Neither estimator
should choose $D$ on its own (notebook 06: measure a task), but the course's, which is blind to
scale and does not reward emptied directions, is the one whose rise means the vectors got more
even; here it says $D = 1$.

### Try this 08.3

*Find the $D$ where the original estimator first reaches Mu & Viswanath's 0.6. Is the course's
estimator at its best there?*

Reading the outputs above: the original estimator is 0.580 at $D = 1$ and 2 and first passes 0.6
at $D = 3$ (0.628). The course's estimator is not at its best there: it peaks at $D = 1$ (0.276)
and is 0.258 at $D = 3$, on its way down. The two disagree on which $D$ is best because the
original rewards what the course's penalises, the emptying of directions.

```pycon
>>> Y = explorer(3)
after D =  3: partition I = 0.258, partition I, original = 0.628, mean random cosine = +0.001, effective rank = 37.6
```
'''
