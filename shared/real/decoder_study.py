"""Notebook 09's measurements of a real decoder: the course corpus through SmolLM2-135M-Instruct.

Everything here is computed from :func:`decoder_study`, which runs every third sentence of the
course corpus through the numpy decoder once per machine (notebook 07 reads all of them with the
much cheaper MiniLM encoder). The same measurements on text not written for the course are
:mod:`shared.real.outside`. The numbers are exact functions of the hidden states (all pairs, no
sampling) except where a seed is named.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .. import _checks, store
from ..meters import (
    ROW_CHUNK,
    MeterTable,
    Reading,
    cov_eigs,
    cross_group_cosines,
    effective_rank,
    mean_cosine,
    meter_table,
    partition_isotropy,
    read,
    spearman,
    unit_rows,
)
from .corpus import Corpus, load_corpus, split_halves
from .decoder import Decoded, decode, load_smollm
from .encoder import encode, word_embeddings
from .encoder_study import COSINE_GRID, REAL_REMEDIES, REAL_SEED, real_remedy
from .frequency import ZIPF_BINS, binned_median, zipf_scale
from .models import model_inputs, run_through
from .study import Memory, kept, once

DECODER_EVERY = 3  # every third sentence of the corpus: the decoder costs ~20x the encoder per token
MASSIVE_RATIO = 100.0  # the course's looser rule: massive when |x| exceeds 100 times the layer's median |entry|
SUN_RATIO, SUN_MAGNITUDE = 1000.0, 100.0  # Sun et al. 2024's rule: |x| above 100 and about 1,000 times the median


class LeaveOut(_checks.Choice):
    """What notebook 09's explorer leaves out of a layer's tokens before measuring (:func:`decoder_point`)."""

    NOTHING = "nothing"
    FIRST_TOKEN = "the first token"
    MASSIVE_COORDINATES = "the massive coordinates"
    BOTH = "both"


#: The names of :class:`LeaveOut`, in the explorer's order.
LEAVE_OUT = tuple(option.value for option in LeaveOut)
DECODER_HISTOGRAM_TOKENS = 500  # random tokens (seed 7) whose cross-sentence cosines the explorer draws


@dataclass(frozen=True)
class DecoderStudy:
    """Notebook 09's material: ``rows`` (every :data:`DECODER_EVERY`-th corpus sentence) decoded.

    ``dec.enc.word`` is each token's position in its sentence, so ``first`` marks position 0 (no
    BOS token is prepended: see :mod:`shared.real.decoder`). ``is_fit`` marks the decoded sentences in
    the fit half of the corpus's split (seed 7, as notebook 07).
    """

    corpus: Corpus
    rows: np.ndarray
    dec: Decoded
    first: np.ndarray
    is_fit: np.ndarray
    measured: Memory = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        sentences = [self.corpus.sentences[i] for i in self.rows]
        object.__setattr__(self, "measured", Memory(*model_inputs(("SmolLM2", "MiniLM"), sentences)))


@once
def decoder_study() -> DecoderStudy:
    """Every third corpus sentence decoded (about 15 s on two cores, once per machine: :mod:`shared.store`)."""
    corpus = load_corpus()
    rows = np.arange(0, len(corpus.sentences), DECODER_EVERY)
    sentences = [corpus.sentences[i] for i in rows]
    dec = run_through("SmolLM2", sentences, lambda: decode(sentences))
    first = dec.enc.word == 0
    is_fit = split_halves(corpus, REAL_SEED)[rows]
    for array in (dec.enc.states, dec.enc.ids, dec.enc.sentence, dec.enc.word, first, is_fit):
        array.setflags(write=False)
    return DecoderStudy(corpus, rows, dec, first, is_fit)


VOCAB_BANDS = (0, 1000, 5000, 20000, 49152)  # token-id bands (BPE ids: low = merged early = frequent)
TABLE_TYPES = 2000  # random vocabulary rows (seed 7) for the meter table (uniformity is all-pairs)


@dataclass(frozen=True)
class VocabularyCone:
    """The token-embedding matrix as a cloud, one row per token *type*.

    ``mean_cosine``: exact over all pairs of the ``types`` rows. ``band_mean_cosine[b]``,
    ``band_norm[b]``: mean cosine and median norm of the ids in ``VOCAB_BANDS[b]:VOCAB_BANDS[b+1]``.
    Word types (tokens ``Ġword``, lower-case letters, known to wordfreq): ``words`` of them, with
    ``zipf`` frequency; Spearman's rho of the frequency with the norm (``norm_rho``), with the
    cosine to the vocabulary's mean direction (``cone_rho``) and with the token id (``id_rho``);
    per Zipf bin of :data:`~shared.real.frequency.ZIPF_BINS`: ``counts``, ``bin_norm`` and
    ``bin_cone`` (medians) and ``bin_mean_cosine`` (exact mean cosine among the bin's types).
    ``table``: notebook 01's meter table for :data:`TABLE_TYPES` random rows beside a Gaussian.
    """

    types: int
    mean_cosine: float
    band_mean_cosine: np.ndarray
    band_norm: np.ndarray
    words: int
    zipf: np.ndarray
    norm: np.ndarray
    cone: np.ndarray
    norm_rho: float
    cone_rho: float
    id_rho: float
    counts: np.ndarray
    bin_norm: np.ndarray
    bin_cone: np.ndarray
    bin_mean_cosine: np.ndarray
    table: MeterTable


def word_types() -> tuple[np.ndarray, np.ndarray]:
    """Rows of SmolLM2's vocabulary that are a space and a lower-case word (``Ġword``, two letters
    or more) that wordfreq knows, and each word's Zipf frequency (:func:`~shared.real.frequency.zipf_scale`)."""
    vocab = load_smollm().vocab
    rows = np.array([i for i, t in enumerate(vocab) if t.startswith("Ġ") and len(t) > 2 and t[1:].isascii()
                     and t[1:].isalpha() and t[1:].islower()])
    zipf = zipf_scale([vocab[i][1:] for i in rows])
    return rows[zipf > 0], zipf[zipf > 0]


def vocabulary_cone() -> VocabularyCone:
    """:class:`VocabularyCone` of SmolLM2's token embeddings (kept in the study store)."""
    return store.remember("vocabulary cone", model_inputs("SmolLM2"), _vocabulary_cone)


def _vocabulary_cone() -> VocabularyCone:
    E = load_smollm().embeddings
    E64 = E.astype(np.float64)  # the one double-precision copy every figure below reads
    n = len(E64)
    total = sum(unit_rows(E64[a:a + ROW_CHUNK]).sum(axis=0) for a in range(0, n, ROW_CHUNK))
    direction = total / np.linalg.norm(total)
    bands = [mean_cosine(E64[a:b]) for a, b in zip(VOCAB_BANDS[:-1], VOCAB_BANDS[1:])]
    norms_all = np.linalg.norm(E64, axis=1)
    band_norm = [float(np.median(norms_all[a:b])) for a, b in zip(VOCAB_BANDS[:-1], VOCAB_BANDS[1:])]
    rows, zipf = word_types()
    W = E[rows].astype(np.float64)
    norm = np.linalg.norm(W, axis=1)
    cone = W @ direction / norm
    bin_norm, counts = binned_median(zipf, norm)
    bin_cone, _ = binned_median(zipf, cone)
    which = np.digitize(zipf, ZIPF_BINS) - 1
    bin_cos = np.array([mean_cosine(W[which == b]) if counts[b] >= 2 else np.nan for b in range(len(counts))])
    sample = np.sort(np.random.default_rng(REAL_SEED).choice(len(E), TABLE_TYPES, replace=False))
    table = meter_table({"SmolLM2 token embeddings": E[sample].astype(np.float64)})
    return VocabularyCone(n, mean_cosine(E64), np.array(bands), np.array(band_norm),
                          len(rows), zipf, norm, cone, spearman(zipf, norm), spearman(zipf, cone),
                          spearman(zipf, rows.astype(float)), counts, bin_norm, bin_cone, bin_cos, table)


@dataclass(frozen=True)
class DecoderProfile:
    """Per layer ``l`` (0 = token embeddings, 1..30 = blocks), over the decoded sentences:

    * ``mean_cosine``: exact mean cosine of tokens from different sentences (Ethayarajh's setting);
      ``mean_cosine_rest``: the same with every sentence's first token left out;
      ``mean_cosine_trimmed``: first tokens left out and the :attr:`massive` coordinates deleted;
    * ``effective_rank`` (all tokens) and ``effective_rank_rest`` (first tokens left out);
      ``partition_isotropy_rest`` (first tokens left out; NaN where its eigenvectors are not unique);
    * ``rogue``: the three coordinates with the largest terms of ``mean_cosine_rest``, and
      ``rogue_share``, the fraction of it they carry together (Timkey & van Schijndel 2021);
      ``coordinate_terms[l, c]``: every coordinate's term of ``mean_cosine_rest`` (they sum to it);
    * ``mean_share``: squared norm of the mean vector over the mean squared norm (first tokens left
      out): the part of every token that all tokens share;
    * ``largest``: the largest |entry| over first tokens, as a multiple of the layer's median |entry|
      (``largest_abs``: the same entry's |x|, ``median``: the layer's median |entry|);
      ``largest_coordinate``: where it sits; ``largest_rest``: the same multiple over the other tokens;
      ``massive_rest``: the share of other tokens with an entry above :data:`MASSIVE_RATIO` times the median;
    * ``first_cosine``: mean cosine among the first tokens of different sentences;
    * ``within_cosine``: median over sentences of the mean cosine of its own tokens (first left out);
    * ``first_attention``: attention to the first token, averaged over heads and over queries at
      position 2 or later (``uniform_first``: the same if attention were spread evenly).

    ``massive``: the coordinates with an entry above :data:`MASSIVE_RATIO` times its layer's median
    at some token of some layer (a looser rule than Sun et al. 2024's, :data:`SUN_RATIO`); ``tokens``/``rest``: how
    many tokens are measured with and without first tokens.
    """

    mean_cosine: np.ndarray
    mean_cosine_rest: np.ndarray
    mean_cosine_trimmed: np.ndarray
    effective_rank: np.ndarray
    effective_rank_rest: np.ndarray
    partition_isotropy_rest: np.ndarray
    rogue: np.ndarray
    rogue_share: np.ndarray
    mean_share: np.ndarray
    largest: np.ndarray
    largest_coordinate: np.ndarray
    largest_rest: np.ndarray
    massive_rest: np.ndarray
    first_cosine: np.ndarray
    within_cosine: np.ndarray
    first_attention: np.ndarray
    uniform_first: float
    massive: tuple[int, ...]
    tokens: int
    rest: int
    coordinate_terms: np.ndarray
    largest_abs: np.ndarray
    median: np.ndarray


def decoder_profile() -> DecoderProfile:
    """The :class:`DecoderProfile` of :func:`decoder_study` (kept by the study)."""
    return study_profile(decoder_study())


def study_profile(study: DecoderStudy) -> DecoderProfile:
    """The :class:`DecoderProfile` of ``study`` (kept by the study: computed once)."""
    return kept(study.measured, "profile", lambda: _decoder_profile(study))


def _decoder_profile(study: DecoderStudy) -> DecoderProfile:
    enc, first = study.dec.enc, study.first
    rest = ~first
    groups = enc.sentence
    starts = np.append(enc.starts, len(groups))
    medians = np.array([np.median(np.abs(H)) for H in enc.states])
    massive = sorted({int(c) for H, m in zip(enc.states, medians)
                      for c in np.flatnonzero(np.abs(H).max(axis=0) > MASSIVE_RATIO * m)})
    keep = np.setdiff1d(np.arange(enc.states.shape[2]), massive)
    rows, all_terms, largest_abs = [], [], []
    for H, med in zip(enc.states, medians):
        H = H.astype(np.float64)
        R = H[rest]
        terms = cross_group_cosines(R, groups[rest])
        all_terms.append(terms)
        top = np.argsort(-terms, kind="stable")[:3]
        mu = R.mean(axis=0)
        A = np.abs(H)
        at = np.argmax(A[first].max(axis=0))
        largest_abs.append(float(A[first].max()))
        within = [mean_cosine(H[a + 1:b]) for a, b in zip(starts[:-1], starts[1:]) if b - a >= 3]
        try:
            partition = partition_isotropy(R)
        except ValueError:  # eigenvectors not unique: the meter is undefined
            partition = np.nan
        rows.append((float(cross_group_cosines(H, groups).sum()), float(terms.sum()),
                     float(cross_group_cosines(R[:, keep], groups[rest]).sum()),
                     effective_rank(cov_eigs(H)), effective_rank(cov_eigs(R)), partition, top,
                     float(terms[top].sum() / terms.sum()), float(mu @ mu / np.mean(np.sum(R * R, axis=1))),
                     float(A[first].max() / med), int(at), float(A[rest].max() / med),
                     float(np.mean(A[rest].max(axis=1) > MASSIVE_RATIO * med)), mean_cosine(H[first]),
                     float(np.median(within))))
    cols = [np.array(c) for c in zip(*rows)]
    cols[6] = np.stack(cols[6]).astype(int)
    cols[10] = cols[10].astype(int)
    attention = study.dec.first_attention.mean(axis=1)
    return DecoderProfile(*cols, first_attention=attention, uniform_first=study.dec.uniform_first,
                          massive=tuple(massive), tokens=len(groups), rest=int(rest.sum()),
                          coordinate_terms=np.stack(all_terms), largest_abs=np.array(largest_abs), median=medians)


@dataclass(frozen=True)
class RemedyRow:
    """One remedy of :data:`~shared.real.encoder_study.REAL_REMEDIES` at one layer, fitted on the fit half's
    tokens (first tokens left out) and measured on the held-out half's: exact cross-sentence
    ``mean_cosine`` and ``effective_rank`` of the held-out tokens without (``..._rest``) and with
    their first tokens."""

    remedy: str
    mean_cosine_rest: float
    effective_rank_rest: float
    mean_cosine: float
    effective_rank: float


def decoder_remedies(layer: int) -> tuple[RemedyRow, ...]:
    """Notebook 06's remedies (as notebook 07 applies them) on the decoder's tokens at ``layer``
    (kept by the study)."""
    study = decoder_study()
    layer = _checks.integer(layer, "layer", 0, study.dec.enc.states.shape[0] - 1)
    return kept(study.measured, ("remedies", layer), lambda: _decoder_remedies(study, layer))


def _decoder_remedies(study: DecoderStudy, layer: int) -> tuple[RemedyRow, ...]:
    enc = study.dec.enc
    H = enc.states[layer].astype(np.float64)
    fit_sentence = study.is_fit[enc.sentence]
    fit = H[fit_sentence & ~study.first]
    held = ~fit_sentence
    out = []
    for remedy in REAL_REMEDIES:
        X = real_remedy(remedy, H[held], fit)
        g, f = enc.sentence[held], study.first[held]
        out.append(RemedyRow(remedy, float(cross_group_cosines(X[~f], g[~f]).sum()), effective_rank(cov_eigs(X[~f])),
                             float(cross_group_cosines(X, g).sum()), effective_rank(cov_eigs(X))))
    return tuple(out)


def largest_entry_ratio(H: np.ndarray) -> float:
    """The largest |entry| of ``H`` over its median |entry|: about 4 to 5 for a Gaussian of a few
    thousand rows, thousands where a massive activation sits (Sun et al. 2024)."""
    H = _checks.cloud(H)
    return float(np.abs(H).max() / np.median(np.abs(H)))


@dataclass(frozen=True)
class DecoderPoint:
    """One layer of the decoder with some vectors or coordinates left out (:data:`LEAVE_OUT`).

    ``hist``: density over :data:`COSINE_GRID` of the cosines between :data:`DECODER_HISTOGRAM_TOKENS`
    random tokens (seed 7) from different sentences (only drawn); ``mean_cosine``: exact over all
    pairs of tokens from different sentences; ``top``/``top_terms``: the eight coordinates with the
    largest terms of the mean cosine, and those terms; ``tokens``, ``coordinates``: how many are kept.
    """

    layer: int
    leave_out: str
    hist: np.ndarray
    mean_cosine: float
    top: np.ndarray
    top_terms: np.ndarray
    tokens: int
    coordinates: int

    def readings(self) -> dict[str, list[Reading]]:
        return {"tokens from different sentences": [
            read(mean_cosine, self.mean_cosine),
            Reading(f"cosine carried by coordinate {self.top[0]}", float(self.top_terms[0])),
            Reading("share carried by the top three", float(self.top_terms[:3].sum() / self.mean_cosine))]}


def _histogram_rows(study: DecoderStudy) -> np.ndarray:
    n = len(study.dec.enc.sentence)
    return np.sort(np.random.default_rng(REAL_SEED).choice(n, DECODER_HISTOGRAM_TOKENS, replace=False))


def decoder_point(layer: int, leave_out: str) -> DecoderPoint:
    """The :class:`DecoderPoint` at ``layer`` with ``leave_out`` (one of :data:`LEAVE_OUT`) removed
    (kept by the study: each setting is computed once)."""
    study = decoder_study()
    layer = _checks.integer(layer, "layer", 0, study.dec.enc.states.shape[0] - 1)
    leave_out = _checks.one_of(leave_out, LeaveOut, "leave_out").value  # the name: the study keeps points by it
    return kept(study.measured, ("point", layer, leave_out), lambda: _decoder_point(study, layer, leave_out))


def _decoder_point(study: DecoderStudy, layer: int, leave_out: str) -> DecoderPoint:
    enc = study.dec.enc
    tokens = np.ones(len(enc.sentence), dtype=bool)
    out = LeaveOut(leave_out)
    if out in (LeaveOut.FIRST_TOKEN, LeaveOut.BOTH):
        tokens = ~study.first
    columns = np.arange(enc.states.shape[2])
    if out in (LeaveOut.MASSIVE_COORDINATES, LeaveOut.BOTH):
        columns = np.setdiff1d(columns, study_profile(study).massive)
    H = enc.states[layer][:, columns].astype(np.float64)
    terms = cross_group_cosines(H[tokens], enc.sentence[tokens])
    order = np.argsort(-terms, kind="stable")[:8]
    rows = _histogram_rows(study)
    rows = rows[tokens[rows]]
    V = H[rows] / np.linalg.norm(H[rows], axis=1, keepdims=True)
    g = enc.sentence[rows]
    cos = (V @ V.T)[np.triu(g[:, None] != g[None, :], k=1)]
    bins = len(COSINE_GRID) - 1
    counts = np.bincount(np.clip(((cos + 1.0) * (bins / 2.0)).astype(np.int64), 0, bins - 1), minlength=bins)
    hist = counts / (counts.sum() * (2.0 / bins))
    return DecoderPoint(layer, leave_out, hist, float(terms.sum()), columns[order], terms[order],
                        int(tokens.sum()), len(columns))


@dataclass(frozen=True)
class EncoderSide:
    """all-MiniLM-L6-v2 on the same sentences as :func:`decoder_study`, measured as the decoder is:
    per layer (0 = embedding layer) the exact cross-sentence ``mean_cosine`` of its ordinary tokens
    (``[CLS]``/``[SEP]`` left out), their ``effective_rank``, the share ``rogue_share`` of the mean
    cosine carried by its three largest coordinates, and ``largest`` (:func:`largest_entry_ratio`);
    ``vocabulary_mean_cosine``: exact, over its whole input-embedding matrix."""

    mean_cosine: np.ndarray
    effective_rank: np.ndarray
    rogue_share: np.ndarray
    largest: np.ndarray
    vocabulary_mean_cosine: float
    vocabulary: int
    tokens: int


def encoder_side() -> EncoderSide:
    """:class:`EncoderSide` (encodes the decoder's sentences with MiniLM, about 2 s; kept by the study)."""
    study = decoder_study()
    return kept(study.measured, "encoder side", lambda: _encoder_side(study))


def _encoder_side(study: DecoderStudy) -> EncoderSide:
    sentences = [study.corpus.sentences[i] for i in study.rows]
    enc = run_through("MiniLM", sentences, lambda: encode(sentences))
    ordinary = ~enc.special
    rows = []
    for H in enc.states:
        terms = cross_group_cosines(H[ordinary], enc.sentence[ordinary])
        top = np.sort(terms)[::-1][:3]
        rows.append((terms.sum(), effective_rank(cov_eigs(H[ordinary])), top.sum() / terms.sum(),
                     largest_entry_ratio(H[ordinary])))
    E, _ = word_embeddings()
    return EncoderSide(*map(np.array, zip(*rows)), vocabulary_mean_cosine=mean_cosine(E), vocabulary=len(E),
                       tokens=int(ordinary.sum()))


@dataclass(frozen=True)
class MassiveDeletion:
    """Notebook 09's switch-off test at one ``layer``: ``table``, notebook 01's meter table
    (:func:`~shared.meters.meter_table`) of the layer's tokens with the first ones left out, the same
    with the profile's massive coordinates deleted, and centred instead; ``random_deleted``, the
    mean cosine across sentences with as many random coordinates deleted instead (seeds 0 to 4)."""

    layer: int
    table: MeterTable
    random_deleted: tuple[float, ...]


def massive_deletion(layer: int = 15) -> MassiveDeletion:
    """:class:`MassiveDeletion` at ``layer`` (about a second; kept by the study, so once per machine)."""
    study = decoder_study()
    layer = _checks.integer(layer, "layer", 0, study.dec.enc.states.shape[0] - 1)
    return kept(study.measured, ("massive deletion", layer), lambda: _massive_deletion(study, layer))


def _massive_deletion(study: DecoderStudy, layer: int) -> MassiveDeletion:
    enc = study.dec.enc
    massive = decoder_profile().massive
    rest = enc.states[layer][~study.first].astype(np.float64)
    keep = np.setdiff1d(np.arange(rest.shape[1]), massive)
    table = meter_table({f"layer {layer}, first tokens left out": rest,
                         f"... and the {len(massive)} massive coordinates deleted": rest[:, keep],
                         "... and centred instead": rest - rest.mean(axis=0)})
    random_deleted = tuple(
        float(cross_group_cosines(np.delete(rest, np.random.default_rng(seed).choice(rest.shape[1], len(massive),
                                                                                     replace=False), axis=1),
                                  enc.sentence[~study.first]).sum()) for seed in range(5))
    return MassiveDeletion(layer, table, random_deleted)


def store_entries() -> list[tuple[str, Callable[[], object]]]:
    """What ``python -m shared.real.build`` precomputes of this module, in order (its model's record,
    :mod:`shared.real.models`, names this module): the corpus through SmolLM2, its profile, the vocabulary's cone, MiniLM on the same sentences, the
    massive coordinates switched off at layer 15 and every point of notebook 09's explorer and remedy table."""
    layers = load_smollm().n_layers + 1  # 0 = token embeddings
    return [("corpus through SmolLM2", decoder_study), ("decoder profile", decoder_profile),
            ("vocabulary cone", vocabulary_cone), ("MiniLM on the decoder's sentences", encoder_side),
            ("massive coordinates deleted at layer 15", massive_deletion),
            *((f"SmolLM2 remedies, layer {layer}", lambda l=layer: decoder_remedies(l)) for layer in range(layers)),
            *((f"SmolLM2 layer {layer}, {out}", lambda l=layer, o=out: decoder_point(l, o))
              for layer in range(layers) for out in LEAVE_OUT)]
