"""Loading their engine: their file (or MiniTorch package) run as a module, their class found.

A library their file imports that is not installed here gets an inert stand-in
(`STAND_INS` says which), so a lecture file that imports graphviz or numba still
loads. Their exceptions are reported with the line of THEIR file they came from
(`their_error`).
"""

from __future__ import annotations

import importlib
import os
import runpy
import sys
import traceback
from typing import Any

from .shapes import Shape


class EngineError(Exception):
    """Their file or folder cannot be used: the message says why."""


STAND_INS: list[str] = []  # libraries their file imports that are not installed here


class _Inert:
    """Whatever a missing library's name is used for at import time: a decorator
    (`@numba.njit`, `@njit(parallel=True)`) gives the function back unchanged, any
    other call or attribute gives another inert object, which says what it stands for
    wherever it is printed (`<toposort_flatten(...) of toposort, not installed here>`)."""

    def __init__(self, path: str = "") -> None:
        self._path = path

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            try:  # what a compiling decorator's wrapper offers of the function: numba's `f.py_func`
                args[0].py_func = args[0]
            except (AttributeError, TypeError):
                pass
            return args[0]
        return _Inert(f"{self._path}(...)")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Inert(f"{self._path}.{name}")

    def __getitem__(self, key: Any) -> Any:
        return _Inert(f"{self._path}[...]")

    def __iter__(self) -> Any:  # `for i in toposort_flatten(deps)`: a result their code needs, which is not here
        library = self._path.split(".")[0].split("(")[0]
        raise ModuleNotFoundError(
            f"{library} is not installed here: the check loaded your file with a stand-in for it, but your code "
            f"uses what {self._path} returns -- install {library} where the check runs, or write that part yourself"
        )

    def __repr__(self) -> str:
        library = self._path.split(".")[0].split("(")[0]
        return f"<{self._path} of {library}, not installed here>"

    def __bool__(self) -> bool:
        return False  # `if numba.cuda.is_available():` -- a library that is not here offers nothing

    def __mro_entries__(self, bases: tuple) -> tuple:
        return (object,)


def _stand_in(name: str) -> None:
    import types

    module = types.ModuleType(name)

    def inert(attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Inert(f"{name}.{attr}")

    setattr(module, "__getattr__", inert)  # noqa: B010 -- a module-level __getattr__ (PEP 562)
    module.__path__ = []  # a package: its submodules get stand-ins too
    sys.modules[name] = module
    STAND_INS.append(name)
    parent, _, leaf = name.rpartition(".")
    if parent in sys.modules:
        setattr(sys.modules[parent], leaf, module)


def load(path: str) -> tuple[dict[str, Any], tuple[str, ...]]:
    """(namespace, their source roots) of their engine. A library their file imports
    that is not installed here (MiniTorch's later modules import numba; lecture files
    import graphviz for drawing) gets an inert stand-in, and the report says so: the
    scalar code under test never calls it. An import their code guards with
    try/except is left to their fallback (the first attempt is made without)."""
    for _ in range(8):
        before = set(sys.modules)
        try:
            return _load(path)
        except ModuleNotFoundError as e:
            missing = e.name or ""
            top = missing.split(".")[0]
            if top and top == _package_name(path):  # a file of their own package is missing: never a stand-in
                raise EngineError(_missing_own(e, path)) from None
            if top in STAND_INS and missing not in STAND_INS:
                missing = missing  # `numba.cuda` under a stand-in numba: a stand-in too
            elif (
                not top
                or top in STAND_INS
                or top in sys.builtin_module_names
                or os.path.exists(os.path.join(_package_root(path), top))
            ):
                raise
            else:
                missing = top
            mine = _package_name(path)
            for name in set(sys.modules) - before:  # their half-imported package starts again (never numpy's)
                if name not in STAND_INS and mine and (name == mine or name.startswith(mine + ".")):
                    del sys.modules[name]
            _stand_in(missing)
    return _load(path)


def _missing_own(e: ModuleNotFoundError, path: str) -> str:
    """'your minitorch/__init__.py imports minitorch.cuda_ops (line 19: `from .cuda_ops import *`),
    which is not in your package' -- a file their package names but does not have."""
    root = (
        os.path.dirname(_package_root(path))
        if os.path.isfile(os.path.join(_package_root(path), "__init__.py"))
        else _package_root(path)
    )
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename.startswith(root + os.sep)]
    if not frames:
        return f"your package imports {e.name}, which is not in it: a file missing from your package?"
    last = frames[-1]
    where = os.path.relpath(last.filename, root)
    return (
        f"your {where} imports {e.name} (line {last.lineno}: `{(last.line or '').strip()}`), which is not in your "
        "package: a file missing from your package (not committed?), or an import to remove"
    )


def _package_name(path: str) -> str:
    """The name their package is imported under ('' for a single file)."""
    path = os.path.abspath(path)
    if not os.path.isdir(path):
        return ""
    if os.path.isfile(os.path.join(path, "__init__.py")):
        return os.path.basename(path)
    found = sorted(d for d in os.listdir(path) if os.path.isfile(os.path.join(path, d, "__init__.py")))
    found.sort(key=lambda d: d != "minitorch")
    return found[0] if found else ""


def _package_root(path: str) -> str:
    path = os.path.abspath(path)
    return path if os.path.isdir(path) else os.path.dirname(path)


def _load(path: str) -> tuple[dict[str, Any], tuple[str, ...]]:
    path = os.path.abspath(path)
    if not os.path.isdir(path):
        return runpy.run_path(path, run_name="learner_engine"), (path,)
    package = path
    if not os.path.isfile(os.path.join(path, "__init__.py")):
        found = sorted(
            d for d in os.listdir(path) if os.path.isfile(os.path.join(path, d, "__init__.py")) and d.isidentifier()
        )
        found.sort(key=lambda d: d != "minitorch")
        if not found:
            raise EngineError(f"{path} is a folder with no package in it (no __init__.py): give your .py file")
        package = os.path.join(path, found[0])
    sys.path.insert(0, os.path.dirname(package))
    name = os.path.basename(package)
    module = importlib.import_module(name)
    namespace: dict[str, Any] = {}
    for sub in ("autodiff", "scalar_functions", "scalar"):  # MiniTorch's modules, if the package has them
        for dotted, file in (
            (sub, sub + ".py"),
            (sub, os.path.join(sub, "__init__.py")),  # minitorch/autodiff/, a subpackage exporting Scalar
            (f"{sub}.{sub}", os.path.join(sub, sub + ".py")),
        ):
            if os.path.isfile(os.path.join(package, file)):  # minitorch/scalar.py, or minitorch/scalar/scalar.py
                try:
                    namespace.update(vars(importlib.import_module(f"{name}.{dotted}")))
                except ModuleNotFoundError as e:
                    if (e.name or "").split(".")[0] not in ("", name):
                        raise  # a library it imports (numba): load() stands it in and tries again
                except ImportError:
                    pass
    namespace.update(vars(module))
    return namespace, (package + os.sep,)


def find_value_class(namespace: dict[str, Any], path: str = "") -> type:
    """Their Value class: `Value` (or MiniTorch's `Scalar`) if it is a class, else the
    one class that has a number and a gradient on an instance and `__add__`/`__mul__`."""
    classes = [obj for name, obj in namespace.items() if isinstance(obj, type) and not name.startswith("_")]
    classes.sort(key=lambda cls: cls.__name__ not in ("Value", "Scalar"))
    why = ""  # what ruled out the first class that adds or multiplies: said in the message
    for cls in classes:
        if not any(op in base.__dict__ for base in cls.__mro__[:-1] for op in ("__add__", "__mul__")):
            continue
        try:
            Shape.of(cls)
        except Exception as e:  # noqa: BLE001 -- their constructor: any failure rules it out
            if not why:
                if isinstance(e, ValueError) and str(e).startswith("its "):
                    said = str(e).replace("its Value(2.0)", f"{cls.__name__}(2.0)")
                    if "no gradient" in said:
                        said += ": forward only so far? A backward() needs a grad on every node"
                else:
                    said = f"{cls.__name__}(2.0) raised {type(e).__name__}: {e}"
                why = f" (your {cls.__name__}: {said})"
            continue
        return cls
    if path and os.path.isdir(path):  # a MiniTorch package
        raise EngineError(
            f"no Scalar class: the package in {os.path.basename(os.path.normpath(path))} gives no class whose "
            "instances hold a number and a derivative and that can be added or multiplied -- is your Scalar "
            f"importable as minitorch.Scalar, or from minitorch/scalar.py?{why}"
        )
    raise EngineError(
        "no Value class: the file defines no class whose instances have .data and "
        f".grad and that can be added or multiplied (micrograd's Value(2.0) must work){why}"
    )


def their_error(where: str, e: BaseException, roots: tuple[str, ...]) -> dict[str, Any]:
    """{where, type, message, at: [file, line, source] in THEIR code (or None)}."""
    at = None
    for frame in traceback.extract_tb(e.__traceback__):
        if any(frame.filename.startswith(r.rstrip(os.sep)) for r in roots):
            at = [frame.filename, frame.lineno, (frame.line or "").strip()[:200]]
    return {"where": where, "type": type(e).__name__, "message": str(e)[:400], "at": at}
