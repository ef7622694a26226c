"""The pytest plugin (-p core.foreign.pytest_plugin): a course's failing gradient
test on a student's class gets the studio's diagnosis and the command that opens
the debugger at the fault; a passing test gets nothing."""

import os
import shutil
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
ENGINES = os.path.join(ROOT, "tests", "data", "engines")

MICROGRAD_STYLE = '''
from student import Value


def test_sanity_check():  # the shape of micrograd's test_engine.py, numbers from PyTorch
    x = Value(-4.0)
    z = 2 * x + 2 + x
    q = z * x + z
    y = q * x
    y.backward()
    assert abs(y.data - (-136.0)) < 1e-6
    assert abs(x.grad - 88.0) < 1e-6


def test_addition_alone():
    a, b = Value(2.0), Value(3.0)
    c = a + b
    c.backward()
    assert a.grad == 1.0
'''

MINITORCH_STYLE = '''
import student


def central_difference(f, *vals, arg=0, epsilon=1e-6):
    up = [v + (epsilon if i == arg else 0.0) for i, v in enumerate(vals)]
    down = [v - (epsilon if i == arg else 0.0) for i, v in enumerate(vals)]
    return (f(*up) - f(*down)) / (2 * epsilon)


def derivative_check(f, *scalars):
    out = f(*scalars)
    out.backward()
    for i, x in enumerate(scalars):
        def on_floats(*v):
            return f(*[student.Scalar(a) for a in v]).data

        check = central_difference(on_floats, *[s.data for s in scalars], arg=i)
        assert abs(x.derivative - check) < 1e-2, (
            f"received derivative f'={x.derivative} for argument {i}, but was expecting derivative f'={check}"
        )


def test_mul_derivative():
    derivative_check(lambda a, b: a * b, student.Scalar(2.0), student.Scalar(-3.0))
'''


def run_pytest(folder):
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "core.foreign.pytest_plugin", "-p", "no:cacheprovider", "-q", folder],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=folder,
        env={**os.environ, "PYTHONPATH": ROOT},
    )


def course(tmp_path, engine, tests):
    shutil.copy(engine, tmp_path / "student.py")
    (tmp_path / "test_course.py").write_text(textwrap.dedent(tests), encoding="utf-8")
    return str(tmp_path)


def test_a_micrograd_style_failure_gets_the_diagnosis_and_the_command(tmp_path):
    done = run_pytest(course(tmp_path, os.path.join(ENGINES, "bug_swapped_mul.py"), MICROGRAD_STYLE))
    out = done.stdout
    assert done.returncode == 1 and "1 failed, 1 passed" in out, out
    assert "backprop-studio: student.py" in out
    assert "operands swapped in `*`" in out
    assert "--debug-engine" in out and "student.py --expr 'x = -1.5; y = 2.0; x * y'" in out
    assert out.count("backprop-studio: student.py") == 1  # the passing test gets nothing


def test_a_minitorch_style_derivative_check_gets_the_diagnosis(tmp_path):
    engine = os.path.join(ENGINES, "world", "minitorch_bug_mul.py")
    done = run_pytest(course(tmp_path, engine, MINITORCH_STYLE))
    out = done.stdout
    assert done.returncode == 1 and "received derivative" in out, out
    assert "backprop-studio: student.py" in out
    # MiniTorch's backward(ctx, d) is stepped: the fault is located at their op, on their line
    assert "operands swapped in `*`" in out and "student.py, line 55: return a * d, b * d" in out


def test_a_right_engine_is_said_to_be_right(tmp_path):
    tests = MICROGRAD_STYLE.replace("assert abs(x.grad - 88.0) < 1e-6", "assert x.grad == 'a typo in the test'")
    done = run_pytest(course(tmp_path, os.path.join(ENGINES, "tutorial.py"), tests))
    assert "every gradient is right. The failure is not in its backward pass" in done.stdout, done.stdout


def minitorch_repository(tmp_path):
    """A course repository as MiniTorch lays it out: the package `minitorch/` (relative
    imports between its modules) and the course's tests in `tests/`."""
    package = tmp_path / "minitorch"
    package.mkdir()
    source = open(os.path.join(ENGINES, "world", "minitorch_bug_mul.py"), encoding="utf-8").read()
    (package / "operators.py").write_text("def mul(a, b):\n    return a * b\n", encoding="utf-8")
    (package / "scalar.py").write_text(
        source.replace("import math\n", "import math\n\nfrom .operators import mul\n", 1), encoding="utf-8"
    )
    (package / "__init__.py").write_text("from .scalar import Scalar, topological_sort  # noqa\n", encoding="utf-8")
    (tmp_path / "tests").mkdir()
    test = MINITORCH_STYLE.replace("import student", "import minitorch as student")
    (tmp_path / "tests" / "test_module1.py").write_text(textwrap.dedent(test), encoding="utf-8")
    return tmp_path


def test_a_minitorch_package_is_judged_in_its_own_repository(tmp_path):
    repo = minitorch_repository(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "core.foreign.pytest_plugin", "-p", "no:cacheprovider", "-q", "tests"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=repo,
        env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{repo}"},
    )
    out = done.stdout
    assert done.returncode == 1 and "received derivative" in out, out
    assert "backprop-studio: minitorch" in out, out  # the package, not scalar.py alone
    assert "operands swapped in `*`" in out and "minitorch/scalar.py, line" in out
    assert "--debug-engine" in out and str(repo / "minitorch") in out
