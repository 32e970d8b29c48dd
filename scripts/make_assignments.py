"""Make the nbgrader course for a class: one assignment per course notebook, graded by the course's own checks.

    sudo uv run --group classroom python scripts/make_assignments.py COURSE [--only 01 09] [--prefix /opt/isotropy]

writes into the course directory COURSE (created, mode 0700: students must not read it):

* ``source/NN_name/NN_name.ipynb``, the instructor's version of each notebook. The learner's notebook
  stays as it is; here its implement-it cell becomes a solution cell whose body is the worked solution
  of ``notebooks/SOLUTIONS.md`` between ``### BEGIN SOLUTION`` / ``### END SOLUTION``, each answer cell
  (``answer = None``) becomes a solution cell holding the answer of SOLUTIONS.md, and each ``check(...)``
  becomes an autograded test cell with points: it calls the course's ``verdict`` and asserts with its
  message, so the grade and the feedback say what the check says in class. Inside
  ``### BEGIN HIDDEN TESTS`` blocks (removed from the students' release) a test cell also runs cases the
  class never sees (other seeds and shapes, drawn with the course's secret seed ``COURSE/.hidden_seed``).
  A function that hands the work to the toolkit's own, however it reaches it, gets 0 from the verdict
  itself, with what was seen running, as in class.
  Outputs are cleared, and the sentence pointing at SOLUTIONS.md is left out.
* ``nbgrader_config.py``: the course, the exchange, and an autograder that runs each submission's kernel
  through ``classroom/nbgrader/sandbox-kernel``, as the unprivileged user ``--sandbox-user`` (created if
  missing) with memory, CPU and process limits and an empty environment.
* ``jupyter/kernels/course-sandbox/kernel.json``: that kernel.

The sources are generated, never edited by hand: run this again after changing a notebook, SOLUTIONS.md
or a check (the secret seed is kept, so the hidden cases stay the same). The grading kernel needs a course
environment that the sandbox user can read: the class server's, ``PREFIX/venv`` (``--prefix``, default
``/opt/isotropy`` as for ``python -m classroom serve``), made by ``classroom.install`` if missing.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import pwd
import re
import secrets
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from classroom.install import install_environment  # noqa: E402 (the class server's environment: one home)

NOTEBOOKS = ROOT / "notebooks"
SANDBOX_KERNEL = ROOT / "classroom" / "nbgrader" / "sandbox-kernel"
KERNEL_NAME = "course-sandbox"
#: What a student sees in place of a solution: the same line as in the learner's notebook.
STUB = "raise NotImplementedError  # replace this line with your code"
POINTS = {"Implement": 3}  # every other kind (Predict, Explain, Compute): 1 point
#: A sentence of prose that leads to the worked solutions (names SOLUTIONS.md or ``solution("NN.K")``): it
#: starts after a full stop, a line break or the start, holds no full stop followed by a space, and ends
#: with one.
SOLUTIONS_LINK = re.compile(r"(?:(?<=[.\n])|\A)[ \t]*(?:(?!\.\s)[^\n]|\n(?!\n))*?"
                            r"(?:SOLUTIONS\.md|solution\(\"\d\d\.\d\"\))(?:(?!\.\s)[^\n]|\n(?!\n))*?\.(?=\s|\Z)")
#: A line that shows a worked solution on request (``solution("01.1")``, commented out or not).
SOLUTION_CALL = re.compile(r"^[ \t]*#?[ \t]*solution\(\"\d\d\.\d\"\).*\n?", re.M)
CHECK = re.compile(r'^check\("(\d\d\.\d)", (\w+)\)\s*$', re.M)

#: Cases the checks in class do not show, per implement-it exercise: Python source of a list of
#: (description, keyword arguments), with ``rng`` a generator seeded by the course's secret seed. Other
#: sizes, seeds and edge cases, so that a function tuned to the visible cases does not pass.
HIDDEN_CASES = {
    "01.1": """
        from shared.geometry import make_cone
        from shared.exercises.common import gaussian_cloud
        s = int(rng.integers(10**6))
        flat = rng.standard_normal((90, 7)); flat[:, 3] = 2.5  # a constant coordinate
        cases = [
            ("an uneven Gaussian shifted far from the origin (137 x 11)", dict(X=gaussian_cloud(137, 11, s, shift=6.0))),
            ("a cone (250 x 12)", dict(X=make_cone(250, 12, s + 1))),
            ("3 points in 7 dimensions", dict(X=rng.standard_normal((3, 7)) + 1.0)),
            ("a cloud with a constant coordinate (90 x 7)", dict(X=flat)),
        ]""",
    "02.3": """
        from shared.geometry import make_isotropic
        s = int(rng.integers(10**6))
        cases = [
            ("a shifted Gaussian (91 x 13)", dict(X=make_isotropic(91, 13, s) + 0.7)),
            ("three points in 4 dimensions", dict(X=rng.standard_normal((3, 4)) + 0.5)),
            ("points of lengths from 0.01 to 1000 (60 x 3)",
             dict(X=(rng.standard_normal((60, 3)) + 1.0) * np.geomspace(0.01, 1000.0, 60)[:, None])),
        ]""",
    "03.1": """
        from shared.exercises.common import gaussian_cloud
        s = int(rng.integers(10**6))
        cases = [
            ("25 tokens in 4-D, beta 0.3, alpha 0.2", dict(X=gaussian_cloud(25, 4, s), beta=0.3, alpha=0.2)),
            ("7 tokens in 9-D, beta 1.7, alpha 0.8", dict(X=gaussian_cloud(7, 9, s + 1) + 0.4, beta=1.7, alpha=0.8)),
            ("very large scores (tokens of size 80)", dict(X=80.0 * gaussian_cloud(12, 3, s + 2), beta=0.5, alpha=0.4)),
        ]""",
    "04.2": """
        from shared.exercises.nb04 import lm_case
        s = int(rng.integers(10**6))
        cases = [
            ("7 tokens in 5-D, Zipf exponent 1.5", lm_case(7, 5, s, 1.5)),
            ("12 tokens in 3-D, Zipf exponent 0.7", lm_case(12, 3, s + 1, 0.7)),
        ]""",
    "05.1": """
        cases = [
            ("a random spectrum of 17, eta 0.07", dict(lam=rng.uniform(0.1, 5.0, 17), eta=0.07)),
            ("a spectrum of 3 with mean 1, eta 1.3", dict(lam=np.array([2.0, 0.7, 0.3]), eta=1.3)),
            ("a long spectrum of 200, eta 0.01", dict(lam=rng.exponential(2.0, 200), eta=0.01)),
        ]""",
    "06.1": """
        from shared.geometry import make_cone
        from shared.exercises.common import gaussian_cloud
        s = int(rng.integers(10**6))
        cases = [
            ("an uneven Gaussian shifted by +1.5 (120 x 7), k = 2", dict(X=gaussian_cloud(120, 7, s, shift=1.5), k=2)),
            ("a cone (200 x 5), k = 4", dict(X=make_cone(200, 5, s + 1), k=4)),
            ("a cloud in 10-D, k = 1", dict(X=gaussian_cloud(80, 10, s + 2, shift=-2.0), k=1)),
        ]""",
    "07.1": """
        from shared.geometry import make_isotropic
        s = int(rng.integers(10**6))
        cases = [
            ("tokens whose sentences are not in order", dict(X=make_isotropic(18, 5, s) + 0.8,
                                                               groups=rng.permutation(np.arange(18) % 4))),
            ("two sentences of 1 and 9 tokens", dict(X=make_isotropic(10, 3, s + 1) + 0.3,
                                                     groups=np.array([7] + [2] * 9))),
        ]""",
    "08.2": """
        from shared.geometry import make_cone
        from shared.exercises.common import gaussian_cloud
        s = int(rng.integers(10**6))
        cases = [
            ("an uneven Gaussian with an offset (150 x 4)",
             dict(X=gaussian_cloud(150, 4, s, scales=(1.1, 0.9, 0.5, 0.2), shift=0.5))),
            ("a cone of short vectors (300 x 5)", dict(X=0.3 * make_cone(300, 5, s + 1))),
            ("long vectors, where exp overflows without log-sum-exp (200 x 3)",
             dict(X=gaussian_cloud(200, 3, s + 2, scales=(40.0, 30.0, 20.0), shift=60.0))),
        ]""",
    "09.1": """
        cases = [
            ("3 vectors of width 12 with an offset, eps 1e-3",
             dict(x=2.0 * rng.standard_normal((3, 12)) + 1.0, gain=rng.uniform(0.2, 2.0, 12), eps=1e-3)),
            ("a batch of 2 x 3 vectors of width 5", dict(x=rng.standard_normal((2, 3, 5)), gain=rng.uniform(0.5, 1.5, 5),
                                                          eps=1e-5)),
            ("a single vector (1-D)", dict(x=rng.standard_normal(6) * 50.0, gain=np.ones(6), eps=1e-6)),
        ]""",
}

def for_students(text: str) -> str:
    """A cell's text without the way to the worked solutions: the sentence that links SOLUTIONS.md and
    the line that shows one. The one place that says what a student's copy leaves out (the release
    here, the student build of scripts/build_site.py)."""
    return SOLUTION_CALL.sub("", SOLUTIONS_LINK.sub("", text))


def solutions() -> dict[str, tuple[str, str]]:
    """Each exercise of notebooks/SOLUTIONS.md: its kind and the first Python block after its heading."""
    text = (NOTEBOOKS / "SOLUTIONS.md").read_text()
    found = {}
    for m in re.finditer(r"^### (\d\d\.\d) · (\w+)\n(.*?)```python\n(.*?)```", text, re.S | re.M):
        found[m.group(1)] = (m.group(2), m.group(4))
    return found


def indent(text: str, prefix: str) -> str:
    return textwrap.indent(text, prefix, lambda line: True)


def solution_body(code: str, name: str, params: list[str]) -> str:
    """The body of function ``name`` in ``code`` (a SOLUTIONS.md block), as written there. Imports beside it
    other than numpy's (which every notebook has) open the body."""
    tree = ast.parse(code)
    lines = code.splitlines()
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    if len(defs) != 1:
        raise ValueError(f"SOLUTIONS.md: expected one `def {name}` in its block, found {len(defs)}")
    fn = defs[0]
    if [a.arg for a in fn.args.args] != params:
        raise ValueError(f"SOLUTIONS.md: {name} takes {[a.arg for a in fn.args.args]}, the notebook {params}")
    extra = []
    for node in tree.body:
        if node is fn:
            continue
        if isinstance(node, ast.Import) and [(a.name, a.asname) for a in node.names] == [("numpy", "np")]:
            continue
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            raise ValueError(f"SOLUTIONS.md: the block of {name} holds more than imports and the function")
        extra.append(ast.get_source_segment(code, node))
    body = textwrap.dedent("\n".join(lines[fn.body[0].lineno - 1 : fn.end_lineno]))
    return "\n".join(extra + [body])


def meta(grade_id: str, *, solution: bool = False, grade: bool = False, points: int = 0) -> dict:
    m = {"grade": grade, "grade_id": grade_id, "locked": not solution, "schema_version": 3,
         "solution": solution, "task": False}
    if grade:
        m["points"] = points
    return m


def test_cell(exercise: str, answer: str, kind: str, hidden_seed: int) -> nbformat.NotebookNode:
    """The autograded test of ``exercise``: the course's verdict on ``answer``, asserted with its message."""
    lines = [f"# Exercise {exercise}, graded: the check you ran in class, as a test.",
             "from shared.exercises import verdict"]
    seed = (hidden_seed, int(exercise[:2]), int(exercise[3:]))
    # The verdict is the class's: it watches what runs inside a function (the toolkit's code, however
    # reached, is refused with what was seen), on the visible cases and, hidden, on the unseen ones.
    lines += [f'ok, message = verdict("{exercise}", {answer})', "print(message)", "assert ok, message"]
    if kind == "Implement":
        lines += ["### BEGIN HIDDEN TESTS", "import numpy as np",
                  f"rng = np.random.default_rng({list(seed)})", textwrap.dedent(HIDDEN_CASES[exercise]).strip(),
                  "# The same check on cases not shown in class.",
                  "import dataclasses",
                  "from shared.exercises import EXERCISES",
                  "from shared.exercises.common import verdict_of",
                  f'unseen = dataclasses.replace(EXERCISES["{exercise}"], cases=lambda: cases)',
                  f'ok, message = verdict_of({{"{exercise}": unseen}}, "{exercise}", {answer})',
                  'assert ok, message.replace(" On ", " On a case not shown in class: ", 1)',
                  "### END HIDDEN TESTS"]
    cell = nbformat.v4.new_code_cell("\n".join(lines))
    cell.metadata["nbgrader"] = meta(f"ex{exercise.replace('.', '-')}-test", grade=True,
                                     points=POINTS.get(kind, 1))
    return cell


def source_notebook(path: Path, hidden_seed: int) -> nbformat.NotebookNode:
    """The nbgrader source version of the course notebook at ``path``."""
    nb = nbformat.read(path, as_version=4)
    solved = solutions()
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = for_students(cell.source)
            cells.append(cell)
            continue
        if cell.cell_type != "code":
            cells.append(cell)
            continue
        cell.outputs, cell.execution_count = [], None
        cell.source = for_students(cell.source)
        found = CHECK.search(cell.source)
        if not found:
            cells.append(cell)
            continue
        exercise, answer = found.groups()
        kind, code = solved[exercise]
        before = cell.source[: found.start()].rstrip()
        if CHECK.search(cell.source[found.end():]):
            raise ValueError(f"{path.name}: one check per cell expected")
        if kind == "Implement":
            tree = ast.parse(before)
            (fn,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == answer]
            stub = before.splitlines()
            raise_line = fn.body[-1].lineno - 1
            if stub[raise_line].strip() != STUB:
                raise ValueError(f"{path.name}: the body of {answer} should end with `{STUB}`")
            pad = re.match(r"\s*", stub[raise_line]).group(0)
            body = solution_body(code, answer, [a.arg for a in fn.args.args])
            source = "\n".join(stub[:raise_line] + [pad + "### BEGIN SOLUTION", indent(body, pad),
                                                     pad + "### END SOLUTION"] + stub[raise_line + 1 :])
        else:
            comment = re.match(r"answer = None\s*#\s*(.*)$", before)
            if not comment:
                raise ValueError(f"{path.name}: the cell of {exercise} should be `answer = None  # ...`")
            source = f"# Your answer: {comment.group(1)}\n### BEGIN SOLUTION\n{code.strip()}\n### END SOLUTION"
        solution = nbformat.v4.new_code_cell(source)
        solution.metadata = {k: v for k, v in cell.metadata.items() if k != "nbgrader"}
        solution.metadata["nbgrader"] = meta(f"ex{exercise.replace('.', '-')}-answer", solution=True)
        cells += [solution, test_cell(exercise, answer, kind, hidden_seed)]
    nb.cells = cells
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i:03d}"  # the same sources from the same notebooks
    nb.metadata.pop("widgets", None)  # the explorers' stored state holds their outputs
    return nb


def hidden_seed(course: Path, given: int | None) -> int:
    """The course's secret seed of the hidden cases: ``given``, or the one kept in the course, or a new one."""
    keep = course / ".hidden_seed"
    if given is None and keep.exists():
        return int(keep.read_text())
    seed = secrets.randbelow(2**63) if given is None else given
    keep.write_text(f"{seed}\n")
    keep.chmod(0o600)
    return seed


CONFIG = '''\
# The nbgrader configuration of this course, written by scripts/make_assignments.py.
import os

c = get_config()  # noqa: F821 (given by nbgrader)
here = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.root = here
c.CourseDirectory.course_id = {course_id!r}
c.Exchange.root = {exchange!r}
# A student sees the line of the learner's notebook where a solution was.
c.ClearSolutions.code_stub = {{"python": {stub!r}}}
# Autograde runs each submission in the sandbox kernel: another user, limits, no environment.
c.Execute.kernel_name = {kernel!r}
c.Execute.timeout = {timeout}
# The grader talks to the kernel over Unix sockets in a folder only the sandbox account (and root) can
# enter: over TCP ports on 127.0.0.1 any account could subscribe to what a submission prints.
c.KernelManager.transport = "ipc"
c.KernelManager.ip = {sockets!r}
# Feedback shows what the tests said, not the hidden tests' code (their cases stay unseen): hidden
# blocks are removed, and an error is shown as its message, without the lines of code around it.
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor, Preprocessor  # noqa: E402
from nbgrader.preprocessors import ClearHiddenTests, GetGrades  # noqa: E402


class ErrorsWithoutCode(Preprocessor):
    def __call__(self, nb, resources):  # always on (a Preprocessor is off unless enabled)
        return self.preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                output["traceback"] = [f"{{output['ename']}}: {{output['evalue']}}"]
        return cell, resources


c.GenerateFeedback.preprocessors = [GetGrades, ClearHiddenTests, ErrorsWithoutCode, CSSHTMLHeaderPreprocessor]
os.environ["JUPYTER_PATH"] = os.path.join(here, "jupyter") + os.pathsep + os.environ.get("JUPYTER_PATH", "")
'''


def readable_by(user: str, path: Path) -> bool:
    """Whether ``user`` can run ``path`` (tried as that user)."""
    run = subprocess.run(["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", str(path),
                          "-c", "import shared, ipykernel"], capture_output=True, env={"PATH": "/usr/bin:/bin"})
    return run.returncode == 0


def size(text: str) -> int:
    """Bytes from a size such as ``4G`` or ``512M`` (prlimit takes bytes)."""
    m = re.fullmatch(r"(\d+)([KMG]?)", text.strip().upper())
    if not m:
        raise argparse.ArgumentTypeError(f"expected a size such as 4G or 512M, got {text!r}")
    return int(m.group(1)) * 1024 ** " KMG".index(m.group(2) or " ")


def ensure_user(user: str) -> None:
    try:
        pwd.getpwnam(user)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell",
                        "/usr/sbin/nologin", "--user-group", user], check=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("course", type=Path, help="the course directory (created, mode 0700)")
    parser.add_argument("--only", nargs="+", metavar="NN", help="only these notebooks (01 .. 09); default all")
    parser.add_argument("--course-id", default="isotropy-anisotropy")
    parser.add_argument("--exchange", type=Path, default=Path("/srv/nbgrader/exchange"))
    parser.add_argument("--prefix", type=Path, default=Path("/opt/isotropy"),
                        help="where the class server's environment is (PREFIX/venv, made if missing): the grading "
                        "kernel runs it, and the students' servers learn the exchange from it")
    parser.add_argument("--sandbox-user", default="course-sandbox")
    parser.add_argument("--memory", default="4G", type=size, help="address-space limit of a grading kernel (4G, 512M)")
    parser.add_argument("--cpu", type=int, default=600, help="CPU seconds of a grading kernel")
    parser.add_argument("--timeout", type=int, default=60, help="seconds a cell may run when graded")
    parser.add_argument("--hidden-seed", type=int, help="seed of the hidden cases (default: secret, kept)")
    parser.add_argument("--owner", help="the teacher, who owns the course directory (put it under their server's "
                        "folder, ~/isotropy on the class server, for formgrader to open it); default: you")
    args = parser.parse_args(argv)

    course = args.course.resolve()
    made = [p for p in [course, *course.parents] if not p.exists()]
    course.mkdir(parents=True, exist_ok=True)
    if not args.exchange.exists():  # where students fetch and submit: everyone writes, none removes another's
        args.exchange.mkdir(parents=True)
        args.exchange.chmod(0o1777)
    course.chmod(0o700)
    seed = hidden_seed(course, args.hidden_seed)
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    if args.only:
        paths = [p for p in paths if p.name[:2] in args.only]
    for path in paths:
        out = course / "source" / path.stem / path.name
        out.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(source_notebook(path, seed), out)
    print(f"wrote {len(paths)} source notebooks to {course / 'source'}")

    sockets = args.prefix.resolve() / f"sockets-{args.sandbox_user}"
    (course / "nbgrader_config.py").write_text(CONFIG.format(
        course_id=args.course_id, exchange=str(args.exchange), stub=STUB, kernel=KERNEL_NAME, timeout=args.timeout,
        sockets=str(sockets / "kernel")))
    if os.geteuid() != 0:
        print("not root: no grading sandbox (autograde must run as root, which then runs kernels as "
              f"{args.sandbox_user})")
    else:
        ensure_user(args.sandbox_user)
        venv = args.prefix.resolve() / "venv"
        python = venv / "bin" / "python"
        if not python.exists():
            args.prefix.mkdir(parents=True, exist_ok=True)
            args.prefix.chmod(0o755)
            install_environment(args.prefix.resolve())
        sockets.mkdir(exist_ok=True)  # under the root-owned prefix: no student can make it first
        shutil.chown(sockets, args.sandbox_user, args.sandbox_user)
        sockets.chmod(0o700)
        if not readable_by(args.sandbox_user, python):
            raise SystemExit(f"{args.sandbox_user} cannot run {python} with the course: install the course "
                             "environment where every user can read it (--prefix)")
    spec = course / "jupyter" / "kernels" / KERNEL_NAME / "kernel.json"
    spec.parent.mkdir(parents=True, exist_ok=True)
    spec.write_text(json.dumps({
        "argv": [str(SANDBOX_KERNEL), args.sandbox_user, str(args.prefix.resolve() / "venv" / "bin" / "python"), str(args.memory),
                 str(args.cpu), "{connection_file}"],
        "display_name": "Course sandbox (grading)", "language": "python", "interrupt_mode": "signal"}, indent=1))
    if os.geteuid() == 0:  # the students' servers (the same environment) fetch and submit through the exchange
        student_config = args.prefix.resolve() / "venv" / "etc" / "jupyter" / "nbgrader_config.py"
        student_config.parent.mkdir(parents=True, exist_ok=True)
        student_config.write_text(f"# Written by scripts/make_assignments.py: where this class's assignments are.\n"
                                  f"c = get_config()  # noqa: F821\nc.Exchange.root = {str(args.exchange)!r}\n")
        student_config.chmod(0o644)
    if args.owner:
        subprocess.run(["chown", "-R", f"{args.owner}:", str(course), *map(str, made)], check=True)
        teacher = Path(pwd.getpwnam(args.owner).pw_dir) / ".jupyter" / "nbgrader_config.py"
        teacher.parent.mkdir(parents=True, exist_ok=True)  # the teacher's formgrader opens this course
        teacher.write_text(f"c = get_config()  # noqa: F821\nc.CourseDirectory.root = {str(course)!r}\n")
        subprocess.run(["chown", "-R", f"{args.owner}:", str(teacher.parent)], check=True)
    print(f"course ready in {course}: cd there, then nbgrader generate_assignment / release_assignment / "
          "autograde (see TEACHING.md)")


if __name__ == "__main__":
    main()
