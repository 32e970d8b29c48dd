"""Principal axes with a fixed sign convention, and the 2-D projection the figures draw."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import _checks


class PrincipalAxes(NamedTuple):
    """Covariance eigenvalues (``variances``, descending) and unit eigenvectors (``axes``, columns)."""

    variances: np.ndarray
    axes: np.ndarray


def principal_axes(X: np.ndarray) -> PrincipalAxes:
    r"""Covariance eigenvalues (descending) and their unit eigenvectors as columns.

    An eigenvector's sign is an arbitrary choice of the LAPACK build. Each column is flipped so
    that its entry of largest magnitude is positive (the convention of scikit-learn's
    ``svd_flip``), which makes projections reproducible wherever the eigenvalues are distinct.
    A cloud whose points coincide (up to rounding) has no axes, and is refused.
    """
    X = _checks.cloud(X, min_rows=2)
    _checks.spread(X, consequence="it has no principal axes")
    w, V, scale = scaled_axes(X)
    return PrincipalAxes(_checks.variances(w, scale), V)


def scaled_axes(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """:func:`principal_axes` of ``X / scale`` (no checks), and the power of two ``scale``.

    Dividing by a power of two is exact, so the axes are those of ``X`` itself, and the
    eigenvalues are those of ``X`` divided by ``scale**2``: nothing overflows at any magnitude.
    """
    scale = _checks.power_of_two(X)
    Xs = X / scale
    Xc = Xs - Xs.mean(axis=0)
    return (*eigen_axes(Xc.T @ Xc / len(X)), scale)


def eigen_axes(C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (descending, clipped at 0) and unit eigenvectors of the covariance ``C``, each
    column's sign fixed so that its entry of largest magnitude is positive."""
    w, V = np.linalg.eigh(C)
    w, V = w[::-1], V[:, ::-1]
    pivot = V[np.argmax(np.abs(V), axis=0), np.arange(V.shape[1])]
    return np.clip(w, 0.0, None), V * np.where(pivot < 0, -1.0, 1.0)


def pca_2d(X: np.ndarray) -> np.ndarray:
    r"""Coordinates of the centred cloud on its top two principal axes, shape ``(n, 2)``.

    :math:`P = (X - \bar x)\,[v_1\ v_2]`, with :math:`v_1, v_2` from :func:`principal_axes`.
    """
    X = _checks.cloud(X, min_rows=2)
    if X.shape[1] < 2:
        raise ValueError(f"X: a 2-D projection needs at least 2 dimensions, got {X.shape[1]}")
    _checks.spread(X, consequence="it has no principal axes to project on")
    _, V, scale = scaled_axes(X)
    Xs = X / scale
    return (Xs - Xs.mean(axis=0)) @ V[:, :2] * scale


class MeanPlane(NamedTuple):
    """:func:`mean_plane`: the rows' coordinates on the plane, and their angles to the mean direction."""

    coords: np.ndarray
    angles: np.ndarray


def mean_plane(X: np.ndarray) -> MeanPlane:
    r"""The rows, *not* centred, on the plane of their mean direction and their widest direction across it.

    With :math:`m = \bar x / \lVert \bar x\rVert` and :math:`v` the top principal axis of the rows
    with their component along :math:`m` removed, ``coords`` is :math:`[X m,\ X v]`, shape
    ``(n, 2)``: the origin stays at (0, 0), so a cone shows as a cloud that stands off the origin
    along the first axis, and a centred cloud as one around it. ``angles``: each row's angle to
    :math:`m` in degrees, :math:`\arccos(\hat x_i^\top m)`, in the full space (the picture cannot
    show all of it). The sign of :math:`v` follows :func:`principal_axes`' convention.
    """
    X = _checks.cloud(X, min_rows=2)
    if X.shape[1] < 2:
        raise ValueError(f"X: a 2-D projection needs at least 2 dimensions, got {X.shape[1]}")
    _checks.spread(X, consequence="it has no spread to draw")
    scale = _checks.power_of_two(X)
    Xs = X / scale  # exact: no overflow or underflow in the norms below
    mean = Xs.mean(axis=0)
    length = np.linalg.norm(mean)
    if not length > 8 * np.finfo(float).eps * np.max(np.linalg.norm(Xs, axis=1)):
        raise ValueError("X: its mean is the zero vector (up to rounding), so it has no mean direction")
    m = mean / length
    along = Xs @ m
    across = Xs - np.outer(along, m)
    _checks.spread(across, consequence="it has no spread across its mean direction to draw")
    v = scaled_axes(across)[1][:, 0]
    _checks.zero_row(X, np.arange(len(X)), "X", "it has no angle to the mean direction")
    norms = np.linalg.norm(Xs, axis=1)
    cos = np.divide(along, norms, out=np.zeros_like(along), where=norms > 0)
    tiny = norms == 0  # rows far below the largest one: their norms underflow at its scale, so use their own
    if tiny.any():
        R = X[tiny] / _checks.power_of_two(X[tiny], axis=1)
        cos[tiny] = R @ m / np.linalg.norm(R, axis=1)
    angles = np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))
    return MeanPlane(np.column_stack([along, Xs @ v]) * scale, angles)
