"""Notebook 09's exercises: RMSNorm, written by the learner; two questions on the decoder's cone."""

from __future__ import annotations

import numpy as np

from .common import Exercise, Implementation

EPS = 1e-5  # SmolLM2's RMSNorm epsilon (rounded), used by the cases


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
    ),
}
