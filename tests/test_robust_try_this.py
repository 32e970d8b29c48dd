"""The lessons of the Try-this answers (notebooks/SOLUTIONS.md) hold beyond the explorers' one draw.

The answers read each explorer at its own seed; these properties are what the answers generalise
from them, checked over five seeds and two sizes:

* 01.3: on the way from a blob to a needle, partition isotropy reaches its collapsed end (0) while
  the effective rank and the mean cosine are still far from theirs (1 and +1), and at the needle
  all three are pinned; every reading depends on strength and residual only through their ratio.
* 03.3: sharp attention (beta = 5) leaves a sequence in several separate clusters after 120 layers,
  not one ray, while broad attention (0.6) leaves one point.
* 05.3: halving the amplification rate delays a rank of 1 by less than twice the steps.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.cluster.hierarchy import fcluster, linkage

from shared import (attention_run, cov_eigs, effective_rank, mean_cosine, partition_isotropy, rich_get_richer_run,
                    sphere_and_cone)

SEEDS = range(5)


def readings(strength: float, residual: float, n: int, seed: int) -> tuple[float, float, float]:
    X = sphere_and_cone(strength, residual, n=n, seed=seed).cone
    return partition_isotropy(X), effective_rank(cov_eigs(X)), mean_cosine(X)


@pytest.mark.parametrize("n", [500, 2000])
@pytest.mark.parametrize("seed", SEEDS)
def test_partition_isotropy_collapses_first_and_a_needle_pins_every_meter(seed, n):
    partition, rank, cosine = readings(1.0, 0.1, n, seed)
    assert partition < 0.001 and rank > 25 and cosine < 0.4
    partition, rank, cosine = readings(0.5, 0.1, n, seed)
    assert partition < 0.01 and rank > 40 and cosine < 0.2
    partition, rank, cosine = readings(10.0, 0.01, n, seed)
    assert partition < 0.001 and rank < 1.05 and cosine > 0.999


@pytest.mark.parametrize("seed", SEEDS)
def test_readings_depend_on_strength_and_residual_only_through_their_ratio(seed):
    assert np.allclose(readings(10.0, 0.25, 500, seed), readings(4.0, 0.1, 500, seed), rtol=1e-9, atol=1e-12)


def clusters(X: np.ndarray) -> int:
    return len(set(fcluster(linkage(X, "single"), 0.05, "distance")))


@pytest.mark.parametrize("n", [150, 300])
@pytest.mark.parametrize("seed", SEEDS)
def test_sharp_attention_leaves_several_clusters_broad_attention_one_point(seed, n):
    sharp = attention_run(120, 5.0, 0.09, 0.7, n=n, seed=seed)
    assert clusters(sharp.clouds[120]) >= 3 and sharp.mean_cos[-1] < 0.5
    broad = attention_run(120, 0.6, 0.09, 0.7, n=n, seed=seed)
    assert clusters(broad.clouds[120]) == 1 and broad.mean_cos[-1] > 0.999


@pytest.mark.parametrize("d", [50, 100])
@pytest.mark.parametrize("seed", SEEDS)
def test_halving_the_rate_less_than_doubles_the_steps_to_a_rank_of_one(seed, d):
    def steps(eta: float) -> int:
        history = rich_get_richer_run(eta, 400, 0.05, d=d, seed=seed)
        return next(t for t, lam in enumerate(history) if round(effective_rank(lam), 1) == 1.0)

    fast, slow = steps(0.18), steps(0.09)
    assert fast < slow < 2 * fast
