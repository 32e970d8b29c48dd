"""The class view (classroom/class_view.py) for real, and its counting without a hub.

The tests marked ``classroom`` start a class server with three learners and a teacher (as
tests/test_classroom.py does): the learners make known mistakes and commit predictions in their own
kernels, the events reach the hub's class-view service with each server's own token, and the
teacher's page, opened in headless Chromium through Hub OAuth, shows the counts and the spread of
the guesses, and nothing of who made them. A learner's token opens neither the page nor its counts,
and cannot post as another learner. Run by ``.ci/run`` with
``uv run --group classroom pytest -m classroom -n 0 tests/test_class_view.py``.

The counting itself (:class:`classroom.class_view.Store`) is tested in the default run.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import requests

from shared import events
from shared.exercises import EXERCISES

if TYPE_CHECKING:
    from classroom.trial import TrialClass

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "build" / "classroom"
STORE = Path("/var/tmp/isotropy-store")
VIEW = "/services/class-view/"
# 01.3: k / d is a named mistake, 10 is right; 01.1: the first named mistake of the implementation
K_OVER_D = next(key for key, m in EXERCISES["01.3"].mistakes.items() if m.says.startswith("that is k / d"))
FIRST_01_1 = next(iter(EXERCISES["01.1"].mistakes))


# --- the counting and the predictions, without a hub (the store's tests need the classroom group) -------

def _store():
    from classroom.class_view import Store  # needs the classroom group (JupyterHub's libraries)

    return Store(":memory:")


@pytest.mark.classroom  # no hub, but the classroom group: .ci/run runs it
def test_counts_are_learners_not_events_and_hold_no_name() -> None:
    store = _store()
    session, salt = store.session()
    key = {name: events.learner_key(salt, name) for name in ("ada", "alan", "grace")}
    for name, outcome, mistake in [("ada", "mistake", "k_over_d"), ("ada", "mistake", "k_over_d"), ("ada", "right", None),
                                   ("alan", "mistake", "k_over_d"), ("grace", "error", None)]:
        event = {"exercise": "01.2", "kind": "question", "outcome": outcome, "attempt": 1}
        if mistake:
            event["mistake"] = mistake
        if outcome == "error":
            event["error"] = "TypeError"
        store.add(session, key[name], event)
    for name, guess in [("ada", "near_1"), ("alan", "near_0"), ("ada", "near_0"), ("grace", "near_1")]:
        store.add(session, key[name], {"exercise": "03.p1", "kind": "prediction", "outcome": "guess", "guess": guess,
                                       "attempt": 1})
    counts = store.counts(session)
    assert counts["exercises"]["01.2"] == {"kind": "question", "tried": 3, "right": 1, "events": 5,
                                           "mistakes": {"k_over_d": 2}, "errors": {"TypeError": 1}, "unrecognised": 0}
    assert counts["predictions"] == {"03.p1": {"near_1": 2, "near_0": 1}}  # each learner's first committed guess
    text = json.dumps(counts)
    assert not any(n in text or k in text for n, k in key.items())


@pytest.mark.classroom  # no hub, but the classroom group: .ci/run runs it
def test_only_the_courses_own_ids_reach_the_page() -> None:
    """What the page shows is the course's words: an exercise, mistake, prediction or option the course
    does not have is refused, and an error class of the learner's own is counted as another error."""
    from classroom.class_view import admissible, catalog

    known = catalog()
    right = {"exercise": "01.3", "kind": "question", "outcome": "mistake", "mistake": "k_over_d", "attempt": 1}
    assert admissible(known, right) == right
    vote = {"exercise": "03.p1", "kind": "prediction", "outcome": "guess", "guess": "near_1", "attempt": 1}
    assert admissible(known, vote) == vote and admissible(known, {**vote, "guess": "typed"})
    for bad, says in (({**right, "exercise": "99.9"}, "no exercise"), ({**right, "mistake": "vote_for_no_homework"}, "no mistake"),
                      ({**vote, "exercise": "01.p9"}, "no prediction"), ({**vote, "guess": "teacher_is_wrong"}, "no option")):
        with pytest.raises(ValueError, match=says):
            admissible(known, bad)
    raised = {"exercise": "01.1", "kind": "implementation", "outcome": "error", "attempt": 1}
    assert admissible(known, {**raised, "error": "IndexError"})["error"] == "IndexError"
    assert admissible(known, {**raised, "error": "TeacherIsWrongError"})["error"] == "another error"
    assert admissible({"mistakes": {}, "predictions": {}}, {**right, "exercise": "99.9"})  # no course beside it: ids only


@pytest.mark.classroom  # no hub, but the classroom group: .ci/run runs it
def test_a_new_class_session_starts_from_zero_with_a_new_salt() -> None:
    store = _store()
    first, salt = store.session()
    store.add(first, events.learner_key(salt, "ada"), {"exercise": "01.2", "kind": "question", "outcome": "right", "attempt": 1})
    second = store.new_session()
    assert second != first and store.session()[1] != salt
    assert store.counts(second) == {"session": second, "exercises": {}, "predictions": {}}
    assert store.counts(first)["exercises"]["01.2"]["right"] == 1


def test_every_prediction_prompt_has_a_widget_and_options() -> None:
    from shared.predictions import PREDICTIONS

    prompts = []
    for notebook in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py")):
        text = notebook.read_text()
        here = [f"{notebook.name[:2]}.p{i}" for i in range(1, text.count("**Predict first.**") + 1)]
        # each prompt's widget is the first code cell after it, in reading order
        cells = re.split(r"^# %%.*$", text, flags=re.M)
        widgets = [re.search(r'predict\("([^"]+)"\)', cells[i + 1]).group(1) if re.search(r'predict\("', cells[i + 1] or "") else None
                   for i, cell in enumerate(cells[:-1]) if "**Predict first.**" in cell]
        assert widgets == here, notebook.name
        prompts += here
    assert sorted(PREDICTIONS) == sorted(prompts)


def test_a_committed_prediction_is_sent_once_and_a_typed_guess_never_as_text(monkeypatch) -> None:
    import logging

    from shared.predictions import predict

    monkeypatch.delenv(events.OPT_OUT, raising=False)
    got: list[dict] = []

    class Recorder(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            got.append(json.loads(self.format(record)))

    recorder = Recorder()
    events.add_handler(recorder)
    try:
        picked = predict("03.p1")
        assert picked.button.disabled, "committing before a guess must not be possible"
        with pytest.raises(ValueError, match="pick an option or type a guess"):
            picked.commit()
        picked.choice.value = "near_1"
        assert not picked.button.disabled
        assert picked.commit() == "near_1" and picked.commit() == "near_1"  # a second press sends nothing
        assert picked.button.disabled and picked.choice.disabled and "Committed" in picked.after.value
        typed = predict("03.p1")
        typed.typed.value = "my secret reasoning: about 0.93"
        assert typed.commit() == "typed"
    finally:
        events.remove_handler(recorder)
    assert [(e["exercise"], e["kind"], e["outcome"], e["guess"]) for e in got] == [
        ("03.p1", "prediction", "guess", "near_1"), ("03.p1", "prediction", "guess", "typed")]
    assert "secret" not in json.dumps(got)
    assert "near" not in repr(picked)  # the stored text names no option, let alone the answer
    with pytest.raises(ValueError, match="unknown prediction"):
        predict("03.p9")


# --- the class server ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hub() -> Iterator[TrialClass]:
    if os.geteuid() != 0:
        pytest.skip("the class server creates OS accounts: run as root (CI does)")
    from classroom.trial import trial_class

    with trial_class(3, ["--idle-timeout", "3600", "--no-store"]) as room:  # checks and predictions need no model
        yield room


@pytest.fixture(scope="module")
def learners(hub: TrialClass) -> dict:
    return {name: hub.started(name) for name in hub.students}


@pytest.fixture(scope="module")
def teacher(hub: TrialClass):
    t = hub.student(hub.teacher)
    assert t.log_in()
    t.get_token()
    return t


def _counts(teacher) -> dict:
    response = teacher.api("GET", VIEW + "counts")
    assert response.status_code == 200, response.text[:300]
    return response.json()


def _run(learner, code: str) -> str:
    kernel = learner.kernel()
    try:
        reply = kernel.execute(code, timeout=300)
    finally:
        kernel.close()
    assert reply.status == "ok", reply.error + reply.stderr
    return reply.stdout


# What each learner does in their own kernel: known mistakes, a right answer, committed predictions.
ACTIONS = {
    0: [("01.3", 0.2), ("01.3", 10)],
    1: [("01.3", 0.2), ("01.1", "FIRST")],
    2: [("01.3", 3.0)],
}
GUESSES = {0: "near_1", 1: "near_1", 2: "near_0"}


@pytest.mark.classroom
def test_class_view_counts_what_three_learners_do_in_their_servers(hub: TrialClass, learners, teacher) -> None:
    assert _counts(teacher)["exercises"] == {}
    for i, name in enumerate(hub.students):
        first = 'EXERCISES["01.1"].mistakes[FIRST].model'
        checks = "\n".join(f"check({number!r}, {first if value == 'FIRST' else repr(value)})" for number, value in ACTIONS[i])
        out = _run(learners[name], f"""
import os
from shared import events
from shared.exercises import EXERCISES, check
from shared.predictions import predict
FIRST = next(iter(EXERCISES["01.1"].mistakes))
assert os.environ.get("{events.ENDPOINT}") and os.environ.get("JUPYTERHUB_API_TOKEN"), "no class view in this kernel"
{checks}
w = predict("03.p1")
w.choice.value = {GUESSES[i]!r}
w.commit()
events.flush()
print("sent", sum(h.sent for h in events._logger().handlers if hasattr(h, "sent")),
      "failed", sum(h.failed for h in events._logger().handlers if hasattr(h, "failed")),
      *[h.last_error for h in events._logger().handlers if getattr(h, "last_error", "")])
""")
        assert out.strip().endswith(f"sent {len(ACTIONS[i]) + 1} failed 0"), out
    counts = _counts(teacher)
    assert counts["exercises"]["01.3"]["tried"] == 3 and counts["exercises"]["01.3"]["right"] == 1
    assert counts["exercises"]["01.3"]["mistakes"] == {K_OVER_D: 2}
    assert counts["exercises"]["01.3"]["unrecognised"] == 1
    assert counts["exercises"]["01.1"]["mistakes"] == {FIRST_01_1: 1}
    assert counts["predictions"] == {"03.p1": {"near_1": 2, "near_0": 1}}
    text = json.dumps(counts)
    assert not any(name in text for name in (*hub.students, hub.teacher))


@pytest.mark.classroom
def test_class_view_page_in_a_browser_shows_the_counts_live_and_resets(hub: TrialClass, learners, teacher) -> None:
    from tests.test_e2e import chromium_or_skip

    chromium = chromium_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu", "--no-first-run",
                                                                    "--disable-background-networking"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{hub.url}/hub/login?next={VIEW}", timeout=60_000)
            page.fill("input[name=username]", hub.teacher)
            page.fill("input[name=password]", hub.passwords[hub.teacher])
            page.click("input[type=submit], button[type=submit]")
            page.wait_for_url(f"**{VIEW}", timeout=60_000)
            exercise = page.locator("section.exercise[data-id='01.3']")
            exercise.wait_for(timeout=10_000)
            assert "3 tried, 1 right" in exercise.locator("h2").inner_text()
            assert exercise.locator(".mistake").filter(has_text=EXERCISES["01.3"].mistakes[K_OVER_D].says).locator(".n").inner_text() == "2"
            guesses = page.locator("section.prediction[data-id='03.p1']")
            assert "(3 committed)" in guesses.locator("h2").inner_text()
            assert guesses.locator(".guess").filter(has_text="near 1").locator(".n").inner_text() == "2"
            assert guesses.locator(".guess").filter(has_text="near 0").locator(".n").inner_text() == "1"
            body = page.inner_text("body")
            assert not any(name in body for name in (*hub.students, hub.teacher))
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / "class_view.png"), full_page=True)

            # a new event shows within 2 s
            _run(learners[hub.students[2]], "from shared.exercises import check\ncheck('01.3', 10)\n"
                                            "from shared import events\nevents.flush()")
            start = time.monotonic()
            page.wait_for_function("() => document.querySelector(\"section.exercise[data-id='01.3'] h2\")"
                                   ".textContent.includes('2 right')", timeout=2_000)
            assert time.monotonic() - start <= 2.0

            page.once("dialog", lambda dialog: dialog.accept())
            page.click("#reset")
            page.wait_for_selector("text=No checks yet in this class session.", timeout=5_000)
        finally:
            browser.close()
    assert _counts(teacher)["exercises"] == {}


@pytest.mark.classroom
def test_class_view_refuses_learners_other_names_and_bad_events(hub: TrialClass, learners, teacher) -> None:
    learner = learners[hub.students[0]]
    # a learner's own token opens neither the page nor the counts, nor starts a new session
    for method, path in (("GET", VIEW), ("GET", VIEW + "counts"), ("POST", VIEW + "reset")):
        response = learner.api(method, path, allow_redirects=False, headers={"X-Class-View": "new-session"})
        assert response.status_code == 403, (path, response.status_code)
    # nor does the learner's log-in: the hub refuses to authorise the service for them
    response = learner.http.get(f"{hub.url}{VIEW}", timeout=30)
    assert response.status_code == 403, (response.status_code, response.url)

    def post(body, token: str | None = learner.token) -> requests.Response:
        headers = {"Authorization": f"token {token}"} if token else {}
        return requests.post(f"{hub.url}{VIEW}events", data=body, headers=headers, timeout=30)

    capsule = {"__timestamp__": "2026-01-01T00:00:00+00:00Z", "__schema__": events.SCHEMA_ID,
               "__schema_version__": events.SCHEMA_VERSION, "__metadata_version__": 1,
               "exercise": "05.1", "kind": "implementation", "outcome": "right", "attempt": 1}
    refused = {
        "no token": (json.dumps(capsule), None, 401, "no token"),
        "a made-up token": (json.dumps(capsule), "0" * 32, 403, "does not know"),
        "another learner's key": (json.dumps({**capsule, "learner": "0123456789abcdef"}), learner.token, 400, "set by the class view"),
        "oversized": ("x" * (events.MAX_BYTES + 10), learner.token, 400, "more than"),
        "code in it": (json.dumps({**capsule, "code": "import os"}), learner.token, 400, "code"),
        "not JSON": ("{", learner.token, 400, "not JSON"),
        "an exercise the course lacks": (json.dumps({**capsule, "exercise": "99.9"}), learner.token, 400, "no exercise"),
        "a mistake of a learner's words": (json.dumps({**capsule, "outcome": "mistake", "mistake": "the_teacher_is_wrong"}),
                                           learner.token, 400, "names no mistake"),
    }
    for what, (body, token, status, says) in refused.items():
        response = post(body, token)
        assert response.status_code == status and says in response.json()["error"], (what, response.text)
    # the same learner posting twice, and a second learner once: two learners, whoever the events claim
    for poster in (learner, learner, learners[hub.students[1]]):
        assert post(json.dumps(capsule), poster.token).status_code == 204
    assert _counts(teacher)["exercises"]["05.1"]["tried"] == 2
    assert _counts(teacher)["exercises"]["05.1"]["events"] == 3
