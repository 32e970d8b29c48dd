"""Meters of the directions of the rows: cosines between unit rows, their mean, and uniformity.

Each takes a cloud ``X`` of shape ``(n points, d dimensions)``; a zero row has no direction and is
left out (see :mod:`shared._checks`).
"""

from __future__ import annotations

import math

import numpy as np

from .. import _checks
from .registry import declare_meter


@declare_meter("mean random cosine", "+.3f")
def random_cosines(X: np.ndarray, rng: np.random.Generator | int, m: int = 6000) -> np.ndarray:
    r"""Cosine similarity of ``m`` random pairs of rows: :math:`\cos(x_i, x_j) = x_i^\top x_j / (\|x_i\|\|x_j\|)`.

    Its mean is the anisotropy baseline of Ethayarajh (2019, arXiv:1909.00512). Both indices are
    drawn independently and uniformly, so a pair may repeat a row (probability ``1/n``; it then
    scores 1). A zero row has no direction: the pairs are drawn from the non-zero rows, as if the
    zero rows had been removed (see :mod:`shared._checks`).

    The mean measures the shared offset of the cloud, not how many directions it uses (see
    :func:`~shared.meters.effective_rank`): a centred line scores about 0 and an off-centre Gaussian scores high.
    """
    a, b = _random_pairs(X, rng, m)
    return np.clip(np.einsum("ij,ij->i", a, b), -1.0, 1.0)


def _random_pairs(X: object, rng: np.random.Generator | int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors of ``m`` random pairs of rows, both indices drawn independently and uniformly."""
    X = _checks.cloud(X, min_rows=2)
    m = _checks.integer(m, "m", 1)
    _checks.allocation(("m", m), (None, X.shape[1]), (None, 2))
    X, _ = _checks.directions(X)
    rng = _checks.as_rng(rng)
    i = rng.integers(0, len(X), m)
    j = rng.integers(0, len(X), m)
    U = unit_rows(X)
    return U[i], U[j]


def unit_rows(X: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length; a zero row stays zero (it has no direction).

    Each row is first divided by a power of two near its largest entry (exact), so its norm
    neither overflows nor underflows, whatever its magnitude.
    """
    Xs = X / _checks.power_of_two(X, axis=1)
    norms = np.linalg.norm(Xs, axis=1, keepdims=True)
    return np.divide(Xs, norms, out=np.zeros_like(Xs), where=norms > 0)


def cosine_terms(X: np.ndarray, rng: np.random.Generator | int, m: int = 6000) -> np.ndarray:
    r"""Each coordinate's term in the cosine of ``m`` random pairs, shape ``(m, d)``.

    .. math::  t_{pk} = \frac{x_{ik}\,x_{jk}}{\|x_i\|\,\|x_j\|},\qquad \sum_k t_{pk} = \cos(x_i, x_j)

    for the same pairs :func:`random_cosines` draws from the same ``rng`` state. The column means
    are the per-dimension contributions to the mean cosine of Timkey & van Schijndel (2021,
    arXiv:2109.04404); one or a few "rogue" coordinates carrying most of every pair's cosine is the
    failure they find in Transformer language models. Zero rows are left out, as there.
    """
    a, b = _random_pairs(X, rng, m)
    return a * b


def gaussian_uniformity(d: int) -> float:
    r"""Uniformity of independent uniform directions on :math:`S^{d-1}`: :math:`-4 + \log {}_0F_1(; d/2; 4)`.

    :math:`t = u^\top v` has density :math:`\propto (1 - t^2)^{(d-3)/2}`, so :math:`\mathbb E\, e^{\kappa t} =
    \Gamma(\tfrac d2)(2/\kappa)^{d/2-1} I_{d/2-1}(\kappa) = {}_0F_1(; \tfrac d2; \kappa^2/4)`, at
    :math:`\kappa = 4` (Wang & Isola 2020, arXiv:2005.10242, ``t = 2``); ``d = 2`` gives :math:`I_0(4)`.
    """
    from scipy import special  # imported here: scipy takes longer to import than the rest of the toolkit

    d = _checks.integer(d, "d", 2)
    return -4.0 + math.log(special.hyp0f1(d / 2.0, 4.0))


@declare_meter("uniformity", ".3f", formula="log mean over pairs i < j of exp(-2 ||u_i - u_j||²), u the unit rows",
               range="[-4, 0]", invariances=("rotation", "scale", "row order"),
               rule="at most above", amount=0.5, sees="offset", column=6,
               gaussian=lambda n, d: gaussian_uniformity(d))
def uniformity(X: np.ndarray) -> float:
    r"""Wang–Isola uniformity (2020, arXiv:2005.10242) of the rows, projected to the unit sphere.

    .. math::  \mathcal L_{\text{uniform}} = \log \mathbb E_{i<j}\, e^{-2\|u_i - u_j\|^2} = -4 + \log \mathbb E_{i<j}\, e^{4\cos(x_i, x_j)}

    over all pairs (cost ``O(n^2 d)``). Lower is more uniform; the value is ``0`` when all points
    share one direction, and by Jensen at least ``-4 + 4 E[cos]``. Zero rows have no direction: they
    are left out, as if removed (at least two non-zero rows are needed).
    """
    X, _ = _checks.directions(_checks.cloud(X, min_rows=2))
    return pair_uniformity(unit_rows(X))[0]


def pair_uniformity(U: np.ndarray) -> tuple[float, np.ndarray]:
    r"""Uniformity over all pairs of the unit rows ``U`` (at least two), and the row sums it is made of.

    With :math:`E_{ij} = e^{-2\|u_i - u_j\|^2} = e^{4\cos_{ij} - 4} \in [e^{-8}, 1]` (no overflow, so
    no log-sum-exp is needed) and row sums :math:`r_i = \sum_{j \ne i} E_{ij}`, the value is
    :math:`\log(T / P)`, :math:`T = \tfrac12\sum_i r_i`, :math:`P = K(K-1)/2`. The row sums give the
    streaming report its jackknife error. Blocks of rows keep the memory at 512 x ``K`` cosines.
    """
    K = len(U)
    r = np.zeros(K)
    for a in range(0, K, 512):  # blocks of rows against the rows from the block on: each pair once
        E = U[a : a + 512] @ U[a:].T  # cosines; rounding may exceed 1 by 1e-16, which exp does not notice
        np.multiply(E, 4.0, out=E)
        np.subtract(E, 4.0, out=E)
        np.exp(E, out=E)
        b = len(E)
        E[:, :b] = np.triu(E[:, :b], k=1)  # within the block: each pair once, no i = j
        r[a : a + b] += E.sum(axis=1)
        r[a:] += E.sum(axis=0)
    return math.log(r.sum() / 2.0 / (K * (K - 1) / 2.0)), r


@declare_meter("mean cosine", "+.3f", formula="mean over pairs i != j of cos(x_i, x_j)",
               range="[-1/(n-1), 1]", invariances=("rotation", "scale", "row order"),
               rule="within", amount=0.1, sees="offset", column=2, gaussian=lambda n, d: 0.0)
def mean_cosine(X: np.ndarray) -> float:
    r"""Exact mean cosine similarity over all pairs of distinct rows, in ``O(n d)``.

    .. math::  \frac{1}{n(n-1)} \sum_{i \ne j} u_i^\top u_j = \frac{\lVert \sum_i u_i \rVert^2 - \sum_i \lVert u_i \rVert^2}{n(n-1)},
               \qquad u_i = x_i / \lVert x_i \rVert

    The anisotropy baseline of Ethayarajh (2019, arXiv:1909.00512) without sampling noise (what
    :func:`random_cosines` estimates from random pairs). A zero row has no direction: the pairs
    are those of the non-zero rows, as if the zero rows had been removed (at least two are needed),
    as :func:`shared.report.isotropy_report` counts them.
    """
    X, _ = _checks.directions(_checks.cloud(X, min_rows=2))
    total, squares = np.zeros(X.shape[1]), 0.0
    for a in range(0, len(X), ROW_CHUNK):  # in row chunks: a whole vocabulary needs no second copy
        U = unit_rows(X[a:a + ROW_CHUNK])
        total += U.sum(axis=0)
        squares += np.sum(U * U)
    value = (total @ total - squares) / (len(X) * (len(X) - 1))
    return float(np.clip(value, -1.0 / (len(X) - 1), 1.0))  # its bounds, which rounding may cross by 1e-16


ROW_CHUNK = 8192  # rows :func:`mean_cosine` scales at a time


def cross_group_cosines(X: np.ndarray, groups: np.ndarray) -> np.ndarray:
    r"""Each coordinate's contribution to the mean cosine over *all* pairs of rows in different groups.

    With unit rows :math:`u_i`, the sum over ordered pairs :math:`(i, j)` from different groups is
    :math:`\sum_{g(i) \ne g(j)} u_i^\top u_j = \|\sum_i u_i\|^2 - \sum_g \|\sum_{i \in g} u_i\|^2`,
    and it splits coordinate by coordinate. Dividing by the number of such pairs gives the
    contributions :math:`c_k`, whose sum is the exact mean cosine that :func:`random_cosines`
    estimates by sampling. Ethayarajh (2019, arXiv:1909.00512) pairs words from different
    contexts; with a sentence index as ``groups``, so does this. The largest :math:`c_k` is the
    "rogue dimension" of Timkey & van Schijndel (2021, arXiv:2109.04404). No sampling, so no seed:
    the value is exact and cheap (``O(n d)``). Zero rows (no direction) are left out with their groups.
    """
    X = _checks.cloud(X, min_rows=2)
    groups = _checks.labels(groups, len(X), "groups")
    X, keep = _checks.directions(X)
    groups = groups[keep]
    _, inverse, sizes = np.unique(groups, return_inverse=True, return_counts=True)
    pairs = len(X) ** 2 - int(np.sum(sizes.astype(np.int64) ** 2))
    if pairs == 0:
        raise ValueError("groups: every row is in the same group, so there is no pair from different groups")
    order = np.argsort(inverse, kind="stable")
    U = unit_rows(X)
    per_group = np.add.reduceat(U[order], np.concatenate([[0], np.cumsum(sizes)[:-1]]), axis=0)
    return (U.sum(axis=0) ** 2 - np.sum(per_group**2, axis=0)) / pairs
