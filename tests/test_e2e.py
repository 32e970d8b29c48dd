"""End to end, as a learner does it: JupyterLab in a real (headless) browser, every notebook run,
every slider moved with the keyboard (a notch at a time, then a jump), every picture checked.

Needs Chromium (Debian's ``chromium`` package, at ``/usr/bin/chromium`` or on ``PATH``). Without it
the tests are skipped with the reason shown, unless ``COURSE_E2E_REQUIRED=1`` (set by CI), which
turns a missing browser into a failure. JupyterLab serves a temporary copy of the notebooks, so
its autosave never touches the repository. Screenshots go to ``build/e2e/``.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SHOTS = ROOT / "build" / "e2e"
LATENCIES: dict[str, list[float]] = {}  # seconds from a key press to the new picture on screen, timed in the page
DRIVER_LATENCIES: dict[str, list[float]] = {}  # the same moves as the test's driver sees them (with its own round trips)
MOVES = int(os.environ.get("COURSE_E2E_MOVES", "1"))  # key presses per slider (benchmarks/browser.py asks for more)
HELD: dict[str, list[bool]] = {}  # per move: whether the page held its picture, drawn ahead (shared/data/ahead.js)
LIVE = ("01", "02", "03", "04", "05", "06")  # the toys' notebooks: their explorers are live (too many settings for frames)
LOOK_MS = 300  # before each move, the learner looks at the picture this long (the kernel draws ahead meanwhile)

pytestmark = pytest.mark.e2e


def _chromium() -> str | None:
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def chromium_or_skip() -> str:
    """Chromium's path; without it the calling test is skipped (failed where COURSE_E2E_REQUIRED=1,
    as in .ci/run)."""
    path = _chromium()
    if path is None:
        message = "Chromium not found: install Debian's 'chromium' package to run the browser tests"
        if os.environ.get("COURSE_E2E_REQUIRED") == "1":
            pytest.fail(message + " (COURSE_E2E_REQUIRED=1)")
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
def chromium() -> str:
    return chromium_or_skip()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _serve_lab(home: Path, trusted: tuple[Path, ...] = ()) -> Iterator[str]:
    """A JupyterLab server on 127.0.0.1 serving a copy of the notebooks from ``home``; yields its
    base URL. Its signature database is its own (``JUPYTER_DATA_DIR`` under ``home``), holding the
    notebooks of ``trusted`` signed as the course's start script does, and nothing of this account's."""
    work = home / "notebooks"
    work.mkdir()
    for nb in NOTEBOOKS:
        shutil.copy(nb, work / nb.name)
    env = dict(os.environ, JUPYTER_DATA_DIR=str(home / "data"))
    if trusted:  # signed where they are, as the class server signs its read-only course: the copies are trusted
        subprocess.run([sys.executable, "-m", "jupyter", "trust", *map(str, trusted)], env=env, check=True,
                       capture_output=True)
    # No notification settings here: the course's own overrides (installed into the environment from
    # jupyter/overrides.json) must keep the news prompt away, as they do for a learner.
    notebook_settings = home / "settings" / "@jupyterlab" / "notebook-extension"
    notebook_settings.mkdir(parents=True)
    # render every cell (no virtual scrolling), so the explorer exists in the page once it has run
    (notebook_settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    port, token = _free_port(), secrets.token_hex(16)
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1",
        f"--port={port}", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={work}",
        f"--LabApp.user_settings_dir={home / 'settings'}", f"--LabApp.workspaces_dir={home / 'workspaces'}",
        "--expose-app-in-browser",
    ]
    log = open(home / "lab.log", "w")
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=work, env=env,
                              start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"JupyterLab did not start; see {home / 'lab.log'}") from None
                time.sleep(0.5)
        yield f"{base}/lab/workspaces/{{}}/tree/{{}}?token={token}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.fixture(scope="module")
def lab(chromium: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """JupyterLab, as a learner who runs the course on their own machine without trusting it."""
    yield from _serve_lab(tmp_path_factory.mktemp("lab"))


@pytest.fixture(scope="module")
def trusted_lab(chromium: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """JupyterLab, as on the class server: the course's notebooks trusted by the learner."""
    yield from _serve_lab(tmp_path_factory.mktemp("trusted-lab"), trusted=tuple(NOTEBOOKS))


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chrome = p.chromium.launch(
            executable_path=chromium,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        )
        try:
            yield chrome
        finally:
            chrome.close()


PANEL = ".jp-NotebookPanel:not(.lm-mod-hidden)"  # the notebook tab on show
NO_RUNNING_CELL = """() => [...document.querySelectorAll('.jp-InputArea-prompt')]
    .every(prompt => !prompt.textContent.includes('*'))"""
KERNEL_IDLE = """() => {
    const kernel = window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel;
    return kernel !== undefined && kernel !== null && kernel.status === 'idle';
}"""


# Times, in the page, one slider move of the explorer it is called on: from the last key press (the
# event's own time stamp) until a new picture is in the explorer, decoded and painted (the first task
# after the next frame); the result, in ms, lands in window.courseMoveMs. The driver's own round trips
# (sending the key, asking the page) are not in it: they are no part of what a learner waits for.
TIME_THE_NEXT_PICTURE = """explorer => {
    window.courseMoveMs = null;
    const pictures = () => [...explorer.querySelectorAll('.widget-image')];
    const shown = () => pictures().map(img => img.getAttribute('src')).join(' ');
    const before = shown();
    let pressed = null;
    const onKey = event => { pressed = event.timeStamp; };
    document.addEventListener('keydown', onKey, true);
    const observer = new MutationObserver(() => {
        if (pressed === null || shown() === before || pictures().some(img => !img.getAttribute('src'))) return;
        observer.disconnect();
        document.removeEventListener('keydown', onKey, true);
        Promise.all(pictures().map(img => img.decode().catch(() => null))).then(() =>
            requestAnimationFrame(() => setTimeout(() => { window.courseMoveMs = performance.now() - pressed; })));
    });
    observer.observe(explorer, {subtree: true, childList: true, attributes: true, attributeFilter: ['src']});
}"""


def open_and_run_all(page, url: str) -> None:
    """Open the notebook at ``url``, run all its cells and wait until they have run and a picture is shown."""
    page.goto(url, timeout=60_000)
    page.wait_for_function("window.jupyterapp !== undefined", timeout=60_000)
    page.wait_for_function(KERNEL_IDLE, timeout=60_000)
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    page.wait_for_selector(f"{PANEL} .widget-image", state="attached", timeout=120_000)
    page.wait_for_function(f"() => ({NO_RUNNING_CELL})() && ({KERNEL_IDLE})()", timeout=120_000)


def time_a_move(page, explorer, slider, key: str) -> tuple[float, float, str, bool]:
    """After looking at the picture for :data:`LOOK_MS`, press ``key`` on ``slider`` of ``explorer`` (the
    other way where the slider is at its end) and wait for the new picture: the seconds timed in the
    page, the seconds the driver saw, the key that moved it, and whether the page held the picture
    (drawn ahead)."""
    page.wait_for_timeout(LOOK_MS)
    readout = slider.locator(".widget-readout")
    before = readout.inner_text()
    slider.locator(".noUi-handle").focus()
    explorer.evaluate(TIME_THE_NEXT_PICTURE)
    held = page.evaluate(AHEAD_SHOWN)
    start = time.perf_counter()
    page.keyboard.press(key)
    if readout.inner_text() == before:  # at an end: back the other way
        key = OTHER_WAY[key]
        page.keyboard.press(key)
    page.wait_for_function("() => window.courseMoveMs !== null", timeout=2_000)
    driver = time.perf_counter() - start
    # one picture shown: a frame, the kernel's, or the one the page held in its place
    assert explorer.locator(".widget-image:visible").count() == 1
    return page.evaluate("() => window.courseMoveMs") / 1000, driver, key, page.evaluate(AHEAD_SHOWN) > held


AHEAD_SHOWN = "() => globalThis.courseAheadShown ?? 0"  # pictures the page showed from those drawn ahead
OTHER_WAY = {"ArrowRight": "ArrowLeft", "ArrowLeft": "ArrowRight", "PageUp": "PageDown", "PageDown": "PageUp"}


def commit_and_show_every_prediction(page) -> None:
    """As a learner reading on: pick the first option of each prediction, commit it, show the answer."""
    widgets = page.locator(f"{PANEL} .course-prediction")
    for i in range(widgets.count()):
        widget = widgets.nth(i)
        widget.scroll_into_view_if_needed()
        widget.locator("input[type=radio]").first.check()
        widget.get_by_role("button", name="Commit my guess").click()
        show = widget.get_by_role("button", name="Show the answer")
        if show.is_visible():
            show.click()
            show.wait_for(state="hidden", timeout=10_000)


@pytest.mark.parametrize("notebook", [nb.name for nb in NOTEBOOKS], ids=lambda n: n[:2])
def test_notebook_runs_and_its_sliders_redraw_the_picture(notebook: str, lab: str, browser) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        open_and_run_all(page, lab.format(Path(notebook).stem, notebook))  # a workspace of its own
        commit_and_show_every_prediction(page)

        assert page.get_by_text("notified about official Jupyter news").count() == 0, "the news prompt is shown"
        errors = page.locator(f"{PANEL} .jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
        assert errors.count() == 0, f"error output: {errors.first.inner_text()[:500]}"
        for broken in ("Error displaying widget", "Loading widget..."):
            assert page.get_by_text(broken).count() == 0, f"a widget shows '{broken}'"

        explorers = page.locator(f"{PANEL} .course-explorer")
        assert explorers.count() >= 1, "no explorer is rendered"
        timings, driver, held = [], [], []
        for e in range(explorers.count()):
            explorer = explorers.nth(e)
            sliders = explorer.locator(".widget-slider")
            assert sliders.count() >= 1, "the explorer's sliders are not rendered"
            explorer.locator(".widget-image").first.scroll_into_view_if_needed()
            for i in range(sliders.count()):
                key = "ArrowRight"
                for _ in range(MOVES):
                    in_page, seen, key, ahead = time_a_move(page, explorer, sliders.nth(i), key)
                    timings.append(in_page)
                    driver.append(seen)
                    held.append(ahead)
                # and a jump (PageUp: several notches, as a drag's release or a click on the track is)
                in_page, seen, _, ahead = time_a_move(page, explorer, sliders.nth(i), "PageUp")
                timings.append(in_page)
                driver.append(seen)
                held.append(ahead)
        LATENCIES[notebook] = timings
        DRIVER_LATENCIES[notebook] = driver
        HELD[notebook] = held
        if notebook[:2] in LIVE:  # a move one notch away: the page held its picture, drawn ahead while the learner looked
            assert any(held), "no move was shown from the pictures the kernel drew ahead"
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{Path(notebook).stem}.png"))
    finally:
        page.close()


# A live explorer of the course's own wiring whose kernel computes and draws nothing: its view hands
# back one of three of notebook 01's explorer pictures, drawn before. A move then costs only what every live
# move costs (the slider's message to the kernel, the picture's way back, its decoding and painting):
# the floor under the live explorers of 01 to 06, measured beside them.
ROUND_TRIP = """
from shared import sphere_and_cone
import os

from shared.ahead import DRAW_AHEAD
from shared.explorers import explore, slider
from shared.figures import SphereConeView

# three of notebook 01's explorer pictures (about 75 KB each), drawn once, here
PICTURES = {pick: SphereConeView(*sphere_and_cone(strength=2.0 * pick, residual=0.1)).image() for pick in (1, 2, 3)}

class Pictures:
    measure = staticmethod(lambda pick: pick)
    @classmethod
    def of(cls, pick):
        view = cls()
        view.draw(pick)
        return view
    def draw(self, pick):
        self.pick = pick
    def image(self):
        return PICTURES[self.pick]
    def readings(self):
        return {}

os.environ[DRAW_AHEAD] = "0"  # every move drawn when it comes, as a jump is
explorer = explore(lambda pick: pick, Pictures, title="a round trip", pick=slider("picture", 2, 1, 3, 1))
assert explorer.live
explorer
"""


def test_a_live_explorer_whose_kernel_does_nothing_still_waits_for_the_round_trip(lab: str, browser) -> None:
    """Every move of a live explorer with nothing to compute or draw shows the next picture; the time it
    takes is the floor under every live explorer's move (benchmarks/browser.py prints it)."""
    base, token = lab.split("/lab/")[0], lab.split("token=")[1]
    notebook = {"cells": [{"cell_type": "code", "metadata": {}, "source": ROUND_TRIP, "outputs": [],
                           "execution_count": None}],
                "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
                "nbformat": 4, "nbformat_minor": 5}
    request = urllib.request.Request(f"{base}/api/contents/round_trip.ipynb?token={token}", method="PUT",
                                     data=json.dumps({"type": "notebook", "content": notebook}).encode(),
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=30)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        open_and_run_all(page, lab.format("round-trip", "round_trip.ipynb"))
        explorer = page.locator(f"{PANEL} .course-explorer")
        timings, key = [], "ArrowRight"
        for _ in range(max(MOVES, 2) * 4):
            in_page, _, key, held = time_a_move(page, explorer, explorer.locator(".widget-slider"), key)
            assert not held
            timings.append(in_page)
        LATENCIES["live round trip, nothing drawn"] = timings
    finally:
        page.close()


def _cell(page, text: str):
    """The notebook cell whose text contains ``text``."""
    return page.locator(f"{PANEL} .jp-Cell").filter(has_text=text).last


def test_a_prediction_hides_its_answer_until_the_guess_is_committed_and_shown(lab: str, browser) -> None:
    notebook = "02_illusory_cosine.ipynb"
    answer = "Random pairs of the isotropic cloud have a mean cosine of"  # 02.p1's reveal-end cell
    folded = "cos_iso = random_cosines(X_iso, rng)"  # the folded cell that prints 02.p1's answer
    later = "Standardising leaves coordinate 7 a share of"  # 02.p2's explanation
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(lab.format("reveal", notebook), timeout=60_000)
        page.wait_for_function("window.jupyterapp !== undefined", timeout=60_000)
        page.wait_for_function(KERNEL_IDLE, timeout=60_000)
        # Opened, not yet run, a notebook the learner has not trusted (nor saved): JupyterLab shows
        # the stored widget's text form, and the answers, until the widget's cell runs.
        assert _cell(page, answer).is_visible() and page.locator(f"{PANEL} .course-reveal").count() == 0
        page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
        page.wait_for_function(f"() => ({NO_RUNNING_CELL})() && ({KERNEL_IDLE})()", timeout=120_000)
        for text in (answer, folded, later):  # hidden as soon as the widget is drawn
            _cell(page, text).wait_for(state="hidden", timeout=30_000)

        widget = page.locator(f"{PANEL} .course-prediction").first
        show = widget.get_by_role("button", name="Show the answer")
        assert show.is_disabled(), "the answer can be shown before a guess is committed"
        widget.get_by_text("close to 1").click()
        widget.get_by_role("button", name="Commit my guess").click()
        page.wait_for_function("el => !el.disabled", arg=show.element_handle(), timeout=30_000)
        assert _cell(page, answer).is_hidden(), "committing alone shows the answer"
        show.click()
        _cell(page, answer).wait_for(state="visible", timeout=10_000)
        assert _cell(page, folded).is_visible()
        assert _cell(page, later).is_hidden(), "the next prediction's answer is shown too"

        page.reload()  # the browser remembers what was shown, not what was not
        page.wait_for_function("window.jupyterapp !== undefined", timeout=60_000)
        page.wait_for_function(KERNEL_IDLE, timeout=60_000)
        page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
        page.wait_for_function(f"() => ({NO_RUNNING_CELL})() && ({KERNEL_IDLE})()", timeout=120_000)
        _cell(page, later).wait_for(state="hidden", timeout=30_000)  # the widgets are drawn again
        assert _cell(page, answer).is_visible(), "a reloaded notebook hides an answer already shown"
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "reveal.png"))
    finally:
        page.close()


def test_a_trusted_notebook_hides_the_answer_before_any_cell_runs(trusted_lab: str, browser) -> None:
    notebook = "02_illusory_cosine.ipynb"
    answer = "Random pairs of the isotropic cloud have a mean cosine of"  # 02.p1's reveal-end cell
    folded = "cos_iso = random_cosines(X_iso, rng)"
    later = "Standardising leaves coordinate 7 a share of"  # 02.p2's explanation
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(trusted_lab.format("trusted", notebook), timeout=60_000)
        page.wait_for_function("window.jupyterapp !== undefined", timeout=60_000)
        # the widgets stored in the notebook are drawn once its kernel is up: no cell is run here
        page.locator(f"{PANEL} .course-reveal").first.wait_for(state="attached", timeout=120_000)
        for text in (answer, folded, later):
            _cell(page, text).wait_for(state="hidden", timeout=30_000)
        assert _cell(page, "Predict first. The cone's points differ only").is_visible(), "the prompt is hidden too"
        show = page.locator(f"{PANEL} .course-reveal-show").first
        assert show.is_visible() and show.is_disabled(), "the answer can be shown before a guess is committed"
        show.scroll_into_view_if_needed()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "reveal-trusted.png"))

        # Run, saved by JupyterLab (so trusted), its kernel stopped, opened again: the widgets it saved
        # (the course's settings save their state) are drawn again and hide the answers again.
        page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
        page.wait_for_function(f"() => ({NO_RUNNING_CELL})() && ({KERNEL_IDLE})()", timeout=120_000)
        page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
        page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=30_000)
        page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
        page.wait_for_function("() => !window.jupyterapp.shell.currentWidget.sessionContext.session", timeout=30_000)
        page.reload()
        page.wait_for_function("window.jupyterapp !== undefined", timeout=60_000)
        page.locator(f"{PANEL} .course-reveal").first.wait_for(state="attached", timeout=120_000)
        for text in (answer, folded, later):
            _cell(page, text).wait_for(state="hidden", timeout=30_000)
        assert page.get_by_text("Error displaying widget").count() == 0, "a saved widget is unknown when reopened"
    finally:
        page.close()
