"""One server per learner, run as the learner's own OS user, inside limits of its own.

Before the server starts (after the fork, still as root) each server's process gets:

- a control group of its learner's (:mod:`classroom.limits`): a memory limit, a CPU weight and a
  process limit for everything the learner runs together, whatever sessions they open; the OOM
  killer then chooses inside the learner who overran;
- a mount namespace of its own with private, size-capped ``/tmp``, ``/var/tmp``, ``/dev/shm``,
  ``/run/lock`` and runtime folder (tmpfs, counted against the learner's memory; the study store, if
  it lies below one, bound back in read-only);
- ``RLIMIT_AS``: an address-space limit per process, so that a runaway allocation in a kernel
  (``np.ones((10**6, 10**5))``) fails there with a ``MemoryError``; the hard limit equals the soft
  one, so the learner cannot lift it;
- ``RLIMIT_NPROC``: a cap on the processes of that user (no fork bomb), and ``RLIMIT_FSIZE``, a
  cap on the size of any one file the learner writes;
- a nice level and an OOM score above the hub's, so that the hub and the proxy go last.

Then :func:`jupyterhub.spawner.set_user_setuid` drops to the learner's user as usual.

Starting is kept off the hub's event loop: the folders and groups are prepared and the process
forked in a worker thread, so thirty learners who log in at once do not stall the hub (whose
start request answers at once, 202, with the progress to follow: ``config/20_servers.py``). The
server's output reaches the hub's log through :func:`classroom.logcap.forward`, at a bounded rate.
When the server stops, everything left in its group is killed and the group removed.

Kernels talk to their server over Unix sockets (``--KernelManager.transport=ipc``, in
``config/20_servers.py``) in a runtime directory only the learner can open (``runtime_root/NAME``,
mode 0700, and a tmpfs of the learner's own in their server's namespace): over TCP on 127.0.0.1, any
account could subscribe to a kernel's output channel.

A learner's server (not a teacher's) reads the configuration folder ``learner_config`` before the
environment's own (``JUPYTER_CONFIG_PATH``): nbgrader's Formgrader, Course List and Create Assignment
are off there (``classroom.install.write_learner_config``).
"""

from __future__ import annotations

import asyncio
import os
import pwd
import random
import resource
import shlex
import socket
from subprocess import DEVNULL, Popen

from jupyterhub.spawner import LocalProcessSpawner, set_user_setuid
from jupyterhub.utils import random_port
from traitlets import Bool, Integer, List, Set, Unicode

from classroom import limits, logcap

DRAW_AHEAD = "ISOTROPY_DRAW_AHEAD"  # shared.ahead.DRAW_AHEAD (the hub loads no toolkit)


def server_port() -> int:
    """A free port on 127.0.0.1 for a learner's server, below the range the system hands out to a
    bind to port 0 (``net.ipv4.ip_local_port_range``). A port taken that way (JupyterHub's
    ``random_port``) is free only until someone else's bind to port 0 gets it: every kernel binds one
    for its output from forked processes (ipykernel's IOPub pipe, on TCP whatever the kernel's
    transport), and a class starting at once had a kernel take a server's port before the server
    bound it (the server then failed, and the hub waited on the kernel's socket). Ports below the
    range are taken only by an explicit bind."""
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
    candidates = list(range(max(1024, low // 2), low))
    random.shuffle(candidates)
    for port in candidates[:200]:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    return random_port()


class CourseSpawner(LocalProcessSpawner):
    address_space = Integer(3 * 1024**3, help="RLIMIT_AS of each process of a learner's server, in bytes").tag(config=True)
    max_processes = Integer(256, help="RLIMIT_NPROC of each learner, and their control group's pids limit").tag(config=True)
    learner_memory = Integer(3 * 1024**3, help="memory of all of a learner's processes together, in bytes").tag(config=True)
    cpu_shares = Integer(256, help="CPU weight of each learner's group among the class's (cgroup v1 cpu.shares)").tag(config=True)
    tmp_size = Integer(512 * 1024**2, help="size of each learner's private /tmp, /var/tmp, /dev/shm, /run/lock and runtime "
                       "folder (0: the machine's own, shared)").tag(config=True)
    file_size = Integer(2 * 1024**3, help="RLIMIT_FSIZE: the largest file a learner's process may write").tag(config=True)
    kept_paths = List(Unicode(), help="folders below a private /tmp, /var/tmp or /dev/shm that learners still read (the study store)").tag(config=True)
    use_cgroups = Bool(True, help="a control group per learner, when the machine allows it").tag(config=True)
    niceness = Integer(10, help="nice level of every learner's server and kernels").tag(config=True)
    runtime_root = Unicode(help="root-owned folder of the learners' private runtime folders (short: socket paths are limited)").tag(config=True)
    learner_config = Unicode(help="a Jupyter configuration folder that learners' servers read and teachers' do not").tag(config=True)
    teachers = Set(Unicode(), help="the teachers' names: their servers do not read learner_config").tag(config=True)

    _group = None
    _forwarder = None

    def get_env(self):
        env = super().get_env()
        env.pop("PYTHONPATH", None)  # the hub's own (this clone) is no business of a learner's server
        # a live explorer draws nothing ahead of the learner's next move (shared.ahead.DRAW_AHEAD):
        # thirty learners' guesses would cost the class's cores many times what they look at
        env[DRAW_AHEAD] = "0"
        if self.runtime_root:
            env["JUPYTER_RUNTIME_DIR"] = os.path.join(self.runtime_root, self.user.name)
        if self.learner_config and self.user.name not in self.teachers:
            env["JUPYTER_CONFIG_PATH"] = self.learner_config  # before the environment's own configuration
        return env

    def _prepare(self) -> None:
        """The slow, blocking part of a start (folders, control groups): run in a worker thread."""
        user = pwd.getpwnam(self.user.name)
        if self.runtime_root:
            runtime = os.path.join(self.runtime_root, self.user.name)
            os.makedirs(runtime, mode=0o700, exist_ok=True)
            os.lchown(runtime, user.pw_uid, user.pw_gid)
            os.chmod(runtime, 0o700)
        if self.use_cgroups and limits.available():
            group = limits.LearnerGroup(self.user.name)
            group.kill_all()  # anything left from a previous server of this learner
            group.create(self.learner_memory, self.max_processes, self.cpu_shares)
            self._group = group

    def make_preexec_fn(self, name):
        drop = set_user_setuid(name)
        user = pwd.getpwnam(name)
        address_space, max_processes, niceness = self.address_space, self.max_processes, self.niceness
        file_size, tmp_size, kept = self.file_size, self.tmp_size, tuple(self.kept_paths)
        runtime = (os.path.join(self.runtime_root, name),) if self.runtime_root else ()
        procs_files = self._group.procs_files() if self._group else []

        def preexec():
            limits.join(procs_files)
            if tmp_size:
                limits.private_tmp(tmp_size, user.pw_uid, user.pw_gid, kept, also=runtime)
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write("500")  # under memory pressure from outside the groups, a learner's process goes first
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
            resource.setrlimit(resource.RLIMIT_NPROC, (max_processes, max_processes))
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
            os.nice(niceness)
            drop()

        return preexec

    async def start(self):
        """LocalProcessSpawner.start, with the preparation and the fork in a worker thread and the
        server's output read through the hub's rate limit."""
        if self.port == 0:
            self.port = server_port()
        await asyncio.to_thread(self._prepare)
        env = self.get_env()
        cmd = [*self.cmd, *self.get_args()]
        self.log.info("Spawning %s", " ".join(shlex.quote(s) for s in cmd))
        read_end, write_end = os.pipe()
        popen_kwargs = dict(preexec_fn=self.make_preexec_fn(self.user.name), start_new_session=True,
                            stdout=write_end, stderr=write_end, stdin=DEVNULL)
        popen_kwargs.update(self.popen_kwargs)
        popen_kwargs["env"] = env
        try:
            self.proc = await asyncio.to_thread(Popen, cmd, **popen_kwargs)
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        self._forwarder = asyncio.ensure_future(logcap.forward(read_end, self.user.name, self.log))
        self.pid = self.proc.pid
        return (self.ip or "127.0.0.1", self.port)

    async def stop(self, now=False):
        await super().stop(now=now)
        group = self._group or (limits.LearnerGroup(self.user.name) if self.use_cgroups and limits.available() else None)
        if group is not None:
            await asyncio.to_thread(group.remove)  # kernels, terminals, processes in new sessions: all of them
            self._group = None
