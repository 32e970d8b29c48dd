"""Toolkit of the Isotropy & Anisotropy course: clouds, meters, remedies, mechanisms, figures.

The real Transformer of notebook 07 lives in two submodules that are imported only when used:
:mod:`shared.encoder` (all-MiniLM-L6-v2 in numpy, and the course corpus) and
:mod:`shared.realmodel` (the notebook's measurements).

Importing it changes no global state; apply the course's plot style with :func:`course_style`.
"""

from .clouds import PlantedCloud, make_cone, make_isotropic, make_planted, random_rotation, sphere_and_cone
from .mechanisms import (
    AttentionRun,
    angular_spread,
    attention_run,
    attention_step,
    frequency_pull,
    frequency_run,
    rich_get_richer_run,
    rich_get_richer_step,
    softmax_rows,
    zipf_frequencies,
)
from .meters import (
    all_meters,
    basis_isotropy,
    cosine_terms,
    cov_eigs,
    cross_group_cosines,
    effective_rank,
    entropy_rank,
    isoscore,
    knn_accuracy,
    numerical_rank,
    pair_auc,
    paraphrase_check,
    paraphrase_cosines,
    partition_isotropy,
    random_cosines,
    rank_collapse,
    spearman,
    uniformity,
)
from .pca import pca_2d, principal_axes
from .remedies import all_but_the_top, standardize, sweep_remedies, zca_whiten
from .report import IsotropyReport, isotropy_report

__all__ = [
    "PlantedCloud",
    "knn_accuracy",
    "numerical_rank",
    "make_planted",
    "pair_auc",
    "sweep_remedies",
    "all_meters",
    "basis_isotropy",
    "AttentionRun",
    "all_but_the_top",
    "angular_spread",
    "attention_run",
    "attention_step",
    "cosine_terms",
    "cov_eigs",
    "cross_group_cosines",
    "paraphrase_check",
    "paraphrase_cosines",
    "rank_collapse",
    "spearman",
    "effective_rank",
    "entropy_rank",
    "frequency_pull",
    "frequency_run",
    "isoscore",
    "make_cone",
    "make_isotropic",
    "partition_isotropy",
    "pca_2d",
    "principal_axes",
    "random_cosines",
    "random_rotation",
    "rich_get_richer_run",
    "rich_get_richer_step",
    "softmax_rows",
    "sphere_and_cone",
    "standardize",
    "uniformity",
    "zca_whiten",
    "zipf_frequencies",
    "IsotropyReport",
    "isotropy_report",
]
