"""Choosing a remedy and its setting on held-out data, not on the points the choice is scored on.

:func:`sweep_remedies` measures every setting of both remedies (:class:`Sweep`, :class:`RemedyCurve`);
:func:`label_variance_ratio` and :func:`peak_label_variance_ratio` predict which remedy wins;
:func:`choose_remedy` chooses each remedy's setting on one split and scores it on another
(:class:`RemedyChoice`).
"""

from __future__ import annotations

import numpy as np

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .. import _checks
from ..meters import isoscore, knn_accuracy, labelled_pair_auc, mean_cosine
from .transforms import FittedRemedies, all_but_the_top, zca_whiten


class SweptRemedy(_checks.Choice):
    """The two remedies a :class:`Sweep` measures and :func:`choose_remedy` chooses between."""

    ALL_BUT_THE_TOP = "all-but-the-top"
    WHITENING = "whitening"


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
        return f"k={int(value)}" if SweptRemedy(self.remedy) is SweptRemedy.ALL_BUT_THE_TOP else f"p={value:.2f}"


@dataclass(frozen=True)
class Sweep:
    """:func:`sweep_remedies`: all-but-the-top for every ``k`` and partial whitening for every ``p``."""

    all_but_the_top: RemedyCurve
    whitening: RemedyCurve

    def curve(self, remedy: Callable[..., np.ndarray]) -> RemedyCurve:
        """The curve of a remedy, named by its function: ``sweep.curve(all_but_the_top)`` or ``sweep.curve(zca_whiten)``."""
        for function, curve in ((all_but_the_top, self.all_but_the_top), (zca_whiten, self.whitening)):
            if remedy is function:
                return curve
        raise ValueError(f"remedy: expected all_but_the_top or zca_whiten (the remedies a sweep measures), got {remedy!r}")

    def best(self) -> tuple[RemedyCurve, int]:
        """The curve and the position of its setting with the highest held-out pair AUC."""
        return max(((curve, int(np.argmax(curve.pair_auc))) for curve in (self.all_but_the_top, self.whitening)),
                   key=lambda item: item[0].pair_auc[item[1]])


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
    d = X_fit.shape[1]
    X_eval, y_eval = _split(X_eval, y_eval, d, "X_eval", "y_eval")
    y_fit = _checks.labels(y_fit, len(X_fit), "y_fit", rows_of="X_fit")
    ks, powers = _settings(ks, powers, d, why="at most the number of columns of X_fit")
    seed = _checks.integer(seed, "seed", 0)
    fitted = _fitted(X_fit)
    _checks.spread(X_eval, "X_eval", consequence="the cloud has no spread to measure")
    if ks and max(ks) > fitted.rank:
        raise ValueError(f"ks: X_fit has only {fitted.rank} directions with variance, so every k must be at most "
                         f"{fitted.rank}")
    if any(p > 0 for p in powers) and fitted.rank < d:
        raise ValueError(
            f"X_fit: its covariance is singular (rank {fitted.rank} of {d}), so whitening would divide by zero; "
            "use more points than dimensions, or powers=[0.0]"
        )
    for k in ks:
        _checks.top_directions_unique(fitted.w, k, "ks", of=" of X_fit")
    curves = []
    for name, settings, apply in [
        (SweptRemedy.ALL_BUT_THE_TOP.value, ks, fitted.all_but_the_top),
        (SweptRemedy.WHITENING.value, powers, fitted.zca_whiten),
    ]:
        rows = []
        for setting in settings:
            ref, ev = apply(X_fit, setting, name="X_fit"), apply(X_eval, setting, name="X_eval")
            try:
                rows.append((setting, isoscore(ev), mean_cosine(ev),
                             labelled_pair_auc(ev, y_eval, seed, name="X_eval", labels_name="y_eval"),
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


def label_variance_ratio(X: np.ndarray, directions: np.ndarray, remove: int = 0) -> float:
    r"""Variance per label direction over the average variance per direction, after removing the top ``remove``.

    .. math::  r = \frac{\tfrac1m \sum_{j \le m} \operatorname{Var}(v_j^\top y)}{\tfrac1{d - k}\operatorname{tr}\operatorname{Cov}(y)},
               \qquad y = \text{all-but-the-top}(x, k)

    with :math:`v_1, \dots, v_m` the orthonormal columns of ``directions`` (where the labels live)
    and :math:`k` = ``remove``. Whitening gives every direction the average variance, so it
    scales label directions with :math:`r > 1` down towards noise and label directions with
    :math:`r < 1` up; all-but-the-top with ``remove`` directions keeps the ratio it had
    (Mu & Viswanath 2018, arXiv:1702.01417; notebook 06's rule). Pass *all* the label directions
    at once: the pooled ratio weighs each by its variance. When labels sit in strong and weak
    directions alike, the ratios of single directions point both ways, and in notebook 06's mixed
    cloud only the pooled ratio tells which remedy wins (whitening far below 1, all-but-the-top
    near 1 and above; in between, the held-out score decides).
    """
    X = _checks.cloud(X, min_rows=2)
    V = _checks.cloud(directions, name="directions")
    d = X.shape[1]
    if V.shape[0] != d:
        raise ValueError(f"directions: expected {d} rows (one column per direction in X's space), got {V.shape[0]}")
    if V.shape[1] > d or np.abs(V).max() > 1 + 1e-8 or not np.allclose(V.T @ V, np.eye(V.shape[1]), atol=1e-8):
        raise ValueError("directions: expected orthonormal columns")
    remove = _checks.integer(remove, "remove", 0, d - 1, why="fewer than the number of columns of X")
    Xs = X / _checks.power_of_two(X)  # exact rescaling: the ratio is scale-free
    Y = FittedRemedies(Xs, name="X").all_but_the_top(Xs, remove, arg="remove")
    average = np.sum(Y**2) / (d - remove)
    if average == 0:
        raise ValueError("X: no variance is left after removing the top directions")
    return float(np.sum((Y @ V) ** 2) / V.shape[1] / average)


def peak_label_variance_ratio(X: np.ndarray, directions: np.ndarray, ks: Sequence[int] = range(6)) -> tuple[float, int]:
    """The largest :func:`label_variance_ratio` over the removals ``ks``, and the ``k`` that gives it.

    "Once the nuisance is removed" means one direction only when the nuisance is one direction. When
    the noise spectrum falls steeply (a power law), a few noise directions are stronger than the
    labels too, and all-but-the-top removes them as well: the ratio that predicts its contest with
    whitening is the one after the removal that favours the labels most, over the same ``k`` that
    all-but-the-top may choose from (notebook 06). Ties go to the smaller ``k``.
    """
    d = _checks.cloud(X, min_rows=2).shape[1]
    ks = [_checks.integer(k, f"ks[{i}]", 0, d - 1, why="fewer than the number of columns of X")
          for i, k in enumerate(_checks.sequence(ks, "ks"))]
    if not ks:
        raise ValueError("ks: expected at least one number of directions to remove")
    ratios = [label_variance_ratio(X, directions, k) for k in ks]
    best = int(np.argmax(ratios))
    return ratios[best], ks[best]


@dataclass(frozen=True)
class RemedyChoice:
    """:func:`choose_remedy`: the setting of each remedy chosen on one split, scored on another.

    ``k`` and ``power``: the all-but-the-top and whitening settings with the best pair AUC on the
    selection split; ``raw_auc``, ``abtt_auc`` and ``whitening_auc``: the pair AUC of the untouched
    cloud and of the two chosen settings on the separate test split; ``centred_auc``: that of
    centring alone (``k = 0``, ``p = 0``), the baseline both remedies start from.
    """

    k: int
    power: float
    raw_auc: float
    abtt_auc: float
    whitening_auc: float
    centred_auc: float

    @property
    def winner(self) -> str:
        """``"all-but-the-top"`` or ``"whitening"``, whichever scores higher on the test split."""
        best = SweptRemedy.ALL_BUT_THE_TOP if self.abtt_auc >= self.whitening_auc else SweptRemedy.WHITENING
        return best.value


def choose_remedy(
    X_fit: np.ndarray,
    X_select: np.ndarray,
    y_select: np.ndarray,
    X_test: np.ndarray,
    y_test: np.ndarray,
    ks: Sequence[int] = range(11),
    powers: Sequence[float] = tuple(np.round(np.linspace(0.0, 1.0, 11), 2)),
    seed: int = 0,
) -> RemedyChoice:
    """Fit each remedy on ``X_fit``, choose its setting on ``X_select`` and score it on ``X_test``.

    The setting (``k`` of all-but-the-top, ``power`` of partial whitening) with the highest
    :func:`~shared.meters.pair_auc` (20,000 pairs, seed ``seed``) on the selection split is scored
    once on the test split, so the reported score is not the maximum of a sweep over the points it
    is scored on. Ties in the selection go to the smaller setting.
    """
    X_fit = _checks.cloud(X_fit, name="X_fit", min_rows=2)
    d = X_fit.shape[1]
    X_select, y_select = _split(X_select, y_select, d, "X_select", "y_select")
    X_test, y_test = _split(X_test, y_test, d, "X_test", "y_test")
    ks, powers = _settings(ks, powers, d - 1, why="fewer than the number of columns of X_fit")
    if not ks or not powers:
        raise ValueError("ks, powers: each needs at least one setting to choose from")
    seed = _checks.integer(seed, "seed", 0)

    fitted = _fitted(X_fit)
    if max(ks) > fitted.rank or fitted.rank < d:
        raise ValueError(f"X_fit: its covariance has rank {fitted.rank} of {d}; whitening and all-but-the-top need "
                         "more points than dimensions")
    for k in ks:
        _checks.top_directions_unique(fitted.w, k, "ks", of=" of X_fit")

    def select(X: np.ndarray) -> float:
        return labelled_pair_auc(X, y_select, seed, name="X_select", labels_name="y_select")

    def test(X: np.ndarray) -> float:
        return labelled_pair_auc(X, y_test, seed, name="X_test", labels_name="y_test")

    def chosen(apply, settings):
        scores = [select(apply(X_select, s, name="X_select")) for s in settings]
        best = settings[int(np.argmax(scores))]
        return best, test(apply(X_test, best, name="X_test"))

    k, abtt_auc = chosen(fitted.all_but_the_top, ks)
    power, white = chosen(fitted.zca_whiten, powers)
    centred = fitted.all_but_the_top(X_test, 0, name="X_test")
    return RemedyChoice(int(k), float(power), test(X_test), abtt_auc, white, test(centred))


def _fitted(X_fit: np.ndarray) -> FittedRemedies:
    """The remedies fitted on ``X_fit`` (one eigendecomposition serves every setting), refused if its
    points coincide: there is nothing to fit, not even the centring the choosers compare against."""
    fitted = FittedRemedies(X_fit, name="X_fit")
    if fitted.flat:
        raise _checks.coincident("X_fit", "no remedy can be fitted on it")
    return fitted


def _split(X: object, y: object, d: int, name: str, labels: str) -> tuple[np.ndarray, np.ndarray]:
    """A labelled split, checked: a cloud with ``d`` columns like ``X_fit``, and its labels, which
    must hold a pair of points in one class and a pair across two."""
    X = _checks.columns(_checks.cloud(X, name=name, min_rows=2), d, name, like="X_fit")
    y = _checks.labels(y, len(X), labels, rows_of=name)
    _checks.pair_classes(y, labels)
    return X, y


def _settings(ks: Sequence[int], powers: Sequence[float], top: int, why: str) -> tuple[list[int], list[float]]:
    """The settings to try, checked: each ``k`` in ``[0, top]`` and each power in ``[0, 1]``."""
    ks = [_checks.integer(k, f"ks[{i}]", 0, top, why=why) for i, k in enumerate(_checks.sequence(ks, "ks"))]
    powers = [_checks.real(p, f"powers[{i}]", 0.0, 1.0) for i, p in enumerate(_checks.sequence(powers, "powers"))]
    return ks, powers
