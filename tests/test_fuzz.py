"""Fuzz of every public function: it returns the right value or refuses with a named error.

For each public function the registry below holds a builder of valid keyword arguments and the
*role* of each array argument (a cloud, a spectrum, labels, ...). From the role, and from the type
hint of each scalar argument, the harness derives bad and extreme variants of every argument, one
at a time: NaN and inf, empty, one row, the wrong number of dimensions, int, bool, float16/32,
complex, object and string arrays, constant and collapsed clouds, fewer points than dimensions,
one dimension, magnitudes from subnormal (1e-315) to 1e300, masked arrays (refused when an entry
is masked, the plain array's answer when none is), another number of columns; and for scalars
negative values, 2.5 for an int, sizes of 10**20, bools, NaN, strings, and numpy scalars or 0-d
arrays (which must be accepted as numbers).

Each variant states what must happen:

* ``TYPE`` / ``VALUE``: a ``TypeError`` / ``ValueError`` whose message names the argument;
* ``SAME``: the value of the call on an equivalent, ordinary argument (an int cloud gives what the
  same cloud as float64 gives; a collapsed cloud what the constant cloud gives; ...);
* ``SCALED``: for an argument with a scale law ``k``, ``f(s X) = s**k f(X)``, answered (not refused)
  for ``1e-150 <= s <= 1e150``, the stated range; without a law, as ``EITHER``;
* ``EITHER``: a finite value, or a ``ValueError``/``TypeError`` naming the argument.

A named error is one whose subject (the text before the first colon) names an argument of the
function and whose text names the argument that was changed. Whatever returns must be finite
and must leave its inputs unchanged; a ``RuntimeWarning`` on the way (overflow, invalid value)
counts as an error. A case that fails is *silent* (a wrong value, or a value where an error was
due) or *cryptic* (any other error, or one that does not name the argument).

To add a function: add an :class:`Entry` to ``REGISTRY`` with a builder of valid arguments (small,
so the cases stay fast) and the role of each array argument; scalar arguments are classified from
their type hints. ``test_every_public_function_is_registered`` fails until the entry exists.

``python -m tests.test_fuzz`` prints how many cases give a silent wrong answer or a cryptic error.
"""

from __future__ import annotations

import functools
import inspect
import re
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

import numpy as np
import pytest

import shared
from shared import explorers, mechanisms
from shared.real import corpus, encoder, encoder_study, frequency, models, negatives

EPS = np.finfo(float).eps

# Expectations
TYPE, VALUE, SAME, SCALED, EITHER = "TypeError", "ValueError", "same", "scaled", "either"


@dataclass(frozen=True)
class Variant:
    """A change to one argument (``make`` maps the valid value to the variant) and what must happen.

    For ``SAME``, ``ref`` maps the valid value to the equivalent ordinary argument whose result the
    variant must reproduce; for ``SCALED``, ``scale`` is the factor applied.
    """

    name: str
    make: Callable[[Any], Any]
    expect: str
    ref: Callable[[Any], Any] | None = None
    scale: float | None = None
    rtol: float = 1e-9


def _with(a: np.ndarray, index: tuple, value: float) -> np.ndarray:
    a = np.array(a, dtype=float)
    a[index] = value
    return a


def _collapsed(X: np.ndarray) -> np.ndarray:
    """Every row the first one, plus noise at the level of rounding (a few ulps)."""
    X = np.asarray(X, dtype=float)
    noise = np.random.default_rng(0).standard_normal(X.shape) * EPS * np.abs(X[0]).max()
    return np.tile(X[0], (len(X), 1)) + noise


def _constant(X: np.ndarray) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    return np.tile(X[0], (len(X), 1))


def _cast(dtype: type) -> Callable[[Any], np.ndarray]:
    return lambda a: np.asarray(a).astype(dtype)


def _cast_back(dtype: type) -> Callable[[Any], np.ndarray]:
    return lambda a: np.asarray(a).astype(dtype).astype(float)


def _as_int(a: Any) -> np.ndarray:
    return np.round(4 * np.asarray(a, dtype=float)).astype(np.int64)


def _type_variants() -> list[Variant]:
    """Arrays of a wrong kind: refused with a TypeError naming the argument."""
    return [
        Variant("bool", lambda a: np.asarray(a, dtype=float) > 0, TYPE),
        Variant("complex", lambda a: np.asarray(a, dtype=float) + 0j, TYPE),
        Variant("object", _cast(object), TYPE),
        Variant("str", _cast(str), TYPE),
        Variant("None", lambda a: None, TYPE),
    ]


def _masked_one(a: Any) -> np.ma.MaskedArray:
    """``a`` as a masked array with its first entry masked."""
    a = np.asarray(a)
    mask = np.zeros(a.shape, dtype=bool)
    mask.flat[0] = True
    return np.ma.masked_array(a, mask=mask)


def _masked_variants() -> list[Variant]:
    """A masked array: refused when an entry is masked (no rule for a missing entry), its data when none is."""
    return [
        Variant("masked", _masked_one, VALUE),
        Variant("masked, none masked", lambda a: np.ma.masked_array(np.asarray(a)), SAME, ref=lambda a: a),
    ]


def _number_variants(scales: bool = True) -> list[Variant]:
    """Arrays of real numbers in other containers and dtypes, and at other magnitudes."""
    out = [
        Variant("list", lambda a: np.asarray(a).tolist(), SAME, ref=lambda a: a),
        Variant("int", _as_int, SAME, ref=lambda a: _as_int(a).astype(float)),
        Variant("float16", _cast(np.float16), SAME, ref=_cast_back(np.float16)),
        Variant("float32", _cast(np.float32), SAME, ref=_cast_back(np.float32)),
    ]
    if scales:
        for s in (1e-300, 1e-150, 1e-100, 1e100, 1e150, 1e300):
            out.append(Variant(f"scale {s:.0e}", lambda a, s=s: np.asarray(a, dtype=float) * s, SCALED, scale=s))
        # subnormal entries keep only part of their digits, and 1 / s overflows: answered or refused by name
        out.append(Variant("scale 1e-315", lambda a: np.asarray(a, dtype=float) * 1e-315, EITHER))
    return out


def cloud_variants() -> list[Variant]:
    """A cloud: 2-D, points x dimensions, real and finite."""
    return [
        Variant("nan", lambda X: _with(X, (0, 0), np.nan), VALUE),
        Variant("inf", lambda X: _with(X, (-1, -1), -np.inf), VALUE),
        Variant("no rows", lambda X: np.asarray(X)[:0], VALUE),
        Variant("no columns", lambda X: np.asarray(X)[:, :0], VALUE),
        Variant("ndim 1", lambda X: np.asarray(X)[0], VALUE),
        Variant("ndim 3", lambda X: np.asarray(X)[None], VALUE),
        Variant("ragged", lambda X: [list(X[0]), list(X[1])[:-1]], VALUE),
        *_type_variants(),
        *_number_variants(),
        *_masked_variants(),
        Variant("other columns", lambda X: np.asarray(X)[:, :-1] if np.shape(X)[1] > 1 else np.hstack([X, X]), EITHER),
        Variant("a zero row", lambda X: _with(X, (0, slice(None)), 0.0), EITHER),
        Variant("one row", lambda X: np.asarray(X)[:1], EITHER),
        Variant("two rows", lambda X: np.asarray(X)[:2], EITHER),
        Variant("n < d", lambda X: np.asarray(X)[: max(1, np.shape(X)[1] - 2)], EITHER),
        Variant("d = 1", lambda X: np.asarray(X)[:, :1], EITHER),
        Variant("zeros", lambda X: np.zeros(np.shape(X)), EITHER),
        Variant("constant", _constant, EITHER),
        Variant("collapsed", _collapsed, SAME, ref=_constant, rtol=1e-6),
        Variant("one row huge", lambda X: _with(X, (0, slice(None)), 1e150), EITHER),
        Variant("mixed 1e-150/1e150", lambda X: np.asarray(X) * np.where(np.arange(len(X)) % 2, 1e-150, 1e150)[:, None], EITHER),
    ]


def tokens_variants(scores: bool = False) -> list[Variant]:
    """Tokens: one sequence (2-D) or a stack of sequences (3-D, accepted: the same as its one sequence)."""
    same_stack = Variant("ndim 3", lambda X: np.asarray(X)[None], EITHER)
    base = scores_variants() if scores else cloud_variants()
    return [same_stack if v.name == "ndim 3" else v for v in base]


def scores_variants() -> list[Variant]:
    """A 2-D array of real scores (not a cloud: no spread is required)."""
    return [v for v in cloud_variants() if v.name not in ("collapsed",)]


def spectrum_variants() -> list[Variant]:
    """A 1-D spectrum: finite, non-negative, not all zero."""
    return [
        Variant("nan", lambda e: _with(e, (0,), np.nan), VALUE),
        Variant("inf", lambda e: _with(e, (-1,), np.inf), VALUE),
        Variant("empty", lambda e: np.asarray(e, dtype=float)[:0], VALUE),
        Variant("ndim 2", lambda e: np.asarray(e, dtype=float)[None], VALUE),
        Variant("negative", lambda e: _with(e, (-1,), -np.max(e)), VALUE),
        Variant("all zero", lambda e: np.zeros(np.shape(e)), EITHER),
        Variant("rounding below zero", lambda e: _with(e, (-1,), -EPS * np.max(e)), SAME,
                ref=lambda e: _with(e, (-1,), 0.0)),
        *_type_variants(),
        *_number_variants(),
        *_masked_variants(),
        Variant("one value", lambda e: np.asarray(e, dtype=float)[:1], EITHER),
    ]


def vector_variants() -> list[Variant]:
    """A 1-D array of real numbers."""
    return [
        Variant("nan", lambda v: _with(v, (0,), np.nan), VALUE),
        Variant("inf", lambda v: _with(v, (-1,), np.inf), VALUE),
        Variant("empty", lambda v: np.asarray(v, dtype=float)[:0], VALUE),
        Variant("ndim 2", lambda v: np.asarray(v, dtype=float)[None], VALUE),
        Variant("shorter", lambda v: np.asarray(v, dtype=float)[:-1], VALUE),
        Variant("constant", lambda v: np.full(np.shape(v), 2.0), EITHER),
        *_type_variants(),
        *_number_variants(),
        *_masked_variants(),
    ]


def _relabel(y: Any) -> np.ndarray:
    """An increasing map of the labels onto huge ones: every label-based score is unchanged."""
    return np.asarray(y) * 10**9 + 7


def labels_variants() -> list[Variant]:
    """A 1-D array of integer class labels, one per row."""
    return [
        Variant("float", lambda y: np.asarray(y) + 0.5, TYPE),
        Variant("float whole", lambda y: np.asarray(y).astype(float), TYPE),
        Variant("negative", lambda y: np.asarray(y) - 1, VALUE),
        Variant("ndim 2", lambda y: np.asarray(y)[None], VALUE),
        Variant("shorter", lambda y: np.asarray(y)[:-1], VALUE),
        Variant("huge labels", _relabel, SAME, ref=lambda y: y),
        Variant("list", lambda y: np.asarray(y).tolist(), SAME, ref=lambda y: y),
        Variant("int32", _cast(np.int32), SAME, ref=lambda y: y),
        *_masked_variants(),
        *[v for v in _type_variants() if v.name != "complex"],
    ]


def pairs_variants() -> list[Variant]:
    """Row indices of paraphrase pairs, shape (P, 2)."""
    return [
        Variant("float", lambda p: np.asarray(p) + 0.5, TYPE),
        Variant("negative", lambda p: np.asarray(p) - 100, VALUE),
        Variant("out of range", lambda p: np.asarray(p) + 10_000, VALUE),
        Variant("ndim 1", lambda p: np.asarray(p).ravel(), VALUE),
        Variant("repeated", lambda p: np.vstack([p, p]), VALUE),
        Variant("one pair", lambda p: np.asarray(p)[:1], VALUE),
        Variant("list", lambda p: np.asarray(p).tolist(), SAME, ref=lambda p: p),
        *_masked_variants(),
        *[v for v in _type_variants() if v.name != "complex"],
    ]


def directions_variants() -> list[Variant]:
    """Unit vectors as columns, one row per dimension of X."""
    return [
        Variant("nan", lambda C: _with(C, (0, 0), np.nan), VALUE),
        Variant("not unit", lambda C: 2.0 * np.asarray(C), VALUE),
        Variant("wrong rows", lambda C: np.asarray(C)[:-1], VALUE),
        Variant("ndim 1", lambda C: np.asarray(C)[:, 0], VALUE),
        *_type_variants()[:-1],
        Variant("float32", _cast(np.float32), EITHER),
        Variant("masked", _masked_one, VALUE),
    ]


def out_variants() -> list[Variant]:
    """An output buffer: a float64 array of the right shape."""
    return [
        Variant("wrong shape", lambda o: np.zeros((1, 1)), VALUE),
        Variant("int", lambda o: np.zeros(np.shape(o), dtype=np.int64), TYPE),
        Variant("float32", lambda o: np.zeros(np.shape(o), dtype=np.float32), TYPE),
        Variant("list", lambda o: np.asarray(o).tolist(), TYPE),
        Variant("read-only", lambda o: _read_only(np.zeros(np.shape(o))), VALUE),
    ]


def _read_only(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def ids_variants() -> list[Variant]:
    """Token ids: one 1-D integer array per sentence."""
    return [
        Variant("float ids", lambda ids: [np.asarray(t) + 0.7 for t in ids], TYPE),
        Variant("whole float ids", lambda ids: [np.asarray(t).astype(float) for t in ids], TYPE),
        Variant("bool ids", lambda ids: [np.asarray(t) > 0 for t in ids], TYPE),
        Variant("negative id", lambda ids: [np.asarray(t) - 10**6 for t in ids], VALUE),
        Variant("id too large", lambda ids: [np.asarray(t) + 10**6 for t in ids], VALUE),
        Variant("empty list", lambda ids: [], VALUE),
        Variant("empty sentence", lambda ids: [np.array([], dtype=np.int64)], VALUE),
        Variant("flat array", lambda ids: np.asarray(ids[0]), TYPE),
        Variant("2-D id array", lambda ids: [np.asarray(ids[0])[None]], VALUE),
        Variant("None", lambda ids: None, TYPE),
        Variant("lists", lambda ids: [list(map(int, t)) for t in ids], SAME, ref=lambda ids: ids),
    ]


def texts_variants() -> list[Variant]:
    """A non-empty list of non-empty strings."""
    return [
        Variant("None", lambda s: None, TYPE),
        Variant("one string", lambda s: s[0], TYPE),
        Variant("numbers", lambda s: [1, 2], TYPE),
        Variant("empty list", lambda s: [], VALUE),
        Variant("blank", lambda s: [" "], VALUE),
        Variant("tuple", tuple, SAME, ref=lambda s: s),
    ]


def object_variants(optional: bool = False) -> list[Variant]:
    """An object of one of the toolkit's classes (a model, an encoding, a corpus)."""
    out = [Variant("int", lambda o: 5, TYPE), Variant("str", lambda o: "model", TYPE)]
    if not optional:
        out.append(Variant("None", lambda o: None, TYPE))
    return out


def clouds_variants() -> list[Variant]:
    """A mapping from names to clouds (notebook 01's meter table)."""
    first = lambda m: np.asarray(next(iter(m.values())), dtype=float)  # noqa: E731
    return [
        Variant("None", lambda m: None, TYPE),
        Variant("list", lambda m: list(m.values()), TYPE),
        Variant("empty", lambda m: {}, VALUE),
        Variant("a cloud with NaN", lambda m: {**m, "bad": _with(first(m), (0, 0), np.nan)}, VALUE),
        Variant("a 1-D cloud", lambda m: {**m, "bad": first(m)[0]}, VALUE),
        Variant("a constant cloud", lambda m: {**m, "bad": _constant(first(m))}, VALUE),
        Variant("an int cloud", lambda m: {k: _as_int(v) for k, v in m.items()}, SAME,
                ref=lambda m: {k: _as_int(v).astype(float) for k, v in m.items()}),
    ]


def name_variants(valid: tuple[str, ...] = ()) -> list[Variant]:
    """The name of one of a fixed set of things (a meter, a band, a remedy)."""
    return [
        Variant("unknown name", lambda v: "no such thing", VALUE),
        Variant("int", lambda v: 3, TYPE),
        Variant("None", lambda v: None, TYPE),
        Variant("bytes", lambda v: v.encode(), TYPE),
    ]


def text_variants() -> list[Variant]:
    """A label shown to the learner."""
    return [Variant("int", lambda v: 3, TYPE), Variant("None", lambda v: None, TYPE)]


def meter_variants() -> list[Variant]:
    """One of the toolkit's meters (a function that declares its label and format)."""
    return [
        Variant("a plain function", lambda m: np.mean, TYPE),
        Variant("its name", lambda m: m.__name__, TYPE),
        Variant("None", lambda m: None, TYPE),
    ]


def options_variants() -> list[Variant]:
    return [
        Variant("empty", lambda o: [], VALUE),
        Variant("a string", lambda o: "none", TYPE),
        Variant("None", lambda o: None, TYPE),
        Variant("tuple", tuple, SAME, ref=lambda o: o),
    ]


def option_variants() -> list[Variant]:
    return [Variant("not an option", lambda v: "magic", VALUE)]


ROLES: dict[str, Callable[[], list[Variant]]] = {
    "report source": cloud_variants,
    "clouds": clouds_variants,
    "dtype name": lambda: [Variant("int8", lambda v: "int8", VALUE), Variant("an object", lambda v: object(), TYPE)],
    "baseline name": lambda: [Variant("unknown", lambda v: "gaussian", VALUE), Variant("int", lambda v: 3, TYPE)],
    "tokens": tokens_variants,
    "token scores": lambda: tokens_variants(scores=True),
    "meter name": name_variants,
    "band name": name_variants,
    "remedy name": name_variants,
    "text": text_variants,
    "meter": meter_variants,
    "options": options_variants,
    "option": option_variants,
    "cloud": cloud_variants,
    "scores": scores_variants,
    "spectrum": spectrum_variants,
    "vector": vector_variants,
    "labels": labels_variants,
    "pairs": pairs_variants,
    "directions": directions_variants,
    "out": out_variants,
    "ids": ids_variants,
    "texts": texts_variants,
    "object": object_variants,
    "optional object": lambda: object_variants(optional=True),
    "share": lambda: real_variants(),  # a share of the corpus, strictly between 0 and 1
}


# ----- scalar arguments, classified from their type hints ----------------------------------------


def int_variants(optional: bool = False) -> list[Variant]:
    out = [
        Variant("-1", lambda v: -1, EITHER),
        Variant("2.5", lambda v: 2.5, TYPE),
        Variant("whole float", lambda v: float(v), TYPE),
        Variant("True", lambda v: True, TYPE),
        Variant("'3'", lambda v: "3", TYPE),
        Variant("nan", lambda v: float("nan"), TYPE),
        Variant("np.int64", lambda v: np.int64(v), SAME, ref=lambda v: v),
        Variant("0-d array", lambda v: np.array(v), SAME, ref=lambda v: v),
        Variant("1-element array", lambda v: np.array([v]), TYPE),
        Variant("10**20", lambda v: 10**20, EITHER),  # a size: refused by name if it cannot fit, never a hang
    ]
    if not optional:
        out.append(Variant("None", lambda v: None, TYPE))
    return out


def real_variants() -> list[Variant]:
    return [
        Variant("-1.0", lambda v: -1.0, EITHER),
        Variant("nan", lambda v: float("nan"), VALUE),
        Variant("inf", lambda v: float("inf"), VALUE),
        Variant("True", lambda v: True, TYPE),
        Variant("'0.5'", lambda v: "0.5", TYPE),
        Variant("complex", lambda v: complex(v), TYPE),
        Variant("None", lambda v: None, TYPE),
        Variant("np.float32", lambda v: np.float32(v), SAME, ref=lambda v: float(np.float32(v))),
        Variant("0-d array", lambda v: np.array(v), SAME, ref=lambda v: v),
        Variant("int", lambda v: int(np.ceil(v)), EITHER),
    ]


def rng_variants() -> list[Variant]:
    return [
        Variant("1.5", lambda r: 1.5, TYPE),
        Variant("True", lambda r: True, TYPE),
        Variant("-1", lambda r: -1, VALUE),
        Variant("'seed'", lambda r: "seed", TYPE),
        Variant("None", lambda r: None, TYPE),
        Variant("RandomState", lambda r: np.random.RandomState(0), TYPE),
        Variant("np.int64", lambda r: np.int64(r), SAME, ref=lambda r: r),
        Variant("0-d array", lambda r: np.array(r), SAME, ref=lambda r: r),
        Variant("Generator", lambda r: np.random.default_rng(r), SAME, ref=lambda r: r),
    ]


def flag_variants() -> list[Variant]:
    return [
        Variant("1", lambda f: 1, TYPE),
        Variant("'no'", lambda f: "no", TYPE),
        Variant("None", lambda f: None, TYPE),
        Variant("np.bool_", lambda f: np.bool_(f), SAME, ref=lambda f: f),
    ]


def ints_variants() -> list[Variant]:
    return [
        Variant("[2.5]", lambda s: [2.5], TYPE),
        Variant("[-1]", lambda s: [-1], VALUE),
        Variant("[True]", lambda s: [True], TYPE),
        Variant("scalar", lambda s: 1, TYPE),
        Variant("'01'", lambda s: "01", TYPE),
        Variant("empty", lambda s: [], EITHER),
        Variant("array", np.asarray, SAME, ref=lambda s: s),
        Variant("[10**20]", lambda s: [10**20], EITHER),
    ]


def reals_variants() -> list[Variant]:
    return [
        Variant("[nan]", lambda s: [float("nan")], VALUE),
        Variant("['a']", lambda s: ["a"], TYPE),
        Variant("scalar", lambda s: 0.5, TYPE),
        Variant("empty", lambda s: [], EITHER),
        Variant("array", np.asarray, SAME, ref=lambda s: s),
    ]


HINTS: dict[str, Callable[[], list[Variant]]] = {
    "str | None": lambda: [Variant("int", lambda v: 3, TYPE)],
    "bool | None": lambda: [Variant("'yes'", lambda v: "yes", TYPE), Variant("np.bool_", lambda v: np.bool_(v), SAME,
                                                                          ref=lambda v: v)],
    "tuple[int, ...]": ints_variants,
    "int": int_variants,
    "int | None": lambda: int_variants(optional=True),
    "float": real_variants,
    "bool": flag_variants,
    "np.random.Generator | int": rng_variants,
    "np.random.Generator | int | None": lambda: [v for v in rng_variants() if v.name != "None"],  # None: no draws
    "Sequence[int]": ints_variants,
    "Sequence[float]": reals_variants,
}


# ----- the registry -------------------------------------------------------------------------------


def _cloud(n: int = 40, d: int = 5, seed: int = 0, shift: float = 1.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)) * np.linspace(2.0, 0.5, d) + shift


def _labels(n: int = 40, classes: int = 3) -> np.ndarray:
    return np.arange(n) % classes


@dataclass(frozen=True)
class Entry:
    """How to call one public function with valid arguments, and what its arguments are.

    ``roles`` names the role (a key of ``ROLES``) of each array or object argument; scalar
    arguments are classified by their type hint (``HINTS``). ``scale`` gives, for an argument (or
    ``"all"``: every cloud argument at once), the power ``k`` with ``f(s X) = s**k f(X)``; a tuple
    gives one power per element of a tuple result. ``defaults`` lists arguments the builder leaves
    at their default (another entry varies them); ``writes`` lists output buffers the function
    fills; ``nan_ok`` lists result keys documented to be NaN in some cases. ``known`` maps cases
    (``"argument=variant"``) that still fail to the reason they cannot be fixed here: they run as
    strict expected failures, so fixing one makes the test say so.
    """

    fn: Callable[..., Any]
    build: Callable[[], dict[str, Any]]
    roles: dict[str, str] = field(default_factory=dict)
    scale: dict[str, float | tuple[float, ...]] = field(default_factory=dict)
    name: str = ""
    defaults: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    nan_ok: tuple[str, ...] = ()
    known: dict[str, str] = field(default_factory=dict)
    covers: Callable[..., Any] | None = None  # the public function a wrapper stands for

    @property
    def id(self) -> str:
        return self.name or self.fn.__name__


def _run_extend(depth: int) -> shared.AttentionRun:
    """:meth:`AttentionRun.extend` on a fresh run of depth 1."""
    return shared.attention_run(1, n=20).extend(depth)


def _softmax_rows_of(S: np.ndarray) -> np.ndarray:
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


@functools.lru_cache(maxsize=1)
def _degeneration() -> shared.DegenerationRun:
    return shared.degeneration_run(checkpoints=(0, 2), vocab=20, d=3)


def _report(source: Any, rng: np.random.Generator | int, chunk_rows: int | None, compute_dtype: Any,
            partition: bool, uniformity_rows: int, baseline: Any, progress: bool | None) -> tuple:
    """:func:`shared.isotropy_report`, as its numbers (the report also records the input's dtype and seed)."""
    r = shared.isotropy_report(source, rng, chunk_rows=chunk_rows, compute_dtype=compute_dtype, partition=partition,
                               uniformity_rows=uniformity_rows, baseline=baseline, progress=progress)
    return r.meters, r.baseline, r.uniformity_se, r.n, r.d, r.passes


def _slider(description: str, value: float, low: float, high: float, step: float) -> dict[str, Any]:
    """:func:`shared.explorers.slider`, as the state of the widget it makes (widgets never compare equal)."""
    w = explorers.slider(description, value, low, high, step)
    return dict(kind=type(w).__name__, description=w.description, value=w.value, min=w.min, max=w.max, step=w.step)


def _choice(description: str, options: Any, value: Any = None) -> dict[str, Any]:
    """:func:`shared.explorers.choice`, as the state of the widget it makes."""
    w = explorers.choice(description, options, value)
    return dict(description=w.description, options=list(w.options), value=w.value)


def _model() -> encoder.MiniLM:
    return encoder.load_minilm()  # cached: loaded once


@functools.lru_cache(maxsize=1)
def _encoded() -> encoder.Encoded:
    """Two short sentences through the model (encoded once)."""
    return encoder.encode(["A heron stood still.", "Yes."], _model())


CLOUD = "cloud"
_WORDS = ["cat", "dog", "car", "bus", "tea", "milk", "red", "blue"]  # a vocabulary for word_similarity
_PAIRS = shared.WordPairs("toy", ("cat", "car", "tea", "red", "cat", "bus"), ("dog", "bus", "milk", "blue", "car", "tea"),
                          np.array([9.0, 8.0, 7.5, 6.0, 2.0, 1.0]))
PRINTED = "notebook {nb} prints this function's source, so it cannot change here: {what}"
s = shared
REGISTRY: list[Entry] = [
    # GloVe word vectors (shared.real.glove)
    Entry(s.glove_matrix, dict),
    Entry(s.glove_vectors, lambda: dict(n=30)),
    Entry(s.glove_words, dict),
    Entry(s.word_pairs, lambda: dict(name="WordSim-353"), {"name": "band name"}),
    Entry(s.word_similarity, lambda: dict(X=_cloud(8), words=_WORDS, pairs=_PAIRS),
          {"X": CLOUD, "words": "texts", "pairs": "object"}, {"X": 0}),
    Entry(s.word_similarity_change, lambda: dict(before=_cloud(8), after=_cloud(8, seed=1), words=_WORDS,
                                                 pairs=_PAIRS, rng=0, resamples=20),
          {"before": CLOUD, "after": CLOUD, "words": "texts", "pairs": "object"}, {"all": 0}),
    Entry(s.all_but_the_top_as_written, lambda: dict(X=_cloud(), k=2), {"X": CLOUD}, {"X": 1}, defaults=("fit",)),
    Entry(s.all_but_the_top_as_written, lambda: dict(X=_cloud(20, seed=1), k=2, fit=_cloud()),
          {"X": CLOUD, "fit": CLOUD}, {"all": 1}, name="all_but_the_top_as_written[fit]"),
    # clouds
    Entry(s.make_isotropic, lambda: dict(n=30, d=4, rng=1)),
    Entry(s.make_cone, lambda: dict(n=30, d=4, rng=1, strength=4.0, residual=0.1)),
    Entry(s.random_rotation, lambda: dict(d=4, rng=1)),
    Entry(s.sphere_and_cone, lambda: dict(strength=4.0, residual=0.1, n=30, d=4, seed=0)),
    Entry(s.make_planted, lambda: dict(n=40, d=6, rng=1, classes=3, signal_dims=2, separation=2.0,
                                         offset=30.0, noise=0.3, within=1.0, strong_dims=1,
                                         strong_separation=2.0, strong_within=1.0, noise_decay=1.0)),
    # meters
    Entry(s.cov_eigs, lambda: dict(X=_cloud()), {"X": CLOUD}, {"X": 2}),
    Entry(s.partition_isotropy, lambda: dict(X=_cloud(), rescale=True), {"X": CLOUD}, {"X": 0}, defaults=("directions",)),
    Entry(s.partition_isotropy, lambda: dict(X=_cloud(), directions=shared.random_rotation(5, 3), rescale=True),
          {"X": CLOUD, "directions": "directions"}, {"X": 0}, name="partition_isotropy[directions]"),
    Entry(s.partition_isotropy, lambda: dict(X=0.3 * _cloud(), rescale=False), {"X": CLOUD},
          name="partition_isotropy[rescale=False]", defaults=("directions",)),
    Entry(s.basis_isotropy, lambda: dict(X=_cloud(), rng=2, bases=3), {"X": CLOUD}, {"X": 0}),
    Entry(s.random_cosines, lambda: dict(X=_cloud(), rng=2, m=50), {"X": CLOUD}, {"X": 0}),
    Entry(s.cosine_terms, lambda: dict(X=_cloud(), rng=2, m=50), {"X": CLOUD}, {"X": 0}),
    Entry(s.effective_rank, lambda: dict(eigs=np.array([4.0, 2.0, 1.0, 0.5, 0.0])), {"eigs": "spectrum"}, {"eigs": 0}),
    Entry(s.entropy_rank, lambda: dict(eigs=np.array([4.0, 2.0, 1.0, 0.5, 0.0])), {"eigs": "spectrum"}, {"eigs": 0}),
    Entry(s.numerical_rank, lambda: dict(eigs=np.array([4.0, 2.0, 1e-3, 1e-14, 0.0]), rtol=1e-12),
          {"eigs": "spectrum"}, {"eigs": 0}),
    Entry(s.isoscore, lambda: dict(X=_cloud()), {"X": CLOUD}, {"X": 0}),
    Entry(s.uniformity, lambda: dict(X=_cloud()), {"X": CLOUD}, {"X": 0}),
    Entry(s.all_meters, lambda: dict(X=_cloud()), {"X": CLOUD}, {"X": 0}, nan_ok=("partition_isotropy",)),
    Entry(s.mean_cosine, lambda: dict(X=_cloud()), {"X": CLOUD}, {"X": 0}),
    Entry(s.gaussian_effective_rank, lambda: dict(n=30, d=50)),
    Entry(_report, lambda: dict(source=_cloud(60, 4), rng=0, chunk_rows=25, compute_dtype="float64", partition=True,
                                uniformity_rows=40, baseline="sample", progress=False),
          {"source": "report source", "compute_dtype": "dtype name", "baseline": "baseline name"},
          name="isotropy_report", covers=s.isotropy_report),
    Entry(s.meter_table, lambda: dict(clouds={"a": _cloud(), "b": _cloud(30, seed=1)}, seed=100),
          {"clouds": "clouds"}),
    Entry(s.calls_isotropic, lambda: dict(meter="isoscore", value=0.5, gaussian=0.9), {"meter": "meter name"}),
    Entry(s.read, lambda: dict(meter=s.effective_rank, value=3.5, label="rank"), {"meter": "meter"}),
    Entry(s.pair_auc, lambda: dict(X=_cloud(), labels=_labels(), rng=4, m=300), {"X": CLOUD, "labels": "labels"},
          {"X": 0}),
    Entry(s.spearman, lambda: dict(x=np.linspace(0, 1, 12) ** 2, y=np.cos(np.arange(12.0))),
          {"x": "vector", "y": "vector"}, {"x": 0, "y": 0}),
    Entry(s.knn_accuracy, lambda: dict(X_ref=_cloud(), y_ref=_labels(), X=_cloud(20, seed=1), y=_labels(20), k=3),
          {"X_ref": CLOUD, "y_ref": "labels", "X": CLOUD, "y": "labels"}, {"X_ref": 0, "X": 0, "all": 0}),
    Entry(s.cross_group_cosines, lambda: dict(X=_cloud(), groups=_labels()), {"X": CLOUD, "groups": "labels"},
          {"X": 0}),
    Entry(s.rank_collapse, lambda: dict(X=_cloud()), {"X": CLOUD}, {"X": 0}),
    Entry(s.paraphrase_cosines, lambda: dict(S=_cloud(12), pairs=np.arange(12).reshape(6, 2)),
          {"S": CLOUD, "pairs": "pairs"}, {"S": 0}),
    Entry(s.paraphrase_check, lambda: dict(S=_cloud(16), pairs=np.arange(12).reshape(6, 2),
                                           traps=np.arange(12, 16).reshape(2, 2), rng=0, resamples=50),
          {"S": CLOUD, "pairs": "pairs", "traps": "pairs"}, {"S": 0}),
    # principal axes
    Entry(s.principal_axes, lambda: dict(X=_cloud()), {"X": CLOUD}, {"X": (2, 0)}),
    Entry(s.pca_2d, lambda: dict(X=_cloud()), {"X": CLOUD}, {"X": 1}),
    Entry(s.mean_plane, lambda: dict(X=_cloud() + 3.0), {"X": CLOUD}, {"X": (1, 0)}),
    # remedies
    Entry(s.all_but_the_top, lambda: dict(X=_cloud(), k=2), {"X": CLOUD}, {"X": 1}, defaults=("fit",)),
    Entry(s.all_but_the_top, lambda: dict(X=_cloud(20, seed=1), k=2, fit=_cloud()), {"X": CLOUD, "fit": CLOUD},
          {"all": 1}, name="all_but_the_top[fit]"),
    Entry(s.zca_whiten, lambda: dict(X=_cloud(), power=1.0), {"X": CLOUD}, {"X": 0}, defaults=("fit", "rank")),
    Entry(s.zca_whiten, lambda: dict(X=_cloud(20, seed=1), power=0.5, fit=_cloud(), rank=4),
          {"X": CLOUD, "fit": CLOUD}, {"all": 0.5}, name="zca_whiten[fit, rank]"),
    Entry(s.standardize, lambda: dict(X=_cloud()), {"X": CLOUD}, {"X": 0}),
    Entry(s.ledoit_wolf, lambda: dict(X=_cloud()), {"X": CLOUD}, {"X": (2, 0)}),
    Entry(s.shrunk_whiten, lambda: dict(X=_cloud()), {"X": CLOUD}, {"X": 0}, defaults=("fit",)),
    Entry(s.shrunk_whiten, lambda: dict(X=_cloud(20, seed=1), fit=_cloud()), {"X": CLOUD, "fit": CLOUD},
          {"all": 0}, name="shrunk_whiten[fit]"),
    Entry(s.label_variance_ratio, lambda: dict(X=_cloud(), directions=np.eye(_cloud().shape[1])[:, :2], remove=1),
          {"X": CLOUD, "directions": "directions"}, {"X": 0}),
    Entry(s.peak_label_variance_ratio, lambda: dict(X=_cloud(), directions=np.eye(_cloud().shape[1])[:, :2], ks=[0, 1]),
          {"X": CLOUD, "directions": "directions"}, {"X": (0, 0)}),
    Entry(s.choose_remedy, lambda: dict(X_fit=_cloud(), X_select=_cloud(30, seed=1), y_select=_labels(30),
                                        X_test=_cloud(30, seed=2), y_test=_labels(30), ks=[0, 1], powers=[0.0, 1.0],
                                        seed=0),
          {"X_fit": CLOUD, "X_select": CLOUD, "y_select": "labels", "X_test": CLOUD, "y_test": "labels"}, {"all": 0}),
    Entry(s.sweep_remedies, lambda: dict(X_fit=_cloud(), y_fit=_labels(), X_eval=_cloud(30, seed=1), y_eval=_labels(30),
                                         ks=[0, 1], powers=[0.0, 1.0], seed=0),
          {"X_fit": CLOUD, "y_fit": "labels", "X_eval": CLOUD, "y_eval": "labels"}, {"all": 0}),
    # mechanisms
    Entry(s.softmax_rows, lambda: dict(S=_cloud(6, 9)), {"S": "token scores"}),
    Entry(s.attention_step, lambda: dict(X=_cloud(20, 2), beta=0.6, alpha=0.09), {"X": "tokens"}),
    Entry(s.angular_std, lambda: dict(X=_cloud(20, 2)), {"X": CLOUD}, {"X": 0}),
    Entry(s.attention_sequences, lambda: dict(sequences=3, depth=2, beta=0.6, alpha=0.09, offset=0.7, shared=False,
                                              n=10, d=2, seed=30), defaults=("positions",)),
    Entry(s.attention_sequences, lambda: dict(sequences=3, depth=2, beta=0.1, alpha=0.09, offset=0.0, shared=True,
                                              n=10, d=4, seed=30, positions=s.sinusoidal_positions(10, 4)),
          {"positions": CLOUD}, name="attention_sequences[positions]"),
    Entry(s.sinusoidal_positions, lambda: dict(n=10, d=4)),
    Entry(s.attention_run, lambda: dict(depth=2, beta=0.6, alpha=0.09, offset=0.7, n=20, seed=3)),
    Entry(s.attention_seeds, lambda: dict(seeds=(0, 3), depth=2, beta=0.6, alpha=0.09, offset=0.7, n=20)),
    Entry(_run_extend, lambda: dict(depth=3), name="AttentionRun.extend"),
    Entry(s.zipf_frequencies, lambda: dict(vocab=20, exponent=1.0)),
    Entry(s.frequency_pull, lambda: dict(emb=_cloud(12, 3), freq=s.zipf_frequencies(12), gamma=0.9),
          {"emb": CLOUD, "freq": "vector"}, {"emb": 1, "freq": 0}),
    Entry(s.bigram_language, lambda: dict(vocab=12, exponent=1.0, rho=0.5)),
    Entry(s.logit_gradient, lambda: dict(Q=_softmax_rows_of(_cloud(8, 8)), P=s.bigram_language(8, 1.0)),
          {"Q": "scores", "P": "scores"}),
    Entry(mechanisms.lm_gradients, lambda: dict(E=_cloud(8, 3), A=_cloud(3, 3, seed=1), b=np.zeros(3), E_out=_cloud(8, 3, seed=2),
                                       P=s.bigram_language(8, 1.0)),
          {"E": CLOUD, "A": CLOUD, "b": "vector", "E_out": CLOUD, "P": "scores"}),
    Entry(s.degeneration_run, lambda: dict(exponent=1.0, tied=True, checkpoints=(0, 2, 4), vocab=12, d=3, rho=0.5,
                                           lr=0.25, init_scale=0.05, seed=0, corpus=40, optimizer="gd"),
          {"optimizer": "band name"}),
    Entry(s.degeneration_runs, lambda: dict(exponent=1.0, tied=False, checkpoints=(0, 2), vocab=12, d=3, rho=0.5,
                                            lr=0.25, init_scale=0.05, seeds=(0, 1), corpus=40, optimizer="adam"),
          {"optimizer": "band name"}),
    Entry(s.degeneration_grid, lambda: dict(exponents=(0.0, 1.0), seeds=(0, 1), corpora=(None, 40), tied=True,
                                            checkpoints=(0, 2), vocab=12, d=3, rho=0.5, lr=0.25, init_scale=0.05,
                                            optimizer="gd"),
          {"corpora": "object", "optimizer": "band name"}),
    Entry(s.cone_lifetime, lambda: dict(vocab=20, d=3, lr=0.25, times=(1.0, 2.0), seeds=(0, 1), corpus=None),
          defaults=("corpus",)),
    Entry(s.cone_lifetime, lambda: dict(vocab=20, d=3, lr=0.25, times=(1.0, 2.0), seeds=(0, 1), corpus=20),
          name="cone_lifetime[corpus]"),
    Entry(s.stored_cone_lifetimes, lambda: dict()),
    Entry(s.coordinate_share, lambda: dict(X=_cloud(12, 3)), {"X": CLOUD}, {"X": 0}),
    Entry(s.optimizer_shares, lambda: dict(d=2, seeds=(0, 1), steps=2, rotations=2, vocab=6)),
    Entry(s.optimizer_shares_by_length, lambda: dict(d=2, seeds=(0, 1), lengths=(1, 2), rotations=2, vocab=6)),
    Entry(s.band_rows, lambda: dict(vocab=20, band="rare"), {"band": "band name"}),
    Entry(s.band_cosines, lambda: dict(run=_degeneration(), output=False), {"run": "object"}),
    Entry(s.gaussian_with_spectrum, lambda: dict(n=30, variances=np.array([3.0, 2.0, 1.0, 0.5]), rng=1),
          {"variances": "spectrum"}),
    Entry(s.rich_get_richer_step, lambda: dict(lam=np.array([1.2, 1.0, 0.9, 0.3]), eta=0.18), {"lam": "spectrum"},
          {"lam": 0}),
    Entry(s.rich_get_richer_run, lambda: dict(eta=0.18, steps=3, unevenness=0.05, d=5, seed=5)),
    Entry(s.rich_get_richer_vectors, lambda: dict(X=_cloud(30, 4) + 1.0, eta=0.18, steps=3), {"X": CLOUD}),
    Entry(s.loop_cone_cosine, lambda: dict(ratio=1.0)),
    Entry(s.layer_norm, lambda: dict(X=_cloud(), gain=np.linspace(0.5, 2.0, 5), bias=np.linspace(-1.0, 1.0, 5)),
          {"X": CLOUD, "gain": "vector", "bias": "vector"}, {"X": 0}),
    # the real model (shared.real.encoder) and the course corpus (shared.real.corpus)
    Entry(models.minilm_dir, dict),
    *(Entry(m.store_entries, dict) for m in (encoder, encoder_study, frequency, negatives)),  # what the build fills
    Entry(encoder.load_minilm, dict),
    Entry(corpus.load_corpus, dict),
    Entry(encoder.hidden_states, lambda: dict(model=_model(), ids=[np.array([101, 7592, 102]), np.array([101, 102])]),
          {"model": "object", "ids": "ids"}),
    Entry(encoder.encode, lambda: dict(sentences=["Yes.", "A heron."], model=_model()),
          {"sentences": "texts", "model": "optional object"}),
    Entry(encoder.sentence_embeddings, lambda: dict(enc=_encoded(), layer=-1), {"enc": "object"}, defaults=("X",)),
    Entry(encoder.sentence_embeddings, lambda: dict(enc=_encoded(), layer=-1, X=_encoded().states[2] + 0.5),
          {"enc": "object", "X": CLOUD}, {"X": 1}, name="sentence_embeddings[X]"),
    Entry(corpus.split_halves, lambda: dict(corpus=corpus.load_corpus(), rng=7, fraction=0.25), {"corpus": "object"}),
    Entry(corpus.fit_share, lambda: dict(fraction=0.25), {"fraction": "share"}),
    Entry(encoder.reference_difference, lambda: dict(model=_model()), {"model": "optional object"}),
    Entry(encoder.word_embeddings, dict),
    # notebook 07's measurements (shared.real.encoder_study, .frequency, .negatives)
    Entry(encoder_study.real_study, dict),
    Entry(encoder_study.real_point, lambda: dict(layer=3, remedy="centring"), {"remedy": "remedy name"}),
    Entry(encoder_study.real_remedy, lambda: dict(remedy="centring", X=_cloud(20, seed=1), fit=_cloud()),
          {"remedy": "remedy name", "X": CLOUD, "fit": CLOUD}),
    Entry(encoder_study.layer_profile, dict),
    Entry(encoder_study.vocabulary_meters, dict),
    Entry(encoder_study.sentence_variants, lambda: dict(layer=3)),
    Entry(encoder_study.variant_checks, dict),
    Entry(encoder_study.layer_reports, dict),
    Entry(encoder_study.whitening_control, lambda: dict(layer=6, seeds=2)),
    Entry(frequency.binned_median, lambda: dict(zipf=np.linspace(1.0, 7.9, 12), values=np.cos(np.arange(12.0))),
          {"zipf": "vector", "values": "vector"}, {"values": (1, 0)}, nan_ok=("0",)),
    Entry(frequency.zipf_scale, lambda: dict(words=["the", "heron", "zzqx"]), {"words": "texts"}),
    Entry(frequency.frequency_words, dict),
    Entry(negatives.load_same_topic, dict),
    Entry(negatives.same_topic_encoded, dict),
    Entry(negatives.negatives_by_kind, dict),
    Entry(frequency.static_norm_frequency, dict),
    Entry(frequency.norm_frequency, dict),
    Entry(negatives.trap_kinds, lambda: dict(corpus=corpus.load_corpus()), {"corpus": "object"}),
    Entry(negatives.word_sharing_negatives, lambda: dict(sentences=["A cat sat.", "A dog sat.", "The cat ran.",
                                                                    "Dogs bark."], pairs=np.array([[0, 1], [2, 3]])),
          {"sentences": "texts", "pairs": "pairs"}),
    Entry(negatives.negative_auc, lambda: dict(S=_cloud(12), pairs=np.arange(8).reshape(4, 2),
                                               negatives=np.array([[0, 9], [1, 10], [2, 9], [3, 11]])),
          {"S": CLOUD, "pairs": "pairs", "negatives": "pairs"}, {"S": 0}),
    Entry(negatives.remedy_splits, lambda: dict(splits=2, fraction=0.75)),
    # the widget layer's controls (shared.explorers)
    Entry(_slider, lambda: dict(description="k", value=2.0, low=0.0, high=5.0, step=0.5),
          {"description": "text"}, name="explorers.slider"),
    Entry(_choice, lambda: dict(description="remedy", options=["none", "centring"], value="none"),
          {"description": "text", "options": "options", "value": "option"}, name="explorers.choice"),
]

#: Public names of ``shared`` that are not functions: result records (classes) and constants.
def _not_functions() -> set[str]:
    return {name for name in shared.__all__ if not inspect.isfunction(getattr(shared, name))}


# ----- running a case -------------------------------------------------------------------------------


def _leaves(value: Any, path: str = "") -> list[tuple[str, Any]]:
    """Every number, array or string inside a result, with where it is."""
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, f"{path}[{k!r}]")]
    if isinstance(value, (tuple, list)) and not (value and isinstance(value[0], str)):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, f"{path}[{i}]")]
    if is_dataclass(value) and not isinstance(value, type):
        return [leaf for f in fields(value) for leaf in _leaves(getattr(value, f.name), f"{path}.{f.name}")]
    if isinstance(value, np.random.Generator) or callable(value) or value is None:
        return []
    return [(path, value)]


def _numeric(value: Any) -> np.ndarray | None:
    arr = np.asarray(value)
    return arr if arr.dtype.kind in "iufb" else None


def _scaled(value: Any, law: float | tuple[float, ...], s: float) -> Any:
    """``value`` with every numeric leaf multiplied by ``s**law`` (per element of a tuple law)."""
    if isinstance(law, tuple):
        return tuple(_scaled(v, k, s) for v, k in zip(value, law, strict=True))
    if law == 0:
        return value
    if isinstance(value, dict):
        return {k: _scaled(v, law, s) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(_scaled(v, law, s) for v in value)
    with np.errstate(over="ignore", invalid="ignore"):  # a factor beyond float64 fails the comparison
        return np.asarray(value, dtype=float) * np.float64(s) ** law


def _differences(got: Any, want: Any, rtol: float) -> list[str]:
    """Where two results differ beyond ``rtol`` relative to the largest entry of each leaf (or to 1,
    if that is smaller: a value that should be 0 may be off by rounding)."""
    a, b = _leaves(got), _leaves(want)
    if [p for p, _ in a] != [p for p, _ in b]:
        return [f"structure differs: {[p for p, _ in a]} vs {[p for p, _ in b]}"]
    out = []
    for (path, x), (_, y) in zip(a, b, strict=True):
        xn, yn = _numeric(x), _numeric(y)
        if xn is None or yn is None:
            if not (np.shape(x) == np.shape(y) and np.all(np.asarray(x) == np.asarray(y))):
                out.append(f"{path}: {x!r} != {y!r}")
            continue
        if xn.shape != yn.shape:
            out.append(f"{path}: shape {xn.shape} != {yn.shape}")
            continue
        xf, yf = xn.astype(float), yn.astype(float)
        both_nan = np.isnan(xf) & np.isnan(yf)
        size = np.max(np.abs(yf[np.isfinite(yf)]), initial=1.0)
        close = np.isclose(xf, yf, rtol=rtol, atol=rtol * size) | both_nan
        if not np.all(close):
            where = np.argwhere(~close)[0]
            out.append(f"{path}{list(where)}: {xf[tuple(where)]!r} != {yf[tuple(where)]!r}")
    return out


def _not_finite(result: Any, nan_ok: tuple[str, ...]) -> list[str]:
    bad = []
    for path, value in _leaves(result):
        arr = _numeric(value)
        if arr is not None and not np.all(np.isfinite(arr)) and not any(k in path for k in nan_ok):
            bad.append(path or "result")
    return bad


def _snapshot(args: dict[str, Any]) -> dict[str, Any]:
    return {k: v.copy() for k, v in args.items() if isinstance(v, np.ndarray)}


@dataclass
class Outcome:
    ok: bool
    kind: str  # "ok", "silent", "cryptic"
    detail: str


def _names(error: BaseException, changed: tuple[str, ...], params: list[str]) -> bool:
    """The message's subject names an argument, and the message names a changed argument."""
    message = str(error)
    subject = message.split(":")[0]
    word = lambda name, text: re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", text)  # noqa: E731
    return any(word(p, subject) for p in params) and any(word(c, message) for c in changed)


def _call(entry: Entry, args: dict[str, Any]) -> tuple[Any, BaseException | None]:
    """The result of the call, or the error it raised; a RuntimeWarning (overflow, invalid value,
    division by zero) counts as an error: the computation went outside float64 on the way."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            return entry.fn(**args), None
    except Exception as error:  # noqa: BLE001 - classifying every error is the point
        return None, error


def run_case(entry: Entry, changed: tuple[str, ...], variant: Variant) -> Outcome:
    """Call ``entry`` with ``variant`` applied to the ``changed`` arguments and judge the result."""
    params = list(inspect.signature(entry.fn).parameters)
    args = entry.build()
    for name in changed:
        args[name] = variant.make(args[name])
    before = {k: v for k, v in _snapshot(args).items() if k not in entry.writes}
    result, error = _call(entry, args)

    label = f"{entry.id}({', '.join(changed)} = {variant.name})"
    if error is not None:
        named = _names(error, changed, params)
        wanted = {TYPE: TypeError, VALUE: ValueError}.get(variant.expect, (ValueError, TypeError))
        if isinstance(error, wanted) and named:
            if _must_answer(variant):
                reference, ref_error = _reference(entry, changed, variant)
                if ref_error is None and reference is not _NO_LAW:
                    return Outcome(False, "cryptic", f"{label}: refused a valid call: {error}")
            return Outcome(True, "ok", "")
        if isinstance(error, (ValueError, TypeError)) and named:
            return Outcome(False, "cryptic", f"{label}: expected {variant.expect}, got {type(error).__name__}: {error}")
        return Outcome(False, "cryptic", f"{label}: {type(error).__name__}: {error}")

    if variant.expect in (TYPE, VALUE):
        return Outcome(False, "silent", f"{label}: expected a {variant.expect}, got a value")
    modified = [k for k, v in before.items() if not np.array_equal(v, args[k], equal_nan=True)]
    if modified:
        return Outcome(False, "silent", f"{label}: modified its input {modified}")
    bad = _not_finite(result, entry.nan_ok)
    if bad:
        return Outcome(False, "silent", f"{label}: non-finite result at {bad[:3]}")
    if variant.expect in (SAME, SCALED):
        reference, ref_error = _reference(entry, changed, variant)
        if reference is _NO_LAW:
            return Outcome(True, "ok", "")
        if ref_error is not None:
            return Outcome(False, "silent", f"{label}: returned a value, but the equivalent call refuses: {ref_error}")
        if variant.expect == SCALED:  # compare at scale 1: f(s X) / s**k with f(X)
            result = _scaled(result, entry.scale[changed[0] if len(changed) == 1 else "all"], 1 / variant.scale)
        diff = _differences(result, reference, variant.rtol)
        if diff:
            return Outcome(False, "silent", f"{label}: differs from the equivalent call: {'; '.join(diff[:3])}")
    return Outcome(True, "ok", "")


_NO_LAW = object()

#: Magnitudes every meter must handle; beyond them a clear refusal is also acceptable.
STATED_RANGE = 1e150


def _must_answer(variant: Variant) -> bool:
    """An equivalent of a valid call (in the stated range of magnitudes) must be answered, not refused."""
    return variant.expect == SAME or (
        variant.expect == SCALED and 1 / STATED_RANGE <= variant.scale <= STATED_RANGE
    )


def _reference(entry: Entry, changed: tuple[str, ...], variant: Variant) -> tuple[Any, BaseException | None]:
    """The result the variant must reproduce (``_NO_LAW`` if there is none to compare with)."""
    args = entry.build()
    if variant.expect == SAME:
        for name in changed:
            args[name] = variant.ref(args[name])
        return _call(entry, args)
    key = changed[0] if len(changed) == 1 else "all"
    if key not in entry.scale:
        return _NO_LAW, None
    return _call(entry, args)


def _variants_of(entry: Entry, name: str) -> list[Variant]:
    param = inspect.signature(entry.fn).parameters[name]
    if name in entry.roles:
        variants = ROLES[entry.roles[name]]()
    else:
        variants = HINTS[param.annotation]() if param.annotation in HINTS else []
    if param.default is None:  # None is the documented default, not a mistake
        variants = [v for v in variants if v.name != "None"]
    return variants


def cases() -> list[tuple[Entry, tuple[str, ...], Variant]]:
    """Every (entry, changed arguments, variant) of the registry."""
    out = []
    for entry in REGISTRY:
        varied = [n for n in inspect.signature(entry.fn).parameters if n not in entry.defaults]
        labels = tuple(n for n in varied if entry.roles.get(n) == "labels")
        for name in varied:
            for variant in _variants_of(entry, name):
                if variant.name == "huge labels":  # every labels argument at once: they share classes
                    if name == labels[0]:
                        out.append((entry, labels, variant))
                else:
                    out.append((entry, (name,), variant))
        clouds = tuple(n for n in varied if entry.roles.get(n) == CLOUD)
        if len(clouds) > 1:  # every cloud at once: the scale law of a remedy fitted on another cloud
            out += [(entry, clouds, v) for v in cloud_variants() if v.expect == SCALED]
    return out


CASES = cases()


def _known(entry: Entry, changed: tuple[str, ...], variant: Variant) -> str | None:
    """Why this case is a known failure, or None."""
    return entry.known.get(f"{'+'.join(changed)}={variant.name}")


@pytest.mark.parametrize(
    "entry, changed, variant",
    [
        pytest.param(e, c, v, marks=[pytest.mark.exhaustive,
                                     *([pytest.mark.xfail(strict=True, reason=_known(e, c, v))] if _known(e, c, v) else [])])
        for e, c, v in CASES
    ],
    ids=[f"{e.id}-{'+'.join(c)}-{v.name}" for e, c, v in CASES],
)
def test_public_function_answers_or_names_its_argument(entry: Entry, changed: tuple[str, ...], variant: Variant):
    outcome = run_case(entry, changed, variant)
    assert outcome.ok, f"[{outcome.kind}] {outcome.detail}"


def _public_functions() -> dict[str, Callable[..., Any]]:
    """Every public function of ``shared`` (``__all__``) and of the encoder's modules of ``shared.real``
    (defined there)."""
    out = {name: getattr(shared, name) for name in shared.__all__ if name not in _not_functions()}
    for module in (encoder, corpus, encoder_study, frequency, negatives):
        for name, obj in vars(module).items():
            if inspect.isfunction(obj) and obj.__module__ == module.__name__ and not name.startswith("_"):
                out[f"{module.__name__}.{name}"] = getattr(obj, "__wrapped__", obj)
    return out


def test_every_public_function_is_registered():
    registered = {getattr(entry.covers or entry.fn, "__wrapped__", entry.covers or entry.fn) for entry in REGISTRY}
    missing = sorted(name for name, fn in _public_functions().items() if fn not in registered)
    assert not missing, f"add an Entry to tests/test_fuzz.py REGISTRY for: {', '.join(missing)}"
    assert all(inspect.isclass(getattr(shared, name)) or name.isupper() for name in _not_functions())


def test_every_argument_has_a_role_or_a_known_type_hint():
    unknown = [
        f"{entry.id}({name}: {param.annotation})"
        for entry in REGISTRY
        for name, param in inspect.signature(entry.fn).parameters.items()
        if name not in entry.roles and name not in entry.defaults and param.annotation not in HINTS
    ]
    assert not unknown, f"give these arguments a role in their Entry, or a hint in HINTS: {unknown}"


def main() -> None:
    """Print how many cases give a silent wrong answer or a cryptic error, and which."""
    counts = {"ok": 0, "silent": 0, "cryptic": 0, "known silent": 0, "known cryptic": 0}
    for entry, changed, variant in CASES:
        outcome = run_case(entry, changed, variant)
        kind = f"known {outcome.kind}" if not outcome.ok and _known(entry, changed, variant) else outcome.kind
        counts[kind] += 1
        if not outcome.ok:
            print(f"{kind:14s} {outcome.detail}"[:300])
    print(f"{len(CASES)} cases: " + ", ".join(f"{v} {k}" for k, v in counts.items()))


if __name__ == "__main__":
    sys.exit(main())
