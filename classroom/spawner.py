"""One server per learner, run as the learner's own OS user, inside limits of its own.

Before the server starts (after the fork, still as root) each process tree gets:

- ``RLIMIT_AS``: an address-space limit per process, so that a runaway allocation in a kernel
  (``np.ones((10**6, 10**5))``) fails there with a ``MemoryError`` instead of taking the machine's
  memory from everyone else; the hard limit equals the soft one, so the learner cannot lift it;
- ``RLIMIT_NPROC``: a cap on the processes of that user (no fork bomb);
- a nice level, so that the hub, the proxy and the other learners keep their share of the CPU
  while a learner's kernel spins in an infinite loop.

Then :func:`jupyterhub.spawner.set_user_setuid` drops to the learner's user as usual.

Kernels talk to their server over Unix sockets (``--KernelManager.transport=ipc``, in
``config/20_servers.py``) in a runtime directory only the learner can open (``runtime_root/NAME``,
mode 0700): over TCP on 127.0.0.1, any account could subscribe to a kernel's output channel.
"""

from __future__ import annotations

import os
import pwd
import resource

from jupyterhub.spawner import LocalProcessSpawner, set_user_setuid
from traitlets import Integer, Unicode


class CourseSpawner(LocalProcessSpawner):
    address_space = Integer(3 * 1024**3, help="RLIMIT_AS of each process of a learner's server, in bytes").tag(config=True)
    max_processes = Integer(256, help="RLIMIT_NPROC of each learner").tag(config=True)
    niceness = Integer(10, help="nice level of every learner's server and kernels").tag(config=True)
    runtime_root = Unicode(help="root-owned folder of the learners' private runtime folders (short: socket paths are limited)").tag(config=True)

    def get_env(self):
        env = super().get_env()
        if self.runtime_root:
            user = pwd.getpwnam(self.user.name)
            runtime = os.path.join(self.runtime_root, self.user.name)
            os.makedirs(runtime, mode=0o700, exist_ok=True)
            os.lchown(runtime, user.pw_uid, user.pw_gid)
            os.chmod(runtime, 0o700)
            env["JUPYTER_RUNTIME_DIR"] = runtime
        return env

    def make_preexec_fn(self, name):
        drop = set_user_setuid(name)
        address_space, max_processes, niceness = self.address_space, self.max_processes, self.niceness

        def preexec():
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
            resource.setrlimit(resource.RLIMIT_NPROC, (max_processes, max_processes))
            os.nice(niceness)
            drop()

        return preexec
