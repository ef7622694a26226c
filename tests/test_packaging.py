"""A normal install works from anywhere (issue 30 item 1), as ONE package, without Qt where Qt is not wanted
(issue 39 items 7, 8).

The fast tests read pyproject.toml: every package under core/ and app/ is
installed, inside the one top-level package backprop_studio, and nothing generic
(a top-level `core`, `app` or `main`) is; setup.py's rewrite of the imports
leaves none of the checkout's names behind. The slow one builds the wheel from a
copy of the checkout, installs it with pip into a fresh venv for each Python
3.10-3.13 this machine has -- first the core install alone (no Qt: a notebook or
a grading machine), then with the [app] extra -- and runs it from a folder
outside the checkout that holds a learner's own core.py and app.py, without
PYTHONPATH: the inline picture and the stepper page, --check-engine and
--copy-notebook without Qt, then a lesson step and an example rendered to PNG,
and every lesson, example and icon found through the installed package.
"""

import importlib.util
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
    """The installed names of the packages under core/ and app/: backprop_studio.core.x."""
    found = set()
    for top in ("core", "app"):
        for folder, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            if "__init__.py" in files:
                found.add("backprop_studio." + os.path.relpath(folder, ROOT).replace(os.sep, "."))
    return found


def test_every_package_is_installed():
    listed = set(pyproject()["tool"]["setuptools"]["packages"])
    missing = packages_in_tree() - listed
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {sorted(missing)}"
    inside = {p for p in listed if p.split(".")[1:2] in (["core"], ["app"])}
    gone = inside - packages_in_tree()
    shipped = {f"backprop_studio.{n}" for n in os.listdir(os.path.join(ROOT, "resources")) if not n.startswith("__")}
    shipped = {p for p in shipped if os.path.isdir(os.path.join(ROOT, "resources", p.split(".")[1]))}
    assert shipped <= listed, f"add to [tool.setuptools] packages in pyproject.toml: {sorted(shipped - listed)}"
    assert not gone, f"listed in pyproject.toml but not in the tree: {sorted(gone)}"


def test_one_package_is_installed_at_the_top():
    """The repro: the wheel installed packages named `core` and `app`; a learner's core.py beside
    their notebook broke `from backprop_studio import Value`, an app.py `python -m backprop_studio`."""
    setup = pyproject()["tool"]["setuptools"]
    assert "py-modules" not in setup  # main.py is the checkout's launcher, never a site-packages `main`
    assert {p.split(".")[0] for p in setup["packages"]} == {"backprop_studio"}
    assert setup["package-dir"] == {"backprop_studio": "resources", "backprop_studio.core": "core",
                                    "backprop_studio.app": "app"}  # fmt: skip
    assert pyproject()["project"]["scripts"] == {"backprop-studio": "backprop_studio:main"}


def build_script():
    spec = importlib.util.spec_from_file_location("studio_setup", os.path.join(ROOT, "setup.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # its setup() runs only as setuptools runs it (__main__)
    return module


def test_the_build_moves_every_import_of_ours():
    """setup.py rewrites `from core.x` / `from app.x` to backprop_studio's names in every module it installs."""
    rewrite = build_script().installed_imports
    left = re.compile(r"^\s*(from|import)\s+(core|app)\b", re.M)
    for top in ("core", "app", "resources"):
        for folder, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for name in files:
                if name.endswith(".py"):
                    with open(os.path.join(folder, name), encoding="utf-8") as f:
                        moved = rewrite(f.read(), name)
                    assert not left.search(moved), f"{folder}/{name}: {left.search(moved).group(0)}"
    assert rewrite("    from core.engine import Value\n", "x") == "    from backprop_studio.core.engine import Value\n"
    assert rewrite("from app import show\n", "x") == "from backprop_studio.app import show\n"
    assert (
        rewrite("from core_extra import x\nfrom apple import y\n", "x")
        == "from core_extra import x\nfrom apple import y\n"
    )
    with pytest.raises(SystemExit, match="a plain import cannot be moved"):
        rewrite("import core.engine\n", "x.py")


def test_no_qt_in_the_core_install():
    """A notebook or grading machine installs without Qt; the desktop app is the [app] extra, with ranges,
    not pins, and PySide6 6.12.0 (which aborts on Python 3.11) excluded."""
    project = pyproject()["project"]
    assert not any(d.lower().startswith(("pyside", "pyqtgraph")) for d in project["dependencies"])
    assert not any("==" in d for d in project["dependencies"])  # compatible ranges for shared environments
    app = project["optional-dependencies"]["app"]
    assert any(d.startswith("PySide6-Essentials") and "!=6.12.0" in d and ">=" in d for d in app)
    assert not any(d.lower().startswith("pyside") for d in project["optional-dependencies"]["notebook"])


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
    for name in ("main.py", "setup.py", "pyproject.toml", "README.md", "LICENSE"):
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
from backprop_studio import Value, draw, show, check_engine, stepper, recording
f = Value(3.0) * Value(-2.0)
f.backward()
svg = draw(f).svg
steps = stepper(f).run()
page = steps.page()
qt = "PySide6" in sys.modules  # the inline picture and the stepper need no Qt
import backprop_studio, backprop_studio.core as core, backprop_studio.app as app
from backprop_studio.core.resources import root, shipped
from backprop_studio.core.lessons.format import load_all
from backprop_studio.app.files.examples import examples
from backprop_studio.app.files.desktop_entry import ICONS, PNG_SIZES, TEMPLATE, render_entry
from backprop_studio.core.lecture.run import run_cell
cell = run_cell("from micrograd.engine import Value\na = Value(2.0)\nb = a * a\nb.backward()")
try:
    import main
    generic = main.__file__
except ImportError:
    generic = None
print(json.dumps({
    "files": [backprop_studio.__file__, core.__file__, app.__file__],
    "top": sorted(m.split(".")[0] for m in sys.modules if m.split(".")[0] in ("core", "app", "backprop_studio")),
    "root": root(),
    "lessons": len(load_all(shipped("lessons"))),
    "examples": len(examples()),
    "icons": sum(os.path.isfile(os.path.join(ICONS, f"backprop-studio-{n}.png")) for n in PNG_SIZES),
    "engine": os.path.isfile(shipped("engines", "tutorial_value.py")),
    "entry": "-m backprop_studio" in render_entry() and os.path.isfile(TEMPLATE),
    "main": generic,
    "f": f.data,
    "svg": "-6.0000" in svg and "3.0000" in svg and "-2.0000" in svg,
    "stepped": steps.position == steps.total == 1 and page.startswith("<!DOCTYPE html>"),
    "notebook": os.path.isfile(shipped("notebooks", "backprop_tutorial.ipynb")),
    "jupyter": [m for m in ("ipywidgets", "ipykernel", "IPython") if importlib.util.find_spec(m)],
    "qt_installed": [m for m in ("PySide6", "pyqtgraph") if importlib.util.find_spec(m)],
    "qt_for_svg": qt,
    "lecture": cell.error is None and len(cell.doc.nodes) == 2,  # its stand-in micrograd is installed
}))
"""

# A learner's own modules beside their notebook, named as the studio's packages were: never imported by it
SHADOWS = {"core.py": "raise SystemExit('the learner core.py was imported')",
           "app.py": "raise SystemExit('the learner app.py was imported')"}  # fmt: skip


def json_files(folder):
    return [n for n in os.listdir(os.path.join(ROOT, "resources", folder)) if n.endswith(".json")]


def installed_size(venv, names):
    """Bytes on disk of these top-level entries of the venv's site-packages (and their .libs)."""
    (site,) = venv.glob("lib/python3.*/site-packages")
    total = 0
    for entry in site.iterdir():
        if entry.name.split("-")[0].split(".")[0].lower() in names:
            files = [entry] if entry.is_file() else [p for p in entry.rglob("*") if p.is_file()]
            total += sum(p.stat().st_size for p in files)
    return total


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

    def pip_install(*what):
        done = subprocess.run(
            [str(bindir / "python"), "-m", "pip", "install", "-q", *what],
            capture_output=True, text=True, timeout=1200, env=env,
        )  # fmt: skip
        if done.returncode and OFFLINE.search(done.stdout + done.stderr):
            pytest.skip(f"the package registry is out of reach: {done.stderr.strip()[-300:]}")
        assert done.returncode == 0, done.stdout + done.stderr

    pip_install(str(wheel))  # the core install: a notebook's or a grading machine's, no Qt
    away = tmp_path / "elsewhere"  # not the checkout, nothing on PYTHONPATH; a learner's core.py and app.py
    away.mkdir()
    for name, text in SHADOWS.items():
        (away / name).write_text(text)

    def run(*args, program="backprop-studio"):
        done = subprocess.run(
            [str(bindir / program), *args], cwd=away, env=env, capture_output=True, text=True, timeout=300
        )
        return done

    probe = run("-c", CHECK, program="python")
    assert probe.returncode == 0, probe.stdout + probe.stderr
    seen = json.loads(probe.stdout.splitlines()[-1])
    site = str(venv)
    assert all(path.startswith(site) for path in seen["files"]), seen["files"]
    assert set(seen["top"]) == {"backprop_studio"}  # no top-level core or app: the learner's stay theirs
    assert seen["root"].startswith(site) and seen["root"].endswith("backprop_studio")
    assert seen["lessons"] == len(json_files("lessons")) and seen["examples"] == len(json_files("examples"))
    assert seen["icons"] == 7 and seen["engine"] and seen["entry"]
    assert seen["main"] is None  # no site-packages `main` to shadow anyone's
    assert seen["f"] == -6.0
    assert seen["svg"] and seen["stepped"] and seen["notebook"]  # the inline picture and stepper work installed
    assert seen["lecture"]  # a pasted lecture cell runs (core/lecture/standin is installed)
    assert seen["jupyter"] == [] and seen["qt_installed"] == [] and not seen["qt_for_svg"]  # no Jupyter, no Qt
    size = installed_size(venv, {"backprop_studio", "numpy", "networkx"})
    print(f"python{version}: the core install is {size / 1e6:.1f} MB (backprop_studio, numpy, networkx)")
    assert size < 150e6  # PySide6-Essentials alone is ~230 MB installed

    engine = os.path.join(seen["root"], "engines", "tutorial_value.py")
    checked = run("--check-engine", engine, "--json")  # grading needs no Qt
    report = json.loads(checked.stdout)
    assert checked.returncode == 1 and report["status"] == "wrong", checked.stdout + checked.stderr
    assert report["file"] == engine and report["fault"]["diagnosis"] == "power-rule"
    copied = run("--copy-notebook")
    assert copied.returncode == 0 and (away / "backprop_tutorial.ipynb").is_file(), copied.stderr
    assert run("--copy-notebook").returncode == 2  # never over the learner's copy
    window = run("--no-welcome")
    assert window.returncode == 2 and "pip install 'backprop-studio[app]'" in window.stderr, window.stderr

    pip_install(f"{wheel}[app]")  # the desktop app
    lesson = away / "lesson.png"
    shot = run(  # the lesson's step opens its example graph: lessons/ and examples/ found in the install
        "--lesson", "chain-rule", "--step", "2", "--no-welcome", "--screenshot", str(lesson), "--size", "900x600"
    )
    assert shot.returncode == 0 and lesson.stat().st_size > 10_000, shot.stderr
    example = os.path.join(seen["root"], "examples", "tanh_neuron.json")
    shot = run(example, "--no-welcome", "--screenshot", str(away / "example.png"), "--size", "1000x700")
    assert shot.returncode == 0 and (away / "example.png").stat().st_size > 10_000, shot.stderr

    module = run("-m", "backprop_studio", "--help", program="python")  # beside the learner's app.py
    assert module.returncode == 0 and "--screenshot" in module.stdout and "--copy-notebook" in module.stdout

    if python != sys.executable:
        return  # the notebook extra once, with the suite's own Python (each is a kernel and ~15 packages)
    pip_install(f"{wheel}[notebook]", "nbclient", "ipykernel")
    notebook = run("-c", RUN_NOTEBOOK, program="python")  # in the folder with the learner's core.py and app.py
    assert notebook.returncode == 0, notebook.stdout + notebook.stderr
    ran = json.loads(notebook.stdout.splitlines()[-1])
    assert ran["errors"] == [] and ran["pages"] == 2  # the tutorial: its stepper, section 4 by blocks
    assert {"0.7071", "-1.5000", "✗ should be -1.0000", "Step 2 of 3"} <= set(ran["found"])


RUN_NOTEBOOK = r"""
import base64, json, re, tempfile
from html import unescape
import nbclient, nbformat
from backprop_studio.core.resources import shipped
nb = nbformat.read(shipped("notebooks", "backprop_tutorial.ipynb"), as_version=4)
with tempfile.TemporaryDirectory() as work:
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": work}}).execute()
outputs = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs]
html = [out.get("data", {}).get("text/html", "") for out in outputs]
pictures = [base64.b64decode(b).decode() for h in html for b in re.findall(r'base64,([A-Za-z0-9+/=]+)"', h)]
text = json.dumps([out.get("data", {}) for out in outputs], ensure_ascii=False) + unescape("".join(html))
text += " ".join(pictures)
print(json.dumps({
    "errors": [out.get("ename") for out in outputs if out.output_type == "error"],
    "pages": sum('class="backprop-studio-stepper"' in h and "srcdoc" in h for h in html),
    "found": [t for t in ("0.7071", "-1.5000", "✗ should be -1.0000", "Step 2 of 3") if t in text],
}))
"""
