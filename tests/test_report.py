"""The streaming isotropy report: it equals the in-memory meters, reads files in chunks, and says why it refuses."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import special

from shared import (
    all_meters,
    cov_eigs,
    cross_group_cosines,
    effective_rank,
    entropy_rank,
    isoscore,
    isotropy_report,
    make_isotropic,
    meter_table,
    partition_isotropy,
    sphere_and_cone,
    uniformity,
    zca_whiten,
)
from shared.meters import (
    gaussian_uniformity,
    isoscore_of_spectrum,
    table_meters,
    wishart_gaussian_meters,
)
from shared.report import gaussian_baseline, streamed_gaussian_meters
from shared.report import rows as rows_module
from tests.conftest import gaussian_cloud

ROOT = Path(__file__).resolve().parent.parent
seeds = st.integers(0, 2**32 - 1)


def in_memory(X: np.ndarray) -> dict[str, float]:
    """The course's in-memory meters, with the exact mean cosine over pairs of distinct non-zero rows."""
    X = np.asarray(X, dtype=float)
    eigs = cov_eigs(X)
    try:
        partition = partition_isotropy(X)
    except ValueError:
        partition = float("nan")
    nonzero = X[np.linalg.norm(X, axis=1) > 0]
    return {
        "eigs": eigs,
        "partition_isotropy": partition,
        "mean_cosine": float(cross_group_cosines(nonzero, np.arange(len(nonzero))).sum()),
        "effective_rank": effective_rank(eigs),
        "entropy_rank": entropy_rank(eigs),
        "isoscore": isoscore(X),
        "uniformity": uniformity(nonzero),
    }


def assert_report_equals(report, expected: dict[str, float], rel: float, cos_abs: float) -> None:
    m = report.meters
    scale = expected["eigs"].max()
    np.testing.assert_allclose(report.eigs, expected["eigs"], rtol=rel, atol=rel * scale, err_msg="covariance spectrum")
    for name in ("effective_rank", "entropy_rank", "isoscore"):
        assert getattr(m, name) == pytest.approx(expected[name], rel=rel, abs=rel), name
    assert m.mean_cosine == pytest.approx(expected["mean_cosine"], abs=cos_abs), "mean cosine"
    assert m.uniformity == pytest.approx(expected["uniformity"], rel=1e-9, abs=1e-12), "uniformity (all rows: exact)"
    if np.isnan(expected["partition_isotropy"]):
        assert np.isnan(m.partition_isotropy) and report.partition_note.startswith("undefined")
    else:
        assert m.partition_isotropy == pytest.approx(expected["partition_isotropy"], rel=100 * rel, abs=1e-300)


def cone(seed: int, n: int, d: int, shift: float, anisotropy: float, dtype=np.float64) -> np.ndarray:
    """A Gaussian with axis scales spread by ``anisotropy`` plus a shared offset of size ``shift``."""
    return gaussian_cloud(seed, n, d, anisotropy=anisotropy, shift=shift).astype(dtype)


# ----- equal to the in-memory meters -----------------------------------------------------------


@given(
    seeds,
    st.integers(3, 120),
    st.integers(2, 10),
    st.integers(1, 130),
    st.sampled_from([0.0, 1.0, 20.0, 1000.0]),
    st.floats(1, 30),
    st.sampled_from([np.float32, np.float64]),
)
def test_float64_products_equal_the_in_memory_meters(seed, n, d, chunk_rows, shift, aniso, dtype):
    X = cone(seed, n, d, shift, aniso, dtype)
    report = isotropy_report(X, seed, chunk_rows=chunk_rows, compute_dtype=np.float64, baseline=None)
    assert_report_equals(report, in_memory(X), rel=1e-9, cos_abs=1e-12)
    assert (report.n, report.d, report.chunk_rows, report.zero_rows) == (n, d, chunk_rows, 0)
    np.testing.assert_allclose(report.mean, X.astype(float).mean(axis=0), rtol=1e-12, atol=1e-12 * (1 + shift))


@given(seeds, st.integers(3, 300), st.integers(2, 12), st.integers(1, 310), st.sampled_from([0.0, 3.0, 30.0]))
def test_float32_products_agree_to_the_printed_decimals(seed, n, d, chunk_rows, shift):
    X = cone(seed, n, d, shift, 5.0, np.float32)
    report = isotropy_report(X, seed, chunk_rows=chunk_rows, compute_dtype=np.float32, baseline=None)
    assert report.compute_dtype == "float32"
    assert_report_equals(report, in_memory(X), rel=2e-5, cos_abs=1e-6)


def test_chunk_size_does_not_change_the_report():
    X = cone(5, 257, 9, 4.0, 10.0)
    reports = [isotropy_report(X, 1, chunk_rows=k, baseline=None, uniformity_rows=100) for k in (1, 10, 64, 257, 1000)]
    for r in reports[1:]:
        for name in ("partition_isotropy", "mean_cosine", "effective_rank", "entropy_rank", "isoscore"):
            assert getattr(r.meters, name) == pytest.approx(getattr(reports[0].meters, name), rel=1e-10)
        assert r.meters.uniformity == reports[0].meters.uniformity  # the same sampled rows at any chunk size
        assert r.uniformity_se == reports[0].uniformity_se


@given(seeds, st.integers(20, 200), st.integers(2, 12), st.floats(1, 30))
def test_isoscore_of_the_spectrum_equals_isoscore_of_the_cloud(seed, n, d, aniso):
    X = gaussian_cloud(seed, n, d, anisotropy=aniso)
    assert isoscore_of_spectrum(cov_eigs(X)) == pytest.approx(isoscore(X), rel=1e-12, abs=1e-15)


# ----- the exact mean cosine and zero rows -----------------------------------------------------


def test_mean_cosine_is_the_exact_mean_over_pairs_of_distinct_nonzero_rows():
    X = cone(3, 60, 5, 2.0, 3.0)
    X[[4, 17, 18]] = 0.0
    report = isotropy_report(X, 0, chunk_rows=7, baseline=None)
    U = X[np.linalg.norm(X, axis=1) > 0]
    U = U / np.linalg.norm(U, axis=1, keepdims=True)
    C = U @ U.T
    brute = (C.sum() - np.trace(C)) / (len(U) * (len(U) - 1))
    assert report.meters.mean_cosine == pytest.approx(brute, abs=1e-13)
    s = U.sum(axis=0)
    assert report.meters.mean_cosine == pytest.approx((s @ s - len(U)) / (len(U) * (len(U) - 1)), abs=1e-13)
    assert report.zero_rows == 3
    assert report.meters.uniformity == pytest.approx(uniformity(X[np.linalg.norm(X, axis=1) > 0]), rel=1e-12)
    np.testing.assert_allclose(report.eigs, cov_eigs(X), rtol=1e-10, atol=1e-12)  # zero rows are still points
    assert "3 zero rows have no direction" in report.details()


def test_a_needle_cone_fails_every_meter_and_its_spectrum_is_stable():
    rng = np.random.default_rng(0)
    n, d = 4000, 32
    u = rng.standard_normal(d)
    u /= np.linalg.norm(u)
    offset = 1e7 * rng.standard_normal(d)
    X = offset + np.outer(rng.uniform(1, 2, n), u) + 1e-3 * rng.standard_normal((n, d))
    report = isotropy_report(X, 0, chunk_rows=333, baseline="sample")
    exact = np.linalg.eigvalsh(np.cov(X.T - X.mean(axis=0)[:, None], bias=True))[::-1]
    np.testing.assert_allclose(report.eigs, exact, rtol=1e-5, atol=1e-9)
    naive = np.linalg.eigvalsh(X.T @ X / n - np.outer(X.mean(axis=0), X.mean(axis=0)))[::-1]
    assert np.max(np.abs(naive - exact)) > 1e3 * np.max(np.abs(report.eigs - exact))  # why the merge is centred
    m = report.meters
    assert m.mean_cosine > 0.999999 and m.uniformity > -1e-5
    # every row has the RMS norm sqrt(d) and points along +c: Z(c) / Z(-c) = exp(2 sqrt(d))
    assert m.partition_isotropy == pytest.approx(np.exp(-2 * np.sqrt(d)), rel=1e-3)
    assert m.effective_rank == pytest.approx(1.0, abs=1e-3)
    assert all(v.isotropic is False for v in report.meter_lines())
    assert report.diagnosis().startswith("a cone with a collapsed spread")


# ----- files and memory maps -------------------------------------------------------------------


def spy_on_file_reads(monkeypatch) -> list[int]:
    """Record the rows of every chunk read from a file; make any whole-array np.load fail the test."""
    sizes: list[int] = []
    original = rows_module._FileRows.chunks

    def chunks(self, rows):
        for start, chunk in original(self, rows):
            sizes.append(len(chunk))
            yield start, chunk

    monkeypatch.setattr(rows_module._FileRows, "chunks", chunks)
    real_load = np.load

    def load(*args, **kwargs):
        assert kwargs.get("mmap_mode") == "r", "the file was loaded into memory"
        return real_load(*args, **kwargs)

    monkeypatch.setattr(np, "load", load)
    return sizes


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_npy_path_is_read_in_chunks_and_equals_the_array(tmp_path, monkeypatch, dtype):
    X = cone(2, 1000, 6, 3.0, 4.0, dtype)
    path = tmp_path / "emb.npy"
    np.save(path, X)
    expected = isotropy_report(X, 4, chunk_rows=128, baseline=None)
    sizes = spy_on_file_reads(monkeypatch)
    for source in (str(path), path, np.lib.format.open_memmap(path, mode="r")):
        sizes.clear()
        report = isotropy_report(source, 4, chunk_rows=128, baseline=None)
        assert report.meters == expected.meters and report.passes == 2
        assert max(sizes) == 128 and sum(sizes) == 2 * len(X)  # two passes, one chunk at a time


def test_a_memory_map_of_part_of_a_file_is_read_through_the_map(tmp_path, monkeypatch):
    X = cone(7, 300, 5, 1.0, 2.0)
    np.save(tmp_path / "c.npy", X)
    sizes = spy_on_file_reads(monkeypatch)
    sliced = np.load(tmp_path / "c.npy", mmap_mode="r")[100:]
    tail = isotropy_report(X[100:], 0, chunk_rows=50, baseline=None).meters
    assert isotropy_report(sliced, 0, chunk_rows=50, baseline=None).meters == tail
    assert sizes == []


def test_a_fortran_ordered_file_is_read_a_chunk_of_rows_at_a_time(tmp_path, monkeypatch):
    X = cone(7, 300, 5, 1.0, 2.0)
    np.save(tmp_path / "f.npy", np.asfortranarray(X))
    expected = isotropy_report(X, 0, chunk_rows=50, baseline=None).meters
    sizes: list[int] = []
    original = rows_module._FortranFileRows.chunks

    def chunks(self, rows):
        for start, chunk in original(self, rows):
            sizes.append(chunk.nbytes)
            yield start, chunk

    monkeypatch.setattr(rows_module._FortranFileRows, "chunks", chunks)
    fortran_map = np.load(tmp_path / "f.npy", mmap_mode="r")
    assert fortran_map.flags.f_contiguous
    for source in (tmp_path / "f.npy", fortran_map):
        sizes.clear()
        assert isotropy_report(source, 0, chunk_rows=50, baseline=None).meters == expected
        assert max(sizes) == 50 * 5 * 8 and len(sizes) == 2 * 6  # one chunk of rows in memory, two passes


def test_a_non_finite_entry_deep_in_a_file_is_located(tmp_path):
    X = cone(1, 500, 4, 1.0, 1.0, np.float32)
    X[437, 2] = np.nan
    np.save(tmp_path / "bad.npy", X)
    with pytest.raises(ValueError, match=r"source: row 437 \(in the chunk of rows 400 to 499\) contains NaN"):
        isotropy_report(tmp_path / "bad.npy", 0, chunk_rows=100)


# ----- refusals ---------------------------------------------------------------------------------


def bad_file(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"{kind}.npy"
    if kind == "truncated":
        np.save(path, np.ones((100, 4)))
        path.write_bytes(path.read_bytes()[:-64])
    elif kind == "text":
        path.write_text("not an array")
    elif kind == "3d":
        np.save(path, np.ones((2, 3, 4)))
    return path


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        (lambda p: p / "missing.npy", ValueError, "source: no file at"),
        (lambda p: bad_file(p, "text"), ValueError, "source: .* is not a .npy file"),
        (lambda p: bad_file(p, "truncated"), ValueError, "source: .* is truncated"),
        (lambda p: bad_file(p, "3d"), ValueError, "source: expected a 2-D array"),
        (lambda p: np.ones(5), ValueError, "source: expected a 2-D array"),
        (lambda p: np.ones((0, 5)), ValueError, "source: is empty"),
        (lambda p: np.ones((1, 5)), ValueError, "source: needs at least 2 rows"),
        (lambda p: np.arange(10.0)[:, None], ValueError, "source: needs at least 2 columns"),
        (lambda p: np.full((50, 3), 0.1), ValueError, "source: all points coincide"),
        (lambda p: np.array([["a", "b"], ["c", "d"]]), TypeError, "source: expected real numbers"),
        (lambda p: np.ones((3, 3), dtype=complex), TypeError, "source: expected real numbers"),
        (lambda p: [[1.0, 2.0], [3.0]], ValueError, "source: rows of different lengths"),
        (lambda p: np.ma.masked_greater(np.arange(12.0).reshape(4, 3), 10), ValueError, "source: is a masked array"),
        (lambda p: np.vstack([np.ones((5, 3)), [[0.0, np.inf, 1.0]]]), ValueError, r"source: row 5 \(in the chunk"),
    ],
)
def test_bad_sources_are_refused_by_name(tmp_path, make, error, message):
    with pytest.raises(error, match=message):
        isotropy_report(make(tmp_path), 0, baseline=None)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"chunk_rows": 0}, ValueError, "chunk_rows: must lie in"),
        ({"chunk_rows": 2.5}, TypeError, "chunk_rows: expected an int"),
        ({"chunk_rows": True}, TypeError, "chunk_rows: expected an int"),
        ({"uniformity_rows": 1}, ValueError, "uniformity_rows: must lie in"),
        ({"compute_dtype": "int8"}, ValueError, "compute_dtype: expected float32 or float64"),
        ({"compute_dtype": object()}, TypeError, "compute_dtype: expected float32 or float64"),
        ({"baseline": "gaussian"}, ValueError, "baseline: expected"),
        ({"partition": "yes"}, TypeError, "partition: expected True or False"),
    ],
)
def test_bad_options_are_refused_by_name(kwargs, error, message):
    with pytest.raises(error, match=message):
        isotropy_report(np.random.default_rng(0).standard_normal((20, 3)), 0, **kwargs)


def test_bad_rng_is_refused_by_name():
    with pytest.raises(TypeError, match="rng:"):
        isotropy_report(np.eye(3), "seed")


def test_partition_isotropy_is_undefined_where_the_eigenvectors_are_not_unique():
    X = zca_whiten(make_isotropic(500, 6, 0))  # X^T X is a multiple of the identity
    with pytest.raises(ValueError, match="not unique"):
        partition_isotropy(X)
    report = isotropy_report(X, 0, baseline="sample")
    assert np.isnan(report.meters.partition_isotropy) and report.passes == 1
    assert report.partition_note.startswith("undefined: 6 eigenvalues of X^T X coincide")
    assert "partition I: undefined" in report.details() and "?" in report.table()
    skipped = isotropy_report(make_isotropic(500, 6, 0), 0, partition=False, baseline=None)
    assert np.isnan(skipped.meters.partition_isotropy) and skipped.passes == 1
    assert skipped.partition_note == "not computed (partition=False)"


# ----- uniformity: an estimate with an honest standard error ----------------------------------


def test_uniformity_standard_error_covers_the_exact_value():
    X = cone(11, 2000, 10, 1.5, 3.0)
    exact = uniformity(X)
    z = []
    for seed in range(40):
        r = isotropy_report(X, seed, uniformity_rows=150, partition=False, baseline=None)
        assert r.uniformity_rows == 150 and r.uniformity_se > 0
        z.append((r.meters.uniformity - exact) / r.uniformity_se)
    z = np.array(z)
    assert np.mean(np.abs(z) < 2.0) >= 0.8, z
    assert 0.6 < z.std() < 1.5, z


def test_uniformity_is_reproducible_from_the_seed():
    X = cone(12, 3000, 8, 1.0, 2.0)
    a, b = (isotropy_report(X, 9, uniformity_rows=300, partition=False, baseline=None) for _ in range(2))
    c = isotropy_report(X, np.random.default_rng(9), uniformity_rows=300, partition=False, baseline=None)
    assert a.meters.uniformity == b.meters.uniformity == c.meters.uniformity
    assert a.seed == 9 and c.seed is None


# ----- the same-size Gaussian baseline ---------------------------------------------------------


def test_uniformity_of_random_directions_is_a_bessel_function():
    assert gaussian_uniformity(2) == pytest.approx(-4.0 + np.log(special.i0(4.0)), rel=1e-12)
    d = 50
    kappa = 4.0
    bessel = special.gamma(d / 2) * (2 / kappa) ** (d / 2 - 1) * special.iv(d / 2 - 1, kappa)
    assert gaussian_uniformity(d) == pytest.approx(-4.0 + np.log(bessel), rel=1e-12)
    rng = np.random.default_rng(0)
    U, V = (rng.standard_normal((200_000, d)) for _ in range(2))
    terms = np.exp(4 * np.einsum("ij,ij->i", U, V) / np.linalg.norm(U, axis=1) / np.linalg.norm(V, axis=1) - 4)
    se = terms.std() / terms.mean() / np.sqrt(len(terms))
    assert np.log(terms.mean()) == pytest.approx(gaussian_uniformity(d), abs=4 * se)


def test_wishart_baseline_agrees_with_sampled_gaussians():
    n, d = 3000, 12
    sampled = [streamed_gaussian_meters(n, d, seed, np.dtype(np.float64)) for seed in range(12)]
    drawn = [wishart_gaussian_meters(n, d, np.random.default_rng(seed)) for seed in range(300)]
    for name in ("partition_isotropy", "effective_rank", "entropy_rank", "isoscore"):
        a = np.array([getattr(m, name) for m in sampled])
        b = np.array([getattr(m, name) for m in drawn])
        se = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
        assert abs(a.mean() - b.mean()) < 4 * se + 1e-12, (name, a.mean(), b.mean(), se)
        assert 0.5 < b.std() / a.std() < 2.0, name
    pr = np.mean([m.effective_rank for m in drawn])
    assert pr == pytest.approx(((n - 1) * d + 2) / (n + d), rel=1e-3)  # ratio of Wishart expectations


def test_auto_baseline_samples_small_matrices_and_draws_the_wishart_law_for_large_ones():
    rng = np.random.default_rng(0)
    small, how_small = gaussian_baseline("auto", 2000, 50, rng, np.dtype(np.float64))
    assert how_small.startswith("a N(0, I) sample of the same size")
    large, how_large = gaussian_baseline("auto", 10**6, 256, rng, np.dtype(np.float32))
    assert "Bartlett" in how_large and "no rows generated" in how_large
    assert large.effective_rank == pytest.approx((999_999 * 256 + 2) / (10**6 + 256), rel=1e-3)
    assert 0.5 < large.partition_isotropy < 1.0 and large.mean_cosine == 0.0


# ----- the printed table: notebook 01's verdicts ------------------------------------------------


def test_the_table_gives_notebook_01s_verdicts():
    X_iso, X_cone = sphere_and_cone()
    rng = np.random.default_rng(10)
    u = rng.standard_normal(50)
    u /= np.linalg.norm(u)
    clouds = {
        "isotropic Gaussian": X_iso,
        "narrow cone": X_cone,
        "Gaussian shifted by +3": X_iso + 3.0,
        "centred line (1 direction)": np.outer(rng.standard_normal(2000), u),
        "Gaussian scaled by 0.1": 0.1 * X_iso,
        "Gaussian scaled by 10": 10.0 * X_iso,
        "30 points in 50 dimensions": make_isotropic(30, 50, rng),
    }
    expected = meter_table(clouds)  # notebook 01's table, computed in memory
    diagnoses = {}
    for name, X in clouds.items():
        report = isotropy_report(X, 11)
        row = expected.row(name)
        assert [v.isotropic for v in report.meter_lines()] == [row.isotropic[m.name] for m in table_meters()], name
        diagnoses[name] = report.diagnosis()
        assert diagnoses[name].split(":")[0].split(",")[0] in {
            "cone + collapsed spread": "a cone with a collapsed spread", "cone": "a cone",
            "collapsed spread": "a collapsed spread", "neither": "as isotropic as a Gaussian of the same size",
        }[row.failure], (name, diagnoses[name], row.failure)
    assert diagnoses["narrow cone"].startswith("a cone with a collapsed spread")
    assert diagnoses["Gaussian shifted by +3"].startswith("a cone:")
    assert diagnoses["centred line (1 direction)"].startswith("a collapsed spread, not a cone")
    assert diagnoses["isotropic Gaussian"].startswith("as isotropic as a Gaussian")

    report = isotropy_report(X_cone, 11)
    details = report.details()
    assert details.splitlines()[0].startswith("isotropy report: 2,000 rows x 50 dimensions (float64); 2 passes")
    for needed in ("Gaussian, same n and d", "your matrix", "baseline: a N(0, I) sample", "verdict: a cone with a"):
        assert needed in details
    assert str(report) == report.table()


def test_the_default_rendering_is_compact_and_the_details_hold_the_provenance():
    """print(report) shows the table, which failure and the verdict; the baseline's seed, the Wishart
    draw, the 0F1 formula, the rules and the pair counts are in details() only."""
    _, X_cone = sphere_and_cone()
    for baseline in ("auto", "wishart"):
        report = isotropy_report(X_cone, 11, baseline=baseline)
        compact, details = str(report), report.details()
        assert compact == report.table()
        lines = compact.splitlines()
        assert lines[0] == "isotropy report: 2,000 rows x 50 dimensions (float64)"
        assert lines[1].split()[:2] == ["partition", "I"] and lines[2].startswith("Gaussian, same n and d")
        assert lines[3].startswith("your matrix") and "✗" in lines[3]
        assert "which failure: cone + collapsed spread" in compact
        assert sum(line.startswith("verdict: a cone with a collapsed spread") for line in lines) == 1
        for hidden in ("Wishart", "0F1", "seed", "ordered pairs", "at least", "pass"):
            assert hidden not in compact.replace("report.details()", "")
        for shown in ("0F1", "seed", "ordered pairs", "at least", "2 passes"):
            assert shown in details
        assert ("Wishart" in details) == (baseline == "wishart")
        for line in lines[1:4]:  # the table itself is the same in both
            assert line in details.splitlines()
        assert len(compact.splitlines()) < len(details.splitlines()) - 8
    sampled = str(isotropy_report(X_cone, 11, uniformity_rows=500))
    assert "(uniformity: all pairs of 500 random rows, ± its standard error)" in sampled and "seed" not in sampled
    unmarked = isotropy_report(X_cone, 11, baseline=None)
    assert "which failure" not in str(unmarked) and "verdict: no baseline" in str(unmarked)


def test_progress_is_written_to_stderr_only_when_asked(capsys):
    X = make_isotropic(3000, 8, 0)
    isotropy_report(X, 0, chunk_rows=100)
    assert capsys.readouterr() == ("", "")
    isotropy_report(X, 0, chunk_rows=100, progress=True)
    out, err = capsys.readouterr()
    assert out == "" and "isotropy_report: pass 2/2" in err and err.endswith("\n")


# ----- adversarial inputs: the in-memory meters' answer at any scale, or a true error ----------


def exact_report(X, **kwargs):
    """The report with every row in the uniformity sample, so that each meter is exact."""
    return isotropy_report(X, 0, baseline=None, uniformity_rows=10**9, **kwargs)


def assert_meters_agree(report_meters, memory, tol: float = 1e-6) -> None:
    for name in ("partition_isotropy", "mean_cosine", "effective_rank", "entropy_rank", "isoscore", "uniformity"):
        got, want = getattr(report_meters, name), getattr(memory, name)
        if np.isnan(want):
            assert np.isnan(got), name
        else:
            assert got == pytest.approx(want, rel=tol, abs=tol), name


@given(seeds, st.integers(3, 200), st.integers(2, 10), st.integers(1, 250), st.integers(-30, 30),
       st.sampled_from([0.0, 3.0, 1e3]))
def test_float32_at_any_scale_gives_the_in_memory_meters(seed, n, d, chunk_rows, power, shift):
    X = (cone(seed, n, d, shift, 5.0) * 10.0**power).astype(np.float32)
    assert_meters_agree(exact_report(X, chunk_rows=chunk_rows).meters, all_meters(X))


@given(seeds, st.integers(3, 200), st.integers(2, 10), st.integers(1, 250), st.integers(-300, 300),
       st.sampled_from([0.0, 3.0, 1e6]))
def test_float64_at_any_scale_gives_the_in_memory_meters(seed, n, d, chunk_rows, power, shift):
    X = cone(seed, n, d, shift, 5.0) * 10.0**power
    report = exact_report(X, chunk_rows=chunk_rows)
    assert_meters_agree(report.meters, all_meters(X))
    scale = 2.0 ** np.floor(np.log2(np.abs(X).max()))  # X.mean itself overflows near the largest float
    np.testing.assert_allclose(report.mean / scale, (X / scale).mean(axis=0), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("scale", [1e-23, 1e-25, 1e18, 1e-38, 3e38 / 64])
def test_float32_extremes_keep_every_row_and_every_meter(scale):
    X = (cone(3, 400, 6, 3.0, 2.0) / np.abs(cone(3, 400, 6, 3.0, 2.0)).max() * scale).astype(np.float32)
    report = exact_report(X)
    assert report.zero_rows == 0  # a row of tiny entries still has a direction
    assert_meters_agree(report.meters, all_meters(X))


@pytest.mark.parametrize(("dtype", "offset"), [(np.float32, 1e6), (np.float64, 1e12)])
def test_a_narrow_cone_far_from_the_origin_is_measured_not_refused(dtype, offset):
    rng = np.random.default_rng(1)
    X = (rng.standard_normal((600, 8)) + offset * rng.standard_normal(8)).astype(dtype)
    assert_meters_agree(exact_report(X, chunk_rows=128).meters, all_meters(X))


@given(seeds, st.integers(2, 12), st.sampled_from([1e-2, 1e-4, 1e-6]), st.sampled_from([np.float32, np.float64]))
def test_near_duplicate_rows_give_rank_one_and_a_mean_cosine_at_most_one(seed, d, spread, dtype):
    rng = np.random.default_rng(seed)
    v, w = rng.standard_normal(d), rng.standard_normal(d)
    X = (v + spread * rng.standard_normal(1500)[:, None] * w).astype(dtype)
    report = isotropy_report(X, seed, baseline=None, chunk_rows=512)
    assert_meters_agree(report.meters, all_meters(X))
    assert report.meters.mean_cosine <= 1.0


def test_two_hundred_thousand_near_duplicate_float32_rows():
    """The case that large float32 chunk sums got wrong (effective rank 1.68, a mean cosine above 1)."""
    rng = np.random.default_rng(0)
    v, w = rng.standard_normal(8), rng.standard_normal(8)
    X = (v + 1e-4 * rng.standard_normal(200_000)[:, None] * w).astype(np.float32)
    report = isotropy_report(X, 0, baseline=None)
    m, eigs = report.meters, cov_eigs(X)
    assert m.effective_rank == pytest.approx(effective_rank(eigs), rel=1e-6) and m.effective_rank < 1.001
    assert m.entropy_rank == pytest.approx(entropy_rank(eigs), rel=1e-6)
    assert m.isoscore == pytest.approx(isoscore(X), abs=1e-6)
    assert m.mean_cosine == pytest.approx(float(cross_group_cosines(X, np.arange(len(X))).sum()), abs=1e-6)
    assert m.mean_cosine <= 1.0
    assert m.partition_isotropy == pytest.approx(partition_isotropy(X), rel=1e-6)
    sample = "4,000 random rows (seed 0), all pairs, ± jackknife standard error"
    assert sample in report.details() and "(exact)" not in report.details()


@pytest.mark.parametrize("order", ["C", "F"])
def test_both_memory_orders_give_the_same_report(tmp_path, order):
    X = np.asarray(cone(4, 500, 7, 2.0, 3.0, np.float32), order=order)
    expected = exact_report(np.ascontiguousarray(X), chunk_rows=64).meters
    assert exact_report(X, chunk_rows=64).meters == expected
    np.save(tmp_path / "x.npy", X)
    assert exact_report(tmp_path / "x.npy", chunk_rows=64).meters == expected
    assert exact_report(np.load(tmp_path / "x.npy", mmap_mode="r"), chunk_rows=64).meters == expected


def test_masked_input_is_measured_only_when_nothing_is_masked():
    X = cone(5, 300, 4, 2.0, 2.0)
    plain = exact_report(X).meters
    assert exact_report(np.ma.masked_array(X)).meters == plain
    masked = np.ma.masked_array(X, mask=np.zeros_like(X, dtype=bool))
    masked[7, 2] = np.ma.masked
    with pytest.raises(ValueError, match="source: is a masked array with 1 masked entries"):
        exact_report(masked)


def test_a_bytes_path_is_a_path(tmp_path):
    X = cone(6, 200, 4, 1.0, 2.0)
    np.save(tmp_path / "x.npy", X)
    assert exact_report(bytes(tmp_path / "x.npy")).meters == exact_report(X).meters


def test_the_report_never_changes_its_input():
    X = cone(8, 200, 5, 3.0, 2.0)
    X.setflags(write=False)
    exact_report(X, chunk_rows=17)
    exact_report(X.astype(np.float32), chunk_rows=17)


def test_rows_far_below_the_largest_keep_their_direction():
    """Rows 1e-300 beside rows 1e300 in one chunk: their squares underflow at the chunk's scale, so
    each is normalised at its own; the mean cosine and uniformity count them as the in-memory meters do."""
    X = cone(9, 300, 5, 2.0, 3.0)
    X[::3] *= 1e-300
    X[1::3] *= 1e300
    report = exact_report(X, chunk_rows=64)
    assert report.zero_rows == 0
    assert report.meters.mean_cosine == pytest.approx(all_meters(X).mean_cosine, abs=1e-12)
    assert report.meters.uniformity == pytest.approx(uniformity(X), rel=1e-12)
    X[5] = 0.0
    assert exact_report(X, chunk_rows=64).zero_rows == 1
