"""Notebook 07's measurements of a real Transformer: the course corpus through all-MiniLM-L6-v2.

Everything here is computed from :func:`real_study`, which encodes the corpus once per machine (in
the study store, :mod:`shared.store`); what is measured from it is kept by the study itself.
The numbers are exact functions of the hidden states (all pairs, no sampling), so they do not
depend on a seed beyond the one that splits the corpus into a fit half and a held-out half.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from . import _cache, _checks, store
from .encoder import (
    DATA,
    Corpus,
    Encoded,
    _fit_share,
    encode,
    load_corpus,
    sentence_embeddings,
    split_halves,
    word_embeddings,
)
from .meters import (
    Reading,
    cov_eigs,
    cross_group_cosines,
    effective_rank,
    mean_cosine,
    rank_collapse,
    read,
    unit_rows,
)
from .paraphrase import ParaphraseCheck, paraphrase_check, paraphrase_cosines
from .remedies import FittedRemedies
from .taskmetrics import auc, rankable, spearman

REAL_SEED = 7
REAL_REMEDIES = ("none", "centring", "all-but-the-top", "whitening", "whitening, k = 128", "whitening, shrunk")
REAL_TOP_K = 4  # Mu & Viswanath's rule of thumb, k ≈ d/100, at d = 384
REAL_WHITEN_K = 128  # whitening that keeps the top third of the 384 directions (Su et al.'s reduction)
COSINE_GRID = np.linspace(-1.0, 1.0, 81)
HISTOGRAM_TOKENS = 800  # random held-out tokens whose cross-sentence cosines each histogram draws


@dataclass(frozen=True)
class RealStudy:
    """Notebook 07's material: the corpus encoded by all-MiniLM-L6-v2, split into two halves.

    ``is_fit`` marks the sentences a remedy is fitted on (half of the corpus, seed 7, paraphrase
    pairs and traps kept whole); the others are held out. ``fit_tokens``/``held_tokens``
    mark the ordinary tokens (not ``[CLS]``/``[SEP]``) of each half. ``held_sentences`` lists the
    held-out sentences; ``held_pairs``, ``held_kind`` and ``held_traps`` are the paraphrase pairs
    (with their kind) and traps among them, as rows of ``held_sentences``.
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
    measured: _cache.Memory = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "measured", _cache.Memory(*store.model_inputs("MiniLM", self.corpus.sentences)))


@_cache.once
def real_study() -> RealStudy:
    """The course corpus encoded (a few seconds, once per machine: :mod:`shared.store`) and split (seed 7)."""
    corpus = load_corpus()
    enc = store.run_through("MiniLM", corpus.sentences, lambda: encode(corpus.sentences))
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


def real_remedy(remedy: str, X: np.ndarray, fit: np.ndarray | FittedRemedies) -> np.ndarray:
    """One of :data:`REAL_REMEDIES`, its statistics estimated on ``fit`` and applied to ``X``.

    Every hidden state leaves a LayerNorm, so the vectors satisfy a linear equation and their
    covariance has (at least) one zero eigenvalue; *whitening* therefore keeps every direction of
    ``fit`` with non-zero variance (:func:`numerical_rank`), *whitening, k = 128* only the top
    128 (the dimension reduction of Su et al. 2021), and *whitening, shrunk* divides by the
    Ledoit-Wolf shrunk covariance (:func:`~shared.remedies.shrunk_whiten`), which keeps every
    direction. ``fit`` may be a :class:`~shared.remedies.FittedRemedies` already made from the fit
    vectors, so several remedies share one eigendecomposition.
    """
    _remedy_name(remedy)
    X = _checks.cloud(X)
    if remedy == "none":
        return X
    fitted = fit if isinstance(fit, FittedRemedies) else FittedRemedies(fit)
    if remedy == "centring":
        return fitted.all_but_the_top(X, 0)
    if remedy == "all-but-the-top":
        return fitted.all_but_the_top(X, REAL_TOP_K)
    if remedy == "whitening":
        return fitted.zca_whiten(X, 1.0, rank=fitted.rank)
    if remedy == "whitening, k = 128":
        return fitted.zca_whiten(X, 1.0, rank=REAL_WHITEN_K)
    if remedy == "whitening, shrunk":
        return fitted.shrunk_whiten(X)
    raise AssertionError("unreachable: the remedy was checked")


def _remedy_name(remedy: object) -> str:
    """Check that ``remedy`` names one of :data:`REAL_REMEDIES`."""
    if not isinstance(remedy, str):
        raise TypeError(f"remedy: expected the name of a remedy (a string), got {remedy!r}")
    if remedy not in REAL_REMEDIES:
        raise ValueError(f"remedy: expected one of {REAL_REMEDIES}, got {remedy!r}")
    return remedy


def _histogram_tokens(study: RealStudy) -> tuple[np.ndarray, np.ndarray]:
    """:data:`HISTOGRAM_TOKENS` random held-out tokens (seed 7), as rows of the held-out tokens, and
    which of their pairs come from different sentences (the upper triangle only)."""
    return _cache.kept(study.measured, "histogram tokens", lambda: _draw_histogram_tokens(study), local=True)


def _draw_histogram_tokens(study: RealStudy) -> tuple[np.ndarray, np.ndarray]:
    groups = study.enc.sentence[study.held_tokens]
    rows = np.sort(np.random.default_rng(REAL_SEED).choice(len(groups), HISTOGRAM_TOKENS, replace=False))
    g = groups[rows]
    return rows, np.triu(g[:, None] != g[None, :], k=1)


def _cosine_histogram(study: RealStudy, U: np.ndarray) -> np.ndarray:
    """Density over :data:`COSINE_GRID` of the cosines between the :func:`_histogram_tokens` of the
    unit rows ``U`` that come from different sentences."""
    rows, across = _histogram_tokens(study)
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
    held-out paraphrase pairs, unrelated pairs and traps;
    ``check``, the paraphrase check with the traps (no bootstrap: see
    :func:`~shared.paraphrase.paraphrase_check` with ``rng``).
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
    study = real_study()
    layer = _checks.integer(layer, "layer", 0, study.enc.states.shape[0] - 1)
    remedy = _remedy_name(remedy)
    return _cache.kept(study.measured, ("point", layer, remedy), lambda: _real_point(study, layer, remedy))


def _tokens(study: RealStudy, layer: int) -> tuple[np.ndarray, np.ndarray]:
    """The ordinary tokens of the fit half and of the held-out half at ``layer`` (read-only copies,
    kept by the study: every remedy of a layer uses them)."""
    H = study.enc.states[layer]
    return _cache.kept(study.measured, ("tokens", layer),
                       lambda: (_frozen(H[study.fit_tokens]), _frozen(H[study.held_tokens])), local=True)


def _pooled(study: RealStudy, layer: int) -> tuple[np.ndarray, np.ndarray]:
    """The sentence vectors (mean pooling) of the fit half and of the held-out half at ``layer``."""
    def pool() -> tuple[np.ndarray, np.ndarray]:
        pooled = sentence_embeddings(study.enc, layer)
        return _frozen(pooled[study.is_fit]), _frozen(pooled[study.held_sentences])

    return _cache.kept(study.measured, ("pooled", layer), pool, local=True)


def _fitted(study: RealStudy, layer: int, vectors: str) -> FittedRemedies:
    """The remedies fitted on the fit half's ordinary ``"tokens"`` or ``"sentences"`` at ``layer``
    (one eigendecomposition, kept by the study, shared by every remedy)."""
    return _cache.kept(study.measured, ("fitted", layer, vectors),
                       lambda: FittedRemedies((_tokens if vectors == "tokens" else _pooled)(study, layer)[0]), local=True)


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _real_point(study: RealStudy, layer: int, remedy: str) -> RealPoint:
    """:func:`real_point` for checked arguments (kept by the study: each setting is computed once)."""
    _, held_tokens = _tokens(study, layer)
    held = real_remedy(remedy, held_tokens, _fitted(study, layer, "tokens"))
    groups = study.enc.sentence[study.held_tokens]
    contributions = cross_group_cosines(held, groups)
    top = int(np.argmax(contributions))
    fit_sentences, held_sentences = _pooled(study, layer)
    S = real_remedy(remedy, held_sentences, _fitted(study, layer, "sentences"))
    cosines = paraphrase_cosines(S, study.held_pairs)
    traps = paraphrase_cosines(S, study.held_traps).paraphrase
    hist = _cosine_histogram(study, held / np.linalg.norm(held, axis=1, keepdims=True))
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


def layer_profile() -> LayerProfile:
    """The :class:`LayerProfile` of the course corpus (kept by :func:`real_study`'s study)."""
    study = real_study()
    return _cache.kept(study.measured, "layer profile", lambda: _layer_profile(study))


def _layer_profile(study: RealStudy) -> LayerProfile:
    enc = study.enc
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


@_cache.once
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
    return _cache.kept(study.measured, "norm frequency", lambda: _norm_frequency(study))


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


#: Words whose presence in one sentence of a trap and not the other makes the trap a negation.
NEGATION_WORDS = frozenset({"not", "never", "no", "nobody", "nothing", "none", "neither", "nor", "n't"})


def _words(sentence: str) -> Counter:
    """Lower-case words of ``sentence`` with their counts (apostrophes kept: "patient's")."""
    return Counter(re.findall(r"[a-z0-9']+", sentence.lower()))


def trap_kinds(corpus: Corpus) -> tuple[str, ...]:
    """How each trap of ``corpus`` changes the meaning of its first sentence.

    ``"swapped roles"``: both sentences have the same words, in another order ("The cat chased
    the dog" / "The dog chased the cat"); ``"negation"``: the words that differ include one of
    :data:`NEGATION_WORDS`; ``"opposite word"``: otherwise (a word replaced by its opposite,
    "rose" / "fell").
    """
    _checks.instance(corpus, Corpus, "corpus")
    kinds = []
    for a, b in corpus.traps:
        first, second = _words(corpus.sentences[a]), _words(corpus.sentences[b])
        differ = set((first - second) + (second - first))
        kinds.append("swapped roles" if not differ else "negation" if differ & NEGATION_WORDS else "opposite word")
    return tuple(kinds)


def word_sharing_negatives(sentences: list[str] | tuple[str, ...], pairs: np.ndarray) -> np.ndarray:
    """For each sentence of each paraphrase pair, the other sentence that shares most words with it.

    Over ``sentences`` (for example the held-out ones) and the paraphrase ``pairs`` among them
    (rows of ``sentences``), returns one row per sentence of a pair, ``[i, j]``: ``j`` is the
    sentence other than ``i`` and its partner with the most distinct lower-case words in common
    with ``i`` (ties go to the earlier row). These are hard negatives: not paraphrases, but as
    close in wording as the set allows, so a similarity that counts shared words ranks them high.
    """
    sentences = _checks.sequence(sentences, "sentences")
    if not all(isinstance(s, str) for s in sentences):
        raise TypeError("sentences: expected a list of strings")
    pairs = _index_pairs(pairs, "pairs", len(sentences), "sentences")
    if len(np.unique(pairs)) != pairs.size:
        raise ValueError("pairs: a sentence occurs in two pairs (or twice in one); expected distinct rows")
    if len(sentences) < 3:
        raise ValueError("sentences: expected at least 3, so that a pair's sentence has another to compare with")
    bags = [set(_words(s)) for s in sentences]
    vocabulary = {w: k for k, w in enumerate(sorted(set().union(*bags)))}
    B = np.zeros((len(bags), len(vocabulary)))
    for i, bag in enumerate(bags):
        B[i, [vocabulary[w] for w in bag]] = 1.0
    rows = np.concatenate([pairs, pairs[:, ::-1]])  # (sentence, its partner), both ways
    rows = rows[np.argsort(np.concatenate([2 * np.arange(len(pairs)), 2 * np.arange(len(pairs)) + 1]), kind="stable")]
    shared = B[rows[:, 0]] @ B.T  # distinct words in common, exact small integers
    shared[np.arange(len(rows)), rows[:, 0]] = -1
    shared[np.arange(len(rows)), rows[:, 1]] = -1
    return np.column_stack([rows[:, 0], np.argmax(shared, axis=1)]).astype(np.int64)


def negative_auc(S: np.ndarray, pairs: np.ndarray, negatives: np.ndarray) -> float:
    """AUC of the paraphrase ``pairs`` against the ``negatives`` (row pairs of ``S``, which may share
    sentences with the pairs and with each other): the probability that a paraphrase pair has the
    higher cosine, ties counting one half, as :func:`~shared.paraphrase.paraphrase_check` scores traps."""
    paraphrase = paraphrase_cosines(S, pairs).paraphrase  # checks S and the pairs
    negatives = _index_pairs(negatives, "negatives", len(S), "S")
    if np.any(negatives[:, 0] == negatives[:, 1]):
        raise ValueError("negatives: a row is paired with itself")
    if len(np.unique(negatives, axis=0)) != len(negatives):
        raise ValueError("negatives: a pair occurs twice; list each negative pair once")
    U = unit_rows(_checks.cloud(S, name="S"))
    negative = np.einsum("ij,ij->i", U[negatives[:, 0]], U[negatives[:, 1]])
    return auc(rankable(paraphrase), rankable(negative))


def _index_pairs(value: object, name: str, n: int, of: str) -> np.ndarray:
    """``value`` checked as integer rows of shape ``(P, 2)``, ``P >= 2``, of indices into ``of`` (``n`` rows)."""
    rows = _checks.integers(value, name, ndim=2)
    if rows.shape[1:] != (2,) or len(rows) < 2:
        raise ValueError(f"{name}: expected an integer array of shape (P, 2) with P >= 2, got shape {rows.shape}")
    if rows.min() < 0 or rows.max() >= n:
        raise ValueError(f"{name}: expected row indices of {of} (0..{n - 1})")
    return rows


@dataclass(frozen=True)
class SameTopic:
    """Negatives on the same topic (``shared/data/same_topic.tsv``): ``sentences[pairs[t]]`` are two
    sentences about ``topic[t]`` (a topic of ``corpus.txt``) that say different things, neither a
    paraphrase nor a trap of the other."""

    sentences: tuple[str, ...]
    topic: tuple[str, ...]
    pairs: np.ndarray


def load_same_topic() -> SameTopic:
    """Read ``shared/data/same_topic.tsv`` (``topic<TAB>first<TAB>second`` lines, ``#`` comments)."""
    sentences, topic = [], []
    path = DATA / "same_topic.tsv"
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = [field.strip() for field in line.split("\t")]
        if len(fields) != 3 or not all(fields):
            raise ValueError(f"{path.name}, line {number}: expected topic<TAB>first<TAB>second, got {line!r}")
        sentences += fields[1:]
        topic.append(fields[0])
    if len(set(sentences)) != len(sentences):
        raise ValueError(f"{path.name}: a sentence occurs twice; every sentence must be unique")
    pairs = np.arange(len(sentences), dtype=np.int64).reshape(-1, 2)
    pairs.setflags(write=False)
    return SameTopic(tuple(sentences), tuple(topic), pairs)


def same_topic_encoded() -> Encoded:
    """The sentences of :func:`load_same_topic` through all-MiniLM-L6-v2 (kept by :func:`real_study`'s
    study: every split of :func:`split_verdicts` applies its remedies to them)."""
    study = real_study()
    same = load_same_topic()
    return _cache.kept(study.measured, "same-topic encoded",
                       lambda: store.run_through("MiniLM", same.sentences, lambda: encode(same.sentences)),
                       local=True)


#: Splits (seeds 0, 1, ...) over which :func:`split_verdicts` re-fits every remedy, and its layers.
VERDICT_SPLITS = 20
VERDICT_LAYERS = (0, 3, 6)
#: Notebook 07's other fit fractions (a quarter, three quarters of the corpus), their splits and layers.
FIT_FRACTIONS = (0.25, 0.75)
FRACTION_SPLITS = 8
FRACTION_LAYERS = (3, 6)
VERDICT_FIGURES = ("auc", "top1", "trap_auc", "hard_auc", "topic_auc")


@dataclass(frozen=True)
class SplitVerdicts:
    """:func:`split_verdicts`: notebook 07's sentence figures over many random splits.

    ``auc``, ``top1``, ``trap_auc``, ``hard_auc`` (against :func:`word_sharing_negatives`) and
    ``topic_auc`` (against the same-topic negatives of :func:`load_same_topic`, never in a fit half)
    have shape ``(splits, layers, remedies)``, for the split seeds ``seeds``, the ``layers`` and
    the ``remedies`` (:data:`REAL_REMEDIES`, ``"none"`` first).
    """

    seeds: np.ndarray
    layers: tuple[int, ...]
    remedies: tuple[str, ...]
    auc: np.ndarray
    top1: np.ndarray
    trap_auc: np.ndarray
    hard_auc: np.ndarray
    topic_auc: np.ndarray

    def change(self, figure: str) -> np.ndarray:
        """``figure`` after each remedy minus ``figure`` with no remedy, split by split."""
        if figure not in VERDICT_FIGURES:
            raise ValueError(f"figure: expected one of {VERDICT_FIGURES}, got {figure!r}")
        values = getattr(self, figure)
        return values - values[:, :, :1]

    def helps(self, figure: str) -> np.ndarray:
        """In how many splits each remedy raises ``figure`` (shape ``(layers, remedies)``)."""
        return np.sum(self.change(figure) > 0, axis=0)

    def hurts(self, figure: str) -> np.ndarray:
        """In how many splits each remedy lowers ``figure`` (shape ``(layers, remedies)``)."""
        return np.sum(self.change(figure) < 0, axis=0)


def split_verdicts(splits: int = VERDICT_SPLITS, fraction: float = 0.5) -> SplitVerdicts:
    """Every remedy of :data:`REAL_REMEDIES`, fitted on the fit half of ``splits`` random splits
    (seeds ``0 .. splits - 1``, as :func:`~shared.encoder.split_halves` draws them; seed 7 is the
    notebook's) and scored on that split's held-out sentence vectors at each of
    :data:`VERDICT_LAYERS`: AUC, top-1 retrieval, AUC against traps, against the word-sharing
    negatives and against the same-topic negatives (:func:`load_same_topic`: the remedy fitted on
    the split's fit half is applied to them too). One eigendecomposition per split and layer serves
    every remedy. ``fraction`` is the share of the corpus each remedy is fitted on (the fit part of
    :func:`~shared.encoder.split_halves`; the rest is held out and scored): for any share other
    than a half, the layers are :data:`FRACTION_LAYERS`.
    """
    splits = _checks.integer(splits, "splits", 1)
    _checks.allocation(("splits", splits), (None, len(VERDICT_LAYERS)), (None, len(REAL_REMEDIES)))
    _checks.work(("splits", splits), (None, 10**8))  # each split fits and measures every remedy at every layer
    fraction = _fit_share(fraction)
    study = real_study()
    if fraction == 0.5:
        return _cache.kept(study.measured, ("split verdicts", splits), lambda: _split_verdicts(study, splits))
    return _cache.kept(study.measured, ("split verdicts", splits, fraction),
                       lambda: _split_verdicts(study, splits, fraction, FRACTION_LAYERS))


def _split_verdicts(study: RealStudy, splits: int, fraction: float = 0.5,
                    layers: tuple[int, ...] = VERDICT_LAYERS) -> SplitVerdicts:
    """:func:`split_verdicts` for a checked number of splits (kept by the study: computed once)."""
    corpus = study.corpus
    pooled = {layer: sentence_embeddings(study.enc, layer) for layer in layers}
    same = load_same_topic()
    same_enc = same_topic_encoded()
    same_pooled = {layer: sentence_embeddings(same_enc, layer) for layer in layers}
    shape = (splits, len(layers), len(REAL_REMEDIES))
    figures = {name: np.empty(shape) for name in VERDICT_FIGURES}
    for seed in range(splits):
        is_fit = split_halves(corpus, seed, fraction)
        held = np.flatnonzero(~is_fit)
        row = {sentence: i for i, sentence in enumerate(held)}
        pairs = np.array([[row[a], row[b]] for a, b in corpus.pairs if not is_fit[a]], dtype=np.int64)
        traps = np.array([[row[a], row[b]] for a, b in corpus.traps if not is_fit[a]], dtype=np.int64)
        negatives = word_sharing_negatives([corpus.sentences[i] for i in held], pairs)
        for l, layer in enumerate(layers):
            fitted = FittedRemedies(pooled[layer][is_fit])
            for r, remedy in enumerate(REAL_REMEDIES):
                S = real_remedy(remedy, pooled[layer][held], fitted)
                check = paraphrase_check(S, pairs, traps)
                figures["auc"][seed, l, r], figures["top1"][seed, l, r] = check.auc, check.top1
                figures["trap_auc"][seed, l, r] = check.trap_auc
                figures["hard_auc"][seed, l, r] = negative_auc(S, pairs, negatives)
                T = real_remedy(remedy, same_pooled[layer], fitted)
                figures["topic_auc"][seed, l, r] = negative_auc(np.vstack([S, T]), pairs, same.pairs + len(S))
    for values in figures.values():
        values.setflags(write=False)
    return SplitVerdicts(np.arange(splits), layers, REAL_REMEDIES, **figures)
