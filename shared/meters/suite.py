"""The course's six meters together: :data:`METERS` (notebook 01's columns), :class:`Meters`, :func:`all_meters`.

Kept apart from :mod:`~shared.meters.registry`, which declares meters and must not import them:
this module imports the meters from their modules.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _checks
from .cosines import mean_cosine, uniformity
from .partition import partition_isotropy
from .registry import Reading, read
from .spectrum import effective_rank, entropy_rank, isoscore, scaled_cov_eigs


# The six meters of notebook 01's table, in its column order.
METERS = (partition_isotropy, mean_cosine, effective_rank, entropy_rank, isoscore, uniformity)


@dataclass(frozen=True)
class Meters:
    """Every meter of the course on one cloud (:func:`all_meters`); each field is named after its meter."""

    partition_isotropy: float
    mean_cosine: float
    effective_rank: float
    entropy_rank: float
    isoscore: float
    uniformity: float

    def readings(self) -> list[Reading]:
        """The six values, named and formatted as their meters declare."""
        return [read(meter, getattr(self, meter.__name__)) for meter in METERS]


def all_meters(X: np.ndarray) -> Meters:
    """Every meter of the course on one cloud. The mean cosine is exact (all pairs), so no seed is needed.

    Partition isotropy is ``nan`` where it is undefined (a cloud whose eigenvectors are not
    unique, see :func:`partition_isotropy`); every other meter is defined for every cloud with
    spread (a cloud whose points all coincide is refused). Zero rows count as points at the origin
    in the meters of variance and are left out of the mean cosine and uniformity, which need two
    non-zero rows.
    """
    X = _checks.cloud(X, min_rows=2)
    _checks.spread(X, consequence="its spread meters are undefined")
    eigs, _ = scaled_cov_eigs(X)  # the ranks do not depend on the scale
    try:
        partition = partition_isotropy(X)
    except ValueError:
        partition = float("nan")
    return Meters(partition_isotropy=partition, mean_cosine=mean_cosine(X), effective_rank=effective_rank(eigs),
                  entropy_rank=entropy_rank(eigs), isoscore=isoscore(X), uniformity=uniformity(X))
