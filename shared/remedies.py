"""Post-processing that pulls a cone back toward a sphere: centring, all-but-the-top, whitening."""

from __future__ import annotations

import numpy as np

from collections.abc import Sequence
from dataclasses import dataclass

from . import _checks
from .meters import isoscore, mean_cosine, numerical_rank
from .taskmetrics import knn_accuracy, pair_auc
from .pca import scaled_axes


def _fit_cloud(X: object, fit: object) -> tuple[np.ndarray, np.ndarray, str]:
    """``X``, the cloud a remedy's statistics are estimated on (``fit`` if given, else ``X``) and
    that cloud's name. ``X`` may be a single point when ``fit`` is given."""
    if fit is None:
        X = _checks.cloud(X, min_rows=2)
        return X, X, "X"
    X = _checks.cloud(X)
    fit = _checks.cloud(fit, name="fit", min_rows=2)
    if fit.shape[1] != X.shape[1]:
        raise ValueError(f"fit: expected {X.shape[1]} columns like X, got {fit.shape[1]}")
    return X, fit, "fit"


def _top_directions(ref: np.ndarray, k: int, ref_name: str, arg: str) -> np.ndarray:
    """The top ``k`` principal directions of ``ref`` (columns), refused where they are not unique:
    when ``ref`` has fewer than ``k`` directions with variance, or eigenvalues ``k`` and ``k + 1``
    coincide."""
    _checks.spread(ref, ref_name, consequence="it has no principal directions")
    w, V, _ = scaled_axes(ref)
    kept = numerical_rank(w)
    if k > kept:
        raise ValueError(
            f"{arg}: {ref_name} has only {kept} directions with variance (numerical rank {kept} of "
            f"{len(w)}), so its top {k} are not defined; pass {arg}={kept} or less, or use more points"
        )
    if k < len(w) and w[k] >= w[k - 1] * (1 - _checks.EIGEN_TIE):
        raise ValueError(f"{arg}: eigenvalues {k} and {k + 1} coincide, so the top {k} directions are not unique")
    return V[:, :k]


def all_but_the_top(X: np.ndarray, k: int = 2, fit: np.ndarray | None = None) -> np.ndarray:
    r"""Remove the mean and the top ``k`` principal directions (Mu & Viswanath 2018, arXiv:1702.01417).

    .. math::  \tilde x = (x - \mu) - \sum_{j \le k} \big(u_j^\top (x - \mu)\big)\,u_j

    with :math:`u_j` the top principal directions of the centred cloud. The paper projects the
    *uncentred* vector in its last step; this is the common centred variant, whose output has zero
    mean. The paper's rule of thumb is ``k ≈ d/100`` (2 for GloVe, 3 for word2vec at d = 300).
    ``k = 0`` is plain centring. The mean and the directions are estimated on ``fit`` (default:
    ``X`` itself), so a remedy fitted on one set of points can be applied to another. The top
    ``k`` directions must be well defined: ``k`` at most the number of directions in which the
    fitted cloud varies, and eigenvalue ``k`` distinct from eigenvalue ``k + 1``.
    """
    X, ref, ref_name = _fit_cloud(X, fit)
    k = _checks.integer(k, "k", 0, X.shape[1], why="at most the number of columns of X")
    Xc = X - ref.mean(axis=0)
    if k == 0:
        return Xc
    top = _top_directions(ref, k, ref_name, "k")
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
    A cloud whose points coincide (up to rounding) has no variance to whiten, and is refused.
    """
    X, ref, ref_name = _fit_cloud(X, fit)
    power = _checks.real(power, "power", 0.0, 1.0)
    d = X.shape[1]
    r = d if rank is None else _checks.integer(rank, "rank", 1, d, why="at most the number of columns of X")
    Xc = X - ref.mean(axis=0)
    if power == 0 and r == d:
        return Xc
    _checks.spread(ref, ref_name, consequence="there is no variance to whiten")
    w, V, scale = scaled_axes(ref)  # on ref / scale (exact): no variance overflows
    kept = numerical_rank(w)
    if r > kept:
        raise ValueError(
            f"{ref_name}: its covariance is singular (rank {kept} of {d}), so whitening would divide "
            f"by zero; pass rank={kept} to drop the empty directions, or use more points than dimensions"
        )
    if r < d and w[r] >= w[r - 1] * (1 - _checks.EIGEN_TIE):
        raise ValueError(f"rank: eigenvalues {r} and {r + 1} coincide, so the top {r} directions are not unique")
    U = V[:, :r]
    return (Xc / scale) @ (U * w[:r] ** (-power / 2)) @ U.T * scale ** (1 - power)


def standardize(X: np.ndarray) -> np.ndarray:
    r"""Z-score every coordinate: :math:`(x_k - \mu_k)/\sigma_k`.

    Per-dimension standardisation is the fix Timkey & van Schijndel (2021, arXiv:2109.04404)
    propose for rogue dimensions: no single coordinate can then dominate a cosine by its scale.
    A coordinate that is constant up to rounding has no spread to divide by, and is refused.
    """
    X = _checks.cloud(X, min_rows=2)
    constant = _checks.flat(X, per_column=True)
    if constant.any():
        raise ValueError(
            f"X: coordinate {int(np.argmax(constant))} is constant (up to rounding), so it cannot be "
            "standardised; drop the constant coordinates first"
        )
    Xs = X / _checks.power_of_two(X, axis=0)  # exact, per column: no variance overflows
    return (Xs - Xs.mean(axis=0)) / Xs.std(axis=0)


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


#: Neighbours :func:`sweep_remedies` lets vote in :func:`knn_accuracy`.
KNN_K = 10


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
    X_fit = _checks.cloud(X_fit, name="X_fit", min_rows=KNN_K)
    X_eval = _checks.cloud(X_eval, name="X_eval", min_rows=2)
    d = X_fit.shape[1]
    if X_eval.shape[1] != d:
        raise ValueError(f"X_eval: expected {d} columns like X_fit, got {X_eval.shape[1]}")
    y_fit = _checks.labels(y_fit, len(X_fit), "y_fit", rows_of="X_fit")
    y_eval = _checks.labels(y_eval, len(X_eval), "y_eval", rows_of="X_eval")
    _, counts = np.unique(y_eval, return_counts=True)
    if len(counts) < 2 or counts.max() < 2:
        raise ValueError("y_eval: pair AUC needs two classes, one with at least two points")
    ks = [_checks.integer(k, f"ks[{i}]", 0, d, why="at most the number of columns of X_fit")
          for i, k in enumerate(_checks.sequence(ks, "ks"))]
    powers = [_checks.real(p, f"powers[{i}]", 0.0, 1.0) for i, p in enumerate(_checks.sequence(powers, "powers"))]
    seed = _checks.integer(seed, "seed", 0)
    _checks.spread(X_fit, "X_fit", consequence="no remedy can be fitted on it")
    _checks.spread(X_eval, "X_eval", consequence="the cloud has no spread to measure")
    rank = numerical_rank(scaled_axes(X_fit)[0])
    if ks and max(ks) > rank:
        raise ValueError(f"ks: X_fit has only {rank} directions with variance, so every k must be at most {rank}")
    if any(p > 0 for p in powers) and rank < d:
        raise ValueError(
            f"X_fit: its covariance is singular (rank {rank} of {d}), so whitening would divide by zero; "
            "use more points than dimensions, or powers=[0.0]"
        )
    curves = []
    for name, settings, apply in [
        ("all-but-the-top", ks, lambda X, k: all_but_the_top(X, k, fit=X_fit)),
        ("whitening", powers, lambda X, p: zca_whiten(X, p, fit=X_fit)),
    ]:
        rows = []
        for setting in settings:
            ref, ev = apply(X_fit, setting), apply(X_eval, setting)
            try:
                rows.append((setting, isoscore(ev), mean_cosine(ev), pair_auc(ev, y_eval, seed),
                             knn_accuracy(ref, y_fit, ev, y_eval, k=KNN_K)))
            except ValueError as error:  # a meter refused a transformed cloud: say which setting made it
                raise ValueError(
                    f"X_fit, X_eval: after {name} at setting {setting}, fitted on X_fit, the transformed "
                    f"X_eval cannot be measured ({error})"
                ) from error
        setting, iso, cos, auc, knn = np.array(rows, dtype=float).reshape(-1, 5).T
        curves.append(RemedyCurve(remedy=name, setting=setting, isoscore=iso, mean_cosine=cos, pair_auc=auc,
                                  knn_accuracy=knn))
    return Sweep(all_but_the_top=curves[0], whitening=curves[1])
