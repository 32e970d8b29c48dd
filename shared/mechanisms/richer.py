"""Notebook 05's rich-get-richer loop: a spectrum whose largest share grows fastest, and what it does to vectors.

:func:`rich_get_richer_step` and :func:`rich_get_richer_run` run the loop on a spectrum,
:func:`rich_get_richer_vectors` on the vectors themselves (:class:`VectorLoop`), and
:func:`loop_cone_cosine` is the mean cosine it leaves when the mean's direction wins;
:func:`layer_norm` is the Transformer's normalisation, whose shared gain and bias the notebook
sets beside the loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import erf, sqrt

import numpy as np

from .. import _checks


def rich_get_richer_step(lam: np.ndarray, eta: float = 0.18) -> np.ndarray:
    r"""Grow each direction's variance in proportion to the share it already holds, then renormalise.

    .. math::  \lambda_k \leftarrow \lambda_k\,\Big(1 + \eta\, d\, \frac{\lambda_k}{\sum_j \lambda_j}\Big),
               \qquad \text{then } \lambda \leftarrow \lambda / \operatorname{mean}(\lambda)

    Positive feedback: a direction with a little more variance gets a larger update, so the
    spectrum tilts until one direction holds almost everything. This is a cartoon of a hypothesis,
    not a model of a real training run: that gradient updates concentrate on directions which
    already dominate. Gao et al. (2019, arXiv:1907.12009) and Yu et al. (2022, arXiv:2109.03127)
    trace degeneration to how gradients push (rare) token embeddings along shared directions.
    """
    lam = _checks.spectrum(lam, name="lam")
    eta = _checks.real(eta, "eta", 0.0)
    if eta * lam.size > 1e300:  # 1 + eta d share would overflow: divide it by eta (the renormalisation removes eta)
        lam = lam * (1.0 / eta + lam.size * lam / lam.sum())
    else:
        lam = lam * (1.0 + eta * lam.size * lam / lam.sum())
    return lam / lam.mean()


def rich_get_richer_run(
    eta: float = 0.18, steps: int = 60, unevenness: float = 0.05, d: int = 50, seed: int = 5
) -> np.ndarray:
    r"""Spectra over ``steps`` :func:`rich_get_richer_step` updates, shape ``(steps + 1, d)``.

    The start is nearly flat: :math:`\lambda_k = 1 + u\,\varepsilon_k` with ``u = unevenness``,
    floored at 0.2.
    """
    eta = _checks.real(eta, "eta", 0.0)
    steps = _checks.integer(steps, "steps", 0)
    unevenness = _checks.real(unevenness, "unevenness", 0.0)
    d = _checks.integer(d, "d", 1)
    _checks.allocation(("steps", steps + 1), ("d", d))
    _checks.work(("steps", steps), ("d", d))
    rng = _checks.as_rng(seed, "seed")
    lam = np.clip(1.0 + unevenness * rng.standard_normal(d), 0.2, None)
    history = [lam]
    for _ in range(steps):
        lam = rich_get_richer_step(lam, eta)
        history.append(lam)
    return np.array(history)


@dataclass(frozen=True)
class VectorLoop:
    """Vectors before (``start``) and after (``end``) :func:`rich_get_richer_vectors`.

    ``spectra[t]`` holds the eigenvalues of the uncentred second moment after ``t`` steps, in the
    order of ``axes`` (its eigenvectors, one per column); ``winner`` is the index of the direction
    that ends with the largest share, and ``winner_vs_mean`` the absolute cosine between that
    direction and the mean of the start.
    """

    start: np.ndarray
    end: np.ndarray
    spectra: np.ndarray
    axes: np.ndarray
    winner: int
    winner_vs_mean: float


def rich_get_richer_vectors(X: np.ndarray, eta: float = 0.18, steps: int = 60) -> VectorLoop:
    r"""Run the loop of :func:`rich_get_richer_step` on the *uncentred* vectors ``X`` (rows), not on a spectrum.

    The second moment :math:`M = X^\top X / n = U \operatorname{diag}(\lambda) U^\top` is what
    cosines and gradients see; unlike a covariance it includes the mean. The loop updates
    :math:`\lambda` and each vector is mapped along with it,
    :math:`x \leftarrow U \operatorname{diag}(\sqrt{\lambda_T / \lambda_0})\, U^\top x`. If the
    direction that wins is the mean's, every vector ends on the line of the mean, on the side its
    own coordinate had, and the mean cosine tends to :func:`loop_cone_cosine`; if another direction
    wins, the vectors end on a centred line, with a mean cosine near 0.
    """
    X = _checks.cloud(X, min_rows=2)
    eta = _checks.real(eta, "eta", 0.0)
    steps = _checks.integer(steps, "steps", 0)
    _checks.allocation(("steps", steps + 1), (None, X.shape[1]))  # the spectra
    _checks.work(("steps", steps), (None, X.shape[1]))
    unit = _checks.power_of_two(X)  # exact: work on X / unit so that no product overflows
    lam, U = np.linalg.eigh((X / unit).T @ (X / unit) / len(X))
    if not lam.min() > 0:
        raise ValueError("X: its second moment is singular (the vectors span fewer directions than they have "
                         "coordinates), so a direction with no variance cannot be grown; use more rows than columns")
    history = [lam / lam.mean()]
    for _ in range(steps):
        history.append(rich_get_richer_step(history[-1], eta))
    spectra = np.array(history)
    scale = np.sqrt(spectra[-1] / spectra[0])
    end = (((X / unit) @ U) * scale) @ U.T * unit
    winner = int(np.argmax(spectra[-1]))
    mean = (X / unit).mean(axis=0)
    norm = float(np.linalg.norm(mean))
    winner_vs_mean = float(abs(U[:, winner] @ mean) / norm) if norm > 0 else 0.0
    return VectorLoop(X, end, spectra, U, winner, winner_vs_mean)


def loop_cone_cosine(ratio: float) -> float:
    r"""The mean cosine a cloud :math:`x = \mu u + \sigma z` (``ratio`` = :math:`\mu / \sigma`) ends with
    when a loop collapses it onto the line of its mean: :math:`(2\Phi(\mu/\sigma) - 1)^2`.

    On that line two vectors have cosine +1 if their coordinates :math:`\mu + \sigma z_1` have the same
    sign and -1 otherwise; each is positive with probability :math:`\Phi(\mu/\sigma)`, so the mean
    cosine is :math:`(P_+ - P_-)^2 = \operatorname{erf}(\mu / (\sigma\sqrt 2))^2`.
    """
    ratio = _checks.real(ratio, "ratio", 0.0)
    return erf(ratio / sqrt(2.0)) ** 2


def layer_norm(X: np.ndarray, gain: np.ndarray | None = None, bias: np.ndarray | None = None) -> np.ndarray:
    r"""Layer normalisation of each row (Ba, Kiros & Hinton 2016, arXiv:1607.06450).

    .. math::  y = g \odot \frac{x - \operatorname{mean}(x)}{\operatorname{std}(x)} + b

    with the mean and standard deviation taken over the coordinates of the row, ``gain`` :math:`g`
    (default all ones) and ``bias`` :math:`b` (default zeros). Every Transformer block applies it, so
    its two learned vectors act on every token alike: a large entry of ``bias`` gives every token
    the same large coordinate (a shared offset), a large entry of ``gain`` stretches one coordinate
    of every token (the outlier dimensions Kovaleva et al. 2021, arXiv:2105.06990, find in BERT).
    """
    X = _checks.cloud(X)
    d = X.shape[1]
    if d < 2:
        raise ValueError("X: layer normalisation needs at least two coordinates per row")
    gain = np.ones(d) if gain is None else _checks.vector(gain, "gain")
    bias = np.zeros(d) if bias is None else _checks.vector(bias, "bias")
    for name, v in (("gain", gain), ("bias", bias)):
        if v.shape != (d,):
            raise ValueError(f"{name}: expected one entry per column of X ({d}), got shape {v.shape}")
    unit = _checks.power_of_two(X, axis=1)  # exact: the result does not depend on each row's scale
    Z = X / unit
    Z = Z - Z.mean(axis=1, keepdims=True)
    std = np.sqrt(np.mean(Z * Z, axis=1, keepdims=True))
    if not np.all(std > 0):
        raise ValueError("X: a row has all coordinates equal, so it has no spread to normalise")
    return gain * (Z / std) + bias
