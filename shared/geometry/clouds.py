"""Point clouds the course measures: the isotropic reference and the narrow cone."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .. import _checks


def make_isotropic(n: int, d: int, rng: np.random.Generator | int) -> np.ndarray:
    """An isotropic Gaussian cloud: ``n`` points ``x ~ N(0, I_d)``.

    Every direction carries the same variance and the mean is the origin, the reference geometry
    that partition isotropy is calibrated against (Arora et al. 2016, arXiv:1502.03520).
    """
    n = _checks.integer(n, "n", 1)
    d = _checks.integer(d, "d", 1)
    _checks.allocation(("n", n), ("d", d))
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
    _checks.allocation(("n", n), ("d", d))
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


def gaussian_with_spectrum(n: int, variances: np.ndarray, rng: np.random.Generator | int) -> np.ndarray:
    r"""``n`` centred Gaussian points whose covariance has eigenvalues ``variances`` (in expectation),
    along the axes of a uniformly random rotation: :math:`x = Q\,\operatorname{diag}(\sqrt{\lambda})\,z`,
    :math:`z \sim \mathcal N(0, I)`.

    Turns a spectrum (for example one step of a rich-get-richer run) into a cloud that notebook
    01's meters can measure.
    """
    n = _checks.integer(n, "n", 1)
    lam = _checks.spectrum(variances, name="variances", scaled=False)  # the variances asked for, not their ratios
    _checks.allocation(("n", n), ("variances", lam.size))
    rng = _checks.as_rng(rng)
    Z = rng.standard_normal((n, lam.size)) * np.sqrt(lam)
    return Z @ random_rotation(lam.size, rng).T


def random_rotation(d: int, rng: np.random.Generator | int) -> np.ndarray:
    r"""A uniformly random ``d x d`` orthogonal matrix (Haar measure).

    QR of a Gaussian matrix, with the signs of ``R``'s diagonal moved into ``Q`` so that the result
    does not depend on the sign convention of the LAPACK build (Mezzadri 2007, arXiv:math-ph/0609050).
    """
    d = _checks.integer(d, "d", 1)
    _checks.allocation(("d", d), (None, d))
    q, r = np.linalg.qr(_checks.as_rng(rng).standard_normal((d, d)))
    return q * np.where(np.diag(r) < 0, -1.0, 1.0)


class SphereAndCone(NamedTuple):
    """The course's two reference clouds (:func:`sphere_and_cone`)."""

    iso: np.ndarray
    cone: np.ndarray


def sphere_and_cone(
    strength: float = 4.0, residual: float = 0.10, n: int = 2000, d: int = 50, seed: int = 0
) -> SphereAndCone:
    """The course's two reference clouds, drawn in this order from one generator seeded ``seed``:
    :func:`make_isotropic`, then :func:`make_cone` with ``strength`` and ``residual``.

    Notebooks 01, 02 and 06 all start from this pair, so their figures agree with one another.
    """
    rng = _checks.as_rng(seed, "seed")
    X_iso = make_isotropic(n, d, rng)
    return SphereAndCone(X_iso, make_cone(n, d, rng, strength=strength, residual=residual))


@dataclass(frozen=True)
class PlantedCloud:
    """A cloud with structure that matters: ``labels`` are carried by the ``signal`` directions.

    ``signal`` holds the planted label directions as orthonormal columns, ``cone`` the unit
    direction of the shared offset; every other direction is weak noise.
    """

    X: np.ndarray
    labels: np.ndarray
    signal: np.ndarray
    cone: np.ndarray


def make_planted(
    n: int,
    d: int,
    rng: np.random.Generator | int,
    classes: int = 5,
    signal_dims: int = 4,
    separation: float = 2.0,
    offset: float = 30.0,
    noise: float = 0.3,
    within: float = 1.0,
    strong_dims: int = 0,
    strong_separation: float = 2.0,
    strong_within: float = 1.0,
    noise_decay: float = 0.0,
) -> PlantedCloud:
    r"""Labelled points whose labels live in a few strong directions, inside a cone, plus weak noise.

    In an orthonormal basis drawn at random: the first ``signal_dims`` coordinates are the class
    mean (each :math:`\mathcal N(0, \text{separation}^2)`) plus Gaussian noise of standard deviation
    ``within``; the next one is
    the cone's positive, varying offset :math:`\text{offset}\cdot(0.15 + 0.85\,U)`, as in
    :func:`make_cone`; the remaining ``d - signal_dims - 1`` are Gaussian noise of standard deviation
    ``noise``. A toy of the picture in which a representation stores useful information in a few
    directions under a shared offset (Gao et al. 2019, arXiv:1907.12009), on which the cost of
    isotropising can be measured.

    With ``strong_dims = s > 0`` the first ``s`` of the ``signal_dims`` label directions use
    ``strong_separation`` and ``strong_within`` instead: labels that sit in strong *and* weak
    directions at once (notebook 06's mixed cloud).

    ``noise_decay`` = :math:`a` shapes the noise spectrum: the :math:`j`-th noise direction gets a
    variance proportional to :math:`j^{-a}`, scaled so that the noise directions still average
    ``noise**2``. With 0 (the default) the noise is isotropic; with 3 a few noise directions carry
    most of it, a power law like the spectra of trained models.
    """
    n = _checks.integer(n, "n", 2)
    d = _checks.integer(d, "d", 3)
    _checks.allocation(("n", n), ("d", d))
    _checks.allocation(("d", d), (None, d))
    classes = _checks.integer(classes, "classes", 2)
    signal_dims = _checks.integer(signal_dims, "signal_dims", 1, d - 2)
    separation = _checks.real(separation, "separation", 0.0)
    offset = _checks.real(offset, "offset", 0.0)
    noise = _checks.real(noise, "noise", 0.0)
    within = _checks.real(within, "within", 0.0)
    strong_dims = _checks.integer(strong_dims, "strong_dims", 0, signal_dims, why="at most signal_dims")
    strong_separation = _checks.real(strong_separation, "strong_separation", 0.0)
    strong_within = _checks.real(strong_within, "strong_within", 0.0)
    _checks.allocation(("classes", classes), ("signal_dims", signal_dims))  # the class means
    sep = np.where(np.arange(signal_dims) < strong_dims, strong_separation, separation)
    spread = np.where(np.arange(signal_dims) < strong_dims, strong_within, within)
    rng = _checks.as_rng(rng)
    labels = rng.integers(0, classes, n)
    basis = random_rotation(d, rng)
    means = sep * rng.standard_normal((classes, signal_dims))
    signal = means[labels] + spread * rng.standard_normal((n, signal_dims))
    cone = offset * (0.15 + 0.85 * rng.random((n, 1)))
    noise_decay = _checks.real(noise_decay, "noise_decay", 0.0)
    shape = np.arange(1, d - signal_dims, dtype=float) ** (-noise_decay / 2)  # standard deviations, j^(-a/2)
    shape /= np.sqrt(np.mean(shape**2))  # the noise directions average a variance of noise**2
    rest = noise * shape * rng.standard_normal((n, d - signal_dims - 1))
    X = np.hstack([signal, cone, rest]) @ basis.T
    return PlantedCloud(X, labels, basis[:, :signal_dims], basis[:, signal_dims])
