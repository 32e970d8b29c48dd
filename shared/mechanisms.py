"""Toy versions of the three mechanisms that drag a latent space into a cone, and their runs.

Each notebook prints the source of the mechanism it teaches from here, so the code the learner
reads is the code that runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _checks
from .clouds import make_isotropic
from .meters import random_cosines


def softmax_rows(S: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    r"""Row-wise softmax :math:`A_{ij} = e^{S_{ij}} / \sum_k e^{S_{ik}}`, shifted by the row maximum.

    The attention weights of a Transformer (Vaswani et al. 2017, arXiv:1706.03762). Subtracting
    :math:`\max_k S_{ik}` leaves the result unchanged and keeps ``exp`` from overflowing, so any
    finite score matrix gives finite, row-stochastic weights. Pass ``out=S`` to overwrite the
    scores in place (saves allocating a second ``n x n`` array); ``out`` must be a writeable
    float64 array of the shape of ``S``.
    """
    S = _checks.cloud(S, name="S")
    if out is not None:
        if not isinstance(out, np.ndarray) or out.dtype != np.float64:
            raise TypeError(f"out: expected a float64 numpy array to write the weights into, got {type(out).__name__}"
                            + (f" of dtype {out.dtype}" if isinstance(out, np.ndarray) else ""))
        if out.shape != S.shape:
            raise ValueError(f"out: expected the shape of S, {S.shape}, got {out.shape}")
        if not out.flags.writeable:
            raise ValueError("out: is read-only; pass a writeable array, or out=None")
    top = S.max(axis=1, keepdims=True)
    far = S / 2 - top / 2 < -400.0  # weight exp(S - top) = 0 there, and S - top may overflow float64
    A = np.subtract(S, top, out=out, where=~far)
    A[far] = -np.inf
    np.exp(A, out=A)
    A /= A.sum(axis=1, keepdims=True)
    return A


# Notebook 03 prints this function's source: change it only together with the notebook.
def attention_step(X: np.ndarray, beta: float = 0.6, alpha: float = 0.09) -> np.ndarray:
    r"""One residual self-attention update with identity query, key and value maps.

    .. math::  X \leftarrow X + \alpha\,\big(\operatorname{softmax}(\beta X X^\top)\,X - X\big)

    Each token moves a fraction ``alpha`` of the way to a softmax-weighted average of all tokens.
    An average lies in the convex hull of the tokens, so the cloud can only shrink: the
    contraction behind the rank collapse of Dong, Cordonnier & Loukas (2021, arXiv:2103.03404)
    and the clustering of Geshkovski et al. (2023, arXiv:2312.10794). ``beta`` sets how peaked
    the attention is; small ``beta`` averages almost uniformly.
    """
    X = _checks.cloud(X)
    beta = _checks.real(beta, "beta", 0.0)
    alpha = _checks.real(alpha, "alpha", 0.0, 1.0)
    scores = X @ X.T
    scores *= beta
    A = softmax_rows(scores, out=scores)
    return X + alpha * (A @ X - X)


def angular_spread(X: np.ndarray) -> float:
    r"""Spread of the polar angles of a 2-D cloud, in radians, around their circular mean.

    The circular mean is the angle of :math:`\sum_i x_i / \|x_i\|`; each angle's difference
    from it is wrapped into :math:`(-\pi, \pi]` before the standard deviation is taken, so a
    cloud straddling the negative x-axis is not counted as spread out. For a cloud with no
    preferred direction the circular mean is arbitrary, and the value is only a rough size.
    """
    X = _checks.cloud(X)
    if X.shape[1] != 2:
        raise ValueError(f"X: angular spread is defined for 2-D clouds, got {X.shape[1]} columns")
    X = X / _checks.power_of_two(X)  # exact: angles do not depend on the scale
    z = X[:, 0] + 1j * X[:, 1]
    z = z[z != 0]
    if z.size == 0:
        raise ValueError("X: every point is at the origin, so no point has an angle")
    mean_direction = np.sum(z / np.abs(z))
    return float(np.std(np.angle(z * np.conj(mean_direction))))


@dataclass
class AttentionRun:
    """A cloud pushed through a stack of :func:`attention_step` layers, extendable layer by layer.

    ``clouds[l]`` is the cloud after ``l`` layers (``clouds[0]`` is the input); ``mean_cos[l-1]``
    and ``spread[l-1]`` are the mean random cosine (4,000 pairs) and the angular spread after
    layer ``l``. The pairs are drawn from ``rng`` after each layer, so a run extended to ``L``
    layers is identical to one built with ``L`` layers at once.
    """

    beta: float
    alpha: float
    rng: np.random.Generator
    clouds: list[np.ndarray]
    mean_cos: list[float] = field(default_factory=list)
    spread: list[float] = field(default_factory=list)

    @property
    def depth(self) -> int:
        return len(self.mean_cos)

    def extend(self, depth: int) -> AttentionRun:
        """Stack layers until the run is ``depth`` layers deep (no-op if it already is)."""
        depth = _checks.integer(depth, "depth", 0)
        while self.depth < depth:
            X = attention_step(self.clouds[-1], self.beta, self.alpha)
            self.clouds.append(X)
            self.mean_cos.append(float(random_cosines(X, self.rng, m=4000).mean()))
            self.spread.append(angular_spread(X))
        return self


def attention_run(
    depth: int = 40, beta: float = 0.6, alpha: float = 0.09, offset: float = 0.7,
    n: int = 300, seed: int = 3,
) -> AttentionRun:
    """Stack ``depth`` :func:`attention_step` layers on a 2-D Gaussian shifted by ``offset``.

    The shift is along the unit direction of ``(1, 0.6)``. Averaging pulls tokens to their weighted
    mean, so the cloud shrinks toward it; seen from the origin, the tokens then all point the same
    way, a ray, which in more dimensions is a cone. The offset sets how early that happens: a
    centred sample still has a small mean of its own and gets there too, only later.
    """
    depth = _checks.integer(depth, "depth", 0)
    beta = _checks.real(beta, "beta", 0.0)
    alpha = _checks.real(alpha, "alpha", 0.0, 1.0)
    offset = _checks.real(offset, "offset", 0.0)
    n = _checks.integer(n, "n", 2, why="random cosines need two points")
    rng = _checks.as_rng(seed, "seed")
    direction = np.array([1.0, 0.6]) / np.linalg.norm([1.0, 0.6])
    X = offset * direction + make_isotropic(n, 2, rng)
    return AttentionRun(beta, alpha, rng, [X]).extend(depth)


def zipf_frequencies(vocab: int, exponent: float = 1.0) -> np.ndarray:
    r"""Zipf's law: the token of frequency rank ``r`` has probability :math:`\propto r^{-s}`, summing to 1."""
    vocab = _checks.integer(vocab, "vocab", 1)
    exponent = _checks.real(exponent, "exponent", 0.0)
    f = np.arange(1, vocab + 1, dtype=float) ** -exponent
    return f / f.sum()


# Notebook 04 prints this function's source: change it only together with the notebook.
def frequency_pull(emb: np.ndarray, freq: np.ndarray, strength: float = 0.9) -> np.ndarray:
    r"""Shrink each token's embedding toward the origin, more for frequent tokens.

    .. math::  e_t \leftarrow \big(1 - \gamma\,\sqrt{f_t / f_{\max}}\big)\,e_t

    with :math:`\gamma` = ``strength``. A token's embedding is updated on every occurrence; for a
    frequent token those many updates average out into a pull toward the common centre, which
    the square root saturates. This is a caricature of the frequency bias reported by Gao et al.
    (2019, arXiv:1907.12009), Li et al. (2020, arXiv:2011.05864) and Yu et al. (2022,
    arXiv:2109.03127), who find the geometry of an embedding strongly tied to its frequency.
    """
    emb = _checks.cloud(emb, name="emb")
    freq = np.asarray(freq, dtype=float)
    if freq.shape != (len(emb),):
        raise ValueError(f"freq: expected one frequency per row of emb ({len(emb)}), got shape {freq.shape}")
    if not np.all(np.isfinite(freq)) or np.any(freq < 0) or not freq.max() > 0:
        raise ValueError("freq: frequencies must be finite, non-negative and not all zero")
    strength = _checks.real(strength, "strength", 0.0, 1.0)
    pull = np.sqrt(freq / freq.max())
    return emb * (1.0 - strength * pull)[:, None]


def frequency_run(
    exponent: float = 1.0, strength: float = 0.9, vocab: int = 1200, d: int = 50, seed: int = 4
) -> tuple[np.ndarray, np.ndarray]:
    """Zipfian frequencies and the embeddings after :func:`frequency_pull` of an isotropic start.

    Returns ``(freq, emb)``, rows in order of frequency rank (row 0 is the most frequent token).
    """
    freq = zipf_frequencies(vocab, exponent)
    strength = _checks.real(strength, "strength", 0.0, 1.0)
    rng = _checks.as_rng(seed, "seed")
    return freq, frequency_pull(make_isotropic(vocab, d, rng), freq, strength)


# Notebook 05 prints this function's source: change it only together with the notebook.
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
    lam = lam * (1.0 + eta * lam.size * lam / lam.sum())
    return lam / lam.mean()


def rich_get_richer_run(
    eta: float = 0.18, steps: int = 60, spread: float = 0.05, d: int = 50, seed: int = 5
) -> np.ndarray:
    """Spectra over ``steps`` :func:`rich_get_richer_step` updates, shape ``(steps + 1, d)``.

    The start is nearly flat: :math:`\\lambda_k = 1 + \\text{spread}\\cdot\\varepsilon_k`,
    floored at 0.2.
    """
    eta = _checks.real(eta, "eta", 0.0)
    steps = _checks.integer(steps, "steps", 0)
    spread = _checks.real(spread, "spread", 0.0)
    d = _checks.integer(d, "d", 1)
    rng = _checks.as_rng(seed, "seed")
    lam = np.clip(1.0 + spread * rng.standard_normal(d), 0.2, None)
    history = [lam]
    for _ in range(steps):
        lam = rich_get_richer_step(lam, eta)
        history.append(lam)
    return np.array(history)
