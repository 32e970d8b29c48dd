"""A class on one machine, simulated: N learners log in, run notebooks 09 and 07, then move a slider.

Run as root (it creates N accounts, removed at the end) with
``sudo uv run --group classroom python benchmarks/classroom.py --students 10``. It starts the class
server (``python -m classroom serve``) on 127.0.0.1 in a temporary folder; every learner, in a
thread of their own and at the same moment, logs in through the hub's form, asks for a token,
starts their server, runs notebook 09 top to bottom in one kernel, closes it (the course's JupyterLab
shuts a closed notebook's kernel down; ``--keep-kernels`` keeps it, as a learner who leaves the tab
open until the kernel is culled) and runs 07 in another, and then, once a second for ``--slider-seconds``, moves the
first slider of 07's explorer as the browser's slider does: a ``comm_msg`` updating the slider's
widget (and, where the explorer holds its frames in the page, the updates its browser-side links
send to the frames' stacks), timed until the kernel has handled them and gone idle, so including
the new picture sent back where the kernel redraws it. Then a burst: every learner moves the same
slider to the same value in the same second (``--bursts`` times, a few seconds apart).

Reported: the machine's peak memory in use (MemTotal - MemAvailable, sampled every half second)
above what it used before the hub started; memory per learner (the proportional set size, shared
pages counted once, of all their processes, at its peak, and at the end with the server and its
kernels idle, split into the server and the kernels); the time from the first log-in until
every learner's two notebooks have run; the slider reply times' p50 and p95 over the class, steady
and in the burst; and the kernels lost (a notebook that failed, or a kernel dead at the end). Bounded: every step has a
timeout, and the whole class is stopped and its accounts removed even after an error.

The study store lives in ``--store`` (default ``/var/tmp/isotropy-store``) and is kept between
runs, so a second run measures a warm store (the first fills it: minutes).

Each learner's client behaves as the browser does: the start request answers at once (202) and the
client follows the hub's progress events until the server is up (``Student.start_server``). Options:

- ``--startup-only``: every learner only logs in and starts their server (to try 60 at once);
- ``--slow one-core``: the class server (hub, proxy, every server and kernel) runs on one core
  (``taskset``'s affinity, set before it starts and inherited), a machine half as fast again and more;
  ``--slow neighbour``: a CPU-bound process per core runs beside the class all along;
- ``--hostile N``: N more learners attack while the others work: each starts 40 busy processes in
  new sessions, eight processes that allocate 400 MB each (past their 3 GB memory limit), and fills
  /tmp and /dev/shm until refused; the summary is the honest learners' only;
- ``--results FILE``: the summary as JSON (default ``benchmarks/results/classroom-N[-startup]
  [-slow][-hostile].json``), with the keys ``peak_gb``, ``all_done_s``, ``slider_p50_ms``,
  ``slider_p95_ms``, ``burst_p95_ms``, ``kernels_lost`` and ``errors``.
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from classroom.student import Kernel, Student  # noqa: E402
from classroom.trial import trial_class  # noqa: E402
from shared.real.models import real_models  # noqa: E402

EXPLORER = """
import gc, json as _json
from shared.explorers import Explorer
_explorer = [o for o in gc.get_objects() if isinstance(o, Explorer)][-1]
_control = list(_explorer.controls.values())[0]
if hasattr(_control, "options"):
    _trait, _values = "index", list(range(len(_control.options)))
else:
    import numpy as _np
    _trait, _values = "value", sorted({type(_control.value)(v) for v in _np.linspace(_control.min, _control.max, 8)})
# where the explorer holds its frames, the browser also sends each stack its slider is linked to the new position
_stacks = [link.target[0].model_id for link in getattr(_explorer, "_links", []) if link.source[0] is _control]
print(_json.dumps({"comm": _control.model_id, "trait": _trait, "values": _values, "stacks": _stacks,
                   "live": _explorer.live}))
"""


def move_slider(kernel: Kernel, slider: dict, position: int, timeout: float = 30) -> float:
    """Seconds from sending the updates a browser sends when its slider moves to ``position`` (of
    ``slider["values"]``) until the kernel has handled each and gone idle (any redraw sent back)."""
    value = slider["values"][position]
    updates = [(slider["comm"], {slider["trait"]: value})]
    index = position if slider["trait"] == "index" else value  # what the browser's link puts in the stacks
    updates += [(stack, {"selected_index": index}) for stack in slider["stacks"]]
    pending = set()
    start = time.perf_counter()
    for comm, state in updates:
        msg_id = uuid.uuid4().hex
        pending.add(msg_id)
        kernel.ws.send(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "comm_msg", "username": kernel.student.name,
                       "session": uuid.uuid4().hex, "version": "5.3", "date": ""},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"comm_id": comm, "data": {"method": "update", "state": state, "buffer_paths": []}},
        }))
    kernel.ws.settimeout(timeout)
    while pending:
        if time.perf_counter() - start > timeout:
            raise TimeoutError(f"no idle within {timeout} s after a slider move")
        frame = kernel.ws.recv()
        if isinstance(frame, bytes):  # the new picture, when the kernel redraws: the idle follows it
            continue
        msg = json.loads(frame)
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            pending.discard(msg.get("parent_header", {}).get("msg_id"))
    return time.perf_counter() - start


def machine_used() -> int:
    info = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
    kib = lambda key: int(info[key].split()[0])  # noqa: E731
    return 1024 * (kib("MemTotal") - kib("MemAvailable"))


def pss_by_user(uids: set[int]) -> dict[int, dict[str, int]]:
    """Bytes of PSS of each uid's processes, by kind: ``kernel`` (ipykernel) and ``server`` (the rest)."""
    total = {uid: {"kernel": 0, "server": 0} for uid in uids}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            uid = proc.stat().st_uid
            if uid not in uids:
                continue
            kind = "kernel" if b"ipykernel" in (proc / "cmdline").read_bytes() else "server"
            for line in (proc / "smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total[uid][kind] += 1024 * int(line.split()[1])
                    break
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
    return total


class Sampler(threading.Thread):
    """The machine's memory in use and each learner's PSS, every half second: the peaks, and the last sample."""

    def __init__(self, uids: set[int]) -> None:
        super().__init__(daemon=True)
        self.uids, self.stop = uids, threading.Event()
        self.peak_machine, self.peak_user = 0, dict.fromkeys(uids, 0)
        self.last: dict[int, dict[str, int]] = {}

    def run(self) -> None:
        while not self.stop.is_set():
            self.peak_machine = max(self.peak_machine, machine_used())
            self.last = pss_by_user(self.uids)
            for uid, kinds in self.last.items():
                self.peak_user[uid] = max(self.peak_user[uid], sum(kinds.values()))
            self.stop.wait(0.5)


ATTACK = """
import subprocess, sys
busy = [subprocess.Popen([sys.executable, '-c', 'while True: pass'], start_new_session=True) for _ in range(40)]
hog = 'b = bytearray(400 * 2**20)\\nimport time\\ntime.sleep(3600)'
hogs = [subprocess.Popen([sys.executable, '-c', hog], start_new_session=True) for _ in range(8)]
fill = 'import sys\\nchunk = bytes(2**20)\\ntry:\\n    f = open(sys.argv[1], "wb")\\n    while True: f.write(chunk); f.flush()\\nexcept OSError: pass'
fills = [subprocess.Popen([sys.executable, '-c', fill, path], start_new_session=True) for path in ('/tmp/fill', '/dev/shm/fill')]
print(len(busy) + len(hogs) + len(fills))
"""


def attacker(student: Student, stop: threading.Event) -> dict:
    """A hostile learner: logs in, starts their server, launches the attack and keeps it up until ``stop``."""
    result: dict = {"name": student.name, "error": "", "hostile": True}
    try:
        if not student.log_in():
            raise RuntimeError("log-in refused")
        student.get_token()
        student.start_server(timeout=900)
        kernel = student.kernel()
        result["processes"] = int(kernel.execute(ATTACK, timeout=300).stdout.strip() or 0)
        stop.wait(timeout=7200)
        kernel.close(shutdown=False)
    except Exception as error:  # noqa: BLE001
        result["error"] = f"{type(error).__name__}: {error}"[:300]
    return result


def learner(student: Student, t0: float, slider_seconds: int, start_line: threading.Barrier,
            startup_only: bool = False, bursts: int = 3, keep_kernels: bool = False) -> dict:
    result: dict = {"name": student.name, "lost": 0, "slider": [], "error": ""}
    kernels: list[Kernel] = []
    try:
        if not student.log_in():
            raise RuntimeError("log-in refused")
        result["logged_in"] = time.perf_counter() - t0
        student.get_token()
        result["start_answered_s"] = student.start_server(timeout=1200)
        result["server_ready"] = time.perf_counter() - t0
        if startup_only:
            result["finished"] = result["server_ready"]
            return result
        for notebook in reversed([m.notebook for m in real_models()]):  # 07's explorer is moved last
            kernel = student.kernel(f"notebooks/{notebook}")
            kernels.append(kernel)
            start = time.perf_counter()
            kernel.run_notebook(ROOT / "notebooks" / notebook, timeout=900)
            result[notebook[:2]] = time.perf_counter() - start
            cpu = kernel.execute("import time as _time; print(_time.process_time())", timeout=60)
            result[f"{notebook[:2]}_cpu"] = float(cpu.stdout)  # the kernel's own CPU seconds (load-independent)
            if notebook != real_models()[0].notebook and not keep_kernels:  # 07 (run last) stays open
                kernels.pop().close(shutdown=True)  # the learner closes the notebook's tab
        result["finished"] = time.perf_counter() - t0
        found = kernels[-1].execute(EXPLORER, timeout=60)
        if found.status != "ok":
            raise RuntimeError(f"the explorer: {found.error}")
        slider = json.loads(found.stdout)
        result["explorer_live"] = slider["live"]
    except Exception as error:  # noqa: BLE001 (a failed learner is counted, the class goes on)
        result["error"] = f"{type(error).__name__}: {error}"[:300]
        result["lost"] = 1
    if startup_only:
        return result
    start_line.wait(timeout=3600)  # the sliders move while the whole class is there
    result["burst"] = []
    if not result["lost"]:
        try:
            for tick in range(slider_seconds):
                due = time.perf_counter() + 1
                result["slider"].append(move_slider(kernels[-1], slider, (tick + 1) % len(slider["values"])))
                time.sleep(max(0.0, due - time.perf_counter()))
        except Exception as error:  # noqa: BLE001
            result["error"] = f"{type(error).__name__}: {error}"[:300]
            result["lost"] = 1
    for burst in range(bursts):  # everyone, the same slider to the same value, at the same moment
        start_line.wait(timeout=600)  # every learner comes here, lost or not, so the barrier holds
        if not result["lost"]:
            try:
                result["burst"].append(move_slider(kernels[-1], slider, (slider_seconds + 1 + burst) % len(slider["values"])))
            except Exception as error:  # noqa: BLE001
                result["error"] = f"{type(error).__name__}: {error}"[:300]
                result["lost"] = 1
        time.sleep(2)
    if not result["lost"]:
        try:
            for kernel in kernels:  # a kernel the OS killed (memory) is dead, though the server lives
                state = student.server("GET", f"kernels/{kernel.id}").json().get("execution_state")
                if state in (None, "dead"):
                    result["lost"] = 1
        except Exception as error:  # noqa: BLE001
            result["error"] = f"{type(error).__name__}: {error}"[:300]
            result["lost"] = 1
    for kernel in kernels:
        try:
            kernel.close(shutdown=False)
        except Exception:  # noqa: BLE001
            pass
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=1)
    parser.add_argument("--slider-seconds", type=int, default=60)
    parser.add_argument("--bursts", type=int, default=3, help="times every learner moves the same slider at once")
    parser.add_argument("--keep-kernels", action="store_true", help="keep 09's kernel open while 07 runs")
    parser.add_argument("--store", type=Path, default=Path("/var/tmp/isotropy-store"))
    parser.add_argument("--memory", default="3G", help="each learner process's address-space limit")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "classroom")
    parser.add_argument("--startup-only", action="store_true", help="only log in and start the servers")
    parser.add_argument("--slow", choices=("one-core", "neighbour"), help="slow the machine down on purpose")
    parser.add_argument("--hostile", type=int, default=0, help="this many more learners attack the class")
    parser.add_argument("--results", type=Path, help="where the summary JSON goes")
    args = parser.parse_args()
    if not 1 <= args.students <= 60:
        parser.error("--students: from 1 to 60")
    if not 0 <= args.hostile <= 10:
        parser.error("--hostile: from 0 to 10")
    tags = ["startup"] * args.startup_only + ["slow"] * bool(args.slow) + ["hostile"] * bool(args.hostile)
    results_file = args.results or ROOT / "benchmarks" / "results" / "-".join([f"classroom-{args.students}", *tags])
    results_file = results_file.with_suffix(".json") if not args.results else results_file

    baseline, load_before = machine_used(), os.getloadavg()[0]
    neighbours: list[subprocess.Popen] = []
    everything = os.sched_getaffinity(0)
    if args.slow == "one-core":
        os.sched_setaffinity(0, {min(everything)})  # the class server started below inherits it
    elif args.slow == "neighbour":
        neighbours = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in everything]
    try:
        with trial_class(args.students + args.hostile, ["--store", str(args.store), "--memory", args.memory]) as room:
            os.sched_setaffinity(0, everything)  # the client itself is not the machine under test
            honest, hostile = room.students[:args.students], room.students[args.students:]
            uids = {pwd.getpwnam(name).pw_uid for name in honest}
            sampler = Sampler(uids)
            sampler.start()
            start_line = threading.Barrier(args.students)
            stop = threading.Event()
            with ThreadPoolExecutor(args.students + args.hostile) as pool:
                attacks = [pool.submit(attacker, room.student(n), stop) for n in hostile]
                if attacks:
                    time.sleep(30)  # the attack is under way before the class starts
                t0 = time.perf_counter()  # the honest learners' clock starts when they do, not with the attack
                results = list(pool.map(lambda n: learner(room.student(n), t0, args.slider_seconds, start_line,
                                                          args.startup_only, args.bursts, args.keep_kernels), honest))
                stop.set()
                attack_results = [a.result() for a in attacks]
            sampler.stop.set()
            sampler.join()
    finally:
        for neighbour in neighbours:
            neighbour.kill()
            neighbour.wait()

    slider = np.array([t for r in results for t in r["slider"]]) * 1000
    burst = np.array([t for r in results for t in r.get("burst", [])]) * 1000
    finished = [r["finished"] for r in results if "finished" in r]
    ready = [r["server_ready"] for r in results if "server_ready" in r]
    answered = [r["start_answered_s"] for r in results if "start_answered_s" in r]
    ran = finished and not args.startup_only
    summary = {
        "students": args.students,
        "hostile": args.hostile,
        "slow": args.slow,
        "startup_only": args.startup_only,
        "kernels_kept_open": args.keep_kernels,
        "cores": os.cpu_count(),
        "servers_started": len(ready),
        "start_request_s_max": round(max(answered), 2) if answered else None,
        "server_ready_s_median": round(float(np.median(ready)), 1) if ready else None,
        "server_ready_s_max": round(max(ready), 1) if ready else None,
        "peak_machine_gb": round(sampler.peak_machine / 1e9, 2),
        "peak_above_idle_gb": round((sampler.peak_machine - baseline) / 1e9, 2),
        "per_student_pss_gb": round(float(np.mean(list(sampler.peak_user.values()))) / 1e9, 2),
        # at the end, every learner's server and two kernels alive and idle: what a class holds between runs
        "per_student_pss_at_rest_gb": round(float(np.mean([sum(k.values()) for k in sampler.last.values()])) / 1e9, 2),
        "server_pss_at_rest_mb": round(float(np.median([k["server"] for k in sampler.last.values()])) / 1e6),
        "kernels_pss_at_rest_mb": round(float(np.median([k["kernel"] for k in sampler.last.values()])) / 1e6),
        "all_runs_done_s": round(max(finished), 1) if len(finished) == len(results) else None,
        **{f"{kind}_{nb}_s_median": round(float(np.median([r[key] for r in results if key in r])), 1) if ran else None
           for nb in reversed([m.stem[:2] for m in real_models()]) for kind, key in (("run", nb), ("cpu", f"{nb}_cpu"))},
        "load_average_1min": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "slider_p50_ms": round(float(np.percentile(slider, 50)), 1) if slider.size else None,
        "slider_p95_ms": round(float(np.percentile(slider, 95)), 1) if slider.size else None,
        "slider_moves": int(slider.size),
        "burst_p50_ms": round(float(np.percentile(burst, 50)), 1) if burst.size else None,
        "burst_p95_ms": round(float(np.percentile(burst, 95)), 1) if burst.size else None,
        "burst_moves": int(burst.size),
        "explorer_live": sorted({r["explorer_live"] for r in results if "explorer_live" in r}),
        "kernels_lost": sum(r["lost"] for r in results),
        "errors": [f"{r['name']}: {r['error']}" for r in results if r["error"]],
        "attackers": [{k: v for k, v in a.items() if k != "hostile"} for a in attack_results],
    }
    summary["peak_gb"] = summary["peak_machine_gb"]
    summary["all_done_s"] = summary["all_runs_done_s"]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"benchmark-{args.students}.json").write_text(json.dumps({"summary": summary, "learners": results}, indent=1))
    results_file.parent.mkdir(parents=True, exist_ok=True)
    results_file.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"summary: {results_file}")
    if args.startup_only:
        print(f"{summary['servers_started']} of {args.students} servers started; start request answered within "
              f"{summary['start_request_s_max']} s; ready after {summary['server_ready_s_median']} s (median), "
              f"{summary['server_ready_s_max']} s (last)")
    else:
        print("| learners | peak memory (above idle) | per learner (PSS): peak / at rest (server + kernels) "
              "| all runs done | 09 / 07 median (kernel CPU) | slider p50 / p95 | kernels lost | load before / after |")
        print("|---|---|---|---|---|---|---|---|")
        print(f"| {summary['students']} | {summary['peak_machine_gb']} GB ({summary['peak_above_idle_gb']} GB) "
              f"| {summary['per_student_pss_gb']} GB / {summary['per_student_pss_at_rest_gb']} GB "
              f"({summary['server_pss_at_rest_mb']} + {summary['kernels_pss_at_rest_mb']} MB) | {summary['all_runs_done_s']} s "
              f"| {summary['run_09_s_median']} s / {summary['run_07_s_median']} s "
              f"({summary['cpu_09_s_median']} s / {summary['cpu_07_s_median']} s) "
              f"| {summary['slider_p50_ms']} / {summary['slider_p95_ms']} ms (burst p95 {summary['burst_p95_ms']} ms) "
              f"| {summary['kernels_lost']} "
              f"| {summary['load_average_1min'][0]} / {summary['load_average_1min'][1]} |")
    for error in summary["errors"]:
        print("error:", error)
    return 1 if summary["kernels_lost"] or summary["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
