"""The child's harness: run the learner's class on the studio's tests, report numbers.

This is the only code of the studio that runs beside a learner's engine, in a
child process (in a sandbox where one can be had). It knows Python and the
shapes of Value classes (shapes.py), nothing else: no op table, no reference
engine, no verdict. For each test program the parent sends (build.py) it
reports what THEIR code computes, as plain numbers:

    forward     their data at every step of the program
    graph       their graph, read without interpretation (graph.py)
    steps       their gradient code run one node at a time, in a correct
                reverse topological order: each operand's grad before and after
    runs        their own backward(), on fresh objects, several times (some with
                every set of children iterated in another order): the grads left
    watched     their backward() once more with every `_backward` (MiniTorch:
                `chain_rule`) wrapped: the order of their calls
    fd          their forward at nudged points (x ± h, x ± h/2), per leaf and
                per step, so the parent can take central differences of THEIR
                function -- the rule a gradient is judged by
    error       their exception, with the line of their file it came from

The parent (core/foreign/judge.py) decides what is right. A learner's code that
patches this module can only change numbers, never the rule that reads them.
"""

from __future__ import annotations

import importlib
import inspect
import os
import runpy
import sys
import traceback
from collections.abc import Callable
from typing import Any

from .build import apply, build
from .graph import (
    ReadError,
    backward_code,
    closure_name,
    raw_op_of,
    read,
    read_children,
    stable_children,
    topological,
)
from .shapes import Shape, backward_of, children, eps_of, number, one_like, zero_like

BIG = 1_500  # nodes: a graph their file built, larger, is sent to open collapsed (core/scopes/infer.py BIG)
MAX_BIG = 400_000  # nodes: a larger one is only named
REPEATS = 8  # runs of their backward() per test: a set-order walk shows in some of them
DUNDERS = (
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__rtruediv__",
    "__pow__",
    "__rpow__",
    "__neg__",
    "__abs__",
)
NOT_OPS = {  # methods that are no unary op, never called to find out
    "backward", "backprop", "back_prop", "backpropagate", "zero_grad", "zero", "build_topo",
    "topological_sort", "topo_sort", "topological_order", "toposort", "draw", "draw_dot", "plot", "show",
    "item", "numpy", "tolist", "parameters", "params", "requires_grad_", "accumulate_derivative",
    "chain_rule", "is_leaf", "is_constant", "detach", "clone", "copy", "deepcopy", "graph", "trace",
    "children", "parents", "history", "to", "cpu", "cuda", "float", "double", "half", "int",
}  # fmt: skip


class EngineError(Exception):
    """Their file or folder cannot be used: the message says why."""


# -----------------------------------------------------------------------------
# Loading their engine


STAND_INS: list[str] = []  # libraries their file imports that are not installed here


class _Inert:
    """Whatever a missing library's name is used for at import time: a decorator
    (`@numba.njit`, `@njit(parallel=True)`) gives the function back unchanged, any
    other call or attribute gives another inert object."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return _Inert()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Inert()

    def __getitem__(self, key: Any) -> Any:
        return _Inert()

    def __mro_entries__(self, bases: tuple) -> tuple:
        return (object,)


def _stand_in(name: str) -> None:
    import types

    module = types.ModuleType(name)

    def inert(attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Inert()

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
        if os.path.isfile(os.path.join(package, sub + ".py")):
            try:
                namespace.update(vars(importlib.import_module(f"{name}.{sub}")))
            except ImportError:
                pass
    namespace.update(vars(module))
    return namespace, (package + os.sep,)


def find_value_class(namespace: dict[str, Any]) -> type:
    """Their Value class: `Value` (or MiniTorch's `Scalar`) if it is a class, else the
    one class that has a number and a gradient on an instance and `__add__`/`__mul__`."""
    classes = [obj for name, obj in namespace.items() if isinstance(obj, type) and not name.startswith("_")]
    classes.sort(key=lambda cls: cls.__name__ not in ("Value", "Scalar"))
    for cls in classes:
        if not any(op in base.__dict__ for base in cls.__mro__[:-1] for op in ("__add__", "__mul__")):
            continue
        try:
            Shape.of(cls)
        except Exception:  # noqa: BLE001 -- their constructor: any failure rules it out
            continue
        return cls
    raise EngineError(
        "no Value class: the file defines no class whose instances have .data and "
        ".grad and that can be added or multiplied (micrograd's Value(2.0) must work)"
    )


PYTORCH_FLAG = "requires_grad"
OFF = ("no", "not", "stop", "detach", "disable", "freeze", "frozen", "skip", "zero", "done", "computed")


def opt_in_flag(V: type, grad: str = "grad") -> str | None:
    """The name of the switch their leaves need before they take gradients, or None.
    PyTorch's `requires_grad` when a fresh leaf has it False; else an attribute False
    on a fresh leaf that names gradients (`require_grad`, `needs_grad`, `grad_on` ...;
    never the gradient itself, never a name that switches them off, `no_grad`) --
    taken only where their own pass shows it: with it False `x * x` gives x no
    gradient, with it True it does."""
    leaf = V(1.0)
    if getattr(leaf, PYTORCH_FLAG, None) is False:  # an attribute, a property or a slot
        return PYTORCH_FLAG
    names = vars(leaf) if hasattr(leaf, "__dict__") else {}
    for name in sorted(names):
        words = name.lower().strip("_").split("_")
        if names[name] is not False or name == grad or "grad" not in name.lower() or set(words) & set(OFF):
            continue
        if _only_with(V, name, grad):
            return name
    return None


def _only_with(V: type, flag: str, grad: str) -> bool:
    """Does x * x give x a gradient with `flag` set True on x, and none without it?"""

    def grad_of_square(on: bool) -> float:
        x = V(2.0)
        if on:
            setattr(x, flag, True)
        out = x * x
        backward = backward_of(out)
        if backward is None:
            raise TypeError("no backward()")
        backward()
        g = getattr(x, grad, None)
        return 0.0 if g is None else number(g)

    try:
        return grad_of_square(False) == 0.0 and grad_of_square(True) != 0.0
    except Exception:  # noqa: BLE001 -- their pass cannot tell: not taken
        return False


def leaf_maker(V: type, grad: str = "grad") -> tuple[Callable[[float], Any], str]:
    """(make(x) -> a leaf that takes gradients, a note). A class whose leaves need an
    opt-in flag (`requires_grad=True`, as PyTorch's; see `opt_in_flag`) gets it -- by
    the constructor's keyword where it takes one, else set on the leaf -- and the
    report says so."""
    flag = opt_in_flag(V, grad)
    if flag is None:
        return V, ""
    try:
        if getattr(V(1.0, **{flag: True}), flag) is True:
            return (lambda x: V(x, **{flag: True})), f"leaves made with {flag}=True"
    except Exception:  # noqa: BLE001 -- their constructor takes no such keyword
        pass

    def make(x: float) -> Any:
        value = V(x)
        setter = getattr(value, f"{flag}_", None)  # PyTorch's requires_grad_(True)
        if callable(setter):
            setter(True)
        else:
            setattr(value, flag, True)
        return value

    return make, f"leaves marked {flag} = True"


def offered(
    V: type, shape: Shape, make: Callable[[float], Any], known: tuple[str, ...] = ()
) -> tuple[list[str], list[str]]:
    """(the operations their class has: dunders, `known` methods (those the parent has tests
    for: the request's "methods", the studio's op table), 'numbers' when a Value and a plain
    number mix; their other unary methods -- sin, abs, softplus ...)."""
    found = [d for d in DUNDERS if callable(getattr(V, d, None))]
    found += [m for m in known if _takes_no_argument(V, m)]  # one that raises is tested, and its error shown
    try:
        if shape.read_data(make(1.0) + 2.0) == 3.0 and shape.read_data(make(1.0) * 2.0) == 2.0:
            found.append("numbers")
    except Exception:  # noqa: BLE001 -- their code, any failure means "no"
        pass
    unknown = [
        name
        for name in sorted({n for base in V.__mro__[:-1] for n in vars(base)})
        if not (name.startswith("_") or name in known or name in NOT_OPS or name in (shape.data, shape.grad))
        and _unary_op(V, name, make)
    ]
    return found, unknown


def _takes_no_argument(V: type, name: str) -> bool:
    method = getattr(V, name, None)
    if not inspect.isfunction(method):
        return False
    try:
        params = list(inspect.signature(method).parameters.values())[1:]
    except (TypeError, ValueError):
        return False
    return not any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


def _unary_op(V: type, name: str, make: Callable[[float], Any]) -> bool:
    """Is `name` an op of one Value: a method that takes no argument and, called on a
    leaf, returns one of their Values made from it? (`sigmoid(self, x)` is not.)"""
    if not _takes_no_argument(V, name):
        return False
    try:
        x = make(0.7)
        out = getattr(x, name)()
        return isinstance(out, V) and _reaches(out, x)
    except Exception:  # noqa: BLE001 -- not an op of one Value
        return False


def _reaches(out: Any, x: Any, limit: int = 50) -> bool:
    """Is `x` among the values `out` was made from (a fused op may hide it a few nodes down)?"""
    seen: set[int] = set()
    stack = [out]
    while stack and len(seen) < limit:
        v = stack.pop()
        if v is x:
            return True
        if id(v) in seen:
            continue
        seen.add(id(v))
        stack.extend(children(v)[0])
    return False


# -----------------------------------------------------------------------------
# Their exceptions, with their line


def their_error(where: str, e: BaseException, roots: tuple[str, ...]) -> dict[str, Any]:
    """{where, type, message, at: [file, line, source] in THEIR code (or None)}."""
    at = None
    for frame in traceback.extract_tb(e.__traceback__):
        if any(frame.filename.startswith(r.rstrip(os.sep)) for r in roots):
            at = [frame.filename, frame.lineno, (frame.line or "").strip()[:200]]
    return {"where": where, "type": type(e).__name__, "message": str(e)[:400], "at": at}


# -----------------------------------------------------------------------------
# One test


class Probe:
    """Their class, read once: its shape, how to make a leaf, its number type."""

    def __init__(self, V: type, roots: tuple[str, ...]) -> None:
        self.V = V
        self.roots = roots
        self.shape = Shape.of(V)
        self.make, self.leaf_note = leaf_maker(V, self.shape.grad)
        sample = getattr(self.make(1.0), self.shape.data)
        self.eps = eps_of(sample)
        self.style = "closures"
        self.node_grad = False  # a grad that was a node of their class, in this test

    def grad(self, value: Any) -> float | None:
        """Their grad as a float (None if never set). A grad that is a node of their
        class (`self.grad = other * ...` with `other` a Value) is read through its
        number and remembered: the judge names it (core/foreign/judge.py)."""
        g = self.shape.raw_grad(value)
        if isinstance(g, self.V):
            self.node_grad = True
            g = getattr(g, self.shape.data, None)
        return None if g is None else number(g)

    def build(self, program: dict[str, Any], at: dict[str, float] | None = None) -> tuple[dict, dict[int, str]]:
        names: dict[int, str] = {}

        def leaf(x: float, name: str) -> Any:
            value = self.make(x)
            names[id(value)] = name
            return value

        made = build(program, leaf, at)
        for step in program["steps"]:
            if step.get("name") and "leaf" not in step:
                names.setdefault(id(made[step["id"]]), step["name"])
        return made, names

    def _method_line(self, step: dict[str, Any]) -> list[Any] | None:
        """[file, line, source] of the method of theirs a step calls (`def relu(self):`)."""

        name = step.get("method") or {
            "add": "__add__", "sub": "__sub__", "mul": "__mul__", "truediv": "__truediv__", "pow": "__pow__",
            "neg": "__neg__", "abs": "__abs__",
        }.get(step.get("call", ""))  # fmt: skip
        method = getattr(self.V, name or "", None)
        code = getattr(method, "__code__", None)
        if code is None:
            return None
        import linecache

        return [code.co_filename, code.co_firstlineno, linecache.getline(code.co_filename, code.co_firstlineno).strip()]

    def output(self, program: dict[str, Any], at: dict[str, float]) -> float | None:
        try:
            made, _ = self.build(program, at)
            return self.shape.read_data(made[program["output"]])
        except Exception:  # noqa: BLE001 -- their forward at a nudged point: no number
            return None

    def step_h(self, x: float) -> float:
        return self.eps ** (1 / 3) * max(1.0, abs(x))

    def run(self, case: dict[str, Any], repeats: int = REPEATS) -> dict[str, Any]:
        program = case["program"]
        out: dict[str, Any] = {"name": case["name"]}
        self.node_grad = False
        try:
            self._run(program, out, repeats)
        finally:
            if self.node_grad:
                out["node_grad"] = True
        return out

    def _run(self, program: dict[str, Any], out: dict[str, Any], repeats: int) -> None:
        try:
            made, names = self.build(program)
            for step in program["steps"]:
                if not isinstance(made[step["id"]], self.V):
                    error = TypeError(
                        f"{_text(step)} gave a {type(made[step['id']]).__name__}, not a {self.V.__name__}"
                        + (" (a `return out` missing?)" if made[step["id"]] is None else "")
                    )
                    out["error"] = their_error("building the expression", error, self.roots)
                    out["error"]["at"] = self._method_line(step)
                    return
            out["forward"] = {sid: self.shape.read_data(v) for sid, v in made.items()}
        except BaseException as e:  # noqa: BLE001 -- their code
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            out["error"] = their_error("building the expression", e, self.roots)
            return
        root = made[program["output"]]
        try:
            nodes, objects = read(root, names, self.roots, self.shape.data)
        except ReadError as e:
            out["error"] = {"where": "reading your graph", "type": "ReadError", "message": str(e), "at": None}
            return
        ids = {id(obj): n["id"] for n, obj in zip(nodes, objects)}
        default = _code(backward_code(self.make(1.0)))  # a leaf's do-nothing closure
        for node, obj in zip(nodes, objects):
            if node["children"] and default is not None:
                node["default_closure"] = _code(backward_code(obj)) is default
        out["graph"] = nodes
        out["made"] = {sid: ids.get(id(v)) for sid, v in made.items()}
        self.style = _style(root)
        out["style"] = self.style
        out["steps"] = self.step_all(nodes, objects)
        if backward_of(root) is not None:
            out["watched"] = self.watch(nodes, objects)
            out["runs"] = self.their_runs(program, repeats)
        out["fd"] = self.fd(program, out["forward"])
        out["local_fd"] = self.local_fd(program, out["forward"])

    # -- their gradient code, one node at a time --------------------------------

    def step_all(self, nodes: list[dict], objects: list[Any]) -> list[dict[str, Any]]:
        """Zero every grad, seed the output, run their code for each node in a
        correct reverse topological order; one record per node."""
        by_id = {n["id"]: obj for n, obj in zip(nodes, objects)}
        if self.shape.grad_is_method:
            return []  # their grad is computed by a method: it cannot be zeroed and seeded from outside
        mine: dict[str, float] = {}  # MiniTorch keeps no interior derivative: the studio holds them
        try:
            if self.style == "minitorch":
                mine = {n["id"]: 0.0 for n in nodes}
                mine[nodes[-1]["id"]] = 1.0
            else:
                for obj in objects:
                    setattr(obj, self.shape.grad, zero_like(getattr(obj, self.shape.grad, None)))
                setattr(objects[-1], self.shape.grad, one_like(getattr(objects[-1], self.shape.grad, None)))
        except Exception:  # noqa: BLE001 -- a read-only grad (a property): their code cannot be stepped
            return []
        if self.style == "closures" and not any(
            closure_name(by_id[n["id"]]) or callable(getattr(by_id[n["id"]], "_backward", None))
            for n in nodes
            if n["children"]
        ):
            return []  # no per-node gradient code to step (a recursive backward(grad)): judged by results
        records = []
        for node in reversed(nodes):
            if not node["children"]:
                continue
            obj = by_id[node["id"]]
            unique = list(dict.fromkeys(node["children"]))
            read_g = (lambda c: mine[c]) if self.style == "minitorch" else (lambda c: self.grad(by_id[c]) or 0.0)
            try:
                out_grad = read_g(node["id"])
                before = {c: read_g(c) for c in unique}
                if self.style == "minitorch":
                    ids = {id(by_id[c]): c for c in unique}
                    for var, d in obj.chain_rule(out_grad):
                        if id(var) in ids:
                            mine[ids[id(var)]] += number(d)
                elif self.style == "local-grads":
                    for child, g in zip(obj._children, obj._local_grads):
                        child.grad += g * obj.grad
                else:
                    call_backward(getattr(obj, closure_name(obj) or "_backward"), obj)
                after = {c: read_g(c) for c in unique}
            except Exception as e:  # noqa: BLE001 -- their closure
                records.append(
                    {"node_id": node["id"], "error": their_error(f"the gradient code of {node['id']}", e, self.roots)}
                )
                break
            records.append(
                {
                    "node_id": node["id"],
                    "out_grad": out_grad,
                    "operands": [{"id": c, "before": before[c], "after": after[c]} for c in unique],
                }
            )
        return records

    # -- their backward() --------------------------------------------------------

    def watch(self, nodes: list[dict], objects: list[Any]) -> dict[str, Any]:
        """Their backward() on the traced graph (grads zeroed), each call of their
        per-node code recorded in order with its operands' grads around it."""
        calls: list[dict[str, Any]] = []
        by_id = {n["id"]: obj for n, obj in zip(nodes, objects)}
        restore: list[tuple[Any, str, Any, bool]] = []
        attr = "chain_rule" if self.style == "minitorch" else (closure_name(objects[-1]) or "_backward")
        try:
            for obj in objects if not self.shape.grad_is_method else ():
                setattr(obj, self.shape.grad, zero_like(getattr(obj, self.shape.grad, None)))
        except Exception:  # noqa: BLE001 -- MiniTorch's derivative is None until set: fine
            pass
        if self.style != "local-grads":
            for node, obj in zip(nodes, objects):
                if not node["children"]:
                    continue
                original = getattr(obj, attr, None)
                if original is None:
                    continue
                had = attr in getattr(obj, "__dict__", {})
                try:
                    setattr(obj, attr, self._recorder(calls, node, original, by_id))
                except (AttributeError, TypeError):
                    continue
                restore.append((obj, attr, original, had))
        result: dict[str, Any] = {"calls": calls}
        try:
            backward_of(objects[-1])()
        except Exception as e:  # noqa: BLE001
            result["error"] = their_error("your backward()", e, self.roots)
        finally:
            for obj, name, original, had in restore:
                try:
                    if had:
                        setattr(obj, name, original)
                    else:
                        delattr(obj, name)
                except (AttributeError, TypeError):
                    pass
        result["watched_all"] = bool(restore) and len(restore) == sum(1 for n in nodes if n["children"])
        result["grads"] = {n["id"]: _maybe(self.grad, obj) for n, obj in zip(nodes, objects)}
        return result

    def _recorder(self, calls: list, node: dict, original: Any, by_id: dict) -> Callable[..., Any]:
        unique = list(dict.fromkeys(node["children"]))
        minitorch = self.style == "minitorch"

        def recorded(*args: Any, **kwargs: Any) -> Any:
            record: dict[str, Any] = {"node_id": node["id"]}
            calls.append(record)
            if minitorch:
                result = original(*args, **kwargs)
                try:
                    result = list(result)
                    ids = {id(by_id[c]): c for c in unique}
                    record["out_grad"] = number(args[0]) if args else None
                    record["returned"] = [[ids.get(id(v)), number(d)] for v, d in result]
                except Exception:  # noqa: BLE001
                    pass
                return result
            try:
                record["out_grad"] = self.grad(by_id[node["id"]])
                before = {c: self.grad(by_id[c]) or 0.0 for c in unique}
            except Exception:  # noqa: BLE001 -- no record, then no replay of this pass
                return original(*args, **kwargs)
            result = original(*args, **kwargs)
            record["operands"] = [
                {"id": c, "before": before[c], "after": _maybe(self.grad, by_id[c]) or 0.0} for c in unique
            ]
            return result

        return recorded

    def their_runs(self, program: dict[str, Any], repeats: int) -> list[dict[str, Any]]:
        """Their backward() on `repeats` fresh builds (kept alive, so no build reuses
        another's memory and set order; some with sets reordered): named grads each."""
        runs: list[dict[str, Any]] = []
        kept: list[Any] = []
        for i in range(repeats):
            kept.extend(self.make(0.0) for _ in range(i))
            try:
                made, _ = self.build(program)
                root = made[program["output"]]
                kept.append(root)
                if i % 3:
                    reorder_sets(root, i % 3)
                backward_of(root)()
                runs.append({sid: _maybe(self.grad, made[sid]) for sid in named_steps(program)})
            except RecursionError as e:
                return [{"error": their_error("your backward() recursed too deep", e, self.roots)}]
            except Exception as e:  # noqa: BLE001 -- their code
                return [{"error": their_error("your backward()", e, self.roots)}]
        return runs

    # -- their forward, nudged ---------------------------------------------------

    def fd(self, program: dict[str, Any], forward: dict[str, float]) -> dict[str, Any]:
        """For each leaf: h and their output at x+h, x-h, x+h/2, x-h/2."""
        result = {}
        for step in program["steps"]:
            if "leaf" not in step:
                continue
            x = float(step["leaf"])
            h = self.step_h(x)
            values = [self.output(program, {step["id"]: x + d}) for d in (h, -h, h / 2, -h / 2)]
            result[step["id"]] = {"h": h, "f": values}
        return result

    def local_fd(self, program: dict[str, Any], forward: dict[str, float]) -> dict[str, Any]:
        """For each op step, its own forward re-run on fresh leaves at its operands'
        data, one operand nudged at a time: {step id: [per operand: {h, f, f0}]}."""
        result: dict[str, Any] = {}
        for step in program["steps"]:
            if "leaf" in step:
                continue
            args = step.get("args", ())
            ports: list[dict[str, Any] | None] = []
            for i, a in enumerate(args):
                if not isinstance(a, str):
                    ports.append(None)
                    continue
                x = forward[a]
                h = self.step_h(x)
                ports.append({"h": h, "f": [self._rerun(step, forward, i, d) for d in (h, -h, h / 2, -h / 2)]})
            result[step["id"]] = ports
        return result

    def _rerun(self, step: dict[str, Any], forward: dict[str, float], port: int, nudge: float) -> float | None:
        """The step's op on fresh leaves (x*x gets two), operand `port` nudged."""
        try:
            values = [
                self.make(forward[a] + (nudge if i == port else 0.0)) if isinstance(a, str) else a["n"]
                for i, a in enumerate(step.get("args", ()))
            ]
            return self.shape.read_data(apply(step, values))
        except Exception:  # noqa: BLE001 -- their forward there: no number
            return None


def _code(fn: Any) -> Any:
    return getattr(getattr(fn, "__func__", fn), "__code__", None)


def _style(root: Any) -> str:
    if getattr(root, "_local_grads", None) is not None and getattr(root, "_children", None) is not None:
        return "local-grads"
    if callable(getattr(root, "chain_rule", None)) and getattr(root, "history", None) is not None:
        return "minitorch"
    return "closures"


def _maybe(read: Callable[[Any], Any], value: Any) -> Any:
    try:
        return read(value)
    except Exception:  # noqa: BLE001
        return None


def _text(step: dict[str, Any]) -> str:
    if "method" in step:
        return f"{step['args'][0]}.{step['method']}()"
    return f"{step.get('call')}{tuple(a if isinstance(a, str) else a['n'] for a in step.get('args', ()))}"


def named_steps(program: dict[str, Any]) -> list[str]:
    """The steps whose grads are judged: every leaf, and op steps that carry a name."""
    return [s["id"] for s in program["steps"] if "leaf" in s or s.get("name")]


def call_backward(fn: Callable[..., Any], out: Any) -> Any:
    """Their `_backward`: micrograd's takes no argument; some take out."""
    try:
        wants_out = len(inspect.signature(fn).parameters) >= 1
    except (TypeError, ValueError):
        wants_out = False
    return fn(out) if wants_out else fn()


class _SetInOrder(set):
    """A set of their children that iterates in an order the studio chooses."""

    def __init__(self, items: list[Any]) -> None:
        super().__init__(items)
        self._order = items

    def __iter__(self):  # noqa: ANN204
        return iter(self._order)


def reorder_sets(root: Any, mode: int) -> None:
    """Make every set of children in the graph iterate reversed (mode 1) or rotated by
    one (mode 2): a walk that is right only in some set orders is wrong in one of these."""
    seen, stack = {id(root)}, [root]
    while stack:
        value = stack.pop()
        kids, ordered, where = children(value)
        if not ordered and where and len(kids) > 1:
            order = kids[::-1] if mode == 1 else kids[1:] + kids[:1]
            try:
                setattr(value, where, _SetInOrder(order))
            except (AttributeError, TypeError):
                pass
        for kid in kids:
            if id(kid) not in seen:
                seen.add(id(kid))
                stack.append(kid)


# -----------------------------------------------------------------------------
# Their whole-pass habits: zero_grad, their own topological sort

TOPO_NAMES = ("topological_sort", "topo_sort", "build_topo", "topological_order", "toposort")


def zeroing(probe: Probe) -> dict[str, Any] | None:
    """Two passes of their backward() on h = x*y; out = h + x*h, with their
    zero_grad() between when they have one: the grads of x and y after each, and
    which values zero_grad left non-zero. None without a backward() or + and *."""
    try:
        x, y = probe.make(2.0), probe.make(-3.0)
        h = x * y
        root = h + x * h
    except Exception:  # noqa: BLE001 -- no + or * with two Values
        return None
    if backward_of(root) is None:
        return None
    zero = getattr(root, "zero_grad", None)
    backward_of(root)()
    first = {"x": probe.grad(x), "y": probe.grad(y)}
    left: list[str] = []
    if callable(zero):
        zero()
        left = [n for n, v in (("x", x), ("y", y), ("x*y", h)) if (probe.grad(v) or 0.0) != 0.0]
    backward_of(root)()
    return {
        "zero_grad": callable(zero),
        "first": first,
        "second": {"x": probe.grad(x), "y": probe.grad(y)},
        "left": left,
    }


def find_topo(namespace: dict[str, Any], V: type) -> tuple[str, Callable[[Any], Any]] | None:
    """(name, fn(root) -> their list) for a topological sort the learner wrote, or None."""
    for name in TOPO_NAMES:
        fn = namespace.get(name)
        if callable(fn) and not isinstance(fn, type):
            return name, fn
    for name in TOPO_NAMES:
        if callable(getattr(V, name, None)):
            return f"{V.__name__}.{name}", lambda root, _name=name: getattr(root, _name)()
    return None


def their_topo(probe: Probe, namespace: dict[str, Any], programs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Their sort called on each program's output: the node ids it lists, in its order."""
    found = find_topo(namespace, probe.V)
    if found is None:
        return None
    name, fn = found
    results = []
    for program in programs:
        item: dict[str, Any] = {"program": program["name"]}
        try:
            made, names = probe.build(program["program"])
            root = made[program["program"]["output"]]
            nodes, objects = read(root, names, probe.roots, probe.shape.data)
            ids = {id(obj): n["id"] for n, obj in zip(nodes, objects)}
            item["graph"] = nodes
            item["listed"] = [ids.get(id(v), "?") for v in fn(root)]
        except Exception as e:  # noqa: BLE001 -- their function
            item["error"] = their_error(name, e, probe.roots)
        results.append(item)
    return {"name": name, "results": results}


# -----------------------------------------------------------------------------
# The whole run


def needs_of(program: dict[str, Any]) -> list[str]:
    """What a program asks of the class: dunders ('__rsub__' for 1 - x), methods, and
    'numbers' where a plain number meets a Value."""
    needs = []
    calls = {"add": "__add__", "sub": "__sub__", "mul": "__mul__", "truediv": "__truediv__", "pow": "__pow__"}
    for step in program["steps"]:
        args = step.get("args", ())
        if "method" in step:
            needs.append(step["method"])
        elif step.get("call") in ("neg", "abs"):
            needs.append(f"__{step['call']}__")
        elif step.get("call") in calls:
            first_number = bool(args) and not isinstance(args[0], str)
            dunder = calls[step["call"]]
            needs.append(dunder.replace("__", "__r", 1) if first_number else dunder)
            if any(not isinstance(a, str) for a in args) and step["call"] != "pow":
                needs.append("numbers")
    return sorted(set(needs))


def run(request: dict[str, Any], report: Callable[[dict[str, Any]], None]) -> None:
    """Load their engine, report what it offers, run every test of `request`."""
    path = request["engine"]
    try:
        namespace, roots = load(path)
    except EngineError as e:
        report({"kind": "unusable", "message": str(e)})
        return
    except SyntaxError as e:
        report({"kind": "unusable", "message": f"{e.filename or path}, line {e.lineno}: syntax error: {e.msg}"})
        return
    except MemoryError:
        limit = f" (limit {request['memory'] >> 20} MB)" if request.get("memory") else ""
        report({"kind": "unusable", "message": f"loading {path} ran out of memory{limit}: a huge allocation?"})
        return
    except SystemExit as e:
        report(
            {
                "kind": "unusable",
                "message": f"loading {path} called sys.exit({e.code!r}): "
                "remove it (or put it under if __name__ == '__main__':)",
            }
        )
        return
    except BaseException as e:  # noqa: BLE001 -- anything their file raises
        error = their_error(f"loading {path}", e, (os.path.abspath(path),))
        where = f" (line {error['at'][1]})" if error["at"] else ""
        report(
            {
                "kind": "unusable",
                "message": f"loading {path} raised {error['type']}: {error['message']}{where}",
                "error": error,
            }
        )
        return
    report({"kind": "loaded"})
    try:
        V = find_value_class(namespace)
        probe = Probe(V, roots)
    except EngineError as e:
        report({"kind": "unusable", "message": str(e)})
        return
    except Exception as e:  # noqa: BLE001 -- their constructor
        report({"kind": "unusable", "message": f"making a leaf of your class raised {type(e).__name__}: {e}"})
        return
    found, unknown = offered(V, probe.shape, probe.make, tuple(request.get("methods", ())))
    report(
        {
            "kind": "start",
            "class": V.__name__,
            "offered": found,
            "unknown_methods": unknown,
            "shape": {"data": probe.shape.data, "grad": probe.shape.grad},
            "leaf_note": probe.leaf_note,
            "eps": probe.eps,
            "style": _guarded(lambda: _style(probe.make(1.0) * probe.make(2.0)), "closures"),
            "backward_line": _guarded(lambda: _backward_line(probe), None),
            "stand_ins": list(STAND_INS),
            "gradient_code": _guarded(lambda: _has_gradient_code(probe, tuple(request.get("methods", ()))), True),
        }
    )
    cases = list(request["cases"])
    for template in request.get("each_method", ()):
        for method in unknown:
            cases.append(_instantiate(template, method))
    for case in cases:
        missing = [n for n in needs_of(case["program"]) if n not in found and n not in unknown and n != "METHOD"]
        if missing:
            report({"kind": "case", "name": case["name"], "skipped": missing})
            continue
        report({"kind": "begin", "name": case["name"]})
        report({"kind": "case", **probe.run(case, request.get("repeats", REPEATS))})
    if request.get("zeroing", True):
        try:
            report({"kind": "zeroing", "result": zeroing(probe)})
        except Exception as e:  # noqa: BLE001
            report({"kind": "zeroing", "error": their_error("zero_grad", e, roots)})
    topo = request.get("topo") or []
    if topo:
        try:
            report({"kind": "topo", "result": their_topo(probe, namespace, topo)})
        except Exception as e:  # noqa: BLE001
            report({"kind": "topo", "error": their_error("your topological sort", e, roots)})
    if request.get("big"):
        try:
            big = big_graph(namespace, probe)
        except Exception as e:  # noqa: BLE001 -- their objects, read: a graph we cannot read is not drawn
            big = {"kind": "big", "error": f"{type(e).__name__}: {e}"}
        if big is not None:
            report(big)


def big_graph(namespace: dict[str, Any], probe: Probe) -> dict[str, Any] | None:
    """The biggest graph their file built (a module-level Value of their class: `loss` after
    `loss = sum(...)`), when it has more than BIG nodes: as plain rows, each node after its
    operands -- [label, data, grad, their op, [operand rows], operands in order?]. The studio
    opens it collapsed (core/scopes/infer.py `collapsed_rows`); a small one is not sent (the
    tests' graphs are what the debugger steps)."""
    V, shape = probe.V, probe.shape
    best: tuple[int, str, list[Any]] | None = None
    for name, value in list(namespace.items()):
        if name.startswith("__") or not isinstance(value, V) or not read_children(value)[0]:
            continue
        order = topological(value, {})
        if len(order) > BIG and (best is None or len(order) > best[0]):
            best = (len(order), name, order)
    if best is None:
        return None
    n, name, order = best
    if n > MAX_BIG:
        return {"kind": "big", "name": name, "n": n, "error": f"{n:,} nodes: more than the studio reads ({MAX_BIG:,})"}
    row = {id(v): i for i, v in enumerate(order)}
    rows = []
    for value in order:
        kids, ordered = stable_children(value, {}), read_children(value)[1]  # a set in the order read() gives
        label = getattr(value, "label", None)
        rows.append(
            [
                label.strip() if isinstance(label, str) and label.strip() else None,
                number(getattr(value, shape.data)),
                probe.grad(value),
                raw_op_of(value) if kids else "",
                [row[id(k)] for k in kids],
                ordered,
            ]
        )
    if rows[-1][0] is None:
        rows[-1][0] = name  # the output, by the name their file gave it (`loss`)
    return {"kind": "big", "name": name, "n": n, "rows": rows}


def _has_gradient_code(probe: Probe, methods: tuple[str, ...] = ()) -> bool:
    """Can anything of theirs compute a gradient: a backward() pass, or per-node code
    (a closure, local grads, MiniTorch's chain_rule) on the result of ANY of their ops?
    A leaf's do-nothing closure, kept by every node of a forward-only start, is none."""
    default = _code(backward_code(probe.make(1.0)))
    results = []
    for op in (
        lambda a, b: a * b,
        lambda a, b: a + b,
        lambda a, b: a - b,
        lambda a, b: a / b,
        lambda a, b: a**2,
        lambda a, b: -a,
        *[lambda a, b, name=name: getattr(a, name)() for name in methods],  # the op table's (the request)
    ):
        a, b = probe.make(2.0), probe.make(3.0)
        try:
            out = op(a, b)
        except Exception:  # noqa: BLE001 -- an op their class does not have
            continue
        results += [out, a, b]  # some classes hang the closures on the operands
    if any(out is None for out in results[::3]):
        return True  # an op that returns nothing: each test names it, at its line (`return out` missing?)
    for out in results:
        own = default is None or _code(backward_code(out)) is not default
        if (
            backward_of(out) is not None
            or (closure_name(out) is not None and own)
            or (callable(getattr(out, "_backward", None)) and own)
            or getattr(out, "_local_grads", None) is not None
            or callable(getattr(out, "chain_rule", None))
        ):
            return True
    return not results  # no op works at all: the tests say what breaks


def _guarded(f: Callable[[], Any], default: Any) -> Any:
    try:
        return f()
    except Exception:  # noqa: BLE001 -- their code: the tests will meet it again, with its line
        return default


def _backward_line(probe: Probe) -> list[Any] | None:
    """Where their backward() pass is written ([file, line, source]), or None."""
    from .graph import line_of

    method = backward_of(probe.make(1.0))
    return line_of(getattr(method, "__func__", method), probe.roots) if method is not None else None


def _instantiate(template: dict[str, Any], method: str) -> dict[str, Any]:
    """A test written for 'any unary method' (`x.METHOD()`), for one of theirs."""
    steps = [{**s, "method": method} if s.get("method") == "METHOD" else s for s in template["program"]["steps"]]
    name = template["name"].replace("METHOD", method)
    return {**template, "name": name, "program": {**template["program"], "steps": steps}, "method": method}
