"""Post-processing that pulls a cone back toward a sphere: centring, all-but-the-top, whitening."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import _checks
from .meters import isoscore, knn_accuracy, mean_cosine, numerical_rank, pair_auc
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


@dataclass(frozen=True)
class RemedyCurve:
    """One remedy of a :class:`Sweep`: for each ``setting`` (``k`` or ``p``), what it does on held-out data."""

    remedy: str
    setting: np.ndarray
    isoscore: np.ndarray
    mean_cosine: np.ndarray
    pair_auc: np.ndarray
    knn_accuracy: np.ndarray

    def index(self, setting: float) -> int:
        """Position of ``setting`` in the sweep (a ``ValueError`` if the sweep did not measure it)."""
        hits = np.flatnonzero(np.isclose(self.setting, float(setting), rtol=0.0, atol=1e-9))
        if hits.size == 0:
            raise ValueError(f"setting: {self.remedy} was not measured at {setting}; "
                             f"the sweep has {self.setting.tolist()}")
        return int(hits[0])

    def describe(self, i: int) -> str:
        """The setting at position ``i`` as the notebooks write it: ``k=2`` or ``p=0.35``."""
        value = self.setting[i]
        return f"k={int(value)}" if self.remedy == "all-but-the-top" else f"p={value:.2f}"


@dataclass(frozen=True)
class Sweep:
    """:func:`sweep_remedies`: all-but-the-top for every ``k`` and partial whitening for every ``p``."""

    all_but_the_top: RemedyCurve
    whitening: RemedyCurve

    def curve(self, remedy: str) -> RemedyCurve:
        """The curve of ``"all-but-the-top"`` or ``"whitening"``."""
        if remedy not in REMEDIES:
            raise ValueError(f"remedy: expected one of {REMEDIES}, got {remedy!r}")
        return self.all_but_the_top if remedy == "all-but-the-top" else self.whitening

    def best(self) -> tuple[str, int]:
        """The remedy and the position of its setting with the highest held-out pair AUC."""
        return max(((name, int(np.argmax(self.curve(name).pair_auc))) for name in REMEDIES),
                   key=lambda item: self.curve(item[0]).pair_auc[item[1]])


REMEDIES = ("all-but-the-top", "whitening")


def sweep_remedies(
    X_fit: np.ndarray,
    y_fit: np.ndarray,
    X_eval: np.ndarray,
    y_eval: np.ndarray,
    ks: Sequence[int] = range(11),
    powers: Sequence[float] = tuple(np.round(np.linspace(0.0, 1.0, 21), 2)),
    seed: int = 0,
) -> Sweep:
    """All-but-the-top for every ``k`` and partial whitening for every ``power``, fitted on
    ``X_fit`` and measured on the held-out ``X_eval``.

    For each setting: IsoScore, the exact mean cosine (:func:`~shared.meters.mean_cosine`),
    :func:`~shared.meters.pair_auc` (20,000 pairs, seed ``seed``) and
    :func:`~shared.meters.knn_accuracy` (``k = 10``, held-out points against the transformed fit
    points). Every setting sees the same pairs, so differences come from the remedy alone.
    """
    X_fit = _checks.cloud(X_fit, name="X_fit", min_rows=2)
    X_eval = _checks.cloud(X_eval, name="X_eval", min_rows=2)
    curves = []
    for name, settings, apply in [
        ("all-but-the-top", list(ks), lambda X, k: all_but_the_top(X, int(k), fit=X_fit)),
        ("whitening", list(powers), lambda X, p: zca_whiten(X, float(p), fit=X_fit)),
    ]:
        rows = []
        for setting in settings:
            ref, ev = apply(X_fit, setting), apply(X_eval, setting)
            rows.append((setting, isoscore(ev), mean_cosine(ev), pair_auc(ev, y_eval, seed),
                         knn_accuracy(ref, y_fit, ev, y_eval)))
        cols = np.array(rows, dtype=float).reshape(len(settings), 5).T
        curves.append(RemedyCurve(name, *cols))
    return Sweep(*curves)
