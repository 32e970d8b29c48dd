"""OS accounts and passwords for the members of a roster.

Each member gets an OS user of their own (servers run as that user), a home only they can enter
(mode 0700; Debian's ``useradd -m`` would make it 0755), and a random password of their own. The
hub keeps only scrypt hashes (``passwords.json``); the plain passwords are written once to
``credentials.csv`` for the teacher to hand out. Both files are root's, mode 0600. An account that
already existed is used as it is and never removed; the ones created here are listed in
``created-users`` so that :func:`remove_users` deletes exactly those.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import os
import pwd
import secrets
import subprocess
from collections.abc import Iterable
from pathlib import Path

from classroom.limits import release_folder
from classroom.roster import Member

# scrypt with these costs takes about 50 ms and 16 MB per check.
N, R, P = 2**14, 8, 1
ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read aloud or copied from paper


def new_password(length: int = 12) -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=N, r=R, p=P)
    return f"scrypt${N}${R}${P}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            return False
        got = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got.hex(), digest)


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable by its owner only, never world-readable even for an instant."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def _write_credentials(path: Path, rows: list[list[str]]) -> None:
    """The plain passwords, ``rows`` of ``[username, password]``, as CSV in ``path`` (mode 0600 from the start)."""
    text = io.StringIO(newline="")
    csv.writer(text).writerows(rows)
    _write_private(path, text.getvalue())


def issue_passwords(members: Iterable[Member], state: Path) -> dict[str, str]:
    """A password for every member without one: hashes into ``state/passwords.json``, the plain
    passwords appended to ``state/credentials.csv``. Returns the new ``{name: password}``."""
    hashes_file, credentials = state / "passwords.json", state / "credentials.csv"
    hashes = json.loads(hashes_file.read_text()) if hashes_file.exists() else {}
    fresh = {m.name: new_password() for m in members if m.name not in hashes}
    if fresh:
        hashes.update({name: hash_password(password) for name, password in fresh.items()})
        _write_private(hashes_file, json.dumps(hashes, indent=1, sort_keys=True))
        rows = list(csv.reader(credentials.read_text().splitlines())) if credentials.exists() else [["username", "password"]]
        _write_credentials(credentials, rows + [[name, password] for name, password in fresh.items()])
    return fresh


def reset_password(name: str, state: Path) -> str:
    """A new password for ``name`` (the old one stops working); returned, and put in credentials.csv."""
    hashes_file = state / "passwords.json"
    hashes = json.loads(hashes_file.read_text())
    if name not in hashes:
        raise ValueError(f"{name!r} has no account on this hub")
    password = new_password()
    hashes[name] = hash_password(password)
    _write_private(hashes_file, json.dumps(hashes, indent=1, sort_keys=True))
    credentials = state / "credentials.csv"
    rows = [row for row in csv.reader(credentials.read_text().splitlines()) if row and row[0] != name]
    _write_credentials(credentials, rows + [[name, password]])
    return password


def account_exists(name: str) -> bool:
    """Whether the OS has an account called ``name``."""
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def create_users(members: Iterable[Member], state: Path, home_base: Path) -> list[str]:
    """An OS account with a private home for each member that has none; returns the names created."""
    created_file = state / "created-users"
    created = created_users(state)
    new = []
    for m in members:
        if not account_exists(m.name):
            home = home_base / m.name
            subprocess.run(["useradd", "--create-home", "--home-dir", str(home), "--shell", "/bin/bash",
                            "--user-group", "--comment", "course learner", m.name], check=True)
            created.append(m.name)
            new.append(m.name)
            _write_private(created_file, "\n".join(created) + "\n")
        home = Path(pwd.getpwnam(m.name).pw_dir)
        if home.is_dir():
            os.chmod(home, 0o700)  # useradd -m on Debian leaves 0755: every learner could read the others' work
    return new


def created_users(state: Path) -> list[str]:
    """The accounts :func:`create_users` made (and has not removed)."""
    created_file = state / "created-users"
    return created_file.read_text().split() if created_file.exists() else []


def remove_users(state: Path, images: Path | None = None) -> list[str]:
    """Delete the accounts :func:`create_users` made (and their homes and processes; a home on a file
    system of its own, an image in ``images``, is unmounted and its image deleted); returns them."""
    created_file = state / "created-users"
    if not created_file.exists():
        return []
    removed = []
    for name in created_users(state):
        if account_exists(name):
            subprocess.run(["pkill", "-KILL", "-u", name], check=False)
            if images is not None:
                release_folder(Path(pwd.getpwnam(name).pw_dir), images / f"{name}.img")
            subprocess.run(["userdel", "--remove", "--force", name], check=False, capture_output=True)
            if account_exists(name):
                raise RuntimeError(f"could not remove the account {name!r}")
            removed.append(name)
    created_file.unlink()
    return removed
