"""Post-processing that pulls a cone back toward a sphere: centring, all-but-the-top, whitening."""

from __future__ import annotations

import numpy as np

from . import _checks
from .pca import principal_axes


def all_but_the_top(X: np.ndarray, k: int = 2) -> np.ndarray:
    r"""Remove the mean and the top ``k`` principal directions (Mu & Viswanath 2018, arXiv:1702.01417).

    .. math::  \tilde x = (x - \mu) - \sum_{j \le k} \big(u_j^\top (x - \mu)\big)\,u_j

    with :math:`u_j` the top principal directions of the centred cloud. The paper projects the
    *uncentred* vector in its last step; this is the common centred variant, whose output has zero
    mean. The paper's rule of thumb is ``k ≈ d/100`` (2 for GloVe, 3 for word2vec at d = 300).
    ``k = 0`` is plain centring.
    """
    X = _checks.cloud(X, min_rows=2)
    k = _checks.integer(k, "k", 0, X.shape[1])
    Xc = X - X.mean(axis=0)
    _, V = principal_axes(X)
    top = V[:, :k]
    return Xc - (Xc @ top) @ top.T


def zca_whiten(X: np.ndarray, power: float = 1.0) -> np.ndarray:
    r"""ZCA whitening, or partial whitening with ``power`` :math:`p \in [0, 1]`.

    .. math::  z = \Sigma^{-p/2}(x - \mu) = U \Lambda^{-p/2} U^\top (x - \mu)

    ``p = 0`` only centres; ``p = 1`` is full ZCA: identity covariance, and of all whitening
    transforms the one that stays closest to the input coordinates (Kessy, Lewin & Strimmer 2018,
    arXiv:1512.00809). :math:`\Sigma^{-p/2}` is a function of the matrix, so it does not depend on
    which eigenvectors LAPACK picks, even where eigenvalues repeat. BERT-whitening (Su et al. 2021,
    arXiv:2103.15316) is the PCA variant, :math:`\Lambda^{-1/2}U^\top(x-\mu)`.
    """
    X = _checks.cloud(X, min_rows=2)
    power = _checks.real(power, "power", 0.0, 1.0)
    Xc = X - X.mean(axis=0)
    if power == 0:
        return Xc
    w, V = principal_axes(X)
    if w[-1] <= 1e-12 * w[0]:
        rank = int(np.sum(w > 1e-12 * w[0]))
        raise ValueError(
            f"X: its covariance is singular (rank {rank} of {X.shape[1]}), so whitening would divide "
            "by zero; remove the empty directions first or use more points than dimensions"
        )
    return Xc @ (V * w ** (-power / 2)) @ V.T


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
