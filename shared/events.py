"""The events the class view counts: one per check of an exercise and one per committed prediction.

Each event follows one registered, versioned schema (``data/check_event.json``, id
:data:`SCHEMA_ID`) and goes out through ``jupyter_events``: the exercise or prediction, what was
checked, the outcome (right, a named mistake by its stable id, unrecognised, the class of an error,
or the option a prediction was committed to) and which try it was; ``jupyter_events`` adds the
time. It carries no code, no output and no name: the class view keys each learner by an HMAC of
the account name with the class session's salt (:func:`learner_key`), which the sender never sees.

Where events go: on the class server each learner's server has :data:`ENDPOINT` (the class view's
address) and its own hub token, and the events are posted there from a background thread (a check
never waits for the network, and a class view that is down loses the events, never a check).
Anywhere else nothing is sent. A learner turns the events off with the environment variable
:data:`OPT_OUT` set to ``off`` (in a notebook: ``%env ISOTROPY_CLASS_EVENTS=off``; for every
kernel: in the shell profile), read at each check.

This module imports nothing else of the toolkit and ``jupyter_events`` only when an event is made,
so ``import shared`` stays light and the class view (which runs beside the hub) loads this one file
by its path to validate what it receives.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import queue
import re
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

#: The schema's file, its id and version.
SCHEMA_FILE = Path(__file__).resolve().parent / "data" / "check_event.json"
SCHEMA_ID = "https://isotropy-anisotropy.org/events/check"
SCHEMA_VERSION = "1"
#: Set to ``off`` (or ``0``, ``no``, ``false``) to send no event.
OPT_OUT = "ISOTROPY_CLASS_EVENTS"
#: The class view's events address, set by the class server in each learner's server.
ENDPOINT = "ISOTROPY_CLASS_VIEW"
#: The largest event the class view accepts, in bytes of JSON (a real one is about 300).
MAX_BYTES = 2048
#: How many times an event is posted before it is given up (1 s, 2 s, 4 s apart).
TRIES = 4
#: The kinds of check.
KINDS = ("implementation", "question", "prediction")

_ID = re.compile(r"[a-z][a-z0-9_]{0,47}")
_lock = threading.Lock()
_state: dict[str, object] = {}
_attempts: dict[str, int] = {}


def schema() -> dict:
    """The event schema, as registered."""
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def _registry():
    with _lock:
        if "registry" not in _state:
            from jupyter_events.schema_registry import SchemaRegistry

            registry = SchemaRegistry()
            registry.register(schema())
            _state["registry"] = registry
        return _state["registry"]


def validate(event: object) -> dict:
    """``event`` (the fields of the schema, without ``jupyter_events``' ``__`` fields) if it is one;
    a ``ValueError`` naming what is wrong otherwise."""
    from jsonschema import ValidationError

    if not isinstance(event, dict):
        raise ValueError(f"event: expected a JSON object, got {type(event).__name__}")
    try:
        _registry().validate_event(SCHEMA_ID, event)
    except ValidationError as error:
        where = ".".join(str(p) for p in error.absolute_path) or "the event"
        raise ValueError(f"event: {where}: {error.message}") from None
    return event


def learner_key(salt: bytes, name: str) -> str:
    """The key the class view counts a learner by: HMAC-SHA256 of the account name with the class
    session's salt, 16 hex digits. Without the salt (kept by the class view) it names nobody."""
    if not isinstance(salt, bytes) or len(salt) < 16:
        raise ValueError("salt: expected at least 16 random bytes")
    if not isinstance(name, str) or not name:
        raise ValueError(f"name: expected an account name, got {name!r}")
    return hmac.new(salt, name.encode(), hashlib.sha256).hexdigest()[:16]


def enabled() -> bool:
    """Whether events are made at all (:data:`OPT_OUT` is not ``off``)."""
    return os.environ.get(OPT_OUT, "").strip().lower() not in ("off", "0", "no", "false")


def next_attempt(exercise: str) -> int:
    """The number of this try of ``exercise`` in this kernel, counting from 1."""
    with _lock:
        _attempts[exercise] = _attempts.get(exercise, 0) + 1
        return _attempts[exercise]


class _Sender(logging.Handler):
    """Posts each event to the class view from one background thread, in order."""

    def __init__(self, url: str, token: str) -> None:
        super().__init__()
        self.url, self.token = url, token
        self.pending: queue.Queue[str | None] = queue.Queue(maxsize=1000)
        self.sent = self.failed = 0
        self.last_error = ""  # why the last event was not delivered (for a teacher or a test to read)
        threading.Thread(target=self._run, name="class-view-events", daemon=True).start()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.pending.put_nowait(self.format(record))
        except queue.Full:  # a class view that does not answer: drop, never block a check
            self.failed += 1

    def _run(self) -> None:
        while True:
            body = self.pending.get()
            try:
                self._post(body)
            finally:
                self.pending.task_done()

    def _post(self, body: str) -> None:
        """One event, tried :data:`TRIES` times while the class view cannot be reached (a busy
        machine, a restart); an event it refuses is not tried again."""
        for attempt in range(TRIES):
            request = urllib.request.Request(self.url, data=body.encode(), method="POST", headers={
                "Content-Type": "application/json", "Authorization": f"token {self.token}"})
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    response.read()
                self.sent += 1
                return
            except urllib.error.HTTPError as error:  # the class view refused it, and said why
                self.last_error = f"{error.code}: {error.read(500).decode(errors='replace')}"
                if error.code < 500:
                    break
            except OSError as error:
                self.last_error = str(error)
            time.sleep(2 ** attempt)
        self.failed += 1


def _logger():
    with _lock:
        if "logger" not in _state:
            from jupyter_events import EventLogger

            events = EventLogger()
            events.register_event_schema(schema())
            url, token = os.environ.get(ENDPOINT, ""), os.environ.get("JUPYTERHUB_API_TOKEN", "")
            if url and token:
                events.register_handler(_Sender(url, token))
            _state["logger"] = events
        return _state["logger"]


def emit(exercise: str, kind: str, outcome: str, attempt: int, *, mistake: str | None = None,
         error: str | None = None, guess: str | None = None) -> dict | None:
    """Validate one event and send it (when there is a class view); the event, or ``None`` when the
    learner has turned events off. A ``ValueError`` names a field the schema refuses."""
    if not enabled():
        return None
    event = {"exercise": exercise, "kind": kind, "outcome": outcome, "attempt": attempt}
    event.update({k: v for k, v in (("mistake", mistake), ("error", error), ("guess", guess)) if v is not None})
    validate(event)
    _logger().emit(schema_id=SCHEMA_ID, data=event)
    return event


def add_handler(handler: logging.Handler) -> None:
    """Route the events to ``handler`` too (each record formatted as the JSON that is sent)."""
    _logger().register_handler(handler)


def remove_handler(handler: logging.Handler) -> None:
    _logger().remove_handler(handler)


def flush() -> None:
    """Wait until every event made so far has been posted (or failed)."""
    for handler in _logger().handlers:
        if isinstance(handler, _Sender):
            handler.pending.join()


def received(body: bytes) -> dict:
    """An event as the class view receives it (the JSON ``jupyter_events`` made): its schema's
    fields, checked; a ``ValueError`` says why it is refused (too large, not JSON, another schema
    or version, a field the schema refuses, a ``learner`` set by the sender)."""
    if len(body) > MAX_BYTES:
        raise ValueError(f"event: {len(body)} bytes, more than the {MAX_BYTES} an event may have")
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"event: not JSON ({error})") from None
    if not isinstance(data, dict):
        raise ValueError(f"event: expected a JSON object, got {type(data).__name__}")
    if data.get("__schema__") != SCHEMA_ID or data.get("__schema_version__") != SCHEMA_VERSION:
        raise ValueError(f"event: expected schema {SCHEMA_ID} version {SCHEMA_VERSION}, got "
                         f"{data.get('__schema__')!r} version {data.get('__schema_version__')!r}")
    if "learner" in data:
        raise ValueError("event: learner is set by the class view from the sender's account, never by the sender")
    return validate({k: v for k, v in data.items() if not k.startswith("__")})
