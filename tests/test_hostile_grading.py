"""Grading against a hostile learner: one test per kind of attack, each refused or without effect.

A submission of notebook 01 carries the attack (in cells the grader never runs, or in the graded
function itself, which runs in the sandbox), and the grade must be the one the function deserves, with
nothing of the hidden cases, the seed or another submission in any message. Collect is tried with a
submission in another learner's name, a backdated one, junk in the exchange and a link; a learner
fills their own submission folder until it refuses, and writes nothing else of the exchange. Marked
``classroom`` (root: accounts, namespaces). Leftover checks look only at this file's own folders.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import make_assignments  # noqa: E402

pytestmark = [pytest.mark.classroom,
              pytest.mark.skipif(os.geteuid() != 0, reason="grading runs answers as another user: needs root")]

NB = "01_sphere_vs_cone"
SANDBOX = "course-sandbox-hostile"
SEED = 777123456789
EXCHANGE = 32 * 2**20  # the exchange's own file system: small, so that filling it is quick
INBOX = 16 * 2**20  # each learner's submission folder, a file system of its own: as small
NBGRADER = str(Path(sys.executable).parent / "nbgrader")
RIGHT = ("def my_effective_rank(X):\n    Xc = X - X.mean(axis=0)\n    lam = np.linalg.eigvalsh(Xc.T @ Xc / len(X))\n"
         "    return lam.sum() ** 2 / np.sum(lam ** 2)")
WRONG = "def my_effective_rank(X):\n    return float(X.shape[1])"


@pytest.fixture(scope="module")
def place():
    base = Path(tempfile.mkdtemp(prefix="course-hostile-"))
    base.chmod(0o755)
    yield base
    from classroom.cli import release_exchanges

    release_exchanges(base)  # the exchanges the course put on file systems of their own
    shutil.rmtree(base, ignore_errors=True)
    for user in (SANDBOX, "hostile-a", "hostile-b", "hostile-sa", "hostile-sb", "hostile-sc", "hostile-sd", "hostile-sz", "hostile-fill", "hostile-other", "hostile-cap", "hostile-honest"):
        subprocess.run(["userdel", user], capture_output=True)


@pytest.fixture(scope="module")
def course(place):
    course = place / "course"
    make_assignments.main([str(course), "--only", "01", "--hidden-seed", str(SEED), "--prefix", str(place),
                           "--exchange", str(place / "exchange"), "--exchange-size", str(EXCHANGE), "--sandbox-user",
                           SANDBOX, "--timeout", "20", "--inbox-size", str(INBOX)])
    return course


@pytest.fixture(scope="module")
def sandbox(course, place):
    from classroom.grading import Sandbox

    return Sandbox(SANDBOX, place / "venv", timeout=20)


def graded(sandbox, answers: dict[str, str], extra: list[str] = ()) -> dict[str, tuple[bool, str]]:
    """The grades of a notebook 01 with these answer cells and these extra cells put before them."""
    from classroom.grading import grade_notebook

    source = nbformat.read(ROOT / "notebooks" / f"{NB}.ipynb", 4)
    nb = make_assignments.source_notebook(ROOT / "notebooks" / f"{NB}.ipynb")
    cells = [nbformat.v4.new_code_cell(code) for code in extra]
    defaults = {"ex01-1-answer": RIGHT, "ex01-3-answer": "answer = 10", "ex01-2-answer": 'answer = "c"'}
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if gid in defaults:
            cell.source = answers.get(gid, defaults[gid])
        cells.append(cell)
    assert source.cells
    return grade_notebook([dict(c) for c in cells], ROOT / "notebooks" / f"{NB}.ipynb", sandbox, SEED)


def no_secret(grades) -> None:
    text = repr(grades)
    for secret in (str(SEED), "BEGIN SOLUTION", "eigvalsh(Xc.T", "gaussian_cloud("):
        assert secret not in text, (secret, text)


def test_honest_submission_full_marks(sandbox):
    grades = graded(sandbox, {})
    assert all(ok for ok, _ in grades.values()), grades


def test_patched_checks_change_nothing(sandbox):
    patch = ("import shared.exercises.common as c, shared.exercises as e\n"
             "c.verdict_of = e.verdict = lambda *a, **k: (True, 'right')\nimport numpy\nnumpy.allclose = lambda *a, **k: True")
    grades = graded(sandbox, {"ex01-1-answer": patch + "\n" + WRONG, "ex01-3-answer": patch + "\nanswer = 50"}, [patch])
    assert not grades["ex01-1-test"][0] and not grades["ex01-3-test"][0], grades
    # the same patch from inside the graded function: the toolkit is not there to patch
    inside = ("def my_effective_rank(X):\n    import shared.exercises.common as c\n"
              "    c._close = lambda *a: True\n    return 0.0")
    ok, message = graded(sandbox, {"ex01-1-answer": inside})["ex01-1-test"]
    assert not ok and "write it yourself" in message, message


def test_exception_handler_swallowing_assertions_changes_nothing(sandbox):
    handler = "get_ipython().set_custom_exc((AssertionError, Exception), lambda *a, **k: None)"
    grades = graded(sandbox, {"ex01-1-answer": handler + "\n" + WRONG}, [handler])
    assert not grades["ex01-1-test"][0]


def test_input_transformer_blanking_tests_changes_nothing(sandbox):
    blank = ("get_ipython().input_transformers_cleanup.append("
             "lambda lines: [] if any('verdict' in l for l in lines) else lines)")
    grades = graded(sandbox, {"ex01-3-answer": "answer = 3"}, [blank])
    assert not grades["ex01-3-test"][0]


def test_calling_the_toolkit_only_when_not_traced_is_seen(sandbox):
    sneaky = ("def my_effective_rank(X):\n    import sys\n"
              "    if sys.getprofile() is None and sys.gettrace() is None:\n"
              "        return effective_rank(cov_eigs(X))\n    return 0.0")
    ok, message = graded(sandbox, {"ex01-1-answer": sneaky})["ex01-1-test"]
    assert not ok and "write it yourself" in message, message
    by_name = ("def my_effective_rank(X):\n    m = __import__('importlib').import_module('shar' + 'ed.meters')\n"
               "    return getattr(m, 'effective_rank')(X)")
    ok, message = graded(sandbox, {"ex01-1-answer": by_name})["ex01-1-test"]
    assert not ok and "write it yourself" in message, message


def test_printing_every_cell_and_echoing_hidden_cases_reaches_no_message(sandbox):
    printer = "get_ipython().events.register('pre_run_cell', lambda info: print(info.raw_cell))"
    from shared.exercises import EXERCISES

    shown = [kw["X"].shape for _, kw in EXERCISES["01.1"].cases()]
    echo = ("import inspect\n"
            "def my_effective_rank(X):\n"
            f"    if X.shape not in {shown!r}:\n"
            "        raise ValueError('LEAK' + repr(X.tolist()) + repr([f.frame.f_locals for f in inspect.stack()]))\n"
            + RIGHT.split("\n", 1)[1])
    grades = graded(sandbox, {"ex01-1-answer": echo}, [printer])
    ok, message = grades["ex01-1-test"]
    assert not ok and "a case not shown in class" in message and "LEAK" not in message, message
    no_secret(grades)


def test_reading_the_hidden_cases_from_memory_shows_them_nowhere(sandbox):
    """The hidden cases are not in the run whose messages are shown: a function that looks for them in
    its process (the runner's request) and raises them on a visible case finds none."""
    snoop = ("def my_effective_rank(X):\n    import __main__, gc\n"
             "    cases = [o for o in gc.get_objects() if isinstance(o, dict) and 'cases' in o]\n"
             "    raise ValueError('SNOOP %d %r' % (len(cases[0]['cases']) if cases else -1, cases)[:300])")
    ok, message = graded(sandbox, {"ex01-1-answer": snoop})["ex01-1-test"]
    from shared.exercises import EXERCISES

    assert not ok and f"SNOOP {len(EXERCISES['01.1'].cases())} " in message, message  # the visible ones only


def test_walking_paths_reads_no_other_submission_and_writes_nothing_outside(sandbox, course, place):
    other = course / "submitted" / "someone" / NB
    other.mkdir(parents=True)
    (other / f"{NB}.ipynb").write_text("OTHER SUBMISSION")
    walker = f'''def my_effective_rank(X):
    import os
    found, wrote = [], []
    for start in ["/", "..", "../..", {str(course)!r}, {str(place)!r}, "/proc/1/root", "/proc/self/cwd/.."]:
        for folder, dirs, files in os.walk(start):
            dirs[:] = [d for d in dirs if d not in ("shared", "usr", "proc", "site-packages")]
            for name in files:
                path = os.path.join(folder, name)
                try:
                    text = open(path, errors="replace").read(40)
                except Exception:
                    continue
                if name.endswith((".ipynb", ".db", "seed")) or "OTHER" in text:
                    found.append(path)
    for target in ["/tmp/hostile-leak", {str(place / 'leak')!r}, {str(course / 'leak')!r}, "/leak", "/work/../leak"]:
        try:
            open(target, "w").write("x")
            wrote.append(target)
        except OSError:
            pass
    raise ValueError("WROTE " + repr(wrote) + " FOUND " + repr(found))'''
    try:
        ok, message = graded(sandbox, {"ex01-1-answer": walker})["ex01-1-test"]
    finally:
        shutil.rmtree(course / "submitted" / "someone")
    assert not ok and "FOUND []" in message, message
    assert "WROTE [] " in message or "WROTE ['/tmp/hostile-leak'] " in message, message  # its own private /tmp, at most
    assert not Path("/tmp/hostile-leak").exists() and not (place / "leak").exists() and not (course / "leak").exists()
    # nothing of the sandbox's runs is left: no process of its account, no folder of its run
    left = subprocess.run(["ps", "-u", SANDBOX, "-o", "pid="], capture_output=True, text=True).stdout.split()
    assert left == [], left
    uid = pwd.getpwnam(SANDBOX).pw_uid
    owned = [p for p in place.rglob("*") if not p.is_symlink() and p.lstat().st_uid == uid]
    assert owned == [], owned


def test_a_forked_process_cannot_outlive_the_run(sandbox):
    stay = ("def my_effective_rank(X):\n    import os\n    os.fork()\n    return 0.0")
    ok, message = graded(sandbox, {"ex01-1-answer": stay})["ex01-1-test"]
    assert not ok
    assert subprocess.run(["ps", "-u", SANDBOX, "-o", "pid="], capture_output=True, text=True).stdout.split() == []


def useradd(name: str, home: Path) -> int:
    subprocess.run(["useradd", "--home-dir", str(home), "--no-create-home", "--shell", "/bin/sh", "--user-group", name],
                   check=True, capture_output=True)
    return pwd.getpwnam(name).pw_uid


def nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess:
    run = subprocess.run([NBGRADER, *args], cwd=course, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    return run


def test_submission_in_another_name_refused_time_is_the_servers_and_junk_blocks_no_one(course, place):
    nbgrader(course, "generate_assignment", NB, "--create", "--force")
    inbound = place / "exchange" / "isotropy-anisotropy" / "inbound"
    inbound.mkdir(parents=True, exist_ok=True)
    a, b = useradd("hostile-a", place / "a"), useradd("hostile-b", place / "b")
    release = course / "release" / NB / f"{NB}.ipynb"

    def submit(folder: str, owner: int, stamp: str, extra: dict[str, str] = {}) -> Path:
        path = inbound / folder
        path.mkdir()
        shutil.copy(release, path / f"{NB}.ipynb")
        (path / "timestamp.txt").write_text(stamp)
        for name, text in extra.items():
            (path / name).write_text(text)
        for p in [path, *path.iterdir()]:
            os.chown(p, owner, owner)
        return path

    old = "2001-01-01 00:00:00.000000 UTC"
    # a, in b's name, dated later than b's own; a's own submission, backdated, with modules named like imports
    submit(f"hostile-b+{NB}+2099-01-01 00:00:00.000000 UTC+aaaa", a, "2099-01-01 00:00:00.000000 UTC")
    submit(f"hostile-b+{NB}+2026-01-01 00:00:00.000000 UTC+bbbb", b, "2026-01-01 00:00:00.000000 UTC")
    marker = place / "imported"
    module = f"open({str(marker)!r}, 'a').write(__name__)\n"
    submit(f"hostile-a+{NB}+{old}+cccc", a, old, {"numpy.py": module, "shared.py": module, "IPython.py": module,
                                                  "sitecustomize.py": module})
    (inbound / f"hostile-a+{NB}+junk").mkdir()  # a name that does not parse
    os.symlink(course, inbound / f"hostile-b+{NB}+2100-01-01 00:00:00.000000 UTC+dddd")  # a link to the course
    run = nbgrader(course, "collect", NB)
    log = run.stdout + run.stderr
    assert "Refused" in log and "hostile-a" in log
    mine = (course / "submitted" / "hostile-b" / NB / f"{NB}.ipynb").read_bytes()
    assert mine == release.read_bytes()
    assert (course / "submitted" / "hostile-b" / NB / "timestamp.txt").read_text().startswith("20")
    stamp = (course / "submitted" / "hostile-a" / NB / "timestamp.txt").read_text()
    assert not stamp.startswith("2001"), stamp
    assert not (course / "submitted" / "hostile-b" / NB / "gradebook.db").exists()
    # a's folder held modules named like imports: none is collected, and autograde runs none
    assert sorted(p.name for p in (course / "submitted" / "hostile-a" / NB).iterdir()) == \
        [f"{NB}.ipynb", "submission_secret.txt", "timestamp.txt"]
    run = nbgrader(course, "autograde", NB, "--create")
    assert not marker.exists(), marker.read_text()
    assert "WARNING" not in run.stdout + run.stderr, run.stdout + run.stderr
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        when = gb.find_submission(NB, "hostile-a").timestamp
        assert when.year >= 2026
    # an honest collect and autograde warn of nothing
    assert "cheating" not in log


def test_hostile_markdown_reaches_the_teachers_page_as_text_not_as_script():
    """A learner's markdown (or raw) cell with a script, rendered the way formgrader renders an
    autograded submission for the teacher, arrives as text: no tag of the learner's is in the page, and no
    ``javascript:`` link (however spelled), which would run in the teacher's page at a click."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers
    from traitlets.config import Config

    from classroom.grading import inert

    attack = ('Answer: <img src=x onerror="fetch(\'/api/contents/\')">\n\n<script>alert(document.cookie)</script>'
              " and $a < b$\n\n[see my plot](java&#115;cript:alert(1)) and [the data][d]\n\n[d]: javascript:alert(2)\n")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(attack), nbformat.v4.new_raw_cell(attack, metadata={"format": "text/html"})]
    config = Config()
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    resources = {"nbgrader": {}, "index": 0, "total": 1, "notebook_id": "ps1", "assignment_id": "ps1", "base_url": "/",
                 "mathjax_url": "", "student": "alice", "last_name": "", "first_name": "", "notebook_path": "x",
                 "hide_header": False, "base_path": "/"}
    before, _ = HTMLExporter(config=config).from_notebook_node(nb, resources=dict(resources))
    assert "<script>alert" in before and 'onerror="fetch' in before  # what the page held before
    assert 'href="javascript:alert(1)' in before and 'href="javascript:alert(2)' in before  # a click ran it
    for cell in nb.cells:
        inert(cell)
    after, _ = HTMLExporter(config=config).from_notebook_node(nb, resources=dict(resources))
    assert "<script>alert" not in after and "<img src=x" not in after and "href=\"javascript" not in after, after
    assert "alert(document.cookie)" in after  # shown, as text


def test_hostile_an_attachment_named_many_times_is_not_copied_into_the_teachers_page_each_time():
    """A learner's markdown cell names its attachment, an image, hundreds of times: nbconvert wrote the
    whole image into the page at each (a cell of 136 KiB made 39 MB of HTML, so a notebook of collect's
    16 MiB would make gigabytes, filling the exchange at the release of feedback). Made inert, the cell
    names no attachment: the page stays about the size of the notebook."""
    import base64

    from nbconvert.exporters import HTMLExporter
    from traitlets.config import Config

    from classroom.grading import inert

    cell = nbformat.v4.new_markdown_cell("![a](attachment:x.png)" * 300 + "\n\n![b][r]\n\n[r]: attachment:x.png\n")
    cell.attachments = {"x.png": {"image/png": base64.b64encode(b"\x89PNG" + bytes(100_000)).decode()}}
    nb = nbformat.v4.new_notebook(cells=[cell])
    config = Config()
    config.HTMLExporter.template_name = "classic"
    before, _ = HTMLExporter(config=config).from_notebook_node(nb)
    inert(cell)
    after, _ = HTMLExporter(config=config).from_notebook_node(nb)
    size = len(nbformat.writes(nb))
    assert len(before) > 100 * size and len(after) < 3 * size, (len(before), len(after), size)


def test_hostile_a_run_shares_one_memory_limit_in_a_group_of_its_own(sandbox):
    """Many processes of one answer share the run's memory, not one limit each: the run is in a
    control group of its own (where the machine has them), and the group is gone afterwards."""
    from classroom import limits

    if not limits.available():
        pytest.skip("no control groups root can make on this machine")
    records, _ = sandbox.run({"kind": "answer", "toolkit": {},
                              "source": "float('/grading-' in open('/proc/self/cgroup').read())"})
    assert [r.get("number") for r in records if "number" in r] == [1.0], records
    left = [d for d in Path(limits.CGROUP).glob(f"*/{limits.PARENT}/grading-*")] + \
        [d for d in Path(limits.CGROUP).glob(f"{limits.PARENT}/grading-*")]
    assert not left, left


def test_hostile_a_folder_swapped_for_a_link_after_it_was_checked_is_not_followed(place):
    """Between collect's check of a submission folder and its copy, the learner puts a link to
    someone else's folder in its place (or a pipe named like a notebook): the copy follows no link,
    waits on no pipe and copies nothing that is not the learner's own."""
    import logging

    from classroom.grading import OwnedCollect

    inbound, dest = place / "race-inbound", place / "race-dest"
    other = place / "race-other"
    for folder in (inbound, other):
        folder.mkdir()
    (other / f"{NB}.ipynb").write_text('{"secret": "another learner"}')
    name = f"nobody+{NB}+2026-01-01 00:00:00.000000 UTC+abcd"
    mine = inbound / name
    mine.mkdir()
    (mine / f"{NB}.ipynb").write_text("{}")
    os.mkfifo(mine / "pipe.ipynb")
    os.chown(mine, 65534, 65534)
    collect = OwnedCollect.__new__(OwnedCollect)  # only what do_copy reads
    collect.inbound_path, collect.log = str(inbound), logging.getLogger("race")
    collect.src_records = [{"username": "nobody", "filename": name, "timestamp": None}]
    (other / "secret").write_text("ab" * 64)  # someone else's file, where nbgrader's submit puts its secret
    os.symlink(other / "secret", mine / "submission_secret.txt")
    collect.do_copy(str(mine), str(dest / "ok"))  # the learner's own folder: its notebook only, no wait on the pipe
    assert sorted(p.name for p in (dest / "ok").iterdir()) == [f"{NB}.ipynb", "submission_secret.txt"]
    # the secret that release_feedback needs (else it stops for everyone): not read through the link,
    # a fresh one of the teacher's instead
    secret = (dest / "ok" / "submission_secret.txt").read_text()
    assert secret != "ab" * 64 and len(secret) == 128 and int(secret, 16) >= 0, secret
    mine.rename(place / "race-moved")  # the swap
    os.symlink(other, mine)
    collect.do_copy(str(mine), str(dest / "swapped"))
    assert not (dest / "swapped").exists()
    os.unlink(mine)
    other.rename(mine)  # a real folder, but not the learner's
    collect.do_copy(str(mine), str(dest / "not-theirs"))
    assert not (dest / "not-theirs").exists()


def test_hostile_a_course_folder_made_in_the_exchange_before_the_course_is_refused(course, place):
    """Everyone may write the exchange's top folder: a learner who makes the next course's folder
    first would own what the class submits to it. Making the assignments refuses it, naming it."""
    exchange = place / "exchange-early"
    exchange.mkdir()
    exchange.chmod(0o1777)
    early = exchange / "isotropy-anisotropy"
    early.mkdir()
    os.chown(early, 65534, 65534)
    with pytest.raises(SystemExit, match="not root's"):
        make_assignments.main([str(place / "course-early"), "--only", "01", "--hidden-seed", str(SEED), "--prefix", str(place),
                               "--exchange", str(exchange), "--sandbox-user", SANDBOX, "--timeout", "20"])


FILL = """\
import errno, os, sys
written, error, chunk = 0, None, 2**20
try:
    os.makedirs(sys.argv[1], exist_ok=True)
    fd = os.open(os.path.join(sys.argv[1], 'big.ipynb'), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    while written < int(sys.argv[2]) * 2**20:
        try:  # MiB by MiB, then, once refused, the last blocks that are left, 4 KiB at a time
            n = os.write(fd, b'x' * chunk)
            os.fsync(fd)
            written += n
        except OSError as e:
            if e.errno != errno.ENOSPC or chunk == 4096:
                raise
            chunk = 4096
except OSError as e:
    error = e.errno
print(error, written)
"""


def as_learner(name: str, *args: str) -> tuple[int | None, int]:
    """``FILL`` run as ``name``: (errno of the refusal or None, bytes written)."""
    run = subprocess.run(["setpriv", f"--reuid={name}", f"--regid={name}", "--clear-groups", "/usr/bin/python3", "-c",
                          FILL, *args], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}, timeout=300)
    assert run.returncode == 0, run.stderr
    error, written = run.stdout.split()
    return None if error == "None" else int(error), int(written)


def learner_home(name: str, place: Path) -> Path:
    """An account ``name`` with a home of its own under ``place``."""
    home = place / name
    useradd(name, home)
    home.mkdir()
    os.chown(home, pwd.getpwnam(name).pw_uid, pwd.getpwnam(name).pw_gid)
    home.chmod(0o700)
    return home


def as_learner_nbgrader(name: str, home: Path, place: Path, *args: str) -> subprocess.CompletedProcess:
    """The class environment's nbgrader, run as ``name`` in their home, with the learners' configuration."""
    return subprocess.run(["setpriv", f"--reuid={name}", f"--regid={name}", "--clear-groups", "--",
                           str(place / "venv" / "bin" / "nbgrader"), *args], cwd=home, capture_output=True, text=True,
                          timeout=300, env={"HOME": str(home), "USER": name, "PATH": "/usr/bin:/bin"})


TAB = """\
import json, sys
from nbgrader.server_extensions.assignment_list.handlers import AssignmentList
tab = AssignmentList()
tab.root_dir = sys.argv[1]
course = "isotropy-anisotropy"
answers = {"fetched": tab.fetch_feedback(course, sys.argv[2]), "submitted": tab.submit_assignment(course, sys.argv[2]),
           "listed": tab.list_assignments(course_id=course)}
print(json.dumps(answers))
"""


def test_hostile_a_learner_filling_their_submission_folder_blocks_no_other_submission(course, place):
    """Each learner submits into a folder of their own, ``inbound/NAME/``, on a file system of its own.
    A learner writes into theirs by hand (nbgrader submit's 100 MB rule is the command's, not the
    folder's) until it refuses: "No space left on device" at that folder's size. Another learner's
    ``nbgrader submit`` still goes through, and is collected and graded. The filler can write neither
    into ``inbound`` itself nor into the other's folder, and reads nothing of it."""
    import errno

    from nbgrader.api import Gradebook

    filler, honest = "hostile-cap", "hostile-honest"
    learner_home(filler, place)
    home = learner_home(honest, place)
    make_assignments.main([str(course), "--only", "01", "--hidden-seed", str(SEED), "--prefix", str(place),
                           "--exchange", str(place / "exchange"), "--exchange-size", str(EXCHANGE), "--sandbox-user",
                           SANDBOX, "--timeout", "20", "--inbox-size", str(INBOX), "--learners", filler, honest])
    inbound = place / "exchange" / "isotropy-anisotropy" / "inbound"
    info = inbound.lstat()
    assert (info.st_uid, info.st_mode & 0o7777) == (0, 0o711)
    for name in (filler, honest):
        own = (inbound / name).stat()
        assert os.path.ismount(inbound / name), name
        assert (own.st_uid, own.st_mode & 0o7777) == (pwd.getpwnam(name).pw_uid, 0o700)
    nbgrader(course, "generate_assignment", NB, "--create", "--force")
    nbgrader(course, "release_assignment", NB, "--force")
    fill = inbound / filler / f"{filler}+{NB}+2026-01-01 00:00:00.000000 UTC+ffff"
    error, written = as_learner(filler, str(fill), "4096")
    assert error == errno.ENOSPC, f"{written} bytes written into a submission folder without refusal ({error})"
    # nor anywhere else of the inbound: not into it, not into the other's folder
    for elsewhere in (inbound / f"{filler}+{NB}+2026-01-02 00:00:00.000000 UTC+gggg",
                      inbound / honest / f"{filler}+{NB}+2026-01-02 00:00:00.000000 UTC+hhhh",
                      inbound / honest / f"{honest}+{NB}+2026-01-02 00:00:00.000000 UTC+iiii"):
        assert as_learner(filler, str(elsewhere), "1")[0] == errno.EACCES, elsewhere
    peek = subprocess.run(["setpriv", f"--reuid={filler}", f"--regid={filler}", "--clear-groups", "ls", str(inbound),
                           str(inbound / honest)], capture_output=True, text=True)
    assert peek.returncode != 0 and peek.stdout == "", peek.stdout
    # the other learner fetches, answers and submits with nbgrader, as in class
    fetched = as_learner_nbgrader(honest, home, place, "fetch_assignment", NB, "--course", "isotropy-anisotropy")
    assert fetched.returncode == 0, fetched.stdout + fetched.stderr
    notebook = home / NB / f"{NB}.ipynb"
    nb = nbformat.read(notebook, 4)
    answers = {"ex01-1-answer": RIGHT, "ex01-3-answer": "answer = 10", "ex01-2-answer": 'answer = "c"'}
    for cell in nb.cells:
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if gid in answers:
            cell.source = answers[gid]
    nbformat.write(nb, notebook)
    os.chown(notebook, pwd.getpwnam(honest).pw_uid, pwd.getpwnam(honest).pw_gid)
    submitted = as_learner_nbgrader(honest, home, place, "submit", NB, "--course", "isotropy-anisotropy")
    assert submitted.returncode == 0, submitted.stdout + submitted.stderr
    (theirs,) = (inbound / honest).glob(f"{honest}+{NB}+*")
    assert theirs.stat().st_uid == pwd.getpwnam(honest).pw_uid
    nbgrader(course, "collect", NB, "--student", honest)
    nbgrader(course, "autograde", NB, "--student", honest, "--create")
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        graded_one = gb.find_submission(NB, honest)
        assert (graded_one.score, graded_one.max_score) == (5.0, 5.0)
    # the teacher's feedback goes out, and back to its learner, with the filler's folder full; the
    # releases leave the exchange closed to learners' writes (nbgrader's own would open it: 0777)
    nbgrader(course, "generate_feedback", NB, "--student", honest)
    nbgrader(course, "release_feedback", NB, "--student", honest)
    from classroom.cli import EXCHANGE_MODE

    exchange = place / "exchange"
    assert (exchange.stat().st_uid, exchange.stat().st_mode & 0o7777) == (0, EXCHANGE_MODE)
    listed = as_learner_nbgrader(honest, home, place, "list", "--course", "isotropy-anisotropy")
    assert listed.returncode == 0 and NB in listed.stdout + listed.stderr, listed.stdout + listed.stderr
    back = as_learner_nbgrader(honest, home, place, "fetch_feedback", NB, "--course", "isotropy-anisotropy")
    assert back.returncode == 0, back.stdout + back.stderr
    (feedback,) = (home / NB / "feedback").glob(f"*/{NB}.html")
    assert f"{NB} (Score: 5.0 / 5.0)" in feedback.read_text()
    # and from JupyterLab's Assignments tab: nbgrader's server extension, which loads the environment's
    # configuration itself, lists, submits and fetches the feedback with the same commands
    shutil.rmtree(home / NB / "feedback")
    tab = subprocess.run(["setpriv", f"--reuid={honest}", f"--regid={honest}", "--clear-groups", "--",
                          str(place / "venv" / "bin" / "python"), "-c", TAB, str(home), NB], cwd=home, capture_output=True,
                         text=True, timeout=300, env={"HOME": str(home), "USER": honest, "PATH": "/usr/bin:/bin"})
    assert tab.returncode == 0, tab.stderr
    answers = json.loads(tab.stdout.splitlines()[-1])
    assert all(answer["success"] for answer in answers.values()), answers
    assert {(a["assignment_id"], a["status"]) for a in answers["listed"]["value"]} >= {(NB, "fetched"), (NB, "submitted")}
    (feedback,) = (home / NB / "feedback").glob(f"*/{NB}.html")
    assert f"{NB} (Score: 5.0 / 5.0)" in feedback.read_text()
    assert len(list((inbound / honest).glob(f"{honest}+{NB}+*"))) == 2  # the tab's submission, into their folder
    # the filler's writes stopped at their own folder's size, its image taking no more of the machine's disk
    assert written <= INBOX
    image = place / "inbox-images" / "-".join(inbound.parts[1:]) / f"{filler}.img"
    taken = image.stat().st_blocks * 512
    assert taken <= INBOX, f"the submission folder's image takes {taken} bytes of the machine's disk"
    print(f"a learner's submission folder fill: {written / 2**20:.0f} MiB written, then ENOSPC; the image takes "
          f"{taken / 2**20:.0f} MiB of the machine's disk; another learner submitted and scored "
          f"{graded_one.score:g}/{graded_one.max_score:g}")
    shutil.rmtree(fill)


def test_hostile_a_learner_writes_nothing_in_the_exchange_but_their_own_submission_folder(course, place):
    """The exchange's top folder is root's and closed to learners' writes (nbgrader's layout has every
    learner write it, so that one could fill its file system and hold up the teacher's releases of
    assignments and feedback for the class): a learner's write there, in the course's folder, its
    ``outbound`` or its ``feedback`` is refused, while another learner still writes a submission into
    their own folder. Unmounted (a reboot), the folder below lets no learner write it (a server started
    before the mount sees that folder), and ``serve`` mounts the exchange and the learners' folders
    again, closed as before, submissions kept."""
    import errno

    from classroom.cli import EXCHANGE_MODE, remount_exchanges, remount_inboxes

    exchange = place / "exchange"
    inbound = exchange / "isotropy-anisotropy" / "inbound"
    assert os.path.ismount(exchange) and inbound.is_dir()
    learners = ["hostile-other"] + [name for name in ("hostile-cap", "hostile-honest") if (inbound / name).is_dir()]
    for name in ("hostile-fill", "hostile-other"):
        learner_home(name, place)
    make_assignments.main([str(place / "course"), "--only", "01", "--hidden-seed", str(SEED), "--prefix", str(place),
                           "--exchange", str(exchange), "--exchange-size", str(EXCHANGE), "--sandbox-user", SANDBOX,
                           "--timeout", "20", "--inbox-size", str(INBOX), "--learners", "hostile-other"])
    theirs = inbound / "hostile-other" / f"hostile-other+{NB}+2026-01-02 00:00:00.000000 UTC+eeee"
    closed = [exchange, inbound.parent, inbound.parent / "outbound", inbound.parent / "feedback"]
    try:
        assert [(f.stat().st_uid, f.stat().st_mode & 0o7777) for f in closed] == \
            [(0, EXCHANGE_MODE), (0, 0o755), (0, 0o755), (0, 0o711)]
        for folder in closed:
            refused = as_learner("hostile-fill", str(folder / "hostile-fill-junk"), "1")
            assert refused == (errno.EACCES, 0), (folder, refused)
        assert as_learner("hostile-other", str(theirs), "1") == (None, 2**20)  # a submission still goes in
        subprocess.run(["umount", "--recursive", str(exchange)], check=True)  # a reboot
        below = as_learner("hostile-fill", str(exchange / "hidden"), "1")
        assert below[0] == errno.EACCES, below
        remount_exchanges(place)
        remount_inboxes(place, learners)
        assert os.path.ismount(exchange) and all(os.path.ismount(inbound / name) for name in learners)
        assert (exchange.stat().st_uid, exchange.stat().st_mode & 0o7777) == (0, EXCHANGE_MODE)
        assert (theirs / "big.ipynb").stat().st_size == 2**20
    finally:
        shutil.rmtree(theirs, ignore_errors=True)
        if not os.path.ismount(exchange):
            remount_exchanges(place)
            remount_inboxes(place, learners)


def test_a_released_exchange_keeps_its_owner_and_mode(place):
    """``remove --everything`` unmounts the exchange: the folder below gets the exchange's owner and
    mode back (root's, :data:`classroom.cli.EXCHANGE_MODE`), not the closed 0700 it had under the mount, so
    a course made again on the machine's disk (``--exchange-size 0``) lets the learners read it. An
    exchange left open to learners' writes (nbgrader's 1777, as made before) is closed by making the
    course again."""
    from classroom.cli import EXCHANGE_MODE, cap_exchange, release_exchanges

    prefix, exchange = place / "prefix-again", place / "exchange-again"
    prefix.mkdir()
    exchange.mkdir()
    exchange.chmod(0o1777)
    cap_exchange(exchange, prefix, EXCHANGE)
    assert os.path.ismount(exchange)
    release_exchanges(prefix)
    assert not os.path.ismount(exchange) and not list((prefix / "exchange-images").glob("*"))
    assert (exchange.stat().st_uid, exchange.stat().st_mode & 0o7777) == (0, EXCHANGE_MODE)
    exchange.chmod(0o1777)
    make_assignments.main([str(place / "course-again"), "--only", "01", "--hidden-seed", str(SEED), "--prefix",
                           str(place), "--exchange", str(exchange), "--exchange-size", "0", "--sandbox-user", SANDBOX,
                           "--timeout", "20"])
    info = exchange.stat()
    assert not os.path.ismount(exchange) and (info.st_uid, info.st_mode & 0o7777) == (0, EXCHANGE_MODE)


def test_hostile_a_removed_learners_submission_folder_is_not_left_to_the_next_owner_of_their_uid(place):
    """``remove`` deletes the class's accounts; their submission folders (owned by their uids, which a
    later account may get) are unmounted and deleted with them, images included; the others stay."""
    from classroom import cli

    prefix, inbound = place / "prefix-remove", place / "exchange-remove" / "inbound"
    (prefix / "hub").mkdir(parents=True)
    inbound.mkdir(parents=True)
    for name in ("hostile-gone", "hostile-stays"):
        useradd(name, place / name)
    (prefix / "hub" / "created-users").write_text("hostile-gone\n")
    try:
        cli.make_inboxes(inbound, prefix, INBOX, ["hostile-gone", "hostile-stays"])
        assert os.path.ismount(inbound / "hostile-gone") and os.path.ismount(inbound / "hostile-stays")
        assert cli.main(["remove", "--prefix", str(prefix)]) == 0
        images = prefix / "inbox-images" / "-".join(inbound.parts[1:])
        assert not (inbound / "hostile-gone").exists() and not (images / "hostile-gone.img").exists()
        assert os.path.ismount(inbound / "hostile-stays") and (images / "hostile-stays.img").exists()
    finally:
        cli.release_inboxes(prefix)
        subprocess.run(["userdel", "hostile-stays"], capture_output=True)
        subprocess.run(["userdel", "hostile-gone"], capture_output=True)
    assert not os.path.ismount(inbound / "hostile-stays") and not (inbound / "hostile-stays").exists()


def test_hostile_an_exchange_that_is_a_link_is_not_moved_into_an_image(course, place):
    """The exchange's path, where a learner could write its parent, is a link to another folder: its
    files are not copied into an image and deleted; making the assignments refuses, naming it."""
    victim = place / "victim"
    victim.mkdir()
    (victim / "keep").write_text("kept")
    link = place / "exchange-link"
    link.symlink_to(victim)
    with pytest.raises(SystemExit, match="not a folder of root's"):
        make_assignments.main([str(place / "course-link"), "--only", "01", "--hidden-seed", str(SEED), "--prefix",
                               str(place), "--exchange", str(link), "--sandbox-user", SANDBOX])
    assert (victim / "keep").read_text() == "kept" and not os.path.ismount(victim)


def test_hostile_an_exchange_holding_files_is_not_copied_into_an_image(course, place):
    """An exchange that already holds what learners put there (a class from before the exchange was
    capped) is left on the machine's disk: root's ``mkfs.ext4 -d`` would copy a tree learners wrote,
    following a link swapped in during the copy. It says so, and the files stay where they were."""
    from classroom.cli import cap_exchange, exchange_image

    exchange = place / "used-exchange"
    exchange.mkdir()
    exchange.chmod(0o1777)
    (exchange / "inbound").mkdir()
    (exchange / "inbound" / "a-submission").write_text("theirs")
    cap_exchange(exchange, place, 32 * 2**20)
    assert not os.path.ismount(exchange) and not exchange_image(exchange, place).exists()
    assert (exchange / "inbound" / "a-submission").read_text() == "theirs"
    assert (exchange.stat().st_uid, exchange.stat().st_mode & 0o7777) == (0, 0o1777)


def test_hostile_a_submission_a_thousand_folders_deep_is_timed_or_refused_and_stops_no_collection(tmp_path):
    """Collect reads the server's time of each submission by walking its folder: a chain of folders as
    deep as Python's recursion limit is walked (a list, not recursion), one deeper than the bound on
    entries is refused with an ``OSError`` (which collect reports, then goes on), never a
    ``RecursionError`` that would stop the collection of everyone."""
    import datetime

    from classroom.grading import MAX_ENTRIES, _server_time

    def chain(depth: int) -> Path:
        top = tmp_path / f"deep-{depth}"
        top.mkdir()
        current = os.open(top, os.O_RDONLY)
        for _ in range(depth):
            os.mkdir("d", dir_fd=current)
            deeper = os.open("d", os.O_RDONLY, dir_fd=current)
            os.close(current)
            current = deeper
        os.close(current)
        return top

    try:
        assert isinstance(_server_time(str(chain(MAX_ENTRIES - 1))), datetime.datetime)
        with pytest.raises(OSError, match=f"more than {MAX_ENTRIES} files"):
            _server_time(str(chain(MAX_ENTRIES + 1)))
    finally:
        subprocess.run(["rm", "-rf", str(tmp_path)], check=False)  # shutil.rmtree recurses as deep as the chain


def test_hostile_a_submission_folder_made_by_another_learner_gets_no_submission_and_is_not_collected(place):
    """An inbound that was once open to every learner (a course made before each learner had a
    folder of their own: ``inbound`` was 3733) can hold a folder one learner made in another's name,
    ``inbound/OTHER/``, open to all, or a link there to a folder of the maker's. Making the learners'
    folders leaves it as it is (and says so); the other learner's submit then refuses to write there
    (its maker would read the submission, or delete it), and collect refuses what lies in it."""
    import importlib.util
    import logging

    from nbgrader.auth import Authenticator
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.exchange.abc.exchange import ExchangeError

    from classroom import cli
    from classroom.grading import OwnedCollect

    squatter, victim = "hostile-squat", "hostile-victim"
    exchange, prefix = place / "squat-exchange", place / "squat-prefix"
    inbound = exchange / "c" / "inbound"
    inbound.mkdir(parents=True)
    inbound.chmod(0o3733)  # the course's inbound as it was made before
    prefix.mkdir()
    elsewhere = place / "squat-elsewhere"  # a folder of the squatter's, open to all
    elsewhere.mkdir()
    spec = importlib.util.spec_from_file_location("learner_exchange", ROOT / "classroom" / "nbgrader" / "learner_exchange.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        squat_uid, victim_uid = useradd(squatter, place / squatter), useradd(victim, place / victim)
        os.chown(elsewhere, squat_uid, squat_uid)
        elsewhere.chmod(0o777)
        for made in ("folder", "link"):
            own = inbound / victim
            if made == "folder":
                own.mkdir()
                own.chmod(0o777)
            else:
                own.symlink_to(elsewhere)
            os.lchown(own, squat_uid, squat_uid)
            cli.make_inboxes(inbound, prefix, 0, [victim])
            assert os.lstat(own).st_uid == squat_uid and not os.path.ismount(own)
            coursedir = CourseDirectory()
            coursedir.course_id, coursedir.assignment_id, coursedir.student_id = "c", NB, victim
            submit = module.InboxSubmit(coursedir=coursedir, authenticator=Authenticator(), root=str(exchange))
            submit.timestamp = "2026-01-01 00:00:00.000000 UTC"
            os.setresuid(victim_uid, victim_uid, 0)  # the victim's submit (root again below)
            try:
                with pytest.raises(ExchangeError):
                    submit.init_dest()
            finally:
                os.setresuid(0, 0, 0)
            # a submission of the victim's there all the same: not collected
            theirs = own / f"{victim}+{NB}+2026-01-01 00:00:00.000000 UTC+abcd"
            theirs.mkdir()
            os.chown(theirs, victim_uid, victim_uid)
            collect = OwnedCollect.__new__(OwnedCollect)
            collect.inbound_path, collect.log = str(inbound), logging.getLogger("squat")
            assert collect._path_to_record(str(theirs)) is None, made
            shutil.rmtree(theirs)
            own.unlink() if made == "link" else own.rmdir()
    finally:
        os.setresuid(0, 0, 0)
        for name in (squatter, victim):
            subprocess.run(["userdel", name], capture_output=True)


FILL_INODES = """
import errno, os, sys
os.mkdir(sys.argv[1])
made = 0
try:
    while True:
        os.close(os.open(os.path.join(sys.argv[1], str(made)), os.O_WRONLY | os.O_CREAT, 0o644))
        made += 1
except OSError as e:
    print(e.errno, made)
"""


def test_hostile_a_full_exchange_stops_no_class_server_from_starting(place, capsys):
    """The exchange's file system is filled with empty files until it has no inode left (no learner can
    do it: they write only their own folders, each a file system of its own; the teacher's releases
    can), and it refuses. ``serve``
    (after a reboot, or once a learner is added to the roster) then makes the new learner's folder in
    the inbound, which lies on that full file system: that one folder cannot be made, and ``serve``
    says so and goes on (the other learners' folders are mounted again), instead of stopping."""
    import errno

    from classroom import cli

    prefix, exchange = place / "full-prefix", place / "full-exchange"
    prefix.mkdir()
    exchange.mkdir()
    exchange.chmod(0o1777)
    filler, early, added = "hostile-full", "hostile-early", "hostile-added"
    try:
        for name in (filler, early, added):
            useradd(name, place / name)
        cli.cap_exchange(exchange, prefix, EXCHANGE)
        inbound = exchange / "c" / "inbound"
        inbound.mkdir(parents=True)
        cli.make_inboxes(inbound, prefix, INBOX, [early])
        assert os.path.ismount(inbound / early)
        # files until the file system has no inode left (root keeps none of them for itself)
        run = subprocess.run(["/usr/bin/python3", "-c", FILL_INODES, str(exchange / "junk")], capture_output=True,
                             text=True, timeout=300)
        error, made = map(int, run.stdout.split())
        assert error == errno.ENOSPC, run.stdout + run.stderr
        subprocess.run(["umount", str(inbound / early)], check=True)  # a reboot
        capsys.readouterr()
        cli.remount_inboxes(prefix, [added, early])
        said = capsys.readouterr().out
        assert os.path.ismount(inbound / early) and not (inbound / added).exists()
        assert added in said and "No space left on device" in said, said
    finally:
        cli.release_exchanges(prefix)
        for name in (filler, early, added):
            subprocess.run(["userdel", name], capture_output=True)


def test_hostile_a_course_folder_a_learner_made_again_in_the_exchange_gets_no_folders_and_stops_no_server(place, capsys):
    """The exchange's top folder is everyone's: once the course's folder there is gone (a teacher who
    cleared the course from an exchange on the machine's disk), a learner makes it again, their own,
    with an ``inbound`` in it, or as a link to a folder of root's that holds one. ``serve`` then makes
    no learner's folder there (nothing of root's in a place a learner chose), says so and goes on,
    instead of stopping; ``remove`` deletes nothing there."""
    from classroom import cli

    prefix, exchange, other = place / "again-prefix", place / "again-exchange", place / "again-other"
    exchange.mkdir()
    exchange.chmod(0o1777)
    (other / "inbound").mkdir(parents=True)
    course = exchange / "c"
    (course / "inbound").mkdir(parents=True)
    learner = "hostile-remade"
    try:
        uid = useradd(learner, place / learner)
        cli.make_inboxes(course / "inbound", prefix, 0, [learner])
        assert (course / "inbound" / learner).stat().st_uid == uid
        for kind in ("folder", "link"):
            shutil.rmtree(course)  # the root's course folder, then the learner's
            if kind == "folder":  # the learner's own course folder, and its inbound
                (course / "inbound").mkdir(parents=True)
                for folder in (course, course / "inbound"):
                    os.chown(folder, uid, uid)
            else:
                course.symlink_to(other)
                os.lchown(course, uid, uid)
            capsys.readouterr()
            cli.remount_inboxes(prefix, [learner])
            said = capsys.readouterr().out
            assert not (course / "inbound" / learner).exists() and not (other / "inbound" / learner).exists(), kind
            assert "not root's" in said, said
        # the learner's account removed: root deletes nothing through the learner's link
        (other / "inbound" / learner).mkdir()
        (other / "inbound" / learner / "keep").write_text("root's")
        cli.release_inboxes(prefix, [learner])
        assert (other / "inbound" / learner / "keep").read_text() == "root's"
    finally:
        subprocess.run(["userdel", learner], capture_output=True)


def test_hostile_a_submission_too_deep_or_too_long_to_copy_is_refused_and_stops_no_collection(tmp_path):
    """A learner's submission holds a chain of folders whose path, copied below the teacher's
    ``submitted`` folder, is longer than the system allows (fifteen names of 250 characters: fifteen
    entries, far below the bound on entries), or one nearly as deep as that bound allows (997
    folders, deeper than Python's recursion limit). Collect's copy refuses it and says so, leaving no
    half copy; it raises nothing, which would stop the collection of every learner after this one."""
    import logging

    from classroom.grading import MAX_ENTRIES, OwnedCollect, _server_time

    inbound, dest = tmp_path / "inbound", tmp_path / "dest"
    inbound.mkdir()
    collect = OwnedCollect.__new__(OwnedCollect)  # only what do_copy reads
    collect.inbound_path, collect.log = str(inbound), logging.getLogger("chain")
    try:
        for day, (kind, folder, depth) in enumerate((("long", "x" * 250, 15), ("deep", "d", MAX_ENTRIES - 3)), 1):
            name = f"nobody+{NB}+2026-01-0{day} 00:00:00.000000 UTC+abcd"
            mine = inbound / name
            mine.mkdir()
            (mine / f"{NB}.ipynb").write_text("{}")
            current = os.open(mine, os.O_RDONLY)
            for _ in range(depth):
                os.mkdir(folder, dir_fd=current)
                deeper = os.open(folder, os.O_RDONLY, dir_fd=current)
                os.close(current)
                current = deeper
            os.close(os.open(f"{NB}.ipynb", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=current))
            os.close(current)
            os.chown(mine, 65534, 65534)
            _server_time(str(mine))  # within the bound on entries: collect takes it to the copy
            collect.src_records = [{"username": "nobody", "filename": name, "timestamp": None}]
            # the teacher's course folder lies deeper than the exchange: the copy's paths are the longer
            copy = dest / ("y" * 250) / ("y" * 250) / kind
            collect.do_copy(str(mine), str(copy))
            assert not copy.exists(), kind
    finally:
        subprocess.run(["rm", "-rf", str(tmp_path)], check=False)  # shutil.rmtree recurses as deep as the chain


def test_hostile_a_notebook_too_large_to_grade_is_not_collected(tmp_path):
    """A learner writes into their own submission folder by hand (nbgrader submit's 100 MB rule is the
    command's), a notebook as large as the folder holds, of many tiny cells: reading one of 9 MB
    took 310 MB and 5 s of CPU, so the folder's 256 MiB would take root's autograde some 8 GB and
    minutes. Collect copies no notebook larger than ``MAX_NOTEBOOK`` (the course's largest, with its
    outputs, is under 1 MB), says so, and copies the others."""
    import logging

    from classroom.grading import MAX_NOTEBOOK, OwnedCollect

    inbound, dest = tmp_path / "inbound", tmp_path / "dest"
    name = f"nobody+{NB}+2026-01-01 00:00:00.000000 UTC+abcd"
    mine = inbound / name
    mine.mkdir(parents=True)
    (mine / f"{NB}.ipynb").write_text("{}")
    with open(mine / "big.ipynb", "wb") as big:
        big.truncate(MAX_NOTEBOOK + 1)
    os.chown(mine, 65534, 65534)
    collect = OwnedCollect.__new__(OwnedCollect)  # only what do_copy reads
    collect.inbound_path, collect.log = str(inbound), logging.getLogger("big")
    collect.src_records = [{"username": "nobody", "filename": name, "timestamp": None}]
    collect.do_copy(str(mine), str(dest))
    assert sorted(p.name for p in dest.iterdir()) == [f"{NB}.ipynb", "submission_secret.txt"]


def test_hostile_a_submission_in_another_learners_name_in_ones_own_folder_is_refused(tmp_path):
    """In their own submission folder a learner names a submission after another learner
    (``OTHER+01_sphere_vs_cone+...``, a folder of theirs, or a link to the other's folder): collect
    refuses it; their own, beside it, is taken."""
    import logging

    from classroom.grading import OwnedCollect

    inbound = tmp_path / "inbound"
    own = inbound / "nobody"  # the learner's own folder (an account of the system's stands in)
    own.mkdir(parents=True)
    other = tmp_path / "others"
    other.mkdir()
    stamp = "2026-01-01 00:00:00.000000 UTC"
    made = {kind: own / f"{name}+{NB}+{stamp}+{kind}" for kind, name in
            (("theirs", "daemon"), ("link", "daemon"), ("mine", "nobody"))}
    made["theirs"].mkdir()
    made["link"].symlink_to(other)
    made["mine"].mkdir()
    for path in (own, *made.values()):
        os.lchown(path, 65534, 65534)
    collect = OwnedCollect.__new__(OwnedCollect)
    collect.inbound_path, collect.log = str(inbound), logging.getLogger("other-name")
    taken = {kind: collect._path_to_record(str(path)) for kind, path in made.items()}
    assert taken["theirs"] is None and taken["link"] is None
    assert taken["mine"]["username"] == "nobody" and taken["mine"]["filename"] == f"nobody/{made['mine'].name}"


def test_hostile_a_removed_learners_plain_folder_too_deep_for_python_is_deleted_all_the_same(place):
    """With plain submission folders (``--inbox-size 0``) ``remove`` deletes a removed learner's folder
    as root: a learner who left a chain of folders deeper than Python's recursion limit in it (nothing
    bounds it there) does not stop ``remove`` half way, leaving the folder, owned by their uid, to the
    next account that gets it; the folder goes all the same."""
    from classroom import cli

    prefix, inbound = place / "deep-prefix", place / "deep-exchange" / "c" / "inbound"
    inbound.mkdir(parents=True)
    prefix.mkdir()
    learner = "hostile-deep"
    try:
        uid = useradd(learner, place / learner)
        cli.make_inboxes(inbound, prefix, 0, [learner])
        own = inbound / learner
        assert own.stat().st_uid == uid
        current = os.open(own, os.O_RDONLY)
        for _ in range(3000):
            os.mkdir("d", dir_fd=current)
            deeper = os.open("d", os.O_RDONLY, dir_fd=current)
            os.close(current)
            current = deeper
        os.close(current)
        cli.release_inboxes(prefix, [learner])
        assert not os.path.lexists(own)
    finally:
        subprocess.run(["rm", "-rf", str(place / "deep-exchange")], check=False)
        subprocess.run(["userdel", learner], capture_output=True)


def test_hostile_a_folder_swapped_for_a_link_while_collect_reads_its_time_is_not_followed(tmp_path, monkeypatch):
    """Collect (root) reads the server's time of a submission by walking its folders. Between its
    reading of a folder and its reading of a folder inside it, the learner puts a link in that inner
    folder's place, to a folder only root reads (here one of more files than a submission may hold,
    so that following it shows as a refusal): the walk does not follow it."""
    from classroom import grading

    mine, secret = tmp_path / "mine", tmp_path / "secret"
    (mine / "inner").mkdir(parents=True)
    secret.mkdir(mode=0o700)
    for i in range(grading.MAX_ENTRIES + 1):
        (secret / str(i)).touch()
    scandir, calls = os.scandir, []

    def swapping(target):  # the learner's swap, just before the walk reads the inner folder
        calls.append(target)
        if len(calls) == 2:
            (mine / "inner").rename(tmp_path / "moved")
            (mine / "inner").symlink_to(secret)
        return scandir(target)

    monkeypatch.setattr(grading.os, "scandir", swapping)
    grading._server_time(str(mine))
    assert len(calls) >= 1



def test_hostile_nbgrader_metadata_of_no_cell_of_the_gradebook_stops_no_autograde(course, place):
    """Learners whose names come first submit notebook 01 with a cell carrying nbgrader's metadata that
    names no cell of the gradebook: a graded cell pasted twice (nbgrader empties the copy's metadata),
    metadata written by hand, empty or of a schema version to come, or a graded cell's schema version
    changed. nbgrader's autograde stopped at the first of them ("an old version of the nbgrader metadata
    format"), for every learner after it; now each is graded, and so is the honest learner after them."""
    from nbgrader.api import Gradebook

    nbgrader(course, "generate_assignment", NB, "--create", "--force")
    inbound = place / "exchange" / "isotropy-anisotropy" / "inbound"
    release = course / "release" / NB / f"{NB}.ipynb"
    stamp = "2026-01-01 00:00:00.000000 UTC"
    answers = {"ex01-1-answer": RIGHT, "ex01-3-answer": "answer = 10", "ex01-2-answer": 'answer = "c"'}
    for name in ("hostile-sa", "hostile-sb", "hostile-sc", "hostile-sd", "hostile-sz"):
        uid = useradd(name, place / name)
        nb = nbformat.read(release, 4)
        for cell in nb.cells:
            gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
            cell.source = answers.get(gid, cell.source)
        test = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex01-1-test")
        if name == "hostile-sa":  # pasted twice, as JupyterLab pastes a cell: with its metadata
            nb.cells.append(nbformat.from_dict(json.loads(json.dumps(test))))
            nb.cells[-1]["id"] = "pasted"
        elif name == "hostile-sb":
            nb.cells.append(nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": {}}))
        elif name == "hostile-sc":
            nb.cells.append(nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": {"schema_version": 99}}))
        elif name == "hostile-sd":
            test.metadata["nbgrader"]["schema_version"] = 2
        path = inbound / f"{name}+{NB}+{stamp}+abcd"
        path.mkdir()
        nbformat.write(nb, path / f"{NB}.ipynb")
        for p in (path, *path.iterdir()):
            os.chown(p, uid, uid)
    nbgrader(course, "collect", NB)
    nbgrader(course, "autograde", NB, "--student", "hostile-s*", "--create")
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        scores = {name: gb.find_submission(NB, name).score for name in
                  ("hostile-sa", "hostile-sb", "hostile-sc", "hostile-sd", "hostile-sz")}
    assert scores == dict.fromkeys(scores, 5.0), scores


def test_hostile_folders_named_like_the_files_collect_writes_stop_no_collection(tmp_path):
    """A learner's submission holds folders named ``submission_secret.txt`` and ``timestamp.txt``, the
    files collect writes beside the notebook: collect's reading of the secret (Python's ``open`` of a
    folder), and its writing of those files over the folders its copy made, raised ``IsADirectoryError``,
    which stopped the collection of every learner after this one. Now the secret is the teacher's, the
    copy leaves those folders behind and the files are written: the notebook is collected."""
    import datetime
    import logging

    from classroom.grading import OwnedCollect

    inbound, dest = tmp_path / "inbound", tmp_path / "dest"
    name = f"nobody+{NB}+2026-01-01 00:00:00.000000 UTC+abcd"
    mine = inbound / name
    mine.mkdir(parents=True)
    (mine / f"{NB}.ipynb").write_text("{}")
    for folder in ("submission_secret.txt", "timestamp.txt"):
        (mine / folder).mkdir()
        (mine / folder / f"{NB}.ipynb").write_text("{}")
    for path in (mine, *mine.rglob("*")):
        os.chown(path, 65534, 65534)
    collect = OwnedCollect.__new__(OwnedCollect)  # only what do_copy reads
    collect.inbound_path, collect.log = str(inbound), logging.getLogger("named-like")
    collect.src_records = [{"username": "nobody", "filename": name, "timestamp": datetime.datetime(2026, 1, 2)}]
    collect.do_copy(str(mine), str(dest))
    assert sorted(p.name for p in dest.iterdir()) == [f"{NB}.ipynb", "submission_secret.txt", "timestamp.txt"]
    assert (dest / "timestamp.txt").read_text().startswith("2026-01-02")
    assert len((dest / "submission_secret.txt").read_text()) == 128


def test_hostile_a_notebook_of_megabytes_of_cells_is_shown_bounded_and_an_honest_one_whole():
    """A learner's notebook as large as collect takes (16 MB), of code that nbconvert renders at some 55 s
    of CPU and 12 MB of HTML a megabyte (generate_feedback for everyone after them, and the teacher's
    formgrader page, held up for a quarter of an hour; 200 MB of feedback put into the exchange), or of
    tokens that Pygments' lexer reads in a time that grows as their length squared, or of tens of
    thousands of cells, its lexer named in its metadata: once graded, what the pages show of it stays
    within ``MAX_SHOWN_CELL`` characters a cell, ``MAX_SHOWN`` in all and ``MAX_SHOWN_CELLS`` cells, every
    cell of the gradebook kept in its place, highlighted as Python. Every notebook of the course,
    answered, is shown whole."""
    from classroom.grading import MAX_SHOWN, MAX_SHOWN_CELL, MAX_SHOWN_CELLS, shown

    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        nb = make_assignments.source_notebook(path)
        cells = list(nb.cells)
        shown(nb)
        assert nb.cells == cells, path.name
    nb = make_assignments.source_notebook(ROOT / "notebooks" / f"{NB}.ipynb")
    graded = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.metadata]
    answer = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "ex01-1-answer")
    answer.source = "a " * 2**20
    nb.cells[:0] = [nbformat.v4.new_code_cell("a " * 2**21), nbformat.v4.new_code_cell("u'" + "\\N{" * 20000)] + \
        [nbformat.v4.new_code_cell("\t\n" * (MAX_SHOWN_CELL // 2)) for _ in range(100)] + \
        [nbformat.v4.new_markdown_cell("b") for _ in range(50000)]
    nb.metadata["language_info"] = {"name": "some-lexer-of-the-learners"}
    shown(nb)
    assert [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.metadata] == graded
    assert max(len(c.source) for c in nb.cells) <= MAX_SHOWN_CELL
    assert sum(len(c.source) for c in nb.cells if "not shown" not in c.source) <= MAX_SHOWN
    assert len(nb.cells) <= MAX_SHOWN_CELLS + len(graded) + 1
    assert "not shown" in answer.source and "not shown" in nb.cells[-1].source
    assert nb.metadata["language_info"] == {"name": "python"}
