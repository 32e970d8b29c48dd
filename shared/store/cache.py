"""The study store: a result read from its entry, or made once and written under a lock; and the
store this process uses (:func:`default`, :func:`remember`)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

from .._stored import InvalidEntry
from .entries import FILE_MODE, MANIFEST, discard_entry, make_dir, read_entry, write_entry
from . import keys

T = TypeVar("T")


class StoreNotice(UserWarning):
    """The store could not be used for a result, which was computed in memory instead."""


_NOTICED: set[str] = set()


def _notice(kind: str, message: str) -> None:
    """Warn once per process and ``kind``."""
    if kind not in _NOTICED:
        _NOTICED.add(kind)
        warnings.warn(message, StoreNotice, stacklevel=4)


class Store:
    """The study store in ``directory``; ``writable`` (default: whether this process may create
    files there) says whether a missing or invalid entry may be written."""

    def __init__(self, directory: Path | str, writable: bool | None = None) -> None:
        self.directory = Path(directory)
        self._writable = writable

    @property
    def writable(self) -> bool:
        if self._writable is not None:
            return self._writable
        try:
            import fcntl  # noqa: F401
        except ImportError:  # no file locks: never write, so no reader sees half an entry
            return False
        probe = self.directory
        while not probe.exists():  # the store is made at first use: may its nearest parent be written?
            probe = probe.parent
        return probe.is_dir() and os.access(probe, os.W_OK | os.X_OK)

    def find(self, name: str, inputs: Sequence[str]) -> object:
        """The result ``name`` of ``inputs`` if the store holds a valid entry for it, else None
        (nothing is computed or written)."""
        try:
            return read_entry(self.directory / keys.entry_name(name, inputs), {"name": name, "inputs": list(inputs)})
        except (FileNotFoundError, InvalidEntry):
            return None

    def get(self, name: str, inputs: Sequence[str], make: Callable[[], T]) -> T:
        """The result ``name`` of ``inputs``: read from the store, or made by ``make()`` and stored."""
        path = self.directory / keys.entry_name(name, inputs)
        expected = {"name": name, "inputs": list(inputs)}
        problem = None
        try:
            return read_entry(path, expected)
        except FileNotFoundError:
            pass
        except InvalidEntry as error:
            problem = error
        if not self.writable:
            if problem:
                _notice(f"invalid {path.name}", f"study store: {path} is invalid ({problem}) and cannot be "
                        "rewritten here; computing it in memory. Rebuild with `python -m shared.real.build`.")
            else:
                _notice("read-only", f"study store: {self.directory} has no entry {name!r} and cannot be written"
                        " here (read-only for this user, or no file locks on this system); computing in memory,"
                        " which is slower. `python -m shared.real.build` fills it.")
            return make()
        try:
            descriptor = self._lock(path.name)
        except OSError as error:  # e.g. a read-only file system
            _notice("write failed", f"study store: cannot write to {self.directory} ({error}); computing in memory")
            return make()
        try:
            try:
                return read_entry(path, expected)  # another process may have filled it meanwhile
            except FileNotFoundError:
                pass
            except InvalidEntry as error:
                warnings.warn(f"study store: {path} is invalid ({error}); rebuilding it", StoreNotice, stacklevel=3)
            value = make()  # its own errors are the caller's
            try:
                if path.exists():
                    discard_entry(path)
                write_entry(path, value, expected)
            except TypeError as error:  # a kind of value the store does not keep: used, not stored
                _notice(f"cannot keep {name}", f"study store: {name!r} is not stored ({error})")
                return value
            except OSError as error:  # e.g. a full disk
                _notice("write failed", f"study store: cannot write to {self.directory} ({error}); computing in memory")
                return value
            return read_entry(path, expected)
        finally:
            os.close(descriptor)  # releases the lock

    def _lock(self, entry: str) -> int:
        """Wait for the lock of ``entry`` and hold it: a descriptor, closed to release it."""
        import fcntl

        make_dir(self.directory)
        descriptor = os.open(self.directory / f".{entry}.lock", os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        except BaseException:
            os.close(descriptor)
            raise
        return descriptor

    @contextlib.contextmanager
    def _locked(self, entry: str) -> Iterator[None]:
        descriptor = self._lock(entry)
        try:
            yield
        finally:
            os.close(descriptor)

    def prune(self) -> int:
        """Delete the entries made by another code version (never read again), and what writers
        that were stopped half-way left behind; how many entries were removed."""
        for leftover in [p for p in self.directory.iterdir() if p.is_dir() and p.name.startswith(".")]:
            with self._locked(leftover.name[1:].split(".")[0]):  # no writer of that entry is at work
                shutil.rmtree(leftover, ignore_errors=True)
        removed = 0
        for path in self.entries():
            try:
                made_by = json.loads((path / MANIFEST).read_text(encoding="utf-8")).get("code")
            except (OSError, ValueError):
                continue  # incomplete or unreadable: left for the next reader to rebuild
            if made_by != keys.code_version():
                with self._locked(path.name):
                    if path.exists():
                        discard_entry(path)
                        removed += 1
                (self.directory / f".{path.name}.lock").unlink(missing_ok=True)
        return removed

    def entries(self) -> list[Path]:
        """The entries in the store (complete or not)."""
        if not self.directory.is_dir():
            return []
        return sorted(p for p in self.directory.iterdir() if p.is_dir() and not p.name.startswith("."))


# --- the store this process uses ----------------------------------------------------------------

_STORES: dict[str, Store] = {}


def default() -> Store:
    """The store of :func:`default_directory` (the environment is read at each call)."""
    directory = str(keys.default_directory())
    if directory not in _STORES:
        _STORES[directory] = Store(directory)
    return _STORES[directory]


def remember(name: str, inputs: Sequence[str], make: Callable[[], T]) -> T:
    """``make()``, kept in this machine's store under ``name`` and ``inputs`` (see the module's text)."""
    return default().get(name, inputs, make)
