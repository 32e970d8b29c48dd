"""The study store: what notebooks 07 and 09 compute from a model, computed once per machine.

Running the course corpus through two real models, dequantizing the decoder's weights and the
measurements made from them take a kernel a minute of CPU and a gigabyte of memory. The store
keeps each such result on disk, and every kernel reads it back memory-mapped, so the pages are
shared: thirty kernels on one machine hold the arrays once.

Besides the models' results it keeps the frames of explorers (:mod:`shared.explorers`): every
setting's picture, drawn once and served to every kernel.

Where it lives: the directory named by the environment variable :data:`ENV` (``ISOTROPY_STORE``)
if set, else ``$XDG_CACHE_HOME/isotropy-anisotropy/store`` (``~/.cache/...`` without it). On a
learner's laptop it is filled at first use; on a class server the teacher fills it once with
``python -m shared.store build`` and the students' kernels only read it.

An entry is a directory named by what it depends on (:func:`entry_name`): the result's name, its
inputs (a model file's sha256, the sentences run through it) and the code version (a hash of the
toolkit's source and data files and numpy's version), so a change of any of them names another
entry and a stale one is never found. Inside: arrays as ``.npy`` files (read with
``allow_pickle=False``, the large ones memory-mapped read-only) or together in ``small.npz``, and
``manifest.json``, written last, with every file's size and sha256 and the value's structure (its
dataclasses, tuples, numbers and strings) as JSON. Nothing in the store is ever unpickled: on a
shared machine, unpickling a file that another user can write runs their code. A missing,
truncated or corrupt file, or a manifest for other inputs, makes the entry invalid: it is rebuilt
where the store can be written, and otherwise computed in memory with one notice.

Writes are atomic: the entry is written into a temporary directory beside it, each file flushed
to disk, then renamed into place under a file lock (``fcntl``), so two kernels filling one entry
at once compute it once and neither reads half an entry. Without ``fcntl`` (not a POSIX system)
or where the store cannot be written, results are computed in memory. Files are written with
mode 0644 and directories 0755: readable by every user, writable only by the one who built them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ._checks import Choice, one_of
from ._stored import InvalidEntry, from_tree, to_tree

T = TypeVar("T")

ENV = "ISOTROPY_STORE"
FORMAT = 1  # the layout of an entry; part of every entry's name
MANIFEST = "manifest.json"
SMALL = "small.npz"
MAPPED_BYTES = 1 << 16  # arrays of at least this size (64 KiB) get a file of their own, memory-mapped when read
FILE_MODE, DIR_MODE = 0o644, 0o755
PACKAGE = Path(__file__).resolve().parent
NOTEBOOKS = tuple(PACKAGE.parent / "notebooks" / f"{name}.ipynb"
                  for name in ("07_real_transformer", "08_static_word_vectors", "09_decoder_llm"))
# the libraries whose versions are part of the code version: they compute, tokenize or dequantize
LIBRARIES = ("numpy", "scipy", "tokenizers", "safetensors", "gguf", "wordfreq")


class StoreNotice(UserWarning):
    """The store could not be used for a result, which was computed in memory instead."""


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


class Model(Choice):
    """The real models whose runs the store keeps, by the name their entries carry."""

    MINILM = "MiniLM"
    SMOLLM2 = "SmolLM2"


def model_files(model: Model | str) -> list[Path]:
    """The files a model is read from (one of :class:`Model`: ``"MiniLM"`` or ``"SmolLM2"``)."""
    model = one_of(model, Model, "model")
    if model is Model.MINILM:
        from .real.encoder import model_dir

        folder = model_dir()
        return [folder / name for name in ("model.safetensors", "config.json", "tokenizer.json", "vocab.txt")]
    if model is Model.SMOLLM2:
        from .real.decoder import gguf_path

        return [gguf_path()]
    raise AssertionError(f"model_files: {model} has no branch")  # a member added without its branch


def model_inputs(models: str | Sequence[str], sentences: Sequence[str] = ()) -> tuple[str, ...]:
    """The inputs of a result made by ``models`` (one name or several) from ``sentences``: each
    model's name and its files' sha256, and the sha256 of the sentences (none for weights alone)."""
    names = [models] if isinstance(models, str) else list(models)
    files = [f"{name}/{p.name}:{file_digest(p)}" for name in names for p in model_files(name)]
    corpus = hashlib.sha256(json.dumps(list(sentences)).encode()).hexdigest()
    return (*files, f"sentences:{len(sentences)}:{corpus}")


def run_through(model: str, sentences: Sequence[str], make: Callable[[], T]) -> T:
    """``make()``, the ``sentences`` run through ``model``, kept in the store."""
    return remember(f"{model} hidden states", model_inputs(model, sentences), make)


def entry_name(name: str, inputs: Sequence[str]) -> str:
    """The directory name of the entry for the result ``name`` of ``inputs`` under this code."""
    digest = hashlib.sha256(json.dumps([FORMAT, name, list(inputs), code_version()]).encode()).hexdigest()
    slug = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")[:40]
    return f"{slug}-{digest[:24]}"


# --- the store ----------------------------------------------------------------------------------

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

    def get(self, name: str, inputs: Sequence[str], make: Callable[[], T]) -> T:
        """The result ``name`` of ``inputs``: read from the store, or made by ``make()`` and stored."""
        path = self.directory / entry_name(name, inputs)
        expected = {"name": name, "inputs": list(inputs)}
        problem = None
        try:
            return _read(path, expected)
        except FileNotFoundError:
            pass
        except InvalidEntry as error:
            problem = error
        if not self.writable:
            if problem:
                _notice(f"invalid {path.name}", f"study store: {path} is invalid ({problem}) and cannot be "
                        "rewritten here; computing it in memory. Rebuild with `python -m shared.store build`.")
            else:
                _notice("read-only", f"study store: {self.directory} has no entry {name!r} and cannot be written"
                        " here (read-only for this user, or no file locks on this system); computing in memory,"
                        " which is slower. `python -m shared.store build` fills it.")
            return make()
        try:
            descriptor = self._lock(path.name)
        except OSError as error:  # e.g. a read-only file system
            _notice("write failed", f"study store: cannot write to {self.directory} ({error}); computing in memory")
            return make()
        try:
            try:
                return _read(path, expected)  # another process may have filled it meanwhile
            except FileNotFoundError:
                pass
            except InvalidEntry as error:
                warnings.warn(f"study store: {path} is invalid ({error}); rebuilding it", StoreNotice, stacklevel=3)
            value = make()  # its own errors are the caller's
            try:
                if path.exists():
                    _discard(path)
                _write(path, value, expected)
            except TypeError as error:  # a kind of value the store does not keep: used, not stored
                _notice(f"cannot keep {name}", f"study store: {name!r} is not stored ({error})")
                return value
            except OSError as error:  # e.g. a full disk
                _notice("write failed", f"study store: cannot write to {self.directory} ({error}); computing in memory")
                return value
            return _read(path, expected)
        finally:
            os.close(descriptor)  # releases the lock

    def find(self, name: str, inputs: Sequence[str]) -> Any:
        """The result ``name`` of ``inputs`` if the store holds a valid entry for it, else None
        (nothing is computed or written)."""
        try:
            return _read(self.directory / entry_name(name, inputs), {"name": name, "inputs": list(inputs)})
        except (FileNotFoundError, InvalidEntry):
            return None

    def _lock(self, entry: str) -> int:
        """Wait for the lock of ``entry`` and hold it: a descriptor, closed to release it."""
        import fcntl

        _make_dir(self.directory)
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
            if made_by != code_version():
                with self._locked(path.name):
                    if path.exists():
                        _discard(path)
                        removed += 1
                (self.directory / f".{path.name}.lock").unlink(missing_ok=True)
        return removed

    def entries(self) -> list[Path]:
        """The entries in the store (complete or not)."""
        if not self.directory.is_dir():
            return []
        return sorted(p for p in self.directory.iterdir() if p.is_dir() and not p.name.startswith("."))


def _make_dir(path: Path) -> None:
    if not path.is_dir():
        path.mkdir(parents=True, exist_ok=True)
        os.chmod(path, DIR_MODE)


def _sha256(path: Path) -> str:
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def _read(path: Path, expected: dict) -> Any:
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
    if {k: manifest.get(k) for k in expected} != expected or manifest.get("code") != code_version():
        raise InvalidEntry("made for other inputs or another code version")
    files = manifest.get("files", {})
    present = {p.name for p in path.iterdir()} - {MANIFEST}
    if present != set(files):
        raise InvalidEntry(f"files {sorted(present ^ set(files))} differ from the manifest")
    for file, (size, digest) in files.items():
        if (path / file).stat().st_size != size:
            raise InvalidEntry(f"{file} has {(path / file).stat().st_size} bytes, the manifest says {size}")
        if _sha256(path / file) != digest:
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


def _write(path: Path, value: Any, expected: dict) -> None:
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
                written.append(_save(temporary / f"{name}.npy", lambda f, a=array: np.save(f, a, allow_pickle=False)))
        if small:
            written.append(_save(temporary / SMALL, lambda f: np.savez(f, allow_pickle=False, **small)))
        files = {p.name: [p.stat().st_size, _sha256(p)] for p in written}
        manifest = {"format": FORMAT, **expected, "code": code_version(), "files": files, "value": tree}
        _save(temporary / MANIFEST, lambda f: f.write(json.dumps(manifest).encode()))
        os.replace(temporary, path)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    _fsync_dir(path.parent)


def _save(path: Path, write: Callable[[Any], Any]) -> Path:
    with open(path, "xb") as file:
        write(file)
        file.flush()
        os.fsync(file.fileno())
    os.chmod(path, FILE_MODE)
    return path


def _fsync_dir(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _discard(path: Path) -> None:
    """Move an invalid entry out of the way (readers that hold its files keep them) and delete it."""
    aside = Path(tempfile.mkdtemp(prefix=f".{path.name}.invalid.", dir=path.parent))
    os.replace(path, aside / path.name)
    shutil.rmtree(aside, ignore_errors=True)


# --- the store this process uses ----------------------------------------------------------------

_STORES: dict[str, Store] = {}


def default() -> Store:
    """The store of :func:`default_directory` (the environment is read at each call)."""
    directory = str(default_directory())
    if directory not in _STORES:
        _STORES[directory] = Store(directory)
    return _STORES[directory]


def remember(name: str, inputs: Sequence[str], make: Callable[[], T]) -> T:
    """``make()``, kept in this machine's store under ``name`` and ``inputs`` (see the module's text)."""
    return default().get(name, inputs, make)


# --- the command line ---------------------------------------------------------------------------

def _steps() -> list[tuple[str, Callable[[], Any]]]:
    """What ``build`` fills, in order: the models' weights, the corpus through each model, the
    measurements notebooks 07 and 09 make from them (every setting of their explorers), then each
    of the two notebooks run once, which stores whatever else they read, and 08 too: their
    explorers' frames (every setting's picture, :mod:`shared.explorers`)."""
    from .real import decoder, decoder_study, encoder, encoder_study, frequency, negatives

    steps: list[tuple[str, Callable[[], Any]]] = [
        ("MiniLM weights", encoder.load_minilm),
        ("SmolLM2 weights, dequantized", lambda: decoder.load_smollm().matrix("blk.0.attn_q.weight")),
        ("MiniLM against its reference", encoder.reference_difference),
        ("SmolLM2 against its reference", decoder.reference_difference),
        ("corpus through MiniLM", encoder_study.real_study),
        ("layer profile", encoder_study.layer_profile),
        ("norm and frequency", frequency.norm_frequency),
    ]
    config = json.loads((encoder.model_dir() / "config.json").read_text())
    encoder_layers = int(config["num_hidden_layers"]) + 1  # 0 = embedding layer
    steps += [(f"MiniLM layer {layer}, {remedy}", lambda l=layer, r=remedy: encoder_study.real_point(l, r))
              for layer in range(encoder_layers) for remedy in encoder_study.REAL_REMEDIES]
    steps += [("remedies over 20 splits", negatives.remedy_splits),
              ("corpus through SmolLM2", decoder_study.decoder_study),
              ("decoder profile", decoder_study.decoder_profile),
              ("vocabulary cone", decoder_study.vocabulary_cone),
              ("MiniLM on the decoder's sentences", decoder_study.encoder_side)]
    decoder_layers = decoder.load_smollm().n_layers + 1  # 0 = token embeddings
    steps += [(f"SmolLM2 remedies, layer {layer}", lambda l=layer: decoder_study.decoder_remedies(l))
              for layer in range(decoder_layers)]
    steps += [(f"SmolLM2 layer {layer}, {out}", lambda l=layer, o=out: decoder_study.decoder_point(l, o))
              for layer in range(decoder_layers) for out in decoder_study.LEAVE_OUT]
    for path in NOTEBOOKS:  # anything else they read, in a kernel of their own, as a learner runs them
        if path.is_file():
            steps.append((f"notebook {path.stem[:2]}, run once", lambda p=path: _run_notebook(p)))
    return steps


def _run_notebook(path: Path) -> None:
    """Run the notebook at ``path`` top to bottom in a new kernel (its outputs are not saved)."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=1800, resources={"metadata": {"path": str(path.parent)}}).execute(env=dict(os.environ))


def build(directory: Path | str | None = None) -> Store:
    """Fill the store (``directory``, or the default) with everything notebooks 07 and 09 read,
    showing a progress bar on stderr."""
    from tqdm.auto import tqdm

    if directory is not None:
        os.environ[ENV] = str(Path(directory).resolve())
    store = default()
    _make_dir(store.directory)
    os.chmod(store.directory, DIR_MODE)
    if not store.writable:
        raise SystemExit(f"study store: {store.directory} cannot be written by this user")
    pruned = store.prune()
    if pruned:
        print(f"study store: removed {pruned} entries made by another version of the code", file=sys.stderr)
    steps = _steps()
    with tqdm(total=len(steps), desc="study store", unit="step", file=sys.stderr) as bar:
        for label, step in steps:
            bar.set_postfix_str(label, refresh=True)
            step()
            bar.update()
    return store


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m shared.store", description="The course's study store.")
    commands = parser.add_subparsers(dest="command", required=True)
    fill = commands.add_parser("build", help="compute everything notebooks 07 and 09 read, once for this machine")
    fill.add_argument("--dir", help=f"the store's directory (default: ${ENV}, else the user's cache)")
    commands.add_parser("where", help="print the directory of the store in use")
    args = parser.parse_args(argv)
    if args.command == "where":
        print(default_directory())
        return 0
    store = build(args.dir)
    entries = store.entries()
    size = sum(f.stat().st_size for e in entries for f in e.iterdir())
    print(f"study store: {store.directory}: {len(entries)} entries, {size / 1e6:.0f} MB; files mode 0644, folders"
          f" 0755: every user can read them, only uid {os.getuid()} (who built them) can change them.\n"
          f"Kernels use it when {ENV}={store.directory} is set in their environment.")
    return 0


if __name__ == "__main__":
    from shared.store import main as _main  # the module the toolkit imports, not a second copy of it

    sys.exit(_main())
