"""Grades that the submission cannot change: each answer checked on its own, in a sandbox of its own.

nbgrader stays the gradebook and the exchange; what it would do by running the learner's notebook in a
kernel is done here instead (:class:`IsolatedChecks`, in place of nbgrader's ``Execute`` in autograde).
None of the learner's cells runs. From the notebook's JSON, parsed and never executed by the grader:

* an implement-it exercise takes the learner's function from its answer cell (the ``def`` or
  ``name = lambda`` of the stub's name, with that cell's imports, helpers and literal constants;
  nothing of any other cell), runs it
  in a fresh sandbox (``classroom/nbgrader/sandbox-run``: another account, no network, a root that
  holds the system's programs and the course environment without the toolkit, none of the course's
  files) on the cases the class saw and on cases it never saw, and gets back numbers only;
* a question takes the expression of ``answer = ...`` in its answer cell, evaluated in such a sandbox.

The verdict is then the course's own (:func:`shared.exercises.common.verdict_of`), computed here, by the
grader, on those numbers: the learner's code never sees the reference, the check or the hidden seed,
so whatever its other cells did to a kernel (patching the checks or numpy, IPython hooks, exception
handlers, input transformers, looking for the grader) changes nothing. A use of the toolkit is seen by
what runs: the sandbox has no toolkit, an import of it is refused and reported by an audit hook that
no code can remove, and each toolkit name the notebook imports is a stand-in that reports its call.
The test cell's output is the verdict's text; on a case the class never saw it names the case's
description only (no data of the case, no expected value, nothing the learner's code printed).

The hidden cases are public code, each in its exercise's home (``hidden_cases`` of its entry in
``shared/exercises/nbNN.py``, drawn by :func:`shared.exercises.hidden_cases`); only their seed, kept in
the course directory, is the course's secret.
"""

from __future__ import annotations

import base64
import builtins
import dataclasses
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from classroom import limits

ROOT = Path(__file__).resolve().parent.parent
SANDBOX_RUN = ROOT / "classroom" / "nbgrader" / "sandbox-run"
PROGRAM = (ROOT / "classroom" / "nbgrader" / "run_answer.py").read_text()
ANSWER_ID = re.compile(r"ex(\d\d)-(\d)-answer")
TEST_ID = re.compile(r"ex(\d\d)-(\d)-test")
MAX_OUTPUT = 64 * 1024 * 1024  # bytes of results read back from one run
MAX_ENTRIES = 1000  # files and folders in one submission that collect looks at
MAX_DEPTH = 32  # folders in folders of one submission that collect copies
#: bytes of one notebook that collect copies: the course's largest, with its outputs, is under 1 MB; root's
#: autograde reading one of many tiny cells takes some 30 times its size in memory
MAX_NOTEBOOK = 16 * 1024**2
#: characters of a submission's cells that formgrader's page and the feedback show (the course's largest
#: notebook holds under 50 000, its largest cell under 5 000): nbconvert took some 55 s of CPU and wrote
#: 12 MB of HTML for a megabyte of code, so a notebook as large as collect takes held up generate_feedback
#: (and the teacher's page) for a quarter of an hour and put 200 MB into the exchange at each release of
#: feedback; and Pygments' lexers take time as the square of some tokens' length (3 s for 16 000 characters)
MAX_SHOWN = 128 * 1024
MAX_SHOWN_CELL = 8 * 1024  # of one cell
MAX_SHOWN_CELLS = 1000  # cells of a submission shown (the course's notebooks hold under 60)


# ----- reading the notebook (parsed, never run) -----------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Taken:
    """What the grader takes from an answer cell: the source to run in the sandbox, or why none."""

    source: str | None
    params: tuple[tuple[str, str], ...] = ()  # (name, kind) of the function's parameters
    problem: str = ""


def _params(args) -> tuple[tuple[str, str], ...]:
    out = [(a.arg, "positional") for a in args.posonlyargs + args.args]
    if args.vararg:
        out.append((args.vararg.arg, "var_positional"))
    out += [(a.arg, "keyword_only") for a in args.kwonlyargs]
    if args.kwarg:
        out.append((args.kwarg.arg, "var_keyword"))
    return tuple(out)


def take_function(cell_source: str, name: str) -> Taken:
    """The learner's ``name`` from its answer cell: the last top-level ``def name`` or ``name = lambda``
    of the cell, with what the cell puts beside it at top level (``import`` lines, helper functions and
    classes, constants written as literals), and no other statement of it. Nothing is run here."""
    import ast

    try:
        tree = ast.parse(cell_source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return Taken(None, problem=f"the cell of {name} does not parse as Python ({type(error).__name__}); fix it and "
                     "run the cell again")
    imports, found = [], None
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name != name and not node.decorator_list:
            imports.append(node)  # a helper defined beside it, in the same cell
        elif isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) and t.id != name for t in node.targets):
            try:
                ast.literal_eval(node.value)  # a constant beside it: data only
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
            imports.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            found = node
        elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
              and node.targets[0].id == name and isinstance(node.value, ast.Lambda)):
            found = node
    if found is None:
        return Taken(None, problem=f"no function {name} in its answer cell (keep the stub's `def {name}(...)`)")
    args = found.args if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)) else found.value.args
    body = [ast.get_source_segment(cell_source, n) for n in imports] + [ast.get_source_segment(cell_source, found)]
    if isinstance(found, ast.FunctionDef) and found.decorator_list:
        first = min(d.lineno for d in found.decorator_list)
        body[-1] = "\n".join(cell_source.splitlines()[first - 1 : found.end_lineno])
    return Taken("\n".join(body), _params(args))


def take_answer(cell_source: str) -> Taken:
    """The expression of the learner's last top-level ``answer = ...`` in its answer cell. Nothing is run."""
    import ast

    try:
        tree = ast.parse(cell_source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return Taken(None, problem=f"the answer cell does not parse as Python ({type(error).__name__})")
    found = [n for n in tree.body if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and n.targets[0].id == "answer"]
    if not found:
        return Taken(None, problem="no `answer = ...` in the answer cell")
    return Taken(ast.get_source_segment(cell_source, found[-1].value))


def toolkit_names(notebook: Path) -> dict[str, str]:
    """Each name the course notebook binds from the toolkit (``from shared.x import y``, ``import shared``),
    read from the course's own copy of the notebook: name -> qualified name."""
    import ast

    import nbformat

    names: dict[str, str] = {}
    if not notebook.is_file():  # not one of the course's notebooks: no stand-ins (the toolkit is absent anyway)
        return names
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "shared":
                for alias in node.names:
                    names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == "shared":
                        names[alias.asname or alias.name.split(".")[0]] = alias.asname and alias.name or "shared"
    names.pop("np", None)
    return names


# ----- the sandbox ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Sandbox:
    """Where and as whom answers run: ``user`` (an account of its own), the course environment ``venv``,
    address-space ``memory`` in bytes, ``cpu`` seconds and a wall-clock ``timeout`` per answer. With
    ``user=None`` (tests without root) the program runs as this process's user without the namespaces:
    no isolation, only the same protocol."""

    user: str | None
    venv: Path
    memory: int = 4 * 1024**3
    cpu: int = 600
    timeout: float = 60.0

    def _group(self):
        """A control group of this run's own (where the machine lets root make one): the run and all it
        starts share :attr:`memory` (not each of its processes), 64 processes and a CPU weight of a
        quarter of a learner's, so one autograde cannot take the memory or the cores a class needs."""
        if self.user is None or not limits.available():
            return None
        group = limits.LearnerGroup(f"grading-{os.getpid()}-{secrets.token_hex(4)}")
        group.create(self.memory, 64, cpu_weight=256)
        return group

    def run(self, request: dict) -> tuple[list[dict], bool]:
        """The records the program wrote for ``request``, and whether it ran out of time."""
        with tempfile.TemporaryDirectory(prefix="course-grade.") as scratch:
            out_path = Path(scratch) / "out"
            root = Path(scratch) / "root"
            root.mkdir()
            if self.user is None:
                argv = [str(self.venv / "bin" / "python"), "-I", "-c", PROGRAM]
            else:
                account = pwd.getpwnam(self.user)
                argv = [str(SANDBOX_RUN), str(root), str(account.pw_uid), str(account.pw_gid), str(self.venv.resolve()),
                        str(self.memory), str(self.cpu), PROGRAM]
            group = self._group()
            join = (lambda files=group.procs_files(): limits.join(files)) if group else None
            with open(out_path, "wb") as out:
                proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.DEVNULL,
                                        start_new_session=True, cwd=root, env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
                                        preexec_fn=join)
                timed_out = False
                try:
                    proc.communicate(json.dumps(request).encode(), timeout=self.timeout)
                except subprocess.TimeoutExpired:
                    timed_out = True
                except BrokenPipeError:
                    pass
                finally:
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    proc.wait()
                    if group:
                        group.remove()  # kills whatever is left in it
            with open(out_path, "rb") as out:
                data = out.read(MAX_OUTPUT)
            shutil.rmtree(root, ignore_errors=True)
        records = []
        for line in data.splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict):
                records.append(record)
        return records, timed_out


def encode(value: object) -> object:
    if isinstance(value, np.ndarray):
        arr = np.asarray(value)
        return {"array": base64.b64encode(arr.tobytes()).decode(), "dtype": arr.dtype.str, "shape": list(arr.shape)}
    if isinstance(value, np.generic):
        return value.item()
    return value


# ----- verdicts from the numbers ---------------------------------------------------------------------


class _Raised(Exception):
    """What the learner's function raised, when its type is not a built-in exception."""


def _exception(name: str, message: str) -> Exception:
    kind = getattr(builtins, name, None)
    if isinstance(kind, type) and issubclass(kind, Exception) and kind.__module__ == "builtins":
        try:
            return kind(message)
        except Exception:
            pass
    return type(name, (_Raised,), {})(message)


class Replay:
    """Stands in for the learner's function in the course's verdict: the same parameters, and for its
    n-th call the n-th case's result as the sandbox reported it. It runs nothing of the learner's."""

    def __init__(self, params, records: list[dict], timed_out: bool, timeout: float, hidden: bool = False):
        import inspect

        kinds = {"positional": inspect.Parameter.POSITIONAL_OR_KEYWORD, "var_positional": inspect.Parameter.VAR_POSITIONAL,
                 "keyword_only": inspect.Parameter.KEYWORD_ONLY, "var_keyword": inspect.Parameter.VAR_KEYWORD}
        self.__signature__ = inspect.Signature([inspect.Parameter(n, kinds[k]) for n, k in params])
        self.results: dict[int, dict] = {}
        self.changed: set[int] = set()
        for record in records:
            case = record.get("case")
            if not isinstance(case, int):
                continue
            if record.get("changed") is True:
                self.changed.add(case)
            elif case not in self.results:  # the first word on a case is the one that counts
                self.results[case] = record
        self.timed_out, self.timeout, self.hidden = timed_out, timeout, hidden
        self.calls = 0

    def __call__(self, *args, **kwargs):
        case = self.calls
        self.calls += 1
        record = self.results.get(case)
        if record is None:
            if self.timed_out:
                raise TimeoutError(f"it did not finish within {self.timeout:g} seconds")
            raise RuntimeError("its run ended before it returned (out of memory or CPU time)")
        if case in self.changed:
            for value in kwargs.values():
                if isinstance(value, np.ndarray) and value.size:
                    value.flat[0] = np.nan if value.dtype.kind == "f" else value.flat[0] + 1
                    break
        if "raised" in record:
            raise _exception(_name(record["raised"]), "" if self.hidden else str(record.get("message", ""))[:400])
        if record.get("none"):
            return None
        if "type" in record:
            return type(_name(record["type"], "object"), (), {})()
        try:
            shape = [int(n) for n in record["shape"]]
            data = np.frombuffer(base64.b64decode(record["data"]), dtype="<f8")
            return data.reshape(shape).copy()
        except (KeyError, ValueError, TypeError):
            return type("unreadable", (), {})()


def _name(text: object, default: str = "Exception") -> str:
    """A name the learner's code reported (a type's), shown only if it is a short identifier."""
    text = str(text)
    return text if text.isidentifier() and len(text) <= 60 else default


def _toolkit_used(records: list[dict], toolkit: dict[str, str]) -> list[str]:
    """The toolkit's names the run reported using (an import of ``shared...`` or a stand-in's call); a
    record naming anything else counts as a use of the toolkit itself."""
    used = [str(r["toolkit"]) for r in records if "toolkit" in r]
    known = set(toolkit.values())
    return [u if (u in known or re.fullmatch(r"shared(\.\w+){0,3}", u)) and len(u) <= 80 else "shared" for u in used]


def _toolkit_message(exercise: str, name: str, used: list[str]) -> str:
    short = sorted({u.rsplit(".", 1)[-1] for u in used})
    return (f"Exercise {exercise}: write it yourself. {name} calls the toolkit's {' and '.join(short)}, which "
            f"compute{'s' if len(short) == 1 else ''} the answer for you (the check compares with the toolkit, so "
            "agreeing with it would prove nothing). Write the computation with numpy; the toolkit stays for the "
            "notebook's demonstrations.")


def grade_function(exercise: str, taken: Taken, sandbox: Sandbox, seed: int, toolkit: dict[str, str]) -> tuple[bool, str]:
    """The verdict on the learner's function of implement-it ``exercise``: the class's check, then the same
    check on the hidden cases, each on the numbers the function gave in the sandbox."""
    from shared.exercises import EXERCISES
    from shared.exercises import hidden_cases
    from shared.exercises.common import verdict_of

    impl = EXERCISES[exercise]
    if taken.source is None:
        return False, f"Exercise {exercise}: not answered: {taken.problem}."
    visible, unseen = impl.cases(), hidden_cases(exercise, seed)

    def run(cases):  # the visible and the hidden cases in two runs: no text of the second is ever shown
        return sandbox.run({"kind": "function", "source": taken.source, "name": impl.name, "toolkit": toolkit,
                            "cases": [{k: encode(v) for k, v in kw.items()} for _, kw in cases]})

    records, timed_out = run(visible)
    used = _toolkit_used(records, toolkit)
    if used:
        return False, _toolkit_message(exercise, impl.name, used)
    failed = [r for r in records if r.get("case") == -1]
    if failed:
        return False, (f"Exercise {exercise}: not yet. Defining {impl.name} raised {_name(failed[0].get('raised'))}: "
                       f"{str(failed[0].get('message', ''))[:400]}")
    ok, message = verdict_of(EXERCISES, exercise, Replay(taken.params, records, timed_out, sandbox.timeout))
    if not ok:
        return ok, message
    rest, timed_out = run(unseen)
    used = _toolkit_used(rest, toolkit)
    if used:
        return False, _toolkit_message(exercise, impl.name, used)
    replay = Replay(taken.params, rest, timed_out, sandbox.timeout, hidden=True)
    hidden_ok, said = verdict_of({exercise: dataclasses.replace(impl, cases=lambda: unseen)}, exercise, replay)
    if hidden_ok:
        return True, message
    description = unseen[min(max(replay.calls - 1, 0), len(unseen) - 1)][0]
    why = "gives a different result from the toolkit's"
    record = replay.results.get(replay.calls - 1)
    if record is None:
        why = (f"did not finish within {sandbox.timeout:g} seconds" if timed_out
               else "ended its run before it returned (out of memory or CPU time)")
    elif "raised" in record:
        why = f"raised {type(_exception(_name(record['raised']), '')).__name__}"
    elif record.get("none"):
        why = "returned None"
    elif replay.calls - 1 in replay.changed:
        why = "changed its input array in place"
    elif "Likely mistake:" in said:
        why += ". Likely mistake: " + said.split("Likely mistake:", 1)[1].strip().rstrip(".")
    return False, f"Exercise {exercise}: not yet. On a case not shown in class ({description}), {impl.name} {why}."


def grade_answer(exercise: str, taken: Taken, sandbox: Sandbox, toolkit: dict[str, str]) -> tuple[bool, str]:
    """The verdict on the learner's answer to question ``exercise``, its expression evaluated in the sandbox."""
    from shared.exercises import EXERCISES
    from shared.exercises.common import verdict_of

    if taken.source is None:
        return False, f"Exercise {exercise}: not answered: {taken.problem}."
    records, timed_out = sandbox.run({"kind": "answer", "source": taken.source, "toolkit": toolkit})
    if any("toolkit" in r for r in records):
        return False, (f"Exercise {exercise}: the answer is written with the toolkit's functions; the graded "
                       "answer is a number or a formula of numbers (or a letter), worked out by you.")
    for r in records:
        if "number" in r and isinstance(r["number"], (int, float)):
            return verdict_of(EXERCISES, exercise, float(r["number"]))
        if "text" in r and isinstance(r["text"], str):
            return verdict_of(EXERCISES, exercise, r["text"])
        if "type" in r:
            value = None if r["type"] == "NoneType" else str(r["type"])
            return verdict_of(EXERCISES, exercise, value)
        if r.get("case") == -1:
            return False, (f"Exercise {exercise}: not yet. The answer's expression raised {_name(r.get('raised'))}: the graded "
                           "answer is read from this cell alone, so write a number or a formula of numbers (or a "
                           "letter), not a name defined elsewhere in the notebook.")
    if timed_out:
        return False, f"Exercise {exercise}: the answer's expression did not finish within {sandbox.timeout:g} seconds."
    return False, f"Exercise {exercise}: the answer's expression gave no value."


def grade_notebook(cells: list[dict], course_notebook: Path, sandbox: Sandbox, seed: int) -> dict[str, tuple[bool, str]]:
    """Each test cell's grade id -> (passed, message), from the answer cells of ``cells`` (a notebook's
    cells as JSON-like dicts, never run); ``course_notebook`` is the course's own copy, for the toolkit's
    names it imports."""
    from shared.exercises import EXERCISES, Implementation

    toolkit = toolkit_names(course_notebook)
    answers: dict[str, str] = {}
    tests: list[str] = []
    for cell in cells:
        meta = cell.get("metadata", {}).get("nbgrader", {}) if isinstance(cell.get("metadata"), dict) else {}
        gid = meta.get("grade_id") if isinstance(meta, dict) else None
        if not isinstance(gid, str) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        if ANSWER_ID.fullmatch(gid):
            answers.setdefault(gid, source)
        elif TEST_ID.fullmatch(gid):
            tests.append(gid)
    out = {}
    for gid in tests:
        nn, k = TEST_ID.fullmatch(gid).groups()
        exercise = f"{nn}.{k}"
        if exercise not in EXERCISES:
            continue
        source = answers.get(f"ex{nn}-{k}-answer")
        ex = EXERCISES[exercise]
        if isinstance(ex, Implementation):
            taken = take_function(source, ex.name) if source is not None else Taken(None, problem="its answer cell was deleted")
            out[gid] = grade_function(exercise, taken, sandbox, seed, toolkit)
        else:
            taken = take_answer(source) if source is not None else Taken(None, problem="its answer cell was deleted")
            out[gid] = grade_answer(exercise, taken, sandbox, toolkit)
    return out


# ----- nbgrader: in place of its Execute ------------------------------------------------------------

try:
    from nbgrader.preprocessors import NbGraderPreprocessor
except ImportError:  # the class server's parts are not installed: the grading above still imports
    NbGraderPreprocessor = object


def inert(cell) -> None:
    """A learner's markdown or raw cell made text that the teacher's browser shows but never runs:
    formgrader and the feedback render a submission's markdown as HTML in the teacher's (and the
    learner's) page, so every ``<`` becomes ``&lt;`` (no tag of the learner's, no ``<script>``, no
    ``onerror=``, reaches the page), no markdown link is made (nbconvert keeps a ``javascript:`` link,
    which runs in the teacher's page at a click, however it is spelled: ``](`` and ``]:`` are written
    with character references, which markdown shows as text and never reads as a link), and a raw cell,
    which nbconvert would paste in as raw HTML, becomes such a markdown cell. Code cells are left to
    :class:`IsolatedChecks` (their outputs are cleared)."""
    if cell.cell_type not in ("markdown", "raw"):
        return
    if cell.cell_type == "raw":
        cell.cell_type = "markdown"
        for key in ("format", "raw_mimetype"):
            cell.metadata.pop(key, None)
    cell.source = cell.source.replace("<", "&lt;").replace("](", "]&#40;").replace("]:", "]&#58;")


class KnownCells(NbGraderPreprocessor):
    """nbgrader's metadata only where the gradebook has the cell: autograde's sanitizing step, after
    nbgrader's ``DeduplicateIds`` and ``OverwriteCells``, before its ``CheckCellMetadata``. A cell whose
    metadata names no cell of the gradebook (a graded cell pasted twice, whose copy ``DeduplicateIds``
    empties; a ``grade_id`` that ``OverwriteCells`` removed; metadata written by hand) becomes a plain
    cell, and a cell of the gradebook gets the schema version nbgrader checks. ``CheckCellMetadata``
    raises on any other version, and autograde stops there for every learner after this one (for its
    other errors it gives up that learner's submission only)."""

    def preprocess_cell(self, cell, resources, index):
        from nbgrader.nbgraderformat import SCHEMA_VERSION

        meta = cell.metadata.get("nbgrader")
        if meta is not None and not (isinstance(meta, dict) and meta.get("grade_id")):
            del cell.metadata["nbgrader"]
        elif meta is not None:
            meta["schema_version"] = SCHEMA_VERSION
        return cell, resources


def shown(nb) -> None:
    """What formgrader's page and the feedback show of the graded submission ``nb``, bounded: its cells in
    order, each within :data:`MAX_SHOWN_CELL` characters and all within :data:`MAX_SHOWN`, else replaced by
    a line saying how long it was; no more than :data:`MAX_SHOWN_CELLS` cells, the gradebook's (with
    nbgrader's metadata) always kept, the others past that bound gone, and a last cell saying how many;
    highlighted as Python, the course's language (the lexer is named by the notebook's metadata, which
    the learner writes). An honest submission is shown whole."""
    import nbformat

    kept, left, gone, gone_chars = [], MAX_SHOWN, 0, 0
    for cell in nb.cells:
        size, graded = len(cell.source), "nbgrader" in cell.metadata
        if not graded and len(kept) >= MAX_SHOWN_CELLS:
            gone, gone_chars = gone + 1, gone_chars + size
            continue
        if size > min(left, MAX_SHOWN_CELL):
            note = f"{size} characters of the learner's, not shown: more than the course's notebooks hold"
            cell.source = note if cell.cell_type != "code" else f"# {note}"
        else:
            left -= size
        kept.append(cell)
    if gone:
        kept.append(nbformat.v4.new_markdown_cell(f"{gone} more cells of the learner's ({gone_chars} characters) are not "
                                                  "shown: more than the course's notebooks hold."))
    nb.cells = kept
    nb.metadata["language_info"] = {"name": "python"}


class IsolatedChecks(NbGraderPreprocessor):
    """nbgrader's autograde step that replaces running the notebook: each test cell gets as its output
    the verdict of :func:`grade_notebook` (an error output when it fails, which nbgrader scores 0), no
    other cell runs, the learner's markdown is made inert (:func:`inert`), and what formgrader and the
    feedback show of the submission is bounded (:func:`shown`). Configured by
    ``make_assignments.py``'s ``nbgrader_config.py``."""

    from traitlets import Float, Int, Unicode

    course = Unicode("", help="the course directory, which keeps the hidden seed").tag(config=True)
    user = Unicode("", help="the sandbox account (empty: no sandbox, for tests without root)").tag(config=True)
    venv = Unicode("", help="the course environment the answers run in").tag(config=True)
    memory = Int(4 * 1024**3, help="address-space limit of one answer's run, in bytes").tag(config=True)
    cpu = Int(600, help="CPU seconds of one answer's run").tag(config=True)
    timeout = Float(60.0, help="wall-clock seconds of one answer's run (all its cases)").tag(config=True)

    def preprocess(self, nb, resources):
        import nbformat

        course = Path(self.course)
        sandbox = Sandbox(user=self.user or None, venv=Path(self.venv), memory=self.memory, cpu=self.cpu,
                          timeout=self.timeout)
        seed = int((course / ".hidden_seed").read_text())
        course_notebook = ROOT / "notebooks" / f"{resources['nbgrader']['notebook']}.ipynb"
        grades = grade_notebook([dict(c) for c in nb.cells], course_notebook, sandbox, seed)
        for cell in nb.cells:
            if cell.cell_type != "code":
                inert(cell)
                continue
            cell.outputs, cell.execution_count = [], None
            gid = cell.metadata.get("nbgrader", {}).get("grade_id")
            if gid in grades:
                ok, message = grades[gid]
                if ok:
                    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=message + "\n")]
                else:
                    cell.outputs = [nbformat.v4.new_output("error", ename="AssertionError", evalue=message,
                                                           traceback=[f"AssertionError: {message}"])]
        shown(nb)  # graded already: what the pages show of it is bounded
        return nb, resources


# ----- nbgrader: a submission is its learner's --------------------------------------------------------

try:
    from nbgrader.exchange.default.collect import ExchangeCollect
    from nbgrader.exchange.default.release_assignment import ExchangeReleaseAssignment
    from nbgrader.utils import check_directory
except ImportError:
    ExchangeCollect = ExchangeReleaseAssignment = object


def _server_time(path: str):
    """The last time anything in the submission at ``path`` changed, as the server's clock saw it: the
    largest status-change time (ctime, which no user can set) of the folder and everything in it."""
    import datetime

    import stat

    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    top = os.open(path, flags)
    latest, count = os.fstat(top).st_ctime, 0
    # a list, not os.walk's recursion: a chain of folders a thousand deep is one more refusal; each folder
    # opened from the one it lies in, never by its path, so that no link swapped in meanwhile is followed
    folders = [top]
    try:
        while folders:
            folder = folders.pop()
            try:
                try:
                    entries = list(os.scandir(folder))
                except OSError:  # a folder that cannot be read is passed over, as os.walk does
                    continue
                for entry in entries:
                    info = entry.stat(follow_symlinks=False)
                    latest = max(latest, info.st_ctime)
                    count += 1
                    if count > MAX_ENTRIES:  # no learner's folder holds up the others' collection
                        raise OSError(f"{path}: more than {MAX_ENTRIES} files")
                    if stat.S_ISDIR(info.st_mode):
                        try:
                            folders.append(os.open(entry.name, flags, dir_fd=folder))
                        except OSError:  # gone, or a link in its place meanwhile
                            pass
            finally:
                os.close(folder)
    finally:
        for folder in folders:
            os.close(folder)
    return datetime.datetime.fromtimestamp(latest, datetime.timezone.utc).replace(tzinfo=None)


SECRET = "submission_secret.txt"  # nbgrader's submit writes it; release_feedback names the feedback by it
TIMESTAMP = "timestamp.txt"  # collect writes the server's time there; autograde reads it


def _submission_secret(folder: int) -> str | None:
    """The secret nbgrader's submit wrote into the submission open as ``folder`` (a descriptor): the
    learner's fetch_feedback finds their feedback by it. None where there is none, or it is a link, not
    a regular file, or not the hexadecimal digits nbgrader writes (128 of them)."""
    import stat

    try:
        handle = os.open(SECRET, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(handle).st_mode):  # a folder too: Python's open of it would raise
        os.close(handle)
        return None
    with open(handle, "rb") as read:
        text = read.read(257)
    return text.decode() if re.fullmatch(rb"[0-9a-f]{32,256}", text) else None


class KeptRootRelease(ExchangeReleaseAssignment):
    """nbgrader's release_assignment, which leaves the mode of an existing exchange as it is. nbgrader's
    own sets the exchange's top folder to 0777 (dropping the sticky bit) whenever it finds another mode:
    on the class server's exchange, root's and closed to learners' writes
    (:data:`classroom.cli.EXCHANGE_MODE`), that would let any learner fill it, or rename the course's
    folder away and put their own in its place. An exchange that does not exist yet is made as nbgrader
    makes it."""

    def ensure_root(self):
        if not os.path.exists(self.root):
            super().ensure_root()
        elif not check_directory(self.root, write=True, execute=True):
            self.fail(f"The exchange {self.root} cannot be written by this account: release as its owner (root)")


class OwnedCollect(ExchangeCollect):
    """nbgrader's collect, where a submission is its learner's: one whose folder in the exchange is not
    owned by the account it names (or is a link) is refused and not collected; the time recorded is the
    server's (:func:`_server_time`), not the one in the submission's name or its ``timestamp.txt``; a
    name that does not parse is passed over, so that no learner's file stops the others' collection; it
    looks in each learner's own folder ``inbound/NAME/`` (where ``classroom/nbgrader/learner_exchange.py``
    submits; a submission there in another's name is refused) and in ``inbound`` itself; and
    only notebooks are copied, as regular files (a link, a module named like one that Python imports, any
    other file of the submission is left behind: nothing of it lands beside the notebook that the teacher
    opens), with nbgrader's submission secret (:func:`_submission_secret`; release_feedback stops for
    every learner at one without it, so one of the teacher's is written where it is missing)."""

    def _path_to_record(self, path):
        filename = os.path.relpath(path, self.inbound_path)
        parts = os.path.basename(path).rsplit("+", 3)
        if len(parts) < 4:
            return None
        import stat

        folder = os.path.dirname(filename)
        if folder:  # in a learner's own folder (theirs, never a link, nor one another made in their name)
            try:
                held = os.lstat(os.path.join(self.inbound_path, folder))
                keeper = pwd.getpwuid(held.st_uid).pw_name if stat.S_ISDIR(held.st_mode) else None
            except (OSError, KeyError):
                keeper = None
        if folder not in ("", parts[0]) or (folder and keeper != parts[0]):
            self.log.error("Refused %s: it claims to be %s's submission but lies in the folder %s%s", filename,
                           parts[0], folder, "" if folder != parts[0] else ", which is not that account's own")
            return None
        try:
            info = os.lstat(path)
            owner = pwd.getpwuid(info.st_uid).pw_name
        except (OSError, KeyError):
            return None
        if not stat.S_ISDIR(info.st_mode) or owner != parts[0]:
            self.log.error("Refused %s: it claims to be %s's submission but the account %s made it", filename,
                           parts[0], owner if stat.S_ISDIR(info.st_mode) else f"{owner} (as a link or a file)")
            return None
        try:
            when = _server_time(path)
        except OSError as error:
            self.log.error("Refused %s: %s", filename, error)
            return None
        return {"username": parts[0], "filename": filename, "timestamp": when}

    def init_src(self):
        import glob

        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.course_path = os.path.join(self.root, self.coursedir.course_id)
        self.inbound_path = os.path.join(self.course_path, "inbound")
        if not os.path.isdir(self.inbound_path):
            self.fail(f"Course not found: {self.inbound_path}")
        student_id = self.coursedir.student_id
        student_id = "*" if student_id in ("", "*") else glob.escape(student_id)
        name = f"{student_id}+{glob.escape(self.coursedir.assignment_id)}+*"
        latest: dict[str, dict] = {}
        # each learner's own folder (classroom.cli.make_inboxes), and the inbound itself (nbgrader's own layout)
        for path in glob.glob(os.path.join(self.inbound_path, student_id, name)) + glob.glob(os.path.join(self.inbound_path, name)):
            record = self._path_to_record(path)
            if record and (record["username"] not in latest or record["timestamp"] > latest[record["username"]]["timestamp"]):
                latest[record["username"]] = record
        self.duedate = None
        self.src_records = list(latest.values())

    def do_copy(self, src, dest):
        import stat

        record = next((r for r in self.src_records or [] if os.path.join(self.inbound_path, r["filename"]) == src), None)
        try:  # the folder itself, never a link put in its place since init_src looked at it
            top = os.open(src, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError as error:
            self.log.error("Refused %s: %s", os.path.basename(src), error)
            return
        try:
            try:
                owner = pwd.getpwuid(os.fstat(top).st_uid).pw_name
            except KeyError:
                owner = None
            if record is None or owner != record["username"]:
                self.log.error("Refused %s: the folder collected is not the one its learner made", os.path.basename(src))
                return
            try:  # a folder too deep or a path too long to copy is refused: nothing stops the others' collection
                for folder, dirs, files, fd in os.fwalk(".", dir_fd=top):  # links are not followed
                    if folder.count(os.sep) >= MAX_DEPTH:  # before os.fwalk's recursion goes deeper
                        raise OSError(f"folders more than {MAX_DEPTH} deep")
                    if folder == ".":  # a folder named like a file written below would stop everyone's collect
                        dirs[:] = [d for d in dirs if d not in (SECRET, TIMESTAMP)]
                    target = os.path.normpath(os.path.join(dest, folder))
                    os.makedirs(target, exist_ok=True)
                    for name in files:
                        if not name.endswith(".ipynb"):
                            continue
                        try:  # no link, and no pipe that would hold collect waiting
                            handle = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
                        except OSError:
                            continue
                        with open(handle, "rb") as read:
                            if not stat.S_ISREG(os.fstat(read.fileno()).st_mode):
                                continue
                            data = read.read(MAX_NOTEBOOK + 1)  # bounded, though the learner writes on meanwhile
                            if len(data) > MAX_NOTEBOOK:
                                self.log.error("Refused %s of %s: more than %d bytes, far more than a notebook "
                                               "of the course takes", name, os.path.basename(src), MAX_NOTEBOOK)
                                continue
                            with open(os.path.join(target, name), "wb") as write:
                                write.write(data)
            except (OSError, RecursionError) as error:
                self.log.error("Refused %s: %s", os.path.basename(src), error)
                shutil.rmtree(dest, ignore_errors=True)  # no half copy (at most MAX_DEPTH deep)
                return
            secret = _submission_secret(top)
        finally:
            os.close(top)
        if secret is None:  # release_feedback reads one for every learner: without it, it stops for all
            self.log.error("%s held no secret of nbgrader's submit (submission_secret.txt): its feedback is "
                           "released under a secret of the teacher's, which that learner's fetch_feedback "
                           "cannot find", os.path.basename(src))
            secret = secrets.token_hex(64)
        with open(os.path.join(dest, SECRET), "w") as out:
            out.write(secret)
        when = record["timestamp"]
        if when:  # the server's time, which autograde reads and records
            with open(os.path.join(dest, TIMESTAMP), "w") as out:
                out.write(when.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
