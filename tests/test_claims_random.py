"""Random knobs: each claim of research/claims.yaml checked at knob settings drawn at random.

Each test declares its ``SPACE``, wider than the ranges the notebooks show (seeds, sizes,
dimensions, the distribution of the start or of the noise, pooling, splits, kinds of text), draws
a fixed number of settings from it with a fixed seed, and checks the claim's statement at every
draw. What these draws found is written into the register as the claim's ``tried`` range; where
they broke a sentence, the sentence was narrowed. Every test here is marked ``exhaustive`` (run by
``.ci/run``, not by the default run); together they take a few minutes on one core.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from scipy import stats

from shared import (
    attention_seeds,
    attention_sequences,
    choose_remedy,
    cov_eigs,
    effective_rank,
    frequency_pull,
    layer_norm,
    make_isotropic,
    make_planted,
    mean_cosine,
    peak_label_variance_ratio,
    rich_get_richer_vectors,
    zipf_frequencies,
)

SEED = 20261204  # with each test's own name, fixes every draw (independent of the order tests run in)


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng([SEED, zlib.crc32(name.encode())])


def _seed(rng: np.random.Generator) -> int:
    return int(rng.integers(1000, 10**6))


# ----- 03 · attention ---------------------------------------------------------------------------

SPACE_03 = dict(seeds=(1000, 10**6), n=(40, 400), beta=(0.2, 0.6), offset=(0.0, 1.5), depth=(40, 120))


@pytest.mark.exhaustive
def test_random_03_broad_attention_ends_as_a_cone():
    """Broad attention (beta <= 0.6) ends every draw as a cone (mean cosine near 1), for any seed,
    length 40-400 tokens, offset 0-1.5 and depth 40-120 (the notebook: beta 0.6, 75 and 300 tokens,
    offsets 0 and 0.7, seeds 0-49)."""
    rng = _rng("03 cone")
    for _ in range(12):
        n, beta = int(rng.integers(*SPACE_03["n"])), float(rng.uniform(*SPACE_03["beta"]))
        offset, depth = float(rng.uniform(*SPACE_03["offset"])), int(rng.integers(*SPACE_03["depth"]))
        _, ends = attention_seeds([_seed(rng)], depth=depth, beta=beta, offset=offset, n=n)
        assert mean_cosine(ends[0]) > 0.9, (n, beta, offset, depth)


@pytest.mark.exhaustive
def test_random_03_a_chance_lean_can_become_an_offset():
    """From a centred start (beta 0.6, 120 layers), over 40 random seeds at each of 75, 150 and 300
    tokens: a run ending with a mean comparable to the spread (at least half its 1.414) happens, and
    is rare (at most one run in six at any length); none ends beyond a few times the spread. (The
    notebook: seeds 0-49, where 2 of 25 at 300 tokens pass the spread itself.)"""
    rng = _rng("03 offset")
    large = 0
    for n in (75, 150, 300):
        seeds = [_seed(rng) for _ in range(40)]
        _, ends = attention_seeds(seeds, depth=120, beta=0.6, offset=0.0, n=n)
        after = np.linalg.norm(ends.mean(axis=1), axis=1)
        assert np.sum(after > np.sqrt(2) / 2) <= 6 and after.max() < 6.0, (n, np.sort(after)[-3:])
        large += np.sum(after > np.sqrt(2) / 2)
    assert large >= 1


@pytest.mark.exhaustive
def test_random_03_only_a_shared_start_gives_a_shared_cone():
    """Sequences share a cone afterwards only when their starts shared a direction: with a shift of
    their own they stay unrelated across sequences, with a shared one they lean together. Random
    seeds, 4-24 sequences of 30-150 tokens, 2-8 dimensions, offsets 0.5-2 (the notebook: 16 of 100
    in 2-D, where the shared start ends above +0.9; in 7-D after 40 layers one draw ends at +0.64)."""
    rng = _rng("03 shared")
    for _ in range(8):
        kw = dict(sequences=int(rng.integers(4, 25)), n=int(rng.integers(30, 151)), d=int(rng.integers(2, 9)),
                  offset=float(rng.uniform(0.5, 2.0)), seed=_seed(rng))
        own = attention_sequences(shared=False, **kw).across()
        assert abs(own) < 0.35, kw
        assert attention_sequences(shared=True, **kw).across() > max(0.5, own + 0.3), kw


# ----- 04 · frequency -----------------------------------------------------------------------------

@pytest.mark.exhaustive
def test_random_04_the_pull_leaves_directions_alone():
    """A pull that only rescales tokens leaves every cosine as it was: any gamma below 1, Zipf
    exponent 0.5-2, 100-3,000 tokens in 5-200 dimensions, Gaussian, uniform or shifted starts."""
    rng = _rng("04 pull")
    for _ in range(20):
        n, d = int(rng.integers(100, 3001)), int(rng.integers(5, 201))
        start = [lambda: make_isotropic(n, d, rng=_seed(rng)),
                 lambda: np.random.default_rng(_seed(rng)).uniform(-1, 1, (n, d)),
                 lambda: make_isotropic(n, d, rng=_seed(rng)) + 2.0][int(rng.integers(3))]()
        freq = zipf_frequencies(n, float(rng.uniform(0.5, 2.0)))
        pulled = frequency_pull(start, freq, float(rng.uniform(0.0, 0.999)))
        assert mean_cosine(pulled) == pytest.approx(mean_cosine(start), abs=1e-10)


# ----- 05 · rich get richer -------------------------------------------------------------------------

UNIT_VARIANCE_STARTS = {
    "Gaussian": stats.norm(),
    "uniform": stats.uniform(-np.sqrt(3), 2 * np.sqrt(3)),
    "Laplace": stats.laplace(scale=1 / np.sqrt(2)),
    "logistic": stats.logistic(scale=np.sqrt(3) / np.pi),
    "Student t, 5 degrees": stats.t(5, scale=np.sqrt(3 / 5)),
}


@pytest.mark.exhaustive
def test_random_05_the_loop_cone_follows_the_starts_distribution():
    """Wherever the mean's direction wins, the loop ends with a mean cosine of (2F(mu/sigma) - 1)^2, F
    the start's own distribution function: five unit-variance distributions, mu/sigma 0.8-2.5,
    2,000-4,000 vectors in 10-50 dimensions (d/n at most 0.025), random seeds."""
    rng = _rng("05 start")
    names = sorted(UNIT_VARIANCE_STARTS)
    for _ in range(16):
        name = names[int(rng.integers(len(names)))]
        dist = UNIT_VARIANCE_STARTS[name]
        ratio, d = float(rng.uniform(0.8, 2.5)), int(rng.integers(10, 51))
        n = int(rng.integers(max(2000, 40 * d), 4001))
        X = dist.rvs(size=(n, d), random_state=np.random.default_rng(_seed(rng)))
        X[:, 0] += ratio
        loop = rich_get_richer_vectors(X)
        assert loop.winner_vs_mean > 0.9, (name, ratio, n, d)
        assert mean_cosine(loop.end) == pytest.approx((2 * dist.cdf(ratio) - 1) ** 2, abs=0.08), (name, ratio, n, d)


@pytest.mark.exhaustive
def test_random_05_without_a_dominant_mean_the_loop_makes_no_strong_cone():
    """A mean too small to dominate the second moment (mu/sigma 0-0.3) gives no strong cone: mean
    cosine below 0.1 at the end, 1,000-4,000 vectors in 20-80 dimensions, Gaussian or Laplace."""
    rng = _rng("05 line")
    for _ in range(10):
        d = int(rng.integers(20, 81))
        n = int(rng.integers(max(1000, 20 * d), 4001))
        dist = UNIT_VARIANCE_STARTS["Gaussian" if rng.random() < 0.5 else "Laplace"]
        X = dist.rvs(size=(n, d), random_state=np.random.default_rng(_seed(rng)))
        X[:, 0] += float(rng.uniform(0.0, 0.3))
        assert mean_cosine(rich_get_richer_vectors(X).end) < 0.1, (n, d)


@pytest.mark.exhaustive
def test_random_05_a_bias_makes_a_cone_and_a_gain_a_collapsed_spread():
    """One outlier LayerNorm entry, size 2-20, in 16-300 dimensions, 500-3,000 tokens, random seeds:
    a bias entry gives a mean cosine near b^2/(d + b^2) and leaves the spread round; a gain entry
    gives no offset and a top share near g^2/(g^2 + d - 1)."""
    rng = _rng("05 layernorm")
    for _ in range(12):
        d, n, size = int(rng.integers(16, 301)), int(rng.integers(500, 3001)), float(rng.uniform(2, 20))
        X = make_isotropic(n, d, rng=_seed(rng))
        bias, gain = np.zeros(d), np.ones(d)
        bias[0], gain[0] = size, size
        cone = layer_norm(X, bias=bias)
        assert mean_cosine(cone) == pytest.approx(size**2 / (d + size**2), abs=0.03), (d, n, size)
        spread = layer_norm(X, gain=gain)
        assert abs(mean_cosine(spread)) < 0.02, (d, n, size)
        lam = cov_eigs(spread)
        assert lam.max() / lam.sum() == pytest.approx(size**2 / (size**2 + d - 1), abs=0.05), (d, n, size)


# ----- 06 · which remedy ------------------------------------------------------------------------------

CLOUD_B = dict(signal_dims=8, separation=0.3, within=0.1, noise=1.0)
POWERS = [0.0, 0.25, 0.5, 0.75, 1.0]


def _thirds(X: np.ndarray, y: np.ndarray):
    t = len(X) // 3
    return choose_remedy(X[:t], X[t:2 * t], y[t:2 * t], X[2 * t:], y[2 * t:], ks=range(6), powers=POWERS)


@pytest.mark.exhaustive
def test_random_06_below_half_the_peak_ratio_whitening_wins():
    """The peak-ratio rule away from its band: wherever the peak ratio is below one half whitening
    wins, wherever it is far above one (1.2) all-but-the-top wins. Noise spectra j^-a with a in
    0-3.5, 40-120 dimensions, 1,500-3,000 points, random seeds. Between, the winner is recorded,
    not checked: "about three quarters" moves with the dimension (a draw at d = 87 with a peak
    ratio of 0.768 went to whitening)."""
    rng = _rng("06 rule")
    for _ in range(10):
        d, n = int(rng.integers(40, 121)), 3 * int(rng.integers(500, 1001))
        decay = float(rng.uniform(0.0, 3.5))
        planted = make_planted(n, d, rng=_seed(rng), noise_decay=decay, **CLOUD_B)
        peak, _ = peak_label_variance_ratio(planted.X[:n // 3], planted.signal)
        c = _thirds(planted.X, planted.labels)
        if peak < 0.5:
            assert c.winner == "whitening", (d, n, decay, peak, c)
        if peak > 1.2:
            assert c.winner == "all-but-the-top", (d, n, decay, peak, c)


@pytest.mark.exhaustive
def test_random_06_where_the_labels_live_decides():
    """Labels in strong directions: all-but-the-top beats whitening; labels far below the average
    variance: whitening wins. Random seeds, 30-100 dimensions, 1,500-3,000 points (notebook: 50-d,
    3,000 points, seeds 100-104)."""
    rng = _rng("06 where")
    for _ in range(6):
        d, n = int(rng.integers(30, 101)), 3 * int(rng.integers(500, 1001))
        a = make_planted(n, d, rng=_seed(rng))
        b = make_planted(n, d, rng=_seed(rng), **CLOUD_B)
        ca, cb = _thirds(a.X, a.labels), _thirds(b.X, b.labels)
        assert ca.abtt_auc > ca.whitening_auc, (d, n, ca)
        assert cb.winner == "whitening", (d, n, cb)


# ----- 07 · a real encoder: random splits, shares and pooling -------------------------------------

def _retrieval_changes(study, seed: int, fraction: float, pooling: str, layer: int = 3) -> dict[str, float]:
    """Top-1 retrieval at ``layer`` after each whitening minus with no remedy, on one random split."""
    from shared.meters import paraphrase_check
    from shared.real.corpus import split_halves
    from shared.real.encoder import sentence_embeddings
    from shared.real.encoder_study import REAL_REMEDIES, real_remedy
    from shared.remedies import FittedRemedies

    corpus, enc = study.corpus, study.enc
    pooled = sentence_embeddings(enc, layer) if pooling == "mean" else enc.states[layer][enc.starts]
    is_fit = split_halves(corpus, seed, fraction)
    held = np.flatnonzero(~is_fit)
    row = {sentence: i for i, sentence in enumerate(held)}
    pairs = np.array([[row[a], row[b]] for a, b in corpus.pairs if not is_fit[a]], dtype=np.int64)
    fitted = FittedRemedies(pooled[is_fit])
    top1 = {r: paraphrase_check(real_remedy(r, pooled[held], fitted), pairs).top1 for r in REAL_REMEDIES}
    return {r: top1[r] - top1["none"] for r in REAL_REMEDIES if r.startswith("whitening")}


@pytest.mark.exhaustive
def test_random_07_whitening_lowers_retrieval_at_layer_3_over_random_splits():
    """Random splits (seeds beyond the notebook's 0-19), fit shares 0.25-0.8, mean pooling: full-rank
    whitening lowers layer-3 top-1 in every draw, and every whitening lowers it in most draws, not
    necessarily in all. First-token pooling ([CLS]) is drawn too and only recorded: there a
    whitening can raise top-1."""
    from shared.real.encoder_study import real_study

    study = real_study()
    rng = _rng("07 retrieval")
    every = 0
    draws = 6
    for _ in range(draws):
        seed, fraction = _seed(rng), float(rng.uniform(0.25, 0.8))
        change = _retrieval_changes(study, seed, fraction, "mean")
        assert change["whitening"] < -0.05, (seed, fraction, change)
        every += all(v < 0 for v in change.values())
    assert every >= draws // 2, every
    first = _retrieval_changes(study, _seed(rng), 0.5, "first")  # measured: full -0.215, k = 128 +0.005, shrunk +0.048
    assert first["whitening"] < 0 and max(first.values()) > -0.02, first


# ----- 08 · GloVe: random fit rows, D and bootstrap seeds ---------------------------------------------

@pytest.mark.exhaustive
def test_random_08_all_but_the_top_on_glove_over_fit_rows():
    """All-but-the-top fitted on the first N rows, N log-uniform in 5,000-400,000 (the notebook: eight
    values), D from 1 to 3, bootstrap seeds at random: relatedness (WordSim-353) gains in every draw;
    similarity (SimLex-999) at D = 2 is clear of 0 wherever N is 150,000 or more."""
    from shared import FittedRemedies
    from shared.real.glove import WORD_BENCHMARKS, glove_matrix, glove_words, word_pairs, word_similarity_change

    words, E = glove_words(), glove_matrix()
    benchmarks = [word_pairs(name) for name in WORD_BENCHMARKS]
    row_of = {w: r for r, w in enumerate(words)}
    rows = sorted({row_of[w.lower()] for p in benchmarks for w in p.first + p.second if w.lower() in row_of})
    V, vocabulary = np.asarray(E[rows], dtype=np.float64), [words[r] for r in rows]
    rng = _rng("08 rows")
    for _ in range(6):
        last, D = int(np.exp(rng.uniform(np.log(5_000), np.log(400_000)))), int(rng.integers(1, 4))
        fitted = FittedRemedies(E[:last])
        Y = fitted.all_but_the_top(V, D)
        changes = {p.name: word_similarity_change(V, Y, vocabulary, p, rng=_seed(rng), resamples=300)
                   for p in benchmarks}
        assert changes["WordSim-353"].change > 0.02, (last, D, changes)
        if D == 2 and last >= 150_000:
            assert changes["SimLex-999"].low > 0, (last, D, changes)


# ----- 09 · a real decoder: kinds of text and lengths --------------------------------------------------

def _texts(rng: np.random.Generator) -> dict[str, str]:
    """Four kinds of text: the course's sentences, the outside text, lists of numbers, Python code."""
    from pathlib import Path

    from shared.real.corpus import load_corpus
    from shared.real.outside import load_outside_text

    corpus = list(load_corpus().sentences)
    start = int(rng.integers(0, len(corpus) - 200))
    code = (Path(__file__).resolve().parent.parent / "shared" / "meters" / "paraphrase.py").read_text(encoding="utf-8")
    return {
        "course sentences": " ".join(corpus[start:start + 200]),
        "outside text": " ".join(load_outside_text()),
        "numbers": ", ".join(str(int(v)) for v in rng.integers(0, 10_000, 2_000)),
        "code": code,
    }


@pytest.mark.exhaustive
def test_random_09_the_sink_and_the_cone_over_kinds_and_lengths_of_text():
    """One input of 20 to 300 tokens cut from each of four kinds of text (the course's sentences, the Python
    reference's prose, lists of numbers, Python code), one pass: in every input the first token
    draws many times the attention of an even spread in most blocks from 4 on (the sink), and the
    other tokens share a cone at layer 15. How many blocks give it more than half their attention
    is recorded, not checked: it depends on the text and its length."""
    from shared.real.decoder import hidden_states, load_smollm, tokenize

    rng = _rng("09 texts")
    model = load_smollm()
    texts = _texts(rng)
    ids, settings = [], []
    for kind, text in texts.items():
        (tokens,), _ = tokenize([text], model)
        for length in rng.choice([20, 50, 100, 200, 300], size=1):
            offset = int(rng.integers(0, max(1, len(tokens) - length)))
            ids.append(tokens[offset:offset + int(length)])
            settings.append((kind, int(length)))
    run = hidden_states(model, ids)
    bounds = np.concatenate([[0], np.cumsum([len(t) for t in ids])])
    for n, (kind, length) in enumerate(settings):
        share = np.nanmean(run.first_attention_each[n], axis=1)[3:]  # blocks 4-30, averaged over heads
        uniform = float(np.mean(1.0 / (np.arange(2, length) + 1.0)))
        assert np.median(share) > 3 * uniform, (kind, length, share)
        rest = run.states[15][bounds[n] + 1:bounds[n + 1]].astype(np.float64)
        assert mean_cosine(rest) > 0.3, (kind, length)


@pytest.mark.exhaustive
def test_random_04_likelihood_training_gives_the_rare_tokens_a_cone_that_uniform_frequencies_do_not():
    """Tied embeddings trained by likelihood: with a Zipf law (exponent 0.8-2) the rare half leans
    together by step 1,600; with every token equally frequent (exponent 0, the same settings) it
    does not. Vocabularies of 96-256 tokens, 6-16 dimensions, random seeds (the notebook: 128
    tokens, 8 dimensions, seeds 0-4)."""
    from shared import band_rows, degeneration_run

    rng = _rng("04 training")
    for _ in range(4):
        kw = dict(vocab=int(rng.integers(96, 257)), d=int(rng.integers(6, 17)), seed=_seed(rng), checkpoints=(1600,))
        rare = band_rows(kw["vocab"], "rare")
        zipf = degeneration_run(exponent=float(rng.uniform(0.8, 2.0)), **kw)
        flat = degeneration_run(exponent=0.0, **kw)
        assert mean_cosine(zipf.emb[-1][rare]) > 0.3, kw
        assert abs(mean_cosine(flat.emb[-1][rare])) < 0.1, kw


@pytest.mark.exhaustive
def test_random_04_the_learning_rate_only_sets_the_clock():
    """Two runs whose learning rates differ by a factor of 2 to 5, read at the same training time
    (learning rate x steps), agree on the rare half's mean cosine: learning rates 0.05-0.1 against
    2 to 5 times that, vocabularies of 96-160 tokens, 6-10 dimensions, times 100-400, random seeds (the notebook: 0.05
    against 0.25, 128 tokens, 8 dimensions, seeds 0-2)."""
    from shared import band_rows, degeneration_run

    rng = _rng("04 clock")
    for _ in range(3):
        kw = dict(vocab=int(rng.integers(96, 161)), d=int(rng.integers(6, 11)), seed=_seed(rng))
        slow = float(rng.uniform(0.05, 0.1))
        fast = slow * float(rng.uniform(2.0, 5.0))
        time = float(rng.uniform(100, 400))
        rare = band_rows(kw["vocab"], "rare")
        cosines = [mean_cosine(degeneration_run(lr=lr, checkpoints=(round(time / lr),), **kw).emb[-1][rare])
                   for lr in (slow, fast)]
        assert abs(cosines[0] - cosines[1]) < 0.1, (kw, slow, fast, time, cosines)
