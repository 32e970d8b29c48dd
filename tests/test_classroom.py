"""The class server for real: ``python -m classroom serve`` with a roster of two learners and a
teacher, on 127.0.0.1, in a temporary prefix, driven as the learners drive it.

Needs root (it creates OS accounts and runs each server as its learner), as CI has. The accounts
get random names, their homes and the prefix live under a temporary folder; on leaving, even after a
failure, the fixture stops the hub and removes the accounts and the folder (classroom.trial). Those tests are marked
``classroom``: deselected from the default run, run by ``.ci/run`` with
``uv run --group classroom pytest -m classroom -n 0 tests/test_classroom.py``.
"""

from __future__ import annotations

import os
import pwd
import re
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from classroom.trial import TrialClass

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "build" / "classroom"
STORE = Path("/var/tmp/isotropy-store")  # the machine's study store, kept between runs as on a class server


@pytest.fixture(scope="module")
def hub() -> Iterator[TrialClass]:
    """Two learners and a teacher on a class server at 127.0.0.1 (see classroom.trial)."""
    if os.geteuid() != 0:
        pytest.skip("the class server creates OS accounts: run as root (CI does)")
    from classroom.trial import trial_class

    with trial_class(2, ["--idle-timeout", "3600", "--store", str(STORE)]) as room:
        yield room


@pytest.fixture(scope="module")
def running(hub: TrialClass):
    """Both learners logged in (through the log-in form), with a token each and their servers started."""
    return {name: hub.started(name) for name in hub.students}


@pytest.mark.classroom
def test_a_slow_start_is_answered_at_once_and_followed_until_ready(hub: TrialClass) -> None:
    """With every server taking 25 s to start (as thirty at once do on a slow machine), the start
    request still answers at once, 202 (before, the hub held it for its 10 s slow-spawn wait, and a
    busy hub behind the proxy's 20 s timeout answered 503); the hub keeps answering meanwhile, and
    the client, following the hub's progress events as the browser's spawn-pending page does, gets
    the server when it is up."""
    script = hub.prefix / "bin" / "start-server"
    original = script.read_text()
    slowed = script.with_name("start-server.slow")
    slowed.write_text(original.replace("set -eu\n", "set -eu\nsleep 25\n", 1))
    slowed.chmod(0o755)
    os.replace(slowed, script)  # a new file renamed over: the running servers keep theirs
    teacher = hub.student(hub.teacher)
    try:
        assert teacher.log_in()
        teacher.get_token()
        start = time.monotonic()
        asked = teacher.api("POST", f"/hub/api/users/{teacher.name}/server")
        answered = time.monotonic() - start
        assert asked.status_code == 202, asked.text
        assert answered < 8, f"the start request took {answered:.1f} s"
        pending = teacher.api("GET", f"/hub/api/users/{teacher.name}", timeout=10).json()
        assert pending["servers"][""]["pending"] == "spawn" and not pending["servers"][""]["ready"]
        teacher.start_server(timeout=300)  # 400 (already starting), then the progress stream
        assert time.monotonic() - start >= 25
        assert teacher.server("GET", "contents").status_code == 200
    finally:
        restore = script.with_name("start-server.restore")
        restore.write_text(original)
        restore.chmod(0o755)
        os.replace(restore, script)
        teacher.stop_server()
        deadline = time.monotonic() + 60
        while teacher.api("GET", f"/hub/api/users/{teacher.name}").json()["servers"] and time.monotonic() < deadline:
            time.sleep(0.5)


@pytest.mark.classroom
def test_accounts_homes_and_secrets_are_private(hub: TrialClass) -> None:
    names = (*hub.students, hub.teacher)
    assert len({hub.passwords[n] for n in names}) == len(names), "two accounts share a password"
    for name in names:
        home = Path(pwd.getpwnam(name).pw_dir)
        assert home.parent == hub.homes
        info = home.stat()
        assert info.st_uid == pwd.getpwnam(name).pw_uid
        assert stat.S_IMODE(info.st_mode) & 0o077 == 0, f"{home} is open to others: {oct(info.st_mode)}"
    state = hub.prefix / "hub"
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    for secret in ("credentials.csv", "passwords.json", "jupyterhub_cookie_secret", "classroom.json"):
        info = (state / secret).stat()
        assert info.st_uid == 0 and stat.S_IMODE(info.st_mode) == 0o600, f"{secret}: {oct(info.st_mode)}"
    assert not any(p in (state / "passwords.json").read_text() for p in hub.passwords.values()), "a plain password is stored"


@pytest.mark.classroom
def test_the_shared_environment_is_usable_by_a_learner_and_writable_by_none(hub: TrialClass) -> None:
    learner = hub.students[0]
    venv = hub.prefix / "venv"
    run = subprocess.run(["runuser", "-u", learner, "--", str(venv / "bin" / "python"), "-c",
                          "import shared, sys; print(shared.__file__.startswith(sys.prefix))"],
                         capture_output=True, text=True, timeout=60, cwd="/")
    assert run.stdout.strip() == "True", run.stderr
    for target in (venv / "bin", hub.prefix / "course" / "notebooks", hub.prefix / "bin"):
        attempt = subprocess.run(["runuser", "-u", learner, "--", "touch", str(target / "planted")],
                                 capture_output=True, text=True, timeout=30)
        assert attempt.returncode != 0 and not (target / "planted").exists(), f"{learner} can write into {target}"


@pytest.mark.classroom
def test_a_wrong_password_or_an_unlisted_name_is_refused(hub: TrialClass) -> None:
    from classroom.student import Student

    a, b = hub.students
    assert not Student(hub.url, a, hub.passwords[a] + "x").log_in()
    assert not Student(hub.url, a, "").log_in()
    assert not Student(hub.url, b, hub.passwords[a]).log_in(), "one learner's password opens another account"
    assert not Student(hub.url, "nobody" + a, hub.passwords[a]).log_in(), "a name off the roster got in"
    assert hub.student(a).log_in()


@pytest.mark.classroom
def test_a_learner_runs_notebooks_01_and_09_in_their_own_server(hub: TrialClass, running) -> None:
    from shared.ahead import DRAW_AHEAD

    learner = running[hub.students[0]]
    listing = learner.server("GET", "contents/notebooks").json()
    names = {item["name"] for item in listing["content"]}
    assert {"01_sphere_vs_cone.ipynb", "09_decoder_llm.ipynb"} <= names
    for notebook in ("01_sphere_vs_cone.ipynb", "09_decoder_llm.ipynb"):
        kernel = learner.kernel(f"notebooks/{notebook}")
        try:
            facts = kernel.execute("import os; from ipykernel.connect import get_connection_info; "
                                   "print(os.getuid(), os.environ.get('OPENBLAS_NUM_THREADS'), "
                                   "os.environ.get('ISOTROPY_STORE'), get_connection_info(unpack=True)['transport'], "
                                   "oct(os.stat(os.environ['JUPYTER_RUNTIME_DIR']).st_mode & 0o777), "
                                   f"os.environ.get({DRAW_AHEAD!r}))")
            uid, threads, store, transport, runtime_mode, ahead = facts.stdout.split()
            # its live explorers draw nothing ahead of a move: the class's cores go to what learners look at
            assert ahead == "0"
            # its channels are Unix sockets in a folder only its learner opens, not ports any account could reach
            assert (transport, runtime_mode) == ("ipc", "0o700")
            assert int(uid) == pwd.getpwnam(hub.students[0]).pw_uid, "the kernel does not run as its learner"
            assert threads == "1"
            assert store == str(STORE)
            replies = kernel.run_notebook(ROOT / "notebooks" / notebook)
            assert replies and not any(r.stderr.strip().startswith("Traceback") for r in replies)
            if notebook.startswith("09"):  # the class's store holds its explorers' frames: a move is a swap in the page
                live = kernel.execute("import gc; from shared.explorers import Explorer; "
                                      "print(sorted({o.live for o in gc.get_objects() if isinstance(o, Explorer)}))")
                assert live.stdout.strip() == "[False]", f"09's explorers redraw in the kernel: {live.stdout}"
        finally:
            kernel.close()


@pytest.mark.classroom
def test_a_learner_cannot_reach_another_learners_work(hub: TrialClass, running) -> None:
    a, b = (running[name] for name in hub.students)
    b_home = Path(pwd.getpwnam(b.name).pw_dir)
    # through the hub: B's server, B's account and B's server controls refuse A's token
    assert a.server("GET", "contents/notebooks", user=b.name).status_code in (403, 404)
    assert a.api("GET", f"/hub/api/users/{b.name}").status_code in (403, 404)
    assert a.api("DELETE", f"/hub/api/users/{b.name}/server").status_code in (403, 404)
    assert b.server("GET", "contents/notebooks").status_code == 200  # and B still has it
    # from A's kernel: B's home is closed, the course and the store are read-only
    kernel = a.kernel()
    try:
        for code in (f"open({str(b_home / 'isotropy' / 'notebooks' / '01_sphere_vs_cone.ipynb')!r}).read()",
                     f"import os; os.listdir({str(b_home)!r})",
                     f"open({str(hub.prefix / 'course' / 'planted')!r}, 'w')",
                     f"open({str(hub.prefix / 'hub' / 'credentials.csv')!r}).read()"):
            reply = kernel.execute(code)
            assert reply.status == "error" and reply.error.startswith("PermissionError"), (code, reply)
    finally:
        kernel.close()


@pytest.mark.classroom
def test_a_runaway_kernel_fails_alone_and_the_others_keep_answering(hub: TrialClass, running) -> None:
    a, b = (running[name] for name in hub.students)
    runaway, other = a.kernel(), b.kernel()
    try:
        reply = runaway.execute("import numpy as np\nx = np.ones((10**6, 10**5))")
        assert reply.status == "error" and reply.error.startswith("MemoryError"), reply
        reply = runaway.execute("chunks = []\nwhile True:\n    chunks.append(np.ones(2**27))")  # 1 GiB at a time
        assert reply.status == "error" and reply.error.startswith("MemoryError"), reply
        assert runaway.execute("del chunks; print('still here')").stdout.strip() == "still here"

        runaway.send("while True:\n    pass")  # an infinite loop, left running
        time.sleep(2)
        for i in range(5):
            reply = other.execute(f"print({i} * 2)", timeout=30)
            assert reply.status == "ok" and reply.stdout.strip() == str(i * 2)
            assert reply.seconds < 5, f"another learner's kernel took {reply.seconds:.1f} s to answer"
        runaway.interrupt()
        reply = runaway.execute("print('interrupted')", timeout=60)
        assert reply.stdout.strip() == "interrupted"
    finally:
        runaway.close()
        other.close()


@pytest.mark.classroom
def test_edits_survive_a_restart_and_are_never_overwritten(hub: TrialClass, running) -> None:
    learner = running[hub.students[1]]
    path = "contents/notebooks/01_sphere_vs_cone.ipynb"
    model = learner.server("GET", path).json()
    model["content"]["cells"].insert(0, {"cell_type": "markdown", "metadata": {}, "source": "my own note"})
    saved = learner.server("PUT", path, json={"type": "notebook", "format": "json", "content": model["content"]})
    assert saved.status_code == 200, saved.text
    learner.stop_server()
    deadline = time.monotonic() + 60
    while learner.api("GET", f"/hub/api/users/{learner.name}").json()["servers"] and time.monotonic() < deadline:
        time.sleep(0.5)
    learner.start_server()
    again = learner.server("GET", path).json()
    assert again["content"]["cells"][0]["source"] == "my own note"


@pytest.mark.classroom
def test_idle_servers_are_culled_by_a_hub_service(hub: TrialClass) -> None:
    teacher = hub.student(hub.teacher)
    assert teacher.log_in()
    teacher.get_token()
    services = teacher.api("GET", "/hub/api/services").json()
    assert "idle-culler" in services
    assert "idle-culler" in services["idle-culler"]["roles"]
    # the culler has listed the users and their servers' activity (it does at start, then every few minutes)
    assert re.search(r"200 GET /hub/api/users\S* \(idle-culler@", hub.log.read_text()), "the culler cannot list the servers"


@pytest.mark.classroom
def test_a_learner_in_a_browser_logs_in_moves_a_slider_and_sees_a_new_picture(hub: TrialClass, running) -> None:
    from tests.test_e2e import KERNEL_IDLE, NO_RUNNING_CELL, PANEL, chromium_or_skip

    chromium = chromium_or_skip()
    from playwright.sync_api import sync_playwright

    name = hub.students[1]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium,
                                    args=["--no-sandbox", "--disable-gpu", "--no-first-run",
                                          "--disable-background-networking", "--disable-component-update"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{hub.url}/hub/login", timeout=60_000)
            page.fill("input[name=username]", name)
            page.fill("input[name=password]", "not " + hub.passwords[name])
            page.click("input[type=submit], button[type=submit]")
            page.wait_for_selector("text=Invalid username or password", timeout=30_000)
            page.fill("input[name=username]", name)
            page.fill("input[name=password]", hub.passwords[name])
            page.click("input[type=submit], button[type=submit]")
            page.wait_for_url(f"**/user/{name}/lab**", timeout=180_000)
            page.goto(f"{hub.url}/user/{name}/lab/tree/notebooks/01_sphere_vs_cone.ipynb", timeout=60_000)
            page.wait_for_function("window.jupyterapp !== undefined", timeout=60_000)
            page.wait_for_function(KERNEL_IDLE, timeout=120_000)
            page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
            page.wait_for_selector(f"{PANEL} .widget-image", state="attached", timeout=180_000)
            page.wait_for_function(f"() => ({NO_RUNNING_CELL})() && ({KERNEL_IDLE})()", timeout=180_000)
            explorer = page.locator(f"{PANEL} .widget-vbox:has(> .widget-image)").last
            picture, slider = explorer.locator(".widget-image"), explorer.locator(".widget-slider").first
            picture.scroll_into_view_if_needed()
            before = picture.get_attribute("src")
            slider.locator(".noUi-handle").focus()
            page.keyboard.press("ArrowRight")
            page.wait_for_function("([el, src]) => el.getAttribute('src') !== src",
                                   arg=[picture.element_handle(), before], timeout=10_000)
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / "learner.png"))
            assert f"/user/{name}/" in page.url
        finally:
            browser.close()


# --- the parts that need no hub (in the default run) -------------------------------------------------

def test_a_roster_names_its_members_and_refuses_bad_lines(tmp_path: Path) -> None:
    from classroom.roster import Member, read_roster

    good = tmp_path / "roster.csv"
    good.write_text("# the class\nusername,role\nada,teacher\nalan,student\ngrace,\n")
    assert read_roster(good) == [Member("ada", True), Member("alan", False), Member("grace", False)]
    for text, problem in (("name\nada\n", "'username' column"), ("username\nAda\n", "not a valid account name"),
                          ("username\nroot;rm\n", "not a valid account name"), ("username,role\nada,boss\n", "role"),
                          ("username\nada\nada\n", "listed twice"), ("username\n", "lists nobody")):
        bad = tmp_path / "bad.csv"
        bad.write_text(text)
        with pytest.raises(ValueError, match=problem):
            read_roster(bad)


def test_an_install_refuses_an_environment_holding_another_toolkit(tmp_path: Path) -> None:
    """A non-editable install may take a wheel from uv's cache; the install checks that the toolkit the
    learners' kernels will import is this checkout's, file for file."""
    import shutil

    from classroom import install

    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    shutil.copytree(install.ROOT / "shared", site / "shared", ignore=shutil.ignore_patterns("__pycache__"))
    install.installed_toolkit_is_the_checkout(tmp_path / "venv")
    (site / "shared" / "explorers.py").write_text("# the toolkit as it was\n")
    with pytest.raises(RuntimeError, match="another shared/explorers.py"):
        install.installed_toolkit_is_the_checkout(tmp_path / "venv")
    (site / "shared" / "explorers.py").unlink()
    with pytest.raises(RuntimeError, match="another shared/explorers.py"):
        install.installed_toolkit_is_the_checkout(tmp_path / "venv")


@pytest.mark.classroom  # the spawner's module needs JupyterHub (the classroom group)
def test_a_learners_server_gets_a_port_no_bind_to_port_0_can_take() -> None:
    """Kernels bind a TCP port of the system's choosing (ipykernel's pipe for forked processes, even on
    Unix sockets): a server's port must come from below that range, or a kernel starting meanwhile may
    take it first."""
    import socket

    from classroom.spawner import server_port

    low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    ports = {server_port() for _ in range(20)}
    assert all(1024 <= port < low for port in ports) and len(ports) > 1, ports
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))  # what a kernel's pipe does
        assert low <= taken.getsockname()[1] <= high
    with socket.socket() as server:
        server.bind(("127.0.0.1", ports.pop()))  # the port is free


def test_passwords_are_random_hashed_and_checked_exactly(tmp_path: Path) -> None:
    from classroom.accounts import check_password, hash_password, issue_passwords, reset_password
    from classroom.roster import Member

    members = [Member(f"learner{i}", False) for i in range(20)]
    fresh = issue_passwords(members, tmp_path)
    assert len(set(fresh.values())) == 20 and all(len(p) >= 12 for p in fresh.values())
    for name in ("passwords.json", "credentials.csv"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600
    assert issue_passwords(members, tmp_path) == {}, "a second run replaced the passwords"
    stored = hash_password("correct horse")
    assert check_password("correct horse", stored)
    assert not check_password("correct hors", stored) and not check_password("", stored)
    assert not check_password("correct horse", "garbage") and hash_password("correct horse") != stored  # salted
    old = fresh["learner3"]
    new = reset_password("learner3", tmp_path)
    assert new != old and f"learner3,{new}" in (tmp_path / "credentials.csv").read_text()
    assert f"learner3,{old}" not in (tmp_path / "credentials.csv").read_text()
    with pytest.raises(ValueError, match="no account"):
        reset_password("stranger", tmp_path)


def _proxy_answers(command: list[str], requests_at_once: int) -> list[int]:
    """Status codes of ``requests_at_once`` simultaneous requests through the proxy ``command``
    (on 127.0.0.1) to a backend that takes two seconds per request; the proxy waits at most 10 s
    for a reply, and as long for a place in its client's queue."""
    import http.server
    import secrets
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import requests

    from classroom.cli import free_port

    class Slow(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
            time.sleep(2)
            try:
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")
            except BrokenPipeError:  # the stock proxy gave up on this request already
                pass

        def log_message(self, *args) -> None:
            pass

    class Server(http.server.ThreadingHTTPServer):
        request_queue_size = 256  # every request at once is accepted, none waits for the backlog
        daemon_threads = True

    backend = Server(("127.0.0.1", 0), Slow)
    threading.Thread(target=backend.serve_forever, daemon=True).start()
    port, api = free_port(), free_port()
    proxy = subprocess.Popen(
        [*command, "--ip", "127.0.0.1", "--port", str(port), "--api-ip", "127.0.0.1", "--api-port", str(api),
         "--default-target", f"http://127.0.0.1:{backend.server_address[1]}", "--proxy-timeout", "10000"],
        cwd=ROOT, env=dict(os.environ, CONFIGPROXY_AUTH_TOKEN=secrets.token_hex(16)),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                requests.get(f"http://127.0.0.1:{port}/", timeout=5)
                break
            except requests.ConnectionError:
                if proxy.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the proxy did not start") from None
                time.sleep(0.2)
        with ThreadPoolExecutor(requests_at_once) as pool:
            return list(pool.map(lambda i: requests.get(f"http://127.0.0.1:{port}/{i}", timeout=30).status_code,
                                 range(requests_at_once)))
    finally:
        proxy.terminate()
        proxy.wait(timeout=30)
        backend.shutdown()


@pytest.mark.classroom
def test_the_proxy_forwards_a_whole_class_at_once() -> None:
    """Eighty slow requests at once (2 s each) all pass the class server's proxy; the stock
    pure-Python proxy forwards ten at a time, so the last twenty wait 12-14 s in its queue and get
    503 (as four of 30 learners did in the load test before classroom/proxy.py). The 8 s between
    a request's 2 s and the 10 s timeout leave room for a busy machine."""
    import sys

    ours = _proxy_answers([sys.executable, "-m", "classroom.proxy"], 80)
    assert ours == [200] * 80
    stock = _proxy_answers([str(Path(sys.executable).with_name("configurable-http-proxy"))], 80)
    assert stock.count(503) >= 10 and stock.count(200) >= 10, stock


def test_images_that_may_outgrow_the_disk_they_lie_on_are_named(tmp_path: Path, capsys) -> None:
    """The capped folders' images are sparse: what they may still take is their size less what they
    hold, and where that passes the disk's free space the class is told (a class that filled them would
    fill the disk the hub needs)."""
    import shutil

    from classroom.cli import EXCHANGE_IMAGES, INBOX_IMAGES, warn_if_images_outgrow_the_disk

    free = shutil.disk_usage(tmp_path).free
    for folder, name in (("homes", "ada.img"), (EXCHANGE_IMAGES, "srv-exchange.img"), (f"{INBOX_IMAGES}/srv", "ada.img")):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        with open(tmp_path / folder / name, "wb") as image:
            image.write(b"x" * 4096)  # what the folder holds: taken already
            image.truncate(2**20)
    assert warn_if_images_outgrow_the_disk(tmp_path) == 3 * (2**20 - 4096)
    assert "WARNING" not in capsys.readouterr().out
    with open(tmp_path / "homes" / "bob.img", "wb") as image:
        image.truncate(free + 2**30)
    assert warn_if_images_outgrow_the_disk(tmp_path) == 3 * (2**20 - 4096) + free + 2**30
    said = capsys.readouterr().out
    assert "WARNING: the 4 images" in said and "--home-size" in said
