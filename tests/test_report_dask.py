"""The streaming report on a ``dask.array``: each pass's chunk summaries are computed by dask workers
(a ``LocalCluster`` of two workers here) and merged in row order, so the report equals the one on
the same rows in memory."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from shared import all_meters, isotropy_report
from tests.conftest import gaussian_cloud

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    """Two worker processes of one thread each: every chunk summary crosses a process boundary."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as c:
            yield c


def test_a_dask_array_on_two_workers_gives_the_in_memory_report(client):
    X = (gaussian_cloud(3, 3000, 12, anisotropy=8.0, shift=5.0) * 1e-20).astype(np.float32)
    D = da.from_array(X, chunks=(700, 6))  # uneven row blocks, and columns split too: the report joins them
    report = isotropy_report(D, 0, baseline=None)
    expected = isotropy_report(X, 0, baseline=None, chunk_rows=700)
    assert report.n == 3000 and report.chunk_rows == 700 and report.passes == 2
    for name in ("partition_isotropy", "mean_cosine", "effective_rank", "entropy_rank", "isoscore", "uniformity"):
        assert getattr(report.meters, name) == pytest.approx(getattr(expected.meters, name), rel=1e-12), name
    assert report.uniformity_se == pytest.approx(expected.uniformity_se, rel=1e-12)  # the same sampled rows
    exact = all_meters(X)
    assert report.meters.effective_rank == pytest.approx(exact.effective_rank, rel=1e-9)
    assert report.meters.mean_cosine == pytest.approx(exact.mean_cosine, abs=1e-12)
    workers = client.run(lambda: "shared.report" in sys.modules)
    assert len(workers) == 2 and all(workers.values())  # the summaries ran on both workers


def test_chunk_rows_rechunks_a_dask_array_and_a_bad_row_is_located(client):  # noqa: ARG001
    X = gaussian_cloud(4, 1000, 5)
    assert isotropy_report(da.from_array(X, chunks=300), 1, baseline=None, chunk_rows=128).chunk_rows == 128
    X[613, 1] = np.nan
    with pytest.raises(ValueError, match=r"source: row 613 \(in the chunk of rows 512 to 639\)"):
        isotropy_report(da.from_array(X, chunks=300), 1, baseline=None, chunk_rows=128)


def test_the_report_imports_dask_only_when_given_a_dask_array():
    code = "import sys, shared, numpy as np; shared.isotropy_report(np.eye(4) + 1, 0); print('dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
