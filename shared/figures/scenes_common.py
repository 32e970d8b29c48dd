"""What the scenes of both halves of the course share: cosine bins, spectra as fractions, densities."""

from __future__ import annotations

import numpy as np

from ..meters import Reading

__all__ = ["COSINE_BINS", "Readings", "density", "fractions"]

Readings = dict[str, list[Reading]]

COSINE_BINS = np.linspace(-1.0, 1.0, 60)


def fractions(eigs: np.ndarray) -> np.ndarray:
    """Eigenvalues as fractions of the total variance; exact zeros become NaN (no point on a log axis)."""
    f = eigs / eigs.sum()
    return np.where(f > 0, f, np.nan)


def density(values: np.ndarray, bins: np.ndarray = COSINE_BINS) -> np.ndarray:
    """Histogram of ``values`` over ``bins`` as a density (area 1 over the bins)."""
    counts, _ = np.histogram(values, bins=bins)
    return counts / (counts.sum() * np.diff(bins))
