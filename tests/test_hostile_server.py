"""The class server against its own learners: each kind of attack a learner can try on the hub, on
another learner or on the teacher, and what stops it.

The tests marked ``classroom`` start a class of two learners and a teacher (as root, on 127.0.0.1,
like tests/test_classroom.py) with small limits, so that reaching them is quick: 1 GiB of memory
per learner, a 64 MiB private /tmp, /var/tmp, /dev/shm, /run/lock and runtime folder, and a 64 MiB
home. ``.ci/run`` runs them as root with
``uv run --group classroom pytest -m classroom -n 0 tests/test_hostile_server.py``. The tests
without the mark check the log-in check and the log's bound without a hub (in the default run).

Time is asserted only as a bound that the attack would break by far (another learner's reply within
15 s while 40 busy processes run; before per-learner groups it was 48 s with 60), never as a target.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import pwd
import statistics
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from classroom.trial import TrialClass

ROOT = Path(__file__).resolve().parent.parent
STORE = Path("/var/tmp/isotropy-store")
MEMORY, TMP, HOME = 1024**3, 64 * 1024**2, 64 * 1024**2


@pytest.fixture(scope="module")
def hub() -> Iterator[TrialClass]:
    if os.geteuid() != 0:
        pytest.skip("the class server creates OS accounts: run as root (CI does)")
    from classroom import limits
    from classroom.trial import trial_class

    if not limits.available():
        pytest.skip("this machine lets no one make control groups")
    with trial_class(2, ["--store", str(STORE), "--learner-memory", str(MEMORY), "--tmp-size", str(TMP),
                                "--home-size", str(HOME)]) as room:
        yield room


@pytest.fixture(scope="module")
def learners(hub: TrialClass):
    return {name: hub.started(name) for name in (*hub.students, hub.teacher)}


def _group(name: str):
    from classroom.limits import LearnerGroup

    return LearnerGroup(name)


# --- 1. a learner's files never run under another account ------------------------------------------

PLANTED = ("numpy", "ipykernel_launcher", "matplotlib", "sitecustomize", "usercustomize", "shared/__init__",
           "ipykernel/__init__", "IPython/__init__", "traitlets", "ipython_config", "ipython_kernel_config")


@pytest.mark.classroom
def test_hostile_modules_named_like_imports_do_not_run_in_the_teachers_kernel(hub: TrialClass, learners) -> None:
    """A learner's folder, as a submission arrives in the teacher's course, holds modules named like
    those Jupyter, numpy and the course import (and IPython's config files); the teacher opens a
    notebook there and runs it: none of them runs, and the course imports its own toolkit."""
    teacher = learners[hub.teacher]
    home = Path(pwd.getpwnam(hub.teacher).pw_dir)
    folder = home / "isotropy" / "submitted" / hub.students[0]
    folder.mkdir(parents=True, exist_ok=True)
    marker = folder / "RAN"
    for module in PLANTED:
        path = folder / f"{module}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"open({str(marker)!r}, 'a').write({module!r} + '\\n')\n"
                        "raise SystemExit('a planted module ran')\n")
    notebook = folder / "01_sphere_vs_cone.ipynb"
    notebook.write_bytes((ROOT / "notebooks" / "01_sphere_vs_cone.ipynb").read_bytes())
    subprocess.run(["chown", "-R", f"{hub.teacher}:", str(home / "isotropy" / "submitted")], check=True)
    kernel = teacher.kernel(f"submitted/{hub.students[0]}/01_sphere_vs_cone.ipynb")  # the server's root is ~/isotropy
    try:
        where = kernel.execute("import os, sys, numpy, shared, matplotlib\n"
                               "print(os.getcwd()); print(numpy.__file__); print(shared.__file__); print(matplotlib.__file__)")
        assert where.status == "ok", where
        cwd, *files = where.stdout.split()
        assert Path(cwd) == folder
        venv = str(hub.prefix / "venv")
        assert all(f.startswith(venv) for f in files), files
        kernel.run_notebook(ROOT / "notebooks" / "01_sphere_vs_cone.ipynb")
    finally:
        kernel.close()
    assert not marker.exists(), f"planted modules ran as the teacher: {marker.read_text()}"
    spec = json.loads((hub.prefix / "venv" / "share" / "jupyter" / "kernels" / "python3" / "kernel.json").read_text())
    assert spec["argv"][1] == "-P"


# --- 4. learners do not see formgrader ----------------------------------------------------------------

def _page_config(client, user: str) -> dict:
    """The JupyterLab page config that ``user``'s /lab page hands the browser (fetched with ``client``'s token)."""
    import re

    page = client.api("GET", f"/user/{user}/lab")
    assert page.status_code == 200, (user, page.status_code)
    found = re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>', page.text, re.S)
    assert found, f"no page config in {user}'s /lab page"
    return json.loads(found.group(1))


@pytest.mark.classroom
def test_hostile_learners_do_not_see_formgrader(hub: TrialClass, learners) -> None:
    """A learner's JupyterLab loads none of nbgrader's teacher's plugins (Formgrader, Course List,
    Create Assignment: disabled in the page config the browser gets) and the pages behind them answer
    404; the learner keeps the Assignment List (its version check answers). The teacher's JupyterLab
    loads them all."""
    from classroom.install import TEACHER_PLUGINS

    kept = ("@jupyter/nbgrader:menu", "@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:validate-assignment")
    static = hub.prefix / "venv" / "share" / "jupyter" / "labextensions" / "@jupyter" / "nbgrader" / "static"
    code = "".join(f.read_text() for f in static.glob("*.js"))
    for plugin in (*TEACHER_PLUGINS, *kept):  # the ids are the installed labextension's own
        assert f'"{plugin}"' in code, f"{plugin} is not a plugin of the installed nbgrader labextension"
    teacher = learners[hub.teacher]
    for name in hub.students:
        learner = learners[name]
        disabled = set(_page_config(learner, name)["disabledExtensions"])
        assert set(TEACHER_PLUGINS) <= disabled, disabled
        assert not disabled & set(kept), disabled
        for page in ("formgrader", "formgrader/api/assignments", "formgraders"):
            assert learner.api("GET", f"/user/{name}/{page}").status_code == 404, page
        version = learner.api("GET", f"/user/{name}/nbgrader_version", params={"version": "0"})
        assert version.status_code == 200, version.status_code
    assert not set(_page_config(teacher, hub.teacher)["disabledExtensions"]) & {*TEACHER_PLUGINS, *kept}


# --- 5. limits per learner, not per process ----------------------------------------------------------

@pytest.mark.classroom
def test_hostile_busy_processes_in_new_sessions_stay_in_their_learners_group(hub: TrialClass, learners) -> None:
    """Forty busy processes, each in a new session (so ``nice``'s per-session grouping does not hold
    them), are all in their learner's control group, whose CPU weight is one learner's; another
    learner's kernel keeps answering, and stopping the attacker's server ends every one of them."""
    a, b = (learners[n] for n in hub.students)
    attacker, other = a.kernel(), b.kernel()
    try:
        started = attacker.execute(
            "import subprocess, sys\n"
            "busy = [subprocess.Popen([sys.executable, '-c', 'while True: pass'], start_new_session=True) for _ in range(40)]\n"
            "print(' '.join(str(p.pid) for p in busy))")
        assert started.status == "ok", started
        pids = [int(p) for p in started.stdout.split()]
        time.sleep(3)
        group = _group(a.name)
        assert set(pids) <= group.pids(), "a process in a new session left its learner's group"
        assert len({os.getsid(p) for p in pids}) == 40
        cpu = Path(f"/sys/fs/cgroup/cpu/isotropy-class/{a.name}/cpu.shares")
        if cpu.exists():
            assert int(cpu.read_text()) < 1024  # below one process of the hub's
        replies = [other.execute(f"print({i} + 1)", timeout=60) for i in range(5)]
        assert [r.stdout.strip() for r in replies] == ["1", "2", "3", "4", "5"]
        slowest = max(r.seconds for r in replies)
        assert slowest < 15, f"another learner's kernel took {slowest:.1f} s to answer under the attack"
        print(f"another learner's replies under 40 busy processes: {', '.join(f'{r.seconds:.2f}' for r in replies)} s")
    finally:
        attacker.close(shutdown=False)
        other.close()
    a.stop_server()
    deadline = time.monotonic() + 60
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not any(_alive(p) for p in pids), "processes in new sessions outlived their learner's server"
    a.start_server()


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.classroom
def test_hostile_memory_hog_kills_only_its_own_learners_processes(hub: TrialClass, learners) -> None:
    """Four 400 MB processes of one learner (1.6 GB, each far below the per-process address-space
    limit) pass that learner's 1 GiB: the OOM killer kills inside their group, and another learner's
    kernel, holding memory of its own, lives on."""
    a, b = (learners[n] for n in hub.students)
    other = b.kernel()
    hog = a.kernel()
    try:
        assert other.execute("import numpy as np\nkeep = np.ones(2**24)\nprint(keep.sum())").status == "ok"
        before = _group(a.name).memory_events().get("oom_kill", 0)
        reply = hog.execute(
            "import subprocess, sys\n"
            "code = 'b = bytearray(400 * 2**20)\\nimport time\\ntime.sleep(30)'\n"
            "hogs = [subprocess.Popen([sys.executable, '-c', code], start_new_session=True) for _ in range(4)]\n"
            "print([h.wait() for h in hogs])", timeout=120)
        assert reply.status == "ok", reply
        codes = json.loads(reply.stdout.strip())
        assert -9 in codes, codes
        assert _group(a.name).memory_events()["oom_kill"] > before
        assert other.execute("print(keep.sum())").stdout.strip() == str(float(2**24))
        assert b.server("GET", f"kernels/{other.id}").json()["execution_state"] != "dead"
    finally:
        hog.close()
        other.close()


@pytest.mark.classroom
def test_hostile_tmp_fill_is_bounded_and_private(hub: TrialClass, learners) -> None:
    """Writing /tmp, /var/tmp, /dev/shm, /run/lock and the learner's own Jupyter runtime folder until
    they refuse stops with "No space left on device" at the learner's own cap; the machine's folders do
    not grow, another learner sees none of it, and the same write of theirs, at the same time, goes
    through."""
    import errno

    a, b = (learners[n] for n in hub.students)
    attacker, other = a.kernel(), b.kernel()

    def fill(name: str, count: int) -> str:
        return (f"import os\nwritten, error = 0, None\nchunk = b'x' * 2**20\n"
                f"try:\n    with open(os.path.join(os.environ.get('WHERE', ''), {name!r}), 'wb') as f:\n"
                f"        for _ in range({count}):\n            f.write(chunk); f.flush(); written += len(chunk)\n"
                f"except OSError as e:\n    error = e.errno\nprint(error, written)")

    def where(folder: str) -> str:
        return f"import os\nos.environ['WHERE'] = {folder!r}"

    folders = {"/tmp": "/tmp", "/var/tmp": "/var/tmp", "/dev/shm": "/dev/shm", "/run/lock": "/run/lock",
               "runtime": str(hub.prefix / "run" / "{name}")}
    try:
        for label, folder in folders.items():
            mine, theirs = folder.format(name=a.name), folder.format(name=b.name)
            assert attacker.execute(where(mine)).status == "ok" and other.execute(where(theirs)).status == "ok"
            error, written = attacker.execute(fill(f"fill-{a.name}", 4096), timeout=120).stdout.split()
            assert error == str(errno.ENOSPC), f"{label}: {written} bytes written, then {error}"
            assert int(written) <= TMP, (label, written)
            assert not Path(mine, f"fill-{a.name}").exists(), f"the fill reached the machine's {mine}"
            seen = other.execute(f"import os; print(os.path.exists({str(Path(mine, f'fill-{a.name}'))!r}))")
            assert seen.stdout.strip() == "False"
            fine = other.execute(fill(f"fill-{b.name}", 8), timeout=120)
            assert fine.stdout.split() == ["None", str(8 * 2**20)], (label, fine)
            assert not Path(theirs, f"fill-{b.name}").exists(), f"the write reached the machine's {theirs}"
            for kernel, name in ((attacker, a.name), (other, b.name)):
                kernel.execute(f"os.remove(os.path.join(os.environ['WHERE'], 'fill-{name}'))")
    finally:
        attacker.close()
        other.close()


FILL = ("import os\nwritten, error = 0, None\nchunk = b'x' * 2**20\n"
        "try:\n    with open(os.path.expanduser('~/fill'), 'wb') as f:\n"
        "        for _ in range(4096):\n            f.write(chunk); f.flush(); os.fsync(f.fileno()); written += len(chunk)\n"
        "except OSError as e:\n    error = e.errno\nprint(error, written)")


@pytest.mark.classroom
def test_hostile_home_fill_stops_at_the_learners_own_size(hub: TrialClass, learners) -> None:
    """A learner writes their home until it refuses: "No space left on device" at their home's own
    size (a file system of its own), which is all the machine's disk gives it; another learner still
    writes 8 MiB into their home and reads the study store through their private /var/tmp. The
    teacher's home is the machine's (not capped)."""
    import errno

    a, b = (learners[n] for n in hub.students)
    for name in hub.students:
        assert os.path.ismount(pwd.getpwnam(name).pw_dir), f"{name}'s home is on the machine's disk"
    assert not os.path.ismount(pwd.getpwnam(hub.teacher).pw_dir)
    attacker, other = a.kernel(), b.kernel()
    image = hub.prefix / "homes" / f"{a.name}.img"
    try:
        reply = attacker.execute(FILL, timeout=300)
        assert reply.status == "ok", reply
        error, written = (int(x) if x != "None" else None for x in reply.stdout.split())
        assert error == errno.ENOSPC, f"{written} bytes written into the home without refusal ({error})"
        assert written <= HOME
        taken = image.stat().st_blocks * 512
        assert taken <= HOME, f"the home's image takes {taken} bytes of the machine's disk"
        again = attacker.execute("open(os.path.expanduser('~/more'), 'wb').write(b'y' * 2**20)")
        assert again.status == "error" and "No space left" in again.error, again
        print(f"a learner's home fill: {written / 2**20:.0f} MiB written, then ENOSPC; its image takes "
              f"{taken / 2**20:.0f} MiB of the machine's disk")
        fine = other.execute(FILL.replace("range(4096)", "range(8)"), timeout=120)
        assert fine.stdout.split() == ["None", str(8 * 2**20)], fine
        store = sorted(os.listdir(STORE))
        seen = other.execute(f"import os\nprint(len(os.listdir({str(STORE)!r})))\n"
                             f"open({str(STORE / 'x')!r}, 'w')")
        assert seen.stdout.split() == [str(len(store))] and seen.error.startswith("OSError"), seen
    finally:
        attacker.execute("import os\nfor f in ('~/fill', '~/more'):\n    if os.path.exists(os.path.expanduser(f)):"
                         "\n        os.remove(os.path.expanduser(f))")
        other.execute("import os\nos.remove(os.path.expanduser('~/fill'))")
        attacker.close()
        other.close()


def _as(name: str, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["setpriv", f"--reuid={name}", f"--regid={name}", "--clear-groups", *command],
                          capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})


@pytest.mark.classroom
def test_hostile_a_home_is_copied_into_its_image_only_when_its_learner_cannot_have_changed_it(capsys) -> None:
    """``serve`` copies a home into its image (``mkfs.ext4 -d``, as root) only when it made the home in
    the same run (what root put there; the learner has no password yet) and the learner runs nothing:
    root never copies a tree a learner could have written (mkfs follows a link swapped in during the
    copy, and breaks on some deep trees of long names). A home made before stays on the machine's disk
    and ``serve`` says so; during the copy the home is closed; a link is copied as a link, never
    followed; under the mount, the folder below is no learner's to write; an image is mounted again."""
    import secrets
    import tempfile

    from classroom import accounts, limits
    from classroom.cli import cap_homes

    if os.geteuid() != 0:
        pytest.skip("accounts and mounts: run as root (CI does)")
    top = Path(tempfile.mkdtemp(prefix="isotropy-homes-", dir="/var/lib"))
    os.chmod(top, 0o755)
    name = f"iso{secrets.token_hex(3)}h"
    home, images, state = top / name, top / "images", top / "state"
    state.mkdir()
    subprocess.run(["useradd", "--create-home", "--home-dir", str(home), "--shell", "/bin/sh", "--user-group", name],
                   check=True, capture_output=True)
    (state / "created-users").write_text(name + "\n")
    user = pwd.getpwnam(name)
    os.chmod(home, 0o700)
    (home / "work.txt").write_text("mine\n")  # what root puts into a home it makes (the course's copy)
    os.chown(home / "work.txt", user.pw_uid, user.pw_gid)
    os.symlink("/etc/shadow", home / "shadow")
    sleeper = None
    try:
        cap_homes([name], state, images, 16 * 2**20)  # not made in this run: never copied
        said = capsys.readouterr().out
        assert f"{name}'s home is left on the machine's disk" in said and "root does not copy" in said, said
        assert not os.path.ismount(home) and not (images / f"{name}.img").exists()
        sleeper = subprocess.Popen(["setpriv", f"--reuid={name}", f"--regid={name}", "--clear-groups", "sleep", "600"])
        time.sleep(0.5)
        cap_homes([name], state, images, 16 * 2**20, fresh=[name])
        said = capsys.readouterr().out
        assert f"{name}'s home is left on the machine's disk" in said and str(sleeper.pid) in said, said
        assert not os.path.ismount(home) and not (images / f"{name}.img").exists()
        info = home.stat()
        assert (info.st_uid, stat_mode(info)) == (user.pw_uid, 0o700)  # as it was
        sleeper.kill()
        sleeper.wait()
        seen = []
        assert limits.capped_folder(home, images / "probe.img", 16 * 2**20, user.pw_uid, user.pw_gid,
                                    refuse=lambda: seen.append(_as(name, "ls", str(home))) or "probe") == "probe"
        assert seen[0].returncode != 0 and "Permission denied" in seen[0].stderr  # closed while it is copied
        cap_homes([name], state, images, 16 * 2**20, fresh=[name])
        assert os.path.ismount(home)
        assert (home / "work.txt").read_text() == "mine\n" and os.readlink(home / "shadow") == "/etc/shadow"
        assert _as(name, "cat", str(home / "shadow")).returncode != 0
        assert (home.stat().st_uid, stat_mode(home.stat())) == (user.pw_uid, 0o700)
        subprocess.run(["umount", str(home)], check=True)  # a reboot: what a namespace made before the mount sees
        assert os.listdir(home) == [] and home.stat().st_uid == 0
        assert _as(name, "touch", str(home / "x")).returncode != 0
        cap_homes([name], state, images, 16 * 2**20)  # the next serve mounts the image again (no copy)
        assert os.path.ismount(home) and (home / "work.txt").read_text() == "mine\n"
    finally:
        if sleeper is not None and sleeper.poll() is None:
            sleeper.kill()
            sleeper.wait()
        accounts.remove_users(state, images)
        for mount in reversed([m for m in _mounts() if Path(m).is_relative_to(top)]):
            subprocess.run(["umount", "--lazy", mount], check=False)
        subprocess.run(["userdel", "--remove", "--force", name], capture_output=True)
        import shutil

        shutil.rmtree(top, ignore_errors=True)


def stat_mode(info: os.stat_result) -> int:
    return info.st_mode & 0o7777


def _mounts() -> list[str]:
    with open("/proc/self/mounts") as f:
        return [line.split()[1] for line in f]


@pytest.mark.classroom
def test_hostile_log_growth_is_bounded(hub: TrialClass, learners) -> None:
    """A learner sends 6000 requests, eight at a time, that each make log lines (404s from their own
    server, refused calls to the hub's API: a request line in the proxy and the hub, a permission
    warning, the server's own lines; about 7 MB of log before the bound): the hub's log grows by no
    more than the buckets allow over that time, and says it dropped lines."""
    from concurrent.futures import ThreadPoolExecutor

    import requests

    from classroom import logcap

    a = learners[hub.students[0]]
    size = hub.log.stat().st_size
    start = time.monotonic()
    headers = {"Authorization": f"token {a.token}"}
    urls = [url for i in range(3000) for url in (f"{hub.url}/user/{a.name}/api/contents/no-such-file-{i}",
                                                 f"{hub.url}/hub/api/users/no-such-user-{i}")]
    with ThreadPoolExecutor(8) as pool:
        codes = set(pool.map(lambda url: requests.get(url, headers=headers, timeout=60).status_code, urls))
    assert codes <= {403, 404}, codes
    time.sleep(2)
    seconds = time.monotonic() - start
    grown = hub.log.stat().st_size - size
    lines = 2 * (logcap.ACCESS_BURST + logcap.ACCESS_RATE * seconds)  # the hub's and the proxy's
    bound = (logcap.SERVER_BURST + logcap.SERVER_RATE * seconds) * 1.5 + lines * (logcap.LONGEST + 100)
    assert grown <= bound, f"the hub's log grew by {grown} bytes in {seconds:.0f} s (bound {bound:.0f})"
    assert "dropped: too many" in hub.log.read_text()[size:]
    print(f"the hub's log grew by {grown} bytes in {seconds:.0f} s under 6000 requests (bound {bound:.0f})")


# --- 6. log-in -------------------------------------------------------------------------------------------

@pytest.mark.classroom
def test_hostile_login_timing_and_throttle(hub: TrialClass) -> None:
    """A roster name with a wrong password and a name off the roster take about as long to refuse
    (within 2x at the median; a roster name took 4x longer before); a sixth failure in a row for one
    name is refused even with the right password, and a little later that password works."""
    from classroom.student import Student

    roster, unknown = [], []
    for i in range(4):
        for name, into in ((hub.students[1], roster), (f"nobody{i}x", unknown)):
            start = time.perf_counter()
            assert not Student(hub.url, name, "wrong password").log_in()
            into.append(time.perf_counter() - start)
    ratio = statistics.median(roster) / statistics.median(unknown)
    assert 0.5 < ratio < 2, (roster, unknown)
    print(f"refusal, median of 4: roster name {1000 * statistics.median(roster):.0f} ms, "
          f"unknown name {1000 * statistics.median(unknown):.0f} ms")
    name = hub.students[1]
    assert not Student(hub.url, name, "wrong again").log_in()  # the fifth failure
    assert not Student(hub.url, name, hub.passwords[name]).log_in(), "no slowing after five failures"
    time.sleep(2.5)
    assert hub.student(name).log_in(), "the real learner is still locked out"


# --- other users' paths ------------------------------------------------------------------------------------

@pytest.mark.classroom
def test_hostile_other_users_paths_and_own_limits_are_closed(hub: TrialClass, learners) -> None:
    """From a kernel: another learner's runtime folder, home, processes' environment and control
    group are closed, and the learner cannot raise their own limits."""
    a, b = (learners[n] for n in hub.students)
    kernel = a.kernel()
    b_pid = next(iter(_group(b.name).pids()))
    try:
        for code in (f"os.listdir({str(hub.prefix / 'run' / b.name)!r})",
                     f"os.listdir({pwd.getpwnam(b.name).pw_dir!r})",
                     f"open('/proc/{b_pid}/environ').read()",
                     f"open('/sys/fs/cgroup/memory/isotropy-class/{a.name}/memory.limit_in_bytes', 'w').write('-1')",
                     f"open('/sys/fs/cgroup/pids/isotropy-class/{b.name}/cgroup.procs', 'w').write(str(os.getpid()))",
                     f"os.kill({b_pid}, 9)",
                     "import resource; resource.setrlimit(resource.RLIMIT_AS, (-1, -1))"):
            reply = kernel.execute("import os\n" + code)
            assert reply.status == "error" and reply.error.split(":")[0] in ("PermissionError", "ValueError", "OSError"), (code, reply)
    finally:
        kernel.close()
    assert _alive(b_pid)


# --- without a hub (the default run; the log-in tests need the classroom group) ------------------------

@pytest.mark.classroom  # no hub, but the classroom group (classroom.auth imports JupyterHub)
def test_hostile_unknown_names_cost_a_full_password_check(tmp_path: Path, monkeypatch) -> None:
    """A name off the roster runs the same scrypt, with the same costs, as a roster name with a wrong
    password: the roster cannot be read off the refusal times."""
    from classroom import accounts
    from classroom.auth import RosterAuthenticator, client_address

    hashes = tmp_path / "passwords.json"
    hashes.write_text(json.dumps({"ada": accounts.hash_password("right")}))
    calls = []
    real = hashlib.scrypt
    monkeypatch.setattr(accounts.hashlib, "scrypt", lambda *a, **k: calls.append(k) or real(*a, **k))
    auth = RosterAuthenticator(password_file=str(hashes))

    class Handler:
        class request:  # noqa: N801
            remote_ip = "192.0.2.1"
            headers = {"X-Real-Ip": "198.51.100.7", "X-Forwarded-For": "203.0.113.9, 192.0.2.1"}

    for name in ("ada", "nobody"):
        calls.clear()
        assert asyncio.run(auth.authenticate(Handler, {"username": name, "password": "wrong"})) is None
        assert [(c["n"], c["r"], c["p"]) for c in calls] == [(accounts.N, accounts.R, accounts.P)], name
    assert asyncio.run(auth.authenticate(Handler, {"username": "ada", "password": "right"})) == "ada"
    assert client_address(Handler) == "192.0.2.1"  # what the proxy appended, not what the client claims


@pytest.mark.classroom  # no hub, but the classroom group (classroom.auth imports JupyterHub)
def test_hostile_repeated_failures_are_slowed_per_name_and_address_within_a_bound() -> None:
    from classroom.auth import Throttle

    now = [0.0]
    names = Throttle(free=5, clock=lambda: now[0])
    for _ in range(5):
        assert names.wait("ada") == 0
        names.failed("ada")
    waits = []
    for _ in range(12):
        waits.append(names.wait("ada"))
        names.failed("ada")
    assert waits[0] > 0 and waits == sorted(waits) and max(waits) == Throttle.longest
    assert names.wait("grace") == 0  # one name's failures do not slow another
    now[0] += Throttle.longest
    assert names.wait("ada") == 0  # never locked out for longer than the bound
    now[0] += Throttle.forget + 1
    assert names.wait("ada") == 0 and "ada" not in names.failures
    names.failed("x")
    names.succeeded("x")
    assert names.wait("x") == 0
    for i in range(Throttle.keys + 10):
        names.failed(f"n{i}")
    assert len(names.failures) == Throttle.keys


def test_hostile_log_bucket_bounds_what_passes() -> None:
    from classroom.logcap import Bucket

    now = [0.0]
    bucket = Bucket(100, 10, clock=lambda: now[0])
    passed = 0
    for step in range(1000):  # 1000 lines in 10 s
        now[0] = step / 100
        passed += bucket.take()
    assert passed <= 100 + 10 * 10 + 1
    assert bucket.dropped == 1000 - passed


def test_hostile_server_output_flood_is_read_slowly_and_logged_within_the_bucket() -> None:
    """A server that writes short lines as fast as it can for 2 s: the hub reads at most its read
    rate (the writer waits on its own full pipe) and logs at most the bucket's bytes."""
    import io
    import logging

    from classroom import logcap

    out = io.StringIO()
    log = logging.getLogger("hostile-flood")
    log.addHandler(logging.StreamHandler(out))
    log.setLevel(logging.INFO)
    log.propagate = False

    async def flood() -> tuple[int, float]:
        read_end, write_end = os.pipe()
        reader = asyncio.ensure_future(logcap.forward(read_end, "flooder", log, burst=1000, rate=100, read_rate=64 * 1024))

        def write() -> int:
            start, n = time.monotonic(), 0
            with os.fdopen(write_end, "wb", 0) as f:
                while time.monotonic() - start < 2:
                    n += f.write(b"x\n" * 4096)
            return n

        start = time.monotonic()
        written = await asyncio.to_thread(write)
        await reader
        return written, time.monotonic() - start

    written, seconds = asyncio.run(flood())
    assert written <= 64 * 1024 * (seconds + 1) + 2**20, written  # the pipe's buffer, then the read rate
    logged = 2 * out.getvalue().count("[flooder] x\n")  # bytes of the server's lines that reached the log
    assert logged <= 1000 + 100 * seconds, logged
    assert "dropped: too many" in out.getvalue()
    logcap._servers.pop("flooder", None)
