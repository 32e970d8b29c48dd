"""One entry of the study store on disk: written whole into a temporary folder and renamed into
place, read back only if every file matches the manifest (never unpickled)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .._stored import InvalidEntry, from_tree, to_tree
from . import keys
from .keys import FORMAT

MANIFEST = "manifest.json"
SMALL = "small.npz"
MAPPED_BYTES = 1 << 16  # arrays of at least this size (64 KiB) get a file of their own, memory-mapped when read
FILE_MODE, DIR_MODE = 0o644, 0o755


def make_dir(path: Path) -> None:
    if not path.is_dir():
        path.mkdir(parents=True, exist_ok=True)
        os.chmod(path, DIR_MODE)


def sha256(path: Path) -> str:
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def read_entry(path: Path, expected: dict) -> Any:
    """The value of the entry at ``path``; :class:`FileNotFoundError` if there is none,
    :class:`InvalidEntry` if it is incomplete, corrupt or for other inputs."""
    try:
        manifest = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        if path.exists():
            raise InvalidEntry("no manifest: the entry is incomplete") from None
        raise
    except (ValueError, UnicodeDecodeError) as error:
        raise InvalidEntry(f"unreadable manifest ({error})") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise InvalidEntry("a manifest of another format")
    if {k: manifest.get(k) for k in expected} != expected or manifest.get("code") != keys.code_version():
        raise InvalidEntry("made for other inputs or another code version")
    files = manifest.get("files", {})
    present = {p.name for p in path.iterdir()} - {MANIFEST}
    if present != set(files):
        raise InvalidEntry(f"files {sorted(present ^ set(files))} differ from the manifest")
    for file, (size, digest) in files.items():
        if (path / file).stat().st_size != size:
            raise InvalidEntry(f"{file} has {(path / file).stat().st_size} bytes, the manifest says {size}")
        if sha256(path / file) != digest:
            raise InvalidEntry(f"{file} does not match its sha256 in the manifest")
    arrays: dict[str, np.ndarray] = {}
    try:
        if SMALL in files:
            with np.load(path / SMALL, allow_pickle=False) as small:
                arrays.update({k: small[k] for k in small.files})
        for file in files:
            if file.endswith(".npy"):
                arrays[file.removesuffix(".npy")] = np.asarray(np.load(path / file, mmap_mode="r", allow_pickle=False))
        return from_tree(manifest["value"], arrays)
    except (ValueError, KeyError, TypeError, OSError) as error:
        raise InvalidEntry(f"cannot be read without pickle ({error})") from None


def write_entry(path: Path, value: Any, expected: dict) -> None:
    """Write ``value`` as the entry ``path``: into a temporary directory beside it, every file
    flushed to disk, the manifest last, then renamed into place."""
    arrays: dict[str, np.ndarray] = {}
    tree = to_tree(value, arrays)
    temporary = Path(tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent))
    try:
        os.chmod(temporary, DIR_MODE)
        small = {k: a for k, a in arrays.items() if a.nbytes < MAPPED_BYTES}
        written = []
        for name, array in arrays.items():
            if name not in small:
                written.append(save(temporary / f"{name}.npy", lambda f, a=array: np.save(f, a, allow_pickle=False)))
        if small:
            written.append(save(temporary / SMALL, lambda f: np.savez(f, allow_pickle=False, **small)))
        files = {p.name: [p.stat().st_size, sha256(p)] for p in written}
        manifest = {"format": FORMAT, **expected, "code": keys.code_version(), "files": files, "value": tree}
        save(temporary / MANIFEST, lambda f: f.write(json.dumps(manifest).encode()))
        os.replace(temporary, path)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    fsync_dir(path.parent)


def save(path: Path, write: Callable[[Any], Any]) -> Path:
    with open(path, "xb") as file:
        write(file)
        file.flush()
        os.fsync(file.fileno())
    os.chmod(path, FILE_MODE)
    return path


def fsync_dir(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def discard_entry(path: Path) -> None:
    """Move an invalid entry out of the way (readers that hold its files keep them) and delete it."""
    aside = Path(tempfile.mkdtemp(prefix=f".{path.name}.invalid.", dir=path.parent))
    os.replace(path, aside / path.name)
    shutil.rmtree(aside, ignore_errors=True)
