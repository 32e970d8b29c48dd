"""The class view's events (shared/events.py): the schema, what each check sends, what is refused."""

from __future__ import annotations

import http.server
import json
import logging
import re
import threading

import numpy as np
import pytest

from shared import events
from shared.exercises import EXERCISES, check
from shared.exercises.common import Exercise, Implementation


class Recorder(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.events: list[dict] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.events.append(json.loads(self.format(record)))


@pytest.fixture
def sent(monkeypatch):
    monkeypatch.delenv(events.OPT_OUT, raising=False)
    recorder = Recorder()
    events.add_handler(recorder)
    yield recorder.events
    events.remove_handler(recorder)


def test_the_schema_is_registered_and_versioned():
    schema = events.schema()
    assert schema["$id"] == events.SCHEMA_ID and schema["version"] == events.SCHEMA_VERSION
    assert schema["additionalProperties"] is False
    # nothing in it could carry code, an output or a name: every string field is an enum or a short pattern
    for name, field in schema["properties"].items():
        if field["type"] == "string":
            assert "enum" in field or re.fullmatch(r"\^.*\$", field["pattern"]), name


def test_every_named_mistake_id_fits_the_schema():
    pattern = events.schema()["properties"]["mistake"]["pattern"]
    for number, ex in EXERCISES.items():
        assert all(re.fullmatch(pattern, key) for key in ex.mistakes), (number, list(ex.mistakes))


@pytest.mark.parametrize("number", [k for k, v in EXERCISES.items() if isinstance(v, Exercise) and v.mistakes])
def test_a_question_sends_each_named_mistake_by_its_id(sent, number):
    ex = EXERCISES[number]
    for key, (_, value) in ex.mistakes.items():
        check(number, value)
        assert sent[-1]["outcome"] == "mistake" and sent[-1]["mistake"] == key
        assert sent[-1]["kind"] == "question" and sent[-1]["exercise"] == number
    check(number, ex.reference())
    assert sent[-1]["outcome"] == "right"
    attempts = [e["attempt"] for e in sent]
    assert attempts == list(range(attempts[0], attempts[0] + len(attempts)))  # one more per try


def test_an_implementation_sends_right_mistake_error_and_unrecognised(sent):
    impl = EXERCISES["01.1"]
    assert isinstance(impl, Implementation)
    key = next(iter(impl.mistakes))
    check("01.1", impl.mistakes[key].model)

    def raises(X):
        raise IndexError("out of range")

    def constant(X):
        return 1.5

    def right(X):
        lam = np.linalg.eigvalsh(np.cov(X.T, bias=True))
        return lam.sum() ** 2 / (lam ** 2).sum()

    for fn in (raises, constant, right):
        check("01.1", fn)
    outcomes = [(e["outcome"], e.get("mistake") or e.get("error")) for e in sent[-4:]]
    assert outcomes == [("mistake", key), ("error", "IndexError"),
                        ("unrecognised", None), ("right", None)]
    assert all(e["__schema__"] == events.SCHEMA_ID and e["__timestamp__"] for e in sent)
    assert not any(set(e) - {"exercise", "kind", "outcome", "attempt", "mistake", "error", "guess"}
                   - {"__timestamp__", "__schema__", "__schema_version__", "__metadata_version__"} for e in sent)


@pytest.mark.parametrize("value", ["off", "0", "no", "FALSE"])
def test_the_learner_can_turn_events_off(sent, monkeypatch, value):
    monkeypatch.setenv(events.OPT_OUT, value)
    check("01.2", 10)
    assert sent == [] and events.emit("01.2", "question", "right", 1) is None


def _capsule(**fields) -> bytes:
    event = {"__timestamp__": "2026-01-01T00:00:00+00:00Z", "__schema__": events.SCHEMA_ID,
             "__schema_version__": events.SCHEMA_VERSION, "__metadata_version__": 1,
             "exercise": "01.1", "kind": "implementation", "outcome": "right", "attempt": 1}
    event.update(fields)
    return json.dumps({k: v for k, v in event.items() if v is not None}).encode()


def test_the_class_view_accepts_a_well_formed_event():
    assert events.received(_capsule(outcome="mistake", mistake="axis_1")) == {
        "exercise": "01.1", "kind": "implementation", "outcome": "mistake", "attempt": 1, "mistake": "axis_1"}
    assert events.received(_capsule(exercise="03.p1", kind="prediction", outcome="guess", guess="near_1"))["guess"] == "near_1"


@pytest.mark.parametrize("body, says", [
    (b"x" * (events.MAX_BYTES + 1), "more than"),
    (b"{not json", "not JSON"),
    (b"[1, 2]", "JSON object"),
    (_capsule(__schema__="https://example.org/other"), "expected schema"),
    (_capsule(__schema_version__="2"), "expected schema"),
    (_capsule(learner="0123456789abcdef"), "set by the class view"),
    (_capsule(code="import os"), "code"),
    (_capsule(outcome="mistake"), "mistake"),
    (_capsule(outcome="right", mistake="axis_1"), ""),
    (_capsule(outcome="mistake", mistake="Centred The Rows"), "mistake"),
    (_capsule(outcome="error", error="Key Error; rm -rf"), "error"),
    (_capsule(outcome="guess", guess="near_1"), ""),
    (_capsule(exercise="01.p1", kind="prediction", outcome="right"), ""),
    (_capsule(attempt=0), "attempt"),
    (_capsule(attempt="1"), "attempt"),
    (_capsule(exercise="../../etc"), "exercise"),
    (_capsule(kind="essay"), "kind"),
])
def test_the_class_view_refuses_a_bad_event_by_name(body, says):
    with pytest.raises(ValueError, match=f"^event: .*{re.escape(says)}"):
        events.received(body)


def test_a_bad_field_is_refused_before_it_is_sent(sent):
    with pytest.raises(ValueError, match="outcome"):
        events.emit("01.1", "implementation", "wrongish", 1)
    assert sent == []


def test_learner_keys_depend_on_the_salt_and_name_only():
    salt, other = b"s" * 16, b"t" * 16
    key = events.learner_key(salt, "ada")
    assert re.fullmatch(r"[0-9a-f]{16}", key) and key == events.learner_key(salt, "ada")
    assert key != events.learner_key(other, "ada") and key != events.learner_key(salt, "alan")
    with pytest.raises(ValueError, match="salt"):
        events.learner_key(b"short", "ada")


def test_the_sender_posts_each_event_with_the_servers_token():
    got: list[tuple[str, dict]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            body = self.rfile.read(int(self.headers["Content-Length"]))
            got.append((self.headers["Authorization"], json.loads(body)))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sender = events._Sender(f"http://127.0.0.1:{server.server_address[1]}/events", "secret-token")
    events.add_handler(sender)
    try:
        for attempt in (1, 2, 3):
            events.emit("02.1", "implementation", "unrecognised", attempt)
        sender.pending.join()
    finally:
        events.remove_handler(sender)
        server.shutdown()
        server.server_close()
    assert [(auth, body["attempt"]) for auth, body in got] == [("token secret-token", a) for a in (1, 2, 3)]
    assert all(events.received(json.dumps(body).encode()) for _, body in got)
