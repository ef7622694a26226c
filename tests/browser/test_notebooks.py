"""The tutorial notebook in real notebook pages, in headless Chromium (issue 39 items 1, 2, 7).

nbconvert's HTML of the executed tutorial: its pictures load and its stepper steps (no kernel there).
JupyterLab and Notebook 7 (where `jupyter-lab` / `jupyter-notebook` are installed; .ci/run installs them
where it can): the same notebook, executed elsewhere and so untrusted there, shows every picture -- their
sanitizer keeps an <img> of an SVG and strips an inline <svg> and the stepper's scripts, whose picture of
the step is left; trusted (its owner's), in JupyterLab's dark theme, the stepper steps."""

import json
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
    tab.screenshot(str(tmp_path / "nbconvert-step2.png"))


def program(name: str, package: str) -> str:
    found = os.environ.get("BPS_" + name.upper().replace("-", "_")) or shutil.which(name)
    if not found:
        pytest.skip(f"{name} is not installed here (pip install {package}; .ci/run does where it can)")
    return found


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(name, package, executed, tmp_path, trusted=False, theme=""):
    """A notebook server of its own (JupyterLab or Notebook 7) on a copy of the executed tutorial: a fresh
    notebook secret, so the notebook is untrusted there unless `trusted` (`jupyter trust` with that secret,
    as its owner would). theme: a JupyterLab theme's name ("JupyterLab Dark"). Yields its address."""
    found = program(name, package)
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(executed, root / "tutorial.ipynb")
    env = dict(os.environ, JUPYTER_DATA_DIR=str(tmp_path / "data"), JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))  # fmt: skip
    if theme:
        settings = tmp_path / "config" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
        settings.mkdir(parents=True)
        (settings / "themes.jupyterlab-settings").write_text(json.dumps({"theme": theme}))
    if trusted:
        import nbformat
        from nbformat.sign import NotebookNotary

        (tmp_path / "data").mkdir()  # `jupyter trust`: signed with the secret of the server's data folder
        NotebookNotary(data_dir=str(tmp_path / "data")).sign(nbformat.read(str(root / "tutorial.ipynb"), as_version=4))
    port = free_port()
    server = subprocess.Popen(
        [found, "--no-browser", f"--port={port}", "--ServerApp.token=", "--ServerApp.password=",
         f"--ServerApp.root_dir={root}", "--allow-root", "--ServerApp.open_browser=False"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    try:
        while True:  # until the server answers (or has died)
            try:
                urllib.request.urlopen(url + "/api", timeout=5).read()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"{name} did not start (exit {server.poll()})")
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture
def lab(executed, tmp_path):
    yield from serve("jupyter-lab", "jupyterlab", executed, tmp_path)


@pytest.fixture
def trusted_lab_dark(executed, tmp_path):
    yield from serve("jupyter-lab", "jupyterlab", executed, tmp_path, trusted=True, theme="JupyterLab Dark")


@pytest.fixture
def notebook7(executed, tmp_path):
    yield from serve("jupyter-notebook", "notebook", executed, tmp_path)


def shows_every_picture_untrusted(tab):
    """An untrusted notebook's page: every picture shown, no digit below 11 px, the stepper's step a picture."""
    outputs = "document.querySelectorAll('.jp-OutputArea-output')"
    tab.wait(f"{outputs}.length >= 8", timeout=120)
    assert tab.js("document.querySelectorAll('.jp-OutputArea-output.jp-mod-trusted').length") == 0  # untrusted
    tab.wait(f"{PICTURES}.length >= 6 && {PICTURES}.every(i => i.complete && i.naturalWidth > 0)", timeout=60)
    assert tab.js("document.querySelectorAll('.jp-OutputArea-output svg').length") == 0  # none inline to strip
    # the stepper's scripts are stripped here: no frame; its picture of the step and its line are what is left
    assert tab.js("document.querySelectorAll('.jp-OutputArea-output iframe').length") == 0
    steppers = "Array.from(document.querySelectorAll('.backprop-studio-stepper'))"
    assert tab.js(f"{steppers}.length") >= 1  # the tutorial's (and section 4's big one, once it is rendered)
    assert tab.js(f"{steppers}.every(s => s.querySelectorAll('img').length === 1)")
    assert tab.js(f"{steppers}.every(s => s.textContent.includes('not trusted'))")
    widths = tab.js(f"{PICTURES}.map(i => i.getBoundingClientRect().width / i.naturalWidth)")
    assert min(widths) * 16 >= 11 - 0.05  # no picture shrunk below 11 px digits by the notebook's stylesheet


def test_an_untrusted_notebook_shows_its_pictures_in_jupyterlab(browser, lab, tmp_path):
    """The repro: a notebook someone else executed showed its graphs as run-on text (the <svg> stripped)."""
    tab = browser.open(f"{lab}/lab/tree/tutorial.ipynb", 1300, 5000)  # tall: every output rendered at once
    shows_every_picture_untrusted(tab)
    tab.screenshot(str(tmp_path / "lab-untrusted.png"))


def test_an_untrusted_notebook_shows_its_pictures_in_notebook_7(browser, notebook7, tmp_path):
    tab = browser.open(f"{notebook7}/notebooks/tutorial.ipynb", 1300, 5000)
    shows_every_picture_untrusted(tab)
    tab.screenshot(str(tmp_path / "notebook7-untrusted.png"))


def test_a_trusted_notebook_steps_in_jupyterlab_dark(browser, trusted_lab_dark, tmp_path):
    """Its owner's notebook (trusted): the stepper's loader builds the page in its frame, and Step steps it."""
    tab = browser.open(f"{trusted_lab_dark}/lab/tree/tutorial.ipynb", 1300, 5000)
    tab.wait("document.querySelectorAll('.jp-OutputArea-output.jp-mod-trusted').length >= 8", timeout=120)
    tab.wait("document.body.dataset.jpThemeLight === 'false'", timeout=60)  # the dark theme is on
    tab.wait(f"{PICTURES}.length >= 5 && {PICTURES}.every(i => i.complete && i.naturalWidth > 0)", timeout=60)
    frame = ".backprop-studio-stepper iframe"
    tab.wait(f"document.querySelector('{frame}') !== null", timeout=60)
    tab.wait(f"document.getElementById('count') && {COUNT} === 'step 0 of 3'", frame=frame)
    tab.click("#step", frame=frame)
    tab.wait(f"{COUNT} === 'step 1 of 3'", frame=frame)
    assert "f._backward()" in tab.js("document.getElementById('line').textContent", frame=frame)
    tab.screenshot(str(tmp_path / "lab-dark-trusted.png"))
    # section 4: a 3,250-node loss, stepped a block a click in its own frame
    steppers = "document.querySelectorAll('.backprop-studio-stepper')"
    tab.js("document.querySelector('.jp-Notebook .jp-Cell:last-child').scrollIntoView()")
    tab.wait(f"{steppers}.length === 2 && {steppers}[1].querySelector('iframe') !== null", timeout=60)
    big = f"#{tab.js(f'{steppers}[1].id')} iframe"
    tab.wait(f"document.getElementById('count') && {COUNT}.startsWith('step 0 of ')", frame=big)
    tab.click("#step", frame=big)
    tab.wait(f"{COUNT}.startsWith('step 1 of ')", frame=big)
    line = tab.js("document.getElementById('line').textContent", frame=big)
    assert line.startswith("Step 1 of ") and "the backward of " in line
    assert tab.js("document.querySelector('g.unit .halo[visibility=visible]') !== null", frame=big)
    tab.screenshot(str(tmp_path / "lab-dark-big.png"))
