"""Word frequency against vector norm: how often a word occurs, and how long its vectors are.

Frequencies are wordfreq's Zipf scale (:func:`zipf_scale`, binned by :data:`ZIPF_BINS`); the vectors
are all-MiniLM-L6-v2's static input embeddings (:func:`static_norm_frequency`) and its hidden states
of the course corpus, layer by layer (:func:`norm_frequency`, kept by
:func:`~shared.real.encoder_study.real_study`'s study).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import _checks
from ..meters import spearman
from .encoder import word_embeddings
from .encoder_study import RealStudy, real_study
from .study import kept, once

ZIPF_BINS = np.arange(1.0, 8.5, 1.0)  # wordfreq's Zipf scale: log10 of occurrences per billion words


def binned_median(zipf: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Median of ``values`` and the count in each Zipf bin ``[1, 2), ..., [7, 8)`` (NaN where empty)."""
    zipf = _checks.vector(zipf, "zipf")
    values = _checks.vector(values, "values")
    if len(values) != len(zipf):
        raise ValueError(f"values: expected one value per entry of zipf ({len(zipf)}), got {len(values)}")
    which = np.digitize(zipf, ZIPF_BINS) - 1
    counts = np.bincount(which[(which >= 0) & (which < len(ZIPF_BINS) - 1)], minlength=len(ZIPF_BINS) - 1)
    medians = np.array([np.median(values[which == b]) if counts[b] else np.nan for b in range(len(counts))])
    return medians, counts


@dataclass(frozen=True)
class FrequencyNorms:
    """Norms of words against their frequency: one row of ``norm`` per set of vectors (a layer).

    ``zipf``: each word's frequency on wordfreq's Zipf scale; ``spearman[r]``: Spearman's rho of
    ``norm[r]`` with ``zipf``; ``median[r]`` and ``counts``: median norm and word count per Zipf bin.
    """

    zipf: np.ndarray
    norm: np.ndarray
    spearman: np.ndarray
    median: np.ndarray
    counts: np.ndarray


def _frequency_norms(zipf: np.ndarray, norms: np.ndarray) -> FrequencyNorms:
    norms = np.atleast_2d(norms)
    binned = [binned_median(zipf, n) for n in norms]
    return FrequencyNorms(zipf, norms, np.array([spearman(zipf, n) for n in norms]),
                          np.array([m for m, _ in binned]), binned[0][1])


@dataclass(frozen=True)
class NormFrequency:
    """:func:`norm_frequency`: ``vocabulary`` (static input embeddings, one row), ``context``
    (hidden states of corpus words, one row per layer, one column per occurrence) and
    ``context_types`` (the same, averaged over the occurrences of each word type, one column per
    type, with ``type_occurrences`` occurrences each), on the Zipf bins ``zipf_bins``."""

    zipf_bins: np.ndarray
    vocabulary: FrequencyNorms
    context: FrequencyNorms
    context_types: FrequencyNorms
    type_occurrences: np.ndarray


def zipf_scale(words: list[str] | tuple[str, ...] | np.ndarray) -> np.ndarray:
    """English frequency of each word on wordfreq's Zipf scale (``log10`` of occurrences per billion
    words, rounded to 0.01 as ``wordfreq.zipf_frequency`` does); 0 for a word wordfreq does not know.

    Looks each (lower-case, single) word up in wordfreq's table directly, which gives the values of
    ``wordfreq.zipf_frequency`` for such words at a fraction of the cost.
    """
    words = _checks.sequence(words, "words")
    if not all(isinstance(w, str) for w in words):
        raise TypeError("words: expected a list of strings")
    if not words or not all(w.strip() for w in words):
        raise ValueError("words: expected at least one word, and no blank strings")
    table = _frequency_table()
    return np.array([round(math.log10(table[w]) + 9.0, 2) if w in table else 0.0 for w in words])


@once
def _frequency_table() -> dict[str, float]:
    from wordfreq import get_frequency_dict

    return get_frequency_dict("en")


def frequency_words() -> tuple[np.ndarray, np.ndarray]:
    """The rows of all-MiniLM-L6-v2's vocabulary that are whole, alphabetic words wordfreq knows,
    and each one's frequency on the Zipf scale (:func:`zipf_scale`)."""
    _, vocab = word_embeddings()
    rows = np.array([i for i, token in enumerate(vocab) if token.isascii() and token.isalpha()])
    zipf = zipf_scale([vocab[i] for i in rows])
    known = zipf > 0
    return rows[known], zipf[known]


def static_norm_frequency() -> FrequencyNorms:
    """Input-embedding norm against word frequency for the words of :func:`frequency_words`
    (static vectors, one per word type)."""
    E, _ = word_embeddings()
    rows, zipf = frequency_words()
    return _frequency_norms(zipf, np.linalg.norm(E[rows], axis=1))


def norm_frequency() -> NormFrequency:
    """Vector norm against word frequency (wordfreq's Zipf scale), for notebook 04's claim.

    ``vocabulary``: :func:`static_norm_frequency`. ``context``: the hidden state of every corpus
    word that is a single alphabetic token, at each layer, one value per occurrence (so a word
    that occurs often, such as "the", weighs as often as it occurs). ``context_types``: the mean
    norm of each such word type over its occurrences, one value per type (as for the vocabulary).
    """
    study = real_study()
    return kept(study.measured, "norm frequency", lambda: _norm_frequency(study))


def _norm_frequency(study: RealStudy) -> NormFrequency:
    enc = study.enc
    tokens = np.asarray(enc.tokens)
    _, inverse, pieces = np.unique(np.column_stack([enc.sentence, enc.word]), axis=0,
                                   return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    single = (~enc.special) & (pieces[inverse] == 1) & np.array([t.isascii() and t.isalpha() for t in tokens])
    context_zipf = zipf_scale(tokens[single])
    single[np.flatnonzero(single)[context_zipf == 0]] = False
    context_zipf = context_zipf[context_zipf > 0]
    context_norm = np.linalg.norm(enc.states[:, single], axis=2)
    types, first, which = np.unique(tokens[single], return_index=True, return_inverse=True)
    which = which.ravel()
    occurrences = np.bincount(which)
    per_type = np.stack([np.bincount(which, weights=n) for n in context_norm]) / occurrences
    return NormFrequency(ZIPF_BINS, static_norm_frequency(), _frequency_norms(context_zipf, context_norm),
                         _frequency_norms(context_zipf[first], per_type), occurrences)


def store_entries() -> list[tuple[str, Callable[[], object]]]:
    """What ``python -m shared.real.build`` precomputes of this module, in order (its model's record,
    :mod:`shared.real.models`, names this module): word frequency against vector norm."""
    return [("norm and frequency", norm_frequency)]
