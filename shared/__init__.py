"""Toolkit of the Isotropy & Anisotropy course, in layers.

* data: :mod:`~shared.clouds` (the course's point clouds); :mod:`~shared.glove` (GloVe 6B 50d word
  vectors, memory-mapped); :mod:`~shared.encoder` (all-MiniLM-L6-v2 in numpy, and the course corpus);
* meters: :mod:`~shared.meters` (the isotropy meters; and :mod:`~shared.pca`);
  :mod:`~shared.yardstick` (notebook 01's rules, same-size Gaussian baselines and the meter table);
  :mod:`~shared.taskmetrics` (pair AUC, Spearman, kNN accuracy); :mod:`~shared.paraphrase` (the
  paraphrase check and its bootstrap); :mod:`~shared.report` (the meters on any matrix, streamed);
* mechanisms and remedies: :mod:`~shared.mechanisms`, :mod:`~shared.remedies`, and
  :mod:`~shared.realmodel` (notebook 07's measurements of the real model);
* drawings: :mod:`~shared.figures` (one view per figure; needs matplotlib);
* widgets: :mod:`~shared.explorers` (slider panels; needs ipywidgets);
* :mod:`~shared.exercises`: the checks of the exercises.

``import shared`` loads only the data, meter, mechanism and remedy layers (numpy): the real model,
drawings and widgets are imported when used. Importing changes no global state; apply the
course's plot style with :func:`shared.figures.course_style`.
"""

from .clouds import (
    PlantedCloud,
    SphereAndCone,
    gaussian_with_spectrum,
    make_cone,
    make_isotropic,
    make_planted,
    random_rotation,
    sphere_and_cone,
)
from .glove import glove_matrix, glove_vectors
from .mechanisms import (
    FREQUENCY_BANDS,
    AttentionRun,
    BandCosines,
    DegenerationRun,
    SequencesRun,
    angular_std,
    attention_run,
    attention_sequences,
    attention_step,
    band_cosines,
    band_rows,
    bigram_language,
    degeneration_run,
    frequency_pull,
    logit_gradient,
    rich_get_richer_run,
    rich_get_richer_step,
    softmax_rows,
    zipf_frequencies,
)
from .meters import (
    METERS,
    Meters,
    Reading,
    all_meters,
    basis_isotropy,
    cosine_terms,
    cov_eigs,
    cross_group_cosines,
    effective_rank,
    entropy_rank,
    gaussian_effective_rank,
    isoscore,
    mean_cosine,
    numerical_rank,
    partition_isotropy,
    random_cosines,
    rank_collapse,
    read,
    uniformity,
)
from .paraphrase import ParaphraseCheck, ParaphraseCosines, paraphrase_check, paraphrase_cosines
from .taskmetrics import knn_accuracy, pair_auc, spearman
from .yardstick import ISOTROPIC_IF, MeterRow, MeterTable, calls_isotropic, meter_table
from .pca import PrincipalAxes, pca_2d, principal_axes
from .remedies import RemedyCurve, Sweep, all_but_the_top, standardize, sweep_remedies, zca_whiten
from .report import IsotropyReport, isotropy_report

__all__ = [
    "AttentionRun",
    "BandCosines",
    "DegenerationRun",
    "FREQUENCY_BANDS",
    "SequencesRun",
    "attention_sequences",
    "band_cosines",
    "band_rows",
    "bigram_language",
    "degeneration_run",
    "logit_gradient",
    "ISOTROPIC_IF",
    "METERS",
    "MeterRow",
    "MeterTable",
    "Meters",
    "ParaphraseCheck",
    "ParaphraseCosines",
    "PlantedCloud",
    "PrincipalAxes",
    "Reading",
    "RemedyCurve",
    "SphereAndCone",
    "Sweep",
    "all_but_the_top",
    "all_meters",
    "angular_std",
    "attention_run",
    "attention_step",
    "basis_isotropy",
    "calls_isotropic",
    "cosine_terms",
    "cov_eigs",
    "cross_group_cosines",
    "effective_rank",
    "entropy_rank",
    "frequency_pull",
    "gaussian_effective_rank",
    "gaussian_with_spectrum",
    "glove_matrix",
    "glove_vectors",
    "isoscore",
    "knn_accuracy",
    "make_cone",
    "make_isotropic",
    "make_planted",
    "mean_cosine",
    "meter_table",
    "numerical_rank",
    "pair_auc",
    "paraphrase_check",
    "paraphrase_cosines",
    "partition_isotropy",
    "pca_2d",
    "principal_axes",
    "random_cosines",
    "random_rotation",
    "rank_collapse",
    "read",
    "rich_get_richer_run",
    "rich_get_richer_step",
    "softmax_rows",
    "sphere_and_cone",
    "spearman",
    "standardize",
    "sweep_remedies",
    "uniformity",
    "zca_whiten",
    "zipf_frequencies",
    "IsotropyReport",
    "isotropy_report",
]
