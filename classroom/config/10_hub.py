# The hub: where it listens, who may log in, the proxy it starts, where it keeps its state.
import sys
from pathlib import Path

from classroom.logcap import limit_hub_log
from classroom.settings import load

s = load()
c = get_config()  # noqa: F821
state = Path(s["state"])

c.JupyterHub.ip = s["ip"]
c.JupyterHub.port = s["port"]
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = s["hub_port"]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{s['proxy_api_port']}"
# the pure-Python configurable-http-proxy, from the same environment as the hub (no Node.js), with
# its HTTP client allowed more than 10 requests at once (classroom/proxy.py says why)
# (and its wait for the hub or a server sized for a class that logs in at once: 5 minutes, not 20 s)
c.ConfigurableHTTPProxy.command = [sys.executable, "-m", "classroom.proxy", "--proxy-timeout", "300000"]
if s.get("ssl_key") and s.get("ssl_cert"):
    c.JupyterHub.ssl_key = s["ssl_key"]
    c.JupyterHub.ssl_cert = s["ssl_cert"]

c.JupyterHub.db_url = f"sqlite:///{state / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(state / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(state / "jupyterhub.pid")

c.JupyterHub.authenticator_class = "classroom.auth.RosterAuthenticator"
c.RosterAuthenticator.password_file = str(state / "passwords.json")
c.Authenticator.allowed_users = set(s["members"])
c.Authenticator.admin_users = set(s["teachers"])
c.Authenticator.allow_all = False
c.Authenticator.allow_existing_users = False  # the roster, not the database, says who may log in
c.JupyterHub.shutdown_on_logout = False

# what anyone can make the hub write to its log is bounded (classroom/logcap.py)
limit_hub_log()
