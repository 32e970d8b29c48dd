"""The study store: what notebooks 07 and 09 compute from a model, computed once per machine.

Running the course corpus through two real models, dequantizing the decoder's weights and the
measurements made from them take a kernel a minute of CPU and a gigabyte of memory. The store
keeps each such result on disk, and every kernel reads it back memory-mapped, so the pages are
shared: thirty kernels on one machine hold the arrays once.

Where it lives: the directory named by the environment variable :data:`ENV` (``ISOTROPY_STORE``)
if set, else ``$XDG_CACHE_HOME/isotropy-anisotropy/store`` (``~/.cache/...`` without it). On a
learner's laptop it is filled at first use; on a class server the teacher fills it once with
``python -m shared.real.build`` and the students' kernels only read it.

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

The package in four modules: :mod:`~shared.store.keys` (what an entry depends on, and so its name),
:mod:`~shared.store.entries` (one entry on disk: written whole, read back checked),
:mod:`~shared.store.cache` (the store: read, or make and write under a lock; the store this process
uses) and ``python -m shared.store where``. It keeps any result of the toolkit and knows no model:
what the real models put in it, and the command that fills it, live with them
(:mod:`shared.real.models`, :mod:`shared.real.build`).
"""

from .cache import Store, StoreNotice, default, remember
from .entries import DIR_MODE, FILE_MODE, MANIFEST
from .keys import DRAW_FRAMES, ENV, FORMAT, code_version, default_directory, entry_name, file_digest

__all__ = ["DIR_MODE", "DRAW_FRAMES", "ENV", "FILE_MODE", "FORMAT", "MANIFEST", "Store", "StoreNotice", "code_version", "default",
           "default_directory", "entry_name", "file_digest", "remember"]
