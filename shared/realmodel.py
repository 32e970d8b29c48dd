"""Notebook 07's measurements of a real Transformer: the course corpus through all-MiniLM-L6-v2.

Everything here is computed from :func:`real_study`, which encodes the corpus once per kernel.
The numbers are exact functions of the hidden states (all pairs, no sampling), so they do not
depend on a seed beyond the one that splits the corpus into a fit half and a held-out half.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from .encoder import Corpus, Encoded, encode, load_corpus, load_minilm, sentence_embeddings, split_halves
from .meters import (
    cov_eigs,
    cross_group_cosines,
    effective_rank,
    numerical_rank,
    paraphrase_check,
    paraphrase_cosines,
    rank_collapse,
    spearman,
)
from .remedies import all_but_the_top, zca_whiten

REAL_SEED = 7
REAL_REMEDIES = ("none", "centring", "all-but-the-top", "whitening")
REAL_TOP_K = 4  # Mu & Viswanath's rule of thumb, k ≈ d/100, at d = 384
COSINE_GRID = np.linspace(-1.0, 1.0, 81)


@dataclass(frozen=True)
class RealStudy:
    """Notebook 07's material: the corpus encoded by all-MiniLM-L6-v2, split into two halves.

    ``fit`` marks the sentences a remedy is fitted on (half of the corpus, seed 7, paraphrase pairs
    kept whole); the others are held out. ``fit_tokens``/``held_tokens`` mark the ordinary tokens
    (not ``[CLS]``/``[SEP]``) of each half; ``held_pairs`` are the paraphrase pairs of the held-out
    half, as rows of ``held_sentences``.
    """

    corpus: Corpus
    enc: Encoded
    fit: np.ndarray
    fit_tokens: np.ndarray
    held_tokens: np.ndarray
    held_sentences: np.ndarray
    held_pairs: np.ndarray


@lru_cache(maxsize=1)
def real_study() -> RealStudy:
    """Encode the course corpus once per kernel (a few seconds) and split it (seed 7)."""
    corpus = load_corpus()
    enc = encode(corpus.sentences)
    fit = split_halves(corpus, REAL_SEED)
    ordinary = ~enc.special
    held_sentences = np.flatnonzero(~fit)
    row = {sentence: i for i, sentence in enumerate(held_sentences)}
    held_pairs = np.array([[row[a], row[b]] for a, b in corpus.pairs if not fit[a]], dtype=np.int64)
    for array in (enc.states, enc.ids, enc.sentence, enc.word, fit):
        array.setflags(write=False)
    return RealStudy(corpus, enc, fit, ordinary & fit[enc.sentence], ordinary & ~fit[enc.sentence],
                     held_sentences, held_pairs)


def real_remedy(remedy: str, X: np.ndarray, fit: np.ndarray) -> np.ndarray:
    """One of :data:`REAL_REMEDIES`, its statistics estimated on ``fit`` and applied to ``X``.

    Every hidden state leaves a LayerNorm, so the vectors satisfy a linear equation and their
    covariance has (at least) one zero eigenvalue; whitening therefore keeps only the directions of
    ``fit`` with non-zero variance (:func:`numerical_rank`).
    """
    if remedy == "none":
        return X
    if remedy == "centring":
        return all_but_the_top(X, 0, fit=fit)
    if remedy == "all-but-the-top":
        return all_but_the_top(X, REAL_TOP_K, fit=fit)
    if remedy == "whitening":
        return zca_whiten(X, 1.0, fit=fit, rank=numerical_rank(cov_eigs(fit)))
    raise ValueError(f"remedy: expected one of {REAL_REMEDIES}, got {remedy!r}")


def _cross_group_histogram(U: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Density over :data:`COSINE_GRID` of the cosines of all pairs of unit rows in different
    (contiguous) groups: the histogram of every pair, minus the pairs within each group."""
    bins = len(COSINE_GRID) - 1

    def counts(block: np.ndarray) -> np.ndarray:
        which = np.clip(((block + 1.0) * (bins / 2.0)).astype(np.int64), 0, bins - 1)
        return np.bincount(which.ravel(), minlength=bins)

    U = U.astype(np.float32)  # only drawn, never printed: single precision halves the cost
    total = counts(U @ U.T)
    starts = np.flatnonzero(np.diff(groups, prepend=groups[0] - 1))
    for a, b in zip(starts, np.append(starts[1:], len(U))):
        total -= counts(U[a:b] @ U[a:b].T)
    return total / (total.sum() * (2.0 / bins))


@lru_cache(maxsize=32)
def real_point(layer: int, remedy: str) -> dict[str, Any]:
    """Held-out tokens and sentences at ``layer`` after ``remedy``: the data behind :func:`real_scene`.

    The remedies are affine maps, so they commute with mean pooling: a sentence vector is
    remedied directly instead of pooling remedied tokens (the same result, less work).
    """
    study = real_study()
    H = study.enc.states[layer]
    held_rows = int(study.held_tokens.sum())
    pooled = sentence_embeddings(study.enc, layer)[study.held_sentences]
    both = real_remedy(remedy, np.vstack([H[study.held_tokens], pooled]), H[study.fit_tokens])
    held, S = both[:held_rows], both[held_rows:]
    groups = study.enc.sentence[study.held_tokens]
    contributions = cross_group_cosines(held, groups)
    top = int(np.argmax(contributions))
    paraphrase, unrelated = paraphrase_cosines(S, study.held_pairs)
    point = {
        "token_hist": _cross_group_histogram(held / np.linalg.norm(held, axis=1, keepdims=True), groups),
        "paraphrase": paraphrase,
        "unrelated": unrelated,
        "meters": {
            "held-out tokens": {
                "mean cosine": float(contributions.sum()),
                "effective rank": effective_rank(cov_eigs(held)),
                f"cosine carried by coordinate {top}": float(contributions[top]),
            },
            "held-out sentences": paraphrase_check(S, study.held_pairs),
        },
    }
    for value in point.values():
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return point


# Ethayarajh (2019, arXiv:1909.00512): mean cosine of random words from different contexts, per
# layer (0 = input embeddings), as in the statistics of the paper's repository.
PUBLISHED_MEAN_COSINE = {
    "BERT-base": (0.105, 0.168, 0.219, 0.245, 0.327, 0.377, 0.420, 0.398, 0.399, 0.484, 0.561, 0.675, 0.477),
    "GPT-2": (0.611, 0.644, 0.597, 0.614, 0.587, 0.573, 0.578, 0.582, 0.595, 0.617, 0.667, 0.758, 0.978),
}


@lru_cache(maxsize=1)
def layer_profile() -> dict[str, np.ndarray]:
    """Per layer (0 = embedding layer, 1..6 = encoder layers), over all sentences of the corpus:

    * ``mean cosine``: exact mean cosine of ordinary tokens from different sentences;
    * ``effective rank``: participation ratio of their covariance;
    * ``rank collapse``: median over sentences of :func:`~shared.meters.rank_collapse` of the
      sentence's own tokens (``[CLS]`` and ``[SEP]`` included), with its quartiles;
    * ``rogue coordinate`` and ``rogue share``: the coordinate with the largest term in the mean
      cosine and the fraction of the mean cosine it carries (Timkey & van Schijndel 2021);
    * ``largest mean coordinate``: the coordinate where the mean vector is largest in size.
    """
    enc = real_study().enc
    ordinary = ~enc.special
    bounds = np.append(enc.starts, len(enc.sentence))
    rows = []
    for H in enc.states:
        terms = cross_group_cosines(H[ordinary], enc.sentence[ordinary])
        top = int(np.argmax(terms))
        collapse = [rank_collapse(H[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
        rows.append((terms.sum(), effective_rank(cov_eigs(H[ordinary])), *np.percentile(collapse, [25, 50, 75]),
                     top, terms[top] / terms.sum(), np.argmax(np.abs(H[ordinary].mean(axis=0)))))
    cols = np.array(rows).T
    names = ["mean cosine", "effective rank", "rank collapse q1", "rank collapse", "rank collapse q3",
             "rogue coordinate", "rogue share", "largest mean coordinate"]
    out = dict(zip(names, cols))
    for name in ("rogue coordinate", "largest mean coordinate"):
        out[name] = out[name].astype(int)
    out["tokens"] = np.array(int(ordinary.sum()))
    return out


ZIPF_BINS = np.arange(1.0, 8.5, 1.0)  # wordfreq's Zipf scale: log10 of occurrences per billion words


def _binned_median(zipf: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Median of ``values`` and the count in each Zipf bin ``[1, 2), ..., [7, 8)`` (NaN where empty)."""
    which = np.digitize(zipf, ZIPF_BINS) - 1
    counts = np.bincount(which[(which >= 0) & (which < len(ZIPF_BINS) - 1)], minlength=len(ZIPF_BINS) - 1)
    medians = np.array([np.median(values[which == b]) if counts[b] else np.nan for b in range(len(counts))])
    return medians, counts


@lru_cache(maxsize=1)
def norm_frequency() -> dict[str, Any]:
    """Vector norm against word frequency (wordfreq's Zipf scale), for notebook 04's claim.

    ``vocabulary``: the input embedding of every whole-word, alphabetic vocabulary entry that
    wordfreq knows (static vectors, as in notebook 04). ``context``: the hidden state of every
    corpus word that is a single alphabetic token, at each layer. For each: Spearman's rank
    correlation of norm with frequency, and the median norm per Zipf bin (``zipf bins``).
    """
    from wordfreq import zipf_frequency

    model = load_minilm()
    words = [i for i, token in enumerate(model.vocab) if token.isascii() and token.isalpha()]
    zipf = np.array([zipf_frequency(model.vocab[i], "en") for i in words])
    known = zipf > 0
    rows = np.array(words)[known]
    vocab_zipf = zipf[known]
    vocab_norm = np.linalg.norm(model.weights["embeddings.word_embeddings.weight"][rows], axis=1)

    enc = real_study().enc
    tokens = np.asarray(enc.tokens)
    _, inverse, pieces = np.unique(np.column_stack([enc.sentence, enc.word]), axis=0,
                                   return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    single = (~enc.special) & (pieces[inverse] == 1) & np.array([t.isascii() and t.isalpha() for t in tokens])
    context_zipf = np.array([zipf_frequency(t, "en") for t in tokens[single]])
    single[np.flatnonzero(single)[context_zipf == 0]] = False
    context_zipf = context_zipf[context_zipf > 0]
    context_norm = np.linalg.norm(enc.states[:, single], axis=2)

    return {
        "zipf bins": ZIPF_BINS,
        "vocabulary": {
            "zipf": vocab_zipf, "norm": vocab_norm, "spearman": spearman(vocab_zipf, vocab_norm),
            "binned": _binned_median(vocab_zipf, vocab_norm),
        },
        "context": {
            "zipf": context_zipf, "norm": context_norm,
            "spearman": np.array([spearman(context_zipf, n) for n in context_norm]),
            "binned": [_binned_median(context_zipf, n) for n in context_norm],
        },
    }
