"""Post-processing that pulls a cone back toward a sphere: centring, all-but-the-top, whitening.

* :mod:`~shared.remedies.transforms`: the remedies themselves: :class:`FittedRemedies`, where they
  are computed (fitted on one cloud, applied to any points), and the functions of the same names
  that fit it on their ``fit`` and apply it;
* :mod:`~shared.remedies.choice`: choosing a remedy and its setting on held-out data (sweeps, the
  label-variance ratio, a choice scored on a separate split).
"""

from .transforms import (
    FittedRemedies,
    all_but_the_top,
    all_but_the_top_as_written,
    ledoit_wolf,
    shrunk_whiten,
    standardize,
    zca_whiten,
)
from .choice import (
    SweptRemedy,
    KNN_K,
    RemedyChoice,
    RemedyCurve,
    Sweep,
    choose_remedy,
    label_variance_ratio,
    peak_label_variance_ratio,
    sweep_remedies,
)

__all__ = [
    "SweptRemedy",
    "KNN_K",
    "FittedRemedies",
    "RemedyChoice",
    "RemedyCurve",
    "Sweep",
    "all_but_the_top",
    "all_but_the_top_as_written",
    "choose_remedy",
    "label_variance_ratio",
    "ledoit_wolf",
    "peak_label_variance_ratio",
    "shrunk_whiten",
    "standardize",
    "sweep_remedies",
    "zca_whiten",
]
