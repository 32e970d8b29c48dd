"""Reading a matrix's rows in chunks: from memory, a memory map, a ``.npy`` file or a ``dask.array``.

:func:`open_rows` checks a source and returns its reader, a :class:`Rows`; :func:`row_chunks` yields
its chunks as :func:`~shared.report.isotropy_report` reads them.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Callable

import numpy as np

from .. import _checks


def row_chunks(source: np.ndarray | str | os.PathLike[str], chunk_rows: int) -> Iterator[tuple[int, np.ndarray]]:
    """``(first row, chunk)`` for consecutive chunks of ``chunk_rows`` rows of ``source``, read as
    :func:`~shared.report.isotropy_report` reads them (a ``.npy`` path: ordinary file reads into one reused buffer,
    so a chunk is valid until the next one is read)."""
    chunk_rows = _checks.integer(chunk_rows, "chunk_rows", 1)
    yield from open_rows(source, chunk_rows).chunks(chunk_rows)


class Rows:
    """A matrix of ``n`` rows and ``d`` columns stored as ``dtype``, readable in row chunks."""

    name: str = "source"
    n: int
    d: int
    dtype: np.dtype

    def chunks(self, rows: int) -> Iterator[tuple[int, np.ndarray]]:
        """``(first row, chunk)`` pairs covering every row in order; a chunk is valid until the next."""
        raise NotImplementedError

    def reduce(
        self,
        summarise: Callable[[int, np.ndarray], object],
        merge: Callable[[object, object], object],
        rows: int,
        progress: Callable[[int], None],
    ) -> object:
        """``summarise(first row, chunk)`` for every chunk, merged in row order: ``merge(earlier, later)``."""
        total = None
        for start, chunk in self.chunks(rows):
            part = summarise(start, chunk)
            total = part if total is None else merge(total, part)
            progress(len(chunk))
        return total


class _ArrayRows(Rows):
    """Row slices of an array (in memory, or a memory map that is not a whole file)."""

    def __init__(self, X: np.ndarray) -> None:
        self.X = X
        self.n, self.d = X.shape
        self.dtype = X.dtype

    def chunks(self, rows: int) -> Iterator[tuple[int, np.ndarray]]:
        for start in range(0, self.n, rows):
            yield start, self.X[start : start + rows]


class _FileRows(Rows):
    """A C-ordered matrix stored in a file at byte ``offset``, read with ``readinto`` into one buffer."""

    def __init__(self, path: Path, offset: int, shape: tuple[int, int], dtype: np.dtype) -> None:
        self.path, self.offset = path, offset
        self.n, self.d = shape
        self.dtype = dtype
        needed = offset + self.n * self.d * dtype.itemsize
        if path.stat().st_size < needed:
            raise ValueError(
                f"source: {path} is truncated: its header promises {needed:,} bytes, the file has "
                f"{path.stat().st_size:,}"
            )

    def chunks(self, rows: int) -> Iterator[tuple[int, np.ndarray]]:
        buffer = np.empty((min(rows, self.n), self.d), dtype=self.dtype)
        with open(self.path, "rb", buffering=0) as f:
            f.seek(self.offset)
            for start in range(0, self.n, rows):
                chunk = buffer[: min(rows, self.n - start)]
                self._read_exactly(f, chunk.reshape(-1), f"at row {start:,}")
                yield start, chunk

    def _read_exactly(self, f: BinaryIO, into: np.ndarray, where: str) -> None:
        """Fill the contiguous 1-D array ``into`` from ``f`` (``readinto`` may return fewer bytes)."""
        view = memoryview(into.view(np.uint8))
        done = 0
        while done < len(view):
            got = f.readinto(view[done:])
            if not got:
                raise ValueError(f"source: {self.path} ended early, {where}")
            done += got


class _FortranFileRows(_FileRows):
    """A Fortran-ordered (column after column) matrix in a file: a chunk of rows is ``d`` reads of
    ``rows`` entries each, one per column, into one reused buffer."""

    def chunks(self, rows: int) -> Iterator[tuple[int, np.ndarray]]:
        size = self.dtype.itemsize
        buffer = np.empty((self.d, min(rows, self.n)), dtype=self.dtype)
        with open(self.path, "rb", buffering=0) as f:
            for start in range(0, self.n, rows):
                k = min(rows, self.n - start)
                columns = buffer[:, :k] if k == buffer.shape[1] else np.empty((self.d, k), dtype=self.dtype)
                for j in range(self.d):
                    f.seek(self.offset + (j * self.n + start) * size)
                    self._read_exactly(f, columns[j], f"in column {j:,}")
                yield start, columns.T


class DaskRows(Rows):
    """A ``dask.array`` of rows: each pass summarises its row blocks with dask (on whatever scheduler or
    cluster is active) and merges the summaries in a tree, in row order; only the summaries, about
    ``d x d`` floats each, travel."""

    def __init__(self, X: object, rows: int | None) -> None:
        self.X = X.rechunk({0: rows if rows is not None else X.chunks[0], 1: -1})
        self.n, self.d = (int(s) for s in X.shape)
        self.dtype = np.dtype(X.dtype)
        self.block_rows = max(self.X.chunks[0])

    def chunks(self, rows: int) -> Iterator[tuple[int, np.ndarray]]:  # noqa: ARG002 (its own blocks)
        start = 0
        for block in self.X.blocks:
            chunk = np.asarray(block.compute())
            yield start, chunk
            start += len(chunk)

    def reduce(self, summarise, merge, rows, progress):  # noqa: ARG002 (its own blocks)
        import dask

        starts = np.concatenate([[0], np.cumsum(self.X.chunks[0])[:-1]])
        parts = [dask.delayed(summarise)(int(s), b) for s, b in zip(starts, self.X.to_delayed().ravel(), strict=True)]
        while len(parts) > 1:
            pairs = [dask.delayed(merge)(a, b) for a, b in zip(parts[::2], parts[1::2])]
            parts = pairs + ([parts[-1]] if len(parts) % 2 else [])
        total = parts[0].compute()
        progress(self.n)
        return total


def open_rows(source: object, chunk_rows: int | None) -> Rows:
    """Check ``source`` and return a chunk reader for it."""
    if isinstance(source, (str, bytes, os.PathLike)):
        rows = _npy_rows(Path(os.fsdecode(source)))
    elif isinstance(source, np.memmap) and _maps_a_whole_file(source):
        reader = _FileRows if source.flags.c_contiguous else _FortranFileRows
        rows = reader(Path(source.filename), int(source.offset), source.shape, source.dtype)
    elif type(source).__module__.split(".")[0] == "dask":  # a dask array: dask is imported only then
        if getattr(source, "ndim", None) != 2:
            raise ValueError(f"source: expected a 2-D dask array (points x dimensions), got shape {source.shape}")
        _check_dtype(np.dtype(source.dtype))
        rows = DaskRows(source, chunk_rows)
    else:
        source = _checks.unmasked(source, "source")
        try:
            arr = np.asarray(source)
        except ValueError as err:  # ragged rows
            raise ValueError(f"source: rows of different lengths; expected a 2-D array ({err})") from None
        except TypeError as err:
            raise TypeError(f"source: expected a 2-D array or a path to a .npy file ({err})") from None
        _check_dtype(arr.dtype)
        rows = _ArrayRows(_check_shape(arr))
    _check_dtype(rows.dtype)
    _check_shape(rows)
    return rows


def _maps_a_whole_file(X: np.memmap) -> bool:
    """True for a memmap of a whole array in a file (``np.load(mmap_mode=...)``, ``np.memmap(...)``):
    then ``filename`` and ``offset`` locate its rows. A slice of one shares the parent's attributes,
    which no longer describe it, so it is read through the map instead. A copy-on-write map may hold
    changes the file does not, so it is too."""
    return (
        isinstance(X.base, mmap.mmap)
        and X.filename is not None
        and X.ndim == 2
        and (X.flags.c_contiguous or X.flags.f_contiguous)
        and getattr(X, "mode", "r") != "c"
    )


def _npy_rows(path: Path) -> Rows:
    """A reader for a ``.npy`` file: its header gives shape, dtype and where the rows start."""
    if not path.is_file():
        raise ValueError(f"source: no file at {path}")
    with open(path, "rb") as f:
        try:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
            else:
                fortran, shape, dtype = True, None, None  # rare: let np.load parse it
        except ValueError as err:
            raise ValueError(f"source: {path} is not a .npy file ({err})") from None
        offset = f.tell()
    if shape is None:
        arr = np.load(path, mmap_mode="r")
        _check_dtype(arr.dtype)
        return _ArrayRows(_check_shape(arr))
    _check_dtype(dtype)
    if len(shape) != 2:
        raise ValueError(f"source: expected a 2-D array (points x dimensions), got shape {shape}")
    return (_FortranFileRows if fortran else _FileRows)(path, offset, shape, dtype)


def _check_dtype(dtype: np.dtype) -> None:
    if not (np.issubdtype(dtype, np.floating) or np.issubdtype(dtype, np.integer)):
        raise TypeError(f"source: expected real numbers (a float or int dtype), got dtype {dtype}")


def _check_shape(rows: np.ndarray | Rows) -> np.ndarray | Rows:
    shape = rows.shape if isinstance(rows, np.ndarray) else (rows.n, rows.d)
    if len(shape) != 2:
        raise ValueError(f"source: expected a 2-D array (points x dimensions), got shape {shape}")
    n, d = shape
    if n == 0:
        raise ValueError(f"source: is empty (shape {shape})")
    if n < 2:
        raise ValueError(f"source: needs at least 2 rows (points) for a covariance, got {n}")
    if d < 2:
        raise ValueError(f"source: needs at least 2 columns (dimensions): isotropy compares directions, got {d}")
    return rows
