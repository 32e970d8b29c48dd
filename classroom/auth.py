"""The hub's log-in check: a roster member and their own password, nothing else.

No sign-up, no shared password, no account that whoever logs in first can claim: the names are the
roster's, and each password is checked against its scrypt hash in ``passwords.json`` (read at each
log-in, so a reset password takes effect at once).

A name off the roster is checked against a hash made up at start (same costs), so that it takes as
long to refuse as a roster name with a wrong password: the roster cannot be read off the timings.
The check runs in a worker thread, off the hub's event loop (30 learners log in at once).

Failed attempts are counted per name (from one address: someone failing on a name elsewhere does
not slow its learner) and per address (:class:`Throttle`): after 5 failures of a name (50 of an
address: a class may share one), each further attempt must wait ``2**k`` seconds after the last
failure (k counting the failures beyond the free ones), at most :data:`Throttle.longest`; an attempt
that comes too early is refused without looking at the password. A success, or
:data:`Throttle.forget` seconds without a failure, clears the count: the real learner is slowed by at
most a minute, never locked out.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections import OrderedDict
from pathlib import Path

from jupyterhub.auth import Authenticator
from traitlets import Unicode

from classroom.accounts import check_password, hash_password


class Throttle:
    """Failures per key (a name, an address), and how long the next attempt must wait."""

    longest, forget, keys = 60.0, 900.0, 10_000

    def __init__(self, free: int = 5, clock=time.monotonic) -> None:
        self.free, self.clock = free, clock
        self.failures: OrderedDict[str, tuple[int, float]] = OrderedDict()

    def wait(self, key: str) -> float:
        """Seconds before ``key`` may try again (0: now)."""
        count, last = self.failures.get(key, (0, 0.0))
        now = self.clock()
        if count and now - last > self.forget:
            del self.failures[key]
            return 0.0
        if count < self.free:
            return 0.0
        return max(0.0, last + min(self.longest, 2.0 ** (count - self.free)) - now)

    def failed(self, key: str) -> None:
        count, _ = self.failures.pop(key, (0, 0.0))
        self.failures[key] = (count + 1, self.clock())
        while len(self.failures) > self.keys:  # bounded memory: the oldest are forgotten
            self.failures.popitem(last=False)

    def succeeded(self, key: str) -> None:
        self.failures.pop(key, None)


def client_address(handler) -> str:
    """Where a log-in came from: the last address in X-Forwarded-For, the one the hub's own proxy
    appends. (Tornado would believe an X-Real-Ip header the client sent itself, and so dodge the
    throttle with a new made-up address each time.)"""
    if handler is None:
        return ""
    forwarded = handler.request.headers.get("X-Forwarded-For", "")
    return forwarded.split(",")[-1].strip() or handler.request.remote_ip


class RosterAuthenticator(Authenticator):
    password_file = Unicode(help="JSON file of {username: scrypt hash}, readable by root only").tag(config=True)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._dummy = hash_password(secrets.token_urlsafe(16))  # what a name off the roster is checked against
        # a class behind one address (a school's network) mistypes more often than one learner
        self.names, self.addresses = Throttle(free=5), Throttle(free=50)

    async def authenticate(self, handler, data):
        name = self.normalize_username((data or {}).get("username", ""))[:64]
        password = (data or {}).get("password", "")
        address = client_address(handler)
        attempt = f"{name}@{address}"  # someone else's failures elsewhere never slow the real learner
        if self.names.wait(attempt) > 0 or self.addresses.wait(address) > 0:
            self.addresses.failed(address)  # hammering on adds to the address's wait, not to the name's
            return None
        stored = json.loads(Path(self.password_file).read_text()).get(name)
        good = await asyncio.to_thread(check_password, password, stored or self._dummy)
        if stored is None or not password or not good:
            self.names.failed(attempt)
            self.addresses.failed(address)
            self.log.warning("Failed log-in for %r from %s", name, address)
            return None
        self.names.succeeded(attempt)
        self.addresses.succeeded(address)
        return name
