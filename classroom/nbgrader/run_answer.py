"""What runs inside the grading sandbox: one answer of one submission, and nothing else of it.

Started by ``classroom/grading.py`` through ``classroom/nbgrader/sandbox-run`` as
``python -I -c <this file's text>`` (isolated: no working folder, no PYTHONPATH, no user site on the
path), as the sandbox account, in a root of its own that holds the system's programs, the course
environment without the toolkit, and an empty private folder. It reads one JSON request on stdin:

* ``{"kind": "function", "source": ..., "name": ..., "toolkit": {name: qualified}, "cases": [...]}``:
  runs ``source`` (the learner's function and the imports of its cell) in a fresh namespace holding
  numpy as ``np`` and, for every toolkit name the notebook imports, a stand-in that reports the call,
  then calls the function on each case in turn;
* ``{"kind": "answer", "source": ..., "toolkit": {...}}``: evaluates the answer's expression there.

and writes one JSON line per result to the descriptor it was given as stdout (its own stdout and
stderr go nowhere). An import of the toolkit (``shared``) is refused by an audit hook, which no code
can remove, and reported; so is a call of a stand-in. The grader compares the results with the
reference outside: nothing here knows what the right result is.
"""

import base64
import builtins
import json
import os
import sys

OUT = os.dup(1)
_null = os.open(os.devnull, os.O_WRONLY)
os.dup2(_null, 1)
os.dup2(_null, 2)
MAX_VALUES = 10_000_000


def emit(record):
    os.write(OUT, (json.dumps(record) + "\n").encode())


#: Where the toolkit would be (an empty folder in the sandbox): looking there is using it.
TOOLKIT_DIRS = tuple(os.path.join(p, "shared") for p in sys.path if p.endswith("site-packages"))


def audit(event, args):
    if event in ("open", "os.listdir", "os.scandir") and args and isinstance(args[0], (str, bytes)):
        path = os.fsdecode(args[0])
        if path.startswith(TOOLKIT_DIRS):
            emit({"toolkit": "shared"})
            raise PermissionError(f"{path}: the toolkit is not available to a graded function")
    if event == "import" and isinstance(args[0], str) and (args[0] == "shared" or args[0].startswith("shared.")):
        emit({"toolkit": args[0]})
        raise ImportError(f"{args[0]}: the toolkit is not available to a graded function")
    if event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                 "os.forkpty", "pty.spawn") or event.startswith("ctypes."):
        raise PermissionError(f"{event}: not available to a graded function")


import numpy as np  # noqa: E402 (before the hook: numpy loads ctypes, which the hook then refuses to use)

sys.addaudithook(audit)

request = json.loads(sys.stdin.read())


class _Toolkit:
    """A stand-in for a toolkit function or module the notebook imports: using it is reported."""

    def __init__(self, name):
        self._name = name

    def __call__(self, *args, **kwargs):
        emit({"toolkit": self._name})
        raise RuntimeError(f"{self._name}: the toolkit is not available to a graded function")

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Toolkit(f"{self._name}.{attr}")


def namespace():
    space = {"__name__": "__main__", "__builtins__": builtins, "np": np}
    for name, qualified in request["toolkit"].items():
        space[name] = _Toolkit(qualified)
    return space


def decode(value):
    if isinstance(value, dict) and "array" in value:
        data = np.frombuffer(base64.b64decode(value["array"]), dtype=value["dtype"]).reshape(value["shape"])
        return data.copy()
    return value


def exception(case, error):
    name = type(error).__name__
    emit({"case": case, "raised": name if name.isidentifier() else "Exception", "message": str(error)[:400]})


def result(case, got):
    if got is None:
        return emit({"case": case, "none": True})
    try:
        arr = np.asarray(got, dtype=float)
    except Exception:
        arr = None
    if arr is None or arr.size > MAX_VALUES:
        name = type(got).__name__
        return emit({"case": case, "type": name if name.isidentifier() else "object"})
    arr = np.asarray(arr, dtype="<f8")
    emit({"case": case, "shape": list(arr.shape), "data": base64.b64encode(arr.tobytes()).decode()})


if request["kind"] == "function":
    space = namespace()
    try:
        exec(compile(request["source"], "<your cell>", "exec"), space)
        fn = space[request["name"]]
    except Exception as error:
        exception(-1, error)
        raise SystemExit(0)
    for case, encoded in enumerate(request["cases"]):
        kwargs = {k: decode(v) for k, v in encoded.items()}
        kept = {k: v.copy() for k, v in kwargs.items() if isinstance(v, np.ndarray)}
        try:
            got = fn(**kwargs)
        except BaseException as error:  # noqa: BLE001 (the learner's code: whatever it raised, by case)
            exception(case, error)
            continue
        if any(not np.array_equal(v, kwargs[k], equal_nan=True) for k, v in kept.items()):
            emit({"case": case, "changed": True})
        result(case, got)
else:
    space = namespace()
    try:
        value = eval(compile(request["source"], "<your answer>", "eval"), space)
    except BaseException as error:  # noqa: BLE001
        exception(-1, error)
        raise SystemExit(0)
    if isinstance(value, str):
        emit({"text": value[:400]})
    elif isinstance(value, (bool, np.bool_)) or value is None:
        emit({"type": type(value).__name__})
    else:
        try:
            emit({"number": float(value)})
        except Exception:
            name = type(value).__name__
            emit({"type": name if name.isidentifier() else "object"})
emit({"done": True})
