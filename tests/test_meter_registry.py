"""The meter registry: a meter declared once is picked up by every table, the report and the invariance checks.

CONTRIBUTING.md's recipe for a new meter is two edits: the function, and its ``declare_meter``
line. The last test makes those two edits here and finds the meter in all four places.
"""

import numpy as np
import pytest

from shared import isotropy_report, make_cone, meter_table, random_rotation
from shared.meters import (
    Invariance,
    Rule,
    Sees,
    all_meters,
    calls_isotropic,
    declare_meter,
    table_meter,
    table_meters,
    unregister,
)

CHANGES = {
    Invariance.ROTATION: lambda X, rng: X @ random_rotation(X.shape[1], rng),
    Invariance.SCALE: lambda X, rng: 3.7 * X,
    Invariance.SHIFT: lambda X, rng: X + rng.normal(size=X.shape[1]),
    Invariance.ROW_ORDER: lambda X, rng: X[rng.permutation(len(X))],
}


def _cloud(seed: int) -> np.ndarray:
    """An anisotropic, off-centre cloud with distinct variances (so every meter is defined and no change is idle)."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((400, 6)) * np.linspace(3.0, 0.5, 6) + 0.7


def check_declared_invariances(meter, seeds=(0, 1, 2)) -> None:
    """Each declared invariance holds, and each change not declared moves the value: the declaration is exact."""
    for seed in seeds:
        X, rng = _cloud(seed), np.random.default_rng(100 + seed)
        value = meter.of_cloud(X)
        for change, apply in CHANGES.items():
            moved = meter.of_cloud(apply(X, rng))
            same = np.isclose(moved, value, rtol=1e-9, atol=1e-12)
            assert same == (change in meter.invariances), (meter.name, change, value, moved)


def test_every_table_meter_keeps_exactly_its_declared_invariances():
    for meter in table_meters():
        check_declared_invariances(meter)


def test_the_table_order_and_rules_are_the_declared_ones():
    assert [m.label for m in table_meters()] == ["partition I", "mean cosine", "effective rank", "entropy rank",
                                                 "IsoScore", "uniformity"]
    assert table_meter("mean_cosine").rule is Rule.WITHIN and table_meter("mean_cosine").sees is Sees.OFFSET
    assert calls_isotropic("effective_rank", 8.0, 10.0) and not calls_isotropic("effective_rank", 7.9, 10.0)


def test_an_unknown_choice_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match=r"meter: expected one of \['partition_isotropy', 'mean_cosine'"):
        table_meter("IsoScore")
    with pytest.raises(ValueError, match=r"rule: expected one of \['at least', 'within', 'at most above'\]"):
        declare_meter("x", ".3f", rule="at leats", amount=1.0, sees="spread")(lambda X: 0.0)
    with pytest.raises(ValueError, match="invariance: expected one of"):
        declare_meter("x", ".3f", invariances=("rotations",))(lambda X: 0.0)


def test_a_meter_declared_in_two_edits_appears_in_the_report_its_table_notebook_01s_table_and_the_invariance_checks():
    # edit 1: the function (here a meter of the covariance spectrum: the share of variance off the top direction)
    def off_top_share(eigs: np.ndarray) -> float:
        lam = np.asarray(eigs, dtype=float)
        return float(1.0 - lam.max() / lam.sum())

    # edit 2: its declaration, with its rule against the same-size Gaussian
    before = [m.name for m in table_meters()]
    declare_meter("off-top share", ".3f", formula="1 - λ₁ / Σλ", range="[0, 1 - 1/d]",
                  invariances=("rotation", "scale", "shift", "row order"), reads="spectrum",
                  rule="at least", amount=0.8, sees="spread")(off_top_share)
    try:
        X = make_cone(600, 8, 3)
        Y = np.random.default_rng(5).standard_normal((600, 8))
        eigs = np.linalg.eigvalsh(np.cov(X, rowvar=False))
        # the cloud's meters
        assert np.isclose(all_meters(X).off_top_share, off_top_share(eigs), rtol=1e-9)
        # notebook 01's table ("which meter lies when"): a column and a rule clause
        table = meter_table({"cone": X, "Gaussian": Y})
        assert "off-top share" in str(table).splitlines()[0]
        assert "off-top share at least 0.8 x the Gaussian's" in " ".join(str(table).split())
        assert table.row("Gaussian").isotropic["off_top_share"] is True
        # the streamed report: its value (from the streamed spectrum), its table and its lines
        report = isotropy_report(X, 0, chunk_rows=128)
        assert np.isclose(report.meters.off_top_share, off_top_share(eigs), rtol=1e-6)
        assert "off-top share" in report.table().splitlines()[1]
        assert [line.meter for line in report.meter_lines()][-1] == "off-top share"
        assert "off-top share" in "".join(report.details().splitlines()[-12:])
        # the invariance checks
        check_declared_invariances(table_meter("off_top_share"))
    finally:
        unregister("off_top_share")
    assert [m.name for m in table_meters()] == before


@pytest.mark.parametrize("baseline", ["sample", "wishart"])
@pytest.mark.parametrize("known", [False, True], ids=["sampled Gaussian", "declared Gaussian"])
def test_a_meter_of_the_raw_vectors_declared_in_two_edits_shows_a_value_in_the_report_and_notebook_01s_table(
        baseline, known):
    # edit 1: the function (a meter of the raw vectors: the mean vector's length over the mean row norm)
    def test_mean_length(X: np.ndarray) -> float:
        X = np.asarray(X, dtype=float)
        return float(np.linalg.norm(X.mean(axis=0)) / np.linalg.norm(X, axis=1).mean())

    # edit 2: its declaration; a 30-character label, and (or not) its value on a same-size Gaussian
    label = "mean vector length / row norms"
    assert len(label) == 30
    before = [m.name for m in table_meters()]
    declare_meter(label, ".3f", formula="||mean x|| / mean ||x||", range="[0, 1]",
                  invariances=("rotation", "scale", "row order"), rule="at most above", amount=0.2, sees="offset",
                  gaussian=(lambda n, d: 1.0 / np.sqrt(n)) if known else None)(test_mean_length)
    try:
        X = make_cone(600, 8, 3)
        # notebook 01's table: the value, the Gaussian's, and cells wide enough for the label
        table = str(meter_table({"cone": X}))
        header, gaussian_row, cone_row = table.splitlines()[:3]
        assert header.endswith(f"  {label}  failure")
        cells, failure = cone_row.split("  cone")
        assert cells.endswith(f"{test_mean_length(X):.3f} ✗") and failure == " + collapsed spread"
        assert len(header.removesuffix("  failure")) == len(gaussian_row) == len(cells)
        # the streamed report: the value on its sample of rows (all 600 here, so exact), the Gaussian's
        report = isotropy_report(X, 0, chunk_rows=128, baseline=baseline)
        assert np.isclose(report.meters.test_mean_length, test_mean_length(X), rtol=1e-12)
        gaussian = report.baseline.test_mean_length
        if known:
            assert gaussian == 1.0 / np.sqrt(600)
        else:  # a N(0, I) sample of the same size: about 1/sqrt(n)
            assert 0.2 / np.sqrt(600) < gaussian < 5.0 / np.sqrt(600)
        (line,) = [v for v in report.meter_lines() if v.meter == label]
        assert line.isotropic is False and line.value == report.meters.test_mean_length
        top, gaussian_line, matrix_line = report.table().splitlines()[1:4]
        assert f"  {label}" in top and len(top) == len(gaussian_line) == len(matrix_line)
        assert f"{gaussian:.3f}" in gaussian_line and f"{test_mean_length(X):.3f} ✗" in matrix_line
        assert f" {label} " in report.details()
        offset = sum(m.sees is Sees.OFFSET for m in table_meters())  # four, with the course's meters
        words = "zero one two three four five six seven eight nine ten eleven twelve".split()
        assert f"a shared offset moves all {words[offset]};" in " ".join(report.details().split())
        # a sample of the rows when there are more than uniformity_rows: the meter on those rows
        sampled = isotropy_report(X, 0, uniformity_rows=100, baseline=baseline)
        assert np.isfinite(sampled.meters.test_mean_length) and np.isfinite(sampled.baseline.test_mean_length)
        assert sampled.meters.test_mean_length != report.meters.test_mean_length
        assert f"({label}: on 100 random rows)" in sampled.table() and f"{label}: on every row" in report.details()
    finally:
        unregister("test_mean_length")
    assert [m.name for m in table_meters()] == before
    assert "test_mean_length" not in isotropy_report(X, 0).meters


def test_a_declaration_that_would_break_the_table_is_refused():
    def share(eigs):
        return float(np.max(eigs) / np.sum(eigs))

    with pytest.raises(TypeError, match="column: expected a whole number"):
        declare_meter("s", ".3f", invariances=("scale",), reads="spectrum", rule="at least", amount=1.0,
                      sees="spread", column="3")(share)
    with pytest.raises(ValueError, match="only a scale-invariant meter"):  # the spectrum arrives rescaled
        declare_meter("s", ".3f", reads="spectrum", rule="at least", amount=1.0, sees="spread")(share)

    def effective_rank(eigs):  # another function claiming a declared meter's name
        return 0.0

    with pytest.raises(ValueError, match="already declared"):
        declare_meter("e", ".1f", invariances=("scale",), reads="spectrum", rule="at least", amount=0.8,
                      sees="spread")(effective_rank)
    assert [m.label for m in table_meters()][2] == "effective rank"


def test_meters_hash_iterate_and_refuse_a_streamed_value_no_meter_has():
    from shared.meters import spectrum_meters

    m = all_meters(make_cone(200, 6, 1))
    assert hash(m) == hash(all_meters(make_cone(200, 6, 1))) and list(m) == [t.name for t in table_meters()]
    assert "mean_cosine" in m and "mean_cosin" not in m
    with pytest.raises(ValueError, match=r"streamed: \['mean_cosin'\] name no table meter"):
        spectrum_meters(np.array([2.0, 1.0]), mean_cosin=0.0)
