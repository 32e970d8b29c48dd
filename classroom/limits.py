"""Limits per learner, not per process: a control group for each learner, and a private /tmp.

Each learner's server and everything it starts (kernels, terminals, processes in new sessions)
run in a control group of that learner's, :class:`LearnerGroup`:

- **memory**: at most ``memory`` bytes for all of the learner's processes together (page cache
  and tmpfs pages they write included); past it the kernel's OOM killer picks a process *inside*
  that group, never another learner's;
- **CPU**: the learners' groups sit under one parent, ``isotropy-class``, whose weight equals one
  process of the hub's (1024), and share it equally: a learner with 60 busy processes gets one
  learner's share, however many sessions they open (``nice`` is per session under autogroup
  scheduling, which is why it does not do this);
- **processes**: at most ``processes`` tasks (threads included) in the group.

On cgroup v1 (this project's test machines) the groups are ``/sys/fs/cgroup/{memory,cpu,pids}/
isotropy-class/NAME``; on cgroup v2 (a unified hierarchy at ``/sys/fs/cgroup``) it is
``/sys/fs/cgroup/isotropy-class/NAME`` with ``memory.max``, ``cpu.weight`` and ``pids.max``. Where
systemd runs the machine, jupyterhub-systemdspawner gives the same per-user units instead.

:func:`private_tmp` gives the process tree a mount namespace of its own in which ``/tmp``,
``/var/tmp``, ``/dev/shm``, ``/run/lock`` and the learner's Jupyter runtime folder are tmpfs of
``size`` bytes each, private to the learner: pages there count against the learner's memory limit
too, so a learner filling them fills only their own. A
folder below them that the learners must still read (the study store, in ``/var/tmp`` on the test
machines) is bound back in, read-only.

:func:`capped_folder` puts a folder (a learner's home, the nbgrader exchange, a learner's submission
folder in it) on a file system of its
own, of a given size: an ext4 image (sparse, so it takes on the disk what its files take) mounted on
the folder through a loop device. A learner who fills their home gets "No space left on device" in
their own home; the machine's disk, and so every other learner's home, the hub's state and the
exchange, keep their room. This is the
bound there is where the kernel has no disk quotas (these machines' kernels are built without
``CONFIG_QUOTA``: mounting ext4 with ``usrquota`` fails), and it needs root and loop devices.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import signal
import stat
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

CGROUP = Path("/sys/fs/cgroup")
#: Each learner's server sees a tmpfs of its own there: the folders every account may write (by
#: ``find / -xdev -type d -perm -0002`` on the machines this was tried on), and /dev/shm.
PRIVATE = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
PARENT = "isotropy-class"
V1 = ("memory", "cpu", "pids")

_libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNS, MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = (
    0x20000, 0x1, 0x2, 0x4, 0x20, 0x1000, 0x4000, 1 << 18)


def unified() -> bool:
    """Whether the machine has cgroup v2 alone (a unified hierarchy with its controllers)."""
    return (CGROUP / "cgroup.controllers").exists()


def available() -> bool:
    """Whether this machine lets root make the groups (v2, or v1 with the three controllers)."""
    if unified():
        return os.access(CGROUP, os.W_OK)
    return all(os.access(CGROUP / c, os.W_OK) for c in V1)


class LearnerGroup:
    """The control group(s) of one learner."""

    def __init__(self, name: str, root: Path = CGROUP) -> None:
        self.name, self.root = name, root
        if unified():
            self.dirs = [root / PARENT / name]
        else:
            self.dirs = [root / c / PARENT / name for c in V1]

    def create(self, memory: int, processes: int, cpu_weight: int = 1024) -> None:
        """Make the group(s) (again, if a previous server left them) and set the limits."""
        if unified():
            parent = self.root / PARENT
            parent.mkdir(exist_ok=True)
            _write(self.root / "cgroup.subtree_control", "+memory +cpu +pids")
            _write(parent / "cgroup.subtree_control", "+memory +cpu +pids")
            _write(parent / "cpu.weight", "100")  # the default: one process of the hub's weighs as much
            group = self.dirs[0]
            group.mkdir(exist_ok=True)
            _write(group / "memory.max", str(memory))
            _write(group / "memory.swap.max", "0", missing_ok=True)
            _write(group / "pids.max", str(processes))
            _write(group / "cpu.weight", str(max(1, cpu_weight * 100 // 1024)))
            return
        for controller, group in zip(V1, self.dirs):
            group.mkdir(parents=True, exist_ok=True)
            if controller == "memory":
                _write(group / "memory.limit_in_bytes", str(memory))
                _write(group / "memory.memsw.limit_in_bytes", str(memory), missing_ok=True)
            elif controller == "cpu":
                _write(group.parent / "cpu.shares", "1024")  # the whole class: one hub process's weight
                _write(group / "cpu.shares", str(cpu_weight))
            else:
                _write(group / "pids.max", str(processes))

    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs]

    def pids(self) -> set[int]:
        found: set[int] = set()
        for d in self.dirs:
            with contextlib.suppress(FileNotFoundError):
                found |= {int(p) for p in (d / "cgroup.procs").read_text().split()}
        return found

    def kill_all(self, timeout: float = 10) -> None:
        """SIGKILL every process in the group, until none is left (or ``timeout``)."""
        deadline = time.monotonic() + timeout
        while (pids := self.pids()) and time.monotonic() < deadline:
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.05)

    def remove(self) -> None:
        """Kill what is left and delete the group(s) (and the parent, once empty)."""
        self.kill_all()
        for d in self.dirs:
            for path in (d, d.parent):
                try:
                    path.rmdir()
                except FileNotFoundError:
                    pass
                except OSError as error:  # busy: a sibling still there, or a process not yet reaped
                    if error.errno not in (errno.EBUSY, errno.ENOTEMPTY):
                        raise

    def memory_events(self) -> dict[str, int]:
        """Out-of-memory kills inside the group so far (``oom_kill``), as the kernel counts them."""
        d = self.dirs[0]
        text = (d / ("memory.events" if unified() else "memory.oom_control")).read_text()
        return {k: int(v) for k, v in (line.split() for line in text.splitlines())}


def _write(path: Path, value: str, missing_ok: bool = False) -> None:
    try:
        path.write_text(value)
    except FileNotFoundError:
        if not missing_ok:
            raise
    except PermissionError:  # memsw without swap accounting, say
        if not missing_ok:
            raise


def join(procs_files: list[str]) -> None:
    """Move the calling process into the groups (called in the child before it drops to the learner)."""
    pid = str(os.getpid()).encode()
    for path in procs_files:
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, pid)
        finally:
            os.close(fd)


def private_tmp(size: int, uid: int, gid: int, keep: tuple[str, ...] = (), also: tuple[str, ...] = ()) -> None:
    """A mount namespace of the calling process's own, with private, size-capped tmpfs on
    :data:`PRIVATE` and on each folder of ``also`` (the learner's Jupyter runtime folder), owned by
    ``uid`` (called in the child, as root, before dropping); each folder of ``keep`` that lies below one
    of them is bound back in at its place, read-only."""

    def check(result: int, what: str) -> None:
        if result != 0:
            code = ctypes.get_errno()
            raise OSError(code, f"{what}: {os.strerror(code)}")

    check(_libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    check(_libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
    options = f"size={size},mode=0700,uid={uid},gid={gid}".encode()
    for target in (*PRIVATE, *also):
        if not os.path.isdir(target):
            continue
        kept = [path for path in keep if os.path.isdir(path) and Path(path).is_relative_to(target)]
        held = [os.open(path, os.O_PATH | os.O_DIRECTORY) for path in kept]  # before the tmpfs hides them
        try:
            check(_libc.mount(b"tmpfs", target.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options), f"mount tmpfs on {target}")
            for path, fd in zip(kept, held):
                os.makedirs(path, exist_ok=True)
                check(_libc.mount(f"/proc/self/fd/{fd}".encode(), path.encode(), None, MS_BIND | MS_REC, None), f"bind {path}")
                check(_libc.mount(None, path.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, None),
                      f"remount {path} read-only")
        finally:
            for fd in held:
                os.close(fd)


def processes_of(uid: int) -> list[int]:
    """The processes that run as ``uid`` (as their real, effective, saved or file-system user)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status") as f:
                ids = next(line for line in f if line.startswith("Uid:")).split()[1:]
        except (FileNotFoundError, ProcessLookupError, StopIteration):
            continue  # gone meanwhile
        if str(uid) in ids:
            found.append(int(entry.name))
    return found


def capped_folder(folder: Path, image: Path, size: int, uid: int, gid: int, mode: int = 0o700,
                  refuse: Callable[[], str | None] | None = None) -> str | None:
    """``folder`` on a file system of its own of ``size`` bytes (the ext4 image ``image``, made at the
    first call from what the folder holds, then mounted through a loop device; a later call mounts it
    again, after a reboot say, or does nothing while it is mounted), owned by ``uid``:``gid`` with
    ``mode``. Needs root.

    The folder is closed (root's, mode 0700) before anything is copied, so that nobody else enters it
    while its files go into the image (links are copied as links, never followed), and it stays closed
    under the mount: a process that still sees the folder itself (one in a mount namespace made before
    the mount) can write nothing there. ``refuse``, called once the folder is closed and before a first
    copy, may give a reason not to cap it now (the owner's processes running, say): the folder then
    gets its owner and mode back and the reason is returned. Returns None when the folder is capped."""
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        raise ValueError(f"{folder} is not a folder (a link, or a file)")
    if os.path.ismount(folder):
        return None
    os.chown(folder, 0, 0)
    os.chmod(folder, 0o700)
    if not image.exists():
        reason = refuse() if refuse else None
        if reason:
            os.chown(folder, info.st_uid, info.st_gid)
            os.chmod(folder, stat.S_IMODE(info.st_mode))
            return reason
        fresh = image.with_name(image.name + ".new")
        fresh.unlink(missing_ok=True)
        with open(fresh, "xb") as f:
            f.truncate(size)  # sparse: the disk it takes is what its files take
        os.chmod(fresh, 0o600)
        made = subprocess.run(["mkfs.ext4", "-q", "-F", "-m", "0", "-E", f"root_owner={uid}:{gid}", "-d", str(folder),
                               str(fresh)], capture_output=True, text=True)
        if made.returncode != 0:
            fresh.unlink()
            os.chown(folder, info.st_uid, info.st_gid)
            os.chmod(folder, stat.S_IMODE(info.st_mode))
            raise OSError(f"mkfs.ext4 for {folder}: {made.stderr.strip()}")
        os.replace(fresh, image)
        for child in folder.iterdir():  # now in the image; the mount will hide the old copies
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
    mounted = subprocess.run(["mount", "-o", "loop,nosuid,nodev", str(image), str(folder)], capture_output=True, text=True)
    if mounted.returncode != 0:
        raise OSError(f"mount {image} on {folder}: {mounted.stderr.strip()}")
    os.chown(folder, uid, gid)
    os.chmod(folder, mode)
    return None


def release_folder(folder: Path, image: Path) -> None:
    """Undo :func:`capped_folder`: unmount ``folder`` (lazily: the loop device goes when nothing uses
    it) and delete the image. The folder below, closed while it was capped, gets the owner and mode
    the capped folder had (an exchange: root's, and the mode it had, :data:`classroom.cli.EXCHANGE_MODE`)."""
    if os.path.ismount(folder):
        owner = os.stat(folder)
        subprocess.run(["umount", "--lazy", str(folder)], check=True, capture_output=True)
        os.chown(folder, owner.st_uid, owner.st_gid)
        os.chmod(folder, stat.S_IMODE(owner.st_mode))
    image.unlink(missing_ok=True)
