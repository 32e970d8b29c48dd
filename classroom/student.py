"""A learner at the hub, driven from Python: log in, start the server, run code in a kernel.

Used by the classroom tests and the load test (``benchmarks/classroom.py``). Everything goes through
the hub's public pages and REST API and the learner's server's REST and kernel websocket API, with
the learner's own credentials, as a browser would.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import requests
import websocket


class HubError(RuntimeError):
    pass


@dataclass
class Reply:
    """What one ``execute_request`` gave back."""

    status: str  # "ok", "error" or "aborted"
    seconds: float
    stdout: str = ""
    stderr: str = ""
    error: str = ""  # "ename: evalue" when status is "error"
    results: list[str] = field(default_factory=list)  # text/plain of execute_result and display_data


class Student:
    def __init__(self, hub: str, name: str, password: str) -> None:
        self.hub, self.name, self.password = hub.rstrip("/"), name, password
        self.http = requests.Session()
        self.token: str | None = None

    # --- the hub ---------------------------------------------------------------------------
    def log_in(self) -> bool:
        """The log-in form, as a browser posts it; True when the hub accepted the password."""
        self.http.get(f"{self.hub}/hub/login", timeout=300).raise_for_status()
        xsrf = self.http.cookies.get("_xsrf", "")
        response = self.http.post(f"{self.hub}/hub/login?next=", timeout=300, allow_redirects=False,
                                  data={"username": self.name, "password": self.password, "_xsrf": xsrf})
        return response.status_code in (301, 302, 303) and "jupyterhub-session-id" in self.http.cookies

    def get_token(self) -> str:
        """An API token of the learner's own, asked for with the log-in cookie."""
        response = self.http.post(f"{self.hub}/hub/api/users/{self.name}/tokens", timeout=300,
                                  json={"note": "course client", "expires_in": 4 * 3600},
                                  headers={"X-XSRFToken": self.http.cookies.get("_xsrf", ""), "Referer": f"{self.hub}/hub/"})
        if response.status_code != 201:
            raise HubError(f"{self.name}: no token ({response.status_code} {response.text[:200]})")
        self.token = response.json()["token"]
        return self.token

    def api(self, method: str, path: str, **kwargs) -> requests.Response:
        """A request to ``hub + path`` with the learner's token."""
        headers = {"Authorization": f"token {self.token}", **kwargs.pop("headers", {})}
        return requests.request(method, f"{self.hub}{path}", headers=headers, timeout=kwargs.pop("timeout", 60), **kwargs)

    def start_server(self, timeout: float = 180) -> float:
        """Ask the hub for the learner's server and wait until it is ready, as the browser's
        spawn-pending page does: the request answers at once (202, pending), then the hub's progress
        stream says when the server is up (or failed). A 502/503/504 from the proxy while the hub is
        busy is retried, as the page's event source reconnects. Returns the seconds the request took."""
        deadline = time.monotonic() + timeout
        while True:
            asked = time.monotonic()
            response = self.api("POST", f"/hub/api/users/{self.name}/server", timeout=timeout)
            answered = time.monotonic() - asked
            if response.status_code in (201, 202, 400):  # 400: already running or starting
                break
            if response.status_code not in (502, 503, 504) or time.monotonic() > deadline:
                raise HubError(f"{self.name}: the hub refused the server ({response.status_code} {response.text[:200]})")
            time.sleep(1)
        while time.monotonic() < deadline:
            if self._follow_progress(deadline):
                return answered
            server = self.api("GET", f"/hub/api/users/{self.name}").json().get("servers", {}).get("", {})
            if server.get("ready"):
                return answered
            if not server:
                raise HubError(f"{self.name}: the server stopped while starting")
            time.sleep(1)
        raise HubError(f"{self.name}: the server did not start within {timeout} s")

    def _follow_progress(self, deadline: float) -> bool:
        """Read the hub's progress events until the server is ready (True), the stream ends (False)
        or the server failed (raised)."""
        try:
            with requests.get(f"{self.hub}/hub/api/users/{self.name}/server/progress", stream=True,
                              headers={"Authorization": f"token {self.token}", "Accept": "text/event-stream"},
                              timeout=(30, max(1.0, deadline - time.monotonic()))) as stream:
                if stream.status_code != 200:
                    return False
                for line in stream.iter_lines(decode_unicode=True):
                    if not line or not line.startswith("data:"):
                        continue
                    event = json.loads(line[5:])
                    if event.get("failed"):
                        raise HubError(f"{self.name}: the server failed to start: {event.get('message', '')[:300]}")
                    if event.get("ready"):
                        return True
        except (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError):
            return False
        return False

    def stop_server(self) -> None:
        self.api("DELETE", f"/hub/api/users/{self.name}/server")

    # --- the learner's server ----------------------------------------------------------------
    def server(self, method: str, path: str, user: str | None = None, **kwargs) -> requests.Response:
        """A request to a single-user server's API (the learner's own unless ``user`` names another)."""
        return self.api(method, f"/user/{user or self.name}/api/{path.lstrip('/')}", **kwargs)

    def kernel(self, notebook: str | None = None) -> Kernel:
        """A new kernel (for ``notebook``, a path under the server's root, when given: it runs in its folder)."""
        if notebook:
            response = self.server("POST", "sessions", json={"path": notebook, "type": "notebook", "name": Path(notebook).name,
                                                              "kernel": {"name": "python3"}})
            kernel_id = response.json()["kernel"]["id"] if response.ok else None
        else:
            response = self.server("POST", "kernels", json={"name": "python3"})
            kernel_id = response.json()["id"] if response.ok else None
        if not kernel_id:
            raise HubError(f"{self.name}: no kernel ({response.status_code} {response.text[:200]})")
        return Kernel(self, kernel_id)


class Kernel:
    """A kernel of a learner's server, spoken to over its websocket like JupyterLab does."""

    def __init__(self, student: Student, kernel_id: str) -> None:
        self.student, self.id = student, kernel_id
        ws_url = student.hub.replace("http", "ws", 1) + f"/user/{student.name}/api/kernels/{kernel_id}/channels?" + urlencode(
            {"session_id": uuid.uuid4().hex})
        self.ws = websocket.create_connection(ws_url, header=[f"Authorization: token {student.token}"], timeout=600)

    def execute(self, code: str, timeout: float = 600) -> Reply:
        """Run ``code``; wait for its reply and the kernel going idle (or ``timeout`` seconds)."""
        msg_id = uuid.uuid4().hex
        self.ws.send(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": self.student.name,
                       "session": uuid.uuid4().hex, "version": "5.3", "date": ""},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True},
        }))
        start = time.perf_counter()
        reply, idle = None, False
        out = Reply("", 0.0)
        self.ws.settimeout(timeout)
        while reply is None or not idle:
            if time.perf_counter() - start > timeout:
                raise TimeoutError(f"no reply within {timeout} s to {code[:60]!r}")
            frame = self.ws.recv()
            if isinstance(frame, bytes):  # a message with binary buffers (a widget's picture): not needed here
                continue
            msg = json.loads(frame)
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                if content["name"] == "stdout":
                    out.stdout += content["text"]
                else:
                    out.stderr += content["text"]
            elif kind in ("execute_result", "display_data"):
                out.results.append(content["data"].get("text/plain", ""))
            elif kind == "error":
                out.error = f"{content['ename']}: {content['evalue']}"
            elif kind == "execute_reply":
                reply = content
                out.seconds = time.perf_counter() - start
            elif kind == "status" and content["execution_state"] == "idle":
                idle = True
        out.status = reply["status"]
        if reply["status"] == "error" and not out.error:
            out.error = f"{reply.get('ename')}: {reply.get('evalue')}"
        return out

    def send(self, code: str) -> None:
        """Start ``code`` without waiting for it (its messages are skipped by later calls)."""
        self.ws.send(json.dumps({
            "header": {"msg_id": uuid.uuid4().hex, "msg_type": "execute_request", "username": self.student.name,
                       "session": uuid.uuid4().hex, "version": "5.3", "date": ""},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": False},  # its interruption must not abort what follows
        }))

    def interrupt(self) -> None:
        self.student.server("POST", f"kernels/{self.id}/interrupt")

    def run_notebook(self, notebook: Path, timeout: float = 600) -> list[Reply]:
        """Every code cell of ``notebook`` in order; stops at the first failing cell (raised)."""
        replies = []
        cells = [c for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "code"]
        for number, cell in enumerate(cells, start=1):
            source = "".join(cell["source"])
            reply = self.execute(source, timeout=timeout)
            if reply.status != "ok":
                raise HubError(f"{notebook.name}, code cell {number}: {reply.error or reply.status}\n{reply.stderr[-2000:]}")
            replies.append(reply)
        return replies

    def close(self, shutdown: bool = True) -> None:
        try:
            self.ws.close()
        finally:
            if shutdown:
                self.student.server("DELETE", f"kernels/{self.id}")
