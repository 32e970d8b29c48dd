"""A function that hands an implement-it exercise to the toolkit is caught by what runs inside it,
whatever the path to the toolkit's code, in class (``verdict``) and in the graded test cell alike;
numpy and scipy are accepted where the exercise allows them, and otherwise named."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from shared.exercises import IMPLEMENTATIONS, verdict

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import make_assignments  # noqa: E402 (a script of the course, imported for its graded test cells)

# Each way of reaching 01.1's toolkit functions without naming them in the function's code.
INDIRECTIONS = {
    "a module looked up at run time": """
def my_effective_rank(X):
    m = __import__("importlib").import_module("shared." + "meters")
    return m.effective_rank(m.cov_eigs(X))
""",
    "sys.modules": """
def my_effective_rank(X):
    m = __import__("sys").modules["shared.meters.spectrum"]
    return m.effective_rank(m.cov_eigs(X))
""",
    "an attribute fetched by string": """
import shared
def my_effective_rank(X):
    meters = getattr(shared, "me" + "ters")
    return getattr(meters, "effective" + "_rank")(getattr(meters, "cov" + "_eigs")(X))
""",
    "a table of functions": """
import shared
TABLE = {"rank": shared.effective_rank, "eigs": shared.cov_eigs}
def my_effective_rank(X):
    return TABLE["rank"](TABLE["eigs"](X))
""",
    "a callable object": """
import shared
class Rank:
    def __init__(self):
        self.parts = [shared.cov_eigs, shared.effective_rank]
    def __call__(self, X):
        for part in self.parts:
            X = part(X)
        return X
my_effective_rank = Rank()
""",
    "source text executed again": """
import inspect
import shared.meters.spectrum as spectrum
source = inspect.getsource(spectrum).replace("from .. import _checks", "from shared import _checks")
source = source.replace("from .registry import declare_meter, scaled_cov_eigs",
                        "from shared.meters.registry import scaled_cov_eigs\\ndeclare_meter = lambda *a, **k: (lambda f: f)")
space = {"__name__": "mine"}
exec(source, space)
def my_effective_rank(X):
    return space["effective_rank"](space["cov_eigs"](X))
""",
    "a function's source executed again": """
import inspect
import shared.meters.spectrum as spectrum
space = {"__name__": "mine"}
exec("import numpy as np\\nfrom shared import _checks\\n" + inspect.getsource(spectrum.scaled_cov_eigs)
     + inspect.getsource(spectrum.cov_eigs), space)  # scaled_cov_eigs is the registry's, imported by spectrum
def my_effective_rank(X):
    lam = space["cov_eigs"](X)
    return lam.sum() ** 2 / np.sum(lam ** 2)
""",
    "a reference of the exercises": """
def my_effective_rank(X):
    from shared.exercises import EXERCISES
    return EXERCISES["01.1"].reference(X=X)
""",
    "a thread": """
from concurrent.futures import ThreadPoolExecutor
import shared
def my_effective_rank(X):
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: shared.effective_rank(shared.cov_eigs(X))).result()
""",
    "the watch switched off": """
import sys
def my_effective_rank(X):
    watch = sys.getprofile()
    sys.setprofile(None)
    try:
        m = __import__("importlib").import_module("shared.meters")
        return m.effective_rank(m.cov_eigs(X))
    finally:
        sys.setprofile(watch)
""",
    "the whole meter table": """
def my_effective_rank(X):
    from shared.meters import suite
    return suite.all_meters(X)["effective_rank"]
""",
}


def defined(source: str, name: str = "my_effective_rank"):
    space: dict = {"np": np}
    exec(source, space)  # noqa: S102 - a learner's cell, written out here
    return space[name]


@pytest.mark.parametrize("how", sorted(INDIRECTIONS))
def test_the_toolkit_reached_any_way_is_seen_running_and_named(how):
    from shared.exercises.watch import toolkit_ran

    fn = defined(INDIRECTIONS[how])
    ok, out = verdict("01.1", fn)
    assert not ok and "write it yourself" in out, out
    # what runs is seen, whether or not the function's code names the toolkit
    X = np.random.default_rng(0).standard_normal((30, 4))
    _, seen = toolkit_ran(IMPLEMENTATIONS["01.1"].toolkit, IMPLEMENTATIONS["01.1"].libraries, fn, {"X": X})
    if how == "the watch switched off":
        assert "unwatch: sys.setprofile" in seen, seen
        assert "sys.setprofile" in out and "switches off the check's watch" in out, out
    elif "source" in how:
        assert any(s.startswith("copy: shared.meters.spectrum.") for s in seen), seen
        assert "code identical to the toolkit's shared.meters.spectrum." in out, out
    else:
        assert any(s.startswith("toolkit: shared.meters.spectrum.") for s in seen), seen
        if "calls the toolkit's" not in out:  # not named in the code: the run is what caught it
            assert "While my_effective_rank ran, the toolkit's own shared.meters.spectrum." in out, out


@pytest.mark.parametrize("how", sorted(INDIRECTIONS))
def test_the_graded_cell_refuses_what_the_class_refuses(how):
    """The graded test cell of 01.1, run as a learner runs it in class, fails with the same words
    (autograde checks the function alone in its sandbox instead: tests/test_grading.py)."""
    nb = make_assignments.source_notebook(next((ROOT / "notebooks").glob("01_*.ipynb")))
    (cell,) = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex01-1-test"]
    space = {"np": np, "my_effective_rank": defined(INDIRECTIONS[how])}
    with pytest.raises(AssertionError, match="write it yourself"):
        exec(cell.source, space)  # noqa: S102 - the course's own graded cell


# One way per exercise: the toolkit's implementation found at run time by the names its module holds.
RUN_TIME = {
    "01.1": ("shared.meters", "lambda m: lambda X: m.effective_rank(m.cov_eigs(X))"),
    "02.3": ("shared.meters", "lambda m: lambda X: m.mean_cosine(X)"),
    "03.1": ("shared.mechanisms", "lambda m: lambda X, beta, alpha: m.attention_step(X, beta=beta, alpha=alpha)"),
    "04.2": ("shared.mechanisms", "lambda m: lambda H, Q, P: m.logit_gradient(Q, P).T @ H"),
    "05.1": ("shared.mechanisms", "lambda m: lambda lam, eta: m.rich_get_richer_step(lam, eta)"),
    "06.1": ("shared.remedies", "lambda m: lambda X, k: m.all_but_the_top(X, k)"),
    "07.1": ("shared.meters", "lambda m: lambda X, groups: float(m.cross_group_cosines(X, groups).sum())"),
    "08.2": ("shared.meters", "lambda m: lambda X: m.partition_isotropy(X, rescale=False)"),
    "09.1": ("shared.real.decoder", "lambda m: lambda x, gain, eps: m.rms_norm(x, gain, eps)"),
}


def test_every_implementation_exercise_is_tried_at_run_time():
    assert set(RUN_TIME) == set(IMPLEMENTATIONS)


@pytest.mark.parametrize("exercise", sorted(RUN_TIME))
def test_each_exercise_sees_its_toolkit_run_however_it_is_looked_up(exercise):
    import importlib

    module, make = RUN_TIME[exercise]
    from shared.exercises.watch import toolkit_ran

    fn = eval(make)(importlib.import_module(module))  # noqa: S307 - written out here
    ok, out = verdict(exercise, fn)
    assert not ok and "write it yourself" in out, out
    impl = IMPLEMENTATIONS[exercise]
    _, seen = toolkit_ran(impl.toolkit, impl.libraries, fn, impl.cases()[0][1])
    assert any(s.startswith("toolkit: ") for s in seen), seen


def test_a_toolkit_function_that_computes_something_else_is_not_refused():
    """Making a cloud with the toolkit inside the function is not handing over the exercise."""
    fn = defined("""
import shared
def my_effective_rank(X):
    shared.geometry.make_isotropic(3, 2, 0)  # runs toolkit code that is not the exercise's
    Xc = X - X.mean(axis=0)
    lam = np.linalg.eigvalsh(Xc.T @ Xc / len(X))
    return lam.sum() ** 2 / np.sum(lam ** 2)
""".replace("import shared\n", "import shared.geometry\nimport shared\n"))
    # the static check still refuses a toolkit call it can read; at run time only the exercise's code counts
    from shared.exercises.watch import toolkit_ran

    _, seen = toolkit_ran(IMPLEMENTATIONS["01.1"].toolkit, {}, fn, {"X": np.eye(4) + 1.0})
    assert seen == []


LIBRARIES = {
    "scipy's softmax in 03.1 is named": ("03.1", """
from scipy.special import softmax
def my_attention_step(X, beta, alpha):
    return X + alpha * (softmax(beta * X @ X.T, axis=1) @ X - X)
""", "my_attention_step", False, "scipy.special.softmax ran inside it"),
    "scipy's pdist in 02.3 is named": ("02.3", """
from scipy.spatial.distance import pdist
def my_mean_cosine(X):
    return 1.0 - pdist(X, "cosine").mean()
""", "my_mean_cosine", False, "scipy.spatial.distance.pdist ran inside it"),
    "scipy's logsumexp in 08.2 is accepted": ("08.2", """
from scipy.special import logsumexp
def my_partition_isotropy(X):
    C = np.linalg.eigh(X.T @ X)[1]
    P = np.hstack([X @ C, -(X @ C)])
    log_z = logsumexp(P, axis=0)
    return np.exp(log_z.min() - log_z.max())
""", "my_partition_isotropy", True, "right"),
    "scipy's eigh in 06.1 is accepted": ("06.1", """
import scipy.linalg
def my_all_but_the_top(X, k):
    Xc = X - X.mean(axis=0)
    V = scipy.linalg.eigh(np.cov(Xc.T))[1]
    U = V[:, V.shape[1] - k:]
    return Xc - Xc @ U @ U.T
""", "my_all_but_the_top", True, "right"),
}


@pytest.mark.parametrize("case", sorted(LIBRARIES))
def test_library_one_liners_are_accepted_where_allowed_and_otherwise_named(case):
    exercise, source, name, accepted, words = LIBRARIES[case]
    ok, out = verdict(exercise, defined(source, name))
    assert ok is accepted and words in out, out
