"""The boundary checks: one policy for kinds of input, magnitudes and clouds with no spread."""

import warnings

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


# ----- masked arrays, sizes, zero rows, columns -----------------------------------------------------


def test_a_masked_array_is_refused_when_an_entry_is_masked_and_is_its_data_otherwise():
    X = gaussian_cloud(3, 10, 3)
    masked = np.ma.masked_greater(X, 1.0)
    count = int(np.sum(X > 1.0))
    with pytest.raises(ValueError, match=f"^X: is a masked array with {count} masked entries"):
        _checks.cloud(masked)
    with pytest.raises(ValueError, match=f"^x: is a masked array with {count} masked entries"):
        _checks.vector(masked.ravel(), "x")
    with pytest.raises(ValueError, match="^labels: is a masked array with 1 masked entries"):
        _checks.integers(np.ma.masked_equal(np.arange(4), 2), "labels")
    assert np.array_equal(_checks.cloud(np.ma.masked_array(X)), X)
    assert type(_checks.cloud(np.ma.masked_array(X))) is np.ndarray  # the data, not a masked array


def test_the_size_check_names_the_largest_argument_and_spares_what_fits():
    _checks.allocation(("n", 1000), ("d", 50))
    with pytest.raises(ValueError, match=r"^d: 1\.0e\+20 is too large: .* more than this machine's memory"):
        _checks.allocation(("n", 3), ("d", 10**20))
    with pytest.raises(ValueError, match="^bases: "):
        _checks.allocation(("bases", 10**15), (None, 10**16))  # a size fixed by the function is never named
    _checks.work(("steps", 1000), ("d", 50))
    with pytest.raises(ValueError, match="^steps: .* more than a day of computing"):
        _checks.work(("steps", 10**12), ("d", 50))


def test_rows_with_a_direction():
    X = np.array([[0.0, 0.0], [1.0, 2.0], [0.0, 0.0], [-1.0, 0.5]])
    kept, keep = _checks.directions(X)
    assert np.array_equal(kept, X[[1, 3]]) and keep.tolist() == [False, True, False, True]
    with pytest.raises(ValueError, match="^S: has 2 non-zero rows and 2 zero rows; .* needs at least 3"):
        _checks.directions(X, "S", min_rows=3)
    with pytest.raises(ValueError, match="^S: row 2 is the zero vector"):
        _checks.zero_row(X, np.array([[1, 2]]), "S", "a pair")


def test_another_number_of_columns_is_named():
    with pytest.raises(ValueError, match="^X: expected 4 columns like fit, got 3"):
        _checks.columns(np.ones((2, 3)), 4, "X", like="fit")


def test_the_advice_for_variances_beyond_float64_never_overflows_itself():
    X = gaussian_cloud(1, 30, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="multiply X by a constant near 1e315 first"):
            cov_eigs(X * 1e-315)


def test_a_spectrum_at_its_own_scale():
    assert np.array_equal(_checks.spectrum([4.0, 1.0, 0.0], scaled=False), [4.0, 1.0, 0.0])
    assert np.array_equal(_checks.spectrum([4.0, 1.0, 0.0]), [1.0, 0.25, 0.0])
