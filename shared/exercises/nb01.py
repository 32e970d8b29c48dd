"""Notebook 01's exercises: the effective rank, written by the learner; two questions on the meters."""

from __future__ import annotations

import numpy as np

from ..geometry import make_cone, make_isotropic
from ..meters import cov_eigs, effective_rank, entropy_rank
from .clouds import gaussian_cloud, unit
from .common import Exercise, Implementation
from .worked import Worked

#: The notebook's title, as the worked solutions head its part.
TITLE = "Sphere vs cone"


def participation(lam: np.ndarray) -> float:
    """The participation ratio (sum)^2 / sum of squares of ``lam``, whatever ``lam`` holds."""
    return float(lam.sum() ** 2 / np.sum(lam**2))


def cloud_cases() -> list[tuple[str, dict]]:
    line = np.outer(np.random.default_rng(5).standard_normal(300), unit(np.ones((1, 6)))[0])
    return [
        ("an isotropic Gaussian (400 x 8)", dict(X=make_isotropic(400, 8, 1))),
        ("a Gaussian shifted by +5 (400 x 8)", dict(X=make_isotropic(400, 8, 2) + 5.0)),
        ("a narrow cone (400 x 8)", dict(X=make_cone(400, 8, 3))),
        ("a centred line (300 x 6)", dict(X=line)),
        ("fewer points than dimensions (6 x 10)", dict(X=make_isotropic(6, 10, 4))),
        ("a tiny cloud, entries about 1e-9 (300 x 8)", dict(X=1e-9 * make_isotropic(300, 8, 6) * np.linspace(2, 1, 8))),
    ]


def reference_effective_rank(X: np.ndarray) -> float:
    return effective_rank(cov_eigs(X))


def uncentred(X: np.ndarray) -> float:
    return participation(np.linalg.eigvalsh(X.T @ X / len(X)))


def covariance_of_rows(X: np.ndarray) -> float:
    """Each point centred on its own mean (``X - X.mean(axis=1)``, or ``np.cov(X)``, which does that
    and treats the points as the variables): both give the same participation ratio."""
    return participation(np.linalg.eigvalsh(np.cov(X)))


def eps_in_the_denominator(X: np.ndarray) -> float:
    lam = cov_eigs(X)
    return float(lam.sum() ** 2 / (np.sum(lam**2) + 1e-12))


def correlation_matrix(X: np.ndarray) -> float:
    with np.errstate(invalid="ignore", divide="ignore"):  # a constant coordinate has no correlation
        return participation(np.linalg.eigvalsh(np.corrcoef(X.T)))


def column_norms(X: np.ndarray) -> list[float]:
    """The columns' lengths or their squares (variances), of the centred cloud or of X as it is."""
    found = []
    for Y in (X - X.mean(axis=0), X):
        norms = np.linalg.norm(Y, axis=0)
        found += [participation(norms), participation(norms**2)]
    return found


#: The eps a learner may add: powers of ten from 1e-16 to 1e-1.
EPSILONS = tuple(10.0**-k for k in range(1, 17))


def eps_large(X: np.ndarray) -> list[float]:
    """An eps added to the eigenvalues, to the denominator, or as a floor under the eigenvalues."""
    lam = cov_eigs(X)
    found = []
    for eps in EPSILONS:
        found += [participation(lam + eps), float(lam.sum() ** 2 / (np.sum(lam**2) + eps)),
                  participation(np.maximum(lam, eps))]
    return found


def singular_values(X: np.ndarray) -> float:
    return participation(np.linalg.svd(X - X.mean(axis=0), compute_uv=False))


def entropy_instead(X: np.ndarray) -> float:
    return entropy_rank(cov_eigs(X))


def sum_not_squared(X: np.ndarray) -> float:
    return float(cov_eigs(X).sum() / np.sum(cov_eigs(X) ** 2))


def sum_over_largest(X: np.ndarray) -> float:
    return float(cov_eigs(X).sum() / cov_eigs(X).max())


def hidden_cases(rng: np.random.Generator) -> list[tuple[str, dict]]:
    """The cases of 01.1 the class never sees, drawn from ``rng`` (seeded by the course's secret seed)."""
    s = int(rng.integers(10**6))
    flat = rng.standard_normal((90, 7))
    flat[:, 3] = 2.5  # a constant coordinate
    return [
        ("an uneven Gaussian shifted far from the origin (137 x 11)", dict(X=gaussian_cloud(137, 11, s, shift=6.0))),
        ("a cone (250 x 12)", dict(X=make_cone(250, 12, s + 1))),
        ("3 points in 7 dimensions", dict(X=rng.standard_normal((3, 7)) + 1.0)),
        ("a cloud with a constant coordinate (90 x 7)", dict(X=flat)),
    ]


EXERCISES: dict[str, Exercise | Implementation] = {
    "01.1": Implementation(
        name="my_effective_rank",
        toolkit=("shared.meters.spectrum.effective_rank", "shared.meters.spectrum.cov_eigs"),
        reference=reference_effective_rank,
        cases=cloud_cases,
        mistakes={
            "not_centred": ("the cloud was not centred: the eigenvalues of X^T X / n, not of the covariance, carry "
                            "the offset", uncentred),
            "rows_centred": (
                "each point was centred on its own mean (a mean along axis=1, over a row) instead of each coordinate "
                "on its mean over the points (axis=0); np.cov(X) does the same, since it treats each row as a "
                "variable: the covariance of the coordinates is np.cov(X.T), d x d", covariance_of_rows),
            "correlation_matrix": (
                "the eigenvalues are those of the correlation matrix (np.corrcoef), which divides each coordinate by "
                "its own spread and so makes every variance 1; the participation ratio reads the covariance, where "
                "a coordinate with more spread weighs more", correlation_matrix),
            "column_norms": (
                "the lengths (or variances) of the columns were used as the spectrum: they are the variances along "
                "the coordinate axes, which are not the principal directions unless the coordinates are "
                "uncorrelated; the eigenvalues of the covariance are the variances along the principal directions",
                column_norms),
            "eps_tiny_cloud": (
                "an eps was added to the denominator: on a cloud of tiny values (variances about 1e-18) it outweighs "
                "the sum of squares. The ratio does not depend on the scale and needs no eps", eps_in_the_denominator),
            "eps_changes_answer": (
                "an eps large enough to change the answer was added (to the eigenvalues, to the denominator, or as a "
                "floor under the eigenvalues): the eigenvalues of a covariance are >= 0 and the sum of their squares "
                "is 0 only for a single point, so the ratio needs no eps; leave it out", eps_large),
            "singular_values": ("singular values are standard deviations: square them to get variances",
                                singular_values),
            "entropy_rank": ("that is the entropy rank exp(-sum p log p), not the participation ratio", entropy_instead),
            "sum_not_squared": ("the numerator is the square of the sum, (sum lambda)^2, not the sum itself",
                                sum_not_squared),
            "sum_over_largest": ("sum / largest eigenvalue is another effective dimension; this one is (sum)^2 / sum "
                                 "of squares", sum_over_largest),
        },
        right="Centre, take the covariance eigenvalues, then (sum)^2 / sum of squares: 1 for a line, d for a "
        "sphere, and blind to a shift.",
        hints=(
            "The participation ratio asks how many directions share the spread. It is read from the variances "
            "along the principal directions, which are the eigenvalues of the covariance of the centred cloud: "
            "the square of their total, over the total of their squares.",
            "Decide from the shapes. X has one row per point and one column per coordinate; the covariance you "
            "want has one row and one column per coordinate, so what you subtract has one entry per coordinate, "
            "and the matrix you hand to the eigensolver is d x d, not n x n.",
            "Fill the blanks, checking each line's shape as you go:\n"
            "    Xc = X - ____                     # shape (d,) is what you subtract\n"
            "    lam = np.linalg.eigvalsh(____)    # a d x d matrix made from Xc\n"
            "    return ____                       # the ratio the prompt states, from lam",
        ),
        hidden_cases=hidden_cases,
        worked=Worked(
            question=("Write the effective rank yourself: centre the cloud (subtract each column's mean), "
                      r"take the eigenvalues $\lambda_k$ of its covariance, and return $(\sum_k \lambda_k)^2 / "
                      r"\sum_k \lambda_k^2$."),
            code="""\
import numpy as np


def my_effective_rank(X):
    Xc = X - X.mean(axis=0)  # centre: the rank reads the spread, not the offset
    lam = np.linalg.eigvalsh(Xc.T @ Xc / len(X))  # covariance eigenvalues
    return lam.sum() ** 2 / np.sum(lam**2)
""",
            why=(r"Centring is the step that matters: without it the eigenvalues are those of $X^\top X / n$, "
                 "and a shifted sphere, whose offset then dominates one eigenvalue, scores about 1 instead of "
                 "about $d$ (the check's second case). Singular values of the centred cloud are standard "
                 "deviations, not variances: square them first. `np.linalg.eigvalsh` may return tiny negative "
                 "values for directions with no variance; they change the ratio only by rounding."),
        ),
    ),
    "01.3": Exercise(
        reference=lambda: 10.0,
        right="k equal eigenvalues give a participation ratio of exactly k.",
        hints=(
            "The participation ratio counts how many directions share the variance evenly. What should it say "
            "when some directions share it equally and the rest carry none?",
            "Try it on a smaller spectrum you can add up in your head, two equal values and one zero, then ask "
            "what changes when there are more of each.",
        ),
        abs_tol=0.05,
        mistakes={
            "k_over_d": ("that is k / d, the fraction of the directions in use; the participation ratio counts "
                         "them", 10 / 50),
            "zeros_counted": ("the zero eigenvalues carry no variance, so they add nothing to either sum: only the "
                              "directions in use count", 50.0),
        },
        kind="Predict",
        worked=Worked(
            question=("A 50-dimensional covariance spectrum has 10 equal eigenvalues and 40 zeros. What is "
                      "its effective rank (participation ratio)? Work it out before computing anything."),
            code="""\
answer = 10  # PR = (10c)^2 / (10 c^2) = 10 for any c
""",
            why=("For $k$ equal eigenvalues $c$ and zeros elsewhere, $PR = (kc)^2 / (k c^2) = k$. The zeros "
                 "add nothing to either sum."),
        ),
    ),
    "01.2": Exercise(
        reference=lambda: "c",
        right="Only the mean cosine: the plane has no shared offset, so random pairs average a cosine of 0, as "
        "for the centred line in the table. Both ranks and IsoScore see that two directions of 50 carry all the "
        "variance.",
        hints=(
            "Two failures can be told apart: a shared offset and an uneven spread. Which of the two does this "
            "cloud have, and which meters read only that one?",
            "Look at the centred line in the table: it too is centred, with its variance in few directions. Which "
            "meter gave it a tick, and why?",
        ),
        choices=("a", "b", "c"),
        kind="Explain",
        worked=Worked(
            question=("A cloud in 50 dimensions lies flat in a plane through the origin: it is centred and "
                      "spreads evenly over two directions, with no variance in the other 48. Which meter "
                      "calls it isotropic? (a) effective rank, because both used directions carry the same "
                      "variance, so its spectrum is even (b) IsoScore, because it centres the cloud first, "
                      "and this cloud is already centred (c) mean random cosine, because with no shared "
                      "offset the pairs' cosines average zero"),
            code="""\
answer = "c"
""",
            why=("The plane has no shared offset, so random pairs are as often obtuse as acute and their "
                 "cosines average zero: the mean cosine gives it a tick, as it gave the centred line in "
                 "notebook 01's table ($+0.000$). Effective rank and IsoScore read the spread, and the spread "
                 "fills two directions of 50: the effective rank is about 2, IsoScore near its floor. Option "
                 '(a) confuses "even over the used directions" with "even over all directions"; (b) is true '
                 "of IsoScore's first step, but centring changes nothing here and the spread is still flat."),
        ),
    ),
}

#: What a learner should see at each of the notebook's "Try this." prompts, and why: the notebook's part of
#: the worked solutions' second half (``tests/test_try_this.py`` runs its blocks).
TRY_THIS = r'''The explorer redraws `sphere_and_cone(strength, residual)` (seed 0) and reads three meters of each
cloud.

```pycon
>>> from shared import cov_eigs, effective_rank, mean_cosine, partition_isotropy, sphere_and_cone
>>> def explorer(strength, residual, show=("isotropic", "cone")):
...     """The explorer's readings, and the share of each cloud's variance in its top direction."""
...     for name, X in zip(("isotropic", "cone"), sphere_and_cone(strength, residual)):
...         if name not in show:
...             continue
...         eigs = cov_eigs(X)
...         print(f"{name:9s} partition I = {partition_isotropy(X):.3f}, effective rank = {effective_rank(eigs):.1f},"
...               f" mean cosine = {mean_cosine(X):+.3f}, top share = {eigs[0] / eigs.sum():.3f}")
```

### Try this 01.1

*Set the cone strength to 0. Which meters now match the isotropic reference, and why does the
cloud stay a round blob?*

```pycon
>>> explorer(0.0, 0.1)
isotropic partition I = 0.690, effective rank = 48.8, mean cosine = +0.000, top share = 0.027
cone      partition I = 0.710, effective rank = 48.9, mean cosine = -0.000, top share = 0.026
```

All three. With no offset the "cone" is $x_i = \sigma \varepsilon_i$, a Gaussian shrunk to a tenth
of the reference's size, and none of the three meters reads size: partition isotropy is rescaled by
the root-mean-square entry, the effective rank is a ratio of eigenvalues, and a cosine ignores
length. The two clouds are different draws, so they agree to within sampling noise (partition
isotropy 0.710 against 0.690, effective rank 48.9 against 48.8). The picture stays a round blob
around the origin because nothing is left that all points share.

### Try this 01.2

*Keep the strength at 4 and raise the residual noise to 1. How do the effective rank and the
spectrum change as the residual catches up with the offset?*

```pycon
>>> for residual in (0.1, 0.25, 0.5, 1.0):
...     explorer(4.0, residual, show="cone")
cone      partition I = 0.000, effective rank = 2.3, mean cosine = +0.847, top share = 0.661
cone      partition I = 0.000, effective rank = 13.5, mean cosine = +0.536, top share = 0.250
cone      partition I = 0.001, effective rank = 39.1, mean cosine = +0.258, top share = 0.091
cone      partition I = 0.014, effective rank = 47.9, mean cosine = +0.087, top share = 0.041
```

The effective rank climbs from 2.3 to 13.5, 39.1 and 47.9, and the spike at the head of the cone's
spectrum sinks into a flat floor: the top direction holds 0.661 of the variance at $\sigma = 0.1$
and 0.041 at $\sigma = 1$. The spike is the spread of the offset coefficients $a_i = s(0.15 +
0.85U_i)$ along $u$, a variance of $s^2 \cdot 0.85^2/12$:

```pycon
>>> round(4.0**2 * 0.85**2 / 12, 3)
0.963
```

At $\sigma = 1$ every direction has variance 1 and $u$ has about 1 + 0.963, so one eigenvalue stands
at twice the floor: the spectrum is almost flat, and so is the rank. The mean cosine falls too
($+0.847$ to $+0.087$), because the residual's length $\sqrt{50}\,\sigma$ now dwarfs the offset;
partition isotropy stays near 0 (0.014), since it still finds the direction of the offset.

### Try this 01.3

*Put the strength back to 0 with the residual at 0.1, then raise the strength step by step up to
10. Which meter reaches its collapsed end first, and which keep moving all the way? Then drop the
residual to 0.01 (a needle): what is left for any meter to show?*

```pycon
>>> for strength in (0.0, 0.5, 1.0, 2.0, 4.0, 6.0, 10.0):
...     print(f"{strength:4}", end=" ")
...     explorer(strength, 0.1, show="cone")
 0.0 cone      partition I = 0.710, effective rank = 48.9, mean cosine = -0.000, top share = 0.026
 0.5 cone      partition I = 0.006, effective rank = 46.8, mean cosine = +0.127, top share = 0.051
 1.0 cone      partition I = 0.000, effective rank = 31.4, mean cosine = +0.340, top share = 0.126
 2.0 cone      partition I = 0.000, effective rank = 8.2, mean cosine = +0.627, top share = 0.336
 4.0 cone      partition I = 0.000, effective rank = 2.3, mean cosine = +0.847, top share = 0.661
 6.0 cone      partition I = 0.000, effective rank = 1.5, mean cosine = +0.921, top share = 0.813
10.0 cone      partition I = 0.000, effective rank = 1.2, mean cosine = +0.969, top share = 0.923
>>> explorer(10.0, 0.01, show="cone")
cone      partition I = 0.000, effective rank = 1.0, mean cosine = +1.000, top share = 0.999
```

Partition isotropy gets there first: 0.006 at strength 0.5 and 0.000 from strength 1 on, while
the effective rank is still 31.4 and the mean cosine $+0.340$. It compares $Z(c) = \sum_i
e^{c^\top x_i}$ between directions, and an exponential of the offset outgrows every other direction
as soon as the offset is comparable to the noise. The effective rank (31.4, 8.2, 2.3, 1.5, 1.2)
and the mean cosine ($+0.340$, $+0.627$, $+0.847$, $+0.921$, $+0.969$) keep moving up to strength
10. With the residual at 0.01 all three are pinned at their ends (0.000, 1.0, $+1.000$): a needle
leaves nothing for any meter to show. Only the ratio $s/\sigma$ matters, since every meter is
blind to scale: strength 10 with residual 0.25 reads exactly as the default, strength 4 with 0.1.
The order does not depend on the draw: over five seeds, at strength 1 partition isotropy is 0.000
while the effective rank is 31.1 to 32.9 and the mean cosine $+0.340$ to $+0.355$
(`tests/test_robust_try_this.py` checks it at 500 and 2,000 points too).

```pycon
>>> explorer(10.0, 0.25, show="cone")
cone      partition I = 0.000, effective rank = 2.3, mean cosine = +0.847, top share = 0.661
>>> at_one = [sphere_and_cone(1.0, 0.1, seed=seed).cone for seed in range(5)]
>>> [round(partition_isotropy(X), 3) for X in at_one]
[0.0, 0.0, 0.0, 0.0, 0.0]
>>> [round(effective_rank(cov_eigs(X)), 1) for X in at_one]
[31.4, 31.4, 31.6, 31.1, 32.9]
>>> [round(mean_cosine(X), 3) for X in at_one]
[0.34, 0.343, 0.344, 0.355, 0.348]
```

The prompt used to ask, at strength 10 and residual 0.01, which meter saturates first and which
keeps moving. At those settings none moves: partition isotropy is already 0.000 at the default,
and the other two are at 1.0 and $+1.000$. The path to the needle is where the meters differ, and
the prompt now asks about it.
'''
