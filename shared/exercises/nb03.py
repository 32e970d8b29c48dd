"""Notebook 03's exercises: one attention step, written by the learner; two questions on contraction."""

from __future__ import annotations

import numpy as np

from ..geometry import make_isotropic
from ..mechanisms import attention_step, softmax_rows
from .clouds import gaussian_cloud
from .common import Exercise, Implementation
from .worked import Worked

#: The notebook's title, as the worked solutions head its part.
TITLE = "Self-attention contraction"


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


def hidden_cases(rng: np.random.Generator) -> list[tuple[str, dict]]:
    """The cases of 03.1 the class never sees, drawn from ``rng`` (seeded by the course's secret seed)."""
    s = int(rng.integers(10**6))
    return [
        ("25 tokens in 4-D, beta 0.3, alpha 0.2", dict(X=gaussian_cloud(25, 4, s), beta=0.3, alpha=0.2)),
        ("7 tokens in 9-D, beta 1.7, alpha 0.8", dict(X=gaussian_cloud(7, 9, s + 1) + 0.4, beta=1.7, alpha=0.8)),
        ("very large scores (tokens of size 80)", dict(X=80.0 * gaussian_cloud(12, 3, s + 2), beta=0.5, alpha=0.4)),
    ]


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
        hidden_cases=hidden_cases,
        worked=Worked(
            question=(r"Write one attention layer: the scores $\beta X X^\top$, a softmax along each row "
                      r"(subtract each row's maximum before `np.exp`), then $X + \alpha(AX - X)$."),
            code="""\
import numpy as np


def my_attention_step(X, beta, alpha):
    S = beta * X @ X.T
    A = np.exp(S - S.max(axis=1, keepdims=True))  # subtracting the row maximum keeps exp finite
    A /= A.sum(axis=1, keepdims=True)  # each row of weights sums to 1
    return X + alpha * (A @ X - X)
""",
            why=("Row $i$ of `A` holds the weights token $i$ gives to every token, so the softmax normalises "
                 "along `axis=1`. Without the subtraction of the row maximum, scores above about 709 overflow "
                 "`np.exp` (the check's fourth case has scores in the thousands). `X + alpha * (A @ X - X)` "
                 r"moves each token a fraction $\alpha$ of the way to its weighted average; `A @ X` alone "
                 r"would be the average itself ($\alpha = 1$)."),
        ),
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
        kind="Explain",
        worked=Worked(
            question=("Start from a centred sequence (`offset=0.0`) and stack 120 layers. Where does the mean "
                      "random cosine end up? (a) near 0, because the sequence starts centred and attention "
                      "keeps it centred (b) near 1, because the tokens shrink onto a weighted mean off the "
                      "origin (c) below 0, because attention pushes the tokens apart from one another"),
            code="""\
answer = "b"
""",
            why=("Averaging pulls the tokens toward a weighted mean of themselves, wherever that is, and a "
                 "sample of centred Gaussian points is never centred exactly. Once the sequence has shrunk "
                 "well below its distance from the origin, every token points the same way: notebook 03's "
                 "meter table gives the centred start a mean cosine of $+1.000$ after 120 layers, against a "
                 "start that is a Gaussian in every respect. The shift of the start decides *how soon* the "
                 "sequence becomes a cone, not *whether*. Attention does not remove the mean; over 25 seeds "
                 "at 300 tokens it changes its length by a factor from 0.42 to 3.13 (0.127 before and 0.133 "
                 "after in the run of the meter table), so it can shrink it or triple it; what attention "
                 r"removes is the spread around it (1.402 to 0.000). At $\beta = 0.6$ every one of the 100 "
                 r"runs of notebook 03's seed table ends in a cone; at $\beta = 1.2$ the sequence can stay "
                 "split into clusters after 120 layers (mean cosine $+0.128$ to $+1.000$ by seed)."),
        ),
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
        kind="Predict",
        worked=Worked(
            question=("Sixteen sequences each start shifted along a random direction of their own. After 40 "
                      "layers, what is the mean cosine of two tokens from *different* sequences? (a) near 0, "
                      "because nothing is shared across sequences (b) near 1, because every layer of "
                      "attention builds a cone (c) near −1, because the sequences drift to opposite sides"),
            code="""\
answer = "a"
""",
            why=("Each sequence collapses onto its own ray, the direction of its own start. Attention never "
                 "mixes tokens of different sequences, so their rays stay as unrelated as the random "
                 "directions they started from: notebook 03 measures $-0.060$ to $+0.047$ across sequences "
                 "over five seeds, against at least $+0.995$ within. A cone shared by all sequences needs a "
                 "component they all share at the start (a bias, a position embedding, a common coordinate); "
                 "with a shared shift the cross-sequence cosine is $+0.936$ to $+0.981$, and with sinusoidal "
                 "position embeddings, whose mean over positions is not zero, it is $+0.955$ to $+0.966$ over "
                 "five seeds (the same embeddings minus their mean: $-0.021$ to $+0.014$)."),
        ),
    ),
}

#: What a learner should see at each of the notebook's "Try this." prompts, and why: the notebook's part of
#: the worked solutions' second half (``tests/test_try_this.py`` runs its blocks).
TRY_THIS = r'''`attention_run(depth, beta, alpha, offset)` is what the explorer's `stacked` computes (a run
extended layer by layer equals one built at once); the view reads the last layer's mean random
cosine (4,000 fresh pairs per layer) and angular spread.

```pycon
>>> import numpy as np
>>> from scipy.cluster.hierarchy import fcluster, linkage
>>> from shared import attention_run
>>> def explorer(depth, beta=0.6, alpha=0.09, offset=0.7):
...     run = attention_run(depth, beta, alpha, offset)
...     print(f"after layer {depth}: mean random cosine = {run.mean_cos[-1]:+.3f},"
...           f" angular std = {run.angular_std[-1]:.3f}")
...     return run
>>> def clusters(X):
...     """Sizes of the groups of tokens that lie within 0.05 of one another, largest first."""
...     return sorted(np.bincount(fcluster(linkage(X, "single"), 0.05, "distance"))[1:].tolist(), reverse=True)
```

### Try this 03.1

*Set the starting offset to 0, then raise the depth to 120. The sequence is centred, yet the mean
cosine still climbs toward 1. Toward which point does it shrink?*

```pycon
>>> run = explorer(120, offset=0.0)
after layer 120: mean random cosine = +1.000, angular std = 0.000
>>> [round(run.mean_cos[layer - 1], 3) for layer in (20, 40, 80)]
[0.14, 0.861, 1.0]
>>> start, end = run.clouds[0], run.clouds[120]
>>> round(float(np.linalg.norm(start.mean(axis=0))), 3), round(float(np.linalg.norm(end.mean(axis=0))), 3)
(0.127, 0.133)
>>> round(float(np.linalg.norm(end - end.mean(axis=0), axis=1).max()), 3)
0.0
```

Toward a weighted mean of its own tokens, which is not the origin: 300 Gaussian points have a
sample mean of length 0.127 here, and after 120 layers all of them sit at one point at distance
0.133 from the origin (the largest distance of a token from it rounds to 0.000). Seen from the origin, a cloud that has shrunk far below its distance from the
origin is a ray, so the mean cosine climbs ($+0.140$ at layer 20, $+0.861$ at 40, $+1.000$ at 80)
and the angular spread reaches 0.000. A centred start only delays the cone: the smaller the mean,
the longer the cloud must shrink before it is small against it.

### Try this 03.2

*Set $\alpha$ to 0. What happens at every depth, and what does that say about a skip connection
with no attention?*

```pycon
>>> for depth in (1, 40, 120):
...     run = explorer(depth, alpha=0.0)
after layer 1: mean random cosine = +0.242, angular std = 1.264
after layer 40: mean random cosine = +0.226, angular std = 1.264
after layer 120: mean random cosine = +0.228, angular std = 1.264
>>> float(np.abs(run.clouds[120] - run.clouds[0]).max())
0.0
```

Nothing moves: $X + 0 \cdot (AX - X) = X$, so after 120 layers every token is exactly where it
started (largest change 0.0) and the angular spread stays 1.264. A skip connection alone is the
identity; all contraction comes from the attention share. The mean cosine jitters ($+0.242$,
$+0.226$, $+0.228$) only because each layer draws 4,000 fresh random pairs from the same cloud;
that is the sampling noise of the meter, not a change of the cloud.

### Try this 03.3

*Raise $\beta$ to 5. Attention becomes local: does the sequence still contract to a single ray, or
into several clusters first?*

```pycon
>>> run = explorer(120, beta=5.0)
after layer 120: mean random cosine = +0.220, angular std = 1.206
>>> [len(clusters(run.clouds[layer])) for layer in (10, 40, 80, 120)]
[240, 21, 4, 4]
>>> clusters(run.clouds[120])
[140, 100, 30, 30]
>>> clusters(explorer(120, beta=0.6).clouds[120])
after layer 120: mean random cosine = +1.000, angular std = 0.000
[300]
>>> runs = [attention_run(120, 5.0, 0.09, 0.7, seed=seed) for seed in range(5)]
>>> [len(clusters(run.clouds[120])) for run in runs], [round(run.mean_cos[-1], 3) for run in runs]
([4, 5, 3, 4, 4], [0.204, 0.237, 0.268, 0.22, 0.298])
```

Into several clusters, and within 120 layers they never merge. With sharp attention each token
averages only its near neighbours, so the sequence breaks into groups that each shrink to a point:
21 groups at layer 40, 4 from layer 80 on (of 140, 100, 30 and 30 tokens). The clusters lie in
different directions from the origin, so the mean cosine stays low ($+0.220$) and the angular
spread large (1.206). At the default $\beta = 0.6$ the same sequence ends as one group of all 300
tokens. Other draws of the sequence end the same way: 3 to 5 clusters and a mean cosine of
$+0.204$ to $+0.298$ over five seeds, against one point for $\beta = 0.6$ in every seed (checked
at 150 and 300 tokens by `tests/test_robust_try_this.py`). Sharpness trades one cone for several: the tokens of a cluster become indistinguishable,
but the sequence as a whole does not become a single ray.
'''
