"""The boundary checks: one policy for kinds of input, magnitudes and clouds with no spread."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared import _checks, cov_eigs, effective_rank, isoscore, make_isotropic
from tests.conftest import gaussian_cloud

seeds = st.integers(0, 2**32 - 1)


# ----- kinds of input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad, message",
    [
        (np.ones((4, 3), dtype=bool), "X: expected real numbers, got booleans"),
        (np.ones((4, 3)) + 0j, "X: expected real numbers, got complex"),
        (np.ones((4, 3)).astype(object), "X: expected real numbers, got dtype object"),
        (np.ones((4, 3)).astype(str), "X: expected real numbers, got dtype <U"),
        (None, "X: expected an array of real numbers, got None"),
    ],
)
def test_arrays_of_the_wrong_kind_raise_a_type_error_naming_the_argument(bad, message):
    with pytest.raises(TypeError, match=message):
        _checks.cloud(bad)


def test_integer_and_low_precision_arrays_are_computed_in_float64():
    X = gaussian_cloud(0, 50, 4, anisotropy=3.0, shift=1.0)
    for dtype in (np.float16, np.float32):
        low = X.astype(dtype)
        assert _checks.cloud(low).dtype == np.float64
        assert isoscore(low) == isoscore(low.astype(np.float64))  # the same numbers, in float64
    ints = np.round(10 * X).astype(np.int32)
    assert isoscore(ints) == isoscore(ints.astype(float))


def test_a_ragged_list_is_refused_by_name():
    with pytest.raises(ValueError, match="X: could not be read as a rectangular array"):
        _checks.cloud([[1.0, 2.0], [3.0]])


@pytest.mark.parametrize("value", [np.int64(3), np.array(3), np.uint8(3), 3])
def test_numpy_integers_and_0d_arrays_are_ints(value):
    assert _checks.integer(value, "k", 0) == 3


@pytest.mark.parametrize("value", [2.5, 3.0, True, np.bool_(True), "3", None, np.array([3]), float("nan")])
def test_anything_else_is_not_an_int(value):
    with pytest.raises(TypeError, match="k: expected an int"):
        _checks.integer(value, "k", 0)


@pytest.mark.parametrize("value", [np.float32(0.5), np.array(0.5), np.int64(1), 1])
def test_numpy_reals_and_0d_arrays_are_numbers(value):
    assert _checks.real(value, "beta") == float(value)


@pytest.mark.parametrize("value, error", [(True, TypeError), ("0.5", TypeError), (1j, TypeError),
                                          (float("nan"), ValueError), (float("inf"), ValueError)])
def test_real_refuses_non_numbers_and_non_finite_numbers(value, error):
    with pytest.raises(error, match="beta: "):
        _checks.real(value, "beta")


def test_seeds():
    assert isinstance(_checks.as_rng(np.array(5)), np.random.Generator)
    assert np.array_equal(make_isotropic(3, 2, np.int64(5)), make_isotropic(3, 2, 5))
    with pytest.raises(TypeError, match="None would give a different result"):
        _checks.as_rng(None)
    with pytest.raises(TypeError, match="rng: expected"):
        _checks.as_rng(np.random.RandomState(0))


# ----- magnitudes --------------------------------------------------------------------------------


@given(st.floats(min_value=5e-324, max_value=1.7e308))
def test_power_of_two_brings_the_largest_entry_into_one_two(top):
    scale = _checks.power_of_two(np.array([top, -top / 3]))
    assert 1.0 <= top / scale < 2.0
    assert np.frexp(scale)[0] == 0.5  # a power of two: dividing by it is exact


def test_variances_out_of_the_float_range_are_refused_not_inf_or_zero():
    X = gaussian_cloud(1, 30, 3)
    assert np.all(np.isfinite(cov_eigs(1e150 * X))) and cov_eigs(1e-150 * X).min() >= 0
    with pytest.raises(ValueError, match="X: its variances .* are outside the float64 range"):
        cov_eigs(1e200 * X)
    with pytest.raises(ValueError, match="X: its variances .* are outside the float64 range"):
        cov_eigs(1e-200 * X)


# ----- clouds with no spread ---------------------------------------------------------------------


@given(seeds, st.integers(2, 300), st.integers(1, 20), st.floats(-30, 30))
def test_a_constant_cloud_and_one_with_rounding_noise_have_no_spread(seed, n, d, log_size):
    rng = np.random.default_rng(seed)
    point = rng.standard_normal(d) * 10.0**log_size
    C = np.tile(point, (n, 1))
    assert _checks.flat(C)
    noisy = C + rng.integers(-1, 2, C.shape) * np.spacing(C)  # every entry moved by up to one ulp
    assert _checks.flat(noisy)
    assert np.array_equal(cov_eigs(noisy), np.zeros(d))  # exactly zero, not rounding noise


@given(seeds, st.integers(2, 300), st.integers(1, 20), st.floats(-12, 0))
def test_a_cloud_with_real_spread_has_spread(seed, n, d, log_spread):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal(d) + 10.0**log_spread * rng.standard_normal((n, d))
    assert not _checks.flat(X)


def test_a_constant_coordinate_is_flat_on_its_own():
    X = gaussian_cloud(2, 40, 3)
    X[:, 1] = 0.1
    assert _checks.flat(X, per_column=True).tolist() == [False, True, False]
    assert not _checks.flat(X)


def test_rounding_left_below_zero_in_a_spectrum_is_zero():
    assert effective_rank([4.0, 1.0, -1e-16]) == effective_rank([4.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="eigs: eigenvalues must be non-negative, found -0.01"):
        effective_rank([4.0, 1.0, -0.01])
