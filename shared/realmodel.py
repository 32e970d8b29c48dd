"""Notebook 07's measurements of a real Transformer: the course corpus through all-MiniLM-L6-v2.

Everything here is computed from :func:`real_study`, which encodes the corpus once per kernel.
The numbers are exact functions of the hidden states (all pairs, no sampling), so they do not
depend on a seed beyond the one that splits the corpus into a fit half and a held-out half.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import _checks
from .encoder import Corpus, Encoded, encode, load_corpus, sentence_embeddings, split_halves, word_embeddings
from .meters import (
    Reading,
    cov_eigs,
    cross_group_cosines,
    effective_rank,
    mean_cosine,
    numerical_rank,
    rank_collapse,
    read,
)
from .paraphrase import ParaphraseCheck, paraphrase_check, paraphrase_cosines
from .taskmetrics import spearman
from .remedies import all_but_the_top, zca_whiten

REAL_SEED = 7
REAL_REMEDIES = ("none", "centring", "all-but-the-top", "whitening", "whitening, k = 128")
REAL_TOP_K = 4  # Mu & Viswanath's rule of thumb, k ≈ d/100, at d = 384
REAL_WHITEN_K = 128  # whitening that keeps the top third of the 384 directions (Su et al.'s reduction)
COSINE_GRID = np.linspace(-1.0, 1.0, 81)
HISTOGRAM_TOKENS = 800  # random held-out tokens whose cross-sentence cosines each histogram draws


@dataclass(frozen=True)
class RealStudy:
    """Notebook 07's material: the corpus encoded by all-MiniLM-L6-v2, split into two halves.

    ``is_fit`` marks the sentences a remedy is fitted on (half of the corpus, seed 7, paraphrase
    pairs and negation traps kept whole); the others are held out. ``fit_tokens``/``held_tokens``
    mark the ordinary tokens (not ``[CLS]``/``[SEP]``) of each half. ``held_sentences`` lists the
    held-out sentences; ``held_pairs``, ``held_kind`` and ``held_traps`` are the paraphrase pairs
    (with their kind) and negation traps among them, as rows of ``held_sentences``.
    """

    corpus: Corpus
    enc: Encoded
    is_fit: np.ndarray
    fit_tokens: np.ndarray
    held_tokens: np.ndarray
    held_sentences: np.ndarray
    held_pairs: np.ndarray
    held_kind: tuple[str, ...]
    held_traps: np.ndarray


@lru_cache(maxsize=1)
def real_study() -> RealStudy:
    """Encode the course corpus once per kernel (a few seconds) and split it (seed 7)."""
    corpus = load_corpus()
    enc = encode(corpus.sentences)
    is_fit = split_halves(corpus, REAL_SEED)
    ordinary = ~enc.special
    held_sentences = np.flatnonzero(~is_fit)
    row = {sentence: i for i, sentence in enumerate(held_sentences)}
    held = [p for p, (a, _) in enumerate(corpus.pairs) if not is_fit[a]]
    held_pairs = np.array([[row[a], row[b]] for a, b in corpus.pairs[held]], dtype=np.int64)
    held_traps = np.array([[row[a], row[b]] for a, b in corpus.traps if not is_fit[a]], dtype=np.int64)
    for array in (enc.states, enc.ids, enc.sentence, enc.word, is_fit, held_pairs, held_traps):
        array.setflags(write=False)
    return RealStudy(corpus, enc, is_fit, ordinary & is_fit[enc.sentence], ordinary & ~is_fit[enc.sentence],
                     held_sentences, held_pairs, tuple(corpus.kind[p] for p in held), held_traps)


def real_remedy(remedy: str, X: np.ndarray, fit: np.ndarray) -> np.ndarray:
    """One of :data:`REAL_REMEDIES`, its statistics estimated on ``fit`` and applied to ``X``.

    Every hidden state leaves a LayerNorm, so the vectors satisfy a linear equation and their
    covariance has (at least) one zero eigenvalue; *whitening* therefore keeps every direction of
    ``fit`` with non-zero variance (:func:`numerical_rank`), and *whitening, k = 128* only the top
    128 (the dimension reduction of Su et al. 2021).
    """
    _remedy_name(remedy)
    X, fit = _checks.cloud(X), _checks.cloud(fit, name="fit", min_rows=2)
    if remedy == "none":
        return X
    if remedy == "centring":
        return all_but_the_top(X, 0, fit=fit)
    if remedy == "all-but-the-top":
        return all_but_the_top(X, REAL_TOP_K, fit=fit)
    if remedy == "whitening":
        return zca_whiten(X, 1.0, fit=fit, rank=numerical_rank(cov_eigs(fit)))
    if remedy == "whitening, k = 128":
        return zca_whiten(X, 1.0, fit=fit, rank=REAL_WHITEN_K)
    raise AssertionError("unreachable: the remedy was checked")


def _remedy_name(remedy: object) -> str:
    """Check that ``remedy`` names one of :data:`REAL_REMEDIES`."""
    if not isinstance(remedy, str):
        raise TypeError(f"remedy: expected the name of a remedy (a string), got {remedy!r}")
    if remedy not in REAL_REMEDIES:
        raise ValueError(f"remedy: expected one of {REAL_REMEDIES}, got {remedy!r}")
    return remedy


@lru_cache(maxsize=1)
def _histogram_tokens() -> tuple[np.ndarray, np.ndarray]:
    """:data:`HISTOGRAM_TOKENS` random held-out tokens (seed 7), as rows of the held-out tokens, and
    which of their pairs come from different sentences (the upper triangle only)."""
    study = real_study()
    groups = study.enc.sentence[study.held_tokens]
    rows = np.sort(np.random.default_rng(REAL_SEED).choice(len(groups), HISTOGRAM_TOKENS, replace=False))
    g = groups[rows]
    return rows, np.triu(g[:, None] != g[None, :], k=1)


def _cosine_histogram(U: np.ndarray) -> np.ndarray:
    """Density over :data:`COSINE_GRID` of the cosines between the :func:`_histogram_tokens` of the
    unit rows ``U`` that come from different sentences."""
    rows, across = _histogram_tokens()
    V = U[rows].astype(np.float32)  # only drawn, never printed: single precision is plenty
    cos = (V @ V.T)[across]
    bins = len(COSINE_GRID) - 1
    counts = np.bincount(np.clip(((cos + 1.0) * (bins / 2.0)).astype(np.int64), 0, bins - 1), minlength=bins)
    return counts / (counts.sum() * (2.0 / bins))


@dataclass(frozen=True)
class RealPoint:
    """Held-out tokens and sentences of the real model at one ``layer`` after one ``remedy``.

    Tokens (the remedy fitted on the fit half's ordinary tokens): ``token_hist``, the density over
    :data:`COSINE_GRID` of the cosines between :data:`HISTOGRAM_TOKENS` random held-out tokens
    from different sentences (only drawn); ``mean_cosine``, the exact mean over *all* such pairs;
    ``effective_rank`` of their covariance; the coordinate ``rogue`` that carries the largest part
    ``rogue_cosine`` of the mean cosine.

    Sentences (the remedy fitted on the fit half's sentence vectors): ``sentences``, the held-out
    sentence vectors after the remedy; ``paraphrase``/``unrelated``/``traps``, the cosines of the
    held-out paraphrase pairs, unrelated pairs and negation traps;
    ``check``, the paraphrase check with the negation traps (no bootstrap: see
    :func:`~shared.meters.paraphrase_check` with ``rng``).
    """

    layer: int
    remedy: str
    token_hist: np.ndarray
    mean_cosine: float
    effective_rank: float
    rogue: int
    rogue_cosine: float
    sentences: np.ndarray
    paraphrase: np.ndarray
    unrelated: np.ndarray
    traps: np.ndarray
    check: ParaphraseCheck

    def readings(self) -> dict[str, list[Reading]]:
        return {
            "held-out tokens": [read(mean_cosine, self.mean_cosine), read(effective_rank, self.effective_rank),
                                Reading(f"cosine carried by coordinate {self.rogue}", self.rogue_cosine)],
            "held-out sentences": self.check.readings(),
        }


def real_point(layer: int, remedy: str) -> RealPoint:
    """Held-out tokens and sentences at ``layer`` (0 = embedding layer) after ``remedy``.

    Each remedy is fitted on the fit half and measured on the held-out half, on the vectors it is
    used on: for the token meters, on the ordinary tokens; for the paraphrase check, on the
    sentence vectors (the mean of each sentence's token vectors, ``[CLS]`` and ``[SEP]``
    included: the model's own pooling), as Su et al. (2021) whiten sentence vectors. Token
    cosines are exact over *all* pairs of held-out tokens from different sentences.
    """
    layer = _checks.integer(layer, "layer", 0, real_study().enc.states.shape[0] - 1)
    return _real_point(layer, _remedy_name(remedy))


@lru_cache(maxsize=None)
def _tokens(layer: int) -> tuple[np.ndarray, np.ndarray]:
    """The ordinary tokens of the fit half and of the held-out half at ``layer`` (read-only copies,
    made once per kernel: every remedy of a layer uses them)."""
    study = real_study()
    H = study.enc.states[layer]
    return _frozen(H[study.fit_tokens]), _frozen(H[study.held_tokens])


@lru_cache(maxsize=None)
def _pooled(layer: int) -> tuple[np.ndarray, np.ndarray]:
    """The sentence vectors (mean pooling) of the fit half and of the held-out half at ``layer``."""
    study = real_study()
    pooled = sentence_embeddings(study.enc, layer)
    return _frozen(pooled[study.is_fit]), _frozen(pooled[study.held_sentences])


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@lru_cache(maxsize=64)
def _real_point(layer: int, remedy: str) -> RealPoint:
    """:func:`real_point` for checked arguments (cached: each setting is computed once per kernel)."""
    study = real_study()
    fit_tokens, held_tokens = _tokens(layer)
    held = real_remedy(remedy, held_tokens, fit_tokens)
    groups = study.enc.sentence[study.held_tokens]
    contributions = cross_group_cosines(held, groups)
    top = int(np.argmax(contributions))
    fit_sentences, held_sentences = _pooled(layer)
    S = real_remedy(remedy, held_sentences, fit_sentences)
    cosines = paraphrase_cosines(S, study.held_pairs)
    traps = paraphrase_cosines(S, study.held_traps).paraphrase
    hist = _cosine_histogram(held / np.linalg.norm(held, axis=1, keepdims=True))
    for array in (hist, S, cosines.paraphrase, cosines.unrelated, traps):
        array.setflags(write=False)
    return RealPoint(layer, remedy, hist, float(contributions.sum()), effective_rank(cov_eigs(held)), top,
                     float(contributions[top]), S, cosines.paraphrase, cosines.unrelated, traps,
                     paraphrase_check(S, study.held_pairs, study.held_traps))


# Ethayarajh (2019, arXiv:1909.00512): mean cosine of random words from different contexts, per
# layer (0 = input embeddings), as in the statistics of the paper's repository.
PUBLISHED_MEAN_COSINE = {
    "BERT-base": (0.105, 0.168, 0.219, 0.245, 0.327, 0.377, 0.420, 0.398, 0.399, 0.484, 0.561, 0.675, 0.477),
    "GPT-2": (0.611, 0.644, 0.597, 0.614, 0.587, 0.573, 0.578, 0.582, 0.595, 0.617, 0.667, 0.758, 0.978),
}


@dataclass(frozen=True)
class LayerProfile:
    """Per layer (0 = embedding layer, 1..6 = encoder layers), over all sentences of the corpus:

    * ``mean_cosine``: exact mean cosine of ordinary tokens from different sentences;
    * ``effective_rank``: participation ratio of their covariance;
    * ``within_cosine``: median over sentences of the exact mean cosine of the sentence's own
      ordinary tokens (tokens of one context, the pairs ``mean_cosine`` leaves out);
    * ``rank_collapse`` (median over sentences of :func:`~shared.meters.rank_collapse` of the
      sentence's own tokens, ``[CLS]`` and ``[SEP]`` included), with quartiles ``rank_collapse_q1``
      and ``rank_collapse_q3``, and ``rank_collapse_gaussian``, the median for Gaussian sentences of
      the same lengths and dimension (seed 0): what no structure at all gives;
    * ``rogue_coordinate`` and ``rogue_share``: the coordinate with the largest term in the mean
      cosine and the fraction of the mean cosine it carries (Timkey & van Schijndel 2021);
    * ``largest_mean_coordinate``: the coordinate where the mean vector is largest in size;
    * ``tokens``: how many ordinary tokens were measured.
    """

    mean_cosine: np.ndarray
    within_cosine: np.ndarray
    effective_rank: np.ndarray
    rank_collapse_q1: np.ndarray
    rank_collapse: np.ndarray
    rank_collapse_q3: np.ndarray
    rogue_coordinate: np.ndarray
    rogue_share: np.ndarray
    largest_mean_coordinate: np.ndarray
    tokens: int
    rank_collapse_gaussian: float


@lru_cache(maxsize=1)
def layer_profile() -> LayerProfile:
    """The :class:`LayerProfile` of the course corpus."""
    enc = real_study().enc
    ordinary = ~enc.special
    bounds = np.append(enc.starts, len(enc.sentence))
    rows = []
    for H in enc.states:
        terms = cross_group_cosines(H[ordinary], enc.sentence[ordinary])
        top = int(np.argmax(terms))
        collapse = [rank_collapse(H[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
        within = [mean_cosine(H[a + 1:b - 1]) for a, b in zip(bounds[:-1], bounds[1:]) if b - a >= 4]
        rows.append((terms.sum(), np.median(within), effective_rank(cov_eigs(H[ordinary])),
                     *np.percentile(collapse, [25, 50, 75]), top, terms[top] / terms.sum(),
                     np.argmax(np.abs(H[ordinary].mean(axis=0)))))
    mean_cos, within, eff_rank, q1, median, q3, rogue, rogue_share, largest = np.array(rows).T
    rng = np.random.default_rng(0)
    d = enc.states.shape[2]
    gaussian = np.median([rank_collapse(rng.standard_normal((b - a, d))) for a, b in zip(bounds[:-1], bounds[1:])])
    return LayerProfile(
        mean_cosine=mean_cos, within_cosine=within, effective_rank=eff_rank, rank_collapse_q1=q1,
        rank_collapse=median, rank_collapse_q3=q3, rogue_coordinate=rogue.astype(int), rogue_share=rogue_share,
        largest_mean_coordinate=largest.astype(int), tokens=int(ordinary.sum()),
        rank_collapse_gaussian=float(gaussian),
    )


ZIPF_BINS = np.arange(1.0, 8.5, 1.0)  # wordfreq's Zipf scale: log10 of occurrences per billion words


def _binned_median(zipf: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Median of ``values`` and the count in each Zipf bin ``[1, 2), ..., [7, 8)`` (NaN where empty)."""
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
    binned = [_binned_median(zipf, n) for n in norms]
    return FrequencyNorms(zipf, norms, np.array([spearman(zipf, n) for n in norms]),
                          np.array([m for m, _ in binned]), binned[0][1])


@dataclass(frozen=True)
class NormFrequency:
    """:func:`norm_frequency`: ``vocabulary`` (static input embeddings, one row) and ``context``
    (hidden states of corpus words, one row per layer), on the Zipf bins ``zipf_bins``."""

    zipf_bins: np.ndarray
    vocabulary: FrequencyNorms
    context: FrequencyNorms


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


@lru_cache(maxsize=1)
def _frequency_table() -> dict[str, float]:
    from wordfreq import get_frequency_dict

    return get_frequency_dict("en")


@lru_cache(maxsize=1)
def frequency_words() -> tuple[np.ndarray, np.ndarray]:
    """The rows of all-MiniLM-L6-v2's vocabulary that are whole, alphabetic words wordfreq knows,
    and each one's frequency on the Zipf scale (:func:`zipf_scale`)."""
    _, vocab = word_embeddings()
    rows = np.array([i for i, token in enumerate(vocab) if token.isascii() and token.isalpha()])
    zipf = zipf_scale([vocab[i] for i in rows])
    known = zipf > 0
    return rows[known], zipf[known]


@lru_cache(maxsize=1)
def static_norm_frequency() -> FrequencyNorms:
    """Input-embedding norm against word frequency for the words of :func:`frequency_words`
    (static vectors, one per word type)."""
    E, _ = word_embeddings()
    rows, zipf = frequency_words()
    return _frequency_norms(zipf, np.linalg.norm(E[rows], axis=1))


@lru_cache(maxsize=1)
def norm_frequency() -> NormFrequency:
    """Vector norm against word frequency (wordfreq's Zipf scale), for notebook 04's claim.

    ``vocabulary``: :func:`static_norm_frequency`. ``context``: the hidden state of every corpus
    word that is a single alphabetic token, at each layer.
    """
    enc = real_study().enc
    tokens = np.asarray(enc.tokens)
    _, inverse, pieces = np.unique(np.column_stack([enc.sentence, enc.word]), axis=0,
                                   return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    single = (~enc.special) & (pieces[inverse] == 1) & np.array([t.isascii() and t.isalpha() for t in tokens])
    context_zipf = zipf_scale(tokens[single])
    single[np.flatnonzero(single)[context_zipf == 0]] = False
    context_zipf = context_zipf[context_zipf > 0]
    context_norm = np.linalg.norm(enc.states[:, single], axis=2)
    return NormFrequency(ZIPF_BINS, static_norm_frequency(), _frequency_norms(context_zipf, context_norm))
