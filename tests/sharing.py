"""How a test run shares its work between processes: two workers (``-n 2``) and a kernel per notebook.

Loaded with ``-p tests.sharing`` (``pyproject.toml``), so it applies whichever paths are given.

- A unit of work is a whole file, as with ``--dist loadscope``: a notebook's cells run in order in one
  kernel, and a test module's cached fixtures are built once. The modules of :data:`TOGETHER` form
  one unit: they look at what the notebooks display, run in the worker's own process
  (:func:`tests.notebook_cells.shown`), and at the real models' studies, which keep what is measured
  from them; in one process each notebook runs once and each measurement is made once.
- The corpus run through the two models, and each measurement of notebooks 07 and 09 made from it,
  is computed once per run, not once per process, through the course's study store
  (:mod:`shared.store`, the mechanism a laptop and a class server use): the run's first process
  (the controller, or the only one) always points ``ISOTROPY_STORE`` at a fresh temporary
  directory, which the workers and the kernels they start inherit, and removes it at the end; so
  no run reads another's results, nor the user's own store. A notebook's kernel may so print a
  figure that another process of the same run computed, with the same code on the same inputs
  (the store gives it back bit for bit); nbval compares it with the stored output all the same.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from xdist.scheduler import LoadScopeScheduling

TOGETHER = ("test_explorers.py", "test_figures.py", "test_decoder.py", "test_encoder.py", "test_robust_realmodel.py")


class ByFile(LoadScopeScheduling):
    """``--dist loadscope`` with one unit per file, and one unit for the files of :data:`TOGETHER`."""

    def _split_scope(self, nodeid: str) -> str:
        path = nodeid.split("::", 1)[0]
        return "the notebooks in-process and the real models" if path.rsplit("/", 1)[-1] in TOGETHER else path


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log) -> ByFile | None:
    return ByFile(config, log) if config.getvalue("dist") == "loadscope" else None


def pytest_configure(config: pytest.Config) -> None:
    # Imported here, after tests/conftest.py has set the workers' BLAS threads (numpy reads them once).
    from shared.store import ENV

    if "PYTEST_XDIST_WORKER" not in os.environ:  # the run's first process: the controller, or the only one
        directory = tempfile.mkdtemp(prefix="course-store-")
        os.environ[ENV] = directory
        config.add_cleanup(lambda: shutil.rmtree(directory, ignore_errors=True))
