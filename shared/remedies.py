"""Post-processing that pulls a cone back toward a sphere: centring, all-but-the-top, whitening."""

from __future__ import annotations

import numpy as np

from collections.abc import Sequence

from . import _checks
from .meters import isoscore, knn_accuracy, numerical_rank, pair_auc, random_cosines
from .pca import principal_axes


def _fit_cloud(X: np.ndarray, fit: np.ndarray | None) -> np.ndarray:
    """The cloud a remedy's statistics are estimated on: ``fit`` if given, else ``X`` itself."""
    if fit is None:
        return X
    fit = _checks.cloud(fit, name="fit", min_rows=2)
    if fit.shape[1] != X.shape[1]:
        raise ValueError(f"fit: expected {X.shape[1]} columns like X, got {fit.shape[1]}")
    return fit


def all_but_the_top(X: np.ndarray, k: int = 2, fit: np.ndarray | None = None) -> np.ndarray:
    r"""Remove the mean and the top ``k`` principal directions (Mu & Viswanath 2018, arXiv:1702.01417).

    .. math::  \tilde x = (x - \mu) - \sum_{j \le k} \big(u_j^\top (x - \mu)\big)\,u_j

    with :math:`u_j` the top principal directions of the centred cloud. The paper projects the
    *uncentred* vector in its last step; this is the common centred variant, whose output has zero
    mean. The paper's rule of thumb is ``k ≈ d/100`` (2 for GloVe, 3 for word2vec at d = 300).
    ``k = 0`` is plain centring. The mean and the directions are estimated on ``fit`` (default:
    ``X`` itself), so a remedy fitted on one set of points can be applied to another.
    """
    X = _checks.cloud(X, min_rows=2)
    k = _checks.integer(k, "k", 0, X.shape[1])
    ref = _fit_cloud(X, fit)
    Xc = X - ref.mean(axis=0)
    if k == 0:
        return Xc
    _, V = principal_axes(ref)
    top = V[:, :k]
    return Xc - (Xc @ top) @ top.T


def zca_whiten(
    X: np.ndarray, power: float = 1.0, fit: np.ndarray | None = None, rank: int | None = None
) -> np.ndarray:
    r"""ZCA whitening, or partial whitening with ``power`` :math:`p \in [0, 1]`.

    .. math::  z = \Sigma^{-p/2}(x - \mu) = U \Lambda^{-p/2} U^\top (x - \mu)

    ``p = 0`` only centres; ``p = 1`` is full ZCA: identity covariance, and of all whitening
    transforms the one that stays closest to the input coordinates (Kessy, Lewin & Strimmer 2018,
    arXiv:1512.00809). :math:`\Sigma^{-p/2}` is a function of the matrix, so it does not depend on
    which eigenvectors LAPACK picks, even where eigenvalues repeat. BERT-whitening (Su et al. 2021,
    arXiv:2103.15316) is the PCA variant, :math:`\Lambda^{-1/2}U^\top(x-\mu)`. The mean and
    covariance are estimated on ``fit`` (default: ``X`` itself).

    ``rank = r`` keeps only the top ``r`` principal directions (:math:`U_r`, :math:`\Lambda_r`) and
    drops the rest, like the dimension reduction of Su et al. This is how to whiten a cloud that
    lies in a flat subspace, such as the output of a LayerNorm (its rows satisfy one linear
    equation, so their covariance has a zero eigenvalue). The projection onto the top ``r``
    directions is well defined only when :math:`\lambda_r > \lambda_{r+1}`, which is checked.
    """
    X = _checks.cloud(X, min_rows=2)
    power = _checks.real(power, "power", 0.0, 1.0)
    d = X.shape[1]
    r = d if rank is None else _checks.integer(rank, "rank", 1, d)
    ref = _fit_cloud(X, fit)
    Xc = X - ref.mean(axis=0)
    if power == 0 and r == d:
        return Xc
    w, V = principal_axes(ref)
    if not w[0] > 0:
        raise ValueError(f"{'X' if fit is None else 'fit'}: all points coincide, so there is no variance to whiten")
    kept = numerical_rank(w)
    if r > kept:
        raise ValueError(
            f"X: its covariance is singular (rank {kept} of {d}), so whitening would divide "
            f"by zero; pass rank={kept} to drop the empty directions, or use more points than dimensions"
        )
    if r < d and w[r] >= w[r - 1] * (1 - 1e-10):
        raise ValueError(f"rank: eigenvalues {r} and {r + 1} coincide, so the top {r} directions are not unique")
    U = V[:, :r]
    return Xc @ (U * w[:r] ** (-power / 2)) @ U.T


def standardize(X: np.ndarray) -> np.ndarray:
    r"""Z-score every coordinate: :math:`(x_k - \mu_k)/\sigma_k`.

    Per-dimension standardisation is the fix Timkey & van Schijndel (2021, arXiv:2109.04404)
    propose for rogue dimensions: no single coordinate can then dominate a cosine by its scale.
    """
    X = _checks.cloud(X, min_rows=2)
    sd = X.std(axis=0)
    if np.any(sd == 0):
        raise ValueError(f"X: coordinate {int(np.argmin(sd))} is constant; it cannot be standardised")
    return (X - X.mean(axis=0)) / sd


def sweep_remedies(
    X_fit: np.ndarray,
    y_fit: np.ndarray,
    X_eval: np.ndarray,
    y_eval: np.ndarray,
    ks: Sequence[int] = range(11),
    powers: Sequence[float] = tuple(np.round(np.linspace(0.0, 1.0, 21), 2)),
    seed: int = 0,
) -> dict[str, dict[str, np.ndarray]]:
    """All-but-the-top for every ``k`` and partial whitening for every ``power``, fitted on
    ``X_fit`` and measured on the held-out ``X_eval``.

    For each remedy (``"all-but-the-top"``, ``"whitening"``) and setting: IsoScore, mean random
    cosine (6,000 pairs, seed ``seed``), :func:`pair_auc` (20,000 pairs, seed ``seed``) and
    :func:`knn_accuracy` (``k = 10``, held-out points against the transformed fit points).
    Every setting sees the same pairs, so differences come from the remedy alone.
    """
    X_fit = _checks.cloud(X_fit, name="X_fit", min_rows=2)
    X_eval = _checks.cloud(X_eval, name="X_eval", min_rows=2)
    out: dict[str, dict[str, np.ndarray]] = {}
    for name, settings, apply in [
        ("all-but-the-top", list(ks), lambda X, k: all_but_the_top(X, int(k), fit=X_fit)),
        ("whitening", list(powers), lambda X, p: zca_whiten(X, float(p), fit=X_fit)),
    ]:
        rows = []
        for setting in settings:
            ref, ev = apply(X_fit, setting), apply(X_eval, setting)
            rows.append((
                setting,
                isoscore(ev),
                float(random_cosines(ev, seed).mean()),
                pair_auc(ev, y_eval, seed),
                knn_accuracy(ref, y_fit, ev, y_eval),
            ))
        cols = np.array(rows, dtype=float).T
        out[name] = dict(zip(["setting", "IsoScore", "mean cosine", "pair AUC", "kNN accuracy"], cols))
    return out
