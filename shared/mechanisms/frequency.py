"""Notebook 04's language and its gradients: Zipf frequencies, the frequency pull, the bigram language.

:func:`zipf_frequencies` and :func:`frequency_pull` are the first toy (norms shrunk by frequency);
:func:`bigram_language` is the language a tiny model is trained on, :func:`lm_gradients` and
:func:`logit_gradient` the gradients it gets from it, and :data:`FREQUENCY_BANDS` with
:func:`band_rows` the bands of frequency rank the notebook reads it by.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _checks


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
    return lm_gradients_unchecked(E, A, b, E_out, P)


def lm_gradients_unchecked(E: np.ndarray, A: np.ndarray, b: np.ndarray, E_out: np.ndarray, P: np.ndarray,
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
