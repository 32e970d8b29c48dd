"""Self-attention as averaging, the toy of notebook 03: one sequence or many, layer by layer.

Each layer moves every token toward a softmax-weighted average of the tokens of its sequence, so a
sequence contracts toward its own mean (:func:`attention_step`); :func:`attention_run`,
:func:`attention_seeds` and :func:`attention_sequences` stack such layers on one sequence, on many
draws of it, or on many sequences at once, with :func:`sinusoidal_positions` as what they may share.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .. import _checks
from ..geometry import make_isotropic
from ..meters import declare_meter, cross_group_cosines, mean_cosine, random_cosines


def _tokens(X: object, name: str = "X") -> np.ndarray:
    """Check tokens: one sequence ``(n, d)`` or a stack of sequences ``(sequences, n, d)``."""
    if isinstance(X, np.ndarray) and X.ndim == 3:
        if 0 in X.shape:
            raise ValueError(f"{name}: a stack of sequences needs at least one token of one dimension, got shape {X.shape}")
        return _checks.cloud(X.reshape(-1, X.shape[-1]), name=name).reshape(X.shape)
    return _checks.cloud(X, name=name)


def _scores_fit(X: np.ndarray, beta: float, names: str) -> None:
    """Refuse start tokens ``X`` whose scores ``beta X X^T`` would overflow, naming the caller's arguments
    that set them (attention only averages, so the first layer's scores are the largest)."""
    top = float(np.max(np.abs(X)))
    if beta * top * top * X.shape[-1] > 1e300:
        raise ValueError(f"{names}: the start tokens reach |x| = {top:.3g}, so the scores beta X X^T "
                         f"(beta = {beta:.3g}) would overflow; use a smaller offset or beta")


def softmax_rows(S: np.ndarray) -> np.ndarray:
    r"""Row-wise softmax :math:`A_{ij} = e^{S_{ij}} / \sum_k e^{S_{ik}}` (over the last axis).

    The attention weights of a Transformer (Vaswani et al. 2017, arXiv:1706.03762). Subtracting
    :math:`\max_k S_{ik}` first leaves the result unchanged and keeps ``exp`` from overflowing, so
    any finite scores give finite weights, each row positive and summing to 1.
    """
    S = _tokens(S, name="S")
    top = S.max(axis=-1, keepdims=True)
    if float(np.max(np.abs(top))) < 1e300 and float(S.min()) > -1e300:
        A = S - top  # cannot overflow
    else:  # scores near the float range: where S - top would overflow, the weight is 0 anyway
        A = np.subtract(S, top, out=np.full_like(S, -np.inf), where=S / 2 - top / 2 >= -400.0)
    np.exp(A, out=A)
    A /= A.sum(axis=-1, keepdims=True)
    return A


def attention_step(X: np.ndarray, beta: float = 0.6, alpha: float = 0.09) -> np.ndarray:
    r"""One residual self-attention update with identity query, key and value maps.

    .. math::  X \leftarrow X + \alpha\,\big(\operatorname{softmax}(\beta X X^\top)\,X - X\big)
               = (1 - \alpha) X + \alpha\, \operatorname{softmax}(\beta X X^\top)\,X

    Each token moves a fraction ``alpha`` of the way to a softmax-weighted average of all tokens
    of its sequence. An average lies in the convex hull of the tokens, so the cloud can only
    shrink: the contraction behind the rank collapse of Dong, Cordonnier & Loukas (2021,
    arXiv:2103.03404) and the clustering of Geshkovski et al. (2023, arXiv:2312.10794). ``beta``
    sets how peaked the attention is. ``X`` is one sequence ``(n, d)`` or a stack ``(k, n, d)``
    of independent sequences (attention stays within each).
    """
    X = _tokens(X)
    beta, alpha = _checks.real(beta, "beta", 0.0), _checks.real(alpha, "alpha", 0.0, 1.0)
    top = float(np.max(np.abs(X)))
    if beta * top * top * X.shape[-1] > 1e300:  # Python floats: an overflow gives inf, not a warning
        raise ValueError(f"beta, X: the scores beta X X^T would overflow (beta = {beta:.3g}, largest |x| = {top:.3g}); "
                         "use a smaller beta or scale X down")
    A = softmax_rows(beta * (X @ X.swapaxes(-1, -2)))  # attention weights: each row sums to 1
    return X + alpha * (A @ X - X)  # every token moves a fraction alpha toward its average


@declare_meter("angular std", ".3f")
def angular_std(X: np.ndarray) -> float:
    r"""Standard deviation of the polar angles of a 2-D cloud, in radians, around their circular mean.

    The circular mean is the angle of :math:`\sum_i x_i / \|x_i\|`; each angle's difference
    from it is wrapped into :math:`(-\pi, \pi]` before the standard deviation is taken, so a
    cloud straddling the negative x-axis is not counted as spread out. For a cloud with no
    preferred direction the circular mean is arbitrary, and the value is only a rough size.
    """
    X = _checks.cloud(X)
    if X.shape[1] != 2:
        raise ValueError(f"X: the angular standard deviation is defined for 2-D clouds, got {X.shape[1]} columns")
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
    and ``angular_std[l-1]`` are the mean random cosine (4,000 pairs) and the angular standard
    deviation (:func:`angular_std`, 2-D clouds only) after layer ``l``. The pairs are drawn from ``rng`` after each layer, so a run extended to ``L``
    layers is identical to one built with ``L`` layers at once.
    """

    beta: float
    alpha: float
    rng: np.random.Generator
    clouds: list[np.ndarray]
    mean_cos: list[float] = field(default_factory=list)
    angular_std: list[float] = field(default_factory=list)

    @property
    def depth(self) -> int:
        return len(self.mean_cos)

    def extend(self, depth: int) -> AttentionRun:
        """Stack layers until the run is ``depth`` layers deep (no-op if it already is)."""
        depth = _checks.integer(depth, "depth", 0)
        n, d = self.clouds[-1].shape[-2:]
        _checks.work(("depth", depth - self.depth), (None, n), (None, n), (None, d))
        _checks.allocation(("depth", depth + 1), (None, n), (None, d))  # every layer's cloud is kept
        while self.depth < depth:
            X = attention_step(self.clouds[-1], self.beta, self.alpha)
            self.clouds.append(X)
            self.mean_cos.append(float(random_cosines(X, self.rng, m=4000).mean()))
            if X.shape[1] == 2:
                self.angular_std.append(angular_std(X))
        return self


def attention_run(
    depth: int = 40, beta: float = 0.6, alpha: float = 0.09, offset: float = 0.7,
    n: int = 300, seed: int = 3,
) -> AttentionRun:
    """Stack ``depth`` :func:`attention_step` layers on a 2-D Gaussian shifted by ``offset``.

    The shift is along the unit direction of ``(1, 0.6)``. Averaging pulls tokens to their weighted
    mean, so the cloud shrinks toward it; seen from the origin, the tokens then all point the same
    way, a ray: every cosine tends to 1, a cone of one sequence. The offset sets how early that happens: a
    centred sample still has a small mean of its own and gets there too, only later.
    """
    depth = _checks.integer(depth, "depth", 0)
    beta = _checks.real(beta, "beta", 0.0)
    alpha = _checks.real(alpha, "alpha", 0.0, 1.0)
    offset = _checks.real(offset, "offset", 0.0)
    n = _checks.integer(n, "n", 2, why="random cosines need two points")
    _checks.allocation(("n", n), (None, n))  # the attention weights
    _checks.allocation(("depth", depth + 1), ("n", n), (None, 2))  # every layer's cloud is kept
    _checks.work(("depth", depth), ("n", n), ("n", n), (None, 2))
    rng = _checks.as_rng(seed, "seed")
    X = _attention_start(offset, n, rng)
    _scores_fit(X, beta, "offset, beta")
    return AttentionRun(beta, alpha, rng, [X]).extend(depth)


def _attention_start(offset: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """The start of :func:`attention_run`: ``n`` 2-D Gaussian tokens shifted by ``offset`` along ``(1, 0.6)``."""
    direction = np.array([1.0, 0.6]) / np.linalg.norm([1.0, 0.6])
    return offset * direction + make_isotropic(n, 2, rng)


def attention_seeds(
    seeds: Sequence[int], depth: int = 40, beta: float = 0.6, alpha: float = 0.09, offset: float = 0.7, n: int = 300,
) -> tuple[np.ndarray, np.ndarray]:
    """The start and the end of :func:`attention_run` for each seed, shape ``(seeds, n, 2)`` each.

    The starts are drawn as :func:`attention_run` draws them, seed by seed, and the layers run on all of
    them at once as a stack of independent sequences (no per-layer cosines), so a sweep over many
    draws costs about as much as one run per seed without its bookkeeping.
    """
    depth = _checks.integer(depth, "depth", 0)
    beta = _checks.real(beta, "beta", 0.0)
    alpha = _checks.real(alpha, "alpha", 0.0, 1.0)
    offset = _checks.real(offset, "offset", 0.0)
    n = _checks.integer(n, "n", 2, why="random cosines need two points")
    seeds = [_checks.integer(s, f"seeds[{i}]", 0) for i, s in enumerate(_checks.sequence(seeds, "seeds"))]
    if not seeds:
        raise ValueError("seeds: expected at least one seed")
    _checks.allocation(("seeds", len(seeds)), ("n", n), (None, n))  # the attention weights of every sequence
    _checks.work(("depth", depth), ("seeds", len(seeds)), ("n", n), ("n", n), (None, 2))
    starts = np.array([_attention_start(offset, n, _checks.as_rng(seed, "seed")) for seed in seeds])
    X = starts
    for _ in range(depth):
        X = attention_step(X, beta, alpha)
    return starts, X


@dataclass(frozen=True)
class SequencesRun:
    """Independent sequences before (``starts``) and after (``ends``) ``depth`` attention layers,
    both of shape ``(sequences, n, d)`` (:func:`attention_sequences`)."""

    starts: np.ndarray
    ends: np.ndarray
    depth: int

    def within(self, X: np.ndarray | None = None) -> float:
        """Mean over sequences of the exact mean cosine of two tokens of the same sequence."""
        X = self.ends if X is None else X
        return float(np.mean([mean_cosine(seq) for seq in X]))

    def across(self, X: np.ndarray | None = None) -> float:
        """Exact mean cosine of two tokens from different sequences (Ethayarajh's baseline)."""
        X = self.ends if X is None else X
        groups = np.repeat(np.arange(X.shape[0]), X.shape[1])
        return float(cross_group_cosines(X.reshape(-1, X.shape[2]), groups).sum())


def sinusoidal_positions(n: int, d: int) -> np.ndarray:
    r"""The sinusoidal position embeddings of Vaswani et al. (2017, arXiv:1706.03762), shape ``(n, d)``.

    .. math::  p_{t, 2i} = \sin(t / 10000^{2i/d}), \qquad p_{t, 2i+1} = \cos(t / 10000^{2i/d})

    for positions :math:`t = 0, \dots, n - 1`. Their mean over positions is not zero: the slow
    cosines stay near 1, so every sequence that adds them carries the same mean vector.
    """
    n, d = _checks.integer(n, "n", 1), _checks.integer(d, "d", 1)
    _checks.allocation(("n", n), ("d", d))
    t = np.arange(n, dtype=float)[:, None]
    rate = 10000.0 ** (-(np.arange(d) // 2 * 2) / d)
    angles = t * rate
    return np.where(np.arange(d) % 2 == 0, np.sin(angles), np.cos(angles))


def attention_sequences(
    sequences: int = 16, depth: int = 40, beta: float = 0.6, alpha: float = 0.09, offset: float = 0.7,
    shared: bool = True, n: int = 100, d: int = 2, seed: int = 30, positions: np.ndarray | None = None,
) -> SequencesRun:
    """Many independent sequences through the same stack of :func:`attention_step` layers.

    Each sequence starts as ``n`` Gaussian tokens in ``d`` dimensions shifted by ``offset`` along a
    unit direction: the same one for every sequence when ``shared`` (the direction of
    :func:`attention_run` in 2-D, otherwise the first axis), else a random direction of its own.
    ``positions`` (shape ``(n, d)``, e.g. :func:`sinusoidal_positions`) is added to every sequence,
    token ``t`` getting row ``t``, as a Transformer adds position embeddings. Attention mixes tokens
    only within their sequence, so what the sequences end up sharing is what they shared at the start.
    """
    sequences = _checks.integer(sequences, "sequences", 2, why="tokens from different sequences need two")
    depth = _checks.integer(depth, "depth", 0)
    beta, alpha = _checks.real(beta, "beta", 0.0), _checks.real(alpha, "alpha", 0.0, 1.0)
    offset = _checks.real(offset, "offset", 0.0)
    n, d = _checks.integer(n, "n", 2), _checks.integer(d, "d", 2)
    _checks.allocation(("sequences", sequences), ("n", n), ("n", n))  # the attention weights
    _checks.allocation(("sequences", sequences), ("n", n), ("d", d))
    _checks.work(("depth", depth), ("sequences", sequences), ("n", n), ("n", n), ("d", d))
    rng = _checks.as_rng(seed, "seed")
    if _checks.flag(shared, "shared"):
        u = np.array([1.0, 0.6]) if d == 2 else np.eye(d)[0]
        directions = np.tile(u / np.linalg.norm(u), (sequences, 1))
    else:
        directions = rng.standard_normal((sequences, d))
        directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    X = offset * directions[:, None, :] + rng.standard_normal((sequences, n, d))
    if positions is not None:
        positions = _checks.cloud(positions, name="positions")
        if positions.shape != (n, d):
            raise ValueError(f"positions: expected one row per token and one column per dimension, {(n, d)}, "
                             f"got {positions.shape}")
        if float(np.max(np.abs(positions))) > 1e100:  # its square, times beta and d, would overflow the scores
            raise ValueError("positions: entries this large make the scores beta X X^T overflow; scale them down")
        X = X + positions
    _scores_fit(X, beta, "offset, beta")
    starts = X
    for _ in range(depth):
        X = attention_step(X, beta, alpha)
    return SequencesRun(starts, X, depth)
