"""A normal install works from anywhere (issue 30 item 1).

The fast tests read pyproject.toml: every package under core/ and app/ is
installed, and nothing generic (a top-level `main`) is. The slow one builds the
wheel from a copy of the checkout, installs it with pip into a fresh venv for
each Python 3.10-3.13 this machine has, and runs the installed
`backprop-studio` from a folder outside the checkout, without PYTHONPATH: a
lesson step and an example rendered to PNG, --check-engine on the shipped
engine, and every lesson, example and icon found through the installed package.
"""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from core import resources

tomllib = pytest.importorskip("tomllib")  # Python 3.11+; the suite's own Python

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHONS = ("3.10", "3.11", "3.12", "3.13")
OFFLINE = re.compile(r"Network is unreachable|Temporary failure in name resolution|Max retries|ConnectionError")


def pyproject():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


def packages_in_tree():
    found = set()
    for top in ("core", "app"):
        for folder, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            if "__init__.py" in files:
                found.add(os.path.relpath(folder, ROOT).replace(os.sep, "."))
    return found


def test_every_package_is_installed():
    listed = set(pyproject()["tool"]["setuptools"]["packages"])
    missing = packages_in_tree() - listed
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {sorted(missing)}"
    gone = {p for p in listed if not p.startswith("backprop_studio")} - packages_in_tree()
    shipped = {f"backprop_studio.{n}" for n in os.listdir(os.path.join(ROOT, "resources")) if not n.startswith("__")}
    shipped = {p for p in shipped if os.path.isdir(os.path.join(ROOT, "resources", p.split(".")[1]))}
    assert shipped <= listed, f"add to [tool.setuptools] packages in pyproject.toml: {sorted(shipped - listed)}"
    assert not gone, f"listed in pyproject.toml but not in the tree: {sorted(gone)}"


def test_nothing_generic_is_installed_at_the_top():
    setup = pyproject()["tool"]["setuptools"]
    assert "py-modules" not in setup  # main.py is the checkout's launcher, never a site-packages `main`
    assert {p.split(".")[0] for p in setup["packages"]} == {"backprop_studio", "core", "app"}
    assert setup["package-dir"] == {"backprop_studio": "resources"}
    assert pyproject()["project"]["scripts"] == {"backprop-studio": "backprop_studio:main"}


def test_a_checkout_reads_its_own_resources():
    assert resources.root() == os.path.join(ROOT, "resources")
    assert os.path.isfile(resources.shipped("examples", "tutorial.json"))


def test_an_install_reads_the_packages_resources(tmp_path, monkeypatch):
    """No checkout around core (site-packages): the files come from the package backprop_studio."""
    package = tmp_path / "backprop_studio"
    (package / "lessons").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "backprop_studio", raising=False)
    monkeypatch.setattr(resources, "CHECKOUT", str(tmp_path / "site-packages" / "resources"))  # not there
    assert resources.root() == str(package)
    assert resources.shipped("lessons") == str(package / "lessons")


def interpreter(version):
    """A working pythonX.Y, or None (a pyenv shim answers for every version but runs only its own)."""
    candidates = [shutil.which(f"python{version}")]
    if version == f"{sys.version_info.major}.{sys.version_info.minor}":
        candidates.insert(0, sys.executable)
    pyenv = shutil.which("pyenv")
    if pyenv:
        try:
            root = subprocess.run([pyenv, "root"], capture_output=True, text=True, timeout=30).stdout.strip()
            versions = os.path.join(root, "versions")
            for name in sorted(os.listdir(versions), reverse=True):
                if name.startswith(version + "."):
                    candidates.append(os.path.join(versions, name, "bin", f"python{version}"))
        except (OSError, subprocess.SubprocessError):
            pass
    for exe in filter(None, candidates):
        try:
            ok = subprocess.run([exe, "-c", "import venv"], capture_output=True, timeout=60).returncode == 0
        except (OSError, subprocess.SubprocessError):
            ok = False
        if ok:
            return exe
    return None


def can_build_here():
    """Does this Python's setuptools build our wheel by itself? pyproject.toml's build-system
    asks for setuptools 77 (an SPDX license string; bdist_wheel built in); with an older one
    pip builds in isolation, fetching it."""
    try:
        import setuptools
    except ImportError:
        return False
    major = int(setuptools.__version__.split(".")[0])
    return major >= 77


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel, built from a copy of the checkout (the build writes build/ and egg-info where it runs)."""
    src = tmp_path_factory.mktemp("src")
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", ".pytest_cache")
    for name in ("app", "core", "resources"):
        shutil.copytree(os.path.join(ROOT, name), src / name, ignore=ignore)
    for name in ("main.py", "pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(os.path.join(ROOT, name), src / name)
    out = tmp_path_factory.mktemp("dist")
    pip = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(src)]
    if can_build_here():
        pip.insert(5, "--no-build-isolation")  # nothing to download
    done = subprocess.run(pip, capture_output=True, text=True, timeout=600)
    if done.returncode and OFFLINE.search(done.stdout + done.stderr):
        pytest.skip(f"cannot build the wheel offline: {done.stderr.strip()[-300:]}")
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = out.glob("*.whl")
    return built


CHECK = r"""
import importlib.util, json, os, sys
from backprop_studio import Value, draw, show, check_engine, stepper
f = Value(3.0) * Value(-2.0)
f.backward()
svg = draw(f).svg
steps = stepper(f).run()
qt = "PySide6" in sys.modules  # the inline picture and the stepper need no Qt
import backprop_studio, core, app
from core.resources import root, shipped
from core.lessons.format import load_all
from app.files.examples import examples
from app.files.desktop_entry import ICONS, PNG_SIZES, TEMPLATE, render_entry
from core.lecture.run import run_cell
cell = run_cell("from micrograd.engine import Value\na = Value(2.0)\nb = a * a\nb.backward()")
try:
    import main
    generic = main.__file__
except ImportError:
    generic = None
print(json.dumps({
    "files": [backprop_studio.__file__, core.__file__, app.__file__],
    "root": root(),
    "lessons": len(load_all(shipped("lessons"))),
    "examples": len(examples()),
    "icons": sum(os.path.isfile(os.path.join(ICONS, f"backprop-studio-{n}.png")) for n in PNG_SIZES),
    "engine": os.path.isfile(shipped("engines", "tutorial_value.py")),
    "entry": "-m backprop_studio" in render_entry() and os.path.isfile(TEMPLATE),
    "main": generic,
    "f": f.data,
    "svg": "-6.0000" in svg and "3.0000" in svg and "-2.0000" in svg,
    "stepped": steps.position == steps.total == 1,
    "notebook": os.path.isfile(shipped("notebooks", "backprop_tutorial.ipynb")),
    "jupyter": [m for m in ("ipywidgets", "ipykernel", "IPython") if importlib.util.find_spec(m)],
    "qt_for_svg": qt,
    "lecture": cell.error is None and len(cell.doc.nodes) == 2,  # its stand-in micrograd is installed
}))
"""


def json_files(folder):
    return [n for n in os.listdir(os.path.join(ROOT, "resources", folder)) if n.endswith(".json")]


@pytest.mark.slow
@pytest.mark.parametrize("version", PYTHONS)
def test_the_wheel_works_in_a_fresh_venv_from_anywhere(version, wheel, tmp_path):
    python = interpreter(version)
    if python is None:
        pytest.skip(f"no working python{version} on this machine")
    venv = tmp_path / "venv"
    subprocess.run([python, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(QT_QPA_PLATFORM="offscreen", PIP_DISABLE_PIP_VERSION_CHECK="1")
    bindir = venv / "bin"
    done = subprocess.run(
        [str(bindir / "python"), "-m", "pip", "install", "-q", str(wheel)],
        capture_output=True, text=True, timeout=1200, env=env,
    )  # fmt: skip
    if done.returncode and OFFLINE.search(done.stdout + done.stderr):
        pytest.skip(f"the package registry is out of reach: {done.stderr.strip()[-300:]}")
    assert done.returncode == 0, done.stdout + done.stderr
    away = tmp_path / "elsewhere"  # not the checkout, nothing on PYTHONPATH
    away.mkdir()

    def run(*args, program="backprop-studio"):
        done = subprocess.run(
            [str(bindir / program), *args], cwd=away, env=env, capture_output=True, text=True, timeout=300
        )
        return done

    probe = run("-c", CHECK, program="python")
    assert probe.returncode == 0, probe.stderr
    seen = json.loads(probe.stdout.splitlines()[-1])
    site = str(venv)
    assert all(path.startswith(site) for path in seen["files"]), seen["files"]
    assert seen["root"].startswith(site) and seen["root"].endswith("backprop_studio")
    assert seen["lessons"] == len(json_files("lessons")) and seen["examples"] == len(json_files("examples"))
    assert seen["icons"] == 7 and seen["engine"] and seen["entry"]
    assert seen["main"] is None  # no site-packages `main` to shadow anyone's
    assert seen["f"] == -6.0
    assert seen["svg"] and seen["stepped"] and seen["notebook"]  # the inline picture and stepper work installed
    assert seen["lecture"]  # a pasted lecture cell runs (core/lecture/standin is installed)
    assert seen["jupyter"] == [] and not seen["qt_for_svg"]  # the core install pulls no Jupyter; SVG needs no Qt

    lesson = away / "lesson.png"
    shot = run(  # the lesson's step opens its example graph: lessons/ and examples/ found in the install
        "--lesson", "chain-rule", "--step", "2", "--no-welcome", "--screenshot", str(lesson), "--size", "900x600"
    )
    assert shot.returncode == 0 and lesson.stat().st_size > 10_000, shot.stderr
    example = os.path.join(seen["root"], "examples", "tanh_neuron.json")
    shot = run(example, "--no-welcome", "--screenshot", str(away / "example.png"), "--size", "1000x700")
    assert shot.returncode == 0 and (away / "example.png").stat().st_size > 10_000, shot.stderr

    engine = os.path.join(seen["root"], "engines", "tutorial_value.py")
    checked = run("--check-engine", engine, "--json")  # the lesson's engine: its power rule is off on purpose
    report = json.loads(checked.stdout)
    assert checked.returncode == 1 and report["status"] == "wrong", checked.stdout + checked.stderr
    assert report["file"] == engine and report["fault"]["diagnosis"] == "power-rule"

    module = run("-m", "backprop_studio", "--help", program="python")
    assert module.returncode == 0 and "--screenshot" in module.stdout

    if python != sys.executable:
        return  # the notebook extra once, with the suite's own Python (each is a kernel and ~15 packages)
    done = subprocess.run(
        [str(bindir / "python"), "-m", "pip", "install", "-q", f"{wheel}[notebook]", "nbclient", "ipykernel"],
        capture_output=True, text=True, timeout=1200, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    notebook = run("-c", RUN_NOTEBOOK, program="python")
    assert notebook.returncode == 0, notebook.stdout + notebook.stderr
    ran = json.loads(notebook.stdout.splitlines()[-1])
    assert ran["errors"] == [] and ran["widgets"] == 1  # the shipped tutorial, on the installed package
    assert {"0.7071", "-1.5000", "✗ should be -1.0000", "Step 2 of 3"} <= set(ran["found"])


RUN_NOTEBOOK = r"""
import json, tempfile
import nbclient, nbformat
from core.resources import shipped
nb = nbformat.read(shipped("notebooks", "backprop_tutorial.ipynb"), as_version=4)
with tempfile.TemporaryDirectory() as work:
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": work}}).execute()
outputs = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs]
text = json.dumps([out.get("data", {}) for out in outputs], ensure_ascii=False)
print(json.dumps({
    "errors": [out.get("ename") for out in outputs if out.output_type == "error"],
    "widgets": sum("application/vnd.jupyter.widget-view+json" in out.get("data", {}) for out in outputs),
    "found": [t for t in ("0.7071", "-1.5000", "✗ should be -1.0000", "Step 2 of 3") if t in text],
}))
"""
