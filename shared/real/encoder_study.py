"""Notebook 07's measurements of a real Transformer: the course corpus through all-MiniLM-L6-v2.

The study (:func:`real_study`), the remedies as the notebook applies them (:func:`real_remedy`),
one layer after one remedy (:func:`real_point`) and the profile of every layer
(:func:`layer_profile`). Word frequency against norm is :mod:`shared.real.frequency`; the harder
negatives and the remedies over many splits are :mod:`shared.real.negatives`.

Everything here is computed from :func:`real_study`, which encodes the corpus once per machine (in
the study store, :mod:`shared.store`); what is measured from it is kept by the study itself.
The numbers are exact functions of the hidden states (all pairs, no sampling), so they do not
depend on a seed beyond the one that splits the corpus into a fit half and a held-out half.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .. import _checks, store
from ..meters import (
    gaussian_effective_rank,
    isoscore,
    partition_isotropy,
    random_cosines,
    ParaphraseCheck,
    Reading,
    cov_eigs,
    cross_group_cosines,
    effective_rank,
    mean_cosine,
    numerical_rank,
    paraphrase_check,
    paraphrase_cosines,
    rank_collapse,
    read,
)
from ..remedies import FittedRemedies
from ..report import IsotropyReport, isotropy_report
from .corpus import Corpus, load_corpus, split_halves
from .encoder import Encoded, encode, load_minilm, sentence_embeddings
from .models import minilm_dir, model_inputs, run_through
from .study import Memory, kept, once

REAL_SEED = 7


class RealRemedy(_checks.Choice):
    """The remedies notebook 07 applies to the real model's vectors (see :func:`real_remedy`)."""

    NONE = "none"
    CENTRING = "centring"
    ALL_BUT_THE_TOP = "all-but-the-top"
    WHITENING = "whitening"
    WHITENING_K = "whitening, k = 128"
    WHITENING_SHRUNK = "whitening, shrunk"


#: The names of :class:`RealRemedy`, in the notebook's order (its slider's options).
REAL_REMEDIES = tuple(remedy.value for remedy in RealRemedy)
REAL_TOP_K = 4  # Mu & Viswanath's rule of thumb, k ≈ d/100, at d = 384
REAL_WHITEN_K = 128  # whitening that keeps the top third of the 384 directions (Su et al.'s reduction)
COSINE_GRID = np.linspace(-1.0, 1.0, 81)  # the bins of the real models' cosine histograms (07 and 09)
HELD_OUT_HISTOGRAM_TOKENS = 800  # random held-out tokens whose cross-sentence cosines each histogram draws


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
    measured: Memory = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "measured", Memory(*model_inputs("MiniLM", self.corpus.sentences)))


@once
def real_study() -> RealStudy:
    """The course corpus encoded (a few seconds, once per machine: :mod:`shared.store`) and split (seed 7)."""
    corpus = load_corpus()
    enc = run_through("MiniLM", corpus.sentences, lambda: encode(corpus.sentences))
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
    remedy = _checks.one_of(remedy, RealRemedy, "remedy")
    X = _checks.cloud(X)
    if remedy is RealRemedy.NONE:
        return X
    fitted = fit if isinstance(fit, FittedRemedies) else FittedRemedies(fit)
    if remedy is RealRemedy.CENTRING:
        return fitted.all_but_the_top(X, 0)
    if remedy is RealRemedy.ALL_BUT_THE_TOP:
        return fitted.all_but_the_top(X, REAL_TOP_K)
    if remedy is RealRemedy.WHITENING:
        return fitted.zca_whiten(X, 1.0, rank=fitted.rank)
    if remedy is RealRemedy.WHITENING_K:
        return fitted.zca_whiten(X, 1.0, rank=REAL_WHITEN_K)
    if remedy is RealRemedy.WHITENING_SHRUNK:
        return fitted.shrunk_whiten(X)
    raise AssertionError(f"real_remedy: {remedy} has no branch")  # a member added without its branch


def _histogram_tokens(study: RealStudy) -> tuple[np.ndarray, np.ndarray]:
    """:data:`HELD_OUT_HISTOGRAM_TOKENS` random held-out tokens (seed 7), as rows of the held-out tokens, and
    which of their pairs come from different sentences (the upper triangle only)."""
    return kept(study.measured, "histogram tokens", lambda: _draw_histogram_tokens(study), local=True)


def _draw_histogram_tokens(study: RealStudy) -> tuple[np.ndarray, np.ndarray]:
    groups = study.enc.sentence[study.held_tokens]
    rows = np.sort(np.random.default_rng(REAL_SEED).choice(len(groups), HELD_OUT_HISTOGRAM_TOKENS, replace=False))
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
    :data:`COSINE_GRID` of the cosines between :data:`HELD_OUT_HISTOGRAM_TOKENS` random held-out tokens
    from different sentences (only drawn); ``mean_cosine``, the exact mean over *all* such pairs;
    ``effective_rank`` of their covariance; the coordinate ``rogue`` that carries the largest part
    ``rogue_cosine`` of the mean cosine.

    Sentences (the remedy fitted on the fit half's sentence vectors): ``sentences``, the held-out
    sentence vectors after the remedy; ``paraphrase``/``unrelated``/``traps``, the cosines of the
    held-out paraphrase pairs, unrelated pairs and traps;
    ``check``, the paraphrase check with the traps (no bootstrap: see
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
    study = real_study()
    layer = _checks.integer(layer, "layer", 0, study.enc.states.shape[0] - 1)
    remedy = _checks.one_of(remedy, RealRemedy, "remedy").value  # the name: the study keeps points by it
    return kept(study.measured, ("point", layer, remedy), lambda: _real_point(study, layer, remedy))


def _tokens(study: RealStudy, layer: int) -> tuple[np.ndarray, np.ndarray]:
    """The ordinary tokens of the fit half and of the held-out half at ``layer`` (read-only copies,
    kept by the study: every remedy of a layer uses them)."""
    H = study.enc.states[layer]
    return kept(study.measured, ("tokens", layer),
                       lambda: (_frozen(H[study.fit_tokens]), _frozen(H[study.held_tokens])), local=True)


def _pooled(study: RealStudy, layer: int) -> tuple[np.ndarray, np.ndarray]:
    """The sentence vectors (mean pooling) of the fit half and of the held-out half at ``layer``."""
    def pool() -> tuple[np.ndarray, np.ndarray]:
        pooled = sentence_embeddings(study.enc, layer)
        return _frozen(pooled[study.is_fit]), _frozen(pooled[study.held_sentences])

    return kept(study.measured, ("pooled", layer), pool, local=True)


def _fitted(study: RealStudy, layer: int, vectors: str) -> FittedRemedies:
    """The remedies fitted on the fit half's ordinary ``"tokens"`` or ``"sentences"`` at ``layer``
    (one eigendecomposition, kept by the study, shared by every remedy)."""
    return kept(study.measured, ("fitted", layer, vectors),
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
    return kept(study.measured, "layer profile", lambda: _layer_profile(study))


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


@dataclass(frozen=True)
class VocabularyMeters:
    """Notebook 07's section 1: the meters on the model's input embeddings, one row per vocabulary
    entry from the first that is not a special entry (``[PAD]``, ``[UNK]``, ``[unused...]``: all
    come first). ``eigs``: the covariance's eigenvalues (:func:`~shared.meters.cov_eigs`);
    ``mean_cosine``: :func:`~shared.meters.random_cosines` (seed 0) averaged; ``gaussian_rank``:
    a Gaussian's effective rank at the same size; ``mean_norm`` and ``mean_vector_norm``: the
    rows' mean norm and the norm of their mean; ``mean_square``: the mean squared entry."""

    rows: int
    first_row: int
    partition: float
    mean_cosine: float
    eigs: np.ndarray
    effective_rank: float
    gaussian_rank: float
    isoscore: float
    mean_norm: float
    mean_vector_norm: float
    mean_square: float


@once
def vocabulary_meters() -> VocabularyMeters:
    """:class:`VocabularyMeters` of all-MiniLM-L6-v2's input embeddings (a few seconds; once per
    machine, in the study store: :mod:`shared.store`)."""
    return store.remember("MiniLM vocabulary meters", model_inputs("MiniLM"), _measure_vocabulary)


def _measure_vocabulary() -> VocabularyMeters:
    model = load_minilm()
    E = model.weights["embeddings.word_embeddings.weight"]
    real = np.array([not (t.startswith("[") and t.endswith("]")) for t in model.vocab])
    first = int(np.argmax(real))
    if not real[first:].all():
        raise ValueError("the vocabulary's special entries are not all at its start")
    X = E[first:]
    eigs = cov_eigs(X)
    return VocabularyMeters(len(X), first, partition_isotropy(X), float(random_cosines(X, 0).mean()), eigs,
                            effective_rank(eigs), gaussian_effective_rank(len(X), len(eigs)), isoscore(X),
                            float(np.linalg.norm(X, axis=1).mean()), float(np.linalg.norm(X.mean(axis=0))),
                            float(np.mean(X**2)))


#: The sentence vectors of :func:`sentence_variants` besides :data:`REAL_REMEDIES`: whitening fitted on tokens.
TOKEN_WHITENINGS = ("whitening, on all tokens", "whitening, on ordinary tokens")
VARIANT_LAYERS = (0, 3, 6)  # the layers of notebook 07's bootstrap table (Appendix C)
VARIANT_RESAMPLES = 1000


def sentence_variants(layer: int) -> dict[str, np.ndarray]:
    """The held-out sentence vectors at ``layer``, after each of :data:`REAL_REMEDIES` (fitted on the
    fit half's sentence vectors, :func:`real_point`) and after whitening fitted on the fit half's
    tokens (:data:`TOKEN_WHITENINGS`: every token, ``[CLS]`` and ``[SEP]`` included, or the
    ordinary tokens only)."""
    study = real_study()
    layer = _checks.integer(layer, "layer", 0, study.enc.states.shape[0] - 1)
    enc = study.enc
    pooled = sentence_embeddings(enc, layer)[study.held_sentences]
    H = enc.states[layer]
    every_fit_token = study.is_fit[enc.sentence]  # [CLS] and [SEP] included
    variants = {remedy: real_point(layer, remedy).sentences for remedy in REAL_REMEDIES}
    variants[TOKEN_WHITENINGS[0]] = real_remedy("whitening", pooled, H[every_fit_token])
    variants[TOKEN_WHITENINGS[1]] = real_remedy("whitening", pooled, H[study.fit_tokens])
    return variants


def variant_checks() -> dict[tuple[int, str], ParaphraseCheck]:
    """The paraphrase check, with traps and :data:`VARIANT_RESAMPLES` bootstrap resamples (seed 0),
    of every :func:`sentence_variants` at each of :data:`VARIANT_LAYERS`, by ``(layer, variant)``
    (a few seconds; kept by the study, so once per machine)."""
    study = real_study()
    return kept(study.measured, ("variant checks", VARIANT_LAYERS, VARIANT_RESAMPLES), lambda: {
        (layer, name): paraphrase_check(S, study.held_pairs, study.held_traps, rng=0, resamples=VARIANT_RESAMPLES)
        for layer in VARIANT_LAYERS for name, S in sentence_variants(layer).items()})


#: The layers whose tokens notebook 07 reports on with :func:`~shared.report.isotropy_report`.
REPORT_LAYERS = (5, 6)


def layer_reports() -> dict[int, IsotropyReport]:
    """:func:`~shared.report.isotropy_report` (``rng=0``) of the tokens that are not ``[CLS]``/``[SEP]``
    at each of :data:`REPORT_LAYERS`: the same for every learner, kept by the study (once per machine)."""
    study = real_study()
    ordinary = ~study.enc.special
    return kept(study.measured, ("isotropy reports", REPORT_LAYERS), lambda: {
        layer: isotropy_report(study.enc.states[layer][ordinary], rng=0) for layer in REPORT_LAYERS})


def whitening_control(layer: int = 6, seeds: int = 3) -> tuple[int, int, int, tuple[float, ...]]:
    """Whitening's estimation noise alone: for independent Gaussian rows of the sizes of ``layer``'s
    fit and held-out tokens, in as many dimensions as the fit tokens' covariance has numerically
    non-zero directions, the held-out effective rank after whitening fitted on the Gaussian fit rows,
    for each seed ``0 .. seeds - 1``. Returns ``(fit rows, held-out rows, dimensions, ranks)``; kept
    by the study (once per machine)."""
    seeds = _checks.integer(seeds, "seeds", 1, 20, "each seed whitens a Gaussian of the size of a layer's tokens")
    study = real_study()
    layer = _checks.integer(layer, "layer", 0, len(study.enc.states) - 1)

    def measure() -> tuple[int, int, int, tuple[float, ...]]:
        n_fit, n_held = int(study.fit_tokens.sum()), int(study.held_tokens.sum())
        n_dir = int(numerical_rank(cov_eigs(study.enc.states[layer][study.fit_tokens])))
        ranks = []
        for seed in range(seeds):
            rng = np.random.default_rng(seed)
            G_fit, G_held = rng.standard_normal((n_fit, n_dir)), rng.standard_normal((n_held, n_dir))
            ranks.append(float(effective_rank(cov_eigs(real_remedy("whitening", G_held, G_fit)))))
        return n_fit, n_held, n_dir, tuple(ranks)

    return kept(study.measured, ("whitening control", layer, seeds), measure)


def store_entries() -> list[tuple[str, Callable[[], object]]]:
    """What ``python -m shared.real.build`` precomputes of this module, in order (its model's record,
    :mod:`shared.real.models`, names this module): the corpus through MiniLM, its layer profile, the meters of its input embeddings, the bootstrap of its
    sentence variants, the isotropy reports, the Gaussian control of whitening and every point of
    notebook 07's explorer."""
    config = json.loads((minilm_dir() / "config.json").read_text())
    layers = int(config["num_hidden_layers"]) + 1  # 0 = embedding layer
    return [("corpus through MiniLM", real_study), ("layer profile", layer_profile),
            ("MiniLM vocabulary meters", vocabulary_meters), ("bootstrap of the sentence variants", variant_checks),
            ("isotropy reports of layers 5 and 6", layer_reports), ("whitening's Gaussian control", whitening_control),
            *((f"MiniLM layer {layer}, {remedy}", lambda l=layer, r=remedy: real_point(l, r))
              for layer in range(layers) for remedy in REAL_REMEDIES)]
