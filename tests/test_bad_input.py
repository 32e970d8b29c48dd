"""Bad and extreme input, generated: every public function answers right or refuses by name.

Masked arrays, sizes that cannot be allocated or runs that would not end, magnitudes from
subnormal to near the float64 limit, zero rows, another number of columns. Every test turns a
warning into an error, so no RuntimeWarning (overflow, invalid value) escapes a public function.
The registry of public functions and the judge of a call are those of :mod:`tests.test_fuzz`;
the generated fuzz over the whole registry is marked ``exhaustive``.
"""

from __future__ import annotations

import inspect
import signal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import shared
from shared import _checks
from tests import test_fuzz as fuzz

pytestmark = pytest.mark.filterwarnings("error")

seeds = st.integers(0, 2**32 - 1)
huge = st.integers(10**13, 10**40)

#: Argument roles that hold an array the caller passes.
ARRAY_ROLES = {"cloud", "report source", "tokens", "token scores", "scores", "spectrum", "vector", "labels", "pairs",
               "directions"}
#: Entries that load a real model or train for long: generated fuzz of them is exhaustive only.
#: ("degeneration_": the training functions, not the rest of shared.mechanisms.degeneration.)
SLOW = ("encoder", "real.corpus", "real.frequency", "real.negatives", "glove_matrix", "glove_vectors", "glove_words",
        "word_pairs", "degeneration_", "optimizer_shares", "band_cosines", "explorers")


def _fast(entry: fuzz.Entry) -> bool:
    return not any(word in f"{getattr(entry.fn, '__module__', '')}.{entry.id}" for word in SLOW)


def _array_arguments(entries: list[fuzz.Entry]) -> list[tuple[fuzz.Entry, str]]:
    return [(e, name) for e in entries for name, role in e.roles.items()
            if role in ARRAY_ROLES and name not in e.defaults]


FAST = [e for e in fuzz.REGISTRY if _fast(e)]


def _ids(cases: list[tuple]) -> list[str]:
    return [f"{case[0].id}-{case[1]}" for case in cases]


class _Hang(Exception):
    pass


def _within(seconds: int, call):
    """``call()``, failing the test if it runs longer than ``seconds`` (a refusal must be immediate)."""

    def stop(*_):
        raise _Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        return call()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _cloud(seed: int, n: int = 30, d: int = 4, shift: float = 1.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)) * np.linspace(2.0, 0.5, d) + shift


# ----- masked arrays: one check, at every array argument -------------------------------------------


MASKED = _array_arguments(FAST)


@pytest.mark.parametrize("entry, name", MASKED, ids=_ids(MASKED))
@settings(max_examples=3, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_masked_entry_is_refused_by_the_argument_s_name(entry, name, data):
    args = entry.build()
    plain = np.asarray(args[name])
    mask = data.draw(arrays(bool, plain.shape).filter(np.any), label="mask")
    args[name] = np.ma.masked_array(plain, mask=mask)
    with pytest.raises(ValueError, match=rf"^{name}: is a masked array with {int(mask.sum()):,} masked entries"):
        entry.fn(**args)


@pytest.mark.parametrize("entry, name", MASKED, ids=_ids(MASKED))
def test_a_masked_array_with_nothing_masked_is_its_data(entry, name):
    outcome = fuzz.run_case(entry, (name,), fuzz.Variant("masked, none masked", np.ma.masked_array, fuzz.SAME,
                                                         ref=lambda a: a))
    assert outcome.ok, outcome.detail


def test_mean_cosine_of_a_masked_cloud_is_not_the_hidden_values():
    X = _cloud(0)
    with pytest.raises(ValueError, match="X: is a masked array with 1 masked entries"):
        shared.mean_cosine(np.ma.masked_array(X, mask=np.eye(*X.shape, dtype=bool) & (np.arange(4) == 0)))


# ----- sizes that cannot be allocated, runs that would not end ---------------------------------------

X = _cloud(1, 40, 5)
SIZES = {
    "make_isotropic n": (lambda v: shared.make_isotropic(v, 3, 0), "n"),
    "make_isotropic d": (lambda v: shared.make_isotropic(3, v, 0), "d"),
    "make_cone n": (lambda v: shared.make_cone(v, 3, 0), "n"),
    "random_rotation d": (lambda v: shared.random_rotation(v, 0), "d"),
    "sphere_and_cone n": (lambda v: shared.sphere_and_cone(n=v), "n"),
    "make_planted n": (lambda v: shared.make_planted(v, 6, 0), "n"),
    "make_planted d": (lambda v: shared.make_planted(10, v, 0), "d"),
    "make_planted classes": (lambda v: shared.make_planted(10, 6, 0, classes=v), "classes"),
    "gaussian_with_spectrum n": (lambda v: shared.gaussian_with_spectrum(v, [1.0, 2.0], 0), "n"),
    "random_cosines m": (lambda v: shared.random_cosines(X, 0, m=v), "m"),
    "cosine_terms m": (lambda v: shared.cosine_terms(X, 0, m=v), "m"),
    "pair_auc m": (lambda v: shared.pair_auc(X, np.arange(40) % 3, 0, m=v), "m"),
    "basis_isotropy bases": (lambda v: shared.basis_isotropy(X, 0, bases=v), "bases"),
    "zipf_frequencies vocab": (lambda v: shared.zipf_frequencies(v), "vocab"),
    "bigram_language vocab": (lambda v: shared.bigram_language(v, 1.0), "vocab"),
    "band_rows vocab": (lambda v: shared.band_rows(v, "rare"), "vocab"),
    "sinusoidal_positions n": (lambda v: shared.sinusoidal_positions(v, 4), "n"),
    "sinusoidal_positions d": (lambda v: shared.sinusoidal_positions(4, v), "d"),
    "attention_run n": (lambda v: shared.attention_run(1, n=v), "n"),
    "attention_run depth": (lambda v: shared.attention_run(v, n=5), "depth"),
    "AttentionRun.extend depth": (lambda v: shared.attention_run(1, n=5).extend(v), "depth"),
    "attention_sequences depth": (lambda v: shared.attention_sequences(2, v, n=2, d=2), "depth"),
    "rich_get_richer_run steps": (lambda v: shared.rich_get_richer_run(steps=v, d=3), "steps"),
    "rich_get_richer_vectors steps": (lambda v: shared.rich_get_richer_vectors(X, steps=v), "steps"),
    "degeneration_run checkpoints": (lambda v: shared.degeneration_run(checkpoints=(0, v), vocab=4, d=2), "checkpoints"),
    "optimizer_shares steps": (lambda v: shared.optimizer_shares(d=2, seeds=(0,), steps=v, vocab=4), "steps"),
    "optimizer_shares rotations": (lambda v: shared.optimizer_shares(d=2, seeds=(0,), steps=1, rotations=v, vocab=4),
                                   "rotations"),
    "paraphrase_check resamples": (lambda v: shared.paraphrase_check(_cloud(2, 8), np.arange(8).reshape(4, 2), rng=0,
                                                                     resamples=v), "resamples"),
}


@pytest.mark.parametrize("case", list(SIZES))
@settings(max_examples=5)
@given(value=huge)
def test_a_size_that_cannot_be_allocated_or_run_is_refused_at_once_by_name(case, value):
    call, name = SIZES[case]
    with pytest.raises(ValueError, match=rf"^{name}: .*(too large|must lie in)"):
        _within(20, lambda: call(value))


@given(st.integers(1, 10**6), st.integers(1, 10**6))
def test_the_size_check_refuses_exactly_what_exceeds_the_memory(n, d):
    fits = n * d * 8 <= _checks.memory_bytes()
    if fits:
        _checks.allocation(("n", n), ("d", d))
    else:
        with pytest.raises(ValueError, match=f"^{'n' if n >= d else 'd'}: "):
            _checks.allocation(("n", n), ("d", d))


# ----- gaussian_with_spectrum keeps the variances asked for -----------------------------------------


@given(seeds, arrays(float, st.integers(1, 6), elements=st.one_of(st.just(0.0), st.floats(1e-3, 10.0)))
       .filter(lambda v: v.max() > 0), st.integers(-200, 200))
def test_gaussian_with_spectrum_scales_with_its_variances(seed, variances, k):
    """Variances times 4**k give the same draw times 2**k, exactly: the variances are used as given."""
    base = shared.gaussian_with_spectrum(5, variances, seed)
    scaled = shared.gaussian_with_spectrum(5, np.ldexp(variances, 2 * k), seed)
    assert np.array_equal(scaled, np.ldexp(base, k))


@pytest.mark.parametrize("variances", [[4.0, 1.0], [100.0, 50.0, 1.0], [3e-8, 1e-8], [2e40, 1e40, 5e39]])
def test_gaussian_with_spectrum_has_the_covariance_asked_for(variances):
    eigs = shared.cov_eigs(shared.gaussian_with_spectrum(40_000, np.array(variances), 3))
    np.testing.assert_allclose(eigs, sorted(variances, reverse=True), rtol=0.04)


# ----- zero rows: one rule -----------------------------------------------------------------------


@st.composite
def with_zero_rows(draw):
    """A cloud with 2 or more non-zero rows and some zero rows among them, and which rows are zero."""
    seed, n, d = draw(seeds), draw(st.integers(3, 40)), draw(st.integers(2, 5))
    X = _cloud(seed, n, d, shift=draw(st.floats(-2.0, 2.0)))
    zero = np.zeros(n, dtype=bool)
    zero[draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=n - 2))] = True
    X[zero] = 0.0
    return X, zero


@given(with_zero_rows(), seeds)
def test_functions_of_directions_leave_zero_rows_out_as_if_removed(cloud, seed):
    X, zero = cloud
    Y = X[~zero]
    labels = np.arange(len(X)) % 2
    assert shared.mean_cosine(X) == shared.mean_cosine(Y)
    assert shared.uniformity(X) == shared.uniformity(Y)
    assert np.array_equal(shared.random_cosines(X, seed, m=50), shared.random_cosines(Y, seed, m=50))
    assert np.array_equal(shared.cosine_terms(X, seed, m=50), shared.cosine_terms(Y, seed, m=50))
    if len(np.unique(labels[~zero])) == 2:
        np.testing.assert_array_equal(shared.cross_group_cosines(X, labels),
                                      shared.cross_group_cosines(Y, labels[~zero]))
    if len(np.unique(labels[~zero])) == 2 and len(Y) >= 3:
        assert shared.pair_auc(X, labels, seed, m=200) == shared.pair_auc(Y, labels[~zero], seed, m=200)
    assert shared.knn_accuracy(X, labels, X, labels, k=1) == shared.knn_accuracy(Y, labels[~zero], Y, labels[~zero], k=1)
    report = shared.isotropy_report(X, seed, baseline=None, partition=False)
    assert report.zero_rows == zero.sum()
    assert report.meters.mean_cosine == pytest.approx(shared.mean_cosine(X), abs=1e-12)


@given(with_zero_rows())
def test_meters_of_variance_count_a_zero_row_as_the_origin(cloud):
    X, zero = cloud
    meters = shared.all_meters(X)  # two rows with a direction, and spread: every meter answers
    assert meters.effective_rank == shared.effective_rank(shared.cov_eigs(X))
    assert meters.mean_cosine == shared.mean_cosine(X[~zero])
    assert meters.uniformity == shared.uniformity(X[~zero])
    np.testing.assert_array_equal(fields_of(shared.meter_table({"padded": X}).row("padded").meters), fields_of(meters))


def test_fewer_than_two_rows_with_a_direction_are_refused_by_name():
    X = np.zeros((10, 3))
    X[4] = [1.0, 2.0, 3.0]
    message = "has 1 non-zero row and 9 zero rows; a zero row has no direction"
    for call in (shared.mean_cosine, shared.uniformity, lambda X: shared.random_cosines(X, 0)):
        with pytest.raises(ValueError, match=f"^X: {message}"):
            call(X)
    with pytest.raises(ValueError, match=f"^source: {message}"):
        shared.isotropy_report(X, 0)
    with pytest.raises(ValueError, match=f"^clouds\\['one'\\]: {message}"):
        shared.meter_table({"one": X})


def test_a_pair_with_a_zero_row_is_refused_and_other_zero_rows_are_never_retrieved():
    S = _cloud(3, 10, 4)
    S[1] = 0.0
    with pytest.raises(ValueError, match="^S: row 1 is the zero vector"):
        shared.paraphrase_check(S, np.arange(8).reshape(4, 2))
    S = _cloud(3, 10, 4)
    S[9] = 0.0  # no direction: not a candidate for anyone's nearest row
    assert shared.paraphrase_check(S, np.arange(8).reshape(4, 2)) == shared.paraphrase_check(S[:9], np.arange(8).reshape(4, 2))


def test_a_report_whose_uniformity_sample_holds_too_few_directions_names_uniformity_rows():
    X = np.zeros((200, 3))
    X[[0, 199]] = [[1.0, 2.0, 3.0], [3.0, -1.0, 0.5]]
    with pytest.raises(ValueError, match="^uniformity_rows: of the 2 rows drawn for uniformity only"):
        shared.isotropy_report(X, 0, uniformity_rows=2, baseline=None)


# ----- the bootstrap of a few paraphrase pairs ---------------------------------------------------


@given(seeds, st.integers(2, 5), st.integers(2, 40), st.booleans())
def test_every_bootstrap_draw_of_a_paraphrase_check_is_a_number(seed, pairs, resamples, traps):
    S = _cloud(seed, 2 * pairs + 4, 5)
    check = shared.paraphrase_check(S, np.arange(2 * pairs).reshape(pairs, 2),
                                    traps=np.arange(2 * pairs, 2 * pairs + 4).reshape(2, 2) if traps else None,
                                    rng=seed, resamples=resamples)
    for name, draws in check.draws.items():
        assert draws.shape == (resamples,) and np.all(np.isfinite(draws)), name
        assert np.all((0 <= draws) & (draws <= 1))
    low, high = check.interval("auc")
    assert 0 <= low <= high <= 1


# ----- rich-get-richer at any step size --------------------------------------------------------


@given(arrays(float, st.integers(1, 6), elements=st.floats(0.0, 1e6)).filter(lambda v: v.max() > 0),
       st.floats(0.0, 1.7e308))
def test_a_rich_get_richer_step_is_the_exact_update_at_any_eta(lam, eta):
    got = shared.rich_get_richer_step(lam, eta)
    exact = [Fraction(x) * (1 + Fraction(eta) * len(lam) * Fraction(x) / sum(map(Fraction, lam))) for x in lam]
    mean = sum(exact) / len(exact)
    np.testing.assert_allclose(got, [float(x / mean) for x in exact], rtol=1e-12, atol=1e-300)


def test_the_loop_on_vectors_survives_the_largest_eta():
    loop = shared.rich_get_richer_vectors(_cloud(4, 40, 3) + 1.0, eta=1e308, steps=3)
    assert np.all(np.isfinite(loop.end)) and np.all(np.isfinite(loop.spectra))


# ----- another number of columns ----------------------------------------------------------------


@given(seeds, st.integers(2, 6), st.integers(1, 8), st.sampled_from(["all_but_the_top", "all_but_the_top_as_written",
                                                                      "zca_whiten", "shrunk_whiten"]))
def test_fitted_remedies_refuse_points_with_another_number_of_columns(seed, d, other, method):
    if other == d:
        other = d + 1
    fitted = shared.FittedRemedies(_cloud(seed, 30, d))
    apply = getattr(fitted, method)
    args = (1,) if "top" in method else ()
    with pytest.raises(ValueError, match=f"^X: expected {d} columns like the cloud the remedies were fitted on"):
        apply(_cloud(seed + 1, 5, other), *args)


# ----- magnitudes ------------------------------------------------------------------------------


TINY_TO_HUGE = st.integers(-323, 306).map(lambda k: 10.0**k)  # times entries below 10: below the float limit


@given(seeds, TINY_TO_HUGE)
def test_spectra_at_any_scale_are_right_or_refused_by_name(seed, s):
    Y = _cloud(seed, 20, 3) * s
    for fn in (shared.cov_eigs, lambda Y: shared.principal_axes(Y).variances, lambda Y: shared.ledoit_wolf(Y)[0]):
        try:
            value = fn(Y)
        except ValueError as error:
            message = str(error)
            assert message.startswith("X: all points coincide") or (
                message.startswith("X: its variances") and "multiply X by a constant near 1e" in message)
        else:
            assert np.all(np.isfinite(value))


def _answer(fn, X):
    """What ``fn(X)`` gives: its numbers, or the message it refuses with."""
    try:
        value = fn(X)
    except ValueError as error:
        return str(error)
    return np.array(fields_of(value) if not np.isscalar(value) else [value], dtype=float)


def fields_of(value) -> list[float]:
    if hasattr(value, "values") and isinstance(value.values, dict):  # Meters: a value per table meter
        return list(value.values.values())
    return [getattr(value, name) for name in value.__dataclass_fields__]


@given(seeds, st.integers(-1070, -1030))
def test_scale_free_meters_are_the_same_at_subnormal_scales(seed, exponent):
    """Subnormal entries lose digits, but the meters of those very entries do not depend on their scale:
    scaled up by a power of two (exactly) they give the same values (or refusals), bit for bit."""
    Y = np.ldexp(_cloud(seed, 20, 3), exponent)
    Z = np.ldexp(Y, -exponent)  # exact: the same numbers, at scale 1
    for fn in (shared.all_meters, shared.rank_collapse, shared.mean_cosine, shared.uniformity):
        at_y, at_z = _answer(fn, Y), _answer(fn, Z)
        if isinstance(at_z, str):
            assert at_y == at_z
        else:
            np.testing.assert_array_equal(at_y, at_z)


# ----- messages name the caller's own arguments -------------------------------------------------


@pytest.mark.parametrize(
    "call, subject",
    [
        (lambda: shared.attention_step(_cloud(0, 10, 2), beta=1e300), "beta, X"),
        (lambda: shared.attention_run(2, offset=1e300, n=10), "offset, beta"),
        (lambda: shared.attention_sequences(2, 2, offset=1e300, n=4), "offset, beta"),
        (lambda: shared.choose_remedy(_cloud(0), _cloud(1), np.arange(30) % 3, _cloud(2), np.zeros(30, dtype=int),
                                      ks=[0, 1], powers=[0.0, 1.0]), "y_test"),
        (lambda: shared.choose_remedy(_cloud(0), _cloud(1), np.arange(30), _cloud(2), np.arange(30) % 3,
                                      ks=[0, 1], powers=[0.0, 1.0]), "y_select"),
        (lambda: shared.meter_table({"c": _cloud(0, 40, 1)}), r"clouds\['c'\]"),
        (lambda: shared.zca_whiten(_cloud(0, 10), fit=_cloud(1) * 1e-315), "X, fit"),
        (lambda: shared.FittedRemedies(_cloud(1) * 1e-315).zca_whiten(_cloud(0, 10)), "X, fit"),
        (lambda: shared.cov_eigs(_cloud(0) * 1e-315), "X"),
    ],
    ids=["attention_step beta", "attention_run offset", "attention_sequences offset", "choose_remedy y_test",
         "choose_remedy y_select", "meter_table one column", "zca_whiten tiny fit", "FittedRemedies tiny fit",
         "cov_eigs subnormal"],
)
def test_errors_name_the_caller_s_arguments(call, subject):
    with pytest.raises(ValueError, match=f"^{subject}: "):
        call()


# ----- the generated fuzz of every public function (long: exhaustive) ---------------------------------


def _int_arguments() -> list[tuple[fuzz.Entry, str]]:
    return [(e, name) for e in fuzz.REGISTRY for name, p in inspect.signature(e.fn).parameters.items()
            if name not in e.roles and name not in e.defaults and p.annotation in ("int", "int | None")]


def _cloud_arguments() -> list[tuple[fuzz.Entry, str]]:
    return [(e, name) for e in fuzz.REGISTRY for name, role in e.roles.items()
            if role in ("cloud", "report source", "tokens", "vector", "spectrum") and name not in e.defaults]


INTS, CLOUDS = _int_arguments(), _cloud_arguments()


@pytest.mark.exhaustive
@pytest.mark.parametrize("entry, name", INTS, ids=_ids(INTS))
@settings(max_examples=4)
@given(value=huge)
def test_every_int_argument_at_a_huge_value_answers_or_names_itself(entry, name, value):
    outcome = _within(120, lambda: fuzz.run_case(entry, (name,), fuzz.Variant("huge", lambda v: value, fuzz.EITHER)))
    assert outcome.ok, outcome.detail


@pytest.mark.exhaustive
@pytest.mark.parametrize("entry, name", CLOUDS, ids=_ids(CLOUDS))
@settings(max_examples=6)
@given(s=TINY_TO_HUGE)
def test_every_array_argument_at_any_scale_answers_or_names_itself(entry, name, s):
    variant = fuzz.Variant(f"scale {s:.0e}", lambda a: np.asarray(a, dtype=float) * s, fuzz.EITHER)
    outcome = fuzz.run_case(entry, (name,), variant)
    assert outcome.ok, outcome.detail


@pytest.mark.exhaustive
@pytest.mark.parametrize("entry, name", _array_arguments(fuzz.REGISTRY), ids=_ids(_array_arguments(fuzz.REGISTRY)))
@settings(max_examples=3)
@given(data=st.data())
def test_every_array_argument_masked_is_refused_by_name(entry, name, data):
    plain = np.asarray(entry.build()[name])
    mask = data.draw(arrays(bool, plain.shape).filter(np.any), label="mask")
    variant = fuzz.Variant("masked", lambda a: np.ma.masked_array(np.asarray(a), mask=mask), fuzz.VALUE)
    outcome = fuzz.run_case(entry, (name,), variant)
    assert outcome.ok, outcome.detail


@pytest.mark.exhaustive
@pytest.mark.parametrize("entry, name", CLOUDS, ids=_ids(CLOUDS))
@settings(max_examples=3)
@given(columns=st.integers(1, 9))
def test_every_array_argument_with_another_number_of_columns_answers_or_names_itself(entry, name, columns):
    def reshape(a):
        a = np.asarray(a, dtype=float)
        return np.resize(a, (a.shape[0], columns)) if a.ndim == 2 else np.resize(a, columns)

    outcome = fuzz.run_case(entry, (name,), fuzz.Variant("columns", reshape, fuzz.EITHER))
    assert outcome.ok, outcome.detail
