# Idle servers are stopped (jupyterhub-idle-culler as a hub service), so a forgotten tab frees its memory.
import sys

from classroom.settings import load

s = load()
c = get_config()  # noqa: F821

c.JupyterHub.services.append({
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler",
                f"--timeout={s['idle_timeout']}", f"--cull-every={max(10, s['idle_timeout'] // 6)}"],
})
c.JupyterHub.load_roles.append({
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
})
