"""core/foreign/child/load.py: their file or MiniTorch package loaded, their class found."""

import sys
import textwrap

import pytest

from core.foreign.child import load


@pytest.fixture
def forget_modules():
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        del sys.modules[name]
    load.STAND_INS.clear()


def test_a_missing_library_is_a_stand_in_that_offers_nothing(tmp_path, forget_modules):
    # MiniTorch's nn.py: `if numba.cuda.is_available(): from .cuda_ops import ...` (a .so loaded by ctypes)
    path = tmp_path / "engine.py"
    path.write_text(
        textwrap.dedent(
            """
            import bps_not_installed_numba as numba

            @numba.njit
            def double(x):
                return 2 * x

            if numba.cuda.is_available():
                raise OSError("took the GPU branch: cuda_kernels/combine.so")
            """
        )
    )
    namespace, _ = load.load(str(path))
    assert namespace["double"](3) == 6  # the decorator gave the function back
    assert "bps_not_installed_numba" in load.STAND_INS


def test_a_stand_in_decorator_gives_the_function_back_as_numba_would(tmp_path, forget_modules):
    # repro (held-out batch 5): MiniTorch's fast_conv.py reads `njit(inline="always")(f.py_func)` at import:
    # "loading minitorch raised AttributeError ... (line 16)" on a correct package
    path = tmp_path / "engine.py"
    path.write_text(
        textwrap.dedent(
            """
            from bps_not_installed_numba import njit

            @njit
            def double(x):
                return 2 * x

            fast = njit(inline="always")(double.py_func)
            """
        )
    )
    namespace, _ = load.load(str(path))
    assert namespace["fast"](3) == 6 and namespace["double"].py_func is namespace["double"]


def test_a_file_that_raises_while_loading_is_named_with_its_line(tmp_path):
    """Repro (held-out batch 5): "loading .../minitorch raised AttributeError: ... (line 16)"
    said the line but not which of the package's files."""
    from core.foreign.runner import check_file

    package = tmp_path / "minitorch"
    package.mkdir()
    (package / "__init__.py").write_text("from .scalar import Scalar\nfrom .fast_ops import fast\n")
    (package / "scalar.py").write_text("class Scalar:\n    pass\n")
    (package / "fast_ops.py").write_text("import math\n\nfast = math.no_such_function\n")
    message = check_file(str(package), timeout=300.0)["message"]
    assert "raised AttributeError" in message, message
    assert "(minitorch/fast_ops.py, line 3: `fast = math.no_such_function`)" in message, message


def test_a_file_missing_from_their_own_package_is_named_never_stood_in_for(tmp_path):
    """Repro (held-out batch 5, Wstoloah): `from .cuda_ops import *` with cuda_ops.py not in the
    commit stood the whole package in for a missing library: "no Scalar class"."""
    from core.foreign.runner import check_file

    package = tmp_path / "minitorch"
    package.mkdir()
    (package / "__init__.py").write_text("from .scalar import Scalar\nfrom .cuda_ops import *\n")
    (package / "scalar.py").write_text("class Scalar:\n    pass\n")
    for given in (package, tmp_path):  # the package, or the repository that holds it
        message = check_file(str(given), timeout=300.0)["message"]
        assert message.startswith(
            "your minitorch/__init__.py imports minitorch.cuda_ops (line 2: `from .cuda_ops import *`), "
            "which is not in your package"
        ), message


@pytest.mark.parametrize(
    "source, said",
    [
        (  # a DeZero-style Variable that refuses floats
            "class Variable:\n    def __init__(self, data):\n        if isinstance(data, float):\n"
            "            raise TypeError('float is not supported!')\n        self.data, self.grad = data, None\n"
            "    def __add__(self, o):\n        return Variable(self.data + o.data)\n",
            "(your Variable: Variable(2.0) raised TypeError: float is not supported!)",
        ),
        (  # a lecture's forward-only stage
            "class Value:\n    def __init__(self, data):\n        self.data = data\n"
            "    def __add__(self, o):\n        return Value(self.data + o.data)\n",
            "(your Value: Value(2.0) has no gradient in .grad (or .derivative, .d): forward only so far?",
        ),
    ],
)
def test_no_value_class_says_what_ruled_theirs_out(source, said):
    """Repro (held-out batch 5): "no Value class: the file defines no class whose instances have
    .data and .grad ..." for a class that has both but refuses floats, and for forward-only stages."""
    with pytest.raises(load.EngineError) as raised:
        namespace: dict = {}
        exec(compile(source, "engine.py", "exec"), namespace)
        load.find_value_class({k: v for k, v in namespace.items() if k != "__builtins__"})
    assert said in str(raised.value), str(raised.value)


def test_a_scalar_in_a_subpackage_that_imports_a_missing_library_is_found(tmp_path, forget_modules, monkeypatch):
    """Repro (held-out batch 6, lmalms): Scalar exported by minitorch/autodiff/__init__.py, whose
    tensor code imports numba (not here): "no Scalar class" -- the subpackage's ImportError was
    swallowed, so no stand-in was made and the package's Scalar never read."""
    package = tmp_path / "bps_mt_subpkg"
    (package / "autodiff").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "autodiff" / "__init__.py").write_text(
        "from bps_mt_subpkg.autodiff.scalar import Scalar\nfrom bps_mt_subpkg.autodiff.fast import fast\n"
    )
    (package / "autodiff" / "scalar.py").write_text("class Scalar:\n    pass\n")
    (package / "autodiff" / "fast.py").write_text("import bps_not_installed_numba as numba\nfast = numba.njit\n")
    monkeypatch.setattr(sys, "path", list(sys.path))
    namespace, _ = load.load(str(package))
    assert namespace["Scalar"].__module__ == "bps_mt_subpkg.autodiff.scalar"
    assert "bps_not_installed_numba" in load.STAND_INS


def test_a_scalar_in_a_subpackage_is_found(tmp_path, forget_modules, monkeypatch):
    package = tmp_path / "hw" / "bps_minitorch_sub"
    (package / "scalar").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "scalar" / "__init__.py").write_text("")  # Scalar not re-exported
    (package / "scalar" / "scalar.py").write_text(
        "class Scalar:\n    def __init__(self, v):\n        self.data, self.derivative = v, None\n"
        "    def __add__(self, o):\n        return Scalar(self.data + o.data)\n"
    )
    monkeypatch.setattr(sys, "path", list(sys.path))
    namespace, _ = load.load(str(tmp_path / "hw"))
    assert load.find_value_class(namespace, str(tmp_path / "hw")).__name__ == "Scalar"


def test_no_class_in_a_package_is_said_in_a_packages_words(tmp_path):
    (tmp_path / "hw").mkdir()
    with pytest.raises(load.EngineError, match="no Scalar class: the package in hw") as raised:
        load.find_value_class({}, str(tmp_path / "hw"))
    assert "file" not in str(raised.value)
    with pytest.raises(load.EngineError, match="no Value class: the file"):
        load.find_value_class({}, str(tmp_path / "engine.py"))


def test_what_a_missing_library_returns_says_so_when_their_code_needs_it(tmp_path, forget_modules):
    path = tmp_path / "engine.py"
    path.write_text("from bps_not_installed_toposort import toposort_flatten\n")
    namespace, _ = load.load(str(path))
    result = namespace["toposort_flatten"]({1: {2}})
    assert "bps_not_installed_toposort, not installed here" in repr(result)
    with pytest.raises(ModuleNotFoundError, match="bps_not_installed_toposort is not installed here"):
        list(result)  # never an endless walk by index
