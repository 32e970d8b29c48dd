"""Notebook 05's optimiser question: does Adam, unlike gradient descent, give trained embeddings an outlier coordinate?

:func:`coordinate_share` is the meter of an outlier coordinate; :func:`optimizer_shares` and
:func:`optimizer_shares_by_length` train notebook 04's model both ways (:class:`OptimizerShares`)
and read it beside its controls.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import _checks
from ..geometry import make_isotropic, random_rotation
from ..meters import cov_eigs, effective_rank
from .degeneration import Optimizer, degeneration_runs


def coordinate_share(X: np.ndarray) -> float:
    r"""The largest coordinate's share of the total variance of the rows of ``X``.

    .. math::  \max_j \operatorname{Var}(x_j) \Big/ \sum_j \operatorname{Var}(x_j)

    :math:`1/d` when every coordinate carries the same variance, 1 when one carries all of it. Unlike
    the covariance's eigenvalues it depends on the basis: it is the meter of an *outlier dimension*,
    a coordinate axis with outsized variance (Kovaleva et al. 2021, arXiv:2105.06990), and a rotation
    of the space changes it.
    """
    X = _checks.cloud(X, min_rows=2)
    if _checks.flat(X):
        raise ValueError("X: every row is the same point (up to rounding), so there is no variance to share")
    var = (X / _checks.power_of_two(X)).var(axis=0)  # scaled exactly, so that no square overflows
    return float(var.max() / var.sum())


@dataclass(frozen=True)
class OptimizerShares:
    """:func:`coordinate_share` of trained embeddings, one value per seed, in each setting.

    ``adam`` and ``gd``: the tied embeddings of notebook 04's language model after ``steps`` steps
    of Adam or of gradient descent; ``rotated``: Adam's embeddings in random rotations of the space
    (the mean share over ``rotations`` of them: the same geometry with no preferred basis);
    ``gaussian``: standard Gaussian clouds of the same size (vocab x d). ``adam_loss`` and
    ``gd_loss``: the loss each run has reached (how far training went); ``adam_rank``, ``gd_rank``
    and ``gaussian_rank``: the :func:`effective_rank` of each cloud's covariance (a rotation leaves
    it unchanged, so it is also the rotated clouds').
    """

    d: int
    steps: int
    seeds: tuple[int, ...]
    adam: np.ndarray
    rotated: np.ndarray
    gd: np.ndarray
    gaussian: np.ndarray
    adam_loss: np.ndarray
    gd_loss: np.ndarray
    adam_rank: np.ndarray
    gd_rank: np.ndarray
    gaussian_rank: np.ndarray


def optimizer_shares(d: int = 8, seeds: tuple[int, ...] = (0, 1, 2, 3, 4), steps: int = 1600,
                     rotations: int = 10, vocab: int = 128) -> OptimizerShares:
    r"""Does Adam give the embeddings an outlier coordinate that gradient descent does not?

    Gradient descent's update is equivariant under a rotation of the embedding space: rotate the
    start, and the run is the rotated run, so no coordinate axis is special. Adam divides each
    coordinate's step by its own running gradient scale, which is not equivariant, so it *could*
    make the coordinate axes special, a privileged basis (Elhage et al. 2023, "Privileged Bases in
    the Transformer Residual Stream", Anthropic Transformer Circuits Thread). This trains
    :func:`degeneration_runs` (Zipf exponent 1, tied) both ways, gradient descent with its step
    0.25 and Adam with 0.003, and measures :func:`coordinate_share` beside its two controls. (At
    0.01 Adam's runs become chaotic: a change of BLAS kernel moves the shares in the fourth digit.)
    """
    steps = _checks.integer(steps, "steps", 1)
    vocab_, d_ = _checks.integer(vocab, "vocab", 2), _checks.integer(d, "d", 2)
    models = 2 * len(_checks.sequence(seeds, "seeds"))  # two optimisers, one model per seed
    _checks.work(("steps", steps), (None, models), ("vocab", vocab_), ("vocab", vocab_), ("d", d_))
    return optimizer_shares_by_length(d, seeds, (steps,), rotations, vocab)[0]


def optimizer_shares_by_length(d: int = 8, seeds: tuple[int, ...] = (0, 1, 2, 3, 4),
                               lengths: tuple[int, ...] = (1600, 3200), rotations: int = 10,
                               vocab: int = 128) -> list[OptimizerShares]:
    r""":func:`optimizer_shares` after each training length in ``lengths``, from one pair of runs
    checkpointed along the way (so the cost is that of the longest length alone)."""
    d = _checks.integer(d, "d", 2)
    rotations = _checks.integer(rotations, "rotations", 1)
    seeds = tuple(_checks.integer(s, f"seeds[{i}]", 0) for i, s in enumerate(_checks.sequence(seeds, "seeds")))
    if not seeds:
        raise ValueError("seeds: expected at least one seed")
    lengths = tuple(_checks.integer(s, f"lengths[{i}]", 1) for i, s in enumerate(_checks.sequence(lengths, "lengths")))
    if not lengths:
        raise ValueError("lengths: expected at least one training length")
    vocab = _checks.integer(vocab, "vocab", 2)
    _checks.work(("lengths", max(lengths)), (None, 2 * len(seeds)), ("vocab", vocab), ("vocab", vocab), ("d", d))
    _checks.work(("rotations", rotations), (None, len(seeds)), ("vocab", vocab), ("d", d), ("d", d))
    trained = {opt: degeneration_runs(1.0, True, lengths, vocab, d, lr=lr, seeds=seeds, optimizer=opt)
               for opt, lr in ((Optimizer.ADAM.value, 0.003), (Optimizer.GD.value, 0.25))}
    gaussians = [make_isotropic(vocab, d, rng=seed) for seed in seeds]
    out = []
    for k, steps in enumerate(lengths):
        adam = [r.emb[k] for r in trained["adam"]]
        gd = [r.emb[k] for r in trained["gd"]]
        rotated = []
        for seed, E in zip(seeds, adam):
            rng = np.random.default_rng([seed, 1])  # rotations of its own per seed, apart from the training draws
            rotated.append(np.mean([coordinate_share(E @ random_rotation(d, rng)) for _ in range(rotations)]))
        out.append(OptimizerShares(
            d, steps, seeds,
            adam=np.array([coordinate_share(E) for E in adam]),
            rotated=np.array(rotated),
            gd=np.array([coordinate_share(E) for E in gd]),
            gaussian=np.array([coordinate_share(G) for G in gaussians]),
            adam_loss=np.array([float(r.loss[k]) for r in trained["adam"]]),
            gd_loss=np.array([float(r.loss[k]) for r in trained["gd"]]),
            adam_rank=np.array([effective_rank(cov_eigs(E)) for E in adam]),
            gd_rank=np.array([effective_rank(cov_eigs(E)) for E in gd]),
            gaussian_rank=np.array([effective_rank(cov_eigs(G)) for G in gaussians]),
        ))
    return out
