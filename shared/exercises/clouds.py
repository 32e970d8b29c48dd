"""The clouds that several notebooks' checks build their cases from."""

from __future__ import annotations

import numpy as np


def gaussian_cloud(n: int, d: int, seed: int, scales: tuple[float, ...] | None = None, shift: float = 0.0) -> np.ndarray:
    """A Gaussian cloud with distinct per-axis scales (so principal directions are unique)."""
    rng = np.random.default_rng(seed)
    scales = np.linspace(3.0, 0.5, d) if scales is None else np.asarray(scales)
    return rng.standard_normal((n, d)) * scales + shift * rng.standard_normal(d)


def unit(X: np.ndarray) -> np.ndarray:
    """The rows of ``X`` divided by their norms (the checks' clouds have no zero row)."""
    return X / np.linalg.norm(X, axis=1, keepdims=True)
