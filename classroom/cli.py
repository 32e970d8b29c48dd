"""``python -m classroom``: serve the course to a class, reset a password, remove the accounts.

::

    sudo uv run --group classroom python -m classroom serve --roster roster.csv
    sudo uv run --group classroom python -m classroom password alan
    sudo uv run --group classroom python -m classroom remove
    uv run --group classroom python -m classroom credentials --roster roster.csv --out secrets/   # Kubernetes

``serve`` is idempotent: run again (after a ``git pull``, say) it updates the shared environment and
the course files, keeps every account, password and learner's file, and starts the hub.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pwd
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from classroom import accounts, install, limits
from classroom.roster import read_roster
from classroom.settings import SETTINGS

ROOT = Path(__file__).resolve().parent.parent


def _bytes(text: str) -> int:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?", text.strip(), re.IGNORECASE)
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size such as 3G or 2500M")
    return int(float(match[1]) * 1024 ** " KMGT".index(match[2].upper() or " "))


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _need_root() -> None:
    if os.geteuid() != 0:
        raise SystemExit("classroom: run this as root (it creates accounts and runs each server as its learner)")


def _state(prefix: Path) -> Path:
    state = prefix / "hub"
    state.mkdir(parents=True, exist_ok=True)
    os.chmod(state, 0o700)
    return state


def setup(args: argparse.Namespace) -> Path:
    """Everything but starting the hub; returns the settings file."""
    _need_root()
    members = read_roster(args.roster)
    prefix = args.prefix.resolve()
    # (the store may lie there: it is bound back into each learner's private folder, read-only)
    for path, option in [(prefix, "--prefix"), (args.home_base.resolve(), "--home-base")]:
        if args.tmp_size and any(path.is_relative_to(hidden) for hidden in limits.PRIVATE):
            raise ValueError(f"{option} {path}: each learner's server gets a private {', '.join(limits.PRIVATE)} "
                             "of its own, which would hide it; choose a folder elsewhere (or --tmp-size 0)")
    prefix.mkdir(parents=True, exist_ok=True)
    os.chmod(prefix, 0o755)
    state = _state(prefix)
    print(f"classroom: the course's environment in {prefix / 'venv'}", flush=True)
    venv = install.install_environment(prefix, args.python)
    course = install.install_course(prefix)
    start = install.write_start_script(prefix, venv, course)
    learner_config = install.write_learner_config(prefix)
    args.home_base.mkdir(parents=True, exist_ok=True)
    os.chmod(args.home_base, 0o755)
    created = accounts.create_users(members, state, args.home_base.resolve())
    if args.home_size:
        cap_homes([m.name for m in members if not m.teacher], state, prefix / "homes", args.home_size, created)
    remount_exchanges(prefix)  # after a reboot: the exchange made by scripts/make_assignments.py
    remount_inboxes(prefix, [m.name for m in members if not m.teacher])  # and its learners' folders, new ones too
    warn_if_images_outgrow_the_disk(prefix)
    fresh = accounts.issue_passwords(members, state)
    print(f"classroom: {len(members)} accounts ({len(created)} new), {len(fresh)} new passwords in "
          f"{state / 'credentials.csv'} (root only: hand each learner theirs)", flush=True)
    runtime_root = prefix / "run"
    runtime_root.mkdir(exist_ok=True)
    os.chmod(runtime_root, 0o755)
    store = None if args.no_store else install.fill_store((args.store or prefix / "store").resolve(), venv, course)
    settings = {
        "prefix": str(prefix), "state": str(state), "venv": str(venv), "course": str(course),
        "store": str(store) if store else None, "start_script": str(start), "runtime_root": str(runtime_root),
        "learner_config": str(learner_config),
        "members": [m.name for m in members], "teachers": [m.name for m in members if m.teacher],
        "ip": args.ip, "port": args.port, "hub_port": free_port(), "proxy_api_port": free_port(),
        "class_view_port": free_port(),
        "address_space": args.memory, "learner_memory": args.learner_memory, "tmp_size": args.tmp_size,
        "max_processes": 256, "idle_timeout": args.idle_timeout,
        "ssl_key": str(args.ssl_key) if args.ssl_key else None, "ssl_cert": str(args.ssl_cert) if args.ssl_cert else None,
    }
    path = state / "classroom.json"
    path.write_text(json.dumps(settings, indent=1))
    os.chmod(path, 0o600)
    return path


def cap_homes(learners: list[str], state: Path, images: Path, size: int, fresh: Iterable[str] = ()) -> None:
    """Each learner's home that this class server made on a file system of ``size`` bytes of its own
    (:func:`classroom.limits.capped_folder`; the images in ``images``, root's). An account that was there
    before the class is left as it is. A home is first copied into its image only when this ``serve``
    made it (``fresh``: it holds what root put there, and its learner has no password yet) and its
    learner runs nothing: root never copies a tree a learner could have written (``mkfs.ext4 -d``
    follows a link swapped in during the copy, and breaks on some deep trees of long names). A home
    made before its cap stays on the machine's disk, and this says so; an image made before is
    mounted again."""
    images.mkdir(exist_ok=True)
    os.chmod(images, 0o700)
    fresh = set(fresh)
    for name in sorted(set(learners) & set(accounts.created_users(state))):
        user = pwd.getpwnam(name)
        home, image = Path(user.pw_dir), images / f"{name}.img"
        if image.exists():
            reason = limits.capped_folder(home, image, size, user.pw_uid, user.pw_gid)
        elif name not in fresh:
            reason = ("it was made before homes were capped and holds what they wrote, which root does not copy; "
                      "`--home-size 0` says this is meant, or remove the account after saving its files")
        else:
            reason = _running(user.pw_uid) or limits.capped_folder(home, image, size, user.pw_uid, user.pw_gid,
                                                                  refuse=lambda uid=user.pw_uid: _running(uid))
        if reason:
            print(f"classroom: {name}'s home is left on the machine's disk ({reason})", flush=True)
    print(f"classroom: each learner's home holds at most {size / 1024**2:.0f} MiB (a file system of its own, "
          f"images in {images})", flush=True)


def _running(uid: int) -> str | None:
    running = limits.processes_of(uid)
    return f"{len(running)} processes of theirs are running: {', '.join(map(str, running[:5]))}" if running else None


EXCHANGE_IMAGES = "exchange-images"
#: the mode of the exchange's top folder made by root: root's, and no learner writes it (nbgrader's layout
#: has everyone write it, 1777, so that one learner could fill it and hold up the teacher's releases);
#: learners submit into their own folders (:func:`make_inboxes`) and read the rest
#: (``classroom/nbgrader/learner_exchange.py``)
EXCHANGE_MODE = 0o755


def cap_exchange(exchange: Path, prefix: Path, size: int) -> None:
    """The nbgrader exchange ``exchange`` on a file system of ``size`` bytes of its own
    (:func:`classroom.limits.capped_folder`: root's, mode :data:`EXCHANGE_MODE`), so that what is put
    there (releases, feedback, the learners' submission folders when they are not capped) fills that file
    system, not the machine's disk. The image, with a note of where it is mounted, goes into
    ``prefix/exchange-images`` (root's), where ``serve`` finds it to mount it again after a reboot and
    ``remove --everything`` to delete it. The size is the one of the first call."""
    exchange = Path(os.path.abspath(exchange))
    info = os.lstat(exchange)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0:  # a link or someone else's: its files are not to be moved
        raise ValueError(f"{exchange}: not a folder of root's (a link, or made by uid {info.st_uid}): remove it and "
                         "run this again")
    image = exchange_image(exchange, prefix)
    image.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(image.parent, 0o700)
    note = image.with_suffix(".json")
    if os.path.ismount(exchange) and not image.exists():
        print(f"classroom: {exchange} is a file system of its own already: left as it is", flush=True)
        return
    if not image.exists() and not os.path.ismount(exchange) and os.listdir(exchange):
        # what learners put there would be copied by root into the image (mkfs.ext4 -d follows a link
        # swapped in during the copy): an exchange is capped when it is made, empty
        print(f"classroom: {exchange} holds files already, so it is not put on a file system of its own (it is "
              "capped only when made empty: remove it, once its submissions are collected, and run this again)",
              flush=True)
        return
    if note.exists() and (made := json.loads(note.read_text())["size"]) != size:
        print(f"classroom: the exchange keeps the size it was made with, {made / 1024**2:.0f} MiB", flush=True)
        size = made
    fresh = note.with_name(note.name + ".new")
    fresh.write_text(json.dumps({"folder": str(exchange), "size": size}))
    os.chmod(fresh, 0o600)
    os.replace(fresh, note)
    limits.capped_folder(exchange, image, size, 0, 0, EXCHANGE_MODE)
    print(f"classroom: the exchange {exchange} holds at most {size / 1024**2:.0f} MiB (a file system of its "
          f"own, its image {image})", flush=True)


def exchange_image(exchange: Path, prefix: Path) -> Path:
    """Where :func:`cap_exchange` keeps the image of ``exchange``."""
    return prefix / EXCHANGE_IMAGES / ("-".join(Path(os.path.abspath(exchange)).parts[1:]) + ".img")


def _exchanges(prefix: Path) -> list[tuple[Path, Path, int]]:
    """The exchanges :func:`cap_exchange` capped under ``prefix``: (folder, image, size)."""
    found = []
    for note in sorted((prefix / EXCHANGE_IMAGES).glob("*.json")):
        made = json.loads(note.read_text())
        found.append((Path(made["folder"]), note.with_suffix(".img"), made["size"]))
    return found


def remount_exchanges(prefix: Path) -> None:
    """Mount again each exchange :func:`cap_exchange` capped (after a reboot; nothing while mounted)."""
    for folder, image, size in _exchanges(prefix):
        if folder.is_dir() and not folder.is_symlink():
            limits.capped_folder(folder, image, size, 0, 0, EXCHANGE_MODE)


def release_exchanges(prefix: Path) -> None:
    """Unmount each exchange :func:`cap_exchange` capped and delete its image and note (the learners'
    folders in it first, :func:`release_inboxes`)."""
    release_inboxes(prefix)
    for folder, image, _ in _exchanges(prefix):
        limits.release_folder(folder, image)
        image.with_suffix(".json").unlink()


INBOX_IMAGES = "inbox-images"


def make_inboxes(inbound: Path, prefix: Path, size: int, learners: Iterable[str]) -> None:
    """Each learner's own folder ``inbound/NAME/``, where their ``nbgrader submit`` writes
    (``classroom/nbgrader/learner_exchange.py``) and collect takes from (``OwnedCollect``): made by root in
    ``inbound`` (root's, mode 0711, which no learner writes or lists), owned by the learner, mode 0700,
    and with ``size`` on a file system of its own (:func:`classroom.limits.capped_folder`, an image in
    ``prefix/inbox-images``): a learner who fills theirs gets "No space left on device" there, and every
    other learner still submits. ``size`` 0: plain folders, on the exchange's file system. A folder is
    capped only when root made it here, empty (nothing a learner wrote is copied by root); one that is
    anything else is left as it is, and this says so. The size is the one of the first call; a later
    call makes the folders of new learners and mounts the images again (after a reboot)."""
    inbound = Path(os.path.abspath(inbound))
    info = os.lstat(inbound)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0:
        raise ValueError(f"{inbound}: not a folder of root's (a link, or made by uid {info.st_uid})")
    os.chmod(inbound, 0o711)  # nobody but root writes or lists it: each learner's folder is their only way in
    images = prefix / INBOX_IMAGES / "-".join(inbound.parts[1:])
    note = images.with_name(images.name + ".json")
    images.mkdir(parents=True, exist_ok=True)
    if note.exists():
        size = json.loads(note.read_text())["size"]
    else:
        os.chmod(images.parent, 0o700)
        fresh = note.with_name(note.name + ".new")
        fresh.write_text(json.dumps({"inbound": str(inbound), "size": size}))
        os.chmod(fresh, 0o600)
        os.replace(fresh, note)
    for name in sorted(set(learners)):
        try:
            user = pwd.getpwnam(name)
        except KeyError:
            continue
        try:  # one folder that cannot be made (the exchange filled by a learner, say) stops no other, nor serve
            _make_inbox(inbound / name, images / f"{name}.img", size, user)
        except OSError as error:
            print(f"classroom: no submission folder for {name} in {inbound}: {error}", flush=True)
    what = f"a file system of {size / 1024**2:.0f} MiB of its own" if size else "a plain folder"
    print(f"classroom: each learner submits into their own folder of {inbound}, {what}", flush=True)


def _make_inbox(folder: Path, image: Path, size: int, user: pwd.struct_passwd) -> None:
    """One learner's folder of :func:`make_inboxes`."""
    name = user.pw_name
    if not os.path.lexists(folder):
        folder.mkdir(mode=0o700)
    found = os.lstat(folder)
    if not image.exists() and not os.path.ismount(folder) and (
            not stat.S_ISDIR(found.st_mode) or found.st_uid != 0 or os.listdir(folder)):
        if stat.S_ISDIR(found.st_mode) and (found.st_uid, stat.S_IMODE(found.st_mode)) == (user.pw_uid, 0o700) \
                and not size:
            return  # made here before, a plain folder
        print(f"classroom: {folder} was there before, not made by root for {name}: left as it is (remove it "
              "and run this again)", flush=True)
        return
    if size:
        limits.capped_folder(folder, image, size, user.pw_uid, user.pw_gid, 0o700)
    else:
        os.chown(folder, user.pw_uid, user.pw_gid)
        os.chmod(folder, 0o700)


def warn_if_images_outgrow_the_disk(prefix: Path) -> int:
    """Say so when the images of the capped folders under ``prefix`` (homes, exchanges, the learners'
    submission folders) may together grow past the free space of the disk they lie on: they are sparse,
    each taking what its folder holds, so a class that fills them all would fill the disk the hub, its
    database and logs need. Returns the bytes they may still grow by."""
    images = [*(prefix / "homes").glob("*.img"), *(prefix / EXCHANGE_IMAGES).glob("*.img"),
              *(prefix / INBOX_IMAGES).glob("*/*.img")]
    growth = 0
    for image in images:
        found = os.lstat(image)
        if stat.S_ISREG(found.st_mode):
            growth += max(0, found.st_size - 512 * found.st_blocks)
    free = shutil.disk_usage(prefix).free
    if growth > free:
        print(f"classroom: WARNING: the {len(images)} images of the capped folders under {prefix} may still grow by "
              f"{growth / 2**30:.1f} GiB, and the disk they lie on has {free / 2**30:.1f} GiB free: learners who "
              "fill their folders would fill it (choose smaller --home-size, --inbox-size or --exchange-size, or "
              "a larger disk)", flush=True)
    return growth


def _inboxes(prefix: Path) -> list[tuple[Path, Path, int]]:
    """The inbound folders :func:`make_inboxes` made learners' folders in: (inbound, images, size)."""
    found = []
    for note in sorted((prefix / INBOX_IMAGES).glob("*.json")):
        made = json.loads(note.read_text())
        found.append((Path(made["inbound"]), note.with_name(note.name.removesuffix(".json")), made["size"]))
    return found


def class_learners(prefix: Path) -> list[str]:
    """The learners (not the teachers) of the class server whose state is under ``prefix``, if any."""
    settings = prefix / "hub" / "classroom.json"
    if not settings.exists():
        return []
    made = json.loads(settings.read_text())
    return [name for name in made.get("members", []) if name not in made.get("teachers", [])]


def remount_inboxes(prefix: Path, learners: Iterable[str]) -> None:
    """:func:`make_inboxes` again in each inbound it made folders in (new learners, or after a reboot).
    An inbound, or its course folder, that is no longer root's (in an exchange learners may write, one
    made without root or opened again by hand, a learner can make the course's folder again once it is
    gone, or a link in its place) gets nothing, and this says so."""
    for inbound, _, size in _inboxes(prefix):
        if _still_roots(inbound, "no submission folder is made there"):
            make_inboxes(inbound, prefix, size, learners)


def _still_roots(inbound: Path, otherwise: str) -> bool:
    """Whether ``inbound`` and its course folder are still root's folders (no link): in an exchange
    learners may write (not :data:`EXCHANGE_MODE`), once the course's folder is gone a learner may make it
    again, or a link in its place. Otherwise, says so (unless the inbound is simply gone)."""
    if not os.path.lexists(inbound):
        return False
    try:
        held = [os.lstat(folder) for folder in (inbound.parent, inbound)]
    except OSError:
        held = []
    if len(held) == 2 and all(stat.S_ISDIR(info.st_mode) and info.st_uid == 0 for info in held):
        return True
    print(f"classroom: {inbound} (or its course folder) is not root's any more (a link, or made by another "
          f"account): {otherwise}", flush=True)
    return False


def release_inboxes(prefix: Path, learners: Iterable[str] | None = None) -> None:
    """Unmount each learner's folder :func:`make_inboxes` capped and delete the folder (what was
    submitted there goes with its image): those of ``learners`` (accounts removed: a later account
    given the same uid must not find their submissions), or all, with the images and notes."""
    for inbound, images, _ in _inboxes(prefix):
        names = sorted(image.stem for image in images.glob("*.img")) if learners is None else sorted(learners)
        held = _still_roots(inbound, "nothing is unmounted or deleted there")  # else only the images go
        for name in names:
            folder, image = inbound / name, images / f"{name}.img"
            if not held or folder.is_symlink() or not folder.is_dir():  # root follows no path a learner chose
                pass
            elif image.exists():
                limits.release_folder(folder, image)
                with contextlib.suppress(OSError):
                    folder.rmdir()
            elif learners is not None:  # a plain folder (--inbox-size 0): removed (no link is followed, nor
                # a mount crossed), however deep the learner made it (shutil.rmtree recurses: Python's limit)
                subprocess.run(["rm", "-rf", "--one-file-system", "--", str(folder)], capture_output=True)
            image.unlink(missing_ok=True)
        if learners is None:
            shutil.rmtree(images, ignore_errors=True)
            images.with_name(images.name + ".json").unlink()


def serve(args: argparse.Namespace) -> int:
    settings = setup(args)
    env = dict(os.environ, **{SETTINGS: str(settings)},
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    config = ROOT / "classroom" / "jupyterhub_config.py"
    scheme = "https" if args.ssl_cert else "http"
    print(f"classroom: JupyterHub on {scheme}://{args.ip}:{args.port}/ (Ctrl-C stops it and every server)", flush=True)
    hub = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)], env=env, cwd=settings.parent)

    def forward(signum, frame):  # noqa: ARG001
        hub.send_signal(signum)

    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
    return hub.wait()


def password(args: argparse.Namespace) -> int:
    _need_root()
    new = accounts.reset_password(args.name, _state(args.prefix.resolve()))
    print(f"{args.name}: {new}")
    return 0


def credentials(args: argparse.Namespace) -> int:
    """Passwords for a roster without OS accounts (a hub on Kubernetes keeps the hashes in a Secret)."""
    members = read_roster(args.roster)
    args.out.mkdir(parents=True, exist_ok=True)
    os.chmod(args.out, 0o700)
    fresh = accounts.issue_passwords(members, args.out)
    print(f"classroom: {len(fresh)} new passwords; hashes in {args.out / 'passwords.json'}, "
          f"passwords to hand out in {args.out / 'credentials.csv'} (both mode 0600)")
    return 0


def remove(args: argparse.Namespace) -> int:
    _need_root()
    prefix = args.prefix.resolve()
    removed = accounts.remove_users(_state(prefix), prefix / "homes")
    release_inboxes(prefix, removed)  # their submission folders, with what they submitted
    if limits.available():
        for name in removed:  # a hub that was killed leaves its learners' control groups behind
            limits.LearnerGroup(name).remove()
    print(f"classroom: removed the accounts {', '.join(removed) or '(none)'} and their homes")
    if args.everything:
        release_exchanges(prefix)
        shutil.rmtree(prefix)
        print(f"classroom: removed {prefix}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m classroom", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    prefix = {"type": Path, "default": Path("/opt/isotropy"), "help": "where the shared environment, course, store and hub state go"}

    s = commands.add_parser("serve", help="install, create the accounts, fill the store, start the hub")
    s.add_argument("--roster", type=Path, required=True, help="CSV with a 'username' column and an optional 'role' (teacher)")
    s.add_argument("--prefix", **prefix)
    s.add_argument("--home-base", type=Path, default=Path("/home"), help="where new accounts' homes go")
    s.add_argument("--ip", default="127.0.0.1", help="address the hub listens on (default: this machine only)")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--memory", type=_bytes, default=_bytes("3G"), help="address space of each process of a learner (default 3G)")
    s.add_argument("--learner-memory", type=_bytes, default=_bytes("3G"),
                   help="memory of all of a learner's processes together (a control group; default 3G)")
    s.add_argument("--tmp-size", type=_bytes, default=_bytes("512M"),
                   help="size of each learner's private /tmp, /var/tmp, /dev/shm, /run/lock and Jupyter runtime "
                   "folder, each (default 512M; 0: the machine's, shared)")
    s.add_argument("--home-size", type=_bytes, default=_bytes("2G"),
                   help="put each learner's home on a file system of this size of its own (a sparse, loop-mounted "
                   "ext4 image; needs loop devices), so that no learner fills the disk (default 2G; 0: homes on "
                   "the machine's disk)")
    s.add_argument("--idle-timeout", type=int, default=3600, help="seconds before an idle server is stopped")
    s.add_argument("--ssl-key", type=Path)
    s.add_argument("--ssl-cert", type=Path)
    s.add_argument("--python", type=Path, help="the interpreter of the shared environment (default: the system's python3)")
    s.add_argument("--store", type=Path, help="the study store's directory (default: PREFIX/store)")
    s.add_argument("--no-store", action="store_true", help="no study store (every kernel computes its own results)")
    s.set_defaults(run=serve)

    p = commands.add_parser("password", help="a new password for one account (printed, and in credentials.csv)")
    p.add_argument("name")
    p.add_argument("--prefix", **prefix)
    p.set_defaults(run=password)

    k = commands.add_parser("credentials", help="passwords for a roster, without accounts (for a hub on Kubernetes)")
    k.add_argument("--roster", type=Path, required=True)
    k.add_argument("--out", type=Path, required=True, help="directory for passwords.json and credentials.csv")
    k.set_defaults(run=credentials)

    r = commands.add_parser("remove", help="delete the accounts serve created, with their homes")
    r.add_argument("--prefix", **prefix)
    r.add_argument("--everything", action="store_true", help="also delete the prefix (environment, course, store, hub state)")
    r.set_defaults(run=remove)

    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except ValueError as error:
        parser.exit(2, f"classroom: {error}\n")
