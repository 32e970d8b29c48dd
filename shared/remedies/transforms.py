"""The remedies themselves: post-processing that pulls a cone back toward a sphere.

:class:`FittedRemedies` fits them on one cloud (its mean, one eigendecomposition of its covariance,
its Ledoit-Wolf shrinkage) and applies them to any points: centring and all-but-the-top, whitening
(full, partial, of the top directions, or with shrinkage). It is where they are computed. The
functions :func:`all_but_the_top`, :func:`all_but_the_top_as_written`, :func:`zca_whiten` and
:func:`shrunk_whiten` are that object fitted on their ``fit`` (default: the points themselves),
each documenting its formula, and :func:`ledoit_wolf` is its shrunk covariance; :func:`standardize`,
with nothing to fit, stands alone."""

from __future__ import annotations

import numpy as np

from collections.abc import Callable

from .. import _checks
from ..meters import numerical_rank
from ..geometry import eigen_axes


def _fit_cloud(X: object, fit: object) -> tuple[np.ndarray, np.ndarray, str]:
    """``X``, the cloud a remedy's statistics are estimated on (``fit`` if given, else ``X``) and
    that cloud's name. ``X`` may be a single point when ``fit`` is given."""
    if fit is None:
        X = _checks.cloud(X, min_rows=2)
        return X, X, "X"
    X = _checks.cloud(X)
    fit = _checks.columns(_checks.cloud(fit, name="fit", min_rows=2), X.shape[1], "fit", like="X")
    return X, fit, "fit"


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
    return FittedRemedies(ref, name=ref_name).all_but_the_top(X, k)


def all_but_the_top_as_written(X: np.ndarray, k: int = 2, fit: np.ndarray | None = None) -> np.ndarray:
    r"""Mu & Viswanath's Algorithm 1 (2018, arXiv:1702.01417) as written: the last step projects the
    *uncentred* vector.

    .. math::  \tilde x = (x - \mu) - \sum_{j \le k} (u_j^\top x)\,u_j
               = \text{all\_but\_the\_top}(x) - \sum_{j \le k} (u_j^\top \mu)\,u_j

    It differs from :func:`all_but_the_top` (the centred variant) by the same vector for every
    point, the projection of the mean on the removed directions: along each removed direction
    every output has the coordinate :math:`-u_j^\top\mu` instead of 0, so the output's mean is not
    0 unless the mean was orthogonal to them. Cosines, and partition isotropy at the vectors' own
    scale, see that shift. The sign of :math:`u_j` does not matter: the projection does not depend
    on it.
    """
    X, ref, ref_name = _fit_cloud(X, fit)
    return FittedRemedies(ref, name=ref_name).all_but_the_top_as_written(X, k)


def _project_out(Xc: np.ndarray, top: np.ndarray) -> np.ndarray:
    """The rows ``Xc`` without their projections on the orthonormal columns ``top``, computed on
    ``Xc`` divided by a power of two (exact), so no step overflows where the result does not."""
    scale = _checks.power_of_two(Xc)
    Xs = Xc / scale
    return (Xs - (Xs @ top) @ top.T) * scale


def _rescale(Xc: np.ndarray, w: np.ndarray, U: np.ndarray, scale: float, power: float, names: str) -> np.ndarray:
    """:math:`U \\Lambda^{-p/2} U^\\top x` for centred rows ``Xc``, with ``w`` the eigenvalues of the
    covariance of the fit cloud divided by ``scale**2`` (as :class:`FittedRemedies` keeps them). Refused,
    naming the caller's arguments ``names``, when the result is beyond the float64 range (points far
    larger than the fit cloud's spread, which is far below the smallest normal float)."""
    with np.errstate(over="ignore", invalid="ignore"):  # checked just below: a refusal, not an inf
        Z = (Xc / scale) @ (U * w ** (-power / 2)) @ U.T * scale ** (1 - power)
    if not np.all(np.isfinite(Z)):
        raise ValueError(f"{names}: the whitened points exceed the float64 range: the fit cloud's spread "
                         f"({scale:.1e}) is far smaller than the points; scale both clouds alike")
    return Z


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
    A fit cloud whose points coincide (up to rounding) has no variance to whiten, and is refused
    (unless ``power = 0`` and ``rank`` is ``None`` or ``d``: then the points are only centred).
    """
    X, ref, ref_name = _fit_cloud(X, fit)
    return FittedRemedies(ref, name=ref_name).zca_whiten(X, power, rank)


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



def ledoit_wolf(X: np.ndarray) -> tuple[np.ndarray, float]:
    r"""The Ledoit-Wolf shrunk covariance of ``X`` and its shrinkage :math:`\delta \in [0, 1]`.

    .. math::  \hat\Sigma = (1 - \delta)\,S + \delta\,\bar\lambda I,\qquad
               \bar\lambda = \operatorname{tr} S / d,\qquad
               \delta = \min(\bar b^2, m^2) / m^2

    with :math:`S` the (biased) sample covariance, :math:`m^2 = \lVert S - \bar\lambda I\rVert_F^2`
    and :math:`\bar b^2 = n^{-2}\sum_i \lVert x_i x_i^\top - S\rVert_F^2` for the centred rows
    (Ledoit & Wolf 2004, *A well-conditioned estimator for large-dimensional covariance matrices*,
    J. Multivariate Anal. 88). The shrunk covariance is positive definite even when ``X`` has
    fewer rows than columns, so it can be inverted where the sample covariance cannot.
    """
    fitted = FittedRemedies(_checks.cloud(X, min_rows=2), name="X")
    if fitted.flat:
        raise _checks.coincident("X", "it has no covariance to shrink")
    C, delta = fitted.covariance, fitted.shrinkage
    d = len(C)
    shrunk = (1 - delta) * C + delta * np.trace(C) / d * np.eye(d)
    _checks.variances(np.diag(shrunk), fitted.scale)  # refuses variances float64 cannot hold
    return np.ldexp(shrunk, 2 * (int(np.frexp(fitted.scale)[1]) - 1)), delta


def _shrinkage(fourth: float, frob2: float, trace: float, n: int, d: int) -> float:
    """Ledoit and Wolf's :math:`\\delta` from the sums of centred rows: ``fourth`` =
    :math:`\\sum_i \\lVert x_i\\rVert^4`, ``frob2`` = :math:`\\lVert S\\rVert_F^2`, ``trace`` = :math:`\\operatorname{tr} S`."""
    m2 = frob2 - trace**2 / d  # |S - tr(S)/d I|_F^2
    b2 = (fourth - n * frob2) / n**2
    return 0.0 if m2 <= 0 else float(min(max(b2, 0.0), m2) / m2)


def shrunk_whiten(X: np.ndarray, fit: np.ndarray | None = None) -> np.ndarray:
    r"""ZCA whitening with the Ledoit-Wolf shrunk covariance of ``fit`` (default: ``X``).

    .. math::  z = \hat\Sigma^{-1/2}(x - \mu),\qquad \hat\Sigma = (1 - \delta)S + \delta\bar\lambda I

    (:func:`ledoit_wolf`). Full-rank whitening divides by the smallest sample variances, which are
    the worst estimated when there are few points per dimension; shrinkage pulls every variance
    towards the average before dividing, so it is defined with fewer points than dimensions. Where
    the estimated shrinkage is 0 and the sample covariance singular it is refused (two points, for
    one: their two centred rows are opposite, so the estimate sees no sampling noise), as it is for a
    fit cloud whose points coincide and for points whose result float64 cannot hold.
    """
    X, ref, ref_name = _fit_cloud(X, fit)
    return FittedRemedies(ref, name=ref_name).shrunk_whiten(X)


class FittedRemedies:
    """A remedy fitted on one cloud, to apply to any points: the one place the remedies are computed.

    The fit cloud's mean, covariance (``covariance``, of the cloud divided by ``scale``), its
    eigendecomposition (``w``, ``V``, ``rank``) and Ledoit-Wolf shrinkage are computed once, and
    ``all_but_the_top(X, k)``, ``all_but_the_top_as_written(X, k)``, ``zca_whiten(X, power, rank)``
    and ``shrunk_whiten(X)`` apply them to ``X``; the module's functions of the same names, and
    :func:`ledoit_wolf`, are this object fitted on their ``fit`` (default ``X``). Sweeping many
    settings or remedies over one fit costs one eigendecomposition. ``name`` is the fit cloud's
    name in refusals; each method's ``name`` is that of its points, and ``arg`` that of ``k``. If
    the fit cloud's points coincide up to rounding (``flat``), centring is all that can be applied;
    the rest is refused. A fit cloud of more than :attr:`CHUNK` rows is read that many rows at a
    time (a memory map is never read whole), so its sums agree with a one-pass fit to rounding.
    """

    #: Rows read at a time from a fit cloud larger than this (a memory map is never read whole).
    CHUNK = 65_536

    def __init__(self, fit: np.ndarray, name: str = "fit") -> None:
        try:
            n = len(fit)
        except TypeError:  # no length (a 0-d array, an object with only __array__): read it whole
            n = None
        if n is None or n <= self.CHUNK:
            fit = _checks.cloud(fit, name=name, min_rows=2)
        n = len(fit)
        chunks = [(a, min(a + self.CHUNK, n)) for a in range(0, n, self.CHUNK)]
        part = (lambda a, b: fit[a:b]) if n <= self.CHUNK else (lambda a, b: _checks.cloud(fit[a:b], name=name))
        # three passes over the rows: their largest magnitudes, their mean, then the covariance and
        # fourth moment. Dividing by a power of two is exact: the mean is taken per column (a column
        # far smaller than the others is still centred), the covariance on the cloud / scale.
        top = np.max([np.max(np.abs(part(a, b)), axis=0) for a, b in chunks], axis=0)
        columns = _checks.power_of_two(top[None, :], axis=0)[0]
        self.scale = _checks.power_of_two(top)
        self.mean = sum(np.sum(part(a, b) / columns, axis=0) for a, b in chunks) / n * columns
        C, fourth, total = 0.0, 0.0, 0.0
        for a, b in chunks:
            Xs = part(a, b) / self.scale
            Xc = Xs - self.mean / self.scale
            C = C + Xc.T @ Xc
            fourth += np.sum(np.sum(Xc**2, axis=1) ** 2)
            total += np.sum(Xs**2) if n > self.CHUNK else 0.0
        self.covariance = C / n
        self.name = name
        #: Whether the fit cloud's points coincide up to rounding (:func:`shared._checks.flat`'s rule).
        self.flat = bool(_checks.flat(fit) if n <= self.CHUNK else
                         _checks.at_rounding(np.sqrt(n * np.trace(self.covariance)), np.sqrt(total), max(n, len(top))))
        self.w, self.V = eigen_axes(self.covariance)
        self.rank = numerical_rank(self.w)
        self._delta = _shrinkage(fourth, np.sum(self.w**2), np.sum(self.w), n, len(self.w))  # S in its eigenbasis

    @property
    def shrinkage(self) -> float:
        r"""Ledoit and Wolf's :math:`\delta` for the fit cloud (:func:`ledoit_wolf`)."""
        return self._delta

    def _top(self, k: int, arg: str) -> np.ndarray:
        """The top ``k`` principal directions (columns), refused where they are not unique: when the fit
        cloud has fewer than ``k`` directions with variance, or eigenvalues ``k`` and ``k + 1`` coincide."""
        if k and self.flat:
            raise _checks.coincident(self.name, "it has no principal directions")
        if k > self.rank:
            raise ValueError(
                f"{arg}: {self.name} has only {self.rank} directions with variance (numerical rank {self.rank} of "
                f"{len(self.w)}), so its top {k} are not defined; pass {arg}={self.rank} or less, or use more points"
            )
        _checks.top_directions_unique(self.w, k, arg)
        return self.V[:, :k]

    def _points(self, X: object, name: str) -> np.ndarray:
        """``X`` checked: a cloud with as many columns as the fit cloud."""
        return _checks.columns(_checks.cloud(X, name=name), len(self.w), name,
                               like=f"the cloud the remedies were fitted on ({self.name})")

    def _names(self, name: str) -> str:
        """The arguments a result beyond float64 is blamed on: the points and, if another cloud, the fit."""
        return name if name == self.name else f"{name}, {self.name}"

    def _finite(self, make: Callable[[], np.ndarray], name: str) -> np.ndarray:
        """``make()``, refused by name if it leaves the float64 range (points near the largest float)."""
        with np.errstate(over="ignore", invalid="ignore"):  # checked just below: a refusal, not an inf
            Z = make()
        if not np.all(np.isfinite(Z)):
            raise ValueError(f"{self._names(name)}: the result exceeds the float64 range (the points or the fit "
                             "cloud's mean lie near the largest float); divide both by a constant first")
        return Z

    def _k(self, k: object, arg: str) -> int:
        return _checks.integer(k, arg, 0, len(self.w), why="at most the number of columns of X")

    def all_but_the_top(self, X: np.ndarray, k: int, name: str = "X", arg: str = "k") -> np.ndarray:
        """:func:`all_but_the_top` of ``X`` with ``fit`` this cloud."""
        k = self._k(k, arg)
        X = self._points(X, name)
        top = self._top(k, arg) if k else None
        return self._finite(lambda: X - self.mean if top is None else _project_out(X - self.mean, top), name)

    def all_but_the_top_as_written(self, X: np.ndarray, k: int, name: str = "X", arg: str = "k") -> np.ndarray:
        """:func:`all_but_the_top_as_written` of ``X`` with ``fit`` this cloud."""
        k = self._k(k, arg)
        X = self._points(X, name)
        top = self._top(k, arg) if k else self.V[:, :0]
        scale = max(_checks.power_of_two(X), _checks.power_of_two(self.mean))  # exact: see _project_out
        Xs, mean = X / scale, self.mean / scale
        return self._finite(lambda: (Xs - mean - (Xs @ top) @ top.T) * scale, name)

    def zca_whiten(self, X: np.ndarray, power: float = 1.0, rank: int | None = None, name: str = "X") -> np.ndarray:
        """:func:`zca_whiten` of ``X`` with ``fit`` this cloud."""
        power = _checks.real(power, "power", 0.0, 1.0)
        d = len(self.w)
        r = d if rank is None else _checks.integer(rank, "rank", 1, d, why="at most the number of columns of X")
        X = self._points(X, name)
        Xc = self._finite(lambda: X - self.mean, name)
        if power == 0 and r == d:
            return Xc  # centring only: defined even where the covariance is singular
        if self.flat:
            raise _checks.coincident(self.name, "there is no variance to whiten")
        if r > self.rank:
            raise ValueError(
                f"{self.name}: its covariance is singular (rank {self.rank} of {d}), so whitening would divide "
                f"by zero; pass rank={self.rank} to drop the empty directions, or use more points than dimensions"
            )
        U = self._top(r, "rank") if r < d else self.V
        return _rescale(Xc, self.w[:r], U, self.scale, power, names=self._names(name))

    def shrunk_whiten(self, X: np.ndarray, name: str = "X") -> np.ndarray:
        """:func:`shrunk_whiten` of ``X`` with ``fit`` this cloud."""
        if self.flat:
            raise _checks.coincident(self.name, "it has no covariance to shrink")
        shrunk = (1 - self._delta) * self.w + self._delta * self.w.mean()
        if shrunk.min() <= 0:
            raise ValueError(f"{self.name}: its shrunk covariance is still singular (shrinkage {self._delta:.3g}); "
                             "use more points")
        X = self._points(X, name)
        Xc = self._finite(lambda: X - self.mean, name)
        return _rescale(Xc, shrunk, self.V, self.scale, 1.0, names=self._names(name))
