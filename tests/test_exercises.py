"""The exercises: every worked solution passes its check, and the checks say useful things."""

from __future__ import annotations

import math
import re
import warnings
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from shared.exercises import EXERCISES, IMPLEMENTATIONS, Exercise, Implementation, check, verdict
from shared.exercises.common import verdict_of

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = (ROOT / "notebooks" / "SOLUTIONS.md").read_text()
BLOCKS = dict(re.findall(r"### (\d\d\.\d)[^\n]*\n.*?```python\n(.*?)```", SOLUTIONS, re.S))
ANSWERS = sorted(name for name, ex in EXERCISES.items() if isinstance(ex, Exercise))


def solution(exercise: str) -> object:
    """The answer (or the function) the worked solution of ``exercise`` defines."""
    namespace: dict = {}
    exec(BLOCKS[exercise], namespace)  # noqa: S102 - the course's own solutions file
    ex = EXERCISES[exercise]
    return namespace[ex.name] if isinstance(ex, Implementation) else namespace["answer"]


def test_every_exercise_has_one_worked_solution():
    assert sorted(BLOCKS) == sorted(EXERCISES)


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_worked_solution_passes_its_check(exercise, capsys):
    answer = solution(exercise)
    assert verdict(exercise, answer)[0] is True, verdict(exercise, answer)[1]
    check(exercise, answer)
    assert capsys.readouterr().out.startswith(f"Exercise {exercise}: right.")


@pytest.mark.parametrize("exercise", ANSWERS)
def test_unanswered_and_wrong_answers_get_a_hint_not_the_answer(exercise, capsys):
    check(exercise, None)
    assert "not answered yet" in capsys.readouterr().out
    ex = EXERCISES[exercise]
    wrong = next(c for c in ex.choices if c != ex.reference()) if ex.choices else float(ex.reference()) * 3 + 5
    for tries in range(len(ex.hints) + 1):
        ok, out = verdict(exercise, wrong, tries)
        assert not ok
        assert f"not yet. Hint {min(tries, len(ex.hints) - 1) + 1} of {len(ex.hints)}:" in out
        if not ex.choices:
            assert f"{ex.reference()}" not in out, "the hint must not give the answer away"


def test_answers_of_the_wrong_kind():
    assert verdict("01.2", "d") == (False, "Exercise 01.2: answer with one of a, b, c (the letter of the option).")
    assert verdict("01.3", "ten") == (False, "Exercise 01.3: answer with a number.")
    assert verdict("01.3", True)[0] is False
    assert verdict("01.2", " (C) ")[0] is True
    assert verdict("01.2", '"c"')[0] is True


@pytest.mark.parametrize("number", [10, 10.0, np.float32(10.0), np.int64(10), np.array(10.0), Decimal("10"),
                                    Fraction(20, 2)])
def test_any_real_number_type_is_an_answer(number):
    assert verdict("01.3", number)[0] is True


def test_a_quoted_number_gets_a_hint_to_remove_the_quotes():
    ok, out = verdict("01.3", "10")
    assert not ok and "remove the quotes" in out
    assert "remove the quotes" not in verdict("01.3", "ten")[1]
    assert verdict("01.3", float("nan"))[1].endswith("answer with a number.")


def test_unknown_exercise():
    with pytest.raises(ValueError, match="unknown exercise"):
        check("99.9", 1)
    with pytest.raises(TypeError, match="exercise: expected an exercise number"):
        check(1.1, 1)


# ----- implementation exercises -----------------------------------------------------------------


def _stub(*args, **kwargs):
    raise NotImplementedError


@pytest.mark.parametrize("exercise", sorted(IMPLEMENTATIONS))
def test_an_untouched_stub_is_not_implemented_yet(exercise):
    ok, out = verdict(exercise, _stub)
    assert not ok and "not implemented yet" in out and IMPLEMENTATIONS[exercise].name in out
    assert "not answered yet" in verdict(exercise, None)[1]
    assert "pass your function itself" in verdict(exercise, 3.0)[1]


MISTAKES = [(exercise, mistake) for exercise, impl in sorted(IMPLEMENTATIONS.items()) for mistake in impl.mistakes]


def _key(kwargs: dict) -> tuple:
    return tuple((k, v.shape, v.tobytes()) if isinstance(v, np.ndarray) else (k, v) for k, v in sorted(kwargs.items()))


def replayed(exercise: str, compute):
    """A learner's function that returns ``compute(**kwargs)`` on each case of ``exercise``, computed
    beforehand: the models of mistakes and the references call the toolkit, which the check would
    see running inside the learner's function."""
    with np.errstate(all="ignore"):
        table = {_key(kwargs): compute(**kwargs) for _, kwargs in IMPLEMENTATIONS[exercise].cases()}

    def learners(**kwargs):
        return table[_key(kwargs)]

    return learners


def made_by(model, exercise: str):
    """A learner's function that makes the mistake ``model`` describes (the first of its possible
    results, when the model lists several) on the cases of ``exercise``."""

    def mistaken(**kwargs):
        result = model(**kwargs)
        return result[0] if isinstance(result, list) else result

    return replayed(exercise, mistaken)


@pytest.mark.parametrize("exercise, mistake", MISTAKES, ids=[f"{e}: {m}" for e, m in MISTAKES])
def test_a_typical_mistake_gets_its_own_message(exercise, mistake):
    impl = IMPLEMENTATIONS[exercise]
    ok, out = verdict(exercise, made_by(impl.mistakes[mistake].model, exercise))
    assert not ok
    assert f"Likely mistake: {impl.mistakes[mistake].says}." in out, out
    assert re.search(r"On .*, " + impl.name + r" returned .*(, expected | instead of )", out)


@pytest.mark.parametrize("exercise", sorted(IMPLEMENTATIONS))
def test_every_case_of_every_implementation_exercise_is_well_defined(exercise):
    impl = IMPLEMENTATIONS[exercise]
    for description, kwargs in impl.cases():
        assert np.all(np.isfinite(np.asarray(impl.reference(**kwargs), dtype=float))), description


def test_errors_overflow_and_changed_inputs_are_reported_by_case():
    def raises(X, beta, alpha):
        return X[999]

    def naive(X, beta, alpha):  # no max subtraction: the case with large scores overflows
        with np.errstate(over="ignore", invalid="ignore"):
            A = np.exp(beta * X @ X.T)
            return X + alpha * (A / A.sum(axis=1, keepdims=True) @ X - X)

    def in_place(X):
        X -= X.mean(axis=0)
        lam = np.linalg.eigvalsh(X.T @ X / len(X))
        return lam.sum() ** 2 / np.sum(lam**2)

    out = verdict("03.1", raises)[1]
    assert "my_attention_step raised IndexError" in out and "On 300 tokens in 2-D" in out
    assert "subtract each row's maximum" in verdict("03.1", naive)[1]
    assert "changed its input array in place" in verdict("01.1", in_place)[1]


@pytest.mark.parametrize("notebook", sorted((ROOT / "notebooks").glob("0*.py")), ids=lambda p: p.stem[:2])
def test_each_notebook_asks_two_to_four_exercises_and_one_function_to_write(notebook):
    text = notebook.read_text()
    asked = re.findall(r'check\("(\d\d\.\d)", (\w+)\)', text)
    assert 3 <= len(asked) <= 5
    assert all(ex.startswith(notebook.stem[:2]) and ex in EXERCISES for ex, _ in asked)
    functions = [(ex, name) for ex, name in asked if isinstance(EXERCISES[ex], Implementation)]
    assert len(functions) == 1, "one implementation exercise per notebook"
    ex, name = functions[0]
    assert name == EXERCISES[ex].name
    stub = re.search(rf"def {name}\(.*?\n\n\ncheck", text, re.S).group(0)
    assert "raise NotImplementedError" in stub, "the stored notebook holds the untouched stub"
    assert text.count("answer = None") == len(asked) - 1, "stored exercise cells hold the unanswered stub"
    assert text.index("## Exercises") > text.index("explore(")


def test_numbers_quoted_in_hints_are_what_the_notebooks_print():
    """A hint or a reply that quotes a figure (0.143, +0.901, rho = -0.359, ...) quotes a stored output."""
    import json

    printed = ""
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            for out in cell.get("outputs", []):
                printed += "".join(out.get("text", "")) + "".join(out.get("data", {}).get("text/plain", ""))
    quoted = {(name, number) for name, ex in EXERCISES.items()
              for number in re.findall(r"[-+]?\d+\.\d+", " ".join(ex.hints) + " " + ex.right)}
    assert quoted, "no hint quotes a printed figure, so this test checks nothing"
    arithmetic = {("04.4", "0.9"), ("04.4", "0.09"), ("04.4", "0.91"), ("06.4", "7.68")}  # worked out in the reply, not printed
    missing = sorted((name, number) for name, number in quoted - arithmetic if number not in printed)
    assert not missing, f"hints quote figures no notebook prints (update the hint): {missing}"


def test_each_notebooks_exercises_live_in_their_own_module():
    import importlib

    for name in EXERCISES:
        module = importlib.import_module(f"shared.exercises.nb{name[:2]}")
        assert name in module.EXERCISES


@pytest.mark.parametrize("exercise", sorted(IMPLEMENTATIONS))
def test_a_function_that_forgets_to_return_is_told_so(exercise):
    computed = replayed(exercise, IMPLEMENTATIONS[exercise].reference)

    def forgot_return(**kwargs):
        computed(**kwargs)  # computes the right thing, returns nothing

    ok, out = verdict(exercise, lambda *args, **kwargs: forgot_return(**kwargs))
    assert not ok and "returned None" in out and "return statement" in out, out
    assert "overflow" not in out and "NaN" not in out


@pytest.mark.parametrize("exercise", sorted(IMPLEMENTATIONS))
def test_a_wrong_array_of_the_right_shape_is_located(exercise):
    impl = IMPLEMENTATIONS[exercise]

    reference = replayed(exercise, impl.reference)

    def nudged(**kwargs):
        want = np.array(reference(**kwargs), dtype=float)
        flat = want.reshape(-1)
        flat[-1] += 0.5 + abs(flat[-1])  # one entry off, by more than any tolerance
        return want

    ok, out = verdict(exercise, lambda *args, **kwargs: nudged(**kwargs))
    assert not ok
    shape = np.shape(impl.reference(**impl.cases()[0][1]))
    if shape:
        assert f"1 of its {int(np.prod(shape))} entries differ" in out and "largest difference is at index" in out, out
        assert "expected an array of shape" not in out
    else:
        assert "returned" in out and "expected" in out, out


def test_nan_is_blamed_on_exp_only_where_the_exercise_has_an_exp():
    reference = replayed("01.1", IMPLEMENTATIONS["01.1"].reference)

    def nan_everywhere(**kwargs):
        return np.full(np.shape(reference(**kwargs)), np.nan)

    out = verdict("01.1", lambda *args, **kwargs: nan_everywhere(**kwargs))[1]
    assert "NaN or inf" in out and "exp" not in out


@pytest.mark.parametrize("answer", ["a.", "A.", " (a) ", "'a'", "a", "A", "a)", "(a) every unit vector is an eigenvector",
                                    "a) every unit vector", "A. every unit vector", "(A)"])
def test_a_choice_may_carry_a_full_stop_brackets_or_capitals(answer):
    exercise = next(name for name in ANSWERS if EXERCISES[name].choices and EXERCISES[name].reference() == "a")
    assert verdict(exercise, answer)[0] is True


QUESTION = re.compile(r"^# \*\*(\d\d\.\d) · [^\n]*?(\(a\) [^\n]*)$", re.M)


def multiple_choice_options() -> dict[str, dict[str, str]]:
    """Each multiple-choice item's options, by letter, as the notebooks' ``.py`` mirrors state them."""
    items = {}
    for path in sorted((ROOT / "notebooks").glob("0[1-9]_*.py")):
        for name, options in QUESTION.findall(path.read_text()):
            parts = re.split(r"\(([a-z])\) ", options)[1:]
            items[name] = {letter: text.strip() for letter, text in zip(parts[::2], parts[1::2])}
    return items


@pytest.mark.parametrize("answer", ["a shared offset", "ab", "option a", "(a) or (b)", ""])
def test_a_word_is_not_read_as_a_letter(answer):
    exercise = next(name for name in ANSWERS if EXERCISES[name].choices)
    ok, out = verdict(exercise, answer)
    assert not ok and "answer with one of" in out, out


@pytest.mark.parametrize("name", sorted(n for n, ex in EXERCISES.items() if isinstance(ex, Exercise) and ex.choices))
def test_each_option_typed_whole_as_the_notebook_states_it_is_read_as_its_letter(name):
    options = multiple_choice_options()[name]
    for letter, text in options.items():
        for typed in (f"({letter}) {text}", f"{letter}) {text}", letter.upper()):
            assert verdict(name, typed)[0] is (letter == EXERCISES[name].reference()), typed


def test_the_right_option_cannot_be_guessed_from_its_length():
    items = multiple_choice_options()
    choices = sorted(name for name, ex in EXERCISES.items() if isinstance(ex, Exercise) and ex.choices)
    assert sorted(items) == choices, "every multiple-choice exercise states its options on its question line"
    for name in choices:
        assert tuple(items[name]) == EXERCISES[name].choices, f"{name}: options {tuple(items[name])}"
    longest = []
    for name in choices:
        right = EXERCISES[name].reference()
        options = items[name]
        if all(len(options[right]) > len(text) for letter, text in options.items() if letter != right):
            longest.append(name)
    assert 3 * len(longest) <= len(choices), (
        f"the right option is the strictly longest in {len(longest)} of {len(choices)} items "
        f"(at most a third allowed): {', '.join(longest)}"
    )


# ----- hints in steps -----------------------------------------------------------------------------

CODE = re.compile(r"@|np\.|\breturn\b|(?<![<>!=])=(?!=)|\[|\]|\.T\b|\baxis\b|\*\*|\w\(")


def test_the_code_pattern_recognises_code_and_not_prose():
    for code in ["A @ X", "np.exp", "return X", "G = P", "x[0]", "X.T", "axis 1", "x ** 2", "sqrt(x)"]:
        assert CODE.search(code), code
    assert not CODE.search("the weights sum to one, and each token moves a fraction alpha toward the average")


@pytest.mark.parametrize("exercise", sorted(IMPLEMENTATIONS))
def test_an_implementation_hint_goes_from_the_idea_to_the_detail_to_code(exercise):
    hints = IMPLEMENTATIONS[exercise].hints
    assert len(hints) == 3
    assert not CODE.search(hints[0]), f"the first step names the idea in words, without code: {hints[0]!r}"
    assert CODE.search(hints[2]), "the last step is close to code"
    assert hints[2].count("____") >= 2, "the last step is a skeleton with blanks to fill"
    assert len(set(hints)) == 3


@pytest.mark.parametrize("exercise", ANSWERS)
def test_a_question_hint_has_steps_and_none_gives_the_answer_away(exercise):
    ex = EXERCISES[exercise]
    assert len(ex.hints) >= 2 and len(set(ex.hints)) == len(ex.hints)
    for hint in ex.hints:
        if ex.choices:
            assert not re.search(r"(?<!\w)\(\s*[a-c]\s*\)", hint), "a hint names no option"
        else:
            assert f"{ex.reference()}" not in hint


def wrong_function(exercise: str):
    """A function that is wrong in a way no named mistake describes: the right result, doubled plus one."""
    reference = replayed(exercise, IMPLEMENTATIONS[exercise].reference)

    def wrong(**kwargs):
        return 2 * np.asarray(reference(**kwargs), dtype=float) + 1

    return lambda *args, **kwargs: wrong(**kwargs)


def wrong_answer(exercise: str) -> object:
    ex = EXERCISES[exercise]
    return next(c for c in ex.choices if c != ex.reference()) if ex.choices else float(ex.reference()) * 3 + 5


@pytest.fixture
def fresh_hints():
    from shared.exercises import HINTS_SHOWN

    saved = dict(HINTS_SHOWN)
    HINTS_SHOWN.clear()
    yield HINTS_SHOWN
    HINTS_SHOWN.clear()
    HINTS_SHOWN.update(saved)


@pytest.mark.parametrize("exercise", sorted(EXERCISES))
def test_repeated_wrong_tries_walk_the_hint_steps_in_order(exercise, fresh_hints, capsys):
    ex = EXERCISES[exercise]
    wrong = wrong_function(exercise) if isinstance(ex, Implementation) else wrong_answer(exercise)
    shown = []
    for _ in range(len(ex.hints) + 1):
        check(exercise, wrong)
        out = capsys.readouterr().out
        steps = re.findall(r"Hint (\d) of (\d): ", out)
        assert len(steps) == 1, out
        step = int(steps[0][0])
        assert ex.hints[step - 1] in out
        shown.append(step)
    n = len(ex.hints)
    assert shown == [*range(1, n + 1), n], "one more step per wrong try, then the last one again"


def test_a_right_answer_starts_the_steps_again_and_tries_count_per_exercise(fresh_hints, capsys):
    check("03.2", "a")
    check("03.2", "c")
    check("03.3", "b")  # another exercise keeps its own count
    out = capsys.readouterr().out
    assert out.count("Hint 1 of 2") == 2 and out.count("Hint 2 of 2") == 1
    check("03.2", solution("03.2"))
    assert capsys.readouterr().out.startswith("Exercise 03.2: right.")
    check("03.2", "a")
    assert "Hint 1 of 2" in capsys.readouterr().out


def test_answers_that_get_no_hint_do_not_walk_the_steps(fresh_hints, capsys):
    impl = IMPLEMENTATIONS["03.1"]
    check("03.1", None)  # not answered yet
    check("03.1", _stub)  # not implemented yet
    check("03.1", made_by(impl.mistakes["no_beta"].model, "03.1"))  # a diagnosis, not a hint
    check("03.2", "d")  # not one of the options
    out = capsys.readouterr().out
    assert "Hint" not in out and "Likely mistake: beta is missing" in out
    assert fresh_hints == {}
    check("03.1", wrong_function("03.1"))
    assert "Hint 1 of 3" in capsys.readouterr().out


def test_hints_are_steps():
    from shared.exercises.common import Exercise as Ex

    with pytest.raises(ValueError, match="hints: expected a tuple of at least 2"):
        Ex(reference=lambda: 1.0, right="", hints=("only one",))
    with pytest.raises(ValueError, match="tries: expected a count"):
        verdict("03.2", "a", -1)


# ----- no answer handed over: skeletons, the toolkit, the worked solution on request ---------------


def solution_lines(exercise: str) -> list[str]:
    """The lines of a worked solution that do the work (no imports, signatures or blank lines)."""
    lines = [line.split("#")[0].strip() for line in BLOCKS[exercise].splitlines()]
    return [line for line in lines if line and not line.startswith(("import ", "def ", "answer"))]


@pytest.mark.parametrize("exercise", sorted(IMPLEMENTATIONS))
def test_no_hint_and_no_reply_holds_a_line_of_the_worked_solution(exercise, fresh_hints, capsys):
    impl = IMPLEMENTATIONS[exercise]
    said = " ".join(impl.hints)
    for _ in range(len(impl.hints) + 2):
        check(exercise, wrong_function(exercise))
    said += capsys.readouterr().out
    squeezed = re.sub(r"\s+", "", said)
    lines = solution_lines(exercise)
    assert lines, "the worked solution has lines to compare"
    shown = [line for line in lines if len(re.sub(r"\s+", "", line)) >= 10 and re.sub(r"\s+", "", line) in squeezed]
    assert not shown, f"hints print lines of the worked solution: {shown}"


def toolkit_wrappers() -> list[tuple[str, object]]:
    """Functions a learner could pass that only call the toolkit's own, one or more per exercise."""
    import shared
    from shared import (all_but_the_top, attention_step, cov_eigs, effective_rank, logit_gradient, mean_cosine,
                        partition_isotropy, rich_get_richer_step)
    from shared.real.decoder import rms_norm
    from shared.meters import cross_group_cosines

    def helper(X):  # a helper of the learner's own that calls the toolkit
        return effective_rank(cov_eigs(X))

    return [
        ("01.1", lambda X: effective_rank(cov_eigs(X))),
        ("01.1", lambda X: helper(X)),
        ("01.1", lambda X: shared.meters.effective_rank(shared.cov_eigs(X))),
        ("02.3", mean_cosine),
        ("02.3", lambda X: float(mean_cosine(X))),
        ("03.1", attention_step),
        ("03.1", lambda X, beta, alpha: attention_step(X, beta=beta, alpha=alpha)),
        ("04.2", lambda H, Q, P: logit_gradient(Q, P).T @ H),
        ("05.1", rich_get_richer_step),
        ("06.1", lambda X, k: all_but_the_top(X, k)),
        ("07.1", lambda X, groups: float(cross_group_cosines(X, groups).sum())),
        ("08.2", lambda X: partition_isotropy(X, rescale=False)),
        ("09.1", lambda x, gain, eps: rms_norm(x, gain, eps)),
    ]


@pytest.mark.parametrize("exercise, wrapper", toolkit_wrappers(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_function_that_only_calls_the_toolkit_is_told_to_write_it_itself(exercise, wrapper):
    ok, out = verdict(exercise, wrapper)
    assert not ok and "write it yourself" in out and "calls the toolkit's" in out, out
    assert "right" not in out


TOOLKIT_IN_DISGUISE = {
    "an alias": "from shared.meters import effective_rank as er, cov_eigs as ce\n"
                "def my_effective_rank(X):\n    return er(ce(X))\n",
    "a module alias": "import shared.meters as m\n"
                      "def my_effective_rank(X):\n    lam = m.cov_eigs(X)\n    return lam.sum() ** 2 / (lam ** 2).sum()\n",
    "an inner function": "from shared import effective_rank\n"
                         "def my_effective_rank(X):\n    def inner(lam):\n        return effective_rank(lam)\n"
                         "    Xc = X - X.mean(axis=0)\n    return inner(np.linalg.eigvalsh(Xc.T @ Xc / len(X)))\n",
    "a default argument": "from shared import effective_rank\n"
                          "def my_effective_rank(X, rank=effective_rank):\n"
                          "    Xc = X - X.mean(axis=0)\n    return rank(np.linalg.eigvalsh(Xc.T @ Xc / len(X)))\n",
    "a partial": "import functools\nfrom shared import effective_rank, cov_eigs\n"
                 "def compose(f, g, X):\n    return f(g(X))\n"
                 "my_effective_rank = functools.partial(compose, effective_rank, cov_eigs)\n",
}


@pytest.mark.parametrize("disguise", sorted(TOOLKIT_IN_DISGUISE))
def test_the_toolkit_is_recognised_however_it_is_reached(disguise):
    namespace: dict = {"np": np}
    exec(TOOLKIT_IN_DISGUISE[disguise], namespace)  # noqa: S102 - a learner's cell, written out here
    ok, out = verdict("01.1", namespace["my_effective_rank"])
    assert not ok and "write it yourself" in out, out


def test_every_implementation_exercise_has_a_toolkit_wrapper_tested():
    assert {exercise for exercise, _ in toolkit_wrappers()} == set(IMPLEMENTATIONS)


def test_a_hand_written_solution_with_toolkit_names_of_its_own_is_accepted():
    """The check resolves what a name refers to: a learner's own effective_rank is not the toolkit's."""
    namespace: dict = {}
    exec(  # noqa: S102 - a learner's cell, written out here
        "import numpy as np\n"
        "from shared import make_isotropic  # imported, never called by the function\n"
        "def effective_rank(lam):\n"
        "    return lam.sum() ** 2 / np.sum(lam ** 2)\n"
        "def cov_eigs(X):\n"
        "    Xc = X - X.mean(axis=0)\n"
        "    return np.linalg.eigvalsh(Xc.T @ Xc / len(X))\n"
        "def my_effective_rank(X):\n"
        "    return effective_rank(cov_eigs(X))\n",
        namespace,
    )
    ok, out = verdict("01.1", namespace["my_effective_rank"])
    assert ok, out


@pytest.mark.parametrize("exercise", sorted(IMPLEMENTATIONS))
def test_worked_solutions_call_no_toolkit_function(exercise):
    from shared.exercises.common import toolkit_calls

    assert toolkit_calls(solution(exercise)) == []


def test_the_toolkit_stays_importable_for_the_notebooks():
    from shared import attention_step, cov_eigs, effective_rank, make_isotropic, mean_cosine

    X = make_isotropic(50, 4, 0)
    assert 1.0 <= effective_rank(cov_eigs(X)) <= 4.0 and abs(mean_cosine(X)) < 1
    assert attention_step(X, beta=1.0, alpha=0.5).shape == X.shape


def test_the_worked_solution_is_shown_only_on_request_and_folded():
    from shared.exercises import solution as reveal

    shown = reveal("01.1")
    assert str(shown).startswith("### 01.1 · Implement") and BLOCKS["01.1"] in str(shown)
    assert "### 01.3" not in str(shown) and "# Try this" not in str(reveal("09.3"))
    folded = shown._repr_markdown_()
    assert folded.startswith("<details><summary>Worked solution 01.1") and folded.endswith("</details>")
    with pytest.raises(ValueError, match="unknown exercise"):
        reveal("99.9")


# ----- parameter names, named mistakes, overflow, tolerances -------------------------------------


def renamed(exercise: str):
    """The worked solution with every parameter renamed (``X`` -> ``X_``)."""
    impl = IMPLEMENTATIONS[exercise]
    names = list(impl.cases()[0][1])
    fn = solution(exercise)
    namespace = {"fn": fn}
    exec(f"def renamed({', '.join(n + '_' for n in names)}):\n    return fn({', '.join(n + '_' for n in names)})",  # noqa: S102
         namespace)
    return namespace["renamed"]


@pytest.mark.parametrize("exercise", sorted(IMPLEMENTATIONS))
def test_renamed_parameters_are_told_to_keep_the_names_before_any_hint(exercise, fresh_hints, capsys):
    impl = IMPLEMENTATIONS[exercise]
    check(exercise, renamed(exercise))
    out = capsys.readouterr().out
    names = ", ".join(impl.cases()[0][1])
    assert f"Keep the names of the stub's parameters, {names}" in out, out
    assert "Hint" not in out and "TypeError" not in out and fresh_hints == {}


def test_the_renamed_rms_norm_of_the_report_is_told_to_keep_the_names():
    ok, out = verdict("09.1", lambda X, g, epsilon: X / np.sqrt(np.mean(X**2, axis=-1, keepdims=True) + epsilon) * g)
    assert not ok and "Keep the names of the stub's parameters, x, gain, eps" in out and "Hint" not in out


def learner(source: str):
    """The function a learner's cell defines (the last ``def`` of ``source``), with numpy as np."""
    namespace: dict = {"np": np}
    exec(source, namespace)  # noqa: S102 - a learner's cell, written out here
    return namespace[re.findall(r"^def (\w+)", source, re.M)[-1]]


# Each mistake a learner makes, written as a learner would, and words its diagnosis must name.
LEARNER_MISTAKES = {
    "01.1 eps in the denominator": ("01.1", """
def my_effective_rank(X):
    Xc = X - X.mean(axis=0)
    lam = np.linalg.eigvalsh(Xc.T @ Xc / len(X))
    return lam.sum() ** 2 / (np.sum(lam ** 2) + 1e-10)
""", "an eps was added to the denominator"),
    "01.1 row-centring": ("01.1", """
def my_effective_rank(X):
    Xc = X - X.mean(axis=1, keepdims=True)
    lam = np.linalg.eigvalsh(Xc.T @ Xc / len(X))
    return lam.sum() ** 2 / np.sum(lam ** 2)
""", "each point was centred on its own mean (a mean along axis=1"),
    "02.3 triu k=0": ("02.3", """
def my_mean_cosine(X):
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    return (U @ U.T)[np.triu_indices(len(X), k=0)].mean()
""", "np.triu(..., k=0)"),
    "02.3 centred first": ("02.3", """
def my_mean_cosine(X):
    Xc = X - X.mean(axis=0)
    U = Xc / np.linalg.norm(Xc, axis=1, keepdims=True)
    n = len(X)
    return ((U @ U.T).sum() - n) / (n * (n - 1))
""", "the cloud was centred first"),
    "02.3 (n-1)(n-2) pairs": ("02.3", """
def my_mean_cosine(X):
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    C = U @ U.T
    n = len(X)
    return (C.sum() - np.trace(C)) / ((n - 1) * (n - 2))
""", "(n - 1)(n - 2)"),
    "05.1 renormalised by the max": ("05.1", """
def my_rich_step(lam, eta):
    new = lam * (1 + eta * len(lam) * lam / lam.sum())
    return new / new.max()
""", "renormalised by the largest value"),
    "05.1 additive growth": ("05.1", """
def my_rich_step(lam, eta):
    new = lam + eta * len(lam) * lam / lam.sum()
    return new / new.mean()
""", "the growth was added"),
    "06.1 eigenvectors as rows": ("06.1", """
def my_all_but_the_top(X, k):
    Xc = X - X.mean(axis=0)
    d = X.shape[1]
    V = np.linalg.eigh(Xc.T @ Xc / len(X))[1]
    U = V.T[:, d - k:]
    return Xc - (Xc @ U) @ U.T
""", "the eigenvectors were taken as rows"),
    "06.1 SVD Vt columns": ("06.1", """
def my_all_but_the_top(X, k):
    Xc = X - X.mean(axis=0)
    Vt = np.linalg.svd(Xc)[2]
    U = Vt[:, :k]
    return Xc - (Xc @ U) @ U.T
""", "columns of np.linalg.svd's Vt"),
    "07.1 sentence by sentence": ("07.1", """
def mean_cosine_across(X, groups):
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    C = U @ U.T
    return np.mean([C[groups == g][:, groups != g].mean() for g in set(groups.tolist())])
""", "sentence by sentence"),
    "09.1 std instead of RMS": ("09.1", """
def my_rms_norm(x, gain, eps):
    return x / (x.std(axis=-1, keepdims=True) + eps) * gain
""", "the standard deviation (np.std, np.var) was used"),
    "09.1 var instead of mean square": ("09.1", """
def my_rms_norm(x, gain, eps):
    return x / np.sqrt(np.var(x, axis=-1, keepdims=True) + eps) * gain
""", "the standard deviation (np.std, np.var) was used"),
    "01.1 correlation matrix": ("01.1", """
def my_effective_rank(X):
    lam = np.linalg.eigvalsh(np.corrcoef(X, rowvar=False))
    return lam.sum() ** 2 / np.sum(lam ** 2)
""", "the correlation matrix (np.corrcoef)"),
    "01.1 norms of the columns": ("01.1", """
def my_effective_rank(X):
    Xc = X - X.mean(axis=0)
    lam = np.linalg.norm(Xc, axis=0) ** 2 / len(X)
    return lam.sum() ** 2 / np.sum(lam ** 2)
""", "the lengths (or variances) of the columns"),
    "01.1 eps that changes the answer": ("01.1", """
def my_effective_rank(X):
    Xc = X - X.mean(axis=0)
    lam = np.linalg.eigvalsh(Xc.T @ Xc / len(X)) + 1e-3
    return lam.sum() ** 2 / np.sum(lam ** 2)
""", "an eps large enough to change the answer"),
    "03.1 1/sqrt(d) instead of beta": ("03.1", """
def my_attention_step(X, beta, alpha):
    S = X @ X.T / np.sqrt(X.shape[1])
    W = np.exp(S - S.max(axis=1, keepdims=True))
    A = W / W.sum(axis=1, keepdims=True)
    return X + alpha * (A @ X - X)
""", "scaled by 1/sqrt(d)"),
    "03.1 a constant added to the weights": ("03.1", """
def my_attention_step(X, beta, alpha):
    S = beta * X @ X.T
    W = np.exp(S - S.max(axis=1, keepdims=True)) + 1e-3
    A = W / W.sum(axis=1, keepdims=True)
    return X + alpha * (A @ X - X)
""", "a constant was added to the weights"),
    "04.2 probabilities over the wrong axis": ("04.2", """
def output_gradient(H, Q, P):
    p_c = P.sum(axis=0)
    return (p_c[:, None] * Q - P).T @ H
""", "summed over the wrong axis"),
    "04.2 divided by the number of contexts": ("04.2", """
def output_gradient(H, Q, P):
    G = P.sum(axis=1)[:, None] * Q - P
    return G.T @ H / len(P)
""", "divided by the number of contexts"),
    "08.2 eigenvectors read as rows": ("08.2", """
def my_partition_isotropy(X):
    C = np.linalg.eigh(X.T @ X)[1]
    P = np.hstack([X @ C.T, -X @ C.T])
    top = P.max(axis=0)
    log_z = top + np.log(np.exp(P - top).sum(axis=0))
    return np.exp(log_z.min() - log_z.max())
""", "the eigenvectors were read as rows"),
    "09.1 axis=1, right on 2-D only": ("09.1", """
def my_rms_norm(x, gain, eps):
    return x / np.sqrt(np.mean(x ** 2, axis=1, keepdims=True) + eps) * gain
""", "the mean was taken over axis=1"),
}


@pytest.mark.parametrize("case", sorted(LEARNER_MISTAKES))
def test_each_mistake_a_learner_makes_is_named(case, fresh_hints):
    exercise, source, words = LEARNER_MISTAKES[case]
    ok, out = verdict(exercise, learner(source))
    assert not ok and "Likely mistake: " in out and words in out.split("Likely mistake: ")[1], out


def test_a_constant_added_to_the_scores_themselves_changes_nothing_and_passes():
    """Softmax divides each row by its own sum, so a constant added before np.exp is no mistake."""
    ok, out = verdict("03.1", learner("""
def my_attention_step(X, beta, alpha):
    S = beta * X @ X.T + 3.0
    W = np.exp(S - S.max(axis=1, keepdims=True))
    return X + alpha * (W / W.sum(axis=1, keepdims=True) @ X - X)
"""))
    assert ok, out


def test_every_mistake_has_a_stable_id():
    from shared.exercises.common import MISTAKE_ID, Mistake

    for name, ex in EXERCISES.items():
        for key, mistake in ex.mistakes.items():
            assert MISTAKE_ID.fullmatch(key), (name, key)
            assert isinstance(mistake, Mistake) and mistake.says
    assert set(IMPLEMENTATIONS["01.1"].mistakes) >= {"correlation_matrix", "column_norms", "eps_changes_answer"}
    assert set(IMPLEMENTATIONS["03.1"].mistakes) >= {"sqrt_d_instead_of_beta", "constant_in_weights"}
    assert set(IMPLEMENTATIONS["04.2"].mistakes) >= {"wrong_axis_probabilities", "divided_by_contexts"}
    assert "eigenvectors_as_rows" in IMPLEMENTATIONS["08.2"].mistakes
    with pytest.raises(ValueError, match="is not an id"):
        Exercise(reference=lambda: 1.0, right="", hints=("a", "b"), mistakes={"Not an id": ("says", 2.0)})
    with pytest.raises(ValueError, match="should be \\(what the check says, its model\\)"):
        Exercise(reference=lambda: 1.0, right="", hints=("a", "b"), mistakes={"bare": 2.0})


def test_the_verdict_carries_the_id_of_the_mistake_it_named():
    from shared.exercises import EXERCISES as ALL
    from shared.exercises.common import _verdict

    exercise, source, _ = LEARNER_MISTAKES["01.1 correlation matrix"]
    assert _verdict(ALL, exercise, learner(source), 0).mistake == "correlation_matrix"
    assert _verdict(ALL, "01.3", 50, 0).mistake == "zeros_counted"
    assert _verdict(ALL, "01.3", 30, 0).mistake == ""


def test_row_centring_is_not_told_only_about_np_cov():
    exercise, source, _ = LEARNER_MISTAKES["01.1 row-centring"]
    out = verdict(exercise, learner(source))[1]
    assert "axis=0" in out and out.index("axis=1") < out.index("np.cov(X)")


PLAIN_EXP = """
def my_partition_isotropy(X):
    C = np.linalg.eigh(X.T @ X)[1]
    P = X @ C
    Z = np.concatenate([np.exp(P).sum(axis=0), np.exp(-P).sum(axis=0)])
    return Z.min() / Z.max()
"""


def test_plain_exp_overflows_on_a_case_and_gets_the_log_sum_exp_advice():
    from shared.exercises.nb08 import long_vectors

    X = long_vectors()
    assert np.abs(X @ np.linalg.eigh(X.T @ X)[1]).max() > np.log(np.finfo(float).max), "the case must overflow exp"
    with np.errstate(over="ignore", invalid="ignore"):
        ok, out = verdict("08.2", learner(PLAIN_EXP))
    assert not ok and "On long vectors" in out and "NaN or inf" in out and "log-sum-exp" in out, out
    reference = IMPLEMENTATIONS["08.2"].reference(X=X)
    assert 0.2 < reference < 1.0, "the ratio is well inside (0, 1): only the overflow makes plain exp fail"


# The wrong numbers each computed exercise must reject, with why a learner might give them.
WRONG_NUMBERS = {
    "01.3": [50, 40, 0.2, 1.0],  # d, the zeros, k/d, one direction
    "02.1": [1 / 200, 1 / 50**0.5, 0.143, 0.0],  # 1/d, the d = 50 spread, notebook 02's figure, the mean
    "04.4": [0.90, 0.92, 1 - 0.9 / 100, 0.09, 0.1],  # rounded either way, no sqrt, the cut, the first token
    "05.3": [49 / 99, 7 / 56, 1 / 50, 49 / 50],  # d instead of d - 1, g not g^2, no gain, g^2 / d
    "06.4": [76.8, 0.768, 3.0],  # d/10, d/1000, the 300-d rule's figure
}


@pytest.mark.parametrize("exercise", sorted(WRONG_NUMBERS))
def test_tolerances_reject_every_named_wrong_number(exercise):
    for wrong in WRONG_NUMBERS[exercise]:
        ok, out = verdict(exercise, wrong)
        assert not ok, f"{exercise}: {wrong} is accepted ({out})"
    assert verdict(exercise, EXERCISES[exercise].reference())[0]


def test_every_computed_exercise_has_its_wrong_numbers_listed():
    computed = {name for name in ANSWERS if not EXERCISES[name].choices}
    assert computed == set(WRONG_NUMBERS)


@pytest.mark.parametrize("exercise", [name for name in ANSWERS if EXERCISES[name].mistakes])
def test_a_named_wrong_number_is_rejected_and_named(exercise, fresh_hints):
    for mistake, (says, value) in EXERCISES[exercise].mistakes.items():
        ok, out = verdict(exercise, value)
        assert not ok and f"Likely mistake: {says}." in out and "Hint" not in out, out
        assert value in WRONG_NUMBERS[exercise] or any(np.isclose(value, w) for w in WRONG_NUMBERS[exercise])


def test_a_named_wrong_number_inside_the_tolerance_is_refused():
    with pytest.raises(ValueError, match="within the tolerance of the answer"):
        Exercise(reference=lambda: 0.5, right="", hints=("a", "b"), abs_tol=0.02,
                 mistakes={"d_not_d_minus_1": ("d, not d - 1", 49 / 99)})


NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


@pytest.mark.parametrize("exercise", sorted(IMPLEMENTATIONS))
def test_each_prompt_states_the_cases_its_check_runs(exercise):
    """The prompt says how many cases the check runs and lists them, one item per case."""
    path = next((ROOT / "notebooks").glob(f"{exercise[:2]}_*.py"))
    prompt = re.search(rf"\*\*Your turn · {re.escape(exercise)} · Implement\.\*\*(.*?)\n\n", path.read_text(), re.S)
    assert prompt, f"{path.name}: no prompt for {exercise}"
    text = re.sub(r"\s*\n#\s*", " ", prompt.group(1))
    count = len(IMPLEMENTATIONS[exercise].cases())
    said = re.search(rf"\bon {NUMBER_WORDS[count]} [\w ]+?(?: \(|: )(.*?)(?:\)\.| and names|\.$)", text)
    assert said, f"{exercise}: the prompt does not say 'on {NUMBER_WORDS[count]} ...' ({count} cases): {text}"
    items = re.split(r",\s+(?:and\s+)?|\s+and\s+(?=a |an |rows |one |every |tokens |points |\d|\$k)", said.group(1))
    assert len(items) == count, f"{exercise}: the prompt lists {len(items)} cases, the check runs {count}: {items}"


@pytest.mark.parametrize("notebook", sorted((ROOT / "notebooks").glob("0*.py")), ids=lambda p: p.stem[:2])
def test_exercises_are_numbered_in_reading_order(notebook):
    """A notebook asks NN.1, NN.2, ... in that order, and the worked solutions follow the same order."""
    asked = re.findall(r"\*\*(?:Your turn · )?(\d\d\.\d) · \w+\.\*\*", notebook.read_text())
    stem = notebook.stem[:2]
    assert asked == [f"{stem}.{k}" for k in range(1, len(asked) + 1)], f"{notebook.name} asks {asked}"
    assert asked == sorted(name for name in EXERCISES if name.startswith(stem + "."))
    solved = re.findall(rf"^### ({stem}\.\d) · ", SOLUTIONS, re.M)
    assert solved == asked, f"SOLUTIONS.md states {solved}, the notebook asks {asked}"


# ----- the last hint leaves a decision -------------------------------------------------------------

# What fills each blank of the last hint's skeleton, in order: the skeleton filled with these passes
# (so the skeleton is honest), and no hint spells any of them out.
SKELETON_KEYS = {
    "01.1": ["X.mean(axis=0)", "Xc.T @ Xc / len(X)", "lam.sum() ** 2 / np.sum(lam ** 2)"],
    "02.3": ["np.linalg.norm(X, axis=1, keepdims=True)", "(C.sum() - np.trace(C)) / (len(X) * (len(X) - 1))"],
    "03.1": ["X @ X.T", "1", "W.sum(axis=1, keepdims=True)", "X + alpha * (A @ X - X)"],
    "04.2": ["P.sum(axis=1)", "p_c[:, None] * Q - P", "G.T @ H"],
    "05.1": ["lam / lam.sum()", "len(lam) * share", "new / new.mean()"],
    "06.1": ["X.mean(axis=0)", "V[:, V.shape[1] - k:]", "(Xc @ U) @ U.T"],
    "07.1": ["np.linalg.norm(X, axis=1, keepdims=True)", "groups[:, None] != groups[None, :]", "C[keep].mean()"],
    "08.2": ["X.T @ X", "np.hstack([X @ C, -X @ C])", "0", "top + np.log(np.exp(P - top).sum(axis=0))",
             "np.exp(log_z.min() - log_z.max())"],
    "09.1": ["x * x", "-1", "x / np.sqrt(ms + eps)"],
}


def skeleton_function(impl: Implementation, fills: list[str]):
    """The learner's function made from the last hint's skeleton of ``impl`` with ``fills`` in its blanks."""
    lines = [line.split("#")[0].rstrip() for line in impl.hints[-1].splitlines()[1:]]
    body = "\n".join(lines)
    assert body.count("____") == len(fills), f"{impl.name}: {body.count('____')} blanks, {len(fills)} fills"
    for fill in fills:
        body = body.replace("____", fill, 1)
    params = ", ".join(impl.cases()[0][1])
    return learner(f"def {impl.name}({params}):\n{body}\n")


# How a literal reader turns the hints' words into code: a phrase, and what it writes for it.
LEXICON = {
    r"over the points|of each column|down each column|each coordinate minus its mean": ["0"],
    r"along each row|over a row|each row of weights|axis 1\b|one row per context": ["1"],
    r"last axis": ["-1"],
    r"(?:d x d )?covariance of (\w+)": ["np.cov({0}.T)", "{0}.T @ {0} / len({0})"],
    r"\(sum of (\w+)\)\^2 over the sum of \w+\^2": ["{0}.sum() ** 2 / np.sum({0} ** 2)"],
}


def hint_fragments(hints: tuple[str, ...]) -> set[str]:
    """Everything in the hints a mechanical reader could copy into a blank: every run of one to six
    words that Python reads as an expression with a name, a call or an operator in it (``axis=1``
    gives ``1``), the skeleton's own lines included, and the code :data:`LEXICON` writes for the
    phrases it knows."""
    text = " ".join(hints)
    found = set(re.findall(r"axis\s*=?\s*(-?\d)", text))
    for phrase, codes in LEXICON.items():
        for match in re.finditer(phrase, text):
            found.update(code.format(*match.groups()) for code in codes)
    words = re.split(r"\s+", re.sub(r"[,;:](?=\s)|\.(?=\s|$)", " ", text))
    for size in range(1, 7):
        for i in range(len(words) - size + 1):
            fragment = " ".join(words[i:i + size])
            while fragment.startswith("(") and fragment.count("(") > fragment.count(")"):
                fragment = fragment[1:]
            while fragment.endswith(")") and fragment.count(")") > fragment.count("("):
                fragment = fragment[:-1]
            if not re.search(r"[A-Za-z_]|[-+*/@]", fragment) or "____" in fragment:
                continue
            with warnings.catch_warnings():  # "x is 1" compiles with a SyntaxWarning: not code anyway
                warnings.simplefilter("ignore")
                try:
                    compile(fragment, "<hint>", "eval")
                except SyntaxError:
                    continue
            found.add(fragment)
    return found


def filled_from_the_hints(impl: Implementation, key: list[str]) -> list[tuple[int, str]]:
    """The (blank, fragment) pairs where a fragment of the hints, put in that blank while the others
    hold the key, passes the check."""
    given = []
    for i in range(len(key)):
        for fragment in sorted(hint_fragments(impl.hints)):
            with np.errstate(all="ignore"), warnings.catch_warnings():  # the fragments make nonsense on purpose
                warnings.simplefilter("ignore")
                try:
                    fn = skeleton_function(impl, [*key[:i], fragment, *key[i + 1:]])
                except SyntaxError:
                    continue
                if verdict_of({"ex": impl}, "ex", fn)[0]:
                    given.append((i + 1, fragment))
    return given


@pytest.mark.parametrize("exercise", sorted(IMPLEMENTATIONS))
def test_the_last_hints_skeleton_filled_mechanically_from_the_hints_does_not_pass(exercise):
    """The skeleton is honest (its key passes), and no blank can be filled from the hints' own words:
    each blank, given every fragment of code-like text in the hints and every phrase a literal reader
    turns into code, while the others hold the key, fails the check. What goes into a blank is the
    learner's decision."""
    impl, key = IMPLEMENTATIONS[exercise], SKELETON_KEYS[exercise]
    ok, out = verdict(exercise, skeleton_function(impl, key))
    assert ok, f"{exercise}: the skeleton filled with its key fails: {out}"
    assert hint_fragments(impl.hints), "the reader finds something to copy, or this test checks nothing"
    given = filled_from_the_hints(impl, key)
    assert not given, f"{exercise}: blanks the hints fill (blank, words): {given}"


# The hints 01.1 had when its blanks were spelled out in words: the reader fills them.
SPELLED_OUT = (
    "The participation ratio asks how many directions share the spread.",
    "Centre each coordinate (subtract the mean of each column, over the points), and make the covariance d x d.",
    "Fill the blanks:\n"
    "    Xc = X - X.mean(axis=____)        # each coordinate minus its mean over the points\n"
    "    lam = np.linalg.eigvalsh(____)    # the d x d covariance of Xc\n"
    "    return ____                       # (sum of lam)^2 over the sum of lam^2",
)


def test_the_mechanical_reader_fills_a_skeleton_spelled_out_in_words():
    import dataclasses

    impl = dataclasses.replace(IMPLEMENTATIONS["01.1"], hints=SPELLED_OUT)
    given = filled_from_the_hints(impl, ["0", "Xc.T @ Xc / len(X)", "lam.sum() ** 2 / np.sum(lam ** 2)"])
    assert {blank for blank, _ in given} == {1, 2, 3}, given


NUMERIC = sorted(name for name in ANSWERS if not EXERCISES[name].choices)


def arithmetic_in(text: str) -> list[float]:
    """The value of every number and every piece of arithmetic in ``text`` (sqrt, ^, fractions)."""
    values = []
    for piece in re.findall(r"[\dS(][\dS\s.+\-*/^()]*", text.replace("sqrt", "S")):
        piece = piece.strip().rstrip(".").replace("^", "**")
        for start in range(len(piece)):  # every tail too: "gamma 1 - 0.9" reads 1 - 0.9 and 0.9
            try:
                values.append(float(eval(piece[start:], {"__builtins__": {}, "S": math.sqrt})))  # noqa: S307
            except Exception:  # not a whole expression
                pass
    values += [float(n) for n in re.findall(r"\d+(?:\.\d+)?", text)]
    return values


@pytest.mark.parametrize("exercise", NUMERIC)
def test_no_hint_of_a_numeric_question_does_its_arithmetic(exercise):
    ex = EXERCISES[exercise]
    answer = float(ex.reference())
    for hint in ex.hints:
        done = [v for v in arithmetic_in(hint) if math.isclose(v, answer, rel_tol=ex.rel_tol, abs_tol=ex.abs_tol)]
        assert not done, f"{exercise}: a hint reaches the answer: {hint!r}"
        assert not re.search(r"\b(evaluate|divide|multiply|plug)\b", hint, re.I) or "?" in hint, (
            f"{exercise}: a hint tells the learner which operation to carry out: {hint!r}")


def test_the_arithmetic_reader_would_have_caught_the_old_hints():
    assert any(math.isclose(v, 0.91, abs_tol=0.002) for v in arithmetic_in("Evaluate 1 - 0.9 * sqrt(1/100)."))
    assert any(math.isclose(v, 7.68, abs_tol=0.7) for v in arithmetic_in("768 / 100"))
