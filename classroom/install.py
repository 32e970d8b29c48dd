"""What every learner's server runs and reads, installed once, owned by root, readable by all.

Under the prefix (``/opt/isotropy`` by default):

- ``venv/``: the course's environment, from the lock (``uv sync --frozen --no-editable``, so the
  toolkit ``shared`` is installed into it, not linked to this clone), built on an interpreter that
  every account can run (not one under root's home), with its bytecode compiled (the learners cannot
  write it there, and a kernel that compiles its imports on each start pays about a second more);
- ``course/``: the notebooks and the theory they link to, copied into each learner's home at the
  first start of their server (files they have are never replaced);
- ``store/``: the study store, filled once here and read by every kernel (``ISOTROPY_STORE``);
- ``bin/start-server``: what the hub runs, as the learner, for each server (it also records the
  course's notebooks as trusted in the learner's own signature database, so their stored widgets
  are drawn, and the predictions hide their answers, before any cell runs);
- ``learner-config/``: Jupyter configuration that only the learners' servers read (the spawner puts
  it on their ``JUPYTER_CONFIG_PATH``): nbgrader's teacher's views off;
- ``hub/``: the hub's own state (database, cookie secret, password hashes, the credentials to
  hand out), mode 0700.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COURSE_FILES = ("notebooks", "research")

START_SERVER = """#!/bin/sh
# Runs as the learner. Hand out the course (never replacing a file the learner has), then start
# their JupyterLab from the shared environment.
set -eu
umask 077
mkdir -p "$HOME/isotropy"
cp -R -n "{course}/." "$HOME/isotropy/"
# Trust the course's notebooks, as handed out, in the learner's own signature database (under their
# home): JupyterLab then draws the widgets stored in a notebook at once, so each prediction hides its
# answer before any cell runs. Only the course's own copies are signed (what the learner has changed
# is theirs to trust), once per install of the course (it costs about 1.4 s of CPU).
marker="$HOME/isotropy/.course-trusted"
if [ ! "$marker" -nt "{course}" ]; then
    if "{venv}/bin/jupyter" trust "{course}/notebooks/"*.ipynb >/dev/null; then
        touch "$marker"
    else
        echo "start-server: could not trust the course's notebooks; answers show until the widgets run" >&2
    fi
fi
cd "$HOME/isotropy"
exec "{venv}/bin/jupyterhub-singleuser" "$@"
"""


# nbgrader's parts that are the teacher's (@jupyter/nbgrader 0.9): its JupyterLab plugins Formgrader, Course
# List and Create Assignment, and the server extensions behind the first two. Learners keep the Assignment
# List (fetch and submit), the Validate button and the Nbgrader menu that holds them.
TEACHER_PLUGINS = ("@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:course-list", "@jupyter/nbgrader:create-assignment")
TEACHER_SERVER_EXTENSIONS = ("nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list")


# The install step, shared with the Kubernetes image (classroom/k8s/Dockerfile runs the same command).
UV_SYNC = ["uv", "sync", "--frozen", "--no-editable", "--no-dev", "--group", "classroom", "--compile-bytecode"]


def _world_usable(path: Path) -> bool:
    """Whether any account can run/read ``path``: every directory above it searchable by others."""
    path = path.resolve()
    if not path.exists() or not path.stat().st_mode & stat.S_IROTH:
        return False
    return all(parent.stat().st_mode & stat.S_IXOTH for parent in path.parents)


def shared_python() -> Path:
    """A Python 3.11+ that every account can run (uv's or pyenv's under /root is not one)."""
    candidates = [Path(p) for p in ("/usr/bin/python3", "/usr/local/bin/python3")] + [Path(sys.executable)]
    for candidate in candidates:
        if not candidate.exists() or not _world_usable(candidate):
            continue
        version = subprocess.run([str(candidate), "-c", "import sys; print(sys.version_info >= (3, 11))"],
                                 capture_output=True, text=True)
        if version.stdout.strip() == "True":
            return candidate
    raise RuntimeError("no Python 3.11+ that every account can run: install the system's python3 "
                       "(e.g. apt-get install python3) or give --python a path outside any private home")


def make_readable(path: Path) -> None:
    """Owned by root, readable (and directories searchable) by all, writable by nobody else."""
    for current, dirs, files in os.walk(path):
        for name in dirs + files:
            p = Path(current) / name
            if p.is_symlink():
                continue
            mode = p.stat().st_mode
            wanted = (mode | stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH) & ~(stat.S_IWGRP | stat.S_IWOTH)
            if p.is_dir() or mode & stat.S_IXUSR:
                wanted |= stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH
            if wanted != mode:
                os.chmod(p, stat.S_IMODE(wanted))
    os.chmod(path, 0o755)


def safe_kernel_spec(venv: Path) -> Path:
    """Make the environment's Python kernel (``python3``, the one every notebook names) start Python
    with a safe path (``-P``): nothing is imported from the notebook's folder, so a file a learner left
    there (``numpy.py``, ``ipykernel_launcher.py``, ``shared/``) never runs in the kernel of whoever
    opens the notebook, the teacher included. The toolkit is installed in the environment, so the
    course still imports it. The file is written anew and renamed over the old one: the environment's
    files are hard links into uv's cache, and an edit in place would change every environment."""
    spec = venv / "share" / "jupyter" / "kernels" / "python3" / "kernel.json"
    spec.parent.mkdir(parents=True, exist_ok=True)
    kernel = json.loads(spec.read_text()) if spec.exists() else {
        "display_name": "Python 3 (ipykernel)", "language": "python", "metadata": {"debugger": True}}
    kernel["argv"] = [str(venv / "bin" / "python"), "-P", "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    _write_json(spec, kernel)
    return spec


def _write_json(path: Path, content: object) -> None:
    """``content`` as JSON at ``path``, readable by all, written anew and renamed over the old file
    (never edited in place: an environment's files may be hard links into uv's cache)."""
    fresh = path.with_name(f".{path.name}.{os.getpid()}")
    fresh.write_text(json.dumps(content, indent=1) + "\n")
    os.chmod(fresh, 0o644)
    os.replace(fresh, path)


def installed_toolkit_is_the_checkout(venv: Path) -> None:
    """A ``RuntimeError`` naming the first file of the toolkit (``shared/``) that the environment at
    ``venv`` holds differently from this checkout: an install must never run a previous toolkit (a
    wheel uv kept in its cache, say) against this course's notebooks."""
    ours = ROOT / "shared"
    theirs = next(venv.glob("lib/python3*/site-packages/shared"), None)
    if theirs is None:
        raise RuntimeError(f"{venv} holds no toolkit (shared/)")
    for path in sorted(ours.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            other = theirs / path.relative_to(ours)
            if not other.is_file() or other.read_bytes() != path.read_bytes():
                raise RuntimeError(f"{venv} holds another {path.relative_to(ROOT)} than this checkout: its toolkit is "
                                   "out of date (uv's cache?); `uv cache clean isotropy-anisotropy` and install again")


def install_environment(prefix: Path, python: Path | None = None) -> Path:
    """The course's environment at ``prefix/venv`` from uv.lock, its kernel on a safe path; returns its path."""
    venv = prefix / "venv"
    uv = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))
    env = dict(os.environ, UV_PROJECT_ENVIRONMENT=str(venv))
    subprocess.run([uv, *UV_SYNC[1:], "--python", str(python or shared_python())], cwd=ROOT, env=env, check=True)
    installed_toolkit_is_the_checkout(venv)
    safe_kernel_spec(venv)
    make_readable(venv)
    return venv


def write_learner_config(prefix: Path) -> Path:
    """``prefix/learner-config``, a Jupyter configuration folder for the learners' servers only: the
    teacher's nbgrader plugins disabled in JupyterLab (``labconfig/page_config.json``, so a learner's
    page shows no Formgrader, Course List or Create Assignment) and their server extensions off (their
    pages answer 404). The teachers' servers do not read it. Returns the folder."""
    folder = prefix / "learner-config"
    (folder / "labconfig").mkdir(parents=True, exist_ok=True)
    files = {
        folder / "labconfig" / "page_config.json": {"disabledExtensions": dict.fromkeys(TEACHER_PLUGINS, True)},
        folder / "jupyter_server_config.json": {
            "ServerApp": {"jpserver_extensions": dict.fromkeys(TEACHER_SERVER_EXTENSIONS, False)}},
    }
    for path, content in files.items():
        _write_json(path, content)
    make_readable(folder)
    return folder


def install_course(prefix: Path) -> Path:
    """A fresh read-only copy of the notebooks and the theory at ``prefix/course``; returns it."""
    course = prefix / "course"
    staging = prefix / "course.new"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    for name in COURSE_FILES:
        shutil.copytree(ROOT / name, staging / name,
                        ignore=shutil.ignore_patterns("*.py", ".ipynb_checkpoints", "__pycache__"))
    make_readable(staging)
    shutil.rmtree(course, ignore_errors=True)
    staging.rename(course)
    return course


def model_notebooks(python: Path) -> list[str] | None:
    """The notebooks of the real models (their records, ``shared.real.models``) of the toolkit that
    ``python`` runs; None when that version of the toolkit has no study store."""
    # cwd="/": `python -m` puts the working folder first on sys.path, and a clone's shared/ there would
    # stand in for the environment's own copy
    found = subprocess.run([str(python), "-c", "from shared.real.models import real_models; "
                            "print(*(m.notebook for m in real_models()))"], capture_output=True, text=True, cwd="/")
    return found.stdout.split() if found.returncode == 0 else None


def fill_store(store: Path, venv: Path, course: Path) -> Path | None:
    """The study store at ``store``, filled by the course's own command (entries already there and
    valid are kept); None when this version of the toolkit has no store (each kernel then computes
    what it needs)."""
    notebooks = model_notebooks(venv / "bin" / "python")
    if notebooks is None:
        print("classroom: this version of the toolkit has no study store; every kernel computes its own results")
        return None
    store.mkdir(parents=True, exist_ok=True)
    info = store.stat()
    if info.st_uid != 0 or info.st_mode & 0o022:
        # every kernel trusts what it reads there: a folder someone else owns or can write is refused
        raise PermissionError(f"{store}: the study store must be root's and writable by root only "
                              f"(owner uid {info.st_uid}, mode {oct(info.st_mode & 0o777)})")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    # the build runs the real models' notebooks (their records, shared.real.models) and those whose
    # explorers keep frames, from the course copy, each once in a kernel of the shared environment: whatever
    # else they read is stored too, with every explorer's frames (so a slider move is a swap in the page)
    subprocess.run([str(venv / "bin" / "python"), "-m", "shared.real.build", "--dir", str(store),
                    "--notebooks", str(course / "notebooks")], env=env, check=True, cwd="/")
    make_readable(store)
    return store


def write_start_script(prefix: Path, venv: Path, course: Path) -> Path:
    script = prefix / "bin" / "start-server"
    script.parent.mkdir(exist_ok=True)
    script.write_text(START_SERVER.format(course=course, venv=venv))
    os.chmod(script, 0o755)
    os.chmod(script.parent, 0o755)
    return script
