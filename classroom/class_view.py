"""The class view: a JupyterHub service that shows a teacher, live and without names, what the class does.

Each check in a learner's kernel sends one event (``shared/events.py``: the exercise, the outcome,
which try); this service receives them, keeps them in SQLite in the hub's state folder, and shows a
page for a projector: per exercise, how many learners have tried, how many got it right and how
many made each named mistake (in the check's own words); per prediction, how the committed guesses
are spread. The page asks for the counts every second. No learner name is stored or shown: a
learner is a key (HMAC of the account name with the class session's salt), and "New class session"
starts counting afresh with a new salt, so two sessions cannot be joined.

Who may do what:

- the page, its counts and the reset: an account the hub gives ``access:services!service=class-view``
  (the teachers' role and the admins; Hub OAuth, so the hub refuses everyone else);
- ``POST events``: any user's hub token (a learner's server has its own in the kernel), counted as
  that user and no other; an event naming a learner, too large, or not matching the schema is
  refused with 400 and a message saying why, and so is one naming an exercise, a mistake, a prediction
  or an option the course does not have (where the service runs beside the course: what the page
  shows is the course's words, never a learner's); an error class that is not one of Python's own is
  counted as ``another error``; more than :data:`RATE` events a second from one learner, or more than
  :data:`PER_SESSION` in one class session, are refused with 429.

Run by the hub (``classroom/config/40_class_view.py``; ``hub.services`` on Kubernetes)::

    python -m classroom.class_view --db STATE/class_view.sqlite --port PORT
"""

from __future__ import annotations

import argparse
import builtins
import importlib.util
import json
import os
import secrets
import sqlite3
import sys
import time
from pathlib import Path

from jupyterhub.services.auth import HubOAuth, HubOAuthCallbackHandler, HubOAuthenticated
from jupyterhub.utils import url_path_join
from tornado import ioloop, web

ROOT = Path(__file__).resolve().parent.parent
#: Events a second one learner may send (a check takes a person at least seconds); a burst of BURST.
RATE, BURST = 5.0, 30.0
PER_SESSION = 2000  # events one learner may send in one class session (a three-hour lab at one every 6 s)


def load_events(path: Path = ROOT / "shared" / "events.py"):
    """The toolkit's events module, loaded by its path: it needs nothing else of the toolkit, so the
    hub's environment (without numpy) can validate events with the very code that makes them."""
    spec = importlib.util.spec_from_file_location("class_view_events", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Store:
    """The events of each class session, in SQLite."""

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        if path != ":memory:":
            os.chmod(path, 0o600)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript("""
            CREATE TABLE IF NOT EXISTS sessions (id INTEGER PRIMARY KEY, salt BLOB NOT NULL, started REAL NOT NULL);
            CREATE TABLE IF NOT EXISTS events (session INTEGER NOT NULL, learner TEXT NOT NULL, exercise TEXT NOT NULL,
                kind TEXT NOT NULL, outcome TEXT NOT NULL, detail TEXT, attempt INTEGER NOT NULL, received REAL NOT NULL);
            CREATE INDEX IF NOT EXISTS by_exercise ON events (session, exercise);
        """)
        if self.session() is None:
            self.new_session()

    def session(self) -> tuple[int, bytes] | None:
        return self.db.execute("SELECT id, salt FROM sessions ORDER BY id DESC LIMIT 1").fetchone()

    def new_session(self) -> int:
        cursor = self.db.execute("INSERT INTO sessions (salt, started) VALUES (?, ?)", (secrets.token_bytes(32), time.time()))
        return cursor.lastrowid

    def add(self, session: int, learner: str, event: dict) -> None:
        detail = event.get("mistake") or event.get("error") or event.get("guess")
        self.db.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (session, learner, event["exercise"], event["kind"], event["outcome"], detail,
                         event["attempt"], time.time()))

    def counts(self, session: int) -> dict:
        """Per exercise: learners who tried, got it right, made each mistake; per prediction: each
        learner's first committed guess, counted by option. Numbers and ids only."""
        q = self.db.execute
        exercises: dict[str, dict] = {}
        for exercise, kind, tried, right, events in q(
                "SELECT exercise, kind, COUNT(DISTINCT learner), COUNT(DISTINCT CASE WHEN outcome = 'right' THEN learner END), "
                "COUNT(*) FROM events WHERE session = ? AND kind != 'prediction' GROUP BY exercise ORDER BY exercise", (session,)):
            exercises[exercise] = {"kind": kind, "tried": tried, "right": right, "events": events,
                                   "mistakes": {}, "errors": {}, "unrecognised": 0}
        for exercise, outcome, detail, learners in q(
                "SELECT exercise, outcome, detail, COUNT(DISTINCT learner) FROM events WHERE session = ? "
                "AND outcome IN ('mistake', 'error', 'unrecognised') GROUP BY exercise, outcome, detail", (session,)):
            entry = exercises[exercise]
            if outcome == "unrecognised":
                entry["unrecognised"] = learners
            else:
                entry["mistakes" if outcome == "mistake" else "errors"][detail] = learners
        predictions: dict[str, dict[str, int]] = {}
        for exercise, guess, learners in q(
                "SELECT exercise, detail, COUNT(*) FROM (SELECT exercise, learner, detail, MIN(rowid) FROM events "
                "WHERE session = ? AND kind = 'prediction' GROUP BY exercise, learner) GROUP BY exercise, detail "
                "ORDER BY exercise", (session,)):
            predictions.setdefault(exercise, {})[guess] = learners
        return {"session": session, "exercises": exercises, "predictions": predictions}


def admissible(known: dict, event: dict) -> dict:
    """``event`` as the class view counts it, or ValueError if it names what the course does not have
    (checked only where ``known``, the :func:`catalog`, holds the course): an exercise, a named mistake,
    a prediction or an option. An error class other than Python's own becomes ``another error``."""
    if event.get("error") and not isinstance(getattr(builtins, event["error"], None), type):
        event = {**event, "error": "another error"}
    if not known["mistakes"]:
        return event
    number = event["exercise"]
    if event["kind"] == "prediction":
        options = known["predictions"].get(number, {}).get("options")
        if options is None:
            raise ValueError(f"exercise: the course has no prediction {number!r}")
        if event.get("guess") not in (*options, "typed"):
            raise ValueError(f"guess: prediction {number} has no option {event.get('guess')!r}")
        return event
    if number not in known["mistakes"]:
        raise ValueError(f"exercise: the course has no exercise {number!r}")
    if event.get("mistake") and event["mistake"] not in known["mistakes"][number]:
        raise ValueError(f"mistake: exercise {number} names no mistake {event['mistake']!r}")
    return event


def catalog() -> dict:
    """The words of each exercise's named mistakes and each prediction's question and options, from
    the course (when the service runs where the course is installed); ids only otherwise."""
    try:
        from shared.exercises import EXERCISES
        from shared.predictions import PREDICTIONS
    except ImportError:
        return {"mistakes": {}, "predictions": {}}
    return {
        "mistakes": {number: {key: m.says for key, m in ex.mistakes.items()} for number, ex in EXERCISES.items()},
        "predictions": {number: {"question": p.question, "options": dict(p.options)} for number, p in PREDICTIONS.items()},
    }


class Teacher(HubOAuthenticated, web.RequestHandler):
    """A request the hub has authorised for this service (the teachers and admins only)."""

    def initialize(self, app: dict) -> None:
        self.app = app

    def set_default_headers(self) -> None:
        self.set_header("Cache-Control", "no-store")
        self.set_header("X-Frame-Options", "DENY")
        self.set_header("Content-Security-Policy", "default-src 'self'; script-src 'self' 'unsafe-inline'; "
                        "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")


class Page(Teacher):
    @web.authenticated
    def get(self) -> None:
        self.set_header("Content-Type", "text/html; charset=utf-8")
        xsrf = self.xsrf_token  # the hub's xsrf token for this page (set as a cookie too); sent back by its requests
        self.write(PAGE.replace("{{catalog}}", json.dumps(self.app["catalog"]).replace("</", "<\\/"))
                   .replace("{{xsrf}}", json.dumps(xsrf.decode() if isinstance(xsrf, bytes) else xsrf)))


class Counts(Teacher):
    @web.authenticated
    def get(self) -> None:
        session, _ = self.app["store"].session()
        self.write(self.app["store"].counts(session))


class Reset(Teacher):
    @web.authenticated
    def post(self) -> None:
        # a cross-site form cannot set this header, and nothing here answers a CORS preflight
        if self.request.headers.get("X-Class-View") != "new-session":
            raise web.HTTPError(403, "a new class session is started from the class view's own page")
        self.write({"session": self.app["store"].new_session()})


class Events(web.RequestHandler):
    """``POST events``: one event from a learner's kernel, counted as the token's owner."""

    def initialize(self, app: dict) -> None:
        self.app = app

    def check_xsrf_cookie(self) -> None:  # token-authenticated, never by cookie
        pass

    def refuse(self, status: int, message: str) -> None:
        self.set_status(status)
        self.finish({"error": message})

    async def post(self) -> None:
        auth = self.app["auth"]
        token = auth.get_token(self, in_cookie=False)
        if not token:
            return self.refuse(401, "no token: send 'Authorization: token <your hub token>'")
        user = await auth.user_for_token(token, sync=False)
        if not user or user.get("kind", "user") != "user" or not user.get("name"):
            return self.refuse(403, "the hub does not know this token as a user's")
        try:
            event = admissible(self.app["catalog"], self.app["events"].received(self.request.body))
        except ValueError as error:
            return self.refuse(400, str(error))
        now, buckets = time.monotonic(), self.app["buckets"]
        level, last = buckets.get(user["name"], (BURST, now))
        level = min(BURST, level + (now - last) * RATE)
        if level < 1:
            buckets[user["name"]] = (level, now)
            return self.refuse(429, f"more than {RATE:g} events a second from one learner")
        buckets[user["name"]] = (level - 1, now)
        session, salt = self.app["store"].session()
        sent = self.app["sent"]
        if sent.get((session, user["name"]), 0) >= PER_SESSION:
            return self.refuse(429, f"more than {PER_SESSION} events from one learner in this class session")
        sent[(session, user["name"])] = sent.get((session, user["name"]), 0) + 1
        self.app["store"].add(session, self.app["events"].learner_key(salt, user["name"]), event)
        self.set_status(204)
        self.finish()


def make_app(db: str, prefix: str | None = None) -> web.Application:
    prefix = prefix or os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/services/class-view/")
    auth = HubOAuth()  # a token's owner is asked of the hub once, then cached for its default 5 minutes
    app = {"store": Store(db), "events": load_events(), "auth": auth, "catalog": catalog(), "buckets": {}, "sent": {}}
    routes = [
        (prefix, Page), (url_path_join(prefix, "counts"), Counts), (url_path_join(prefix, "reset"), Reset),
        (url_path_join(prefix, "events"), Events),
    ]
    return web.Application(
        [(path, handler, {"app": app}) for path, handler in routes]
        + [(url_path_join(prefix, "oauth_callback"), HubOAuthCallbackHandler)],
        cookie_secret=secrets.token_bytes(32), hub_auth=auth, login_url=auth.login_url,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m classroom.class_view", description=__doc__.split("\n")[0])
    parser.add_argument("--db", required=True, help="the SQLite file (in the hub's state folder)")
    parser.add_argument("--ip", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    app = make_app(args.db)
    app.listen(args.port, args.ip, max_body_size=64 * 1024)  # an event has 2 KB at most: refuse the rest early
    print(f"class view on http://{args.ip}:{args.port}{os.environ.get('JUPYTERHUB_SERVICE_PREFIX', '/')}", flush=True)
    ioloop.IOLoop.current().start()
    return 0


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Class view</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
 body { font: 22px/1.35 system-ui, sans-serif; margin: 1em 2em; color: #111; background: #fff; }
 h1 { font-size: 1.6em; margin: 0 0 .3em; } h2 { font-size: 1.15em; margin: 1.2em 0 .3em; }
 .bar { display: flex; align-items: center; gap: .5em; margin: .15em 0; }
 .fill { background: #2a6fb0; height: 1em; min-width: 2px; } .right .fill { background: #2e8b57; }
 .mistake .fill { background: #c0504d; } .n { font-variant-numeric: tabular-nums; min-width: 2.5em; text-align: right; font-weight: 600; }
 .words { max-width: 60em; } .muted { color: #555; } button { font-size: .9em; padding: .3em .8em; }
 #top { display: flex; justify-content: space-between; align-items: baseline; }
</style></head><body>
<div id="top"><h1>Class view</h1><span><span id="status" class="muted"></span>
<button id="reset" title="Start counting afresh (the counts so far are kept apart and no longer shown)">New class session</button></span></div>
<p class="muted">Counts of learners, never names. Updated every second.</p>
<div id="predictions"></div><div id="exercises"></div>
<script>
const CATALOG = {{catalog}};
const XSRF = {{xsrf}};
const base = location.pathname.endsWith("/") ? location.pathname : location.pathname + "/";
function el(tag, cls, text) { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
function human(id) { return id.replace(/_/g, " "); }
function bar(n, of, words, cls) {
  const row = el("div", "bar " + (cls || "")), fill = el("div", "fill");
  fill.style.width = (of ? 12 * n / of : 0) + "em";
  row.append(el("span", "n", String(n)), fill, el("span", "words", words)); return row;
}
function render(data) {
  const P = document.getElementById("predictions"), E = document.getElementById("exercises");
  P.replaceChildren(); E.replaceChildren();
  for (const [id, dist] of Object.entries(data.predictions)) {
    const info = (CATALOG.predictions || {})[id] || {options: {}};
    const total = Object.values(dist).reduce((a, b) => a + b, 0);
    const box = el("section", "prediction"); box.dataset.id = id;
    box.append(el("h2", "", "Prediction " + id + (info.question ? ": " + info.question : "") + " (" + total + " committed)"));
    const order = Object.keys(info.options).concat(Object.keys(dist).filter(k => !(k in info.options)));
    for (const opt of order) box.append(bar(dist[opt] || 0, total, info.options[opt] || human(opt), "guess"));
    P.append(box);
  }
  for (const [id, ex] of Object.entries(data.exercises)) {
    const words = (CATALOG.mistakes || {})[id] || {};
    const box = el("section", "exercise"); box.dataset.id = id;
    box.append(el("h2", "", "Exercise " + id + ": " + ex.tried + " tried, " + ex.right + " right"));
    box.append(bar(ex.right, ex.tried, "right", "right"));
    for (const [m, n] of Object.entries(ex.mistakes).sort((a, b) => b[1] - a[1])) box.append(bar(n, ex.tried, words[m] || human(m), "mistake"));
    for (const [m, n] of Object.entries(ex.errors)) box.append(bar(n, ex.tried, "their function raised " + m, "error"));
    if (ex.unrecognised) box.append(bar(ex.unrecognised, ex.tried, "wrong, no mistake recognised", "unrecognised"));
    E.append(box);
  }
  if (!E.children.length && !P.children.length) E.append(el("p", "muted", "No checks yet in this class session."));
}
async function poll() {
  try {
    const r = await fetch(base + "counts", {cache: "no-store", credentials: "same-origin", headers: {"X-XSRFToken": XSRF}});
    if (!r.ok) throw new Error(r.status);
    render(await r.json()); document.getElementById("status").textContent = "live";
  } catch (e) { document.getElementById("status").textContent = "not reaching the class view (" + e.message + ")"; }
  setTimeout(poll, 1000);
}
document.getElementById("reset").onclick = async () => {
  if (!confirm("Start a new class session? The counts start again from zero.")) return;
  await fetch(base + "reset", {method: "POST", credentials: "same-origin", headers: {"X-Class-View": "new-session", "X-XSRFToken": XSRF}});
};
poll();
</script></body></html>
"""

if __name__ == "__main__":
    sys.exit(main())
