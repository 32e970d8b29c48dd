"""Notebook 09's implementation exercise checks against the decoder's own RMSNorm.

The checks every exercise shares (worked solutions pass, stubs and typical mistakes get their
messages) are in tests/test_exercises.py, which collects notebook 09's module with the others.
"""

from __future__ import annotations

import numpy as np

from shared.exercises import EXERCISES, verdict


def test_cases_are_well_defined_and_the_reference_is_the_decoders():
    from shared.real.decoder import rms_norm

    for description, kwargs in EXERCISES["09.1"].cases():
        want = rms_norm(**kwargs)
        assert np.all(np.isfinite(want)), description
        assert np.array_equal(EXERCISES["09.1"].reference(**kwargs), want)


def test_a_number_instead_of_a_function_is_refused():
    assert "pass your function itself" in verdict("09.1", 3.0)[1]
