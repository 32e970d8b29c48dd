"""``python -m shared.real.build [--dir DIR]``: fill the study store with what the real models'
notebooks read, once for this machine.

What it computes comes from the models' records (:mod:`shared.real.models`): for each model, in
order, the ``store_entries()`` of each module its record names, then its notebook run once in a
kernel of its own (when the notebooks are beside the toolkit, as in a clone), which stores
whatever else the notebook reads.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .. import store
from ..store.entries import make_dir
from .models import real_models

#: Where the notebooks are in a clone (an installed toolkit has none beside it).
NOTEBOOKS = Path(__file__).resolve().parent.parent.parent / "notebooks"
#: Notebooks of no record that the build also runs once, so that their explorers' frames (every
#: setting's picture, :mod:`shared.explorers`) are kept for every kernel.
FRAMES_ONLY = ("08_static_word_vectors.ipynb",)


def steps(notebooks: Path = NOTEBOOKS) -> list[tuple[str, Callable[[], object]]]:
    """What :func:`build` fills, in order: each model's entries (the ``store_entries()`` of the
    modules its record names), then each model's notebook in ``notebooks``, run once, and those of
    :data:`FRAMES_ONLY` (the explorers' frames)."""
    out: list[tuple[str, Callable[[], object]]] = []
    for model in real_models():
        for module in model.entries:
            out += importlib.import_module(f"{__package__}.{module}").store_entries()
    for model in real_models():
        path = notebooks / model.notebook
        if path.is_file():  # anything else it reads, in a kernel of its own, as a learner runs it
            out.append((f"notebook {model.stem[:2]}, run once", lambda p=path: run_notebook(p)))
    for name in FRAMES_ONLY:
        path = notebooks / name
        if path.is_file():
            out.append((f"notebook {name[:2]}, run once for its explorers' frames", lambda p=path: run_notebook(p)))
    return out


def run_notebook(path: Path) -> None:
    """Run the notebook at ``path`` top to bottom in a new kernel (its outputs are not saved)."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=1800, resources={"metadata": {"path": str(path.parent)}}).execute(
        env={**os.environ, store.DRAW_FRAMES: "1"})  # the explorers draw their frames into the store


def build(directory: Path | str | None = None, notebooks: Path = NOTEBOOKS) -> store.Store:
    """Fill the store (``directory``, or the default) with everything the real models' notebooks
    (found in ``notebooks``) read, and their explorers' frames, showing a progress bar on stderr."""
    from tqdm.auto import tqdm

    if directory is not None:
        os.environ[store.ENV] = str(Path(directory).resolve())
    kept = store.default()
    make_dir(kept.directory)
    os.chmod(kept.directory, store.DIR_MODE)
    if not kept.writable:
        raise SystemExit(f"study store: {kept.directory} cannot be written by this user")
    pruned = kept.prune()
    if pruned:
        print(f"study store: removed {pruned} entries made by another version of the code", file=sys.stderr)
    todo = steps(Path(notebooks))
    with tqdm(total=len(todo), desc="study store", unit="step", file=sys.stderr) as bar:
        for label, step in todo:
            bar.set_postfix_str(label, refresh=True)
            step()
            bar.update()
    return kept


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m shared.real.build",
                                     description="Fill the course's study store with what the real models' notebooks read.")
    parser.add_argument("--dir", help=f"the store's directory (default: ${store.ENV}, else the user's cache)")
    parser.add_argument("--notebooks", default=str(NOTEBOOKS),
                        help="the course's notebooks folder, run once each (default: the one beside this toolkit)")
    args = parser.parse_args(argv)
    kept = build(args.dir, Path(args.notebooks))
    entries = kept.entries()
    size = sum(f.stat().st_size for e in entries for f in e.iterdir())
    print(f"study store: {kept.directory}: {len(entries)} entries, {size / 1e6:.0f} MB; files mode 0644, folders"
          f" 0755: every user can read them, only uid {os.getuid()} (who built them) can change them.\n"
          f"Kernels use it when {store.ENV}={kept.directory} is set in their environment.")
    return 0


if __name__ == "__main__":
    from shared.real.build import main as _main  # the module the toolkit imports, not a second copy of it

    sys.exit(_main())
