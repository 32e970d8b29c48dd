"""Meters of isotropy: how evenly a cloud of vectors uses the directions of its space.

No meter is enough on its own: notebook 01 tabulates which one is fooled by which cloud.
All take a cloud ``X`` of shape ``(n points, d dimensions)`` or its covariance spectrum.

* :mod:`~shared.meters.registry`: the meter registry: each meter declared once (label, format, formula,
  range, invariances, and for notebook 01's table its rule), and :class:`Reading`;
* :mod:`~shared.meters.spectrum`: the covariance spectrum and the meters read from it (ranks, IsoScore);
* :mod:`~shared.meters.cosines`: cosines of unit rows, the mean cosine and uniformity;
* :mod:`~shared.meters.partition`: partition isotropy, and its range where it is undefined;
* :mod:`~shared.meters.suite`: the table meters together on one cloud (:class:`Meters`, :func:`all_meters`);
* :mod:`~shared.meters.tasks`: task metrics (pair AUC, Spearman, kNN accuracy);
* :mod:`~shared.meters.paraphrase`: the paraphrase check and its bootstrap;
* :mod:`~shared.meters.yardstick`: notebook 01's rules, same-size Gaussian baselines and the meter table.
"""

from .registry import (
    Invariance,
    Meter,
    Reading,
    Reads,
    Rule,
    Sees,
    declare_meter,
    read,
    register,
    table_meter,
    table_meters,
    unregister,
)
from .spectrum import (
    check_unique_eigenvectors,
    cov_eigs,
    effective_rank,
    entropy_rank,
    gaussian_effective_rank,
    isoscore,
    isoscore_of_spectrum,
    numerical_rank,
    rank_collapse,
)
from .cosines import (
    ROW_CHUNK,
    cosine_terms,
    cross_group_cosines,
    gaussian_uniformity,
    mean_cosine,
    pair_uniformity,
    random_cosines,
    uniformity,
    unit_rows,
)
from .partition import (
    BASES_SEED,
    WHITENED_BASES,
    Isotropy,
    basis_isotropy,
    isotropy_or_range,
    log_partition,
    logsumexp_columns,
    partition_isotropy,
)
from .suite import Meters, all_meters, raw_meters, spectrum_meters
from .tasks import COSINE_DECIMALS, auc, knn_accuracy, labelled_pair_auc, pair_auc, rankable, spearman
from .paraphrase import RESAMPLED, ParaphraseCheck, ParaphraseCosines, paraphrase_check, paraphrase_cosines
from .yardstick import (
    FAILURE_NAMES,
    MeterRow,
    MeterTable,
    calls_isotropic,
    column_widths,
    failures,
    format_value,
    gaussian_meters,
    mark,
    meter_cells,
    meter_table,
    rules_text,
    table_row,
    isotropic_call,
    isotropic_calls,
    wishart_gaussian_meters,
)

__all__ = [
    "all_meters",
    "auc",
    "BASES_SEED",
    "basis_isotropy",
    "calls_isotropic",
    "column_widths",
    "check_unique_eigenvectors",
    "COSINE_DECIMALS",
    "cosine_terms",
    "cov_eigs",
    "cross_group_cosines",
    "declare_meter",
    "effective_rank",
    "entropy_rank",
    "FAILURE_NAMES",
    "failures",
    "format_value",
    "gaussian_effective_rank",
    "gaussian_meters",
    "gaussian_uniformity",
    "isoscore",
    "isoscore_of_spectrum",
    "Isotropy",
    "isotropy_or_range",
    "knn_accuracy",
    "labelled_pair_auc",
    "log_partition",
    "logsumexp_columns",
    "mark",
    "mean_cosine",
    "meter_cells",
    "meter_table",
    "MeterRow",
    "Invariance",
    "Meter",
    "Reads",
    "Rule",
    "Sees",
    "register",
    "raw_meters",
    "spectrum_meters",
    "table_meter",
    "table_meters",
    "unregister",
    "Meters",
    "MeterTable",
    "numerical_rank",
    "pair_auc",
    "pair_uniformity",
    "paraphrase_check",
    "paraphrase_cosines",
    "ParaphraseCheck",
    "ParaphraseCosines",
    "partition_isotropy",
    "random_cosines",
    "rank_collapse",
    "rankable",
    "read",
    "Reading",
    "RESAMPLED",
    "ROW_CHUNK",
    "rules_text",
    "spearman",
    "table_row",
    "uniformity",
    "unit_rows",
    "isotropic_call",
    "isotropic_calls",
    "WHITENED_BASES",
    "wishart_gaussian_meters",
]
