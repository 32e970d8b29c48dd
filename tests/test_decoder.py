"""The numpy decoder (SmolLM2-135M-Instruct from its GGUF file) and notebook 09's measurements."""

from __future__ import annotations

import numpy as np
import pytest

from shared import cov_eigs, cross_group_cosines, effective_rank
from shared.real.decoder import (
    Decoded,
    decode,
    hidden_states,
    load_smollm,
    reference_difference,
    rms_norm,
    rotary,
    tokenize,
)
from shared.real.models import GGUF_NAME, gguf_path
from shared.real.decoder_study import (
    LEAVE_OUT,
    SUN_MAGNITUDE,
    SUN_RATIO,
    decoder_point,
    decoder_profile,
    decoder_remedies,
    decoder_study,
    largest_entry_ratio,
    vocabulary_cone,
)


@pytest.fixture(scope="module")
def model():
    return load_smollm()


# ----- the file and its quantization ----------------------------------------------------------


def _q4_1(raw: np.ndarray) -> np.ndarray:
    """Q4_1 written out from the block format: per 32 weights, fp16 scale d, fp16 minimum m, then 16
    bytes whose low nibbles are weights 0..15 and high nibbles weights 16..31; w = d * q + m."""
    blocks = raw.reshape(-1, 20)
    d = blocks[:, 0:2].copy().view(np.float16).astype(np.float32)
    m = blocks[:, 2:4].copy().view(np.float16).astype(np.float32)
    q = blocks[:, 4:]
    nibbles = np.concatenate([q & 0x0F, q >> 4], axis=1).astype(np.float32)
    return (d * nibbles + m).reshape(raw.shape[0], -1)


def _q8_0(raw: np.ndarray) -> np.ndarray:
    """Q8_0: per 32 weights, an fp16 scale d and 32 signed bytes q; w = d * q."""
    blocks = raw.reshape(-1, 34)
    d = blocks[:, 0:2].copy().view(np.float16).astype(np.float32)
    q = blocks[:, 2:].copy().view(np.int8).astype(np.float32)
    return (d * q).reshape(raw.shape[0], -1)


def test_q4_1_dequantization_matches_a_decoder_written_from_the_block_format(model):
    # transformers dequantizes with the gguf package too, so the reference cannot catch a wrong
    # dequantizer: check it here on the first rows of three matrices against the format itself.
    for name in ("blk.0.attn_q.weight", "blk.17.ffn_down.weight", "blk.29.attn_v.weight"):
        t = model.quantized[name]
        assert t.tensor_type.name == "Q4_1"
        rows = np.asarray(t.data[:3])
        ours = _q4_1(rows)
        assert np.array_equal(ours, model.matrix(name)[:3])
        assert len(np.unique(np.rint((ours[0, :32] - ours[0, :32].min()) / np.ptp(ours[0, :32]) * 15))) <= 16


def test_q8_0_token_embeddings_match_a_decoder_written_from_the_block_format(model):
    import gguf

    reader = gguf.GGUFReader(str(gguf_path()))
    t = next(t for t in reader.tensors if t.name == "token_embd.weight")
    assert t.tensor_type.name == "Q8_0"
    rows = [0, 504, 49151]
    assert np.array_equal(_q8_0(np.asarray(t.data[rows])), model.embeddings[rows])


def test_architecture_read_from_the_file(model):
    cfg = model.config
    assert gguf_path().name == GGUF_NAME
    assert (model.n_layers, cfg["embedding_length"], cfg["attention.head_count"], cfg["attention.head_count_kv"],
            cfg["feed_forward_length"]) == (30, 576, 9, 3, 1536)
    assert model.embeddings.shape == (49152, 576) and model.embeddings.dtype == np.float32
    assert model.matrix("blk.0.attn_k.weight").shape == (192, 576)
    assert cfg["add_bos_token"] is False
    with pytest.raises(ValueError, match="name: no quantized matrix"):
        model.matrix("blk.99.attn_q.weight")


# ----- against the independent implementation ---------------------------------------------------


def test_matches_the_reference_implementation(model):
    # PyTorch + transformers on the same GGUF file (scripts/make_decoder_reference.py): token ids
    # equal, and every hidden state within 1e-3 of its root mean square. An absolute tolerance
    # would mislead: states reach tens of thousands on one coordinate (the measured absolute
    # difference, about 0.02, sits on such an entry).
    check = reference_difference(model)
    assert check.relative < 1e-3
    assert check.layers == (0, 1, 2, 3, 15, 29, 30) and check.tokens == 37


def test_tokenizer_adds_no_bos_and_splits_digits(model):
    ids, tokens = tokenize(["The cat sat on the mat.", "I paid 42 dollars."], model)
    assert ids[0].tolist() == [504, 2644, 2643, 335, 260, 1171, 30]
    assert tokens[1] == ["I", "Ġpaid", "Ġ", "4", "2", "Ġdollars", "."]
    assert model.config["bos_token_id"] not in np.concatenate(ids)
    assert model.tokenizer.decode(ids[1].tolist()) == "I paid 42 dollars."


# ----- properties of the forward pass -----------------------------------------------------------


def test_attention_is_causal_and_stays_within_a_sentence(model):
    a, b = "Glaciers carve deep valleys.", "Why is the sky blue during the day?"
    both = decode([a, b], model).enc
    alone = decode([b], model).enc
    assert np.allclose(both.states[:, both.sentence == 1], alone.states, rtol=1e-4, atol=1e-3)
    ids, _ = tokenize([b], model)
    prefix = hidden_states(model, [ids[0][:4]]).states  # a token never sees the tokens after it
    assert np.allclose(prefix, alone.states[:, :4], rtol=1e-4, atol=1e-3)


def test_rms_norm_gives_unit_root_mean_square_and_keeps_an_offset():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 12)) + 4.0
    y = rms_norm(x, np.ones(12), 1e-12)
    assert np.allclose(np.sqrt(np.mean(y**2, axis=1)), 1.0)
    assert np.all(y.mean(axis=1) > 0.9)  # unlike LayerNorm, the shared offset survives
    assert np.allclose(rms_norm(3.0 * x, np.full(12, 2.0), 1e-12), 2.0 * y)


@pytest.mark.parametrize("eps", [0.0, -1e-5, float("nan"), float("inf")])
def test_rms_norm_refuses_an_eps_that_is_not_above_zero(eps):
    with pytest.raises(ValueError, match="eps: expected a finite number above 0"):
        rms_norm(np.zeros((2, 4)), np.ones(4), eps)


def test_rms_norm_keeps_a_row_of_zeros_finite():
    assert np.array_equal(rms_norm(np.zeros((2, 4)), np.ones(4), 1e-5), np.zeros((2, 4)))


def test_typed_marker_text_is_text_unless_the_chat_template_is_asked_for(model):
    text = ["<|im_start|>user Hello<|im_end|>"]
    plain, plain_tokens = tokenize(text, model)
    chat, chat_tokens = tokenize(text, model, chat_template=True)
    special = {model.config["bos_token_id"], model.vocab.index("<|im_end|>")}
    assert not special & set(plain[0].tolist())  # typed text never becomes a control token
    assert plain_tokens[0][:3] == ["<", "|", "im"]
    assert chat[0][0] == model.config["bos_token_id"] and special <= set(chat[0].tolist())
    assert model.tokenizer.decode(plain[0].tolist()) == text[0]
    assert np.array_equal(decode(text, model).enc.ids, plain[0])  # decode reads text as text too


def test_bos_is_prepended_only_when_asked(model):
    (without,), _ = tokenize(["Rivers flood."], model)
    (with_bos,), (tokens,) = tokenize(["Rivers flood."], model, bos=True)
    assert with_bos[0] == model.config["bos_token_id"] and np.array_equal(with_bos[1:], without)
    assert tokens[0] == "<|im_start|>"


@pytest.mark.parametrize("seed", range(3))
def test_rotary_keeps_norms_and_scores_depend_on_relative_position_only(seed):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, 1, 64))
    assert np.allclose(np.linalg.norm(rotary(q[None], np.array([7]), 1e5)), np.linalg.norm(q))
    def score(p, r):
        return float(rotary(q[None], np.array([p]), 1e5)[0, 0] @ rotary(k[None], np.array([r]), 1e5)[0, 0])
    assert np.isclose(score(3, 1), score(12, 10)) and np.isclose(score(0, 0), float(q[0] @ k[0]))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda m: hidden_states(m, []), "at least one sentence"),
        (lambda m: hidden_states(m, [np.array([1, 60000])]), "outside the vocabulary"),
        (lambda m: hidden_states(m, [np.array([], dtype=int)]), "1 to 8192 tokens"),
        (lambda m: decode([], m), "non-empty list"),
        (lambda m: decode(["fine", " "], m), "non-empty string"),
        (lambda m: decoder_point(3, "everything"), "leave_out: expected one of"),
        (lambda m: rms_norm(np.ones((2, 4)), np.ones(3), 1e-5), "gain: expected one value per coordinate"),
        (lambda m: rms_norm(np.ones((2, 4)), np.ones(4), -1.0), "eps: expected a finite number above 0"),
        (lambda m: rms_norm(np.ones((2, 4)), np.ones(4), 0.0), "eps: expected a finite number above 0"),
        (lambda m: rotary(np.ones((1, 3, 5)), np.arange(3), 1e4), "even width"),
        (lambda m: rotary(np.ones((1, 3, 4)), np.arange(2), 1e4), "positions: expected one position per row"),
    ],
)
def test_bad_input_raises_a_named_value_error(model, call, message):
    with pytest.raises(ValueError, match=message):
        call(model)


def test_a_single_sentence_must_be_wrapped_in_a_list(model):
    with pytest.raises(TypeError, match="wrap one sentence in a list"):
        decode("One sentence.", model)


def test_largest_entry_ratio_is_small_for_a_gaussian_and_large_for_a_massive_entry():
    X = np.random.default_rng(0).standard_normal((2000, 50))
    assert 5 < largest_entry_ratio(X) < 10
    X[0, 3] = 1e4
    assert largest_entry_ratio(X) > 1e3


# ----- notebook 09's measurements ----------------------------------------------------------------


@pytest.fixture(scope="module")
def profile():
    return decoder_profile()


def test_the_study_is_every_third_sentence_without_bos(profile):
    study = decoder_study()
    assert isinstance(study.dec, Decoded)
    assert len(study.rows) == 228 and study.first.sum() == 228 and profile.tokens == 2306
    assert np.array_equal(np.flatnonzero(study.first), study.dec.enc.starts)


def test_vocabulary_is_a_cone_tightest_among_rare_types():
    vocab = vocabulary_cone()
    assert f"{vocab.mean_cosine:+.3f}" == "+0.442"
    assert np.all(np.diff(vocab.band_mean_cosine) > 0)  # later BPE ids: a tighter cone
    assert vocab.cone_rho < -0.7 and vocab.norm_rho < -0.7  # rare word types lean together, and are longer
    assert vocab.bin_mean_cosine[0] > 0.6 > 0.15 > vocab.bin_mean_cosine[4]


def test_three_coordinates_carry_the_cone_in_every_middle_layer(profile):
    middle = slice(2, 30)
    assert np.all(profile.mean_cosine[middle] > 0.5)
    assert np.all(profile.rogue_share[middle] > 0.85)
    assert all(507 in top for top in profile.rogue[middle])
    assert np.allclose(profile.coordinate_terms.sum(axis=1), profile.mean_cosine_rest)
    share = profile.coordinate_terms / profile.mean_cosine_rest[:, None]
    assert np.all((share[2:25, 507] > 0.4) & (share[2:25, 507] < 0.8))  # about half up to layer 24
    assert share[29, 17] > 0.9 and share[29, 507] < 0.05  # coordinate 17 takes over from layer 25
    assert np.all(profile.mean_cosine_trimmed[middle] < 0.15)
    assert np.all(np.abs(profile.mean_cosine - profile.mean_cosine_rest)[middle] < 0.09)  # at most 0.080
    assert 507 in profile.massive and len(profile.massive) == 19


def test_the_first_token_is_massive_and_an_attention_sink(profile):
    assert np.all(profile.largest[12:30] > 1000) and np.all(profile.largest_coordinate[2:] == 507)
    sun = (profile.largest >= SUN_RATIO) & (profile.largest_abs > SUN_MAGNITUDE)  # Sun et al.'s stricter rule
    assert np.array_equal(np.flatnonzero(sun), np.arange(12, 30))
    assert np.all(profile.largest_rest < SUN_RATIO)  # the "the" tokens pass only the course's 100x rule
    assert np.all(profile.effective_rank[12:30] < 1.05) and np.all(profile.effective_rank_rest[11:30] > 40)
    blocks = np.arange(1, 31)
    sink = (blocks >= 3) & ~np.isin(blocks, [11, 12])  # 11 and 12 read the layers where the entry is gone
    assert np.all(profile.first_attention[sink] > 2 * profile.uniform_first)
    assert np.median(profile.first_attention[sink]) > 0.6 and profile.first_attention[11] < profile.uniform_first


@pytest.mark.parametrize("seed", range(5))
def test_the_cone_and_its_coordinates_hold_in_every_quarter_of_the_sentences(seed):
    # The notebook's section 7 over seeds: each quarter of the sentences alone tells the same story.
    study = decoder_study()
    enc = study.dec.enc
    part = np.random.default_rng(seed).permutation(len(study.rows)) % 4
    for q in range(4):
        tokens = (part[enc.sentence] == q) & ~study.first
        for layer, low in ((2, 0.55), (15, 0.58), (29, 0.68)):
            terms = cross_group_cosines(enc.states[layer][tokens].astype(np.float64), enc.sentence[tokens])
            assert terms.sum() > low
            assert np.sort(terms)[::-1][:3].sum() / terms.sum() > 0.85


def test_explorer_points_agree_with_the_profile(profile):
    for layer in (0, 15, 30):
        assert np.isclose(decoder_point(layer, "nothing").mean_cosine, profile.mean_cosine[layer])
        assert np.isclose(decoder_point(layer, "the first token").mean_cosine, profile.mean_cosine_rest[layer])
        assert np.isclose(decoder_point(layer, "both").mean_cosine, profile.mean_cosine_trimmed[layer])
    point = decoder_point(15, LEAVE_OUT[2])
    assert point.coordinates == 576 - len(profile.massive) and 507 not in point.top
    assert np.isclose(point.hist.sum() * 2 / len(point.hist), 1.0)


# ----- notebook 09's views -------------------------------------------------------------------------


def _pixels(jpeg: bytes) -> np.ndarray:
    import io

    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(jpeg)).convert("RGB"), dtype=float)


def test_decoder_view_fast_redraw_matches_a_full_redraw():
    from shared.figures import DecoderView

    view = DecoderView(decoder_point(15, "nothing"))
    view.image()
    view.update(decoder_point(3, "both"))
    fast = _pixels(view.image())
    fresh = DecoderView(decoder_point(3, "both"))
    fresh.image()
    assert np.abs(fast - _pixels(fresh.full_image())).mean() < 1.0
    assert view.readings() == fresh.readings()
    assert [t.get_text() for t in view.labels] == [str(c) for c in decoder_point(3, "both").top]


def test_decoder_layers_view_draws_the_profile_without_warnings(profile):
    import warnings

    from shared.figures import DecoderLayersView
    from shared.real.decoder_study import encoder_side

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        view = DecoderLayersView(profile, encoder_side())
        assert view._repr_png_()[:8] == b"\x89PNG\r\n\x1a\n"
    lines = view.axes[0].get_lines()
    assert np.allclose(lines[0].get_xdata(), np.arange(31) / 30)
    assert np.allclose(lines[0].get_ydata(), profile.mean_cosine)
    assert np.allclose(lines[2].get_ydata(), profile.mean_cosine_trimmed)


def test_the_vocabulary_cone_is_measured_by_the_course_meter_over_every_token():
    """One home for the exact mean cosine: the vocabulary's figures are meters.mean_cosine of its rows."""
    from shared import mean_cosine

    vocab, E = vocabulary_cone(), load_smollm().embeddings
    assert vocab.types == len(E) and np.all(np.linalg.norm(E, axis=1) > 0), "no zero row: every type counts"
    assert vocab.band_mean_cosine[0] == mean_cosine(E[:1000].astype(np.float64))


# ----- another text, a BOS token, long inputs (notebook 09's section 8) ----------------------------

from shared.real.corpus import load_corpus  # noqa: E402
from shared.real.outside import (  # noqa: E402
    LONG_TOKENS,
    OUTSIDE_TEXT,
    SECOND_SINK,
    SETTINGS,
    _setting_profile,
    decoder_settings,
    load_outside_text,
    outside_study,
)


def test_the_outside_text_is_150_sentences_with_its_source_and_licence_named():
    sentences = load_outside_text()
    assert len(sentences) == 150 and len(set(sentences)) == 150
    header = "\n".join(line for line in OUTSIDE_TEXT.read_text(encoding="utf-8").splitlines() if line.startswith("#"))
    assert "Python Language Reference" in header and "pydoc_data/topics.py" in header and "PSF License" in header
    assert not set(sentences) & set(load_corpus().sentences)  # not the course's own sentences
    assert all(s[0].isupper() and s.endswith(".") and 8 <= len(s.split()) <= 30 for s in sentences)


def test_the_pass_keeps_each_inputs_attention_and_pools_it_by_its_queries(model):
    ids, _ = tokenize(["Glaciers carve deep valleys over many thousands of years.", "Why is it?", "No."], model)
    run = hidden_states(model, ids)
    later = np.array([max(len(t) - 2, 0) for t in ids])
    assert np.isnan(run.first_attention_each[2]).all()  # two tokens: no query at position 2 or later
    pooled = np.nansum(run.first_attention_each * later[:, None, None], axis=0) / later.sum()
    assert np.allclose(pooled, run.first_attention)
    alone = hidden_states(model, ids[:1]).first_attention
    assert np.allclose(run.first_attention_each[0], alone, atol=1e-6)


@pytest.fixture(scope="module")
def settings():
    return decoder_settings()


def test_the_cone_and_its_coordinates_hold_on_every_text_with_and_without_bos(settings):
    """Notebook 09's section 8: +0.5 and more across inputs in layers 2-29 in every setting; 507
    carries about half of it in layers 2-20 on short inputs, and more than 247 in layers 21-24."""
    assert tuple(settings) == SETTINGS
    for name, row in settings.items():
        assert row.mean_cosine_rest[2:30].min() > 0.5, name
        assert np.all(row.share_507[21:25] > row.share_247[21:25]), name
        if "300-token" not in name:
            assert 0.45 < row.share_507[2:21].min() and row.share_507[2:21].max() < 0.6, name


def test_one_later_massive_token_brings_the_effective_rank_back_to_one_direction(settings):
    """Without the first tokens the corpus and the outside sentences keep 30+ directions in layers
    11-29; adding the one outside sentence whose fifth token carries a massive entry collapses it."""
    for name in ("course corpus", "outside text", "outside text, BOS first", f"outside text, {LONG_TOKENS}-token inputs"):
        assert settings[name].effective_rank_rest[11:30].min() > 30, name
        assert settings[name].largest_rest[11:30].max() < 200, name  # no other token near Sun et al.'s 1,000
    plus = settings["outside text and its 8th sentence"]
    assert plus.effective_rank_rest[11:30].min() < 2 and plus.largest_rest[11:30].max() > 1000
    assert plus.largest_token[int(np.argmax(plus.largest_rest[11:30])) + 11] == "Ġand"


def test_most_blocks_sink_into_the_first_token_on_the_short_sentences_of_both_texts_not_on_the_long_inputs(settings):
    for name, row in settings.items():
        count = int(np.sum(row.first_attention[3:] > 0.5))
        if "300-token" in name:
            assert count < len(row.first_attention[3:]) // 2
            assert np.median(row.first_attention[3:]) > 10 * row.uniform_first  # the sink is still there
        else:
            assert count > 20, name


def test_after_the_final_rmsnorm_no_setting_reaches_gpt2s_top(settings):
    corpus = settings["course corpus"]
    assert corpus.final_norm_cosine < corpus.mean_cosine_rest[-1]  # measured alike, the gap widens
    assert all(row.final_norm_cosine < 0.8 for row in settings.values())


@pytest.mark.exhaustive  # long: decodes all 150 outside sentences twice and eight 300-token inputs; .ci/run runs it
def test_on_the_whole_outside_text_the_claims_stop_where_section_8_says():
    full = outside_study(every=1, inputs=8)
    plain, bos, long = (_setting_profile(n, d) for n, d in
                        (("plain", full.plain), ("bos", full.bos), ("long", full.long)))
    H = full.plain.enc.states[15]
    big = (np.abs(H).max(axis=1) > 1000 * np.median(np.abs(H))) & (full.plain.enc.word > 0)
    assert set(full.plain.enc.sentence[big].tolist()) == {SECOND_SINK}  # the one sentence with a second sink
    assert plain.effective_rank_rest[11:30].min() < 2
    assert bos.effective_rank_rest[11:30].min() > 30  # BOS first: its sentence 8 keeps no later sink
    assert np.sum(long.first_attention[3:] > 0.5) < len(long.first_attention[3:]) // 2
    for row in (plain, bos, long):
        assert row.mean_cosine_rest[2:30].min() > 0.5


def _perturbed(model, seed: int):
    """``model`` with every block weight moved by a uniform draw within half its Q4_1 step (the
    scale ``d`` of its block of 32): as far as the quantization itself may have moved it."""
    from shared.real.decoder import SmolLM

    class Perturbed(SmolLM):
        def matrix(self, name):
            W = super().matrix(name)
            d = self.quantized[name].data.reshape(-1, 20)[:, 0:2].copy().view(np.float16).astype(np.float32)
            step = np.repeat(d[:, 0], 32).reshape(W.shape)
            rng = np.random.default_rng([seed, sum(map(ord, name))])
            return W + (rng.uniform(-0.5, 0.5, W.shape) * step).astype(np.float32)

    return Perturbed(model.embeddings, model.norms, model.quantized, model.config, model.vocab, model.tokenizer)


@pytest.mark.exhaustive  # long: runs the decoder over the corpus twice more, with perturbed weights; .ci/run runs it
def test_under_half_step_weight_noise_the_cone_stays_and_a_later_massive_token_may_appear(model):
    """Section 8's last knob: the cone survives weight noise of half a quantization step, but which
    token turns massive moves with the weights, and with it the first-left-out effective rank."""
    study = decoder_study()
    ids, _ = tokenize([study.corpus.sentences[i] for i in study.rows], model)
    rest = np.concatenate([np.arange(len(t)) for t in ids]) > 0
    groups = np.repeat(np.arange(len(ids)), [len(t) for t in ids])[rest]
    collapsed = []
    for seed in (0, 1):
        states = hidden_states(_perturbed(model, seed), ids).states
        assert cross_group_cosines(states[15][rest].astype(np.float64), groups).sum() > 0.5
        rank = min(effective_rank(cov_eigs(H[rest].astype(np.float64))) for H in states[11:30])
        largest = max(np.abs(H[rest]).max() / np.median(np.abs(H)) for H in states[11:30])
        collapsed.append(rank < 10)
        assert (rank < 10) == (largest > 1000)  # the rank collapses exactly when a later token is massive
    assert collapsed == [False, True]


def test_other_tokens_pass_the_100_times_rule_in_layers_12_to_16_and_none_from_17_on(profile):
    # notebook 09, section 4: "In layers 12 to 16 one or two other tokens pass ... from layer 17 on none does"
    others = np.rint(profile.massive_rest * profile.rest).astype(int)
    assert np.all((others[12:17] >= 1) & (others[12:17] <= 2)) and not others[17:].any()
    assert np.all(profile.largest_rest[12:17] >= 100) and profile.largest_rest[12:17].max() < 200


def test_whitening_lifts_layer_3_with_its_first_tokens_kept_but_no_remedy_repairs_15_or_30():
    # notebook 09, section 5: with the massive first tokens kept, whitening lifts layer 3's effective rank
    # (1.1 to 48.2) but not to its value without them (132.6); at layers 15 and 30 every remedy leaves 1.0 to 1.3
    rows = {layer: {row.remedy: row for row in decoder_remedies(layer)} for layer in (3, 15, 30)}
    three = rows[3]
    assert three["none"].effective_rank < 1.5 < 20 < three["whitening"].effective_rank < three["whitening"].effective_rank_rest
    assert all(row.effective_rank < 1.5 for layer in (15, 30) for row in rows[layer].values())
    assert all(row.effective_rank_rest > 20 for layer in (15, 30) for row in rows[layer].values())
