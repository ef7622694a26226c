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

Its parts: load.py (their file, their class), conventions.py (what their class
offers, how its leaves are made), probe.py (one test), habits.py (zero_grad,
their topological sort, a big graph), graph.py and shapes.py (reading their
objects), build.py (a test program on their class).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from .conventions import has_gradient_code, misspelt_names, near_misses, offered, style_of
from .graph import closure_name
from .habits import big_graph, their_topo, zeroing
from .load import STAND_INS, EngineError, find_value_class, load, their_error
from .probe import REPEATS, Probe
from .shapes import backward_of, names_of, pass_function, pass_name, use_names, use_pass_function


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


def run(
    request: dict[str, Any],
    report: Callable[[dict[str, Any]], None],
    loaded: tuple[dict[str, Any], tuple[str, ...]] | None = None,
) -> None:
    """Load their engine, report what it offers, run every test of `request`. `loaded`:
    (namespace, roots) of a class already loaded (the in-process checker's)."""
    if loaded is None:
        loaded = _load(request, report)
        if loaded is None:
            return
    namespace, roots = loaded
    report({"kind": "loaded"})
    use_pass_function(pass_function(namespace, roots), namespace)
    try:
        V = find_value_class(namespace, request["engine"])
        use_names(V, _guarded(lambda: misspelt_names(V), {}))
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
            "shape": {"data": probe.shape.data, "grad": probe.shape.grad, "method": probe.shape.grad_is_method},
            "leaf_note": probe.leaf_note,
            "eps": probe.eps,
            "style": _guarded(lambda: style_of(probe.make(1.0) * probe.make(2.0)), "closures"),
            "backward_line": _guarded(lambda: _backward_line(probe), None),
            "stand_ins": list(STAND_INS),
            "gradient_code": _guarded(lambda: has_gradient_code(probe.make, tuple(request.get("methods", ()))), True),
            "near_misses": _guarded(lambda: near_misses(V, probe.make), []),
            "read_as": names_of(V),
            "names": _guarded(lambda: _their_names(probe), {}),  # their pass's and closures' names, for the report
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
    _habits(request, report, probe, namespace, roots)


def _load(
    request: dict[str, Any], report: Callable[[dict[str, Any]], None]
) -> tuple[dict[str, Any], tuple[str, ...]] | None:
    """(namespace, roots) of their engine, or None when it cannot be loaded (reported)."""
    path = request["engine"]
    try:
        return load(path)
    except EngineError as e:
        message, error = str(e), None
    except SyntaxError as e:
        message, error = _syntax_message(e, path), None
    except MemoryError:
        limit = f" (limit {request['memory'] >> 20} MB)" if request.get("memory") else ""
        message, error = f"loading {path} ran out of memory{limit}: a huge allocation?", None
    except SystemExit as e:
        message = f"loading {path} called sys.exit({e.code!r}): remove it (or put it under if __name__ == '__main__':)"
        error = None
    except BaseException as e:  # noqa: BLE001 -- anything their file raises
        error = their_error(f"loading {path}", e, (os.path.abspath(path),))
        at = error["at"]
        where = f" ({_from_theirs(at[0], path)}, line {at[1]}: `{at[2]}`)" if at else ""
        message = f"loading {path} raised {error['type']}: {error['message']}{where}"
    report({"kind": "unusable", "message": message, **({"error": error} if error else {})})
    return None


def _their_names(probe: Probe) -> dict[str, str]:
    """{'pass': their backward pass's name, 'closure': their node code's}, as on x * y -- names
    of their own (`backprop`, `back`), not misspellings the studio read as micrograd's (those the
    report names once, and keeps micrograd's words for)."""
    out = probe.make(1.0) * probe.make(2.0)
    misspelt = set(names_of(probe.V).values())
    names = {"pass": pass_name(out), "closure": closure_name(out) or ""}
    return {kind: name for kind, name in names.items() if name and name not in misspelt}


def _from_theirs(filename: str, path: str) -> str:
    """`filename` from where their engine starts: `engine.py`, `minitorch/fast_conv.py`."""
    return os.path.relpath(filename, os.path.dirname(os.path.abspath(path)))


def _syntax_message(e: SyntaxError, path: str) -> str:
    """'engine.py, line 44: syntax error: invalid syntax: `self.grad += #`' -- the file named
    from where theirs starts (`engine.py`, or `minitorch/scalar.py` in a package), not by the
    whole path of the folder it was copied to, and the line quoted."""
    where = _from_theirs(e.filename or path, path)
    quoted = f": `{e.text.strip()[:120]}`" if e.text and e.text.strip() else ""
    return f"{where}, line {e.lineno}: syntax error: {e.msg}{quoted}"


def _habits(
    request: dict[str, Any], report: Callable[[dict[str, Any]], None], probe: Probe, namespace: dict[str, Any],
    roots: tuple[str, ...],
) -> None:  # fmt: skip
    """After the tests: zero_grad between two passes, their own topological sort, a big graph."""
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


def _guarded(f: Callable[[], Any], default: Any) -> Any:
    try:
        return f()
    except Exception:  # noqa: BLE001 -- their code: the tests will meet it again, with its line
        return default


def _backward_line(probe: Probe) -> list[Any] | None:
    """Where their backward() pass is written ([file, line, source]), or None."""
    from .graph import line_of

    method = backward_of(probe.make(1.0))
    fn = getattr(method, "__func__", None) or getattr(method, "func", None) or method  # a method, their pass function
    return line_of(fn, probe.roots) if method is not None else None


def _instantiate(template: dict[str, Any], method: str) -> dict[str, Any]:
    """A test written for 'any unary method' (`x.METHOD()`), for one of theirs."""
    steps = [{**s, "method": method} if s.get("method") == "METHOD" else s for s in template["program"]["steps"]]
    name = template["name"].replace("METHOD", method)
    return {**template, "name": name, "program": {**template["program"], "steps": steps}, "method": method}
