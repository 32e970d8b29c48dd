"""Notebook 07's harder negatives for the paraphrase check, and the remedies measured against them over many splits.

:func:`trap_kinds` sorts the corpus's traps; :func:`word_sharing_negatives` and the same-topic set
(:func:`load_same_topic`) give negatives that share words or a topic with a paraphrase;
:func:`negative_auc` scores paraphrases against them, and :func:`remedy_splits` re-fits every
remedy of :data:`~shared.real.encoder_study.REAL_REMEDIES` on many random splits and scores each
against all of them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import _checks
from ..meters import auc, paraphrase_check, paraphrase_cosines, rankable, unit_rows
from ..remedies import FittedRemedies
from .corpus import DATA, Corpus, fit_share, split_halves
from .encoder import Encoded, encode, sentence_embeddings
from .encoder_study import REAL_REMEDIES, RealStudy, real_point, real_remedy, real_study
from .models import run_through
from .study import kept

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
    higher cosine, ties counting one half, as :func:`~shared.meters.paraphrase_check` scores traps."""
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
    study: every split of :func:`remedy_splits` applies its remedies to them)."""
    study = real_study()
    same = load_same_topic()
    return kept(study.measured, "same-topic encoded",
                       lambda: run_through("MiniLM", same.sentences, lambda: encode(same.sentences)),
                       local=True)


#: Splits (seeds 0, 1, ...) over which :func:`remedy_splits` re-fits every remedy, and its layers.
REMEDY_SPLITS = 20
SPLIT_LAYERS = (0, 3, 6)
#: Notebook 07's other fit fractions (a quarter, three quarters of the corpus), their splits and layers.
FIT_FRACTIONS = (0.25, 0.75)
FRACTION_SPLITS = 8
FRACTION_LAYERS = (3, 6)
SPLIT_FIGURES = ("auc", "top1", "trap_auc", "hard_auc", "topic_auc")


@dataclass(frozen=True)
class RemedySplits:
    """:func:`remedy_splits`: notebook 07's sentence figures over many random splits.

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
        if figure not in SPLIT_FIGURES:
            raise ValueError(f"figure: expected one of {SPLIT_FIGURES}, got {figure!r}")
        values = getattr(self, figure)
        return values - values[:, :, :1]

    def helps(self, figure: str) -> np.ndarray:
        """In how many splits each remedy raises ``figure`` (shape ``(layers, remedies)``)."""
        return np.sum(self.change(figure) > 0, axis=0)

    def hurts(self, figure: str) -> np.ndarray:
        """In how many splits each remedy lowers ``figure`` (shape ``(layers, remedies)``)."""
        return np.sum(self.change(figure) < 0, axis=0)


def remedy_splits(splits: int = REMEDY_SPLITS, fraction: float = 0.5) -> RemedySplits:
    """Every remedy of :data:`REAL_REMEDIES`, fitted on the fit half of ``splits`` random splits
    (seeds ``0 .. splits - 1``, as :func:`~shared.real.corpus.split_halves` draws them; seed 7 is the
    notebook's) and scored on that split's held-out sentence vectors at each of
    :data:`SPLIT_LAYERS`: AUC, top-1 retrieval, AUC against traps, against the word-sharing
    negatives and against the same-topic negatives (:func:`load_same_topic`: the remedy fitted on
    the split's fit half is applied to them too). One eigendecomposition per split and layer serves
    every remedy. ``fraction`` is the share of the corpus each remedy is fitted on (the fit part of
    :func:`~shared.real.corpus.split_halves`; the rest is held out and scored): for any share other
    than a half, the layers are :data:`FRACTION_LAYERS`.
    """
    splits = _checks.integer(splits, "splits", 1)
    _checks.allocation(("splits", splits), (None, len(SPLIT_LAYERS)), (None, len(REAL_REMEDIES)))
    _checks.work(("splits", splits), (None, 10**8))  # each split fits and measures every remedy at every layer
    fraction = fit_share(fraction)
    study = real_study()
    if fraction == 0.5:
        return kept(study.measured, ("remedy splits", splits), lambda: _remedy_splits(study, splits))
    return kept(study.measured, ("remedy splits", splits, fraction),
                       lambda: _remedy_splits(study, splits, fraction, FRACTION_LAYERS))


def _remedy_splits(study: RealStudy, splits: int, fraction: float = 0.5,
                    layers: tuple[int, ...] = SPLIT_LAYERS) -> RemedySplits:
    """:func:`remedy_splits` for a checked number of splits (kept by the study: computed once)."""
    corpus = study.corpus
    pooled = {layer: sentence_embeddings(study.enc, layer) for layer in layers}
    same = load_same_topic()
    same_enc = same_topic_encoded()
    same_pooled = {layer: sentence_embeddings(same_enc, layer) for layer in layers}
    shape = (splits, len(layers), len(REAL_REMEDIES))
    figures = {name: np.empty(shape) for name in SPLIT_FIGURES}
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
    return RemedySplits(np.arange(splits), layers, REAL_REMEDIES, **figures)


#: The layers of notebook 07's table of AUCs by kind of pair.
KIND_LAYERS = (0, 3, 6)


def negatives_by_kind() -> dict[tuple[str, int], tuple[float, float, float]]:
    """For the held-out paraphrase pairs of each kind (``overlap``, ``reworded``) at each of
    :data:`KIND_LAYERS`, the sentence vectors with no remedy: the paraphrase check's AUC against
    unrelated pairs, :func:`negative_auc` against word-sharing negatives (two per pair, one for each of
    its sentences) and against the same-topic pairs; by ``(kind, layer)``. The same for every learner,
    kept by the study (once per machine)."""
    study = real_study()

    def measure() -> dict[tuple[str, int], tuple[float, float, float]]:
        kind = np.array(study.held_kind)
        negatives = word_sharing_negatives([study.corpus.sentences[i] for i in study.held_sentences],
                                           study.held_pairs)
        same, same_enc = load_same_topic(), same_topic_encoded()
        scores = {}
        for name in ("overlap", "reworded"):
            pairs, these = study.held_pairs[kind == name], np.repeat(kind == name, 2)
            for layer in KIND_LAYERS:
                S = real_point(layer, "none").sentences
                both = np.vstack([S, sentence_embeddings(same_enc, layer)])
                scores[name, layer] = (float(paraphrase_check(S, pairs).auc), float(negative_auc(S, pairs, negatives[these])),
                                       float(negative_auc(both, pairs, same.pairs + len(S))))
        return scores

    return kept(study.measured, ("AUCs by kind of pair", KIND_LAYERS), measure)


def store_entries() -> list[tuple[str, Callable[[], object]]]:
    """What ``python -m shared.real.build`` precomputes of this module, in order (its model's record,
    :mod:`shared.real.models`, names this module): the remedies over many splits and the AUCs by kind of pair."""
    return [("remedies over 20 splits", remedy_splits), ("AUCs by kind of pair", negatives_by_kind)]
