"""Assignments and grading: the nbgrader course that scripts/make_assignments.py makes, tried end to end.

The round trip runs the real nbgrader (the ``classroom`` dependency group) on notebook 01: generate the
release, grade synthetic submissions in the sandbox kernel (another user, limits, empty environment), and
write feedback. Each submission's grade must mean what the course's check says: full marks when right, 0
for an exercise with a named mistake (and the feedback names it in the check's words), for a function
that returns None, raises or loops, that is tuned to the visible cases, or that calls the toolkit. The
release checks run on all nine notebooks. Marked ``classroom`` (needs root, as CI has).
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import make_assignments  # noqa: E402 (a script of the course, imported for its helpers)

pytestmark = [pytest.mark.classroom,
              pytest.mark.skipif(os.geteuid() != 0, reason="grading runs kernels as another user: needs root")]

NB = "01_sphere_vs_cone"
#: The toolkit's function that computes each implement-it exercise: what a learner must not call.
TOOLKIT = {"01.1": "shared.meters.effective_rank", "02.3": "shared.meters.mean_cosine",
           "03.1": "shared.mechanisms.attention_step", "04.2": "shared.mechanisms.logit_gradient",
           "05.1": "shared.mechanisms.rich_get_richer_step", "06.1": "shared.remedies.all_but_the_top",
           "07.1": "shared.meters.cross_group_cosines", "08.2": "shared.meters.partition_isotropy",
           "09.1": "shared.real.decoder.rms_norm"}
SANDBOX = "course-sandbox-test"
SECRET = "grader-secret-4c1f0a"
NBGRADER = str(Path(sys.executable).parent / "nbgrader")
SEED = 20261202


def nbgrader(course: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    run = subprocess.run([NBGRADER, *args], cwd=course, capture_output=True, text=True, timeout=900,
                         env={**os.environ, **(env or {})})
    assert run.returncode == 0, run.stdout + run.stderr
    return run


@pytest.fixture(scope="module")
def place():
    """A directory every user can traverse, with the grading environment in it; removed afterwards."""
    base = Path(tempfile.mkdtemp(prefix="course-grading-"))
    base.chmod(0o755)
    yield base
    sandbox_pids = subprocess.run(["ps", "-u", SANDBOX, "-o", "pid="], capture_output=True, text=True).stdout.split()
    for pid in sandbox_pids:  # what the tests' submissions left running, by id
        try:
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass
    from classroom.cli import release_exchanges

    release_exchanges(base)  # the course's exchange, on a file system of its own
    shutil.rmtree(base, ignore_errors=True)  # everything the tests made is below it (the sandbox keeps nothing)
    subprocess.run(["userdel", SANDBOX], capture_output=True)


@pytest.fixture(scope="module")
def course(place):
    course = place / "course"
    make_assignments.main([str(course), "--only", NB[:2], "--hidden-seed", str(SEED), "--prefix", str(place),
                           "--exchange", str(place / "exchange"), "--sandbox-user", SANDBOX, "--timeout", "20"])
    nbgrader(course, "generate_assignment", NB, "--create")
    return course


@pytest.fixture(scope="module")
def sandbox(course, place):
    from classroom.grading import Sandbox

    return Sandbox(SANDBOX, place / "venv", timeout=60)


def cells_by_id(nb) -> dict:
    return {c.metadata["nbgrader"]["grade_id"]: c for c in nb.cells if "nbgrader" in c.metadata}


def solution_of(source_cell) -> str:
    """The instructor's cell with the delimiters removed: what a student who solved it would have."""
    return "\n".join(line for line in source_cell.source.splitlines() if "### BEGIN SOLUTION" not in line
                     and "### END SOLUTION" not in line)


MISTAKES = {  # the learner's own numpy, each making one of 01.1's named mistakes (words from the check)
    "not centred": ("the cloud was not centred",
                    "def my_effective_rank(X):\n    lam = np.linalg.eigvalsh(X.T @ X / len(X))\n"
                    "    return lam.sum() ** 2 / np.sum(lam ** 2)"),
    "singular values": ("singular values are standard deviations",
                        "def my_effective_rank(X):\n    s = np.linalg.svd(X - X.mean(axis=0), compute_uv=False)\n"
                        "    return s.sum() ** 2 / np.sum(s ** 2)"),
}


def overfit_source(release) -> str:
    """A function that returns the right number on the six clouds the class check shows, and the
    dimension otherwise: tuned to the visible cases."""
    from shared.exercises import EXERCISES

    impl = EXERCISES["01.1"]
    table = {round(float(kw["X"].sum()), 6): float(impl.reference(**kw)) for _, kw in impl.cases()}
    return (f"KNOWN = {table!r}\n\n\ndef my_effective_rank(X):\n"
            "    return KNOWN.get(round(float(X.sum()), 6), float(X.shape[1]))")


HOSTILE = '''import os, subprocess
for path, mode in [("{course}/source/{nb}/{nb}.ipynb", "r"), ("{course}/gradebook.db", "a"),
                   ("{course}/submitted/correct/{nb}/{nb}.ipynb", "a"), ("{course}/.hidden_seed", "r")]:
    try:
        with open(path, mode) as f:
            print("GOT", path, f.read(100) if mode == "r" else f.write("x"))
    except OSError as error:
        print("refused:", path, type(error).__name__)
print("secret:", os.environ.get("GRADER_SECRET"), "env:", sorted(os.environ))
subprocess.Popen(["sleep", "600"], start_new_session=True)  # something left running for the next kernel
def my_effective_rank(X):
    Xc = X - X.mean(axis=0)
    lam = np.linalg.eigvalsh(Xc.T @ Xc / len(X))
    return lam.sum() ** 2 / np.sum(lam ** 2)'''


def submissions(course: Path) -> dict[str, tuple[dict, dict]]:
    """Each synthetic submission: (what it puts in which cell, the points it should get per test cell)."""
    source = cells_by_id(nbformat.read(course / "source" / NB / f"{NB}.ipynb", 4))
    right = {gid: solution_of(c) for gid, c in source.items() if gid.endswith("-answer")}
    full = {"ex01-1-test": 3, "ex01-3-test": 1, "ex01-2-test": 1}
    no_01_1 = {**full, "ex01-1-test": 0}
    subs = {
        "correct": (right, full),
        "returns-none": ({**right, "ex01-1-answer": "def my_effective_rank(X):\n    lam = np.linalg.eigvalsh(np.cov(X.T))"},
                         no_01_1),
        "raises": ({**right, "ex01-1-answer": "def my_effective_rank(X):\n    raise ValueError('no idea')"}, no_01_1),
        "loops": ({**right, "ex01-1-answer": "def my_effective_rank(X):\n    while True:\n        pass"}, no_01_1),
        "overfit": ({**right, "ex01-1-answer": None}, no_01_1),  # filled from the release below
        "toolkit": ({**right, "ex01-1-answer": "my_effective_rank = lambda X: effective_rank(cov_eigs(X))"}, no_01_1),
        "toolkit-hidden": ({**right, "ex01-1-answer": (
            "def my_effective_rank(X):\n    m = __import__('importlib').import_module('shared.' + 'meters')\n"
            "    return getattr(m, 'effective' + '_rank')(getattr(m, 'cov' + '_eigs')(X))")}, no_01_1),
        "edited": ({**right, "ex01-3-answer": "answer = 49", "ex01-3-test": "print('looks right to me')"},
                   {**full, "ex01-3-test": 0}),
        "deleted": ({**right, "ex01-2-answer": None, "ex01-2-test": None, "drop-figures": None},
                    {**full, "ex01-2-test": 0}),
    }
    # Each with a wrong answer to a question too: 50 for 01.3, "a" for 01.2.
    wrong = [("ex01-3-answer", "answer = 50", "ex01-3-test"), ("ex01-2-answer", 'answer = "a"', "ex01-2-test")]
    for (name, (words, code)), (cell, answer, test) in zip(MISTAKES.items(), wrong):
        subs[f"mistake-{name.replace(' ', '-')}"] = ({**right, "ex01-1-answer": code, cell: answer},
                                                     {**no_01_1, test: 0})
    return subs


def write_submission(course: Path, student: str, cells: dict) -> None:
    nb = nbformat.read(course / "release" / NB / f"{NB}.ipynb", 4)
    kept = []
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id")
        if gid in cells and cells[gid] is None:
            continue  # deleted by the student
        if gid in cells:
            cell.source = cells[gid]
        if "drop-figures" in cells and cell.cell_type == "code" and "SphereConeView(" in cell.source and not gid:
            continue  # a figure cell deleted
        kept.append(cell)
    nb.cells = kept
    path = course / "submitted" / student / NB / f"{NB}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def scores(course: Path) -> dict[str, dict[str, float]]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return {s.id: {g.name: g.score for g in gb.find_submission_notebook(NB, NB, s.id).grades}
                for s in gb.students if any(sub.assignment.name == NB for sub in s.submissions)}


def test_release_has_no_solutions_no_outputs_no_hidden_cases(place):
    """All nine notebooks, released as one assignment: nothing in them answers an exercise."""
    course = place / "release-check"
    make_assignments.main([str(course), "--hidden-seed", str(SEED), "--prefix", str(place),
                           "--exchange", str(place / "exchange"), "--sandbox-user", SANDBOX])
    everything = course / "source" / "all"
    everything.mkdir()
    for folder in sorted((course / "source").glob("[0-9][0-9]_*")):
        shutil.copy(folder / f"{folder.name}.ipynb", everything)
    nbgrader(course, "generate_assignment", "all", "--create")
    released = sorted((course / "release" / "all").glob("*.ipynb"))
    assert len(released) == 9
    solved = make_assignments.solutions()
    secrets_ = [line.strip() for kind, code in solved.values() for line in code.splitlines()
                if len(line.strip()) > 6 and not line.startswith(("import ", "def "))]
    for path in released:
        text = path.read_text()
        learner = "\n".join(c.source for c in nbformat.read(ROOT / "notebooks" / path.name, 4).cells)
        nb = nbformat.reads(text, 4)
        assert "SOLUTIONS" not in text and "solution(" not in text, f"{path.name} points at the worked solutions"
        for marker in ("BEGIN SOLUTION", "HIDDEN TESTS", "not shown in class", str(SEED)):
            assert marker not in text, f"{path.name} holds {marker!r}"
        for cell in nb.cells:
            assert cell.get("outputs", []) == [], f"{path.name} keeps a stored output"
            for line in secrets_:
                assert line not in cell.source or line in learner, f"{path.name} holds a line of a solution: {line}"
        assert "widgets" not in nb.metadata, f"{path.name} keeps the explorers' stored state"
        tests = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
        answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
        exercises = {e for e in solved if e[:2] == path.name[:2]}
        assert len(tests) == len(answers) == len(exercises) > 0, path.name
        assert all(make_assignments.STUB in c.source for c in answers)
        assert all("verdict(" in c.source for c in tests)
    # The sources are made, not kept: the same notebooks and seed give the same bytes.
    again = place / "again"
    make_assignments.main([str(again), "--only", "01", "--hidden-seed", str(SEED), "--prefix", str(place),
                           "--exchange", str(place / "exchange"), "--sandbox-user", SANDBOX])
    first = (course / "source" / NB / f"{NB}.ipynb").read_bytes()
    assert (again / "source" / NB / f"{NB}.ipynb").read_bytes() == first
    assert (course / ".hidden_seed").stat().st_mode & 0o777 == 0o600
    assert course.stat().st_mode & 0o777 == 0o700


def test_grades_mean_what_the_checks_mean(course):
    subs = submissions(course)
    release = nbformat.read(course / "release" / NB / f"{NB}.ipynb", 4)
    subs["overfit"][0]["ex01-1-answer"] = overfit_source(release)
    graded_first = [s for s in subs]
    for student, (cells, _) in subs.items():
        write_submission(course, student, cells)
    write_submission(course, "hostile", {"ex01-1-answer": HOSTILE.format(course=course, nb=NB),
                                         "ex01-3-answer": "answer = 10", "ex01-2-answer": 'answer = "c"'})
    # The hostile submission first, alone: what it tries must not reach the others, graded after it.
    correct_submitted = (course / "submitted" / "correct" / NB / f"{NB}.ipynb").read_bytes()
    nbgrader(course, "autograde", NB, "--student", "hostile", "--create", env={"GRADER_SECRET": SECRET})
    out = "\n".join(o.get("text", "") for c in nbformat.read(course / "autograded" / "hostile" / NB / f"{NB}.ipynb", 4).cells
                    for o in c.get("outputs", []))
    assert "GOT" not in out and "refused:" not in out and "secret:" not in out, out  # its other lines never ran
    assert (course / "submitted" / "correct" / NB / f"{NB}.ipynb").read_bytes() == correct_submitted
    assert scores(course)["hostile"] == {"ex01-1-test": 3.0, "ex01-3-test": 1.0, "ex01-2-test": 1.0}

    nbgrader(course, "autograde", NB, "--create", env={"GRADER_SECRET": SECRET})
    got = scores(course)
    for student in graded_first:
        assert got[student] == {k: float(v) for k, v in subs[student][1].items()}, (student, got[student])

    autograded = {s: nbformat.read(course / "autograded" / s / NB / f"{NB}.ipynb", 4) for s in graded_first}

    def said(student: str, grade_id: str) -> str:
        cell = cells_by_id(autograded[student])[grade_id]
        return "\n".join(o.get("text", "") + o.get("ename", "") + ": " + o.get("evalue", "") for o in cell.outputs)

    from shared.exercises import EXERCISES

    for name, (words, _) in MISTAKES.items():
        student = f"mistake-{name.replace(' ', '-')}"
        named = [m.says for m in EXERCISES["01.1"].mistakes.values() if m.says.startswith(words)]
        assert len(named) == 1 and f"Likely mistake: {named[0]}" in said(student, "ex01-1-test"), said(student, "ex01-1-test")
    assert "returned None" in said("returns-none", "ex01-1-test")
    assert "raised ValueError: no idea" in said("raises", "ex01-1-test")
    assert "did not finish within 20 seconds" in said("loops", "ex01-1-test"), said("loops", "ex01-1-test")
    assert "a case not shown in class" in said("overfit", "ex01-1-test"), said("overfit", "ex01-1-test")
    for student in ("toolkit", "toolkit-hidden"):
        assert "write it yourself" in said(student, "ex01-1-test"), said(student, "ex01-1-test")
    # A changed test cell is put back from the source (nbgrader's checksums): the edit gains nothing.
    source = cells_by_id(nbformat.read(course / "source" / NB / f"{NB}.ipynb", 4))
    assert cells_by_id(autograded["edited"])["ex01-3-test"].source == source["ex01-3-test"].source
    assert "looks right to me" not in json.dumps(autograded["edited"])

    # Feedback: the file a student gets names the mistake in the check's words, and shows no hidden case.
    nbgrader(course, "generate_feedback", NB)
    feedback = (course / "feedback" / "mistake-not-centred" / NB / f"{NB}.html").read_text()
    assert "the cloud was not centred" in feedback
    assert "write it yourself" in (course / "feedback" / "toolkit" / NB / f"{NB}.html").read_text()
    overfit = (course / "feedback" / "overfit" / NB / f"{NB}.html").read_text()
    assert "a case not shown in class" in overfit
    for hidden in ("HIDDEN TESTS", "gaussian_cloud(137, 11", str(SEED)):
        assert hidden not in overfit, hidden

    # What the hostile one left running was gone when the next kernel started.
    left = subprocess.run(["ps", "-u", SANDBOX, "-o", "args="], capture_output=True, text=True).stdout
    assert "sleep 600" not in left, left
    assert scores(course)["hostile"] == {"ex01-1-test": 3.0, "ex01-3-test": 1.0, "ex01-2-test": 1.0}


STUDENT = "course-student-test"


@pytest.fixture(scope="module")
def student(place):
    """A student's account with a private home, removed afterwards."""
    home = place / "home" / STUDENT
    home.parent.mkdir()
    home.parent.chmod(0o755)
    subprocess.run(["useradd", "--create-home", "--home-dir", str(home), "--shell", "/bin/sh", "--user-group",
                    STUDENT], check=True)
    home.chmod(0o700)
    yield home
    subprocess.run(["userdel", STUDENT], check=False)


def as_student(home: Path, place: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run the course environment's nbgrader as the student, with the exchange the course uses."""
    run = subprocess.run(["setpriv", f"--reuid={STUDENT}", f"--regid={STUDENT}", "--init-groups", "--",
                          str(place / "venv" / "bin" / "nbgrader"), *args, f"--Exchange.root={place / 'exchange'}"],
                         cwd=cwd or home, capture_output=True, text=True, timeout=300,
                         env={"HOME": str(home), "USER": STUDENT, "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stdout + run.stderr
    return run


def test_a_student_fetches_and_submits_through_the_exchange_and_is_graded(course, place, student):
    # the student gets a submission folder of their own in the exchange (as a class server's learners do)
    make_assignments.main([str(course), "--only", NB[:2], "--hidden-seed", str(SEED), "--prefix", str(place),
                           "--exchange", str(place / "exchange"), "--sandbox-user", SANDBOX, "--timeout", "20",
                           "--learners", STUDENT])
    assert os.path.ismount(place / "exchange" / "isotropy-anisotropy" / "inbound" / STUDENT)
    nbgrader(course, "release_assignment", NB, "--force")
    as_student(student, place, "fetch_assignment", NB, "--course", "isotropy-anisotropy")
    fetched = student / NB / f"{NB}.ipynb"
    nb = nbformat.read(fetched, 4)
    source = cells_by_id(nbformat.read(course / "source" / NB / f"{NB}.ipynb", 4))
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if gid.endswith("-answer"):
            cell.source = solution_of(source[gid])
    subprocess.run(["setpriv", f"--reuid={STUDENT}", f"--regid={STUDENT}", "--init-groups", "--", str(place / "venv" / "bin" / "python"), "-c",
                    f"import sys, nbformat; nbformat.write(nbformat.reads(sys.stdin.read(), 4), {str(fetched)!r})"],
                   input=nbformat.writes(nb), text=True, check=True, env={"PATH": "/usr/bin:/bin"})
    as_student(student, place, "submit", NB, "--course", "isotropy-anisotropy")
    nbgrader(course, "collect", NB)
    nbgrader(course, "autograde", NB, "--student", STUDENT, "--create")
    assert scores(course)[STUDENT] == {"ex01-1-test": 3.0, "ex01-3-test": 1.0, "ex01-2-test": 1.0}
    # The student's server cannot read the course: sources, hidden tests, seed, gradebook.
    peek = subprocess.run(["setpriv", f"--reuid={STUDENT}", f"--regid={STUDENT}", "--init-groups", "--", "ls",
                           str(course / "source")], capture_output=True, text=True)
    assert peek.returncode != 0 and "Permission denied" in peek.stderr


def test_on_the_class_server_a_student_fetches_and_submits_and_the_teacher_grades_in_formgrader(place):
    """The hub of ``python -m classroom serve``: the learner uses nbgrader's assignment list in their own
    server, the teacher formgrader in theirs; autograde runs as root in the sandbox in between."""
    from classroom.trial import trial_class

    with trial_class(1, ["--idle-timeout", "3600", "--no-store"]) as room:
        name, teacher = room.students[0], room.teacher
        course = Path(pwd.getpwnam(teacher).pw_dir) / "isotropy" / "grading"  # formgrader: below the server's root
        make_assignments.main([str(course), "--only", NB[:2], "--hidden-seed", str(SEED), "--prefix", str(room.prefix),
                               "--exchange", str(room.prefix / "exchange"), "--sandbox-user", SANDBOX,
                               "--owner", teacher, "--timeout", "20"])
        assert os.path.ismount(room.prefix / "exchange")  # a file system of its own, by default
        nbgrader(course, "generate_assignment", NB, "--create")
        nbgrader(course, "release_assignment", NB)

        learner = room.student(name)
        assert learner.log_in()
        learner.get_token()
        learner.start_server()
        own = f"/user/{name}"
        listed = learner.api("GET", f"{own}/assignments", params={"course_id": "isotropy-anisotropy"})
        assert listed.ok and any(a["assignment_id"] == NB and a["status"] == "released" for a in listed.json()["value"]), listed.text
        fetched = learner.api("POST", f"{own}/assignments/fetch", data={"course_id": "isotropy-anisotropy", "assignment_id": NB})
        assert fetched.ok and fetched.json()["success"], fetched.text
        path = f"{NB}/{NB}.ipynb"
        nb = learner.server("GET", f"contents/{path}").json()["content"]
        source = cells_by_id(nbformat.read(course / "source" / NB / f"{NB}.ipynb", 4))
        for cell in nb["cells"]:
            gid = cell["metadata"].get("nbgrader", {}).get("grade_id", "")
            if gid.endswith("-answer"):
                cell["source"] = solution_of(source[gid]) if gid != "ex01-2-answer" else 'answer = "a"'
        saved = learner.server("PUT", f"contents/{path}", json={"type": "notebook", "format": "json", "content": nb})
        assert saved.ok, saved.text
        submitted = learner.api("POST", f"{own}/assignments/submit", data={"course_id": "isotropy-anisotropy", "assignment_id": NB})
        assert submitted.ok and submitted.json()["success"], submitted.text
        own_folder = room.prefix / "exchange" / "isotropy-anisotropy" / "inbound" / name  # theirs, capped
        assert os.path.ismount(own_folder) and list(own_folder.glob(f"{name}+{NB}+*"))
        # The learner's server cannot read the course (sources, hidden tests) or the gradebook, and has no formgrader.
        assert learner.api("GET", f"{own}/formgrader/api/assignments").status_code == 404
        peek = subprocess.run(["runuser", "-u", name, "--", "ls", str(course)], capture_output=True, text=True)
        assert peek.returncode != 0 and "Permission denied" in peek.stderr

        nbgrader(course, "collect", NB)
        nbgrader(course, "autograde", NB, "--create")
        subprocess.run(["chown", "-R", f"{teacher}:", str(course)], check=True)

        grader = room.student(teacher)
        assert grader.log_in()
        grader.get_token()
        grader.start_server()
        api = f"/user/{teacher}/formgrader/api"
        # the teacher's kernel, which opens learners' notebooks, imports nothing from the notebook's folder
        spec = json.loads((Path(pwd.getpwnam(teacher).pw_dir) / ".local/share/jupyter/kernels/python3/kernel.json").read_text())
        assert spec["argv"][1] == "-P", spec
        subs = grader.api("GET", f"{api}/submissions/{NB}")
        assert subs.ok, subs.text
        (mine,) = [s for s in subs.json() if s["student"] == name]
        assert (mine["score"], mine["max_score"]) == (4.0, 5.0)
        # The teacher looks at the wrong question and gives a point by hand, with a comment.
        (notebook,) = grader.api("GET", f"{api}/submitted_notebooks/{NB}/{NB}").json()
        grades = grader.api("GET", f"{api}/grades", params={"submission_id": notebook["id"]}).json()
        (q3,) = [g for g in grades if g["name"] == "ex01-2-test"]
        assert q3["auto_score"] == 0.0
        put = grader.api("PUT", f"{api}/grade/{q3['id']}", json={"manual_score": 0.5})
        assert put.ok, put.text
        subs = grader.api("GET", f"{api}/submissions/{NB}").json()
        assert [s["score"] for s in subs if s["student"] == name] == [4.5]
        feedback = grader.api("POST", f"{api}/assignment/{NB}/{name}/generate_feedback")
        assert feedback.ok and feedback.json()["success"], feedback.text


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")), ids=lambda p: p.name[:2])
def test_each_answer_of_the_worked_solutions_passes_and_the_toolkit_fails(path, sandbox):
    """Every notebook's graded answers, hidden cases included, graded as autograde grades them (in the
    sandbox): the solutions of SOLUTIONS.md pass them all, and a function that hands the work to the
    toolkit fails with the reason."""
    from classroom.grading import grade_notebook
    from shared.exercises import EXERCISES, Implementation

    nb = make_assignments.source_notebook(path)
    cells = [{**c, "source": solution_of(c) if "nbgrader" in c.metadata else c.source} for c in nb.cells]
    grades = grade_notebook(cells, path, sandbox, SEED)
    assert grades and all(ok for ok, _ in grades.values()), grades
    for cell in cells:
        gid = cell["metadata"].get("nbgrader", {}).get("grade_id", "")
        impl = EXERCISES.get(gid[2:4] + "." + gid[5:6])
        if gid.endswith("-answer") and isinstance(impl, Implementation):
            module, _, attr = TOOLKIT[gid[2:4] + "." + gid[5]].rpartition(".")
            cell["source"] = f"def {impl.name}(**kwargs):\n    from {module} import {attr}\n    return {attr}(**kwargs)"
    grades = grade_notebook(cells, path, sandbox, SEED)
    for gid, (ok, message) in grades.items():
        if isinstance(EXERCISES[gid[2:4] + "." + gid[5]], Implementation):
            assert not ok and "write it yourself" in message, message
