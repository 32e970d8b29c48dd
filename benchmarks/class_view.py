"""The class view under a class: N learners each send one event a second for a minute.

Run as root (it creates N accounts, removed at the end) with
``sudo uv run --group classroom python benchmarks/class_view.py --students 30 --seconds 60``. It starts
the class server on 127.0.0.1 in a temporary folder (as benchmarks/classroom.py does); every learner
logs in through the hub's form and asks for a token of their own (no server is started: the
events are what is measured). Then each learner, in a thread of their own, posts one event a
second to the class view's events address (the one each learner's kernel posts to, on loopback)
with their own token, and times each reply. At the end the teacher asks for the counts.

Reported: events sent, accepted (204) and counted by the service (no event may be lost), the reply
times' p50, p95 and maximum (the target is p95 <= 100 ms) of each learner's later events, apart
from their first (for which the service asks the hub whose token it is, then remembers it for 5
minutes), and the page's counts request time.
Bounded: every request has a timeout and the class is stopped and its accounts removed after.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path

import numpy as np
import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from classroom.trial import trial_class  # noqa: E402
from shared import events  # noqa: E402


def learner_loop(url: str, token: str, seconds: int, start: float, times: list[float], statuses: list[int],
                 firsts: list[float]) -> None:
    http = requests.Session()
    headers = {"Authorization": f"token {token}", "Content-Type": "application/json"}
    for i in range(seconds):
        time.sleep(max(0.0, start + i - time.monotonic()))
        event = {"__timestamp__": "2026-01-01T00:00:00+00:00Z", "__schema__": events.SCHEMA_ID,
                 "__schema_version__": events.SCHEMA_VERSION, "__metadata_version__": 1,
                 "exercise": "01.2", "kind": "question", "outcome": "unrecognised", "attempt": i + 1}
        t0 = time.perf_counter()
        try:
            status = http.post(url, data=json.dumps(event), headers=headers, timeout=10).status_code
        except requests.RequestException:
            status = 0
        (firsts if i == 0 else times).append(time.perf_counter() - t0)
        statuses.append(status)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--seconds", type=int, default=60)
    args = parser.parse_args()
    if not 1 <= args.students <= 100 or not 1 <= args.seconds <= 600:
        parser.error("--students must be 1 to 100 and --seconds 1 to 600")
    with trial_class(args.students, ["--no-store"]) as room:  # events need no model
        port = json.loads((room.prefix / "hub" / "classroom.json").read_text())["class_view_port"]
        url = f"http://127.0.0.1:{port}/services/class-view/events"
        tokens = []
        for name in room.students:
            s = room.student(name)
            if not s.log_in():
                raise RuntimeError(f"{name} could not log in")
            tokens.append(s.get_token())
        teacher = room.student(room.teacher)
        teacher.log_in()
        teacher.get_token()
        times: list[float] = []
        statuses: list[int] = []
        firsts: list[float] = []  # each learner's first event: the service asks the hub whose token it is
        start = time.monotonic() + 1.0
        threads = [threading.Thread(target=learner_loop, args=(url, t, args.seconds, start + i / args.students, times, statuses, firsts))
                   for i, t in enumerate(tokens)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=args.seconds + 120)
        t0 = time.perf_counter()
        counts = teacher.api("GET", "/services/class-view/counts").json()
        counts_ms = 1000 * (time.perf_counter() - t0)
    ms, first_ms = 1000 * np.array(times), 1000 * np.array(firsts)
    sent, accepted = len(statuses), sum(s == 204 for s in statuses)
    counted = counts["exercises"].get("01.2", {}).get("events", 0)
    print(f"class view: {args.students} learners x 1 event/s x {args.seconds} s on loopback")
    print(f"  events sent {sent}, accepted {accepted}, counted {counted}, lost {sent - counted}")
    print(f"  reply time p50 {np.percentile(ms, 50):.1f} ms, p95 {np.percentile(ms, 95):.1f} ms, max {ms.max():.1f} ms "
          f"(target p95 <= 100 ms), each learner's later events")
    print(f"  each learner's first event (its token looked up at the hub): p50 {np.percentile(first_ms, 50):.1f} ms, "
          f"max {first_ms.max():.1f} ms; all events together: p95 {np.percentile(np.r_[ms, first_ms], 95):.1f} ms")
    print(f"  the page's counts request: {counts_ms:.1f} ms")
    return 0 if accepted == sent == counted else 1


if __name__ == "__main__":
    sys.exit(main())
