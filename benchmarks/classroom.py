"""A class on one machine, simulated: N learners log in, run notebooks 09 and 07, then move a slider.

Run as root (it creates N accounts, removed at the end) with
``sudo uv run --group classroom python benchmarks/classroom.py --students 10``. It starts the class
server (``python -m classroom serve``) on 127.0.0.1 in a temporary folder; every learner, in a
thread of their own and at the same moment, logs in through the hub's form, asks for a token,
starts their server, runs notebook 09 top to bottom in one kernel and then 07 in another (both
kept open, as a learner leaves them), and then, once a second for ``--slider-seconds``, moves the
first slider of 07's explorer through the kernel (the request the browser's slider sends, executed
in the kernel: the explorer's callback recomputes and redraws) and times the reply.

Reported: the machine's peak memory in use (MemTotal - MemAvailable, sampled every half second)
above what it used before the hub started; memory per learner (the proportional set size, shared
pages counted once, of all their processes, at its peak, and at the end with the server and both
kernels idle, split into the server and the kernels); the time from the first log-in until
every learner's two notebooks have run; the slider reply times' p50 and p95 over the class; and
the kernels lost (a notebook that failed, or a kernel dead at the end). Bounded: every step has a
timeout, and the whole class is stopped and its accounts removed even after an error.

The study store lives in ``--store`` (default ``/var/tmp/isotropy-store``) and is kept between
runs, so a second run measures a warm store (the first fills it: minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from classroom.student import Kernel, Student  # noqa: E402
from classroom.trial import trial_class  # noqa: E402
from shared.real.models import real_models  # noqa: E402

EXPLORER = """
import gc
from shared.explorers import Explorer
_explorer = [o for o in gc.get_objects() if isinstance(o, Explorer)][-1]
_control = list(_explorer.controls.values())[0]
if hasattr(_control, "options"):
    _values = list(_control.options)
else:
    import numpy as _np
    _values = [type(_control.value)(v) for v in _np.linspace(_control.min, _control.max, 8)]
_step = [0]
def _move():
    _step[0] += 1
    _control.value = _values[_step[0] % len(_values)]
"""


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


def learner(student: Student, t0: float, slider_seconds: int, start_line: threading.Barrier) -> dict:
    result: dict = {"name": student.name, "lost": 0, "slider": [], "error": ""}
    kernels: list[Kernel] = []
    try:
        if not student.log_in():
            raise RuntimeError("log-in refused")
        student.get_token()
        student.start_server(timeout=600)
        result["server_ready"] = time.perf_counter() - t0
        for notebook in reversed([m.notebook for m in real_models()]):  # 07's explorer is moved last
            kernel = student.kernel(f"notebooks/{notebook}")
            kernels.append(kernel)
            start = time.perf_counter()
            kernel.run_notebook(ROOT / "notebooks" / notebook, timeout=900)
            result[notebook[:2]] = time.perf_counter() - start
            cpu = kernel.execute("import time as _time; print(_time.process_time())", timeout=60)
            result[f"{notebook[:2]}_cpu"] = float(cpu.stdout)  # the kernel's own CPU seconds (load-independent)
        result["finished"] = time.perf_counter() - t0
        kernels[-1].execute(EXPLORER, timeout=60)
    except Exception as error:  # noqa: BLE001 (a failed learner is counted, the class goes on)
        result["error"] = f"{type(error).__name__}: {error}"[:300]
        result["lost"] = 1
    start_line.wait(timeout=3600)  # the sliders move while the whole class is there
    if not result["lost"]:
        try:
            for tick in range(slider_seconds):
                due = time.perf_counter() + 1
                reply = kernels[-1].execute("_move()", timeout=30)
                if reply.status != "ok":
                    raise RuntimeError(f"slider move {tick}: {reply.error}")
                result["slider"].append(reply.seconds)
                time.sleep(max(0.0, due - time.perf_counter()))
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
    parser.add_argument("--store", type=Path, default=Path("/var/tmp/isotropy-store"))
    parser.add_argument("--memory", default="3G", help="each learner process's address-space limit")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "classroom")
    args = parser.parse_args()
    if not 1 <= args.students <= 60:
        parser.error("--students: from 1 to 60")

    baseline, load_before = machine_used(), os.getloadavg()[0]
    with trial_class(args.students, ["--store", str(args.store), "--memory", args.memory]) as room:
        uids = {pwd.getpwnam(name).pw_uid for name in room.students}
        sampler = Sampler(uids)
        sampler.start()
        start_line = threading.Barrier(args.students)
        t0 = time.perf_counter()
        with ThreadPoolExecutor(args.students) as pool:
            results = list(pool.map(lambda n: learner(room.student(n), t0, args.slider_seconds, start_line), room.students))
        sampler.stop.set()
        sampler.join()

    slider = np.array([t for r in results for t in r["slider"]]) * 1000
    finished = [r["finished"] for r in results if "finished" in r]
    summary = {
        "students": args.students,
        "cores": os.cpu_count(),
        "peak_machine_gb": round(sampler.peak_machine / 1e9, 2),
        "peak_above_idle_gb": round((sampler.peak_machine - baseline) / 1e9, 2),
        "per_student_pss_gb": round(float(np.mean(list(sampler.peak_user.values()))) / 1e9, 2),
        # at the end, every learner's server and two kernels alive and idle: what a class holds between runs
        "per_student_pss_at_rest_gb": round(float(np.mean([sum(k.values()) for k in sampler.last.values()])) / 1e9, 2),
        "server_pss_at_rest_mb": round(float(np.median([k["server"] for k in sampler.last.values()])) / 1e6),
        "kernels_pss_at_rest_mb": round(float(np.median([k["kernel"] for k in sampler.last.values()])) / 1e6),
        "all_runs_done_s": round(max(finished), 1) if len(finished) == len(results) else None,
        **{f"{kind}_{nb}_s_median": round(float(np.median([r[key] for r in results if key in r])), 1) if finished else None
           for nb in reversed([m.stem[:2] for m in real_models()]) for kind, key in (("run", nb), ("cpu", f"{nb}_cpu"))},
        "load_average_1min": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "slider_p50_ms": round(float(np.percentile(slider, 50)), 1) if slider.size else None,
        "slider_p95_ms": round(float(np.percentile(slider, 95)), 1) if slider.size else None,
        "slider_moves": int(slider.size),
        "kernels_lost": sum(r["lost"] for r in results),
        "errors": [f"{r['name']}: {r['error']}" for r in results if r["error"]],
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"benchmark-{args.students}.json").write_text(json.dumps({"summary": summary, "learners": results}, indent=1))
    print("| learners | peak memory (above idle) | per learner (PSS): peak / at rest (server + 2 kernels) "
          "| all runs done | 09 / 07 median (kernel CPU) | slider p50 / p95 | kernels lost | load before / after |")
    print("|---|---|---|---|---|---|---|---|")
    print(f"| {summary['students']} | {summary['peak_machine_gb']} GB ({summary['peak_above_idle_gb']} GB) "
          f"| {summary['per_student_pss_gb']} GB / {summary['per_student_pss_at_rest_gb']} GB "
          f"({summary['server_pss_at_rest_mb']} + {summary['kernels_pss_at_rest_mb']} MB) | {summary['all_runs_done_s']} s "
          f"| {summary['run_09_s_median']} s / {summary['run_07_s_median']} s "
          f"({summary['cpu_09_s_median']} s / {summary['cpu_07_s_median']} s) "
          f"| {summary['slider_p50_ms']} / {summary['slider_p95_ms']} ms | {summary['kernels_lost']} "
          f"| {summary['load_average_1min'][0]} / {summary['load_average_1min'][1]} |")
    for error in summary["errors"]:
        print("error:", error)
    return 1 if summary["kernels_lost"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
