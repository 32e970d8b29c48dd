"""Representation degeneration: a tiny language model trained by likelihood on notebook 04's language.

:func:`degeneration_run`, :func:`degeneration_runs` and :func:`degeneration_grid` train it (by
gradient descent or a hand-written Adam) and keep snapshots; :func:`band_cosines` reads the cone of
each frequency band; :func:`cone_lifetime` measures how the rare cone grows and fades, and
:func:`stored_cone_lifetimes` reads notebook 04's grid of it from ``shared/data/cone_lifetimes.json``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import _checks
from ..meters import mean_cosine
from .frequency import FREQUENCY_BANDS, band_rows, bigram_language, lm_gradients_unchecked


#: The largest corpus a multinomial draw can count (numpy's counts are int64).
class Optimizer(_checks.Choice):
    """How :func:`degeneration_run` steps: plain gradient descent, or Adam (Kingma & Ba 2015)."""

    GD = "gd"
    ADAM = "adam"


CORPUS_MAX = np.iinfo(np.int64).max

#: The training steps at which :func:`degeneration_run` (and its batched forms) keep a snapshot by
#: default; training stops at the last. Their other defaults agree too (a test keeps them so).
CHECKPOINTS = (0, 50, 100, 200, 400, 800, 1600)

#: Adam's decay rates of the running moments, and the constant that keeps its division finite
#: (the defaults of Kingma & Ba 2015).
ADAM_BETAS = (0.9, 0.999)
ADAM_EPS = 1e-8


@dataclass(frozen=True)
class DegenerationRun:
    r"""Snapshots of a :func:`degeneration_run`; rows in order of frequency rank (row 0 most frequent).

    ``emb[k]`` is the input embedding matrix after ``steps[k]`` updates and ``loss[k]`` the loss
    being minimised there (the exact expected loss, or with ``corpus`` the loss on that corpus);
    ``out[k]`` the output matrix (equal to ``emb[k]`` when ``tied``). ``freq`` is how often each
    token is a target in the language, and ``hbar[k]`` the average context state
    :math:`\bar h = \sum_c p_c h_c`, the direction every output row is pushed away from.
    ``seen[w]`` says whether token ``w`` is ever a target of the loss trained on: always with the
    exact loss, only if the corpus holds it otherwise.
    """

    exponent: float
    tied: bool
    freq: np.ndarray
    steps: np.ndarray
    emb: np.ndarray
    out: np.ndarray
    loss: np.ndarray
    hbar: np.ndarray
    seed: int = 0
    corpus: int | None = None
    seen: np.ndarray | None = None

    def at(self, step: int) -> int:
        """Position of ``step`` among the snapshots (a ``ValueError`` if none was taken there)."""
        hits = np.flatnonzero(self.steps == step)
        if hits.size == 0:
            raise ValueError(f"step: no snapshot at step {step}; snapshots were taken at {self.steps.tolist()}")
        return int(hits[0])


def degeneration_run(
    exponent: float = 1.0,
    tied: bool = True,
    checkpoints: tuple[int, ...] = CHECKPOINTS,
    vocab: int = 128,
    d: int = 8,
    rho: float = 0.5,
    lr: float = 0.25,
    init_scale: float = 0.05,
    seed: int = 0,
    corpus: int | None = None,
    optimizer: Optimizer | str = "gd",
) -> DegenerationRun:
    r"""Train a one-token-context language model by plain gradient descent on its expected loss.

    The model of :func:`~shared.mechanisms.frequency.lm_gradients` on the language of :func:`bigram_language`. By default every
    step uses the exact expected loss (an infinite corpus: every token is a target with its true
    probability, however small), so the run depends only on ``seed``, which draws the start: ``E``
    (and an untied ``E_out``) :math:`\sim \mathcal N(0, \text{init\_scale}^2)` entry-wise, ``A``
    :math:`\sim \mathcal N(0, 1/d)`, ``b = 0``. With ``corpus`` = ``N``, the same ``seed`` then
    draws ``N`` (context, target) pairs from the language, and the model is trained on their
    empirical distribution instead: tokens the corpus never shows as a target get only the push
    of the softmax gradient, never a pull, the regime of Gao et al.'s argument (large vocabularies,
    finite corpora). With ``tied`` the softmax layer *is* ``E``, as in the models of Gao et al.
    (2019, arXiv:1907.12009), so ``E`` receives both gradients. Each step:
    :math:`\theta \leftarrow \theta - \text{lr}\,\nabla_\theta L`; snapshots at the steps in
    ``checkpoints``, and training stops at the last. The step size 0.25 keeps training away from
    the edge of stability for Zipf exponents up to 2, so rounding differences between BLAS
    builds stay near 1e-14 instead of growing.

    ``optimizer="adam"`` replaces the step by Adam's (Kingma & Ba 2015, arXiv:1412.6980; pass a
    smaller ``lr``, such as 0.003): each coordinate of each parameter is divided by the root of its
    own running second moment, a step that, unlike gradient descent's, is not equivariant under a
    rotation of the embedding space (the "privileged basis" of Elhage et al. 2023).
    """
    seed = _checks.integer(seed, "seed", 0)
    return degeneration_runs(exponent, tied, checkpoints, vocab, d, rho, lr, init_scale, (seed,), corpus, optimizer)[0]


def degeneration_runs(
    exponent: float = 1.0,
    tied: bool = True,
    checkpoints: tuple[int, ...] = CHECKPOINTS,
    vocab: int = 128,
    d: int = 8,
    rho: float = 0.5,
    lr: float = 0.25,
    init_scale: float = 0.05,
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4),
    corpus: int | None = None,
    optimizer: Optimizer | str = "gd",
) -> list[DegenerationRun]:
    """:func:`degeneration_run` for several seeds at once, one run per seed, trained side by side as
    one stack of models (each run equals :func:`degeneration_run` with its seed up to rounding)."""
    exponent = _checks.real(exponent, "exponent", 0.0)
    if corpus is not None:
        corpus = _checks.integer(corpus, "corpus", 1, CORPUS_MAX, why="a corpus needs at least one (context, target) pair")
    seeds = _checks.sequence(seeds, "seeds")
    grid = degeneration_grid((exponent,), seeds, (corpus,), tied, checkpoints, vocab, d, rho, lr, init_scale, optimizer)
    return list(grid.values())


def degeneration_grid(
    exponents: Sequence[float] = (1.0,),
    seeds: Sequence[int] = (0,),
    corpora: Sequence[int | None] = (None,),
    tied: bool = True,
    checkpoints: tuple[int, ...] = CHECKPOINTS,
    vocab: int = 128,
    d: int = 8,
    rho: float = 0.5,
    lr: float = 0.25,
    init_scale: float = 0.05,
    optimizer: Optimizer | str = "gd",
) -> dict[tuple[float, int, int | None], DegenerationRun]:
    """:func:`degeneration_run` for every combination of a Zipf exponent, a seed and a corpus (``None``:
    the exact loss), keyed by ``(exponent, seed, corpus)`` in that order. All of them are trained
    side by side as one stack of models, which costs little more than one run; each equals
    :func:`degeneration_run` with its settings up to rounding."""
    exponents = [_checks.real(e, f"exponents[{i}]", 0.0) for i, e in enumerate(_checks.sequence(exponents, "exponents"))]
    seeds = [_checks.integer(s, f"seeds[{i}]", 0) for i, s in enumerate(_checks.sequence(seeds, "seeds"))]
    corpora = [None if c is None else _checks.integer(c, f"corpora[{i}]", 1, CORPUS_MAX,
                                                        why="a corpus needs at least one (context, target) pair")
               for i, c in enumerate(_checks.sequence(corpora, "corpora"))]
    for name, values in (("exponents", exponents), ("seeds", seeds), ("corpora", corpora)):
        if not values:
            raise ValueError(f"{name}: expected at least one value")
        if len(set(values)) != len(values):
            raise ValueError(f"{name}: expected distinct values, got {values}")
    tied = _checks.flag(tied, "tied")
    d = _checks.integer(d, "d", 1)
    lr = _checks.real(lr, "lr", 0.0)
    init_scale = _checks.real(init_scale, "init_scale", 0.0)
    checkpoints = [_checks.integer(t, f"checkpoints[{i}]", 0) for i, t in enumerate(_checks.sequence(checkpoints, "checkpoints"))]
    if not checkpoints or checkpoints != sorted(set(checkpoints)):
        raise ValueError(f"checkpoints: expected increasing steps, got {checkpoints}")
    vocab = _checks.integer(vocab, "vocab", 2)
    models = len(exponents) * len(seeds) * len(corpora)
    _checks.allocation(("vocab", vocab), ("d", d), (None, models), (None, 4 * len(checkpoints)))  # the snapshots
    _checks.work(("checkpoints", checkpoints[-1]), (None, models), ("vocab", vocab), ("vocab", vocab), ("d", d))
    optimizer = _checks.one_of(optimizer, Optimizer, "optimizer")
    languages = {exponent: bigram_language(vocab, exponent, rho) for exponent in exponents}
    keys = [(exponent, seed, corpus) for exponent in exponents for seed in seeds for corpus in corpora]
    Es, Eouts, As, Ps = [], [], [], []
    for exponent, seed, corpus in keys:
        P = languages[exponent]
        rng = _checks.as_rng(seed, "seed")
        E = init_scale * rng.standard_normal((vocab, d))
        Es.append(E)
        Eouts.append(E if tied else init_scale * rng.standard_normal((vocab, d)))
        As.append(rng.standard_normal((d, d)) / np.sqrt(d))
        Ps.append(P if corpus is None else rng.multinomial(corpus, P.ravel()).reshape(P.shape) / corpus)
    E, A, P_train = np.array(Es), np.array(As), np.array(Ps)
    E_out = E if tied else np.array(Eouts)
    b = np.zeros((len(keys), d))
    p_c = P_train.sum(axis=-1)
    snaps: list[tuple] = []
    moments: dict[int, list[np.ndarray]] = {}  # Adam's running first and second moments, by parameter
    t = 0

    def step_of(k: int, grad: np.ndarray) -> np.ndarray:
        """The update direction of parameter ``k``: the gradient itself, or Adam's normalised one."""
        if optimizer is Optimizer.GD:
            return grad
        m, v = moments.setdefault(k, [np.zeros_like(grad), np.zeros_like(grad)])
        m += (1 - ADAM_BETAS[0]) * (grad - m)
        v += (1 - ADAM_BETAS[1]) * (grad * grad - v)
        return (m / (1 - ADAM_BETAS[0] ** t)) / (np.sqrt(v / (1 - ADAM_BETAS[1] ** t)) + ADAM_EPS)

    wanted = set(checkpoints)
    for step in range(checkpoints[-1] + 1):
        t = step + 1
        g = lm_gradients_unchecked(E, A, b, E_out, P_train, with_loss=step in wanted, p_c=p_c)
        if step in wanted:
            hbar = np.einsum("sc,scd->sd", p_c, np.tanh(E @ A + b[:, None, :]))
            snaps.append((E.copy(), E_out.copy(), g.loss, hbar))
        if step == checkpoints[-1]:
            break
        if tied:
            E -= lr * step_of(0, g.emb + g.out)  # E_out is E: both gradients land on it
        else:
            E -= lr * step_of(0, g.emb)
            E_out -= lr * step_of(3, g.out)
        A -= lr * step_of(1, g.A)
        b -= lr * step_of(2, g.b)
    emb, out, loss, hbar = (np.array(column) for column in zip(*snaps))  # axes: checkpoint, model, ...
    return {key: DegenerationRun(key[0], bool(tied), languages[key[0]].sum(axis=0), np.array(checkpoints),
                                 emb[:, i], out[:, i], loss[:, i], hbar[:, i], key[1], key[2],
                                 P_train[i].sum(axis=0) > 0)
            for i, key in enumerate(keys)}


@dataclass(frozen=True)
class BandCosines:
    """Exact mean cosine within each frequency band, and over the whole vocabulary, at each step."""

    steps: np.ndarray
    frequent: np.ndarray
    middle: np.ndarray
    rare: np.ndarray
    overall: np.ndarray


def band_cosines(run: DegenerationRun, output: bool = False) -> BandCosines:
    """:func:`~shared.meters.mean_cosine` within each band of ``run.emb`` (``output``: of ``run.out``) at each step."""
    _checks.instance(run, DegenerationRun, "run")
    snaps = run.out if _checks.flag(output, "output") else run.emb
    vocab = snaps.shape[1]
    if min(len(band_rows(vocab, band)) for band in FREQUENCY_BANDS) < 2:
        raise ValueError(f"run: a vocabulary of {vocab} tokens leaves a frequency band with fewer than two tokens, "
                         "so no mean cosine within it; train with vocab >= 15")
    per = {band: np.array([mean_cosine(X[band_rows(vocab, band)]) for X in snaps]) for band in FREQUENCY_BANDS}
    return BandCosines(run.steps, per["frequent"], per["middle"], per["rare"], np.array([mean_cosine(X) for X in snaps]))


#: Training times (learning rate x steps) at which :func:`cone_lifetime` measures the cone: gradient
#: descent with a smaller step follows nearly the same path, more slowly, so runs with different
#: steps are compared at equal learning rate x steps.
LIFETIME_TIMES = (50, 100, 200, 400, 800, 1600, 3200, 6400)


@dataclass(frozen=True)
class ConeLifetime:
    """How the rare cone of notebook 04's tied model grows and fades, at one setting.

    ``values[i, j]`` is the mean cosine after training time ``times[i]`` (learning rate x steps) in
    seed ``seeds[j]``: of the rare half of the vocabulary under the exact loss (``corpus`` is None),
    or of the tokens never a target in a corpus of ``corpus`` pairs (notebook 04's two regimes).
    """

    vocab: int
    d: int
    lr: float
    corpus: int | None
    seeds: tuple[int, ...]
    times: np.ndarray
    values: np.ndarray

    def to_record(self) -> dict:
        return {"vocab": self.vocab, "d": self.d, "lr": self.lr, "corpus": self.corpus, "seeds": list(self.seeds),
                "times": self.times.tolist(), "values": self.values.tolist()}


def cone_lifetime(vocab: int = 128, d: int = 8, lr: float = 0.25, times: Sequence[float] = LIFETIME_TIMES,
                  seeds: Sequence[int] = (0, 1, 2), corpus: int | None = None) -> ConeLifetime:
    """Train :func:`degeneration_runs` (Zipf exponent 1, tied) to each training time in ``times``
    (``lr`` x steps; each time must be a whole number of steps) and measure the cone there: the rare
    half's mean cosine under the exact loss, or with ``corpus`` that of the tokens the corpus never
    shows as a target. A vocabulary of 384 trained to time 6,400 takes about a minute per regime;
    :func:`stored_cone_lifetimes` holds notebook 04's grid."""
    lr = _checks.real(lr, "lr", 0.0)
    if not lr > 0:
        raise ValueError("lr: expected a positive learning rate, got 0")
    times = [_checks.real(t, f"times[{i}]", 0.0) for i, t in enumerate(_checks.sequence(times, "times"))]
    if not times or times != sorted(set(times)):
        raise ValueError(f"times: expected increasing training times, got {times}")
    steps = [round(t / lr) for t in times]
    if any(abs(step * lr - t) > 1e-9 * max(t, 1.0) for step, t in zip(steps, times)):
        raise ValueError(f"times: each training time must be a whole number of steps of {lr}, got {times}")
    seeds = tuple(_checks.integer(s, f"seeds[{i}]", 0) for i, s in enumerate(_checks.sequence(seeds, "seeds")))
    runs = degeneration_runs(1.0, True, tuple(steps), vocab, d, lr=lr, seeds=seeds, corpus=corpus)
    rare = band_rows(vocab, "rare")
    if corpus is None:
        values = [[mean_cosine(E[rare]) for E in run.emb] for run in runs]
    else:
        if min(int((~run.seen).sum()) for run in runs) < 2:
            raise ValueError(f"corpus: in some seed fewer than two tokens are never a target of {corpus} pairs, "
                             "so they have no mean cosine; use a smaller corpus")
        values = [[mean_cosine(E[~run.seen]) for E in run.emb] for run in runs]
    return ConeLifetime(int(vocab), int(d), float(lr), corpus, seeds, np.array(times, dtype=float),
                        np.array(values).T)


#: Notebook 04's grid of :func:`cone_lifetime` settings, ``(vocab, d, lr, corpus, last time)``: the
#: notebook's model, a smaller step, larger vocabularies, wider models, and the finite-corpus regime
#: (a corpus of 1,000 pairs per 128 tokens).
CONE_LIFETIME_GRID = ((128, 8, 0.25, None, 6400), (128, 8, 0.05, None, 1600), (256, 8, 0.25, None, 6400),
                      (384, 8, 0.25, None, 6400), (128, 16, 0.25, None, 6400), (128, 32, 0.25, None, 6400),
                      (128, 8, 0.25, 1000, 6400), (384, 8, 0.25, 3000, 6400))
CONE_LIFETIME_FILE = Path(__file__).resolve().parents[1] / "data" / "cone_lifetimes.json"


def cone_lifetime_grid() -> list[ConeLifetime]:
    """:func:`cone_lifetime` at every setting of :data:`CONE_LIFETIME_GRID` (about five minutes on one core)."""
    return [cone_lifetime(vocab, d, lr, [t for t in LIFETIME_TIMES if t <= last], corpus=corpus)
            for vocab, d, lr, corpus, last in CONE_LIFETIME_GRID]


def stored_cone_lifetimes() -> list[ConeLifetime]:
    """:func:`cone_lifetime_grid` as computed once and stored in ``shared/data/cone_lifetimes.json``
    (the test suite recomputes it), so that notebook 04 can print it in a fraction of a second. Rewrite
    the file with ``json.dump([g.to_record() for g in cone_lifetime_grid()], ...)``."""
    records = json.loads(CONE_LIFETIME_FILE.read_text(encoding="utf-8"))
    return [ConeLifetime(r["vocab"], r["d"], r["lr"], r["corpus"], tuple(r["seeds"]), np.array(r["times"], dtype=float),
                         np.array(r["values"], dtype=float)) for r in records]
