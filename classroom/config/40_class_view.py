# The class view (classroom/class_view.py): a hub service the teachers open at /services/class-view/,
# fed by one event per check from each learner's kernel (shared/events.py), counts in the hub's state.
import os
import sys
from pathlib import Path

from classroom.settings import load

s = load()
c = get_config()  # noqa: F821
root = Path(__file__).resolve().parents[2]
port = s["class_view_port"]

c.JupyterHub.services.append({
    "name": "class-view",
    "display": True,
    "url": f"http://127.0.0.1:{port}",
    "command": [sys.executable, "-m", "classroom.class_view", "--db", str(Path(s["state"]) / "class_view.sqlite"),
                "--port", str(port)],
    "cwd": str(root),
    "environment": {"PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))},
    "oauth_no_confirm": True,
})
# Only the teachers (and admins, who hold every scope) may open it: the hub refuses the others.
c.JupyterHub.load_roles.append({
    "name": "class-view-teacher",
    "scopes": ["access:services!service=class-view"],
    "users": list(s["teachers"]),
})
# Where each learner's kernel posts its events (straight to the service on this machine), with the
# server's own hub token ($JUPYTERHUB_API_TOKEN), which the service reads as that learner and no other.
c.Spawner.environment.update({"ISOTROPY_CLASS_VIEW": f"http://127.0.0.1:{port}/services/class-view/events"})
