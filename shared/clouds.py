"""Point clouds the course measures: the isotropic reference and the narrow cone."""

from __future__ import annotations

import numpy as np

from . import _checks


def make_isotropic(n: int, d: int, rng: np.random.Generator | int) -> np.ndarray:
    """An isotropic Gaussian cloud: ``n`` points ``x ~ N(0, I_d)``.

    Every direction carries the same variance and the mean is the origin, the reference geometry
    that partition isotropy is calibrated against (Arora et al. 2016, arXiv:1502.03520).
    """
    n = _checks.integer(n, "n", 1)
    d = _checks.integer(d, "d", 1)
    return _checks.as_rng(rng).standard_normal((n, d))


def make_cone(
    n: int,
    d: int,
    rng: np.random.Generator | int,
    strength: float = 4.0,
    residual: float = 0.10,
) -> np.ndarray:
    r"""A narrow cone: a shared, positive offset along one unit direction plus a small residual.

    .. math::  x_i = a_i\,u + \sigma\,\varepsilon_i,\quad a_i = s\,(0.15 + 0.85\,U_i),\quad
               U_i \sim \mathcal U(0, 1),\ \varepsilon_i \sim \mathcal N(0, I_d)

    with ``s = strength`` and ``sigma = residual``. Every coefficient ``a_i`` is positive, so all
    points lean the same way (high mean cosine), and it varies from point to point, so ``u`` also
    dominates the covariance spectrum: the geometry Gao et al. (2019, arXiv:1907.12009) call the
    narrow cone of the Representation Degeneration Problem.
    """
    n = _checks.integer(n, "n", 1)
    d = _checks.integer(d, "d", 1)
    strength = _checks.real(strength, "strength", 0.0)
    residual = _checks.real(residual, "residual", 0.0)
    if strength == 0 and residual == 0:
        raise ValueError("strength and residual: at least one must be positive, else every point is 0")
    rng = _checks.as_rng(rng)
    noise = residual * rng.standard_normal((n, d))
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    coeff = strength * (0.15 + 0.85 * rng.random((n, 1)))
    return noise + coeff * u


def random_rotation(d: int, rng: np.random.Generator | int) -> np.ndarray:
    r"""A uniformly random ``d x d`` orthogonal matrix (Haar measure).

    QR of a Gaussian matrix, with the signs of ``R``'s diagonal moved into ``Q`` so that the result
    does not depend on the sign convention of the LAPACK build (Mezzadri 2007, arXiv:math-ph/0609050).
    """
    d = _checks.integer(d, "d", 1)
    q, r = np.linalg.qr(_checks.as_rng(rng).standard_normal((d, d)))
    return q * np.where(np.diag(r) < 0, -1.0, 1.0)


def sphere_and_cone(
    strength: float = 4.0, residual: float = 0.10, n: int = 2000, d: int = 50, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """The course's two reference clouds, drawn in this order from one generator seeded ``seed``.

    Notebooks 01, 02 and 06 all start from this pair, so their figures agree with one another.
    """
    rng = _checks.as_rng(seed, "seed")
    X_iso = make_isotropic(n, d, rng)
    return X_iso, make_cone(n, d, rng, strength=strength, residual=residual)
