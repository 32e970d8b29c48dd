from dataclasses import fields, is_dataclass

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from shared import (
    all_meters,
    basis_isotropy,
    calls_isotropic,
    cosine_terms,
    cov_eigs,
    cross_group_cosines,
    effective_rank,
    entropy_rank,
    isoscore,
    make_cone,
    mean_cosine,
    meter_table,
    numerical_rank,
    paraphrase_check,
    paraphrase_cosines,
    partition_isotropy,
    random_cosines,
    random_rotation,
    rank_collapse,
    spearman,
    uniformity,
    zca_whiten,
)
from shared.meters import table_meters
from tests.conftest import gaussian_cloud

seeds = st.integers(0, 2**32 - 1)
shapes = st.tuples(st.integers(20, 200), st.integers(2, 12))
spectra = st.lists(st.floats(0, 1e6, allow_nan=False), min_size=1, max_size=40).filter(lambda v: sum(v) > 0)


# ----- the spec's figures, at the course's seeds -------------------------------------------


def test_spec_figures_of_the_reference_clouds(clouds):
    X_iso, X_cone = clouds
    assert f"{partition_isotropy(X_iso):.3f}" == "0.690"
    assert f"{partition_isotropy(X_cone):.3f}" == "0.000"
    assert f"{effective_rank(cov_eigs(X_iso)):.1f}" == "48.8"
    assert f"{effective_rank(cov_eigs(X_cone)):.1f}" == "2.3"
    frac = lambda e: np.round(e[:5] / e.sum(), 3).tolist()  # noqa: E731
    assert frac(cov_eigs(X_iso)) == [0.027, 0.025, 0.025, 0.025, 0.025]
    assert frac(cov_eigs(X_cone)) == [0.661, 0.009, 0.009, 0.009, 0.009]
    rng = np.random.default_rng(2)
    c_iso, c_cone = random_cosines(X_iso, rng), random_cosines(X_cone, rng)
    assert (f"{c_iso.mean():+.3f}", f"{c_iso.std():.3f}") == ("-0.003", "0.143")
    assert (f"{c_cone.mean():+.3f}", f"{c_cone.std():.3f}") == ("+0.845", "0.112")


# ----- partition isotropy -------------------------------------------------------------------


@given(seeds, shapes, st.floats(1, 30), st.floats(0, 3))
def test_partition_isotropy_is_in_unit_interval_and_invariant(seed, shape, aniso, shift):
    X = gaussian_cloud(seed, *shape, anisotropy=aniso, shift=shift)
    value = partition_isotropy(X)
    assert 0.0 <= value <= 1.0
    rng = np.random.default_rng(seed)
    Q = random_rotation(X.shape[1], rng)
    assert partition_isotropy(X @ Q) == pytest.approx(value, rel=1e-7, abs=1e-12)
    assert partition_isotropy(X[rng.permutation(len(X))]) == pytest.approx(value, rel=1e-9, abs=1e-12)
    assert partition_isotropy(1e-3 * X) == pytest.approx(value, rel=1e-9, abs=1e-12)
    assert partition_isotropy(1e3 * X) == pytest.approx(value, rel=1e-9, abs=1e-12)


@given(seeds, shapes)
def test_partition_isotropy_ignores_eigenvector_signs(seed, shape):
    X = gaussian_cloud(seed, *shape, anisotropy=5.0, shift=1.0)
    _, V = np.linalg.eigh(X.T @ X)
    signs = np.random.default_rng(seed).choice([-1.0, 1.0], size=X.shape[1])
    assert partition_isotropy(X, directions=V * signs) == pytest.approx(partition_isotropy(X, directions=V))
    assert partition_isotropy(X, directions=V) == pytest.approx(partition_isotropy(X))


def test_partition_isotropy_does_not_overflow_at_any_scale():
    X = gaussian_cloud(0, 100, 5, shift=2.0)
    for scale in (1e-150, 1e150):
        assert np.isfinite(partition_isotropy(scale * X))
    assert partition_isotropy(1e3 * X, rescale=False) == 0.0  # raw: exp would overflow, log-sum-exp does not


def test_partition_isotropy_without_rescaling_depends_on_scale(clouds):
    X_iso, _ = clouds
    small, big = partition_isotropy(0.01 * X_iso, rescale=False), partition_isotropy(10 * X_iso, rescale=False)
    assert small > 0.99 and big < 0.01


def test_partition_isotropy_refuses_a_degenerate_eigenbasis(clouds):
    _, X_cone = clouds
    with pytest.raises(ValueError, match="eigenvectors are not unique"):
        partition_isotropy(zca_whiten(X_cone))


def test_zero_eigenvalues_are_harmless():
    rng = np.random.default_rng(1)
    X = np.hstack([rng.standard_normal((300, 3)), np.zeros((300, 4))])  # 4 empty directions
    assert 0 < partition_isotropy(X) < 1


def test_basis_isotropy_spread_for_a_whitened_cloud(clouds):
    _, X_cone = clouds
    spread = basis_isotropy(zca_whiten(X_cone), 6, bases=20)
    assert spread.shape == (20,)
    assert np.all((0.9 < spread) & (spread < 1.0))
    assert spread.max() - spread.min() > 0.01  # the estimator really does depend on the basis


def test_basis_isotropy_matches_explicit_directions():
    X = gaussian_cloud(2, 100, 4, shift=0.5)
    Q = random_rotation(4, np.random.default_rng(9))
    assert basis_isotropy(X, np.random.default_rng(9), bases=1)[0] == pytest.approx(
        partition_isotropy(X, directions=Q)
    )


# ----- cosines ------------------------------------------------------------------------------


@given(seeds, shapes, st.floats(0, 5))
def test_cosines_lie_in_unit_interval_and_terms_add_up(seed, shape, shift):
    X = gaussian_cloud(seed, *shape, shift=shift)
    cos = random_cosines(X, seed, m=500)
    assert np.all((-1 <= cos) & (cos <= 1))
    assert np.allclose(cosine_terms(X, seed, m=500).sum(axis=1), cos)


def test_zero_rows_are_left_out_as_if_removed():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, 2.0], [3.0, 3.0]])
    nonzero = X[[1, 3, 4]]
    assert np.array_equal(random_cosines(X, 0, m=300), random_cosines(nonzero, 0, m=300))
    assert np.array_equal(cosine_terms(X, 0, m=300), cosine_terms(nonzero, 0, m=300))
    assert mean_cosine(X) == mean_cosine(nonzero)
    assert uniformity(X) == uniformity(nonzero)
    with pytest.raises(ValueError, match="X: has 1 non-zero row and 2 zero rows; a zero row has no direction"):
        random_cosines(X[:3], 0)


def test_cosine_of_a_cloud_along_one_ray_is_one():
    X = np.outer(np.arange(1, 11), [1.0, 2.0, -1.0])
    assert np.allclose(random_cosines(X, 1, m=50), 1.0)


# ----- ranks, IsoScore, uniformity -----------------------------------------------------------


@given(spectra)
def test_ranks_are_bounded(eigs):
    pr, er = effective_rank(eigs), entropy_rank(eigs)
    d = len(eigs)
    assert 1 - 1e-9 <= pr <= d + 1e-9
    assert 1 - 1e-9 <= er <= d + 1e-9
    assert pr <= er + 1e-9


@given(spectra, st.floats(1e-6, 1e6))
def test_ranks_are_scale_invariant(eigs, scale):
    assume(max(eigs) > 1e-290)  # a scaled subnormal spectrum underflows to all zeros (refused)
    assert effective_rank(np.array(eigs) * scale) == pytest.approx(effective_rank(eigs))
    assert entropy_rank(np.array(eigs) * scale) == pytest.approx(entropy_rank(eigs))


@pytest.mark.parametrize("k, d", [(1, 5), (3, 10), (50, 50)])
def test_k_equal_directions_give_rank_k(k, d):
    eigs = np.r_[np.full(k, 2.5), np.zeros(d - k)]
    assert effective_rank(eigs) == pytest.approx(k)
    assert entropy_rank(eigs) == pytest.approx(k)


@given(seeds, shapes, st.floats(1, 30))
def test_isoscore_is_a_rescaled_participation_ratio(seed, shape, aniso):
    X = gaussian_cloud(seed, *shape, anisotropy=aniso)
    d = X.shape[1]
    assert isoscore(X) == pytest.approx((effective_rank(cov_eigs(X)) - 1) / (d - 1), abs=1e-9)
    assert 0 <= isoscore(X) <= 1


@pytest.mark.parametrize("k, d", [(1, 6), (3, 6), (6, 6)])
def test_isoscore_of_k_equal_directions(k, d):
    X = np.vstack([np.eye(d)[:k], -np.eye(d)[:k]])  # +-e_j for the first k axes: equal spread on k
    assert np.allclose(cov_eigs(X)[:k], 1.0 / k) and np.allclose(cov_eigs(X)[k:], 0.0)
    assert isoscore(X) == pytest.approx((k - 1) / (d - 1))


@given(seeds, shapes, st.floats(0, 3))
def test_uniformity_bounds(seed, shape, shift):
    X = gaussian_cloud(seed, *shape, shift=shift)
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    cos = (U @ U.T)[np.triu_indices(len(X), 1)]
    value = uniformity(X)
    assert -4.0 - 1e-12 <= value <= 0.0
    assert value >= -4.0 + 4.0 * cos.mean() - 1e-9  # Jensen


def test_uniformity_of_one_direction_is_zero():
    assert uniformity(np.outer(np.arange(1.0, 9.0), [3.0, 4.0])) == pytest.approx(0.0, abs=1e-12)


def test_all_meters_names_every_meter(clouds):
    X_iso, _ = clouds
    values = all_meters(X_iso)
    readings = values.readings()
    assert [r.label for r in readings] == ["partition I", "mean cosine", "effective rank", "entropy rank", "IsoScore",
                                           "uniformity"]
    assert all(np.isfinite(r.value) for r in readings)
    assert list(values.values) == [m.name for m in table_meters()]
    assert str(readings[2]) == f"effective rank = {values.effective_rank:.1f}"


@given(seeds, st.integers(3, 60), st.integers(1, 6), st.floats(-3, 3))
def test_mean_cosine_is_the_mean_over_all_distinct_pairs(seed, n, d, shift):
    X = np.random.default_rng(seed).standard_normal((n, d)) + shift
    X[0] = 0.0  # a zero row has no direction: the pairs are those of the other rows
    U = X[1:] / np.linalg.norm(X[1:], axis=1, keepdims=True)
    C = U @ U.T
    assert mean_cosine(X) == pytest.approx(C[~np.eye(n - 1, dtype=bool)].mean(), abs=1e-12)


def test_meter_table_names_each_failure(clouds):
    X_iso, X_cone = clouds
    u = np.eye(50)[0]
    table = meter_table({"sphere": X_iso, "cone": X_cone, "shifted": X_iso + 3.0,
                         "line": np.outer(np.random.default_rng(0).standard_normal(2000), u)})
    assert [row.failure for row in table.rows] == [
        "neither", "cone + collapsed spread", "cone", "collapsed spread"]
    assert list(table.baselines) == [(2000, 50)]
    assert table.row("cone").meters.mean_cosine > 0.8 and table.row("cone").gaussian == table.baselines[2000, 50]
    text = str(table)
    assert "(Gaussian, n = 2,000, d = 50)" in text and "collapsed spread" in text
    assert "partition I at least 0.5 x the Gaussian's" in text.replace("\n", " ")  # the rules, printed with it
    assert calls_isotropic("uniformity", -3.2, -3.6) and not calls_isotropic("uniformity", -3.0, -3.6)
    with pytest.raises(ValueError, match="meter: expected one of"):
        calls_isotropic("IsoScore", 0.5, 0.9)
    with pytest.raises(ValueError, match="name: no cloud called 'ball'"):
        table.row("ball")
    with pytest.raises(ValueError, match="clouds: expected at least one cloud"):
        meter_table({})
    with pytest.raises(TypeError, match="clouds: expected a mapping"):
        meter_table([X_iso])
    with pytest.raises(ValueError, match=r"clouds\['bad'\]: expected a 2-D array"):
        meter_table({"bad": np.ones(3)})


# ----- bad input ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: partition_isotropy(np.ones(5)), "X: expected a 2-D array"),
        (lambda: partition_isotropy(np.array([[1.0, np.nan], [0.0, 1.0]])), "X: contains NaN"),
        (lambda: partition_isotropy(np.array([[1.0, 2.0]])), "X: needs at least 2 rows"),
        (lambda: partition_isotropy(np.zeros((4, 3))), "X: every entry is zero"),
        (lambda: partition_isotropy(np.ones((4, 3)), directions=np.ones((2, 2))), "directions: expected 3 rows"),
        (lambda: partition_isotropy(np.eye(3) + 1, directions=np.ones((3, 1))), "unit vector"),
        (lambda: random_cosines(np.ones((1, 3)), 0), "at least 2 rows"),
        (lambda: random_cosines(np.ones((4, 3)), 0, m=0), "m: must lie in"),
        (lambda: random_cosines(np.ones((4, 3)), 1.5), (TypeError, "rng: expected")),
        (lambda: cov_eigs(np.ones((1, 3))), "at least 2 rows"),
        (lambda: cov_eigs(np.array([["a", "b"], ["c", "d"]])), (TypeError, "X: expected real numbers")),
        (lambda: effective_rank(np.ones((2, 2))), "eigs: expected a 1-D spectrum"),
        (lambda: effective_rank([1.0, -0.5]), "non-negative"),
        (lambda: effective_rank([0.0, 0.0]), "all eigenvalues are zero"),
        (lambda: entropy_rank([]), "empty"),
        (lambda: isoscore(np.ones((5, 1))), "at least 2 dimensions"),
        (lambda: isoscore(np.ones((5, 3))), "X: all points coincide"),
        (lambda: uniformity(np.array([[0.0, 0.0], [1.0, 1.0]])), "non-zero"),
        (lambda: basis_isotropy(np.ones((4, 3)), 0, bases=0), "bases: must lie in"),
    ],
)
def test_bad_input_raises_a_named_error(call, message):
    error, message = message if isinstance(message, tuple) else (ValueError, message)
    with pytest.raises(error, match=message):
        call()


# ----- task scores ----------------------------------------------------------------------------


def test_pair_auc_extremes():
    from shared import pair_auc

    labels = np.repeat([0, 1], 50)
    separated = np.where(labels[:, None] == 0, [1.0, 0.0], [0.0, 1.0]) + 0.01 * np.random.default_rng(0).standard_normal((100, 2))
    assert pair_auc(separated, labels, 1) == pytest.approx(1.0)
    noise = np.random.default_rng(2).standard_normal((2000, 5))
    assert pair_auc(noise, np.arange(2000) % 2, 3) == pytest.approx(0.5, abs=0.02)
    ties = np.ones((20, 3))  # every cosine equal: ties count one half
    assert pair_auc(ties, np.arange(20) % 2, 4) == pytest.approx(0.5)


def test_knn_accuracy_on_separated_and_random_labels():
    from shared import knn_accuracy

    rng = np.random.default_rng(5)
    centres = np.eye(3) * 5
    y_ref, y = rng.integers(0, 3, 300), rng.integers(0, 3, 100)
    X_ref, X = centres[y_ref] + rng.standard_normal((300, 3)), centres[y] + rng.standard_normal((100, 3))
    assert knn_accuracy(X_ref, y_ref, X, y) > 0.95
    assert knn_accuracy(X_ref, rng.permutation(y_ref), X, y) < 0.6


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: __import__("shared").pair_auc(np.eye(4), np.zeros(4, int), 0), "same-label and different-label"),
        (lambda: __import__("shared").pair_auc(np.eye(4), np.array([0.5, 1, 0, 1]), 0), (TypeError, "labels: expected integers")),
        (lambda: __import__("shared").knn_accuracy(np.eye(3), np.arange(3), np.eye(4), np.arange(4)), "columns like X_ref"),
        (lambda: __import__("shared").knn_accuracy(np.eye(3), np.arange(3), np.eye(3), np.arange(3), k=4), "k: must lie in"),
    ],
)
def test_task_scores_refuse_bad_input(call, message):
    error, message = message if isinstance(message, tuple) else (ValueError, message)
    with pytest.raises(error, match=message):
        call()


# ----- meters for notebook 07 ----------------------------------------------------------------


@given(seeds, st.integers(2, 6))
def test_cross_group_cosines_equal_the_brute_force_mean(seed, n_groups):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((40, 5)) + rng.standard_normal(5)
    groups = np.sort(rng.integers(0, n_groups, 40))
    assume(len(np.unique(groups)) > 1)
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    other = groups[:, None] != groups[None, :]
    terms = cross_group_cosines(X, groups)
    assert terms.shape == (5,)
    assert terms.sum() == pytest.approx((U @ U.T)[other].mean(), abs=1e-12)
    per_coordinate = np.einsum("ik,jk->kij", U, U)[:, other].mean(axis=1)
    assert np.allclose(terms, per_coordinate)


def test_cross_group_cosines_of_a_shared_offset():
    # Every row is the same unit vector e_0: every pair has cosine 1, all of it on coordinate 0.
    X = np.tile([2.0, 0.0, 0.0], (6, 1))
    assert np.allclose(cross_group_cosines(X, np.array([0, 0, 1, 1, 2, 2])), [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="same group"):
        cross_group_cosines(X, np.zeros(6, dtype=int))


def test_rank_collapse_closed_forms():
    rng = np.random.default_rng(0)
    assert rank_collapse(np.outer(rng.standard_normal(7), rng.standard_normal(4))) == pytest.approx(0.0, abs=1e-7)
    assert rank_collapse(np.eye(5)) == pytest.approx(np.sqrt(1 - 1 / 5))
    X = rng.standard_normal((9, 6))
    Q = random_rotation(6, 1)
    assert rank_collapse(X @ Q) == pytest.approx(rank_collapse(X))  # rotation invariant
    assert rank_collapse(3.0 * X) == pytest.approx(rank_collapse(X))  # scale invariant
    with pytest.raises(ValueError, match="all entries are zero"):
        rank_collapse(np.zeros((3, 2)))


def test_paraphrase_check_on_clear_and_on_shuffled_pairs():
    rng = np.random.default_rng(1)
    centres = rng.standard_normal((6, 20))
    S = np.repeat(centres, 2, axis=0) + 0.05 * rng.standard_normal((12, 20))
    pairs = np.arange(12).reshape(6, 2)
    clear = paraphrase_check(S, pairs)
    assert clear.auc == 1.0 and clear.top1 == 1.0
    assert clear.paraphrase_cosine > 0.99 > clear.unrelated_cosine
    para, unrelated = paraphrase_cosines(S, pairs)
    assert (len(para), len(unrelated)) == (6, 12 * 11 // 2 - 6)
    wrong = paraphrase_check(S, np.array([[0, 2], [1, 4], [3, 6], [5, 8], [7, 10], [9, 11]]))
    assert wrong.auc < 0.5 and wrong.top1 == 0.0
    with pytest.raises(ValueError, match="distinct row indices"):
        paraphrase_check(S, np.array([[0, 1], [1, 2]]))


def _resample_by_hand(S, pairs, counts):
    """The paraphrase AUC of one bootstrap resample, built literally: each pair repeated as often as
    drawn, unrelated pairs between every two drawn copies of *different* pairs."""
    from shared.meters import auc

    U = S / np.linalg.norm(S, axis=1, keepdims=True)
    drawn = np.repeat(np.arange(len(pairs)), counts)
    para = [U[a] @ U[b] for a, b in pairs[drawn]]
    unrelated = [U[a] @ U[b] for x in range(len(drawn)) for y in range(x + 1, len(drawn))
                 if drawn[x] != drawn[y] for a in pairs[drawn[x]] for b in pairs[drawn[y]]]
    return auc(np.array(para), np.array(unrelated))


def _noisy_pairs(seed, P=10, extra=6, noise=0.9):
    rng = np.random.default_rng(seed)
    S = rng.standard_normal((2 * P + extra, 6))
    pairs = np.arange(2 * P).reshape(P, 2)
    S[pairs[:, 1]] = S[pairs[:, 0]] + noise * rng.standard_normal((P, 6))
    return S, pairs, np.arange(2 * P, 2 * P + extra).reshape(-1, 2)


@given(seeds)
@settings(max_examples=10, deadline=None)
def test_bootstrap_draws_are_the_check_recomputed_on_each_resample(seed):
    S, pairs, traps = _noisy_pairs(seed)
    check = paraphrase_check(S, pairs, traps, rng=seed, resamples=20)
    counts = np.random.default_rng(seed).multinomial(len(pairs), np.full(len(pairs), 1 / len(pairs)), size=20)
    for b in range(3):
        assert check.draws["auc"][b] == pytest.approx(_resample_by_hand(S, pairs, counts[b]), abs=1e-12)
    # top-1: each drawn pair's two sentences, searched among all rows of S, once per draw
    C = S @ S.T / np.outer(np.linalg.norm(S, axis=1), np.linalg.norm(S, axis=1))
    np.fill_diagonal(C, -np.inf)
    hits = (C[pairs[:, 0]].argmax(axis=1) == pairs[:, 1]).astype(int) + (C[pairs[:, 1]].argmax(axis=1) == pairs[:, 0])
    assert np.allclose(check.draws["top1"], counts @ hits / (2 * len(pairs)))
    assert set(check.draws) == {"auc", "top1", "trap_auc"}


def test_bootstrap_intervals_bracket_the_figure_and_pair_two_checks():
    S, pairs, traps = _noisy_pairs(3, P=30, extra=10)
    check = paraphrase_check(S, pairs, traps, rng=0, resamples=400)
    for name in ("auc", "top1", "trap_auc"):
        low, high = check.interval(name)
        assert 0.0 <= low <= getattr(check, name) <= high <= 1.0
        narrow = check.interval(name, level=0.5)
        assert low <= narrow[0] <= narrow[1] <= high
        assert check.interval(name, minus=check) == (0.0, 0.0)  # a check minus itself, resample by resample
    # same seed, same pairs: the resamples are the same, so rescaling S (which changes no cosine) changes nothing
    again = paraphrase_check(3.0 * S, pairs, traps, rng=0, resamples=400)
    assert all(np.array_equal(check.draws[k], again.draws[k]) for k in check.draws)
    assert again.interval("auc", minus=check) == (0.0, 0.0)
    with pytest.raises(ValueError, match="^minus: was resampled differently"):
        check.interval("auc", minus=paraphrase_check(S, pairs, traps, rng=1, resamples=400))
    with pytest.raises(ValueError, match="no bootstrap draws"):
        paraphrase_check(S, pairs).interval("auc")
    with pytest.raises(ValueError, match="no 'trap_auc'"):
        paraphrase_check(S, pairs, rng=0, resamples=10).interval("trap_auc")
    with pytest.raises(ValueError, match="^name: expected one of"):
        check.interval("top5")
    with pytest.raises(ValueError, match="^level: expected a probability strictly between 0 and 1"):
        check.interval("auc", level=1.0)


def test_a_wider_test_set_gives_a_narrower_interval():
    widths = []
    for P in (10, 40):
        S, pairs, _ = _noisy_pairs(5, P=P, extra=0, noise=1.2)
        low, high = paraphrase_check(S, pairs, rng=0, resamples=400).interval("auc")
        widths.append(high - low)
    assert widths[1] < widths[0]


def test_negation_traps_are_scored_against_paraphrases():
    rng = np.random.default_rng(2)
    base = rng.standard_normal((8, 10))
    S = np.vstack([base, base + 0.01 * rng.standard_normal((8, 10))])  # 8 traps: near-identical pairs
    paraphrases = rng.standard_normal((12, 10))
    paraphrases[1::2] = paraphrases[::2] + 0.5 * rng.standard_normal((6, 10))
    S = np.vstack([S, paraphrases])
    pairs, traps = 16 + np.arange(12).reshape(6, 2), np.column_stack([np.arange(8), np.arange(8, 16)])
    check = paraphrase_check(S, pairs, traps)
    assert check.trap_auc == 0.0 and check.trap_cosine > 0.99  # every trap beats every paraphrase
    assert [r.label for r in check.readings()][-1] == "AUC against traps"
    with pytest.raises(ValueError, match="^traps: share rows with pairs"):
        paraphrase_check(S, pairs, np.array([[16, 0], [1, 2]]))
    with pytest.raises(ValueError, match=r"^traps: expected an integer array of shape \(P, 2\) with P >= 2"):
        paraphrase_check(S, pairs, np.array([[0, 8]]))


@given(seeds)
def test_spearman_is_a_rank_statistic(seed):
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal(30), rng.standard_normal(30)
    rho = spearman(x, y)
    assert -1.0 <= rho <= 1.0
    assert spearman(np.exp(x), y**3) == pytest.approx(rho)  # increasing transformations
    assert spearman(x, -y) == pytest.approx(-rho)
    assert spearman(x, 2 * x + 1) == pytest.approx(1.0)


def test_spearman_with_ties_matches_the_textbook_value():
    # ranks of x: 1, 2.5, 2.5, 4; ranks of y: 1, 2, 3, 4 -> Pearson of ranks = 0.9486833
    assert spearman([1, 2, 2, 3], [10, 20, 30, 40]) == pytest.approx(3 / np.sqrt(10))
    with pytest.raises(ValueError, match="constant"):
        spearman([1, 1, 1], [1, 2, 3])
    with pytest.raises(ValueError, match="same length"):
        spearman([1, 2], [1, 2, 3])


def test_numerical_rank_counts_occupied_directions():
    assert numerical_rank([4.0, 1e-3, 1e-14, 0.0]) == 2
    assert numerical_rank(1e6 * np.array([4.0, 1e-3, 1e-14, 0.0])) == 2  # scale-free
    assert numerical_rank([1.0, 1e-14], rtol=1e-15) == 2
    X = np.random.default_rng(2).standard_normal((100, 5))
    X -= X.mean(axis=1, keepdims=True)  # rows sum to zero: one direction is empty
    assert numerical_rank(cov_eigs(X)) == 4


# ----- magnitudes, kinds of input and clouds with no spread --------------------------------------

SCALE_FREE = {
    "IsoScore": isoscore,
    "partition I": partition_isotropy,
    "uniformity": uniformity,
    "rank collapse": rank_collapse,
    "random cosines": lambda X: random_cosines(X, 0, m=200),
    "cosine terms": lambda X: cosine_terms(X, 0, m=50),
    "pair AUC": lambda X: __import__("shared").pair_auc(X, np.arange(len(X)) % 3, 1, m=300),
    "kNN accuracy": lambda X: __import__("shared").knn_accuracy(
        X[::2], np.arange(0, len(X), 2) % 3, X, np.arange(len(X)) % 3, k=3
    ),
    "cross-group cosines": lambda X: cross_group_cosines(X, np.arange(len(X)) % 4),
    "all meters": all_meters,
}


def _outcome(meter, X):
    """The meter's value, or the type and message of the error it raises."""
    try:
        return meter(X)
    except (ValueError, TypeError) as error:
        return type(error), str(error)


def _same(a, b) -> bool:
    if is_dataclass(a):
        return type(a) is type(b) and all(_same(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    if isinstance(a, dict):
        return all(_same(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return a == b
    return np.array_equal(a, b, equal_nan=True)


@given(seeds, shapes, st.integers(-900, 900))
def test_scale_free_meters_are_exactly_scale_free_at_any_magnitude(seed, shape, k):
    # Multiplying by 2**k is exact, and every scale-free meter computes on its input divided by a
    # power of two: the value is the same bit for bit, from 2**-900 (1e-271) to 2**900 (1e271).
    X = gaussian_cloud(seed, *shape, anisotropy=5.0, shift=1.0)
    for name, meter in SCALE_FREE.items():
        assert _same(meter(np.ldexp(X, k)), meter(X)), name


@given(seeds, shapes, st.floats(-150, 150))
def test_scale_free_meters_agree_at_decimal_scales_from_1e_150_to_1e150(seed, shape, log_scale):
    X = gaussian_cloud(seed, *shape, anisotropy=5.0, shift=1.0)
    scaled = X * 10.0**log_scale  # rounds every entry once: the values agree to rounding
    for name in ("IsoScore", "partition I", "uniformity", "rank collapse", "random cosines"):
        assert SCALE_FREE[name](scaled) == pytest.approx(SCALE_FREE[name](X), rel=1e-9, abs=1e-12), name


@pytest.mark.parametrize("scale", [1e-200, 1e-150, 1e-90, 1e78, 1e100, 1e150, 1e200])
def test_scale_free_meters_at_the_magnitudes_that_used_to_break_them(scale):
    # IsoScore was wrong from 1e78 up and 1.0 below 1e-90; partition isotropy was 1.0 at 1e200;
    # cosines, pair AUC and kNN were zeros or chance at 1e+-200; 1e-200 was "every entry is zero".
    from shared import knn_accuracy, pair_auc

    X = gaussian_cloud(3, 120, 6, anisotropy=4.0, shift=1.0)
    y = np.arange(120) % 3
    X[y == 1] += 2.0  # labels that cosines can see
    for meter in (isoscore, partition_isotropy, uniformity, rank_collapse):
        assert meter(scale * X) == pytest.approx(meter(X), rel=1e-9)
    assert np.allclose(random_cosines(scale * X, 0), random_cosines(X, 0), rtol=1e-9, atol=1e-12)
    assert pair_auc(scale * X, y, 0) == pytest.approx(pair_auc(X, y, 0), abs=1e-6)
    assert knn_accuracy(scale * X[:60], y[:60], scale * X[60:], y[60:]) == knn_accuracy(X[:60], y[:60], X[60:], y[60:])


@given(seeds, shapes, st.sampled_from([np.float16, np.float32, np.int32, np.int64]))
def test_every_input_dtype_is_computed_in_float64(seed, shape, dtype):
    X = gaussian_cloud(seed, *shape, anisotropy=3.0, shift=1.0)
    low = (8 * X).astype(dtype)
    assume(not np.isinf(low).any())
    for name, meter in SCALE_FREE.items():
        assert _same(_outcome(meter, low), _outcome(meter, low.astype(np.float64))), name
    assert np.array_equal(cov_eigs(low), cov_eigs(low.astype(np.float64)))


@pytest.mark.parametrize("bad", [np.ones((5, 3), dtype=bool), np.ones((5, 3)) + 1j, np.ones((5, 3)).astype(object),
                                 np.full((5, 3), "1.0")])
def test_bool_complex_object_and_text_clouds_are_type_errors(bad):
    for meter in (isoscore, cov_eigs, partition_isotropy, uniformity, rank_collapse):
        with pytest.raises(TypeError, match="^X: expected real numbers"):
            meter(bad)


def _constant_clouds():
    """Clouds whose points all coincide: exactly, and up to rounding (as a mechanism leaves them)."""
    from shared import attention_step

    rng = np.random.default_rng(0)
    yield np.tile([0.1, 1 / 3, -7.0], (2000, 1))
    yield np.tile(rng.standard_normal(50) * 1e-7, (300, 1))
    yield np.ones((5, 3))
    # One attention step with uniform weights (beta = 0) moving all the way (alpha = 1) puts every
    # token on the mean: a constant cloud, up to rounding.
    yield attention_step(rng.standard_normal((300, 2)) + [0.7, 0.4], beta=0.0, alpha=1.0)
    yield attention_step(rng.standard_normal((1000, 50)), beta=0.0, alpha=1.0)


@pytest.mark.parametrize("C", list(_constant_clouds()), ids=["0.1,1/3,-7", "tiny", "ones", "attention 2-D", "attention 50-D"])
def test_a_cloud_with_no_spread_is_refused_not_scored_from_rounding(C):
    # Before: IsoScore 0.0 (or 0.031 after the attention step), effective rank 1.0, entropy rank 1.0.
    assert np.array_equal(cov_eigs(C), np.zeros(C.shape[1]))
    assert numerical_rank(cov_eigs(C)) == 0
    with pytest.raises(ValueError, match="eigs: all eigenvalues are zero"):
        effective_rank(cov_eigs(C))
    with pytest.raises(ValueError, match="eigs: all eigenvalues are zero"):
        entropy_rank(cov_eigs(C))
    for meter in (all_meters,) + ((isoscore,) if C.shape[1] > 1 else ()):
        with pytest.raises(ValueError, match=r"^X: all points coincide \(up to rounding\)"):
            meter(C)


@given(seeds, st.integers(2, 200), st.integers(2, 20), st.floats(-100, 100))
def test_constant_clouds_at_any_position_and_size_are_refused(seed, n, d, log_size):
    rng = np.random.default_rng(seed)
    C = np.tile(rng.standard_normal(d) * 10.0**log_size, (n, 1))
    C += rng.integers(-1, 2, C.shape) * np.spacing(C)  # and moved by up to one ulp
    with pytest.raises(ValueError, match="X: all points coincide"):
        isoscore(C)
    assert not np.any(cov_eigs(C))


def test_a_needle_thin_cone_is_a_valid_cloud():
    # Its 49 small eigenvalues differ from one another; only compared with the huge top one did
    # they look equal ("12 eigenvalues of X^T X coincide").
    X = make_cone(500, 50, np.random.default_rng(0), strength=20, residual=0.001)
    assert 0.0 <= partition_isotropy(X) < 0.01


@given(seeds, st.floats(1, 100), st.floats(-4, -1))
def test_needle_cones_of_any_strength_are_valid(seed, strength, log_residual):
    X = make_cone(300, 20, seed, strength=strength, residual=10.0**log_residual)
    assert 0.0 <= partition_isotropy(X) <= 1.0


@given(seeds, st.integers(40, 300), st.integers(2, 12), st.floats(1, 50), st.floats(-3, 3))
def test_a_whitened_cloud_is_refused_at_any_scale(seed, n, d, aniso, log_scale):
    X = zca_whiten(gaussian_cloud(seed, n, d, anisotropy=aniso, shift=2.0)) * 10.0**log_scale
    with pytest.raises(ValueError, match=f"X: {d} eigenvalues of X\\^T X coincide"):
        partition_isotropy(X)


def test_a_repeated_eigenvalue_inside_the_spectrum_is_refused():
    X = zca_whiten(gaussian_cloud(4, 400, 5)) @ np.diag([3.0, 2.0, 2.0, 1.0, 0.5])
    with pytest.raises(ValueError, match="X: 2 eigenvalues of X\\^T X coincide"):
        partition_isotropy(X)


def test_one_point_has_no_isotropy_to_measure():
    # It used to score 0.011: exp(-2 sqrt(d)), a number that depends on d alone.
    with pytest.raises(ValueError, match="X: needs at least 2 rows"):
        partition_isotropy(gaussian_cloud(0, 1, 5))


def test_rescale_must_be_a_bool():
    with pytest.raises(TypeError, match="rescale: expected True or False"):
        partition_isotropy(gaussian_cloud(0, 10, 3), rescale="no")


def test_knn_labels_are_classes_not_array_sizes():
    # A label of 10**9 used to size a vote array by it (hundreds of GiB).
    from shared import knn_accuracy

    rng = np.random.default_rng(5)
    y_ref, y = rng.integers(0, 3, 300), rng.integers(0, 3, 100)
    X_ref, X = np.eye(3)[y_ref] * 5 + rng.standard_normal((300, 3)), np.eye(3)[y] * 5 + rng.standard_normal((100, 3))
    big = 10**9
    assert knn_accuracy(X_ref, big * y_ref + 7, X, big * y + 7) == knn_accuracy(X_ref, y_ref, X, y)


def test_knn_ties_go_to_the_earlier_reference_rows():
    from shared import knn_accuracy

    X_ref = np.array([[1.0, 0.0]] * 4)  # every cosine ties
    assert knn_accuracy(X_ref, np.array([1, 1, 0, 0]), np.array([[2.0, 0.0]]), np.array([1]), k=2) == 1.0
    assert knn_accuracy(X_ref, np.array([0, 0, 1, 1]), np.array([[2.0, 0.0]]), np.array([1]), k=2) == 0.0


def test_cosines_equal_up_to_rounding_tie_in_rankings():
    from shared import pair_auc

    rng = np.random.default_rng(1)
    C = np.tile(rng.standard_normal(8), (40, 1))
    C += rng.integers(-1, 2, C.shape) * np.spacing(C)  # every direction the same, up to rounding
    assert pair_auc(C, np.arange(40) % 2, 0) == 0.5
    check = paraphrase_check(C, np.arange(8).reshape(4, 2))
    assert check.auc == 0.5


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: paraphrase_check(np.ones((12, 3)) * np.nan, np.arange(12).reshape(6, 2)), ValueError, "^S: contains NaN"),
        (lambda: paraphrase_check(np.ones(12), np.arange(12).reshape(6, 2)), ValueError, "^S: expected a 2-D array"),
        (lambda: paraphrase_cosines(np.eye(12), np.arange(12).reshape(6, 2) + 0.5), TypeError, "^pairs: expected integers"),
        (lambda: spearman([1.0, 2.0, 3.0], [1, 2]), ValueError, "^y: expected the same length as x"),
        (lambda: spearman([1, 2, 3], [5, 5, 5]), ValueError, "^y: is constant"),
        (lambda: spearman([True, False], [1, 2]), TypeError, "^x: expected real numbers, got booleans"),
        (lambda: numerical_rank([1.0, 0.5], rtol=float("nan")), ValueError, "^rtol: "),
        (lambda: effective_rank([1.0, 2.0 + 1j]), TypeError, "^eigs: expected real numbers, got complex"),
        (lambda: __import__("shared").knn_accuracy(np.eye(3), np.arange(3), np.eye(3)[:2], np.arange(3)), ValueError,
         "^y: expected 2 labels, one per row of X"),
        (lambda: __import__("shared").knn_accuracy(np.eye(3), np.arange(3), np.eye(3), np.arange(3), k=4), ValueError,
         r"^k: must lie in \[1, 3\] \(at most the number of rows of X_ref\)"),
    ],
)
def test_errors_name_the_public_argument(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_meter_table_marks_an_undefined_meter_instead_of_crashing():
    from shared import make_isotropic, zca_whiten

    X = zca_whiten(make_isotropic(500, 6, 0))  # X^T X is a multiple of the identity: partition I undefined
    table = meter_table({"whitened": X, "raw": make_isotropic(500, 6, 1)})
    row = table.row("whitened")
    assert np.isnan(row.meters.partition_isotropy) and row.isotropic["partition_isotropy"] is None
    assert row.isotropic["effective_rank"] is True and row.failure == "neither"
    assert "undefined ?" in str(table)
