"""The paraphrase study: are paraphrases closer than unrelated sentences, with a bootstrap of the pairs?"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import _checks
from .cosines import unit_rows
from .registry import Reading
from .tasks import auc, rankable

def _pair_rows(S: object, pairs: object, name: str = "pairs") -> tuple[np.ndarray, np.ndarray]:
    """Check a set of sentence vectors and the row indices of its pairs (paraphrases, or traps)."""
    S = _checks.cloud(S, name="S", min_rows=2)
    pairs = _checks.integers(pairs, name, ndim=2)
    if pairs.shape[1] != 2 or len(pairs) < 2:
        raise ValueError(f"{name}: expected an integer array of shape (P, 2) with P >= 2, got shape {pairs.shape}")
    if pairs.min() < 0 or pairs.max() >= len(S) or len(np.unique(pairs)) != pairs.size:
        raise ValueError(f"{name}: expected distinct row indices of S (0..{len(S) - 1})")
    _checks.zero_row(S, pairs, "S", f"a sentence of {name} has no cosine")
    return S, pairs


def _paraphrase_parts(S: object, pairs: object) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Unit rows of ``S``, the checked ``pairs``, and the paraphrase and unrelated cosines."""
    S, pairs = _pair_rows(S, pairs)
    U = unit_rows(S)
    members = U[pairs.T.ravel()]
    G = members @ members.T  # every cosine among the 2P sentences
    P = len(pairs)
    para = G[np.arange(P), np.arange(P) + P]
    _, _, (a, b) = _unrelated_pairs(P)
    return U, pairs, para, G[a, b]


def _unrelated_pairs(n_pairs: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unrelated pairs among the ``2P`` sentences of ``P`` pairs: the paraphrase pairs ``i < j``
    they come from, and the two sentences as positions in ``pairs.T.ravel()``, four per ``(i, j)``."""
    i, j = np.triu_indices(n_pairs, k=1)
    a = np.stack([i, i, i + n_pairs, i + n_pairs], axis=1).ravel()
    b = np.stack([j, j + n_pairs, j, j + n_pairs], axis=1).ravel()
    return np.repeat(i, 4), np.repeat(j, 4), np.stack([a, b])


class ParaphraseCosines(NamedTuple):
    """Cosines of paraphrase pairs and of unrelated pairs (:func:`paraphrase_cosines`)."""

    paraphrase: np.ndarray
    unrelated: np.ndarray


def paraphrase_cosines(S: np.ndarray, pairs: np.ndarray) -> ParaphraseCosines:
    """Cosines of the ``P`` paraphrase pairs (rows ``pairs[p]`` of ``S``), and of every *unrelated*
    pair: two of the ``2P`` sentences that come from different paraphrase pairs."""
    _, _, para, unrelated = _paraphrase_parts(S, pairs)
    return ParaphraseCosines(para, unrelated)


RESAMPLED = ("auc", "top1", "trap_auc")  # the figures of a ParaphraseCheck that carry bootstrap draws


@dataclass(frozen=True)
class ParaphraseCheck:
    """:func:`paraphrase_check`: mean cosines of both kinds of pair, their AUC and top-1 retrieval;
    with ``traps``, the traps' mean cosine and ``trap_auc``; with ``rng``, bootstrap draws
    of the AUCs and of top-1 retrieval (``draws[name]``, one value per resample) and
    :meth:`interval`."""

    paraphrase_cosine: float
    unrelated_cosine: float
    auc: float
    top1: float
    trap_cosine: float | None = None
    trap_auc: float | None = None
    draws: dict[str, np.ndarray] | None = None
    resampling: str | None = None  # identifies the resamples, so that only paired checks are subtracted

    def interval(self, name: str, level: float = 0.95, minus: ParaphraseCheck | None = None) -> tuple[float, float]:
        """Bootstrap percentile interval of ``name`` (``"auc"``, ``"top1"`` or ``"trap_auc"``) at
        ``level``; with ``minus``, of the *difference* ``self - minus``, resample by resample (both
        checks must come from the same pairs and the same seed, so each resample compares the
        same sentences)."""
        if name not in RESAMPLED:
            raise ValueError(f"name: expected one of {RESAMPLED}, got {name!r}")
        level = _checks.real(level, "level", 0.0, 1.0)
        if not 0.0 < level < 1.0:
            raise ValueError(f"level: expected a probability strictly between 0 and 1, got {level}")
        values = self._draws(name)
        if minus is not None:
            _checks.instance(minus, ParaphraseCheck, "minus")
            if minus.resampling != self.resampling:
                raise ValueError("minus: was resampled differently; give both checks the same pairs, traps,"
                                 " rng seed and number of resamples")
            values = values - minus._draws(name)
        low, high = np.percentile(values, [50 * (1 - level), 50 * (1 + level)])
        return float(low), float(high)

    def _draws(self, name: str) -> np.ndarray:
        if self.draws is None:
            raise ValueError("this check has no bootstrap draws; call paraphrase_check with rng=<seed>")
        if name not in self.draws:
            raise ValueError(f"this check has no {name!r}: call paraphrase_check with traps")
        return self.draws[name]

    def readings(self) -> list[Reading]:
        readings = [Reading("paraphrase cosine", self.paraphrase_cosine, "+.3f"),
                    Reading("unrelated cosine", self.unrelated_cosine, "+.3f"),
                    Reading("paraphrase AUC", self.auc), Reading("top-1 retrieval", self.top1)]
        if self.trap_auc is not None:
            readings.append(Reading("AUC against traps", self.trap_auc))
        return readings


def paraphrase_check(
    S: np.ndarray,
    pairs: np.ndarray,
    traps: np.ndarray | None = None,
    rng: np.random.Generator | int | None = None,
    resamples: int = 1000,
) -> ParaphraseCheck:
    r"""A small semantic test: are paraphrases closer than unrelated sentences?

    ``S`` holds one embedding per sentence, ``pairs`` (shape ``(P, 2)``) the row indices of ``P``
    paraphrase pairs; unrelated pairs are as in :func:`paraphrase_cosines`. Returns the mean
    cosine of each kind, their AUC (the probability that a paraphrase pair has the higher cosine
    of the two, over every paraphrase/unrelated combination; ties count one half), and top-1
    retrieval: the share of the ``2P`` sentences whose most similar other row of ``S`` is their
    paraphrase. Every pair is used, so there is no sampling. Cosines equal up to rounding tie
    (in the AUC, and in retrieval, where a tie goes to the earlier row). A sentence of a pair or a
    trap must have a non-zero vector; other zero rows of ``S`` (no direction) are never retrieved.

    ``traps`` (shape ``(T, 2)``, ``T >= 2``, rows of ``S`` not in ``pairs``): pairs of sentences that share
    most words but not the meaning (traps: negations, opposite words, swapped roles). Adds their mean cosine and the AUC of
    paraphrases against them: the probability that a paraphrase pair has the higher cosine.

    ``rng``: draw ``resamples`` bootstrap resamples of the paraphrase pairs (and, independently,
    of the traps), each pair drawn as often as its multinomial count, and recompute every AUC and
    top-1 retrieval on each resample: unrelated pairs are the pairs of sentences from two
    *different* drawn paraphrase pairs, weighted by how often both were drawn; retrieval still
    searches all rows of ``S``. The draws give :meth:`ParaphraseCheck.interval`. They are exact
    sums of counts, so they do not depend on the BLAS build; the same seed and pairs give the
    same resamples, so checks of two remedies on one seed are paired. The paraphrase AUC of a
    resample needs two different pairs (unrelated pairs join two of them): a resample that draws
    one pair ``P`` times is drawn again, so the bootstrap is conditioned on the AUC being defined
    (with many pairs this almost never happens, and the draws are those of the plain bootstrap).
    """
    U, pairs, para, unrelated = _paraphrase_parts(S, pairs)
    C = rankable(U @ U.T)
    np.fill_diagonal(C, -np.inf)
    C[:, ~U.any(axis=1)] = -np.inf  # a zero row has no direction: it is nobody's nearest row
    nearest = C[pairs.T.ravel()].argmax(axis=1)
    partner = np.concatenate([pairs[:, 1], pairs[:, 0]])
    hits = (nearest == partner).reshape(2, -1).sum(axis=0)  # per paraphrase pair: 0, 1 or 2
    para_r, unrelated_r = rankable(para), rankable(unrelated)
    figures = dict(paraphrase_cosine=float(para.mean()), unrelated_cosine=float(unrelated.mean()),
                   auc=auc(para_r, unrelated_r), top1=float(hits.sum() / (2 * len(pairs))))
    if traps is not None:
        _, traps = _pair_rows(S, traps, "traps")
        if np.isin(traps, pairs).any():
            raise ValueError("traps: share rows with pairs; a sentence is either in a paraphrase pair or in a trap")
        trap = rankable(np.einsum("ij,ij->i", U[traps[:, 0]], U[traps[:, 1]]))
        figures.update(trap_cosine=float(trap.mean()), trap_auc=auc(para_r, trap))
    if rng is None:
        return ParaphraseCheck(**figures)
    resamples = _checks.integer(resamples, "resamples", 2)
    _checks.allocation(("resamples", resamples), (None, len(pairs) + (0 if traps is None else len(traps))))
    _checks.work(("resamples", resamples), (None, len(pairs) ** 2 + (0 if traps is None else len(pairs) * len(traps))))
    rng = _checks.as_rng(rng)
    P = len(pairs)
    w = rng.multinomial(P, np.full(P, 1.0 / P), size=resamples).astype(float)
    while (one := np.flatnonzero(np.count_nonzero(w, axis=1) < 2)).size:  # no unrelated pair: redraw
        w[one] = rng.multinomial(P, np.full(P, 1.0 / P), size=one.size)
    draws = {"auc": _resampled_auc(para_r, unrelated_r, w), "top1": w @ hits / (2.0 * P)}
    fingerprint = [P, resamples]
    if traps is not None:
        T = len(traps)
        v = rng.multinomial(T, np.full(T, 1.0 / T), size=resamples).astype(float)
        wins = _wins(para_r, trap)  # (P, T): 1, 1/2 or 0
        draws["trap_auc"] = np.einsum("bp,pt,bt->b", w, wins, v) / (P * T)
        fingerprint.append(T)
    for values in draws.values():
        values.setflags(write=False)
    seed_state = rng.bit_generator.state  # after the draws: the same seed and sizes give the same state
    return ParaphraseCheck(**figures, draws=draws, resampling=repr((fingerprint, seed_state)))


def _wins(positive: np.ndarray, negative: np.ndarray) -> np.ndarray:
    """``(len(positive), len(negative))``: 1 where the positive score is higher, 1/2 on a tie."""
    return (positive[:, None] > negative[None, :]) + 0.5 * (positive[:, None] == negative[None, :])


def _resampled_auc(para: np.ndarray, unrelated: np.ndarray, w: np.ndarray, block: int = 256) -> np.ndarray:
    """The paraphrase AUC on each resample (rows of ``w``: how often each pair is drawn).

    Unrelated pair ``n`` joins pairs ``i(n) < j(n)`` and counts ``w_i w_j`` times; paraphrase pair
    ``p`` counts ``w_p`` times. Wins are summed per ``(p, (i, j))`` once (a ``P x P(P-1)/2`` table),
    then weighted per resample; every term is a multiple of 1/2 far below 2**53, so the sums are
    exact in any order.
    """
    P = len(para)
    i, j, _ = _unrelated_pairs(P)
    four = unrelated.reshape(-1, 4)[None, :, :]  # the four unrelated pairs of each (i, j)
    K = np.sum(para[:, None, None] > four, axis=2) + 0.5 * np.sum(para[:, None, None] == four, axis=2)
    first, second = i[::4], j[::4]
    out = np.empty(len(w))
    for start in range(0, len(w), block):
        wt = np.ascontiguousarray(w[start : start + block].T)  # (P, block): rows index fast
        out[start : start + block] = np.einsum("kb,kb->b", K.T @ wt, wt[first] * wt[second])
    pairs_weight = w.sum(axis=1)
    unrelated_weight = 4.0 * (pairs_weight**2 - np.sum(w**2, axis=1)) / 2.0
    return out / (pairs_weight * unrelated_weight)

