"""The hub's log-in check: a roster member and their own password, nothing else.

No sign-up, no shared password, no account that whoever logs in first can claim: the names are the
roster's, and each password is checked against its scrypt hash in ``passwords.json`` (read at each
log-in, so a reset password takes effect at once).
"""

from __future__ import annotations

import json
from pathlib import Path

from jupyterhub.auth import Authenticator
from traitlets import Unicode

from classroom.accounts import check_password


class RosterAuthenticator(Authenticator):
    password_file = Unicode(help="JSON file of {username: scrypt hash}, readable by root only").tag(config=True)

    async def authenticate(self, handler, data):  # noqa: ARG002
        name = self.normalize_username((data or {}).get("username", ""))
        password = (data or {}).get("password", "")
        hashes = json.loads(Path(self.password_file).read_text())
        stored = hashes.get(name)
        if stored is None or not password or not check_password(password, stored):
            self.log.warning("Failed log-in for %r", name)
            return None
        return name
