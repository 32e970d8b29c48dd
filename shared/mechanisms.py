"""Toy versions of mechanisms proposed as causes of anisotropy, and their runs.

Self-attention as averaging (notebook 03), a frequency pull on norms and a language model trained
by likelihood (notebook 04), and a rich-get-richer loop on a spectrum (notebook 05). Each notebook
measures what its toy produces with notebook 01's meter table, against a same-size Gaussian and
the toy with the mechanism switched off.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from math import erf, sqrt
from pathlib import Path

import numpy as np

from . import _checks
from .geometry import make_isotropic, random_rotation
from .meters import cov_eigs, declare_meter, cross_group_cosines, effective_rank, mean_cosine, random_cosines


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


def zipf_frequencies(vocab: int, exponent: float = 1.0) -> np.ndarray:
    r"""Zipf's law: the token of frequency rank ``r`` has probability :math:`\propto r^{-s}`, summing to 1."""
    vocab = _checks.integer(vocab, "vocab", 1)
    _checks.allocation(("vocab", vocab))
    exponent = _checks.real(exponent, "exponent", 0.0)
    f = np.arange(1, vocab + 1, dtype=float) ** -exponent
    return f / f.sum()


def frequency_pull(emb: np.ndarray, freq: np.ndarray, gamma: float = 0.9) -> np.ndarray:
    r"""Shrink each token's embedding toward the origin, more for frequent tokens.

    .. math::  e_t \leftarrow \big(1 - \gamma\,\sqrt{f_t / f_{\max}}\big)\,e_t

    with :math:`\gamma` = ``gamma``: frequent tokens end short, near the centre, which is what Li et
    al. (2020, arXiv:2011.05864) observe in BERT's word embeddings. The toy fixes that sign by
    construction (the square root saturates the pull), and only rescales each token: directions
    do not change. Notebook 04 measures what a trained model does instead.
    """
    emb = _checks.cloud(emb, name="emb")
    freq = _checks.vector(freq, "freq", what="array of frequencies")
    if freq.shape != (len(emb),):
        raise ValueError(f"freq: expected one frequency per row of emb ({len(emb)}), got shape {freq.shape}")
    if np.any(freq < 0) or not freq.max() > 0:
        raise ValueError("freq: frequencies must be non-negative and not all zero")
    gamma = _checks.real(gamma, "gamma", 0.0, 1.0)
    pull = np.sqrt(freq / freq.max())
    return emb * (1.0 - gamma * pull)[:, None]


# --------------------------------------------------------------------------------------------
# Representation degeneration: a tiny language model trained by likelihood
# --------------------------------------------------------------------------------------------


def bigram_language(vocab: int, exponent: float, rho: float = 0.5) -> np.ndarray:
    r"""Joint probability ``P[c, w]`` of a context token ``c`` followed by a target token ``w``.

    .. math::  P(c, w) = f_c\,\big(\rho\,[w = \pi(c)] + (1 - \rho)\, f_w\big),
               \qquad f_r \propto r^{-s}

    The context is drawn from Zipf's law with exponent ``s``; the next token is the context's
    partner :math:`\pi(c)` (ranks paired 1-2, 3-4, ...) with probability ``rho``, otherwise a fresh
    Zipf draw. The partner is what a model can learn from the context; partners have neighbouring
    ranks, so each token is a target about as often as Zipf's law says. Token 0 is the most frequent.
    """
    vocab = _checks.integer(vocab, "vocab", 2)
    _checks.allocation(("vocab", vocab), (None, vocab))
    rho = _checks.real(rho, "rho", 0.0, 1.0)
    f = zipf_frequencies(vocab, exponent)
    partner = np.arange(vocab) ^ 1
    partner[partner == vocab] = vocab - 1  # odd vocabulary: the last token is its own partner
    P = (1.0 - rho) * np.outer(f, f)
    P[np.arange(vocab), partner] += rho * f
    return P


@dataclass(frozen=True)
class LMGradients:
    """The expected loss of :func:`lm_gradients` and its gradient for each parameter.

    ``emb`` is the gradient reaching the embeddings through the input side (the contexts),
    ``out`` the one reaching the output (softmax) matrix; with tied embeddings both land on ``E``.
    """

    loss: float
    emb: np.ndarray
    out: np.ndarray
    A: np.ndarray
    b: np.ndarray


def lm_gradients(E: np.ndarray, A: np.ndarray, b: np.ndarray, E_out: np.ndarray, P: np.ndarray) -> LMGradients:
    r"""Expected next-token loss of a one-token-context model, and its gradients (by hand).

    .. math::  h_c = \tanh(e_c A + b),\quad q(w \mid c) = \operatorname{softmax}_w(e'_w \cdot h_c),
               \quad L = -\sum_{c, w} P(c, w) \log q(w \mid c)

    With :math:`p_c = \sum_w P(c, w)`, the gradient with respect to the logits is
    :math:`G_{cw} = p_c\, q(w \mid c) - P(c, w)`, so output row ``w`` receives
    :math:`\sum_c p_c\, q(w \mid c)\, h_c - \sum_c P(c, w)\, h_c`: a push away from *every*
    context, minus a pull toward the contexts it follows. A token that is rarely a target gets
    almost only the push (Gao et al. 2019, arXiv:1907.12009).
    """
    E, E_out = _checks.cloud(E, name="E"), _checks.cloud(E_out, name="E_out")
    d = E.shape[1]
    if E_out.shape[1] != d:
        raise ValueError(f"E_out: expected {d} columns like E, got {E_out.shape[1]}")
    A, b = _checks.cloud(A, name="A"), _checks.vector(b, "b")
    if A.shape != (d, d) or b.shape != (d,):
        raise ValueError(f"A, b: expected shapes {(d, d)} and {(d,)} for {d}-dimensional embeddings, "
                         f"got {A.shape} and {b.shape}")
    P = _checks.cloud(P, name="P")
    if P.shape != (len(E), len(E_out)):
        raise ValueError(f"E, E_out, P: P needs a row per row of E (contexts) and a column per row of E_out "
                         f"(targets), so shape {(len(E), len(E_out))}; got {P.shape}")
    if np.any(P < 0) or not 0.99 < P.sum() < 1.01:
        raise ValueError("P: expected joint probabilities: non-negative entries that sum to 1")
    if max(float(np.abs(E).max()) * float(np.abs(A).max()), float(np.abs(E_out).max())) * d > 1e300:
        raise ValueError("E, A, E_out: entries this large overflow the model's products; scale them down")
    return _lm_gradients(E, A, b, E_out, P)


def _lm_gradients(E: np.ndarray, A: np.ndarray, b: np.ndarray, E_out: np.ndarray, P: np.ndarray,
                  with_loss: bool = True, p_c: np.ndarray | None = None) -> LMGradients:
    """:func:`lm_gradients` for checked arguments; every array may carry a leading axis of independent
    models (one per seed), and then ``loss`` is one value per model (NaN unless ``with_loss``: a
    training step needs only the gradients). ``p_c``: ``P.sum(axis=-1)``, if already at hand."""
    H = np.tanh(E @ A + b[..., None, :])
    G = H @ E_out.swapaxes(-1, -2)  # the logits; turned into their gradient in place below
    # |logit| = |h_c . e_w| <= sqrt(d) |e_w| since |tanh| <= 1: while that bound is moderate, exp can
    # neither overflow nor underflow a whole row to 0, so the row maxima (the usual shift, and the
    # costliest pass here) need not be subtracted; the softmax is the same either way
    if not H.shape[-1] * np.max(np.einsum("...wd,...wd->...w", E_out, E_out)) <= 300.0**2:
        G -= G.max(axis=-1, keepdims=True)
    p_c = P.sum(axis=-1) if p_c is None else p_c  # how often each context occurs
    fit = np.einsum("...cw,...cw->...", P, G) if with_loss else None
    np.exp(G, out=G)
    Z = G.sum(axis=-1)
    loss = np.sum(p_c * np.log(Z), axis=-1) - fit if with_loss else np.full(Z.shape[:-1], np.nan)
    G *= (p_c / Z)[..., None]  # p_c q(w | c): the push ...
    G -= P  # ... minus the pull, as in logit_gradient
    dZ = (G @ E_out) * (1.0 - H * H)  # back through tanh
    grads = (dZ @ A.swapaxes(-1, -2), G.swapaxes(-1, -2) @ H, E.swapaxes(-1, -2) @ dZ, dZ.sum(axis=-2))
    return LMGradients(float(loss) if loss.ndim == 0 else loss, *grads)


def logit_gradient(Q: np.ndarray, P: np.ndarray) -> np.ndarray:
    r"""Gradient of the expected loss with respect to the logits: :math:`G_{cw} = p_c\, q(w \mid c) - P(c, w)`.

    ``Q[c, w]`` is the model's probability of target ``w`` after context ``c``, ``P`` the joint
    probability of the pair, :math:`p_c = \sum_w P(c, w)`. The first term pushes every target away
    from the context, in proportion to the probability the model gave it; the second pulls the true
    targets back. The output vector of token ``w`` moves along :math:`-\sum_c G_{cw} h_c`.
    """
    Q, P = _checks.cloud(Q, name="Q"), _checks.cloud(P, name="P")
    if Q.shape != P.shape:
        raise ValueError(f"Q, P: expected the same shape (contexts x targets), got {Q.shape} and {P.shape}")
    return _logit_gradient(Q, P)


def _logit_gradient(Q: np.ndarray, P: np.ndarray) -> np.ndarray:
    p_c = P.sum(axis=-1)  # how often each context occurs
    return p_c[..., None] * Q - P  # push minus pull


# Frequency bands by rank, as fractions of the vocabulary: the most frequent 10 %, the next 40 %,
# and the rarer half.
FREQUENCY_BANDS = {"frequent": (0.0, 0.1), "middle": (0.1, 0.5), "rare": (0.5, 1.0)}


def band_rows(vocab: int, band: str) -> np.ndarray:
    """Row indices (frequency ranks) of one band of :data:`FREQUENCY_BANDS` in a vocabulary of ``vocab``."""
    vocab = _checks.integer(vocab, "vocab", 2)
    _checks.allocation(("vocab", vocab))
    if not isinstance(band, str):
        raise TypeError(f"band: expected the name of a band (a string), got {band!r}")
    if band not in FREQUENCY_BANDS:
        raise ValueError(f"band: expected one of {list(FREQUENCY_BANDS)}, got {band!r}")
    lo, hi = FREQUENCY_BANDS[band]
    return np.arange(round(lo * vocab), round(hi * vocab))


#: The largest corpus a multinomial draw can count (numpy's counts are int64).
CORPUS_MAX = np.iinfo(np.int64).max

#: Adam's decay rates of the running moments, and the constant that keeps its division finite
#: (the defaults of Kingma & Ba 2015).
ADAM_BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8


@dataclass(frozen=True)
class DegenerationRun:
    r"""Snapshots of a :func:`degeneration_run`; rows in order of frequency rank (row 0 most frequent).

    ``emb[k]`` is the input embedding matrix after ``steps[k]`` updates and ``loss[k]`` the loss
    being minimised there (the exact expected loss, or with ``corpus`` the loss on that corpus);
    ``out[k]`` the output matrix (equal to ``emb[k]`` when ``tied``). ``freq`` is how often each
    token is a target in the language, and ``hbar[k]`` the average context state
    :math:`\bar h = \sum_c p_c h_c`, the direction every output row is pushed away from.
    ``seen[w]`` says whether token ``w`` is ever a target of the loss trained on: always with the
    exact loss, only if the corpus holds it otherwise.
    """

    exponent: float
    tied: bool
    freq: np.ndarray
    steps: np.ndarray
    emb: np.ndarray
    out: np.ndarray
    loss: np.ndarray
    hbar: np.ndarray
    seed: int = 0
    corpus: int | None = None
    seen: np.ndarray | None = None

    def at(self, step: int) -> int:
        """Position of ``step`` among the snapshots (a ``ValueError`` if none was taken there)."""
        hits = np.flatnonzero(self.steps == step)
        if hits.size == 0:
            raise ValueError(f"step: no snapshot at step {step}; snapshots were taken at {self.steps.tolist()}")
        return int(hits[0])


def degeneration_run(
    exponent: float = 1.0,
    tied: bool = True,
    checkpoints: tuple[int, ...] = (0, 50, 100, 200, 400, 800, 1600),
    vocab: int = 128,
    d: int = 8,
    rho: float = 0.5,
    lr: float = 0.25,
    init_scale: float = 0.05,
    seed: int = 0,
    corpus: int | None = None,
    optimizer: str = "gd",
) -> DegenerationRun:
    r"""Train a one-token-context language model by plain gradient descent on its expected loss.

    The model of :func:`lm_gradients` on the language of :func:`bigram_language`. By default every
    step uses the exact expected loss (an infinite corpus: every token is a target with its true
    probability, however small), so the run depends only on ``seed``, which draws the start: ``E``
    (and an untied ``E_out``) :math:`\sim \mathcal N(0, \text{init\_scale}^2)` entry-wise, ``A``
    :math:`\sim \mathcal N(0, 1/d)`, ``b = 0``. With ``corpus`` = ``N``, the same ``seed`` then
    draws ``N`` (context, target) pairs from the language, and the model is trained on their
    empirical distribution instead: tokens the corpus never shows as a target get only the push
    of the softmax gradient, never a pull, the regime of Gao et al.'s argument (large vocabularies,
    finite corpora). With ``tied`` the softmax layer *is* ``E``, as in the models of Gao et al.
    (2019, arXiv:1907.12009), so ``E`` receives both gradients. Each step:
    :math:`\theta \leftarrow \theta - \text{lr}\,\nabla_\theta L`; snapshots at the steps in
    ``checkpoints``, and training stops at the last. The step size 0.25 keeps training away from
    the edge of stability for Zipf exponents up to 2, so rounding differences between BLAS
    builds stay near 1e-14 instead of growing.

    ``optimizer="adam"`` replaces the step by Adam's (Kingma & Ba 2015, arXiv:1412.6980; pass a
    smaller ``lr``, such as 0.003): each coordinate of each parameter is divided by the root of its
    own running second moment, a step that, unlike gradient descent's, is not equivariant under a
    rotation of the embedding space (the "privileged basis" of Elhage et al. 2023).
    """
    seed = _checks.integer(seed, "seed", 0)
    return degeneration_runs(exponent, tied, checkpoints, vocab, d, rho, lr, init_scale, (seed,), corpus, optimizer)[0]


def degeneration_runs(
    exponent: float = 1.0,
    tied: bool = True,
    checkpoints: tuple[int, ...] = (0, 50, 100, 200, 400, 800, 1600),
    vocab: int = 128,
    d: int = 8,
    rho: float = 0.5,
    lr: float = 0.25,
    init_scale: float = 0.05,
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4),
    corpus: int | None = None,
    optimizer: str = "gd",
) -> list[DegenerationRun]:
    """:func:`degeneration_run` for several seeds at once, one run per seed, trained side by side as
    one stack of models (each run equals :func:`degeneration_run` with its seed up to rounding)."""
    exponent = _checks.real(exponent, "exponent", 0.0)
    if corpus is not None:
        corpus = _checks.integer(corpus, "corpus", 1, CORPUS_MAX, why="a corpus needs at least one (context, target) pair")
    seeds = _checks.sequence(seeds, "seeds")
    grid = degeneration_grid((exponent,), seeds, (corpus,), tied, checkpoints, vocab, d, rho, lr, init_scale, optimizer)
    return list(grid.values())


def degeneration_grid(
    exponents: Sequence[float] = (1.0,),
    seeds: Sequence[int] = (0,),
    corpora: Sequence[int | None] = (None,),
    tied: bool = True,
    checkpoints: tuple[int, ...] = (0, 50, 100, 200, 400, 800, 1600),
    vocab: int = 128,
    d: int = 8,
    rho: float = 0.5,
    lr: float = 0.25,
    init_scale: float = 0.05,
    optimizer: str = "gd",
) -> dict[tuple[float, int, int | None], DegenerationRun]:
    """:func:`degeneration_run` for every combination of a Zipf exponent, a seed and a corpus (``None``:
    the exact loss), keyed by ``(exponent, seed, corpus)`` in that order. All of them are trained
    side by side as one stack of models, which costs little more than one run; each equals
    :func:`degeneration_run` with its settings up to rounding."""
    exponents = [_checks.real(e, f"exponents[{i}]", 0.0) for i, e in enumerate(_checks.sequence(exponents, "exponents"))]
    seeds = [_checks.integer(s, f"seeds[{i}]", 0) for i, s in enumerate(_checks.sequence(seeds, "seeds"))]
    corpora = [None if c is None else _checks.integer(c, f"corpora[{i}]", 1, CORPUS_MAX,
                                                        why="a corpus needs at least one (context, target) pair")
               for i, c in enumerate(_checks.sequence(corpora, "corpora"))]
    for name, values in (("exponents", exponents), ("seeds", seeds), ("corpora", corpora)):
        if not values:
            raise ValueError(f"{name}: expected at least one value")
        if len(set(values)) != len(values):
            raise ValueError(f"{name}: expected distinct values, got {values}")
    tied = _checks.flag(tied, "tied")
    d = _checks.integer(d, "d", 1)
    lr = _checks.real(lr, "lr", 0.0)
    init_scale = _checks.real(init_scale, "init_scale", 0.0)
    checkpoints = [_checks.integer(t, f"checkpoints[{i}]", 0) for i, t in enumerate(_checks.sequence(checkpoints, "checkpoints"))]
    if not checkpoints or checkpoints != sorted(set(checkpoints)):
        raise ValueError(f"checkpoints: expected increasing steps, got {checkpoints}")
    vocab = _checks.integer(vocab, "vocab", 2)
    models = len(exponents) * len(seeds) * len(corpora)
    _checks.allocation(("vocab", vocab), ("d", d), (None, models), (None, 4 * len(checkpoints)))  # the snapshots
    _checks.work(("checkpoints", checkpoints[-1]), (None, models), ("vocab", vocab), ("vocab", vocab), ("d", d))
    if not isinstance(optimizer, str):
        raise TypeError(f"optimizer: expected the name of an optimiser (a string), got {optimizer!r}")
    if optimizer not in ("gd", "adam"):
        raise ValueError(f"optimizer: expected 'gd' (gradient descent) or 'adam', got {optimizer!r}")
    languages = {exponent: bigram_language(vocab, exponent, rho) for exponent in exponents}
    keys = [(exponent, seed, corpus) for exponent in exponents for seed in seeds for corpus in corpora]
    Es, Eouts, As, Ps = [], [], [], []
    for exponent, seed, corpus in keys:
        P = languages[exponent]
        rng = _checks.as_rng(seed, "seed")
        E = init_scale * rng.standard_normal((vocab, d))
        Es.append(E)
        Eouts.append(E if tied else init_scale * rng.standard_normal((vocab, d)))
        As.append(rng.standard_normal((d, d)) / np.sqrt(d))
        Ps.append(P if corpus is None else rng.multinomial(corpus, P.ravel()).reshape(P.shape) / corpus)
    E, A, P_train = np.array(Es), np.array(As), np.array(Ps)
    E_out = E if tied else np.array(Eouts)
    b = np.zeros((len(keys), d))
    p_c = P_train.sum(axis=-1)
    snaps: list[tuple] = []
    moments: dict[int, list[np.ndarray]] = {}  # Adam's running first and second moments, by parameter
    t = 0

    def step_of(k: int, grad: np.ndarray) -> np.ndarray:
        """The update direction of parameter ``k``: the gradient itself, or Adam's normalised one."""
        if optimizer == "gd":
            return grad
        m, v = moments.setdefault(k, [np.zeros_like(grad), np.zeros_like(grad)])
        m += (1 - ADAM_BETAS[0]) * (grad - m)
        v += (1 - ADAM_BETAS[1]) * (grad * grad - v)
        return (m / (1 - ADAM_BETAS[0] ** t)) / (np.sqrt(v / (1 - ADAM_BETAS[1] ** t)) + ADAM_EPS)

    wanted = set(checkpoints)
    for step in range(checkpoints[-1] + 1):
        t = step + 1
        g = _lm_gradients(E, A, b, E_out, P_train, with_loss=step in wanted, p_c=p_c)
        if step in wanted:
            hbar = np.einsum("sc,scd->sd", p_c, np.tanh(E @ A + b[:, None, :]))
            snaps.append((E.copy(), E_out.copy(), g.loss, hbar))
        if step == checkpoints[-1]:
            break
        if tied:
            E -= lr * step_of(0, g.emb + g.out)  # E_out is E: both gradients land on it
        else:
            E -= lr * step_of(0, g.emb)
            E_out -= lr * step_of(3, g.out)
        A -= lr * step_of(1, g.A)
        b -= lr * step_of(2, g.b)
    emb, out, loss, hbar = (np.array(column) for column in zip(*snaps))  # axes: checkpoint, model, ...
    return {key: DegenerationRun(key[0], bool(tied), languages[key[0]].sum(axis=0), np.array(checkpoints),
                                 emb[:, i], out[:, i], loss[:, i], hbar[:, i], key[1], key[2],
                                 P_train[i].sum(axis=0) > 0)
            for i, key in enumerate(keys)}


@dataclass(frozen=True)
class BandCosines:
    """Exact mean cosine within each frequency band, and over the whole vocabulary, at each step."""

    steps: np.ndarray
    frequent: np.ndarray
    middle: np.ndarray
    rare: np.ndarray
    overall: np.ndarray


def band_cosines(run: DegenerationRun, output: bool = False) -> BandCosines:
    """:func:`~shared.meters.mean_cosine` within each band of ``run.emb`` (``output``: of ``run.out``) at each step."""
    _checks.instance(run, DegenerationRun, "run")
    snaps = run.out if _checks.flag(output, "output") else run.emb
    vocab = snaps.shape[1]
    if min(len(band_rows(vocab, band)) for band in FREQUENCY_BANDS) < 2:
        raise ValueError(f"run: a vocabulary of {vocab} tokens leaves a frequency band with fewer than two tokens, "
                         "so no mean cosine within it; train with vocab >= 15")
    per = {band: np.array([mean_cosine(X[band_rows(vocab, band)]) for X in snaps]) for band in FREQUENCY_BANDS}
    return BandCosines(run.steps, per["frequent"], per["middle"], per["rare"], np.array([mean_cosine(X) for X in snaps]))


#: Training times (learning rate x steps) at which :func:`cone_lifetime` measures the cone: gradient
#: descent with a smaller step follows nearly the same path, more slowly, so runs with different
#: steps are compared at equal learning rate x steps.
LIFETIME_TIMES = (50, 100, 200, 400, 800, 1600, 3200, 6400)


@dataclass(frozen=True)
class ConeLifetime:
    """How the rare cone of notebook 04's tied model grows and fades, at one setting.

    ``values[i, j]`` is the mean cosine after training time ``times[i]`` (learning rate x steps) in
    seed ``seeds[j]``: of the rare half of the vocabulary under the exact loss (``corpus`` is None),
    or of the tokens never a target in a corpus of ``corpus`` pairs (notebook 04's two regimes).
    """

    vocab: int
    d: int
    lr: float
    corpus: int | None
    seeds: tuple[int, ...]
    times: np.ndarray
    values: np.ndarray

    def to_record(self) -> dict:
        return {"vocab": self.vocab, "d": self.d, "lr": self.lr, "corpus": self.corpus, "seeds": list(self.seeds),
                "times": self.times.tolist(), "values": self.values.tolist()}


def cone_lifetime(vocab: int = 128, d: int = 8, lr: float = 0.25, times: Sequence[float] = LIFETIME_TIMES,
                  seeds: Sequence[int] = (0, 1, 2), corpus: int | None = None) -> ConeLifetime:
    """Train :func:`degeneration_runs` (Zipf exponent 1, tied) to each training time in ``times``
    (``lr`` x steps; each time must be a whole number of steps) and measure the cone there: the rare
    half's mean cosine under the exact loss, or with ``corpus`` that of the tokens the corpus never
    shows as a target. A vocabulary of 384 trained to time 6,400 takes about a minute per regime;
    :func:`stored_cone_lifetimes` holds notebook 04's grid."""
    lr = _checks.real(lr, "lr", 0.0)
    if not lr > 0:
        raise ValueError("lr: expected a positive learning rate, got 0")
    times = [_checks.real(t, f"times[{i}]", 0.0) for i, t in enumerate(_checks.sequence(times, "times"))]
    if not times or times != sorted(set(times)):
        raise ValueError(f"times: expected increasing training times, got {times}")
    steps = [round(t / lr) for t in times]
    if any(abs(step * lr - t) > 1e-9 * max(t, 1.0) for step, t in zip(steps, times)):
        raise ValueError(f"times: each training time must be a whole number of steps of {lr}, got {times}")
    seeds = tuple(_checks.integer(s, f"seeds[{i}]", 0) for i, s in enumerate(_checks.sequence(seeds, "seeds")))
    runs = degeneration_runs(1.0, True, tuple(steps), vocab, d, lr=lr, seeds=seeds, corpus=corpus)
    rare = band_rows(vocab, "rare")
    if corpus is None:
        values = [[mean_cosine(E[rare]) for E in run.emb] for run in runs]
    else:
        if min(int((~run.seen).sum()) for run in runs) < 2:
            raise ValueError(f"corpus: in some seed fewer than two tokens are never a target of {corpus} pairs, "
                             "so they have no mean cosine; use a smaller corpus")
        values = [[mean_cosine(E[~run.seen]) for E in run.emb] for run in runs]
    return ConeLifetime(int(vocab), int(d), float(lr), corpus, seeds, np.array(times, dtype=float),
                        np.array(values).T)


#: Notebook 04's grid of :func:`cone_lifetime` settings, ``(vocab, d, lr, corpus, last time)``: the
#: notebook's model, a smaller step, larger vocabularies, wider models, and the finite-corpus regime
#: (a corpus of 1,000 pairs per 128 tokens).
CONE_LIFETIME_GRID = ((128, 8, 0.25, None, 6400), (128, 8, 0.05, None, 1600), (256, 8, 0.25, None, 6400),
                      (384, 8, 0.25, None, 6400), (128, 16, 0.25, None, 6400), (128, 32, 0.25, None, 6400),
                      (128, 8, 0.25, 1000, 6400), (384, 8, 0.25, 3000, 6400))
CONE_LIFETIME_FILE = Path(__file__).resolve().parent / "data" / "cone_lifetimes.json"


def cone_lifetime_grid() -> list[ConeLifetime]:
    """:func:`cone_lifetime` at every setting of :data:`CONE_LIFETIME_GRID` (about five minutes on one core)."""
    return [cone_lifetime(vocab, d, lr, [t for t in LIFETIME_TIMES if t <= last], corpus=corpus)
            for vocab, d, lr, corpus, last in CONE_LIFETIME_GRID]


def stored_cone_lifetimes() -> list[ConeLifetime]:
    """:func:`cone_lifetime_grid` as computed once and stored in ``shared/data/cone_lifetimes.json``
    (the test suite recomputes it), so that notebook 04 can print it in a fraction of a second. Rewrite
    the file with ``json.dump([g.to_record() for g in cone_lifetime_grid()], ...)``."""
    records = json.loads(CONE_LIFETIME_FILE.read_text(encoding="utf-8"))
    return [ConeLifetime(r["vocab"], r["d"], r["lr"], r["corpus"], tuple(r["seeds"]), np.array(r["times"], dtype=float),
                         np.array(r["values"], dtype=float)) for r in records]


# --------------------------------------------------------------------------------------------
# Rich-get-richer
# --------------------------------------------------------------------------------------------


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


def coordinate_share(X: np.ndarray) -> float:
    r"""The largest coordinate's share of the total variance of the rows of ``X``.

    .. math::  \max_j \operatorname{Var}(x_j) \Big/ \sum_j \operatorname{Var}(x_j)

    :math:`1/d` when every coordinate carries the same variance, 1 when one carries all of it. Unlike
    the covariance's eigenvalues it depends on the basis: it is the meter of an *outlier dimension*,
    a coordinate axis with outsized variance (Kovaleva et al. 2021, arXiv:2105.06990), and a rotation
    of the space changes it.
    """
    X = _checks.cloud(X, min_rows=2)
    if _checks.flat(X):
        raise ValueError("X: every row is the same point (up to rounding), so there is no variance to share")
    var = (X / _checks.power_of_two(X)).var(axis=0)  # scaled exactly, so that no square overflows
    return float(var.max() / var.sum())


@dataclass(frozen=True)
class OptimizerShares:
    """:func:`coordinate_share` of trained embeddings, one value per seed, in each setting.

    ``adam`` and ``gd``: the tied embeddings of notebook 04's language model after ``steps`` steps
    of Adam or of gradient descent; ``rotated``: Adam's embeddings in random rotations of the space
    (the mean share over ``rotations`` of them: the same geometry with no preferred basis);
    ``gaussian``: standard Gaussian clouds of the same size (vocab x d). ``adam_loss`` and
    ``gd_loss``: the loss each run has reached (how far training went); ``adam_rank``, ``gd_rank``
    and ``gaussian_rank``: the :func:`effective_rank` of each cloud's covariance (a rotation leaves
    it unchanged, so it is also the rotated clouds').
    """

    d: int
    steps: int
    seeds: tuple[int, ...]
    adam: np.ndarray
    rotated: np.ndarray
    gd: np.ndarray
    gaussian: np.ndarray
    adam_loss: np.ndarray
    gd_loss: np.ndarray
    adam_rank: np.ndarray
    gd_rank: np.ndarray
    gaussian_rank: np.ndarray


def optimizer_shares(d: int = 8, seeds: tuple[int, ...] = (0, 1, 2, 3, 4), steps: int = 1600,
                     rotations: int = 10, vocab: int = 128) -> OptimizerShares:
    r"""Does Adam give the embeddings an outlier coordinate that gradient descent does not?

    Gradient descent's update is equivariant under a rotation of the embedding space: rotate the
    start, and the run is the rotated run, so no coordinate axis is special. Adam divides each
    coordinate's step by its own running gradient scale, which is not equivariant, so it *could*
    make the coordinate axes special, a privileged basis (Elhage et al. 2023, "Privileged Bases in
    the Transformer Residual Stream", Anthropic Transformer Circuits Thread). This trains
    :func:`degeneration_runs` (Zipf exponent 1, tied) both ways, gradient descent with its step
    0.25 and Adam with 0.003, and measures :func:`coordinate_share` beside its two controls. (At
    0.01 Adam's runs become chaotic: a change of BLAS kernel moves the shares in the fourth digit.)
    """
    steps = _checks.integer(steps, "steps", 1)
    vocab_, d_ = _checks.integer(vocab, "vocab", 2), _checks.integer(d, "d", 2)
    models = 2 * len(_checks.sequence(seeds, "seeds"))  # two optimisers, one model per seed
    _checks.work(("steps", steps), (None, models), ("vocab", vocab_), ("vocab", vocab_), ("d", d_))
    return optimizer_shares_by_length(d, seeds, (steps,), rotations, vocab)[0]


def optimizer_shares_by_length(d: int = 8, seeds: tuple[int, ...] = (0, 1, 2, 3, 4),
                               lengths: tuple[int, ...] = (1600, 3200), rotations: int = 10,
                               vocab: int = 128) -> list[OptimizerShares]:
    r""":func:`optimizer_shares` after each training length in ``lengths``, from one pair of runs
    checkpointed along the way (so the cost is that of the longest length alone)."""
    d = _checks.integer(d, "d", 2)
    rotations = _checks.integer(rotations, "rotations", 1)
    seeds = tuple(_checks.integer(s, f"seeds[{i}]", 0) for i, s in enumerate(_checks.sequence(seeds, "seeds")))
    if not seeds:
        raise ValueError("seeds: expected at least one seed")
    lengths = tuple(_checks.integer(s, f"lengths[{i}]", 1) for i, s in enumerate(_checks.sequence(lengths, "lengths")))
    if not lengths:
        raise ValueError("lengths: expected at least one training length")
    vocab = _checks.integer(vocab, "vocab", 2)
    _checks.work(("lengths", max(lengths)), (None, 2 * len(seeds)), ("vocab", vocab), ("vocab", vocab), ("d", d))
    _checks.work(("rotations", rotations), (None, len(seeds)), ("vocab", vocab), ("d", d), ("d", d))
    trained = {opt: degeneration_runs(1.0, True, lengths, vocab, d, lr=lr, seeds=seeds, optimizer=opt)
               for opt, lr in (("adam", 0.003), ("gd", 0.25))}
    gaussians = [make_isotropic(vocab, d, rng=seed) for seed in seeds]
    out = []
    for k, steps in enumerate(lengths):
        adam = [r.emb[k] for r in trained["adam"]]
        gd = [r.emb[k] for r in trained["gd"]]
        rotated = []
        for seed, E in zip(seeds, adam):
            rng = np.random.default_rng([seed, 1])  # rotations of its own per seed, apart from the training draws
            rotated.append(np.mean([coordinate_share(E @ random_rotation(d, rng)) for _ in range(rotations)]))
        out.append(OptimizerShares(
            d, steps, seeds,
            adam=np.array([coordinate_share(E) for E in adam]),
            rotated=np.array(rotated),
            gd=np.array([coordinate_share(E) for E in gd]),
            gaussian=np.array([coordinate_share(G) for G in gaussians]),
            adam_loss=np.array([float(r.loss[k]) for r in trained["adam"]]),
            gd_loss=np.array([float(r.loss[k]) for r in trained["gd"]]),
            adam_rank=np.array([effective_rank(cov_eigs(E)) for E in adam]),
            gd_rank=np.array([effective_rank(cov_eigs(E)) for E in gd]),
            gaussian_rank=np.array([effective_rank(cov_eigs(G)) for G in gaussians]),
        ))
    return out
