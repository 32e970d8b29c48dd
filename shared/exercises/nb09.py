"""Notebook 09's exercises: RMSNorm, written by the learner; two questions on the decoder's cone."""

from __future__ import annotations

import numpy as np

from .common import Exercise, Implementation
from .worked import Worked

EPS = 1e-5  # SmolLM2's RMSNorm epsilon (rounded), used by the cases

#: The notebook's title, as the worked solutions head its part.
TITLE = "The cone in a decoder LLM"


def reference_rms_norm(x: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    from ..real.decoder import rms_norm  # imported here: the decoder module loads nothing heavy, but stays optional

    return rms_norm(x, gain, eps)


def rms_cases() -> list[tuple[str, dict]]:
    rng = np.random.default_rng(9)
    shifted = rng.standard_normal((6, 8)) + 3.0
    massive = rng.standard_normal((5, 16))
    massive[0, 3] = 2000.0  # a massive activation, as SmolLM2's first token carries
    return [
        ("4 random vectors of width 8, gain 1", dict(x=rng.standard_normal((4, 8)), gain=np.ones(8), eps=EPS)),
        ("vectors with a shared offset (RMSNorm does not centre)", dict(x=shifted, gain=np.linspace(0.5, 2, 8),
                                                                         eps=EPS)),
        ("one vector with a massive coordinate", dict(x=massive, gain=rng.uniform(0.1, 3, 16), eps=EPS)),
        ("a tiny vector, where eps matters", dict(x=np.full((1, 4), 1e-4), gain=np.ones(4), eps=1e-6)),
        ("a batch of 2 sequences of 3 vectors of width 5 (a 3-D array)",
         dict(x=rng.standard_normal((2, 3, 5)) + 0.5, gain=rng.uniform(0.5, 1.5, 5), eps=EPS)),
        ("a single vector of width 6 (a 1-D array)", dict(x=rng.standard_normal(6) * 20.0, gain=np.ones(6), eps=EPS)),
    ]


def centred_first(x: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    c = x - x.mean(axis=-1, keepdims=True)
    return c / np.sqrt(np.mean(c * c, axis=-1, keepdims=True) + eps) * gain


def gain_left_out(x: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    return reference_rms_norm(x, np.ones_like(gain), eps)


def eps_outside_the_root(x: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    return x / (np.sqrt(np.mean(x * x, axis=-1, keepdims=True)) + eps) * gain


def axis_one(x: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    if x.ndim < 2:
        return np.full(x.shape, np.nan)  # axis=1 does not exist: the learner's function raises
    return x / np.sqrt(np.mean(x * x, axis=1, keepdims=True) + eps) * gain


def wrong_axis(x: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    return x / np.sqrt(np.mean(x * x, axis=0, keepdims=True) + eps) * gain


def std_not_rms(x: np.ndarray, gain: np.ndarray, eps: float) -> list[np.ndarray]:
    sd = np.std(x, axis=-1, keepdims=True)
    return [x / np.sqrt(sd * sd + eps) * gain, x / (sd + eps) * gain, x / sd * gain]


def norm_not_rms(x: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    return x / np.sqrt(np.sum(x * x, axis=-1, keepdims=True) + eps) * gain


def hidden_cases(rng: np.random.Generator) -> list[tuple[str, dict]]:
    """The cases of 09.1 the class never sees, drawn from ``rng`` (seeded by the course's secret seed)."""
    return [
        ("3 vectors of width 12 with an offset, eps 1e-3",
         dict(x=2.0 * rng.standard_normal((3, 12)) + 1.0, gain=rng.uniform(0.2, 2.0, 12), eps=1e-3)),
        ("a batch of 2 x 3 vectors of width 5",
         dict(x=rng.standard_normal((2, 3, 5)), gain=rng.uniform(0.5, 1.5, 5), eps=1e-5)),
        ("a single vector (1-D)", dict(x=rng.standard_normal(6) * 50.0, gain=np.ones(6), eps=1e-6)),
    ]


EXERCISES: dict[str, Exercise | Implementation] = {
    "09.1": Implementation(
        name="my_rms_norm",
        toolkit=("shared.real.decoder.rms_norm",),  # its module is imported when the check runs
        reference=reference_rms_norm,
        cases=rms_cases,
        mistakes={
            "centred_first": ("the vectors were centred first: that is LayerNorm; RMSNorm divides by the root mean "
                              "square of x itself, so a shared offset survives it", centred_first),
            "gain_left_out": ("the gain was left out: multiply by gain after dividing", gain_left_out),
            "eps_outside_root": ("eps was added outside the square root", eps_outside_the_root),
            "std_not_rms": ("the standard deviation (np.std, np.var) was used: it subtracts each row's mean before "
                            "squaring; RMSNorm divides by the root mean square about 0, sqrt(mean(x**2) + eps)",
                            std_not_rms),
            "axis_one": ("the mean was taken over axis=1, which is the last axis only for a 2-D array: on a batch "
                         "(3-D) it runs over the rows and on a single vector (1-D) it does not exist; normalise each "
                         "vector over its own coordinates, axis=-1", axis_one),
            "wrong_axis": ("the mean was taken over the wrong axis: normalise each row over its coordinates "
                           "(axis=-1)", wrong_axis),
            "norm_not_rms": ("the norm was used instead of the root mean square: divide by sqrt(mean(x**2)), not by "
                             "sqrt(sum(x**2))", norm_not_rms),
        },
        right="RMSNorm: each row divided by the root of its mean square (plus eps), times the gain. It does not "
        "centre, so a coordinate every token shares passes through it to the next block.",
        hints=(
            "RMSNorm divides each token by the root of the mean of its squared entries (a small eps added inside "
            "the root keeps it finite), then scales each coordinate by its gain; unlike LayerNorm it subtracts no "
            "mean.",
            "The mean square belongs to one vector, so it runs over that vector's own coordinates, whatever the "
            "number of axes of x (a batch of sequences is 3-D, a single vector 1-D). Pick the axis that is "
            "right in all three cases, and keep it so that the result divides its own vector.",
            "Fill the blanks:\n"
            "    ms = np.mean(____, axis=____, keepdims=True)   # one mean square per vector\n"
            "    return ____ * gain",
        ),
        hidden_cases=hidden_cases,
        worked=Worked(
            question=("Write RMSNorm: divide each row of `x` by the root of its mean square (plus `eps`, "
                      "inside the root), then multiply by the gain vector."),
            code="""\
import numpy as np


def my_rms_norm(x, gain, eps):
    ms = np.mean(x * x, axis=-1, keepdims=True)  # mean square of each row
    return x / np.sqrt(ms + eps) * gain
""",
            why=("The step that distinguishes it from LayerNorm is the one it leaves out: nothing is "
                 "subtracted. A coordinate that every token carries (coordinate 507 in SmolLM2) is rescaled "
                 "but kept, so the blocks see it; and since only the copies entering the blocks are "
                 "normalised, the residual stream itself is never centred or rescaled at all. `eps` goes "
                 "inside the square root: outside it, a tiny vector is divided by almost `eps` instead of by "
                 "its own size (the check's last case)."),
        ),
    ),
    "09.2": Exercise(
        reference=lambda: "b",
        right="Leaving out the first tokens barely moves the mean cosine: the cone is a value every token "
        "carries on a few coordinates, not the first token's outlier. The effective rank is what the first token ruins.",
        hints=(
            "The two meters read different things: the mean cosine the shared offset, the effective rank the "
            "covariance. Which of them would one huge entry in a few tokens dominate?",
            "Compare the columns 'all' and 'first left out' of the layer table, for the mean cosine and for the "
            "effective rank.",
        ),
        choices=("a", "b", "c"),
        kind="Explain",
        worked=Worked(
            question=("At layer 15, leaving out the first token of every sentence changes the mean cosine "
                      "from +0.606 to +0.617, and the effective rank from 1.0 to 45.8. What does that say? "
                      "(a) the first token is what makes the cone, so leaving it out removes the offset (b) "
                      "every token shares the cone; the first token's huge entry ruins only the covariance "
                      "meters (c) leaving out any tokens always raises the effective rank, whichever tokens "
                      "they are"),
            code="""\
answer = "b"
""",
            why=("The first tokens are 228 of 2,306 tokens, so they take part in about a fifth of the "
                 "cross-sentence pairs, and their cosines with the other tokens are of the same order as the "
                 "others' among themselves: the mean cosine moves by a hundredth. Their entry on coordinate "
                 "507 (median 22,517 at layer 15) is thousands of times every other entry, so the covariance "
                 "has one direction that holds nearly all the variance: effective rank 1.0. Without them, "
                 "45.8 directions are in use, still far below the Gaussian's 450.8."),
        ),
    ),
    "09.3": Exercise(
        reference=lambda: "c",
        right="The 'the' tokens, with their outsized entry, pull the fitted mean along coordinate 507; subtracting it leaves every "
        "other token leaning the opposite way, so the cone moves instead of vanishing.",
        hints=(
            "Centring subtracts a mean fitted on some tokens. What do a few tokens with an outsized entry do to "
            "that mean, and so to every other token after the subtraction?",
            "Compare the mean and the median of coordinate 507 over the fit tokens, and ask which tokens pull "
            "them apart.",
        ),
        choices=("a", "b", "c"),
        kind="Explain",
        worked=Worked(
            question=("At layer 3, centring fitted on the fit half leaves the held-out tokens a mean cosine "
                      "of +0.189; at layer 15 it leaves +0.002. Why? (a) centring cannot work on a decoder, "
                      "whose tokens keep leaning one way at every layer (b) the held-out sentences of layer 3 "
                      'are different ones, so the fitted mean does not fit them (c) at layer 3 the "the" '
                      "tokens carry an outsized entry, so the mean sits off the rest"),
            code="""\
answer = "c"
""",
            why=("At layer 3 the fit tokens' mean on coordinate 507 is +73.5 against a median of +42.6: the "
                 '"the" tokens, about one in seventeen, pull it up. After subtracting the mean, the held-out '
                 'tokens other than "the" sit at -31.8 on that coordinate, half of their norm (62.2), all '
                 'with the same sign: a cone on the other side. Two printed controls back this: the "the" '
                 "tokens' largest entry sits on coordinate 507 for 0.97 of them, and on the held-out tokens "
                 'other than "the", centring fitted on all fit tokens leaves +0.259, fitted without the "the" '
                 "tokens +0.005. The +0.189 is one split of the sentences: over five random halvings plain "
                 "centring leaves +0.137 to +0.210. At layer 15 no token but the first (left out) passes the "
                 "course's 100-times rule, so the mean is the typical value and centring removes it."),
        ),
    ),
}

#: What a learner should see at each of the notebook's "Try this." prompts, and why: the notebook's part of
#: the worked solutions' second half (``tests/test_try_this.py`` runs its blocks).
TRY_THIS = r'''The explorer shows `decoder_point(layer, leave_out)`: SmolLM2-135M's residual stream for the
course's 228 sentences, with the first token of every sentence, the massive coordinates, or both
left out. Running the decoder takes a few seconds; after that every setting is cached.

```pycon
>>> from shared.real.decoder_study import decoder_point, decoder_profile
>>> def explorer(layer, leave_out="nothing"):
...     point = decoder_point(layer, leave_out)
...     print(f"layer {layer:2d}, left out {leave_out}: "
...           + ", ".join(str(r) for r in point.readings()["tokens from different sentences"]))
...     return point
>>> def right_panel(point):
...     """The eight coordinates with the largest terms of the mean cosine, and their terms."""
...     print(", ".join(f"{int(c)}: {t:.3f}" for c, t in zip(point.top, point.top_terms)))
```

### Try this 09.1

*With nothing left out, step the layer from 0 to 30. At which layer does the histogram jump away
from 0, which coordinate carries most of the mean through the middle, and which takes over from
layer 25?*

```pycon
>>> for layer in (0, 1, 2, 10, 15, 24, 25, 29):
...     point = explorer(layer)
layer  0, left out nothing: mean cosine = +0.089, cosine carried by coordinate 199 = 0.015, share carried by the top three = 0.370
layer  1, left out nothing: mean cosine = +0.289, cosine carried by coordinate 247 = 0.147, share carried by the top three = 0.800
layer  2, left out nothing: mean cosine = +0.605, cosine carried by coordinate 507 = 0.347, share carried by the top three = 0.936
layer 10, left out nothing: mean cosine = +0.583, cosine carried by coordinate 507 = 0.364, share carried by the top three = 0.952
layer 15, left out nothing: mean cosine = +0.606, cosine carried by coordinate 507 = 0.384, share carried by the top three = 0.934
layer 24, left out nothing: mean cosine = +0.644, cosine carried by coordinate 507 = 0.509, share carried by the top three = 0.926
layer 25, left out nothing: mean cosine = +0.675, cosine carried by coordinate 17 = 0.319, share carried by the top three = 0.942
layer 29, left out nothing: mean cosine = +0.647, cosine carried by coordinate 17 = 0.583, share carried by the top three = 0.946
```

The jump comes in the first two blocks: the mean cosine is $+0.089$ on the embeddings, $+0.289$
after block 1 and $+0.605$ after block 2, about where it stays through the middle. From layer 2
to 24, coordinate 507 carries the largest term (0.347 at layer 2, 0.509 at layer 24), and the top
three coordinates carry about nine tenths of the mean (0.936 at layer 2, 0.926 at layer 24). At
layer 25 coordinate 17 takes over (0.319, just above 507's 0.312), and by layer 29 it carries
0.583 of the $+0.647$ alone. The cone of this decoder is carried by a handful of coordinates, and
which ones changes with depth.

### Try this 09.2

*At layer 15, leave out the first token, then the massive coordinates. Which one moves the mean
cosine, and how far?*

```pycon
>>> for leave_out in ("nothing", "the first token", "the massive coordinates", "both"):
...     point = explorer(15, leave_out)
layer 15, left out nothing: mean cosine = +0.606, cosine carried by coordinate 507 = 0.384, share carried by the top three = 0.934
layer 15, left out the first token: mean cosine = +0.617, cosine carried by coordinate 507 = 0.335, share carried by the top three = 0.918
layer 15, left out the massive coordinates: mean cosine = +0.089, cosine carried by coordinate 8 = 0.004, share carried by the top three = 0.114
layer 15, left out both: mean cosine = +0.109, cosine carried by coordinate 350 = 0.005, share carried by the top three = 0.126
>>> len(decoder_profile().massive)
19
```

The massive coordinates. Leaving out the first token of every sentence changes the mean cosine
from $+0.606$ to $+0.617$, a hundredth (exercise 09.2 says why); leaving out the 19 massive
coordinates, of 576, drops it to $+0.089$, and both together leave $+0.109$. What remains is
carried by no coordinate in particular: the largest term is 0.004 and the top three hold 0.114 of
the mean. At layer 15 the cone is the few coordinates on which every token carries a large entry
of the same sign, not the first token.

### Try this 09.3

*At layer 3, leave out the massive coordinates. Which coordinates carry the mean now?*

```pycon
>>> right_panel(explorer(3))
layer  3, left out nothing: mean cosine = +0.577, cosine carried by coordinate 507 = 0.354, share carried by the top three = 0.922
507: 0.354, 247: 0.156, 308: 0.021, 260: 0.019, 100: 0.005, 118: 0.004, 446: 0.001, 285: 0.001
>>> right_panel(explorer(3, "the massive coordinates"))
layer  3, left out the massive coordinates: mean cosine = +0.071, cosine carried by coordinate 285 = 0.009, share carried by the top three = 0.228
285: 0.009, 118: 0.006, 25: 0.002, 157: 0.002, 330: 0.002, 257: 0.001, 350: 0.001, 270: 0.001
```

None in particular. With everything kept, coordinate 507 carries 0.354 of the $+0.577$ and 247
another 0.156. Without the massive coordinates the mean cosine is $+0.071$, and its largest terms
are small and spread out (coordinate 285 with 0.009, then 118 with 0.006); the top three hold
0.228 of it. The rest of the space leans about as much as the embeddings did ($+0.089$ at layer
0): the cone built by the first blocks lives almost entirely on the massive coordinates.

### Try this 09.4

*Compare layer 29 with layer 30: what changes in the right panel after the last block?*

```pycon
>>> right_panel(explorer(29))
layer 29, left out nothing: mean cosine = +0.647, cosine carried by coordinate 17 = 0.583, share carried by the top three = 0.946
17: 0.583, 507: 0.025, 521: 0.003, 140: 0.003, 100: 0.002, 14: 0.002, 471: 0.001, 247: 0.001
>>> right_panel(explorer(30))
layer 30, left out nothing: mean cosine = +0.536, cosine carried by coordinate 17 = 0.364, share carried by the top three = 0.805
17: 0.364, 199: 0.051, 471: 0.016, 350: 0.007, 100: 0.006, 140: 0.004, 173: 0.003, 31: 0.002
```

After the last block, coordinate 17's term falls from 0.583 to 0.364, coordinate 507 (already down
to 0.025 at layer 29) leaves the panel, and 199 appears with 0.051; the mean cosine falls from $+0.647$ to $+0.536$. The top three carry less of the mean (0.805 against 0.946). The last block
undoes part of the offset the middle blocks carried on the massive coordinates, just before the
final RMSNorm and the output layer read the stream, as the last layer of notebook 07's encoder
does more thoroughly.
'''
