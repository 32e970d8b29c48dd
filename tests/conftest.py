"""Shared fixtures and hypothesis settings for the toolkit tests."""

from __future__ import annotations

import os

if os.environ.get("PYTEST_XDIST_WORKER"):
    # Two workers share the two cores: one BLAS thread each (and in the notebook kernels they start),
    # so that no BLAS thread waits for a core. Printed outputs do not depend on the thread count
    # (.ci/run checks them under one thread). Set before numpy is imported, which reads it once.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import pytest
from hypothesis import settings

# Under CI the examples are derived from each test's name, so a run is reproducible; locally they
# are drawn afresh each run and keep exploring.
settings.register_profile("course", max_examples=40, deadline=None, derandomize=bool(os.environ.get("CI")))
settings.load_profile("course")


@pytest.fixture(scope="session")
def clouds() -> tuple[np.ndarray, np.ndarray]:
    """The course's isotropic cloud and cone (seed 0), read-only."""
    from shared import sphere_and_cone

    X_iso, X_cone = sphere_and_cone()
    X_iso.setflags(write=False)
    X_cone.setflags(write=False)
    return X_iso, X_cone


def gaussian_cloud(seed: int, n: int, d: int, anisotropy: float = 1.0, shift: float = 0.0) -> np.ndarray:
    """A Gaussian cloud with per-axis scales spread by ``anisotropy`` and a mean offset ``shift``."""
    rng = np.random.default_rng(seed)
    scales = anisotropy ** rng.uniform(-1, 1, d)
    return rng.standard_normal((n, d)) * scales + shift * rng.standard_normal(d)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # noqa: ARG001
    """After the browser tests: where their screenshots are, and the slider-to-picture latencies."""
    from tests import test_e2e

    if not test_e2e.LATENCIES:
        return
    terminalreporter.section("browser tests")
    terminalreporter.write_line(f"screenshots: {test_e2e.SHOTS}")
    for notebook, timings in test_e2e.LATENCIES.items():
        ms = ", ".join(f"{1000 * t:.0f}" for t in timings)
        held = test_e2e.HELD.get(notebook)
        ahead = "" if held is None else f" ({sum(held)} of {len(timings)} held by the page, drawn ahead)"
        terminalreporter.write_line(f"{notebook}: slider to new picture {ms} ms{ahead}")
