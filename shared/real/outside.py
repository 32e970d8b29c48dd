"""Notebook 09's measurements on text not written for the course: the decoder on the outside text.

:func:`load_outside_text` reads 150 sentences of The Python Language Reference
(``shared/data/outside_text.txt``); :func:`outside_study` runs them through SmolLM2-135M-Instruct as
they are, with one more sentence, with the BOS token first and as long inputs; and
:func:`decoder_settings` measures each of these settings as :func:`~shared.real.decoder_study.decoder_profile`
measures the course corpus (:class:`SettingProfile`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import _checks, store
from ..meters import (
    cov_eigs,
    cross_group_cosines,
    effective_rank,
    gaussian_effective_rank,
)
from .corpus import DATA
from .decoder import Decoded, hidden_states, load_smollm, rms_norm, tokenize
from .decoder_study import DecoderProfile, decoder_study, study_profile
from .encoder import Encoded
from .models import model_inputs
from .study import Memory, kept, once

OUTSIDE_TEXT = DATA / "outside_text.txt"
OUTSIDE_EVERY = 5  # the notebook decodes every fifth outside sentence (the pass costs as many seconds as tokens / 300)
LONG_TOKENS = 300  # tokens per long input
LONG_INPUTS = 2  # long inputs the notebook decodes (the outside text, read on from its start)
SETTINGS = ("course corpus", "outside text", "outside text and its 8th sentence", "outside text, BOS first",
            f"outside text, {LONG_TOKENS}-token inputs")


def load_outside_text() -> tuple[str, ...]:
    """The 150 English sentences of ``shared/data/outside_text.txt``, not written for the course
    (its header names the source, The Python Language Reference, and its licence, the PSF License)."""
    lines = OUTSIDE_TEXT.read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


#: The outside sentence (row of :func:`load_outside_text`) in which a token other than the first,
#: the "and" at position 4, carries a massive entry: the one such sentence among the 150.
SECOND_SINK = 7


@dataclass(frozen=True)
class OutsideStudy:
    """The outside text through the decoder, in one pass over four kinds of input: every
    ``every``-th sentence as it is (``plain``); the same and sentence :data:`SECOND_SINK` (``plus``);
    the sentences of ``plain`` with the BOS token first (``bos``); and ``long``: the whole text
    joined by spaces, tokenized once and cut into inputs of :data:`LONG_TOKENS` tokens (the first
    ``inputs`` of them). Each is a :class:`~shared.real.decoder.Decoded`."""

    sentences: tuple[str, ...]
    every: int
    inputs: int
    plain: Decoded
    plus: Decoded
    bos: Decoded
    long: Decoded
    measured: Memory = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "measured",
                           Memory(*model_inputs("SmolLM2", self.sentences), f"every:{self.every}",
                                         f"inputs:{self.inputs}"))


def _outside_study(every: int, inputs: int) -> OutsideStudy:
    model = load_smollm()
    sentences = load_outside_text()
    chosen = list(range(0, len(sentences), every))
    extra = [] if SECOND_SINK in chosen else [SECOND_SINK]
    plain, plain_tokens = tokenize([sentences[i] for i in chosen + extra], model)
    bos, bos_tokens = tokenize([sentences[i] for i in chosen], model, bos=True)
    (joined,), (joined_tokens,) = tokenize([" ".join(sentences)], model)
    if inputs * LONG_TOKENS > len(joined):
        raise ValueError(f"inputs: the outside text holds {len(joined) // LONG_TOKENS} inputs of {LONG_TOKENS} tokens")
    cut = [slice(k * LONG_TOKENS, (k + 1) * LONG_TOKENS) for k in range(inputs)]
    ids = plain + bos + [joined[c] for c in cut]
    tokens = plain_tokens + bos_tokens + [joined_tokens[c] for c in cut]
    run = hidden_states(model, ids)  # one pass: the weights are dequantized once
    lengths = np.array([len(t) for t in ids])
    bounds = np.concatenate([[0], np.cumsum(lengths)])

    def part(first: int, last: int) -> Decoded:
        """Inputs ``first .. last - 1`` of the pass."""
        rows = slice(int(bounds[first]), int(bounds[last]))
        m = lengths[first:last]
        enc = Encoded(sentences=tuple("".join(t) for t in tokens[first:last]),
                      tokens=tuple(t for ts in tokens[first:last] for t in ts), ids=np.concatenate(ids[first:last]),
                      sentence=np.repeat(np.arange(last - first), m),
                      word=np.concatenate([np.arange(k) for k in m]).astype(np.int64), states=run.states[:, rows])
        each = run.first_attention_each[first:last]
        later = np.maximum(m - 2, 0)  # queries at position 2 or later, per input
        pooled = np.sum(np.nan_to_num(each) * later[:, None, None], axis=0) / later.sum()
        positions = enc.word[enc.word >= 2]
        for array in (enc.states, enc.ids, enc.sentence, enc.word):
            array.setflags(write=False)
        return Decoded(enc, pooled, float(np.mean(1.0 / (positions + 1.0))), each)

    n, k = len(chosen), len(chosen) + len(extra)
    return OutsideStudy(sentences, every, inputs, part(0, n), part(0, k), part(k, k + n),
                        part(k + n, k + n + inputs))


def outside_study(every: int = OUTSIDE_EVERY, inputs: int = LONG_INPUTS) -> OutsideStudy:
    """:class:`OutsideStudy` of every ``every``-th outside sentence and ``inputs`` long inputs (a few seconds
    at the defaults; kept once per kernel for the defaults, in :mod:`shared.real.study`)."""
    every = _checks.integer(every, "every", 1)
    inputs = _checks.integer(inputs, "inputs", 1)
    if (every, inputs) == (OUTSIDE_EVERY, LONG_INPUTS):
        return _default_outside_study()
    return _outside_study(every, inputs)


@once
def _default_outside_study() -> OutsideStudy:
    inputs = (*model_inputs("SmolLM2", load_outside_text()), f"every:{OUTSIDE_EVERY}", f"inputs:{LONG_INPUTS}")
    return store.remember("outside study", inputs, lambda: _outside_study(OUTSIDE_EVERY, LONG_INPUTS))


#: Layers where :class:`SettingProfile` measures the effective rank (the stretch where the first
#: token is massive and, without it, the corpus's rank is 40 to 70).
RANK_LAYERS = range(11, 30)


@dataclass(frozen=True)
class SettingProfile:
    """One kind of input through the decoder, measured as :class:`DecoderProfile` measures the
    corpus. Per layer: ``mean_cosine_rest``, the exact mean cosine of tokens from different inputs
    with the token at position 0 left out (the first word, or the BOS token when one is
    prepended); ``effective_rank_rest`` of the same tokens (at :data:`RANK_LAYERS`, NaN
    elsewhere); ``largest_rest``, their largest |entry| over the layer's median |entry|, and
    ``largest_token``, the token that holds it; ``share_507``/``share_247``, the shares of
    ``mean_cosine_rest`` carried by coordinates 507 and 247; ``final_norm_cosine``:
    ``mean_cosine_rest`` of the last layer after the final RMSNorm. Per block:
    ``first_attention``, the attention to position 0 (heads and queries at position 2 or later
    averaged; ``uniform_first`` if spread evenly). ``inputs``, ``rest``: how many inputs and
    measured tokens; ``gaussian_rank``: a Gaussian's effective rank at that size."""

    setting: str
    inputs: int
    rest: int
    mean_cosine_rest: np.ndarray
    effective_rank_rest: np.ndarray
    largest_rest: np.ndarray
    largest_token: tuple[str, ...]
    share_507: np.ndarray
    share_247: np.ndarray
    final_norm_cosine: float
    first_attention: np.ndarray
    uniform_first: float
    gaussian_rank: float


def _final_norm_cosine(enc: Encoded, rest: np.ndarray) -> float:
    """Cross-input mean cosine of the ``rest`` tokens after the final RMSNorm."""
    model = load_smollm()
    eps = float(model.config["attention.layer_norm_rms_epsilon"])
    final = rms_norm(enc.states[-1][rest].astype(np.float64), model.norms["output_norm.weight"].astype(np.float64), eps)
    return float(cross_group_cosines(final, enc.sentence[rest]).sum())


def _setting_profile(setting: str, dec: Decoded, profile: DecoderProfile | None = None) -> SettingProfile:
    """The :class:`SettingProfile` of ``dec``; with ``profile`` (the same tokens' :class:`DecoderProfile`),
    what it already holds is read from it."""
    enc = dec.enc
    rest = enc.word > 0
    tokens = np.asarray(enc.tokens)[rest]
    largest, token = [], []
    for H in enc.states:
        biggest = np.abs(H[rest]).max(axis=1)
        largest.append(float(biggest.max() / np.median(np.abs(H))))
        token.append(str(tokens[np.argmax(biggest)]))
    if profile is not None:
        terms, total, rank = profile.coordinate_terms, profile.mean_cosine_rest, profile.effective_rank_rest.copy()
        rank[[layer for layer in range(len(rank)) if layer not in RANK_LAYERS]] = np.nan
    else:
        terms = np.stack([cross_group_cosines(H[rest].astype(np.float64), enc.sentence[rest]) for H in enc.states])
        total = terms.sum(axis=1)
        rank = np.array([effective_rank(cov_eigs(H[rest].astype(np.float64))) if layer in RANK_LAYERS else np.nan
                         for layer, H in enumerate(enc.states)])
    return SettingProfile(setting, len(enc.starts), int(rest.sum()), total, rank, np.array(largest), tuple(token),
                          terms[:, 507] / total, terms[:, 247] / total, _final_norm_cosine(enc, rest),
                          dec.first_attention.mean(axis=1), dec.uniform_first,
                          gaussian_effective_rank(int(rest.sum()), enc.states.shape[2]))


def decoder_settings() -> dict[str, SettingProfile]:
    """:class:`SettingProfile` of each of :data:`SETTINGS`: the course corpus (:func:`decoder_study`)
    and the outside text (:func:`outside_study`) as it is, with its sentence :data:`SECOND_SINK`
    added, with BOS first, and as long inputs."""
    study, outside = decoder_study(), outside_study()
    corpus = kept(study.measured, "setting profile",
                         lambda: _setting_profile(SETTINGS[0], study.dec, study_profile(study)))
    others = kept(outside.measured, "setting profiles", lambda: tuple(
        _setting_profile(name, dec) for name, dec in zip(SETTINGS[1:], (outside.plain, outside.plus, outside.bos,
                                                                          outside.long))))
    return dict(zip(SETTINGS, (corpus, *others)))
