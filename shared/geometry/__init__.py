"""The toy geometry (point clouds and their principal axes).

:mod:`~shared.geometry.clouds`: the course's point clouds (the isotropic reference, the narrow cone,
planted labels); :mod:`~shared.geometry.pca`: principal axes with a fixed sign, and the 2-D
projections the figures draw.
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
from .pca import MeanPlane, PrincipalAxes, eigen_axes, mean_plane, pca_2d, principal_axes, scaled_axes

__all__ = [
    "MeanPlane",
    "PlantedCloud",
    "PrincipalAxes",
    "SphereAndCone",
    "eigen_axes",
    "gaussian_with_spectrum",
    "make_cone",
    "make_isotropic",
    "make_planted",
    "mean_plane",
    "pca_2d",
    "principal_axes",
    "random_rotation",
    "scaled_axes",
    "sphere_and_cone",
]
