"""The class roster: a CSV file with a ``username`` column and an optional ``role`` column.

::

    username,role
    ada,teacher
    alan,student
    grace,

A blank role means student. Lines starting with ``#`` are comments. User names become OS account
names, so they must be lower-case POSIX names (a letter or underscore, then letters, digits, ``_``
or ``-``, at most 32 characters); anything else is refused with the line it came from.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

NAME = re.compile(r"[a-z_][a-z0-9_-]{0,31}")
ROLES = ("student", "teacher")


@dataclass(frozen=True)
class Member:
    name: str
    teacher: bool


def read_roster(path: str | Path) -> list[Member]:
    """The members of ``path`` in file order; a ``ValueError`` names any bad line."""
    path = Path(path)
    lines = [line for line in path.read_text().splitlines() if line.strip() and not line.lstrip().startswith("#")]
    rows = list(csv.DictReader(lines))
    if not lines or "username" not in (rows[0].keys() if rows else next(csv.reader(lines[:1]))):
        raise ValueError(f"{path}: the roster needs a header line with a 'username' column (and optionally 'role')")
    members: list[Member] = []
    seen: set[str] = set()
    for number, row in enumerate(rows, start=2):
        name = (row.get("username") or "").strip()
        role = (row.get("role") or "").strip().lower() or "student"
        if not NAME.fullmatch(name):
            raise ValueError(f"{path}, row {number}: {name!r} is not a valid account name "
                             "(lower-case letter or '_', then letters, digits, '_' or '-', at most 32)")
        if role not in ROLES:
            raise ValueError(f"{path}, row {number}: role {role!r} is neither 'student' nor 'teacher'")
        if name in seen:
            raise ValueError(f"{path}, row {number}: {name!r} is listed twice")
        seen.add(name)
        members.append(Member(name, role == "teacher"))
    if not members:
        raise ValueError(f"{path}: the roster lists nobody")
    return members
