"""Notebook 07's headline claims over 20 random splits of the corpus, per word type as well as per
occurrence, and the corpus facts its prose states."""

from __future__ import annotations

import numpy as np
import pytest

from shared import FittedRemedies, all_but_the_top, shrunk_whiten, zca_whiten
from shared.realmodel import (
    REAL_REMEDIES,
    negative_auc,
    norm_frequency,
    real_point,
    real_study,
    split_verdicts,
    trap_kinds,
    word_sharing_negatives,
)

LAYERS = {0: 0, 3: 1, 6: 2}  # layer -> position in split_verdicts().layers


def _r(remedy: str) -> int:
    return REAL_REMEDIES.index(remedy)


@pytest.fixture(scope="module")
def verdicts():
    v = split_verdicts()
    assert len(v.seeds) == 20 and v.layers == (0, 3, 6) and v.remedies[0] == "none"
    return v


def test_the_notebooks_split_is_one_of_the_twenty(verdicts):
    seed7 = {layer: real_point(layer, "whitening").check.top1 for layer in (0, 3, 6)}
    for layer, l in LAYERS.items():
        assert verdicts.top1[7, l, _r("whitening")] == pytest.approx(seed7[layer], abs=1e-12)


def test_centring_and_all_but_the_top_raise_the_input_layers_auc_in_every_split(verdicts):
    helps = verdicts.helps("auc")
    assert helps[LAYERS[0], _r("centring")] == 20
    assert helps[LAYERS[0], _r("all-but-the-top")] == 20
    # at the last layer they change the AUC by less than 0.001 either way
    for remedy in ("centring", "all-but-the-top"):
        assert np.all(np.abs(verdicts.change("auc")[:, LAYERS[6], _r(remedy)]) < 1e-3)


def test_full_rank_whitening_loses_everywhere_and_shrinkage_recovers_most_of_it(verdicts):
    w, shrunk, none = _r("whitening"), _r("whitening, shrunk"), 0
    for figure in ("auc", "top1", "hard_auc"):
        assert verdicts.hurts(figure)[:, w].tolist() == [20, 20, 20], figure
    # in every split and layer the shrunk covariance retrieves better than the full-rank one,
    # and recovers at least half of what full-rank whitening lost
    lost = verdicts.top1[:, :, none] - verdicts.top1[:, :, w]
    recovered = verdicts.top1[:, :, shrunk] - verdicts.top1[:, :, w]
    assert np.all(recovered > 0.5 * lost)


def test_every_whitening_lowers_retrieval_at_layer_3_in_every_split(verdicts):
    hurts = verdicts.hurts("top1")[LAYERS[3]]
    for remedy in ("whitening", "whitening, k = 128", "whitening, shrunk"):
        assert hurts[_r(remedy)] == 20, remedy


def test_the_traps_beat_most_paraphrases_after_every_remedy_in_every_split(verdicts):
    assert np.all(verdicts.trap_auc < 0.5)
    assert np.all(verdicts.trap_auc[:, :2, :3] < 0.3)  # layers 0 and 3, no remedy, centring, all-but-the-top


def test_paraphrases_score_near_the_ceiling_against_unrelated_pairs_in_every_split(verdicts):
    none = verdicts.auc[:, :, 0]
    assert np.all(none > 0.97)
    assert np.all(verdicts.hard_auc[:, :, 0] <= none + 1e-12)  # word-sharing negatives are harder


def test_trap_kinds_count_the_negations():
    kinds = trap_kinds(real_study().corpus)
    assert len(kinds) == 48
    assert {k: kinds.count(k) for k in set(kinds)} == {"negation": 11, "opposite word": 29, "swapped roles": 8}


def test_trap_kinds_on_written_examples():
    from shared.encoder import Corpus

    sentences = ("The cat chased the dog.", "The dog chased the cat.", "It is safe.", "It is not safe.",
                 "Prices rose.", "Prices fell.")
    corpus = Corpus(sentences, ("t",) * 6, np.zeros((0, 2), dtype=np.int64), (),
                    np.array([[0, 1], [2, 3], [4, 5]]))
    assert trap_kinds(corpus) == ("swapped roles", "negation", "opposite word")


def test_the_corpus_has_nineteen_topics_and_683_sentences():
    corpus = real_study().corpus
    singles = len(corpus.sentences) - 2 * (len(corpus.pairs) + len(corpus.traps))
    assert len(corpus.sentences) == 683
    assert len(set(corpus.topic[:singles])) == 19


def test_word_sharing_negatives_pick_the_sentence_sharing_most_words():
    sentences = ["the red fox runs", "a red fox is running", "the red fox sleeps", "blue sky", "the fox runs far",
                 "a dog barks"]
    pairs = np.array([[0, 1], [3, 5]])
    negatives = word_sharing_negatives(sentences, pairs)
    assert negatives.tolist() == [[0, 2], [1, 2], [3, 0], [5, 1]]  # 0 shares 3 words with 2 and with 4: the earlier wins
    for i, j in negatives:
        partner = {0: 1, 1: 0, 3: 5, 5: 3}[i]
        assert j not in (i, partner)


def test_negative_auc_is_the_share_of_comparisons_the_paraphrase_wins():
    rng = np.random.default_rng(0)
    S = rng.standard_normal((10, 5))
    pairs, negatives = np.array([[0, 1], [2, 3]]), np.array([[0, 4], [1, 5], [2, 6]])
    U = S / np.linalg.norm(S, axis=1, keepdims=True)
    para = [U[a] @ U[b] for a, b in pairs]
    neg = [U[a] @ U[b] for a, b in negatives]
    expected = np.mean([p > n for p in para for n in neg])
    assert negative_auc(S, pairs, negatives) == pytest.approx(expected)


def test_norm_against_frequency_per_occurrence_and_per_word_type():
    freq = norm_frequency()
    occurrences, types = freq.context.spearman, freq.context_types.spearman
    assert np.all(occurrences < -0.6)
    assert abs(types[0]) < 0.05  # no relation per word type after the embedding layer
    assert np.all((types[3:] < -0.25) & (types[3:] > -0.5))
    assert np.all(types[3:] > occurrences[3:])  # weaker per type than per occurrence
    top10 = np.sort(freq.type_occurrences)[::-1][:10].sum() / freq.type_occurrences.sum()
    assert 0.2 < top10 < 0.3
    assert freq.type_occurrences.sum() == len(freq.context.zipf) and len(freq.type_occurrences) == len(freq.context_types.zipf)


def test_fitted_remedies_equal_the_module_functions():
    rng = np.random.default_rng(1)
    fit = rng.standard_normal((60, 8)) * np.linspace(3, 0.2, 8) + 1.0
    X = rng.standard_normal((7, 8))
    fitted = FittedRemedies(fit)
    assert np.allclose(fitted.all_but_the_top(X, 2), all_but_the_top(X, 2, fit=fit), atol=1e-12)
    assert np.allclose(fitted.zca_whiten(X, 0.5, rank=5), zca_whiten(X, 0.5, fit=fit, rank=5), atol=1e-12)
    assert np.allclose(fitted.shrunk_whiten(X), shrunk_whiten(X, fit=fit), atol=1e-12)
    with pytest.raises(ValueError, match="rank: eigenvalues|k: "):
        FittedRemedies(np.eye(4)).all_but_the_top(np.eye(4), 2)
