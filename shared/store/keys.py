"""What a study store entry depends on, and so its name: its inputs and the code that made it."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

ENV = "ISOTROPY_STORE"
#: Set to ``1`` by ``python -m shared.real.build`` while it runs the notebooks: only then do explorers
#: draw their missing frames into the store (:mod:`shared.explorers`; a learner's first run of a
#: notebook draws no pictures ahead).
DRAW_FRAMES = "ISOTROPY_DRAW_FRAMES"
FORMAT = 1  # the layout of an entry; part of every entry's name
PACKAGE = Path(__file__).resolve().parent.parent  # the toolkit, whose files are the code version
# the libraries that compute every entry; a model's reader libraries are among its inputs (shared.real.models)
LIBRARIES = ("numpy", "scipy")


def default_directory() -> Path:
    """The store's directory: :data:`ENV` if set, else the user's cache directory."""
    named = os.environ.get(ENV)
    if named:
        return Path(named).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "isotropy-anisotropy" / "store"


# --- what an entry depends on ------------------------------------------------------------------

_DIGESTS: dict[tuple, str] = {}


def file_digest(path: Path | str) -> str:
    """sha256 of the file at ``path`` (computed once per process for a given size and time)."""
    path = Path(path)
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _DIGESTS:
        with open(path, "rb") as file:
            _DIGESTS[key] = hashlib.file_digest(file, "sha256").hexdigest()
    return _DIGESTS[key]


def code_version() -> str:
    """A hash of the toolkit's source and data files (``shared/``) and of the versions of the
    :data:`LIBRARIES` that compute with them: what a stored result was made with besides its inputs."""
    if "code" not in _DIGESTS:
        from importlib.metadata import version

        libraries = "; ".join(f"{name} {version(name)}" for name in LIBRARIES)
        digest = hashlib.sha256(f"format {FORMAT}; {libraries}".encode())
        for path in sorted(p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            digest.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes() + b"\0")
        _DIGESTS["code"] = digest.hexdigest()
    return _DIGESTS["code"]


def entry_name(name: str, inputs: Sequence[str]) -> str:
    """The directory name of the entry for the result ``name`` of ``inputs`` under this code."""
    digest = hashlib.sha256(json.dumps([FORMAT, name, list(inputs), code_version()]).encode()).hexdigest()
    slug = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")[:40]
    return f"{slug}-{digest[:24]}"
