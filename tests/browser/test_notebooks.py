"""The tutorial notebook in real notebook pages, in headless Chromium (issue 39 items 1, 2, 7).

nbconvert's HTML of the executed tutorial: its pictures load and its stepper steps (no kernel there).
JupyterLab (where `jupyter-lab` is installed; .ci/run installs it where it can): the same notebook,
executed elsewhere and so untrusted here, shows every picture -- JupyterLab's sanitizer keeps an <img>
of an SVG and strips an inline <svg> and the stepper's <iframe>, whose picture of the step is left."""

import os
import shutil
import socket
import subprocess
import time
import urllib.request

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NOTEBOOK = os.path.join(ROOT, "resources", "notebooks", "backprop_tutorial.ipynb")
COUNT = "document.getElementById('count').textContent"
PICTURES = "Array.from(document.querySelectorAll('img')).filter(i => i.src.startsWith('data:image/svg+xml'))"


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    """The tutorial, executed on a kernel as a teacher would before sharing it."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    shim = tmp_path_factory.mktemp("site")
    os.symlink(os.path.join(ROOT, "resources"), shim / "backprop_studio")
    work = tmp_path_factory.mktemp("work")
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(shim), ROOT] + ([old] if old else []))
    try:
        nb = nbformat.read(NOTEBOOK, as_version=4)
        nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(work)}}
                                ).execute()  # fmt: skip
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    path = work / "tutorial.ipynb"
    nbformat.write(nb, str(path))
    return path


def test_nbconvert_html_shows_the_pictures_and_steps(browser, executed, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    exporter = pytest.importorskip("nbconvert").HTMLExporter()
    exporter.mathjax_url = exporter.require_js_url = ""  # nothing to fetch: the page is opened offline
    html, _ = exporter.from_notebook_node(nbformat.read(str(executed), as_version=4))
    (tmp_path / "tutorial.html").write_text(html, encoding="utf-8")
    tab = browser.open((tmp_path / "tutorial.html").as_uri(), 1200, 900)
    tab.wait(f"{PICTURES}.length >= 5 && {PICTURES}.every(i => i.complete && i.naturalWidth > 0)")
    frame = ".backprop-studio-stepper iframe"
    tab.wait(f"document.getElementById('count') && {COUNT} === 'step 0 of 3'", frame=frame)
    tab.click("#step", frame=frame)
    tab.wait(f"{COUNT} === 'step 1 of 3'", frame=frame)
    tab.click("#step", frame=frame)
    tab.wait(f"{COUNT} === 'step 2 of 3'", frame=frame)
    assert "y.grad += 2·y.data · (y^2).grad = -4.0000" in tab.js("document.getElementById('line').textContent",
                                                                 frame=frame)  # fmt: skip


def jupyter_lab():
    found = os.environ.get("BPS_JUPYTER_LAB") or shutil.which("jupyter-lab")
    if not found:
        pytest.skip("JupyterLab is not installed here (pip install jupyterlab; .ci/run does where it can)")
    return found


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(executed, tmp_path):
    """A JupyterLab server of its own (a fresh notebook secret: the executed notebook is untrusted there)."""
    program = jupyter_lab()
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(executed, root / "tutorial.ipynb")
    port = free_port()
    env = dict(os.environ, JUPYTER_DATA_DIR=str(tmp_path / "data"), JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))  # fmt: skip
    server = subprocess.Popen(
        [program, "--no-browser", f"--port={port}", "--ServerApp.token=", "--ServerApp.password=",
         f"--ServerApp.root_dir={root}", "--allow-root", "--ServerApp.open_browser=False"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:  # until the server answers (or has died)
        try:
            urllib.request.urlopen(url + "/api", timeout=5).read()
            break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                pytest.fail(f"JupyterLab did not start (exit {server.poll()})")
            time.sleep(0.2)
    yield url
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def test_an_untrusted_notebook_shows_its_pictures_in_jupyterlab(browser, lab, tmp_path):
    """The repro: a notebook someone else executed showed its graphs as run-on text (the <svg> stripped)."""
    tab = browser.open(f"{lab}/lab/tree/tutorial.ipynb", 1300, 5000)  # tall: every output rendered at once
    outputs = "document.querySelectorAll('.jp-OutputArea-output')"
    tab.wait(f"{outputs}.length >= 8", timeout=120)
    assert tab.js("document.querySelectorAll('.jp-OutputArea-output.jp-mod-trusted').length") == 0  # untrusted
    tab.wait(f"{PICTURES}.length >= 6 && {PICTURES}.every(i => i.complete && i.naturalWidth > 0)", timeout=60)
    assert tab.js("document.querySelectorAll('.jp-OutputArea-output svg').length") == 0  # none inline to strip
    # the stepper's frame is stripped here; its picture of step 0 is what is left, saying why
    assert tab.js("document.querySelectorAll('.jp-OutputArea-output iframe').length") == 0
    assert tab.js("document.querySelectorAll('.backprop-studio-stepper img').length") == 1
    widths = tab.js(f"{PICTURES}.map(i => i.getBoundingClientRect().width / i.naturalWidth)")
    assert min(widths) * 16 >= 11 - 0.05  # no picture shrunk below 11 px digits by the notebook's stylesheet
    tab.screenshot(str(tmp_path / "lab.png"))
