r"""Is *your* embedding space a cone? :func:`isotropy_report` puts notebook 01's six meters on any matrix.

The matrix may be far larger than memory (say 1,000,000 x 768 float32, 3 GB in a ``.npy`` file): it is
read in row chunks, at most twice, and the memory used is :math:`O(d^2)` plus one chunk.

* **Pass 1** accumulates the mean, the centred scatter matrix (merged chunk by chunk with the update
  of Chan, Golub & LeVeque 1979, never as :math:`E[xx^\top] - \mu\mu^\top`, which cancels for a cone
  with a large mean), the sum of the unit rows (the exact mean cosine), and a random sample of rows
  (uniformity). Ranks and IsoScore follow from the covariance spectrum.
* **Pass 2** is needed only by partition isotropy: it projects every row on the eigenvectors of
  :math:`X^\top X` found after pass 1 and keeps a running log-sum-exp per direction.

The report compares every meter with a Gaussian of the same size (same ``n`` and ``d``) and applies
notebook 01's rules (the ✓/✗ of its "which meter lies when" table); ``print(report)`` shows the table,
which failure and the verdict, ``print(report.details())`` also the rules and the baseline's provenance.

* :mod:`~shared.report.run`: :func:`isotropy_report` itself, and the default chunk size;
* :mod:`~shared.report.result`: :class:`IsotropyReport` and a :class:`MeterLine` per meter, and how they print;
* :mod:`~shared.report.rows`: reading the rows in chunks (memory, memory map, ``.npy`` file, ``dask.array``);
* :mod:`~shared.report.passes`: the two passes, and uniformity from the sampled rows;
* :mod:`~shared.report.baseline`: the same-size Gaussian baseline;
* :mod:`~shared.report.progress`: the progress line.
"""

from .baseline import Baseline, gaussian_baseline, streamed_gaussian_meters
from .passes import projection_block_rows
from .result import IsotropyReport, MeterLine
from .rows import row_chunks
from .run import default_chunk_rows, isotropy_report

__all__ = [
    "Baseline",
    "IsotropyReport",
    "MeterLine",
    "default_chunk_rows",
    "gaussian_baseline",
    "isotropy_report",
    "projection_block_rows",
    "row_chunks",
    "streamed_gaussian_meters",
]
