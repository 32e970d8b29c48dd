"""Make the nbgrader course for a class: one assignment per course notebook, graded by the course's own checks.

    sudo uv run --group classroom python scripts/make_assignments.py COURSE [--only 01 09] [--prefix /opt/isotropy]

writes into the course directory COURSE (created, mode 0700: students must not read it):

* ``source/NN_name/NN_name.ipynb``, the instructor's version of each notebook. The learner's notebook
  stays as it is; here its implement-it cell becomes a solution cell whose body is the code of the
  exercise's worked solution (its home, ``shared/exercises/nbNN.py``) between ``### BEGIN SOLUTION`` /
  ``### END SOLUTION``, each answer cell (``answer = None``) becomes a solution cell holding the worked
  solution's answer, and each ``check(...)`` becomes an autograded test cell with points. Autograde does
  not run these cells: classroom/grading.py takes each answer from the submission's JSON and checks it
  alone in the grading sandbox, on the cases of the class's check and on hidden ones (public code in the
  exercise's home, drawn with the course's secret seed ``COURSE/.hidden_seed``), and writes the course's
  verdict as the test cell's output.
  Outputs are cleared, and the sentence pointing at SOLUTIONS.md is left out.
* ``nbgrader_config.py``: the course, the exchange, autograde through classroom/grading.py as the
  unprivileged user ``--sandbox-user`` (created if missing) with memory, CPU and time limits, and a
  collect that takes a submission only from the account it names, at the server's time.

As root it puts the exchange on a file system of its own (``--exchange-size``, default 4G, made once and
mounted again by ``python -m classroom serve`` after a reboot), gives each learner of the class server (and
each of ``--learners``) a folder of their own in the exchange's inbound, on a file system of its own
(``--inbox-size``, default 256M), the only place their ``nbgrader submit`` writes, turns formgrader off for the environment's
users (learners) and, with ``--owner``, on for the teacher, whose kernel for opening submissions starts
Python with the safe path (``-P``).

The sources are generated, never edited by hand: run this again after changing a notebook or an
exercise (the secret seed is kept, so the hidden cases stay the same). The grading sandbox needs a course
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
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from classroom.cli import EXCHANGE_MODE, cap_exchange, class_learners, make_inboxes, warn_if_images_outgrow_the_disk  # noqa: E402 (the class server's: one home)
from classroom.install import TEACHER_SERVER_EXTENSIONS, install_environment  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
LEARNER_EXCHANGE = ROOT / "classroom" / "nbgrader" / "learner_exchange.py"
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

def for_students(text: str) -> str:
    """A cell's text without the way to the worked solutions: the sentence that links SOLUTIONS.md and
    the line that shows one. The one place that says what a student's copy leaves out (the release
    here, the student build of scripts/build_site.py)."""
    return SOLUTION_CALL.sub("", SOLUTIONS_LINK.sub("", text))


def solutions() -> dict[str, tuple[str, str]]:
    """Each exercise's kind (``Implement``, ``Predict``, ...) and the code of its worked solution, from
    its home in ``shared/exercises``."""
    from shared.exercises import EXERCISES

    return {name: (ex.kind, ex.worked.code) for name, ex in EXERCISES.items()}


def indent(text: str, prefix: str) -> str:
    return textwrap.indent(text, prefix, lambda line: True)


def solution_body(code: str, name: str, params: list[str]) -> str:
    """The body of function ``name`` in ``code`` (a worked solution's code), as written there. Imports beside
    it other than numpy's (which every notebook has) open the body."""
    tree = ast.parse(code)
    lines = code.splitlines()
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    if len(defs) != 1:
        raise ValueError(f"worked solution: expected one `def {name}` in its code, found {len(defs)}")
    fn = defs[0]
    if [a.arg for a in fn.args.args] != params:
        raise ValueError(f"worked solution: {name} takes {[a.arg for a in fn.args.args]}, the notebook {params}")
    extra = []
    for node in tree.body:
        if node is fn:
            continue
        if isinstance(node, ast.Import) and [(a.name, a.asname) for a in node.names] == [("numpy", "np")]:
            continue
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            raise ValueError(f"worked solution: the code of {name} holds more than imports and the function")
        extra.append(ast.get_source_segment(code, node))
    body = textwrap.dedent("\n".join(lines[fn.body[0].lineno - 1 : fn.end_lineno]))
    return "\n".join(extra + [body])


def meta(grade_id: str, *, solution: bool = False, grade: bool = False, points: int = 0) -> dict:
    m = {"grade": grade, "grade_id": grade_id, "locked": not solution, "schema_version": 3,
         "solution": solution, "task": False}
    if grade:
        m["points"] = points
    return m


def test_cell(exercise: str, answer: str, kind: str) -> nbformat.NotebookNode:
    """The autograded test of ``exercise``: in class, the course's check of ``answer``. The grader does not
    run it: it runs the answer alone in a sandbox, on the cases of this check and on cases the class
    never sees, and writes the check's verdict as this cell's output (classroom/grading.py)."""
    lines = [f"# Exercise {exercise}, graded: the check you ran in class. The grader checks your "
             + ("function alone, on these cases and on others," if kind == "Implement" else "answer cell alone,"),
             "# in a fresh process where none of your other cells ran.",
             "from shared.exercises import verdict",
             f'ok, message = verdict("{exercise}", {answer})', "print(message)", "assert ok, message"]
    cell = nbformat.v4.new_code_cell("\n".join(lines))
    cell.metadata["nbgrader"] = meta(f"ex{exercise.replace('.', '-')}-test", grade=True,
                                     points=POINTS.get(kind, 1))
    return cell


def source_notebook(path: Path) -> nbformat.NotebookNode:
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
        cells += [solution, test_cell(exercise, answer, kind)]
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
import sys

c = get_config()  # noqa: F821 (given by nbgrader)
here = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.root = here
c.CourseDirectory.course_id = {course_id!r}
c.Exchange.root = {exchange!r}
# A student sees the line of the learner's notebook where a solution was.
c.ClearSolutions.code_stub = {{"python": {stub!r}}}
# Autograde runs no notebook: each answer is taken from the submission's JSON and checked alone in the
# grading sandbox (classroom/grading.py), as {user!r}, with these limits. The verdicts go into the
# test cells' outputs, which nbgrader scores and keeps in the gradebook as before.
sys.path.insert(0, {root!r})
from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor  # noqa: E402
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, ClearHiddenTests, ClearOutput,  # noqa: E402
                                    DeduplicateIds, GetGrades, LimitOutput, OverwriteCells, OverwriteKernelspec,
                                    SaveAutoGrades)

from classroom.grading import IsolatedChecks, KnownCells  # noqa: E402

# nbgrader's sanitizing of a submission, with its metadata kept to the gradebook's cells: a cell pasted
# twice, or metadata of another schema version, would stop autograde for every learner after this one.
c.Autograde.sanitize_preprocessors = [ClearOutput, DeduplicateIds, OverwriteKernelspec, OverwriteCells, KnownCells,
                                      CheckCellMetadata]

c.Autograde.autograde_preprocessors = [IsolatedChecks, ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
                                       AssignLatePenalties, CheckCellMetadata]
c.IsolatedChecks.course = here
c.IsolatedChecks.user = {user!r}
c.IsolatedChecks.venv = {venv!r}
c.IsolatedChecks.memory = {memory}
c.IsolatedChecks.cpu = {cpu}
c.IsolatedChecks.timeout = {timeout}
# A submission is its learner's: collect takes a submission only from the account it names, and
# records the time the server saw its last change, not the time the submission states.
c.ExchangeFactory.collect = "classroom.grading.OwnedCollect"
# The exchange's top folder stays closed to learners' writes: nbgrader's release would open it to all.
c.ExchangeFactory.release_assignment = "classroom.grading.KeptRootRelease"
c.GenerateFeedback.preprocessors = [GetGrades, ClearHiddenTests, CSSHTMLHeaderPreprocessor]
'''


def write_atomically(path: Path, text: str, mode: int = 0o644) -> None:
    """``path`` holding ``text``, written as a new file then renamed over it: never a half-written file,
    and a file hard-linked elsewhere (environments are linked from uv's cache) is replaced, not changed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    new = path.with_name(f".{path.name}.new")
    new.unlink(missing_ok=True)
    new.write_text(text)
    new.chmod(mode)
    new.rename(path)


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
    parser.add_argument("--exchange-size", type=size, default=size("4G"),
                        help="as root, put the exchange on a file system of this size of its own (a sparse, "
                        "loop-mounted ext4 image in PREFIX/exchange-images), so that what learners submit cannot "
                        "fill the machine's disk (default 4G; 0: the exchange on the machine's disk)")
    parser.add_argument("--inbox-size", type=size, default=size("256M"),
                        help="as root, each learner's own folder of the exchange's inbound, where their submissions "
                        "go, on a file system of this size of its own (a sparse, loop-mounted ext4 image in "
                        "PREFIX/inbox-images), so that no learner's submissions fill the room of another's "
                        "(default 256M; 0: plain folders, on the exchange's file system)")
    parser.add_argument("--learners", nargs="+", default=[], metavar="NAME",
                        help="accounts that get a submission folder, beside the class server's learners (those of "
                        "PREFIX/hub)")
    parser.add_argument("--prefix", type=Path, default=Path("/opt/isotropy"),
                        help="where the class server's environment is (PREFIX/venv, made if missing): the grading "
                        "sandbox runs it, and the students' servers learn the exchange from it")
    parser.add_argument("--sandbox-user", default="course-sandbox")
    parser.add_argument("--memory", default="4G", type=size, help="address-space limit of one graded answer (4G, 512M)")
    parser.add_argument("--cpu", type=int, default=600, help="CPU seconds of one graded answer")
    parser.add_argument("--timeout", type=int, default=60, help="seconds one graded answer may run (all its cases)")
    parser.add_argument("--hidden-seed", type=int, help="seed of the hidden cases (default: secret, kept)")
    parser.add_argument("--owner", help="the teacher, who owns the course directory (put it under their server's "
                        "folder, ~/isotropy on the class server, for formgrader to open it); default: you")
    args = parser.parse_args(argv)

    course = args.course.resolve()
    made = [p for p in [course, *course.parents] if not p.exists()]
    course.mkdir(parents=True, exist_ok=True)
    if not args.exchange.exists():  # where students fetch and submit
        args.exchange.mkdir(parents=True)
        # as root: root's, and no learner writes it (each submits into a folder of their own, below,
        # and reads the rest); without root, nbgrader's layout: everyone writes, none removes another's
        args.exchange.chmod(EXCHANGE_MODE if os.geteuid() == 0 else 0o1777)
    elif os.geteuid() == 0 and not args.exchange.is_symlink() and args.exchange.stat().st_uid == 0 \
            and stat.S_IMODE(args.exchange.stat().st_mode) != EXCHANGE_MODE:
        print(f"{args.exchange}: closed to learners' writes (mode {EXCHANGE_MODE:o}, was "
              f"{stat.S_IMODE(args.exchange.stat().st_mode):o}); what they wrote there stays")
        args.exchange.chmod(EXCHANGE_MODE)
    if os.geteuid() == 0 and args.exchange_size:
        try:
            cap_exchange(args.exchange, args.prefix.resolve(), args.exchange_size)
        except ValueError as error:
            raise SystemExit(str(error)) from None
    course.chmod(0o700)
    seed = hidden_seed(course, args.hidden_seed)
    paths = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    if args.only:
        paths = [p for p in paths if p.name[:2] in args.only]
    for path in paths:
        out = course / "source" / path.stem / path.name
        out.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(source_notebook(path), out)
    print(f"wrote {len(paths)} source notebooks to {course / 'source'}")

    venv = args.prefix.resolve() / "venv"
    (course / "nbgrader_config.py").write_text(CONFIG.format(
        course_id=args.course_id, exchange=str(args.exchange), stub=STUB, user=args.sandbox_user, root=str(ROOT),
        venv=str(venv), memory=args.memory, cpu=args.cpu, timeout=args.timeout))
    if os.geteuid() != 0:
        print("not root: no grading sandbox (autograde must run as root, which then runs answers as "
              f"{args.sandbox_user})")
    else:
        ensure_user(args.sandbox_user)
        python = venv / "bin" / "python"
        if not python.exists():
            args.prefix.mkdir(parents=True, exist_ok=True)
            args.prefix.chmod(0o755)
            install_environment(args.prefix.resolve())
        if not readable_by(args.sandbox_user, python):
            raise SystemExit(f"{args.sandbox_user} cannot run {python} with the course: install the course "
                             "environment where every user can read it (--prefix)")
    if os.geteuid() == 0:  # the students' servers (the same environment) fetch and submit through the exchange
        etc = args.prefix.resolve() / "venv" / "etc" / "jupyter"
        write_atomically(etc / "nbgrader_config.py", "# Written by scripts/make_assignments.py: where this class's "
                         f"assignments are.\nc = get_config()  # noqa: F821\nc.Exchange.root = {str(args.exchange)!r}\n"
                         "# A learner submits into their own folder of the inbound, inbound/NAME/, and only reads the rest of the "
                         "exchange (from classroom/nbgrader/learner_exchange.py).\n" + LEARNER_EXCHANGE.read_text()
                         + "\n\nc.ExchangeFactory.submit = InboxSubmit\n"
                         "c.ExchangeFactory.fetch_assignment = ReadRootFetchAssignment\n"
                         "c.ExchangeFactory.fetch_feedback = ReadRootFetchFeedback\n"
                         "c.ExchangeFactory.list = ReadRootList\n")
        # Learners do not get formgrader (nor the course list, a teacher's view): off for the environment,
        # on again in the teacher's own configuration below.
        write_atomically(etc / "jupyter_server_config.d" / "zz-isotropy-grading.json", json.dumps(
            {"ServerApp": {"jpserver_extensions": dict.fromkeys(TEACHER_SERVER_EXTENSIONS, False)}},
            indent=1))
        # Submissions go into each learner's own folder of the inbound (make_inboxes, below): the inbound
        # itself is root's, and nobody else writes or lists it (nbgrader keeps the mode of a folder it finds).
        inbound = args.exchange / args.course_id / "inbound"
        if not inbound.exists():
            for folder in (inbound.parent, inbound.parent / "outbound", inbound.parent / "feedback"):
                folder.mkdir(parents=True, exist_ok=True)
                folder.chmod(0o755 if folder.name != "feedback" else 0o711)
            inbound.mkdir()
            inbound.chmod(0o711)
        # in an exchange learners could write (nbgrader's layout, as one made before this closed it), a
        # learner could have made this course's folders before the course (and so own what the others
        # submit to); they must be root's, and no links
        for folder in (args.exchange, inbound.parent, *(inbound.parent / n for n in ("outbound", "feedback", "inbound"))):
            if not folder.is_symlink() and not folder.exists():
                continue
            info = folder.lstat()
            if stat.S_ISLNK(info.st_mode) or info.st_uid != 0:
                raise SystemExit(f"{folder}: {'a link' if stat.S_ISLNK(info.st_mode) else f'owned by uid {info.st_uid}'}, "
                                 "not root's: someone made it before the course did; remove it and run this again")
        make_inboxes(inbound, args.prefix.resolve(), args.inbox_size, [*class_learners(args.prefix.resolve()),
                                                                         *args.learners])
        warn_if_images_outgrow_the_disk(args.prefix.resolve())
    if args.owner:
        subprocess.run(["chown", "-R", f"{args.owner}:", str(course), *map(str, made)], check=True)
        home = Path(pwd.getpwnam(args.owner).pw_dir)
        teacher = home / ".jupyter" / "nbgrader_config.py"  # the teacher's formgrader opens this course
        write_atomically(teacher, f"c = get_config()  # noqa: F821\nc.CourseDirectory.root = {str(course)!r}\n")
        write_atomically(home / ".jupyter" / "jupyter_server_config.json", json.dumps(
            {"ServerApp": {"jpserver_extensions": dict.fromkeys(TEACHER_SERVER_EXTENSIONS, True)}},
            indent=1))
        # The teacher opens learners' notebooks: their kernel starts Python with the safe path (-P), so no
        # file beside a submission is imported in place of a module.
        spec = home / ".local" / "share" / "jupyter" / "kernels" / "python3" / "kernel.json"
        write_atomically(spec, json.dumps({
            "argv": [str(args.prefix.resolve() / "venv" / "bin" / "python"), "-P", "-m", "ipykernel_launcher", "-f",
                     "{connection_file}"],
            "display_name": "Python 3 (ipykernel)", "language": "python", "metadata": {"debugger": True}}, indent=1))
        subprocess.run(["chown", "-R", f"{args.owner}:", str(home / ".jupyter"), str(home / ".local")], check=True)
    print(f"course ready in {course}: cd there, then nbgrader generate_assignment / release_assignment / "
          "autograde (see TEACHING.md)")


if __name__ == "__main__":
    main()
