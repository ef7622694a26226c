"""micrograd's demo runs without scikit-learn and matplotlib installed (issue 42 item 2):
`make_moons` computed as scikit-learn computes it, the pyplot calls recorded for the studio
to draw, the decision-boundary cell's filled contour among them."""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from core.lecture.run import run_cell

FALLBACK = os.path.join(os.path.dirname(__file__), "..", "..", "..", "core", "lecture", "standin", "fallback")


def stand_in_datasets():
    spec = importlib.util.spec_from_file_location(
        "standin_datasets", os.path.join(FALLBACK, "sklearn", "datasets", "__init__.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_make_moons_without_noise_lies_on_the_two_half_circles():
    datasets = stand_in_datasets()
    X, y = datasets.make_moons(n_samples=101, noise=None, random_state=3)
    assert X.shape == (101, 2) and sorted(set(y.tolist())) == [0, 1]
    assert (y == 0).sum() == 50 and (y == 1).sum() == 51
    outer, inner = X[y == 0], X[y == 1]
    assert np.allclose(np.hypot(outer[:, 0], outer[:, 1]), 1.0)
    assert np.allclose(np.hypot(inner[:, 0] - 1.0, inner[:, 1] - 0.5), 1.0)
    assert (outer[:, 1] >= -1e-12).all() and (inner[:, 1] <= 0.5 + 1e-12).all()


def test_make_moons_draws_from_numpys_global_generator_when_seeded():
    datasets = stand_in_datasets()
    np.random.seed(1337)
    first = datasets.make_moons(n_samples=100, noise=0.1)
    np.random.seed(1337)
    again = datasets.make_moons(n_samples=100, noise=0.1)
    assert np.array_equal(first[0], again[0]) and np.array_equal(first[1], again[1])


def test_make_moons_equals_scikit_learns_where_it_is_installed():
    sklearn_datasets = pytest.importorskip("sklearn.datasets")
    ours = stand_in_datasets()
    for seed in (0, 1337):
        theirs = sklearn_datasets.make_moons(n_samples=100, noise=0.1, random_state=seed)
        mine = ours.make_moons(n_samples=100, noise=0.1, random_state=seed)
        assert np.array_equal(theirs[0], mine[0]) and np.array_equal(theirs[1], mine[1])


def test_the_stand_ins_are_used_only_where_the_real_libraries_are_missing():
    code = (
        "import sys, json\n"
        f"sys.path.append({os.path.abspath(FALLBACK)!r})\n"
        "import sklearn, matplotlib\n"
        "print(json.dumps([sklearn.__version__, matplotlib.__version__]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    versions = json.loads(out)
    for name, version in zip(("sklearn", "matplotlib"), versions):
        real = importlib.util.find_spec(name) is not None
        assert (version != "stand-in") == real, (name, version)


BOUNDARY = """\
import numpy as np
import matplotlib.pyplot as plt
from sklearn.datasets import make_moons
np.random.seed(5)
X, y = make_moons(n_samples=40, noise=0.1)
xx, yy = np.meshgrid(np.arange(-2, 3, 0.5), np.arange(-1, 2, 0.5))
Z = (xx + yy > 0.5).reshape(xx.shape)
fig = plt.figure()
plt.contourf(xx, yy, Z, cmap=plt.cm.Spectral, alpha=0.8)
plt.scatter(X[:, 0], X[:, 1], c=y, s=40, cmap=plt.cm.Spectral)
plt.xlim(xx.min(), xx.max())
"""


def test_a_decision_boundary_cell_sends_its_figure():
    result = run_cell(BOUNDARY)
    assert result.ran, result.error
    assert result.out == "(-2.0, 2.5)"  # xlim(...) returns the limits, as matplotlib's does
    (figure,) = result.figures
    if figure["kind"] == "png":  # the real matplotlib is installed: a picture
        assert len(figure["data"]) > 100
        return
    kinds = [item["kind"] for item in figure["items"]]
    assert kinds == ["contour", "scatter"]
    contour, scatter = figure["items"]
    assert len(contour["z"]) == 6 and len(contour["z"][0]) == 10  # yy rows, xx columns
    assert contour["x"][0] == -2.0 and contour["y"][-1] == 1.5
    assert contour["z"][0][0] == 0.0 and contour["z"][-1][-1] == 1.0
    assert contour["cmap"] == "Spectral" and scatter["cmap"] == "Spectral"
    assert len(scatter["x"]) == 40 and sorted(set(scatter["values"])) == [0.0, 1.0]
    assert figure["xlim"] == [-2.0, 2.5]


def test_an_earlier_cells_figures_are_not_sent_again():
    from core.lecture.run import Notebook

    notebook = Notebook()
    assert notebook.run("import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\n").figures
    assert notebook.run("x = 1\n").figures == []


def test_plot_of_a_function_of_numpy_arrays():
    result = run_cell(
        "import numpy as np\nimport matplotlib.pyplot as plt\n"
        "xs = np.arange(-1, 1, 0.5)\nplt.plot(xs, xs**2); plt.grid()\n"
    )
    (figure,) = result.figures
    if figure["kind"] == "record":
        (line,) = figure["items"]
        assert line["x"] == [-1.0, -0.5, 0.0, 0.5] and line["y"] == [1.0, 0.25, 0.0, 0.25]
        assert figure["grid"] is True
    else:
        assert figure["kind"] == "png"
