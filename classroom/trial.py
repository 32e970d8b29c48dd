"""A whole class server started for a trial (the classroom tests, the load test) and removed after.

:func:`trial_class` runs ``python -m classroom serve`` on 127.0.0.1 with a roster of made-up
accounts under a temporary folder, waits for the hub, and on leaving (also after an error) stops
the hub with every server, deletes the accounts it created with their homes, and the folder.
"""

from __future__ import annotations

import contextlib
import csv
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import requests

from classroom.accounts import account_exists
from classroom.cli import free_port

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class TrialClass:
    url: str
    prefix: Path
    homes: Path
    students: tuple[str, ...]
    teacher: str
    passwords: dict[str, str]
    log: Path

    def student(self, name: str):
        from classroom.student import Student

        return Student(self.url, name, self.passwords[name])

    def started(self, name: str):
        """``name``'s client, logged in through the log-in form, with a token and the server started."""
        s = self.student(name)
        if not s.log_in():
            raise RuntimeError(f"{name} could not log in with the password the hub issued")
        s.get_token()
        s.start_server()
        return s


@contextlib.contextmanager
def trial_class(students: int, serve_args: Sequence[str] = (), start_timeout: float = 900) -> Iterator[TrialClass]:
    """A running class of ``students`` learners and one teacher (needs root)."""
    if os.geteuid() != 0:
        raise PermissionError("a trial class creates OS accounts: run as root")
    # not under /tmp: each learner's server sees a private /tmp of its own, which would hide it
    top = Path(tempfile.mkdtemp(prefix="isotropy-class-", dir="/var/lib"))
    os.chmod(top, 0o755)  # the learners must reach the shared environment below it
    tag = secrets.token_hex(3)
    names = tuple(f"iso{tag}s{i}" for i in range(students))
    teacher = f"iso{tag}t"
    roster = top / "roster.csv"
    roster.write_text("username,role\n" + f"{teacher},teacher\n" + "".join(f"{n},student\n" for n in names))
    prefix, homes, log_path = top / "opt", top / "home", top / "hub.log"
    port = free_port()
    log = open(log_path, "w")
    serve = subprocess.Popen(
        [sys.executable, "-m", "classroom", "serve", "--roster", str(roster), "--prefix", str(prefix),
         "--home-base", str(homes), "--port", str(port), *serve_args],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        env=dict(os.environ, OPENBLAS_NUM_THREADS="1"),
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + start_timeout  # a first run fills the study store: minutes
        while True:
            try:
                if requests.get(f"{url}/hub/login", timeout=5).ok:
                    break
            except requests.ConnectionError:
                pass
            if serve.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the hub did not start; {log_path} ends:\n{log_path.read_text()[-3000:]}")
            time.sleep(1)
        with open(prefix / "hub" / "credentials.csv") as f:
            passwords = {row["username"]: row["password"] for row in csv.DictReader(f)}
        yield TrialClass(url, prefix, homes, names, teacher, passwords, log_path)
    finally:
        serve.send_signal(signal.SIGTERM)  # the hub stops every server, its services and its proxy
        try:
            serve.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait(timeout=10)
        log.close()
        subprocess.run([sys.executable, "-m", "classroom", "remove", "--prefix", str(prefix), "--everything"],
                       cwd=ROOT, check=False, timeout=120, capture_output=True)
        for mount in reversed(_mounts_below(top)):  # the command failed: no home image left mounted
            subprocess.run(["umount", "--lazy", mount], check=False, capture_output=True)
        left = [name for name in (*names, teacher) if account_exists(name)]
        for name in left:  # the command failed: clean up anyway, then say so
            subprocess.run(["userdel", "--remove", "--force", name], check=False, capture_output=True)
        shutil.rmtree(top, ignore_errors=True)
        if left:
            raise RuntimeError(f"'classroom remove' left the accounts {left}")


def _mounts_below(folder: Path) -> list[str]:
    """The mount points below ``folder`` (in the order they were mounted)."""
    with open("/proc/self/mounts") as f:
        points = [line.split()[1].encode().decode("unicode_escape") for line in f]
    return [p for p in points if Path(p).is_relative_to(folder)]
