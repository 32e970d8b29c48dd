import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared import cov_eigs, pca_2d, principal_axes
from tests.conftest import gaussian_cloud


@given(st.integers(0, 2**32 - 1), st.integers(20, 200), st.integers(2, 10))
def test_principal_axes_are_orthonormal_with_fixed_signs(seed, n, d):
    X = gaussian_cloud(seed, n, d, anisotropy=10.0, shift=1.0)
    w, V = principal_axes(X)
    assert np.allclose(V.T @ V, np.eye(d), atol=1e-10)
    assert np.allclose(w, cov_eigs(X))
    pivots = V[np.argmax(np.abs(V), axis=0), np.arange(d)]
    assert np.all(pivots > 0)
    # the same axes whatever sign LAPACK gives: flipping the cloud flips nothing but the data
    _, V_neg = principal_axes(-X)
    assert np.allclose(V_neg, V, atol=1e-8)


def test_pca_2d_keeps_the_top_two_variances():
    X = gaussian_cloud(3, 500, 6, anisotropy=20.0)
    P = pca_2d(X)
    assert P.shape == (500, 2)
    assert np.allclose(P.var(axis=0), cov_eigs(X)[:2])
    assert np.allclose(P.mean(axis=0), 0, atol=1e-12)


def test_pca_2d_needs_two_dimensions():
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        pca_2d(np.ones((5, 1)))


@given(st.integers(0, 2**32 - 1), st.integers(-500, 500))
def test_axes_and_projection_follow_a_power_of_two_scaling_exactly(seed, k):
    X = gaussian_cloud(seed, 60, 5, anisotropy=10.0, shift=1.0)
    w, V = principal_axes(X)
    w_k, V_k = principal_axes(np.ldexp(X, k))
    assert np.array_equal(V_k, V) and np.array_equal(w_k, np.ldexp(w, 2 * k))
    assert np.array_equal(pca_2d(np.ldexp(X, k)), np.ldexp(pca_2d(X), k))


@pytest.mark.parametrize("C", [np.ones((6, 3)), np.tile([0.1, 1 / 3, 7.0], (500, 1))])
def test_a_cloud_with_no_spread_has_no_principal_axes(C):
    for call in (principal_axes, pca_2d):
        with pytest.raises(ValueError, match=r"^X: all points coincide \(up to rounding\)"):
            call(C)


def test_mean_plane_keeps_the_origin_and_measures_angles_in_the_full_space():
    from shared import make_cone, mean_plane, random_rotation

    X = make_cone(500, 20, 3)
    plane = mean_plane(X)
    m = X.mean(axis=0) / np.linalg.norm(X.mean(axis=0))
    np.testing.assert_allclose(plane.coords[:, 0], X @ m)  # not centred: the origin stays at 0
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    np.testing.assert_allclose(np.cos(np.radians(plane.angles)), unit @ m, atol=1e-12)
    R = random_rotation(20, 4)
    rotated = mean_plane(X @ R)
    np.testing.assert_allclose(rotated.angles, plane.angles, atol=1e-9)  # angles do not depend on the basis
    np.testing.assert_allclose(np.abs(rotated.coords), np.abs(plane.coords), atol=1e-9)
    np.testing.assert_allclose(mean_plane(2.0**40 * X).angles, plane.angles, atol=1e-9)
    with pytest.raises(ValueError, match="mean is the zero vector"):
        mean_plane(np.vstack([X, -X]))  # a mean of zero up to rounding
