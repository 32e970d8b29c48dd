"""Input checks shared by every public function of the toolkit.

Each check raises ``ValueError`` naming the argument and the problem, so a bad call fails at the
boundary with a message a learner can act on, instead of surfacing later as a NaN.
"""

from __future__ import annotations

import numbers

import numpy as np


def as_rng(rng: np.random.Generator | int, name: str = "rng") -> np.random.Generator:
    """Return a ``numpy.random.Generator`` from a Generator or an int seed."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, bool):
        if rng < 0:
            raise ValueError(f"{name}: a seed must be a non-negative int, got {rng}")
        return np.random.default_rng(int(rng))
    raise ValueError(
        f"{name}: expected a numpy.random.Generator or an int seed, got {type(rng).__name__}"
    )


def cloud(X: object, name: str = "X", min_rows: int = 1) -> np.ndarray:
    """Check that ``X`` is a finite 2-D float array with at least ``min_rows`` rows and one column."""
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D array (points x dimensions), got shape {arr.shape}")
    if not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
        raise ValueError(f"{name}: expected real numbers, got dtype {arr.dtype}")
    if arr.shape[1] < 1:
        raise ValueError(f"{name}: needs at least one column (dimension), got shape {arr.shape}")
    if arr.shape[0] < min_rows:
        raise ValueError(
            f"{name}: needs at least {min_rows} rows (points), got {arr.shape[0]}"
        )
    arr = arr.astype(float, copy=False)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: contains NaN or infinite values")
    return arr


def spectrum(eigs: object, name: str = "eigs") -> np.ndarray:
    """Check that ``eigs`` is a 1-D, finite, non-negative spectrum with a positive sum."""
    arr = np.asarray(eigs, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D spectrum, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name}: the spectrum is empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: contains NaN or infinite values")
    if np.any(arr < 0):
        raise ValueError(f"{name}: eigenvalues must be non-negative, found {arr.min():.3g}")
    if not arr.sum() > 0:
        raise ValueError(f"{name}: all eigenvalues are zero; the cloud has no spread to measure")
    return arr


def integer(value: object, name: str, low: int, high: int | None = None) -> int:
    """Check that ``value`` is an int in ``[low, high]`` (``high=None``: no upper bound)."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise ValueError(f"{name}: expected an int, got {value!r}")
    if value < low or (high is not None and value > high):
        upper = "inf" if high is None else str(high)
        raise ValueError(f"{name}: must lie in [{low}, {upper}], got {value}")
    return int(value)


def real(value: object, name: str, low: float = -np.inf, high: float = np.inf) -> float:
    """Check that ``value`` is a finite real number in ``[low, high]``."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise ValueError(f"{name}: expected a real number, got {value!r}")
    value = float(value)
    if not np.isfinite(value) or value < low or value > high:
        raise ValueError(f"{name}: must be a finite number in [{low}, {high}], got {value}")
    return value
