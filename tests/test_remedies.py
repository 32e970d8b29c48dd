import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared import all_but_the_top, cov_eigs, principal_axes, random_cosines, random_rotation, standardize, zca_whiten
from tests.conftest import gaussian_cloud

seeds = st.integers(0, 2**32 - 1)


@given(seeds, st.integers(60, 300), st.integers(2, 10), st.floats(1, 50))
def test_zca_gives_identity_covariance(seed, n, d, aniso):
    X = gaussian_cloud(seed, n, d, anisotropy=aniso, shift=2.0)
    Z = zca_whiten(X)
    assert np.allclose(np.cov(Z.T, bias=True), np.eye(d), atol=1e-8)
    assert np.allclose(Z.mean(axis=0), 0, atol=1e-10)


@given(seeds, st.integers(60, 300), st.integers(2, 8), st.floats(1, 50))
def test_zca_stays_closest_to_the_input(seed, n, d, aniso):
    """Of all whitenings Q Sigma^(-1/2) (Q orthogonal), ZCA (Q = I) moves the points least."""
    X = gaussian_cloud(seed, n, d, anisotropy=aniso)
    Xc = X - X.mean(axis=0)
    Z = zca_whiten(X)
    w, V = principal_axes(X)
    pca_white = Xc @ V / np.sqrt(w)
    rotated = Z @ random_rotation(d, seed)
    moved = lambda W: np.sum((W - Xc) ** 2)  # noqa: E731
    assert moved(Z) <= moved(pca_white) + 1e-9
    assert moved(Z) <= moved(rotated) + 1e-9


def test_partial_whitening_interpolates(clouds):
    _, X_cone = clouds
    assert np.allclose(zca_whiten(X_cone, 0.0), X_cone - X_cone.mean(axis=0))
    half = cov_eigs(zca_whiten(X_cone, 0.5))
    assert np.allclose(np.sort(half)[::-1], np.sqrt(cov_eigs(X_cone)), rtol=1e-6)


def test_whitening_refuses_a_singular_covariance():
    X = np.random.default_rng(0).standard_normal((5, 8))  # fewer points than dimensions
    with pytest.raises(ValueError, match="singular"):
        zca_whiten(X)


@given(seeds, st.integers(0, 5))
def test_all_but_the_top_removes_the_mean_and_the_top_directions(seed, k):
    X = gaussian_cloud(seed, 200, 8, anisotropy=20.0, shift=3.0)
    Y = all_but_the_top(X, k)
    assert np.allclose(Y.mean(axis=0), 0, atol=1e-10)
    _, V = principal_axes(X)
    assert np.allclose(Y @ V[:, :k], 0, atol=1e-9)
    assert np.allclose(Y @ V[:, k:], (X - X.mean(axis=0)) @ V[:, k:])  # the rest untouched


def test_all_but_the_top_with_k_0_only_centres(clouds):
    _, X_cone = clouds
    assert np.allclose(all_but_the_top(X_cone, 0), X_cone - X_cone.mean(axis=0))


def test_spec_figures_after_the_remedies(clouds):
    _, X_cone = clouds
    from shared import partition_isotropy

    rng = np.random.default_rng(6)
    assert f"{random_cosines(X_cone, rng).mean():+.3f}" == "+0.846"
    X_abtt = all_but_the_top(X_cone, 2)
    assert f"{random_cosines(X_abtt, rng).mean():+.3f}" == "-0.001"
    assert f"{partition_isotropy(X_abtt):.3f}" == "0.510"
    assert f"{random_cosines(zca_whiten(X_cone), rng).mean():+.3f}" == "-0.001"


def test_standardize_removes_a_rogue_coordinate():
    rng = np.random.default_rng(4)
    X = rng.standard_normal((1000, 10))
    X[:, 3] = 50 + 100 * X[:, 3]
    Z = standardize(X)
    assert np.allclose(Z.std(axis=0), 1) and np.allclose(Z.mean(axis=0), 0, atol=1e-12)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: all_but_the_top(np.ones((5, 3)) + np.eye(5, 3), 4), "k: must lie in"),
        (lambda: all_but_the_top(np.ones((5, 3)), -1), "k: must lie in"),
        (lambda: zca_whiten(np.eye(4), 1.5), "power: must be"),
        (lambda: standardize(np.ones((4, 2))), "coordinate 0 is constant"),
        (lambda: zca_whiten(np.array([[1.0, np.inf], [0.0, 1.0]])), "NaN or infinite"),
    ],
)
def test_bad_input_raises_a_named_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_remedies_fitted_on_other_points():
    rng = np.random.default_rng(8)
    fit = rng.standard_normal((400, 5)) * [5, 3, 1, 1, 0.5] + 2.0
    other = rng.standard_normal((300, 5)) * [5, 3, 1, 1, 0.5] + 2.0
    W = zca_whiten(other, fit=fit)
    w, V = np.linalg.eigh(np.cov(fit.T, bias=True))
    assert np.allclose(W, (other - fit.mean(axis=0)) @ V @ np.diag(w**-0.5) @ V.T)
    assert np.allclose(zca_whiten(fit, fit=fit), zca_whiten(fit))
    assert np.allclose(all_but_the_top(fit, 2, fit=fit), all_but_the_top(fit, 2))
    _, V = principal_axes(fit)
    assert np.allclose(all_but_the_top(other, 2, fit=fit) @ V[:, :2], 0, atol=1e-9)
    assert not np.allclose(np.cov(W.T, bias=True), np.eye(5), atol=1e-3)  # held-out points are not exactly white
    with pytest.raises(ValueError, match="fit: expected 5 columns"):
        zca_whiten(other, fit=fit[:, :3])


def test_sweep_remedies_structure_and_endpoints():
    from shared import make_planted, sweep_remedies

    planted = make_planted(400, 12, 1, signal_dims=3)
    sweep = sweep_remedies(planted.X[:200], planted.labels[:200], planted.X[200:], planted.labels[200:],
                           ks=[0, 1], powers=[0.0, 1.0])
    abtt, white = sweep.all_but_the_top, sweep.whitening
    assert (abtt.remedy, white.remedy) == ("all-but-the-top", "whitening")
    assert np.allclose(abtt.setting, [0, 1]) and np.allclose(white.setting, [0, 1])
    for key in ("isoscore", "mean_cosine", "pair_auc", "knn_accuracy"):  # k = 0 and p = 0 both only centre
        assert getattr(abtt, key)[0] == pytest.approx(getattr(white, key)[0])
    assert white.isoscore[1] > white.isoscore[0]
    assert white.index(1.0) == 1 and white.describe(1) == "p=1.00" and abtt.describe(1) == "k=1"
    with pytest.raises(ValueError, match="setting: whitening was not measured at 0.5"):
        white.index(0.5)
    best, i = sweep.best()
    assert best.pair_auc[i] == max(abtt.pair_auc.max(), white.pair_auc.max())
    assert sweep.curve(all_but_the_top) is abtt and sweep.curve(zca_whiten) is white
    with pytest.raises(ValueError, match="remedy: expected all_but_the_top or zca_whiten"):
        sweep.curve("whitening")  # a name is not a remedy


def test_whitening_a_cloud_in_a_flat_subspace():
    # Rows that satisfy one linear equation (like LayerNorm outputs) have a singular covariance:
    # plain whitening refuses and names the rank to pass; with it, the cloud is white in its span.
    rng = np.random.default_rng(3)
    X = rng.standard_normal((500, 6)) * [4, 2, 1, 1, 0.5, 0.3]
    X -= X.mean(axis=1, keepdims=True)  # every row now sums to 0
    with pytest.raises(ValueError, match="pass rank=5"):
        zca_whiten(X)
    W = zca_whiten(X, rank=5)
    assert np.allclose(np.sort(cov_eigs(W))[::-1], [1, 1, 1, 1, 1, 0], atol=1e-9)
    assert np.allclose(W.sum(axis=1), 0.0, atol=1e-9)  # it stays in the same subspace
    with pytest.raises(ValueError, match="rank: must lie in"):
        zca_whiten(X, rank=0)
    with pytest.raises(ValueError, match="fit: all points coincide"):
        zca_whiten(X, fit=np.ones((4, 6)))


def test_whitening_rank_refuses_a_split_inside_a_repeated_eigenvalue():
    X = np.random.default_rng(4).standard_normal((400, 4))
    X = zca_whiten(X) @ np.diag([3.0, 1.0, 1.0, 0.5])  # eigenvalues 9, 1, 1, 0.25
    with pytest.raises(ValueError, match="eigenvalues 2 and 3 coincide"):
        zca_whiten(X, rank=2)
    assert zca_whiten(X, rank=3).shape == X.shape


def test_centring_is_all_but_the_top_with_k_zero():
    X = np.random.default_rng(5).standard_normal((50, 4)) + 7.0
    assert np.allclose(all_but_the_top(X, 0), X - X.mean(axis=0))


# ----- magnitudes, kinds of input and clouds with no spread --------------------------------------


@given(seeds, st.integers(-500, 500))
def test_remedies_follow_a_power_of_two_scaling_exactly(seed, k):
    X = gaussian_cloud(seed, 80, 5, anisotropy=10.0, shift=2.0)
    Xk = np.ldexp(X, k)
    assert np.array_equal(zca_whiten(Xk), zca_whiten(X))  # full whitening is scale-free
    assert np.array_equal(standardize(Xk), standardize(X))
    assert np.array_equal(all_but_the_top(Xk, 2), np.ldexp(all_but_the_top(X, 2), k))


@pytest.mark.parametrize("scale", [1e-150, 1e150, 1e-300, 1e300])
def test_remedies_at_extreme_magnitudes(scale):
    X = gaussian_cloud(1, 80, 5, anisotropy=10.0, shift=2.0)
    assert np.allclose(zca_whiten(scale * X), zca_whiten(X), rtol=1e-8, atol=1e-8)
    assert np.allclose(standardize(scale * X), standardize(X), rtol=1e-8, atol=1e-8)
    assert np.allclose(all_but_the_top(scale * X, 1) / scale, all_but_the_top(X, 1), rtol=1e-8, atol=1e-8)


def test_a_constant_coordinate_up_to_rounding_is_not_standardised():
    # Its spread was rounding noise, and became entries of +-1.
    X = np.random.default_rng(0).standard_normal((300, 3))
    X[:, 1] = 0.1 + np.random.default_rng(1).integers(-1, 2, 300) * np.spacing(0.1)
    with pytest.raises(ValueError, match=r"^X: coordinate 1 is constant \(up to rounding\)"):
        standardize(X)


def test_a_cloud_with_no_spread_is_not_whitened():
    C = np.tile([0.1, 1 / 3, 7.0], (40, 1))
    with pytest.raises(ValueError, match=r"^X: all points coincide \(up to rounding\)"):
        zca_whiten(C, rank=1)  # it used to whiten the rounding noise
    with pytest.raises(ValueError, match=r"^fit: all points coincide"):
        zca_whiten(np.eye(3), fit=C)
    with pytest.raises(ValueError, match=r"^X: all points coincide"):
        all_but_the_top(C, 1)
    assert np.allclose(all_but_the_top(C, 0), 0.0)  # centring alone is defined: every point goes to 0


def test_the_top_k_directions_must_exist_and_be_unique():
    X = np.random.default_rng(2).standard_normal((3, 6))  # three points span two directions
    with pytest.raises(ValueError, match="^k: X has only 2 directions with variance"):
        all_but_the_top(X, 3)
    W = zca_whiten(np.random.default_rng(3).standard_normal((200, 4)))  # every eigenvalue equal
    with pytest.raises(ValueError, match="^k: eigenvalues 1 and 2 coincide"):
        all_but_the_top(W, 1)


def test_a_fitted_remedy_applies_to_a_single_point():
    fit = gaussian_cloud(2, 100, 4, anisotropy=5.0)
    point = fit[:1] + 1.0
    assert np.allclose(zca_whiten(point, fit=fit), zca_whiten(np.vstack([point, fit]), fit=fit)[:1])
    assert np.allclose(all_but_the_top(point, 2, fit=fit), all_but_the_top(np.vstack([point, fit]), 2, fit=fit)[:1])


def _planted_halves():
    from shared import make_planted

    planted = make_planted(120, 8, 1, signal_dims=3)
    return dict(X_fit=planted.X[:60], y_fit=planted.labels[:60], X_eval=planted.X[60:], y_eval=planted.labels[60:],
                ks=[0, 1], powers=[0.0, 1.0])


@pytest.mark.parametrize(
    "change, error, message",
    [
        (dict(y_fit=np.zeros(59, dtype=int)), ValueError, "^y_fit: expected 60 labels, one per row of X_fit"),
        (dict(y_eval=np.linspace(0, 1, 60)), TypeError, "^y_eval: expected integers"),
        (dict(ks=[2.5]), TypeError, r"^ks\[0\]: expected an int"),
        (dict(ks=[0, 9]), ValueError, r"^ks\[1\]: must lie in \[0, 8\]"),
        (dict(ks=3), TypeError, "^ks: expected a list"),
        (dict(powers=[0.5, "a"]), TypeError, r"^powers\[1\]: expected a real number"),
        (dict(powers=[1.5]), ValueError, r"^powers\[0\]: must be a finite number in \[0.0, 1.0\]"),
        (dict(seed=1.5), TypeError, "^seed: expected an int"),
        (dict(X_eval=np.ones((60, 7))), ValueError, "^X_eval: expected 8 columns like X_fit"),
        (dict(X_fit=np.ones((60, 8))), ValueError, "^X_fit: all points coincide"),
    ],
)
def test_sweep_remedies_names_its_own_arguments(change, error, message):
    from shared import sweep_remedies

    with pytest.raises(error, match=message):
        sweep_remedies(**{**_planted_halves(), **change})


def test_sweep_remedies_with_no_settings_gives_empty_columns():
    from shared import sweep_remedies

    sweep = sweep_remedies(**{**_planted_halves(), "ks": [], "powers": []})
    for curve in (sweep.all_but_the_top, sweep.whitening):
        assert all(len(getattr(curve, key)) == 0 for key in ("setting", "isoscore", "mean_cosine", "pair_auc",
                                                              "knn_accuracy"))


@pytest.mark.parametrize("seed", [7, 11])
def test_whitening_loses_when_labels_live_in_strong_directions_and_wins_when_they_live_in_weak_ones(seed):
    """Notebook 06's rule, as a property of the two kinds of planted cloud (not only its seeds)."""
    from shared import make_planted, sweep_remedies

    def sweep(planted):
        return sweep_remedies(planted.X[:1000], planted.labels[:1000], planted.X[1000:], planted.labels[1000:],
                              ks=range(6), powers=[0.0, 0.5, 1.0])

    strong = sweep(make_planted(2000, 50, seed))  # labels in strong directions under a cone (cloud A)
    weak = sweep(make_planted(2000, 50, seed + 1, signal_dims=8, separation=0.3, within=0.1, noise=1.0))  # cloud B
    assert strong.best()[0] is strong.all_but_the_top
    assert strong.whitening.pair_auc[-1] < strong.all_but_the_top.pair_auc[1] - 0.15
    best, i = weak.best()
    assert best is weak.whitening and i == 2
    assert weak.whitening.pair_auc[-1] > weak.all_but_the_top.pair_auc.max() + 0.08
    assert weak.whitening.knn_accuracy[-1] > weak.all_but_the_top.knn_accuracy.max() + 0.3


@given(st.integers(0, 2**32 - 1), st.floats(0.05, 3.0))
def test_the_original_partition_estimator_cannot_fall_as_all_but_the_top_removes_directions(seed, scale):
    # After centring every Z(c) >= n (e^t >= 1 + t), with equality along an emptied direction, and
    # all-but-the-top leaves the other directions' projections unchanged: from D = 1 on, the raw-scale
    # estimator's minimum is n and each removal can only lower the maximum, at any scale (notebook 08).
    from shared import partition_isotropy

    rng = np.random.default_rng(seed)
    X = scale * (rng.standard_normal((300, 8)) * np.linspace(2.0, 0.5, 8) + rng.standard_normal(8))
    values = [partition_isotropy(all_but_the_top(X, D), rescale=False) for D in range(1, 7)]
    assert all(b >= a * (1 - 1e-9) for a, b in zip(values, values[1:])), values
