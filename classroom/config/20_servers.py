# The learners' servers: the shared environment, run as the learner, one BLAS thread, limits.
from classroom.settings import load

s = load()
c = get_config()  # noqa: F821

c.JupyterHub.spawner_class = "classroom.spawner.CourseSpawner"
c.Spawner.cmd = [s["start_script"]]
c.Spawner.ip = "127.0.0.1"
c.Spawner.default_url = "/lab/tree/notebooks"
# window.jupyterapp in the learner's page, for the browser tests to drive it (a script in that page
# can already do all the learner can, so this opens nothing)
c.Spawner.args = [
    "--LabApp.expose_app_in_browser=True",
    # a kernel left idle for 20 minutes is shut down, freeing its memory, even with its notebook still
    # open in a tab (connected); the notebook and its outputs stay
    "--MappingKernelManager.cull_idle_timeout=1200",
    "--MappingKernelManager.cull_interval=120",
    "--MappingKernelManager.cull_connected=True",
    # kernels on Unix sockets in the learner's private runtime folder, not on 127.0.0.1 ports
    "--KernelManager.transport=ipc",
]
c.CourseSpawner.runtime_root = s["runtime_root"]
# learners' servers (not the teachers') read classroom/install.py's learner-config: no formgrader for them
c.CourseSpawner.learner_config = s.get("learner_config", "")
c.CourseSpawner.teachers = set(s["teachers"])
# A class logs in at once: the start request answers at once (202, pending) and the learner's page
# follows the progress, instead of the request waiting up to 10 s for the server (slow_spawn_timeout)
# and the proxy giving up on it; the servers start in a queue, so a late one is not failed at 2 min.
c.JupyterHub.tornado_settings = {"slow_spawn_timeout": 0}
c.Spawner.start_timeout = 900
c.Spawner.http_timeout = 900
threads = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
c.Spawner.environment = {
    **threads,
    "PATH": f"{s['venv']}/bin:/usr/local/bin:/usr/bin:/bin",
    "MALLOC_ARENA_MAX": "2",  # glibc's per-thread arenas would reserve address space under RLIMIT_AS
    # glibc returns every freed block above 128 KiB to the system at once (by default the threshold
    # climbs to 32 MiB, and a kernel keeps tens of MB it no longer uses: 54 MB in notebook 07)
    "MALLOC_MMAP_THRESHOLD_": "131072",
    **({"ISOTROPY_STORE": s["store"]} if s.get("store") else {}),
}
c.CourseSpawner.address_space = s["address_space"]
c.CourseSpawner.max_processes = s["max_processes"]
c.CourseSpawner.learner_memory = s.get("learner_memory", s["address_space"])
c.CourseSpawner.tmp_size = s.get("tmp_size", 512 * 1024**2)
c.CourseSpawner.kept_paths = [s["store"]] if s.get("store") else []  # in /var/tmp, say: read through the private one
