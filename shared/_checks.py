"""Input checks shared by every public function of the toolkit, and the exact rescaling they use.

Each check fails at the boundary with a message that starts with the argument's name and says what
to change: a ``TypeError`` when the argument is of the wrong kind (a bool, complex, object or text
array, ``2.5`` for an int, a string for a number), a ``ValueError`` when it is of the right kind
with an unusable value (NaN, the wrong shape, out of range, a cloud with no spread). Integer
arrays are accepted as real numbers; every array is computed on in float64 (float16/32 input is
converted first). Numpy scalars and 0-d arrays are accepted wherever a number is.

Masked arrays: the toolkit has no rule for a missing entry, so an array argument with masked
entries is refused by name (:func:`unmasked`); one with none masked is computed on its data.

Sizes: an argument that sets the size of an array the function allocates (points, dimensions,
pairs, bases, a vocabulary) is refused by name when that array could not fit in this machine's
memory (:func:`allocation`), instead of failing deep inside numpy or running out of memory; a
count of steps (layers, training steps, resamples) when the run would take more than a day
(:func:`work`), instead of running for ever.

Zero rows: a zero row has no direction, so no cosine with it is defined. A function that averages
over the rows of a cloud by their directions (mean cosine, uniformity, random cosines, pair AUC,
nearest neighbours, the isotropy report) leaves zero rows out, exactly as if they had been removed
before the call, and needs as many non-zero rows as it would need rows (:func:`directions`); a
function asked for the cosine of one particular row (a paraphrase pair, a word pair) refuses that
row by name when it is zero. Meters of variance (the covariance spectrum, ranks, IsoScore,
partition isotropy) count a zero row as the point at the origin it is.

Magnitudes: a meter that does not depend on its input's scale computes on the input divided by
:func:`power_of_two`, a power of two near its largest entry. That division is exact in floating
point (down to subnormal numbers), so the result is the same, bit for bit, at any scale, and no
square or norm can overflow or underflow on the way.
"""

from __future__ import annotations

import enum
import functools
import numbers
import os
from collections.abc import Sequence

import numpy as np


class Choice(str, enum.Enum):
    """A choice among named options whose value is the name; an unknown name is refused with the list."""

    def __str__(self) -> str:
        return self.value

    @classmethod
    def _missing_(cls, value: object) -> None:
        raise ValueError(f"{cls.__name__.lower()}: expected one of {[m.value for m in cls]}, got {value!r}")


def one_of(value: object, kind: type[Choice], name: str) -> Choice:
    """``value`` as a member of ``kind`` (a member or its name); anything else is refused by ``name``
    with the list of known names."""
    if isinstance(value, kind):
        return value
    return kind(name_in(value, [m.value for m in kind], name))


def name_in(value: object, known: Sequence[str], name: str) -> str:
    """``value`` when it is one of the names ``known`` (a list that can grow, like the real models');
    anything else is refused by ``name`` with the list."""
    if not isinstance(value, str):
        raise TypeError(f"{name}: expected one of {list(known)}, got {value!r}")
    if value not in known:
        raise ValueError(f"{name}: expected one of {list(known)}, got {value!r}")
    return value


EPS = float(np.finfo(float).eps)

#: Two eigenvalues that agree to this relative tolerance *of each other* coincide: their
#: eigenvectors cannot be told apart. It is about half of float64's digits, because the rounding
#: of whatever produced a cloud, amplified by its conditioning, splits equal eigenvalues by up to
#: that much (a whitened cloud of condition number 1e6 keeps its equal eigenvalues only to ~1e-9).
EIGEN_TIE = 1e-8


def top_directions_unique(w: np.ndarray, k: int, name: str, of: str = "") -> None:
    """Refuse ``k`` (named ``name``) when eigenvalues ``k`` and ``k + 1`` of the descending spectrum ``w``
    coincide (:data:`EIGEN_TIE`): the top ``k`` directions are then not unique. ``of`` names the cloud."""
    if 0 < k < len(w) and w[k] >= w[k - 1] * (1 - EIGEN_TIE):
        raise ValueError(f"{name}: eigenvalues {k} and {k + 1}{of} coincide, so {'its' if of else 'the'} top {k} "
                         "directions are not unique")


def _describe(value: object) -> str:
    """A short description of a value for an error message."""
    if isinstance(value, np.ndarray):
        return f"an array of dtype {value.dtype} and shape {value.shape}"
    text = repr(value)
    return f"{text[:40]}..." if len(text) > 40 else text


def unmasked(value: object, name: str) -> object:
    """``value``, refused if it is a masked array with masked entries (a masked array with none masked
    is its data: the rest of the toolkit sees a plain array)."""
    if isinstance(value, np.ma.MaskedArray):
        masked = int(np.ma.count_masked(value))
        if masked:
            raise ValueError(
                f"{name}: is a masked array with {masked:,} masked entries, and the toolkit has no rule for a "
                f"missing entry; pass the complete rows ({name}[~{name}.mask.any(axis=1)].data) or "
                f"{name}.filled(value)"
            )
        return np.ma.getdata(value)
    return value


def _array(value: object, name: str) -> np.ndarray:
    """``value`` as a float64 array of real numbers; bool, complex, object and text are refused."""
    if value is None:
        raise TypeError(f"{name}: expected an array of real numbers, got None")
    value = unmasked(value, name)
    try:
        arr = np.asarray(value)
    except ValueError as error:  # ragged nested lists
        raise ValueError(f"{name}: could not be read as a rectangular array ({error})") from None
    kind = arr.dtype.kind
    if kind == "b":
        raise TypeError(
            f"{name}: expected real numbers, got booleans; if 0/1 values are meant, pass {name}.astype(float)"
        )
    if kind == "c":
        raise TypeError(f"{name}: expected real numbers, got complex numbers (dtype {arr.dtype}); pass the real part")
    if kind not in "iuf" and arr.size > 0:
        raise TypeError(f"{name}: expected real numbers, got dtype {arr.dtype}; pass an array of numbers")
    return arr.astype(np.float64, copy=False)


def _finite(arr: np.ndarray, name: str) -> np.ndarray:
    bad = ~np.isfinite(arr)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name}: contains NaN or infinite values (the first at index {where}); remove or replace them")
    return arr


def cloud(X: object, name: str = "X", min_rows: int = 1) -> np.ndarray:
    """``X`` as a finite 2-D float64 array (points x dimensions) with ``min_rows`` rows and a column."""
    arr = _array(X, name)
    if arr.ndim != 2:
        hint = f"; one point is {name}.reshape(1, -1), one dimension {name}.reshape(-1, 1)" if arr.ndim == 1 else ""
        raise ValueError(f"{name}: expected a 2-D array (points x dimensions), got shape {arr.shape}{hint}")
    if arr.shape[1] < 1:
        raise ValueError(f"{name}: needs at least one column (dimension), got shape {arr.shape}")
    if arr.shape[0] < min_rows:
        raise ValueError(f"{name}: needs at least {min_rows} rows (points), got {arr.shape[0]}")
    return _finite(arr, name)


def columns(X: np.ndarray, d: int, name: str, like: str) -> np.ndarray:
    """``X`` (a checked cloud), refused unless it has ``d`` columns, as the cloud ``like`` has."""
    if X.shape[1] != d:
        raise ValueError(f"{name}: expected {d} columns like {like}, got {X.shape[1]}")
    return X


def directions(X: np.ndarray, name: str = "X", min_rows: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """The non-zero rows of the checked cloud ``X`` and which rows they are (a boolean mask): the rows
    with a direction, which a function of directions computes on (see the module's note on zero rows).
    Refused when fewer than ``min_rows`` rows are non-zero."""
    keep = X.any(axis=1)
    count = int(np.count_nonzero(keep))
    enough_directions(count, len(X), name, min_rows)
    return (X if count == len(X) else X[keep]), keep


def enough_directions(count: int, rows: int, name: str, min_rows: int = 2) -> None:
    """Refuse ``count`` non-zero rows out of ``rows`` when fewer than ``min_rows`` (:func:`directions`)."""
    if count < min_rows:
        zero = rows - count
        raise ValueError(
            f"{name}: has {count} non-zero row{'s' if count != 1 else ''} and {zero} zero row{'s' if zero != 1 else ''}; "
            f"a zero row has no direction, and this needs at least {min_rows} rows that have one"
        )


def zero_row(X: np.ndarray, rows: np.ndarray, name: str, what: str) -> None:
    """Refuse when one of ``rows`` of the checked cloud ``X`` is the zero vector, which has no direction:
    ``what`` says what is then undefined (``"a pair has no cosine"``)."""
    rows = np.asarray(rows).ravel()
    zero = rows[~X[rows].any(axis=1)]
    if zero.size:
        raise ValueError(
            f"{name}: row {int(zero[0])} is the zero vector, which has no direction, so {what}; "
            "leave that row out or give it a vector"
        )


def vector(x: object, name: str, what: str = "array", min_size: int = 1) -> np.ndarray:
    """``x`` as a finite 1-D float64 array with at least ``min_size`` entries."""
    arr = _array(x, name)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D {what}, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name}: the {what} is empty")
    if arr.size < min_size:
        raise ValueError(f"{name}: needs at least {min_size} values, got {arr.size}")
    return _finite(arr, name)


def spectrum(eigs: object, name: str = "eigs", allow_zero: bool = False, scaled: bool = True) -> np.ndarray:
    """``eigs`` as a 1-D, finite, non-negative spectrum with a positive entry (or all zero, if allowed),
    divided by :func:`power_of_two` (exactly); ``scaled=False``: at its own scale, not divided.

    A meter of a spectrum depends only on ratios of eigenvalues, so the division changes none of
    them, and sums and squares of the spectrum cannot overflow; a function that uses the values
    themselves (a cloud drawn with these variances) passes ``scaled=False``. Eigenvalue
    solvers can leave a zero eigenvalue a hair below zero: entries within rounding of 0
    (``-len(eigs) * eps * max(eigs)`` or above) are read as 0.
    """
    arr = vector(eigs, name, what="spectrum")
    top = max(float(arr.max()), 0.0)
    if np.any(arr < -arr.size * EPS * top):
        raise ValueError(f"{name}: eigenvalues must be non-negative, found {arr.min():.3g}")
    if not top > 0 and not allow_zero:
        raise ValueError(f"{name}: all eigenvalues are zero; the cloud has no spread to measure")
    arr = np.clip(arr, 0.0, None)
    return arr / power_of_two(arr) if scaled else arr


def integers(value: object, name: str, ndim: int = 1) -> np.ndarray:
    """``value`` as an ``ndim``-dimensional array of integers (labels, indices, token ids)."""
    if value is None:
        raise TypeError(f"{name}: expected an array of integers, got None")
    value = unmasked(value, name)
    try:
        arr = np.asarray(value)
    except ValueError as error:
        raise ValueError(f"{name}: could not be read as a rectangular array ({error})") from None
    if arr.size > 0 and (arr.dtype.kind not in "iu"):
        example = ""
        if arr.dtype.kind in "fc":
            fractional = arr[arr != np.round(arr)].ravel()
            example = f" (e.g. {(fractional if fractional.size else arr.ravel())[0].item()!r})"
        raise TypeError(f"{name}: expected integers, got dtype {arr.dtype}{example}; pass whole numbers as an int array")
    if arr.ndim != ndim:
        raise ValueError(f"{name}: expected a {ndim}-D array of integers, got shape {arr.shape}")
    return arr if arr.size else arr.astype(np.int64)


def labels(value: object, n: int, name: str = "labels", rows_of: str = "X") -> np.ndarray:
    """``value`` as ``n`` non-negative integer class labels, one per row of ``rows_of``."""
    arr = integers(value, name)
    if arr.shape != (n,):
        raise ValueError(f"{name}: expected {n} labels, one per row of {rows_of}, got shape {arr.shape}")
    if n and arr.min() < 0:
        raise ValueError(f"{name}: labels must be non-negative integers, found {arr.min()}")
    return arr


def pair_classes(labels: np.ndarray, name: str) -> np.ndarray:
    """Checked ``labels`` that give both kinds of pair a pair AUC compares: two classes, one of them
    with at least two points."""
    _, counts = np.unique(labels, return_counts=True)
    if len(counts) < 2 or counts.max() < 2:
        raise ValueError(f"{name}: pair AUC needs two classes, one with at least two points; got "
                         f"{len(counts)} class{'es' if len(counts) != 1 else ''} of sizes {counts.tolist()[:5]}")
    return labels


def _number(value: object) -> object:
    """A 0-d array as the numpy scalar it holds (so that it counts as a number)."""
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


def integer(value: object, name: str, low: int, high: int | None = None, why: str = "") -> int:
    """``value`` as an int in ``[low, high]`` (``high=None``: no upper bound); ``why`` explains the range."""
    value = _number(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an int, got {_describe(value)}")
    if value < low or (high is not None and value > high):
        upper = "inf" if high is None else str(high)
        reason = f" ({why})" if why else ""
        raise ValueError(f"{name}: must lie in [{low}, {upper}]{reason}, got {value}")
    return int(value)


@functools.lru_cache(maxsize=1)
def memory_bytes() -> int:
    """This machine's physical memory in bytes (2**48 where the system does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return 2**48


def _bytes(count: float) -> str:
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if count >= size:
            return f"{count / size:.3g} {unit}" if count < 1e3 * size or unit != "TB" else f"{count:.1e} bytes"
    return f"{count:.0f} bytes"


def allocation(*factors: tuple[str | None, int], itemsize: int = 8) -> None:
    """Refuse sizes whose array, ``prod(factors)`` entries of ``itemsize`` bytes, cannot fit in memory.

    ``factors`` are ``(argument name, value)`` pairs (the name ``None`` for a size fixed by the
    function); the message names the argument with the largest value.
    """
    entries = 1
    for _, value in factors:
        entries *= int(value)
    needed = entries * itemsize
    if needed > memory_bytes():
        name, value = max(((n, v) for n, v in factors if n is not None), key=lambda item: item[1])
        count = lambda v: f"{v:,}" if v < 10**12 else f"{float(v):.1e}"  # noqa: E731
        raise ValueError(
            f"{name}: {count(value)} is too large: the array it sets the size of would hold {count(entries)} values "
            f"({_bytes(needed)}), more than this machine's memory ({_bytes(memory_bytes())}); pass a smaller {name}"
        )


#: Elementary operations beyond which a run is refused rather than started: about a day of one core.
WORK_LIMIT = 10**14

#: The cost of one pass of a Python loop, in elementary operations (the interpreter's overhead).
LOOP = 1000


def work(steps: tuple[str, int], *per_step: tuple[str | None, int]) -> None:
    """Refuse a run of ``steps`` (``(argument name, count)``: layers, training steps, resamples) whose
    every step costs ``prod(per_step)`` elementary operations (plus :data:`LOOP`) when it would take
    more than :data:`WORK_LIMIT` of them: a size that fits in memory can still ask for a run that
    would not end today. The message names the argument with the largest value."""
    each = 1
    for _, value in per_step:
        each *= int(value)
    total = int(steps[1]) * (each + LOOP)
    if total > WORK_LIMIT:
        name, value = max(((n, v) for n, v in (steps, *per_step) if n is not None), key=lambda item: item[1])
        count = f"{value:,}" if value < 10**12 else f"{float(value):.1e}"
        raise ValueError(
            f"{name}: {count} is too large: the run would take about {float(total):.0e} elementary operations, "
            f"more than a day of computing; pass a smaller {name}"
        )


def real(value: object, name: str, low: float = -np.inf, high: float = np.inf) -> float:
    """``value`` as a finite float in ``[low, high]``."""
    value = _number(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a real number, got {_describe(value)}")
    value = float(value)
    if not np.isfinite(value) or value < low or value > high:
        raise ValueError(f"{name}: must be a finite number in [{low}, {high}], got {value}")
    return value


def flag(value: object, name: str) -> bool:
    """``value`` as a bool (``True``/``False``, or a numpy bool)."""
    value = _number(value)
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected True or False, got {_describe(value)}")
    return bool(value)


def sequence(values: object, name: str) -> list:
    """``values`` as a list: a list, tuple, range or 1-D array (not a string or a single number)."""
    if isinstance(values, np.ndarray) and values.ndim == 1:
        return list(values)
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise TypeError(f"{name}: expected a list, tuple, range or 1-D array, got {_describe(values)}")
    return list(values)


def token_ids(ids: object) -> list[np.ndarray]:
    """``ids`` as a non-empty list of 1-D integer arrays, one per sentence (the models' input)."""
    if not isinstance(ids, (list, tuple)):
        raise TypeError(f"ids: expected a list with one 1-D array of token ids per sentence, got {type(ids).__name__}")
    if len(ids) == 0:
        raise ValueError("ids: expected at least one sentence")
    return [integers(t, f"ids[{i}]") for i, t in enumerate(ids)]


def sentences(sentences: object) -> None:
    """``sentences`` is a non-empty list or tuple of non-empty strings (the models' input)."""
    if not isinstance(sentences, (list, tuple)):
        hint = "; wrap one sentence in a list: [sentence]" if isinstance(sentences, str) else ""
        raise TypeError(f"sentences: expected a list of strings, got {type(sentences).__name__}{hint}")
    if len(sentences) == 0:
        raise ValueError("sentences: expected a non-empty list of strings")
    for i, s in enumerate(sentences):
        if not isinstance(s, str):
            raise TypeError(f"sentences: expected strings, but item {i} is a {type(s).__name__}")
    if not all(s.strip() for s in sentences):
        raise ValueError("sentences: every sentence must be a non-empty string")


def instance(value: object, cls: type, name: str, optional: bool = False) -> object:
    """``value`` if it is a ``cls`` (or ``None``, when ``optional``)."""
    if (value is None and optional) or isinstance(value, cls):
        return value
    article = "an" if cls.__name__[0] in "AEIOU" else "a"
    raise TypeError(f"{name}: expected {article} {cls.__name__}, got {_describe(value)}")


def as_rng(rng: object, name: str = "rng") -> np.random.Generator:
    """A ``numpy.random.Generator`` from a Generator or a non-negative int seed."""
    if isinstance(rng, np.random.Generator):
        return rng
    rng = _number(rng)
    if isinstance(rng, numbers.Integral) and not isinstance(rng, (bool, np.bool_)):
        if rng < 0:
            raise ValueError(f"{name}: a seed must be a non-negative int, got {rng}")
        return np.random.default_rng(int(rng))
    hint = "; None would give a different result on every run" if rng is None else ""
    raise TypeError(f"{name}: expected a numpy.random.Generator or an int seed, got {_describe(rng)}{hint}")


# ----- magnitudes ----------------------------------------------------------------------------------


def power_of_two(X: np.ndarray, axis: int | None = None) -> np.ndarray | float:
    r"""The power of two :math:`2^e` with :math:`2^e \le \max|X| < 2^{e+1}` (along ``axis``; 1/2 where
    ``X`` is zero). ``X`` divided by it has its largest entry in ``[1, 2)``, exactly; it exists for
    every finite ``X``, from the smallest subnormal number to the largest float."""
    top = np.max(np.abs(X), axis=axis, keepdims=axis is not None, initial=0.0)
    return np.ldexp(1.0, np.frexp(top)[1] - 1)


def flat(X: np.ndarray, per_column: bool = False) -> bool | np.ndarray:
    r"""Whether the points of ``X`` coincide up to rounding (``per_column``: each coordinate alone).

    The points coincide when the centred cloud is at rounding level relative to the cloud:
    :math:`\|X - \bar x\|_F \le \max(n, d)\,\varepsilon\,\|X\|_F`, the tolerance numpy's
    ``matrix_rank`` uses (so its numerical rank after centring is 0). Computing the mean of ``n``
    points, or any earlier step that produced them, leaves errors of this size, so a smaller
    spread cannot be told from rounding.
    """
    axis = 0 if per_column else None
    Xs = X / power_of_two(X, axis=axis)
    size = len(X) if per_column else max(X.shape)
    return at_rounding(np.linalg.norm(Xs - Xs.mean(axis=0), axis=axis), np.linalg.norm(Xs, axis=axis), size)


def at_rounding(spread: np.ndarray | float, norm: np.ndarray | float, size: int) -> np.ndarray | bool:
    """:func:`flat`'s rule from its two norms, for a cloud summed in chunks: whether the Frobenius norm
    ``spread`` of the centred cloud is at rounding level against the norm ``norm`` of the cloud."""
    return spread <= size * EPS * norm


def spread(X: np.ndarray, name: str = "X", consequence: str = "the cloud has no spread to measure") -> np.ndarray:
    """Refuse a cloud whose points all coincide up to rounding (see :func:`flat`)."""
    if flat(X):
        raise coincident(name, consequence)
    return X


def coincident(name: str, consequence: str) -> ValueError:
    """The refusal of a cloud ``name`` whose points all coincide up to rounding, saying what it cannot give."""
    return ValueError(f"{name}: all points coincide (up to rounding), so {consequence}; pass points that differ")


def variances(w: np.ndarray, scale: float, name: str = "X") -> np.ndarray:
    """Variances ``w`` computed on a cloud divided by ``scale`` (a power of two), brought back to the
    cloud's scale: ``w * scale**2``, exactly.

    Refuses a cloud whose variances (squares of its entries) float64 cannot hold, instead of
    returning ``inf`` or a spurious 0.
    """
    top = float(np.max(w, initial=0.0))
    exponent = int(np.frexp(scale)[1]) - 1  # scale = 2**exponent
    if top > 0 and not -1021 <= int(np.frexp(top)[1]) + 2 * exponent <= 1024:  # the normal float64 range
        factor = round(-exponent * float(np.log10(2.0)))  # 1 / scale may itself overflow: its power of ten
        raise ValueError(
            f"{name}: its variances (squares of entries of size {scale:.1e}) are outside the float64 range; "
            f"multiply {name} by a constant near 1e{factor} first"
        )
    return np.ldexp(w, 2 * exponent)
