import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared import (
    angular_std,
    attention_run,
    attention_seeds,
    attention_step,
    cone_lifetime,
    effective_rank,
    frequency_pull,
    make_isotropic,
    rich_get_richer_run,
    rich_get_richer_step,
    softmax_rows,
    zipf_frequencies,
)


@given(st.integers(0, 2**32 - 1), st.floats(-800, 800))
def test_softmax_rows_is_stochastic_and_shift_invariant(seed, shift):
    S = np.random.default_rng(seed).standard_normal((6, 9)) * 50
    A = softmax_rows(S)
    assert np.all(A >= 0) and np.allclose(A.sum(axis=1), 1)
    assert np.allclose(softmax_rows(S + shift), A)


def test_softmax_rows_does_not_overflow_and_keeps_its_input():
    S = np.array([[1000.0, 0.0], [-1000.0, -1000.0]])
    copy = S.copy()
    assert np.allclose(softmax_rows(S), [[1.0, 0.0], [0.5, 0.5]])
    assert np.array_equal(S, copy)


@given(st.integers(0, 2**32 - 1), st.floats(0, 5), st.floats(0, 1))
def test_attention_step_stays_in_the_convex_hull(seed, beta, alpha):
    X = np.random.default_rng(seed).standard_normal((40, 2)) + [1.0, 0.5]
    Y = attention_step(X, beta, alpha)
    assert np.all(Y.min(axis=0) >= X.min(axis=0) - 1e-12)  # the bounding box can only shrink
    assert np.all(Y.max(axis=0) <= X.max(axis=0) + 1e-12)


def test_spec_figures_of_the_attention_run():
    run = attention_run()
    assert f"{run.mean_cos[0]:.3f}" == "0.270"
    assert f"{run.mean_cos[39]:.3f}" == "0.999"
    assert run.angular_std[39] < run.angular_std[0]


def test_a_shallow_run_extended_equals_a_deep_run():
    deep = attention_run(12, beta=1.3)
    grown = attention_run(3, beta=1.3).extend(12)
    assert np.array_equal(np.array(deep.mean_cos), np.array(grown.mean_cos))
    assert np.array_equal(deep.clouds[-1], grown.clouds[-1])


def test_angular_std_wraps_around_pi():
    angles = np.array([np.pi - 0.1, -np.pi + 0.1])
    X = np.column_stack([np.cos(angles), np.sin(angles)])
    assert angular_std(X) == pytest.approx(0.1)


def test_zipf_frequencies():
    f = zipf_frequencies(100, 1.0)
    assert f.sum() == pytest.approx(1) and np.all(np.diff(f) < 0)
    assert f[0] / f[9] == pytest.approx(10)
    assert np.allclose(zipf_frequencies(5, 0.0), 0.2)


def test_frequency_pull_shrinks_by_the_documented_factor():
    emb = np.ones((4, 3))
    freq = np.array([0.4, 0.3, 0.2, 0.1])
    out = frequency_pull(emb, freq, 0.9)
    assert np.allclose(out[:, 0], 1 - 0.9 * np.sqrt(freq / 0.4))


def test_spec_figures_of_the_frequency_pull():
    emb = frequency_pull(make_isotropic(1200, 50, 4), zipf_frequencies(1200, 1.0), gamma=0.9)
    norms = np.linalg.norm(emb, axis=1)
    assert (f"{norms[0]:.2f}", f"{norms[-1]:.2f}") == ("0.72", "6.31")


@given(st.lists(st.floats(0.2, 5), min_size=2, max_size=30), st.floats(0, 1))
def test_rich_get_richer_keeps_the_mean_and_favours_the_rich(lam, eta):
    lam = np.array(lam)
    new = rich_get_richer_step(lam, eta)
    assert new.mean() == pytest.approx(1.0)
    assert new.max() / new.sum() >= lam.max() / lam.sum() - 1e-12
    assert np.array_equal(np.argsort(new, kind="stable"), np.argsort(lam, kind="stable"))


def test_spec_figures_of_the_rich_get_richer_run():
    history = rich_get_richer_run()
    assert history.shape == (61, 50)
    assert (f"{effective_rank(history[0]):.1f}", f"{effective_rank(history[-1]):.1f}") == ("49.9", "1.0")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: attention_step(np.ones((3, 2)), beta=-1.0), "beta"),
        (lambda: attention_step(np.ones((3, 2)), alpha=2.0), "alpha"),
        (lambda: attention_run(depth=-1), "depth"),
        (lambda: angular_std(np.ones((3, 3))), "2-D clouds"),
        (lambda: frequency_pull(np.ones((3, 2)), np.ones(2)), "freq: expected one frequency per row"),
        (lambda: frequency_pull(np.ones((2, 2)), np.zeros(2)), "not all zero"),
        (lambda: rich_get_richer_step(np.array([1.0, -1.0])), "non-negative"),
        (lambda: zipf_frequencies(0), "vocab"),
        (lambda: rich_get_richer_run(d=0), "d: must lie in"),
        (lambda: rich_get_richer_run(eta=-0.1, steps=0), "eta"),
        (lambda: angular_std(np.zeros((3, 2))), "every point is at the origin"),
        (lambda: softmax_rows(np.array([[np.inf, 0.0]])), "S: contains NaN or infinite"),
        (lambda: attention_seeds([], depth=1), "seeds: expected at least one seed"),
        (lambda: attention_seeds([0], n=1), "n"),
        (lambda: cone_lifetime(lr=0.0, times=(1,)), "lr: expected a positive"),
        (lambda: cone_lifetime(lr=0.25, times=(10.1,)), "whole number of steps"),
        (lambda: cone_lifetime(times=(2, 1)), "times: expected increasing"),
        (lambda: cone_lifetime(vocab=16, times=(1,), corpus=100000), "never a target"),
    ],
)
def test_bad_input_raises_a_named_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ----- bad and extreme input -----------------------------------------------------------------------


def test_attention_run_names_its_own_arguments():
    with pytest.raises(ValueError, match=r"^n: must lie in \[2, inf\]"):
        attention_run(n=1)  # it used to say "X: needs at least 2 rows"
    with pytest.raises(TypeError, match="^depth: expected an int"):
        attention_run(depth=2.5)
    with pytest.raises(TypeError, match="^seed: expected"):
        attention_run(seed="4")


def test_softmax_rows_of_scores_wider_than_the_float_range():
    S = np.array([[1.7e308, -1.7e308, 1.7e308], [0.0, 1.0, 2.0]])
    with np.errstate(all="raise"):  # nothing overflows on the way
        A = softmax_rows(S)
    assert np.allclose(A, [[0.5, 0.0, 0.5], softmax_rows(S[1:])[0]])


@given(st.integers(-900, 900))
def test_rich_get_richer_and_angles_do_not_depend_on_the_scale(k):
    lam = np.array([1.2, 1.0, 0.9, 0.3, 0.0])
    assert np.array_equal(rich_get_richer_step(np.ldexp(lam, k)), rich_get_richer_step(lam))
    X = np.random.default_rng(1).standard_normal((30, 2)) + [1.0, 0.5]
    assert angular_std(np.ldexp(X, k)) == angular_std(X)
