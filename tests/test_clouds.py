import numpy as np
import pytest

from shared import make_cone, make_isotropic, random_rotation, sphere_and_cone


def test_isotropic_cloud_has_unit_covariance():
    X = make_isotropic(20000, 5, 1)
    assert np.allclose(np.cov(X.T), np.eye(5), atol=0.05)
    assert np.allclose(X.mean(axis=0), 0, atol=0.03)


def test_cone_points_all_lean_along_one_direction():
    X = make_cone(500, 20, 3, strength=4.0, residual=0.0)
    u = X[0] / np.linalg.norm(X[0])
    coeff = X @ u
    assert np.allclose(X, np.outer(coeff, u))  # residual 0: every point lies on the ray
    assert coeff.min() >= 0.15 * 4.0 - 1e-12 and coeff.max() <= 4.0 + 1e-12


def test_seeds_and_generators_agree():
    assert np.array_equal(make_cone(10, 4, 7), make_cone(10, 4, np.random.default_rng(7)))


def test_sphere_and_cone_draws_iso_then_cone_from_one_generator():
    rng = np.random.default_rng(0)
    X_iso, X_cone = sphere_and_cone()
    assert np.array_equal(X_iso, make_isotropic(2000, 50, rng))
    assert np.array_equal(X_cone, make_cone(2000, 50, rng))


@pytest.mark.parametrize("d", [1, 2, 7, 50])
def test_random_rotation_is_orthogonal(d):
    Q = random_rotation(d, 3)
    assert np.allclose(Q.T @ Q, np.eye(d), atol=1e-12)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: make_isotropic(0, 3, 1), "n: must lie in"),
        (lambda: make_isotropic(3, 2.5, 1), (TypeError, "d: expected an int")),
        (lambda: make_cone(5, 3, 1, strength=-1.0), "strength"),
        (lambda: make_cone(5, 3, 1, strength=0.0, residual=0.0), "at least one must be positive"),
        (lambda: make_isotropic(3, 3, "seed"), (TypeError, "rng: expected a numpy.random.Generator or an int")),
        (lambda: make_isotropic(3, 3, -1), "rng: a seed must be a non-negative int"),
        (lambda: make_cone(5, 3, 1, residual=float("nan")), "residual"),
    ],
)
def test_bad_arguments_raise_a_named_error(call, message):
    error, message = message if isinstance(message, tuple) else (ValueError, message)
    with pytest.raises(error, match=message):
        call()


def test_planted_cloud_carries_labels_in_its_signal_directions():
    from shared import make_planted

    planted = make_planted(600, 20, 3, classes=4, signal_dims=3)
    assert planted.X.shape == (600, 20) and planted.labels.shape == (600,)
    basis = np.column_stack([planted.signal, planted.cone])
    assert np.allclose(basis.T @ basis, np.eye(4), atol=1e-12)
    coeff = planted.X @ planted.cone
    assert coeff.min() >= 0.15 * 30 - 1e-9  # the cone: a positive offset for every point
    # class means differ along the signal directions and nowhere else
    means = np.array([planted.X[planted.labels == c].mean(axis=0) for c in range(4)])
    spread_signal = np.ptp(means @ planted.signal, axis=0).min()
    noise_dirs = np.linalg.svd(np.eye(20) - basis @ basis.T)[0][:, :16]
    assert spread_signal > 1.0 > np.ptp(means @ noise_dirs, axis=0).max()


def test_planted_cloud_refuses_too_many_signal_dims():
    from shared import make_planted

    with pytest.raises(ValueError, match="signal_dims"):
        make_planted(10, 5, 0, signal_dims=4)
