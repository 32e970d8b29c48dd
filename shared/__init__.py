"""Toolkit of the Isotropy & Anisotropy course, in layers.

* data: :mod:`~shared.clouds` (the course's point clouds); :mod:`~shared.encoder` (all-MiniLM-L6-v2
  in numpy, and the course corpus);
* meters: :mod:`~shared.meters` (and :mod:`~shared.pca`);
* mechanisms and remedies: :mod:`~shared.mechanisms`, :mod:`~shared.remedies`, and
  :mod:`~shared.realmodel` (notebook 07's measurements of the real model);
* drawings: :mod:`~shared.figures` (one view per figure; needs matplotlib);
* widgets: :mod:`~shared.explorers` (slider panels; needs ipywidgets);
* :mod:`~shared.exercises`: the checks of the exercises.

``import shared`` loads only the data, meter, mechanism and remedy layers (numpy): the real model,
drawings and widgets are imported when used. Importing changes no global state; apply the
course's plot style with :func:`shared.figures.course_style`.
"""

from .clouds import PlantedCloud, SphereAndCone, make_cone, make_isotropic, make_planted, random_rotation, sphere_and_cone
from .mechanisms import (
    AttentionRun,
    angular_std,
    attention_run,
    attention_step,
    frequency_pull,
    rich_get_richer_run,
    rich_get_richer_step,
    softmax_rows,
    zipf_frequencies,
)
from .meters import (
    ISOTROPIC_IF,
    METERS,
    MeterRow,
    Meters,
    MeterTable,
    ParaphraseCheck,
    ParaphraseCosines,
    Reading,
    all_meters,
    basis_isotropy,
    cosine_terms,
    cov_eigs,
    cross_group_cosines,
    effective_rank,
    entropy_rank,
    isoscore,
    knn_accuracy,
    mean_cosine,
    meter_table,
    numerical_rank,
    pair_auc,
    paraphrase_check,
    paraphrase_cosines,
    partition_isotropy,
    random_cosines,
    rank_collapse,
    read,
    spearman,
    uniformity,
)
from .pca import PrincipalAxes, pca_2d, principal_axes
from .remedies import RemedyCurve, Sweep, all_but_the_top, standardize, sweep_remedies, zca_whiten

__all__ = [
    "AttentionRun",
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
    "cosine_terms",
    "cov_eigs",
    "cross_group_cosines",
    "effective_rank",
    "entropy_rank",
    "frequency_pull",
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
]
