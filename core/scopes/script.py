"""Tracing a script with scopes in a child process: one training step, grouped by its code.

A learner's microgpt (or any script that builds a graph of Values and calls
`backward()`) is their code, so the studio never imports it: like the checker
(core/foreign/runner.py, whose supervisor it shares), `trace_script(path)`
runs it in a child process with a time and a memory limit. In the child:

1. the studio's engine is watched from the start (a script that does
   `from core.engine import Value`), and every class the script defines that
   looks like a Value (it has `data`, `__add__` and `__mul__` and a backward
   method) is watched as soon as Python has built it -- the child wraps
   `__build_class__` for that, before the script runs -- so each node is
   noted with the call and the loop turn that made it (record.py);
2. the first call of `backward()` (or `backprop` ...) on such a Value runs to
   its end, and then the script is stopped: that output and its graph,
   grads filled, are one training step;
3. the graph is written, as plain arrays and JSON (graph.py), into the folder
   the parent gave; the report line is signed, as the checker's are.

The parent reads the folder with every check `ScopedGraph.read` makes (sizes,
operands made before their users, known ops): nothing the child writes is
trusted as code. The script's top level is the root scope.
"""

from __future__ import annotations

import builtins
import json
import os
import sys
import tempfile
from typing import Any

ROOT_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMEOUT = 120.0  # seconds: a 130,000-node step of a learner's pure-Python Value, traced, takes ~10
MEMORY = 3 << 30  # bytes of address space: every Value of the step stays alive while it is traced
BACKWARD = ("backward", "backprop", "back_prop", "backpropagate")


class TraceResult:
    """What `trace_script` found: `graph` (a ScopedGraph) or None and `message` saying why."""

    def __init__(self, graph: Any, message: str, output: str = "") -> None:
        self.graph, self.message, self.output = graph, message, output


def trace_script(path: str, timeout: float = TIMEOUT, memory: int = MEMORY) -> TraceResult:
    """Run the script at `path` in a child process up to its first backward(); its graph."""
    import secrets

    from core.foreign.runner import _read_text, _verified, run_supervised
    from core.scopes.graph import ScopedGraph

    path = os.path.abspath(path)
    if not os.path.isfile(path):
        return TraceResult(None, f"{path}: no such file")
    with tempfile.TemporaryDirectory(prefix="bps-scopes-") as tmp:
        out = os.path.join(tmp, "graph")
        os.mkdir(out)
        log = os.path.join(tmp, "output.txt")
        key = secrets.token_hex(16)
        args = [path, str(int(memory)), str(int(timeout)), out]
        data, status = run_supervised([os.path.abspath(__file__), "--child"], args, timeout, tmp, log, key)
        lines = _verified(data, key)
        output = _read_text(log, 2000)
        if lines is None:
            return TraceResult(None, "the trace's report was forged or cut: refused", output)
        done = next((x for x in lines if x.get("kind") == "traced"), None)
        if done is None:
            problem = next((x["message"] for x in lines if x.get("kind") == "unusable"), None)
            if problem is None:
                problem = "the script stopped before its first backward()"
                if status.get("timed_out"):
                    problem = f"the script did not finish its first backward() within {timeout:.0f} s"
            return TraceResult(None, problem, output)
        try:
            graph = ScopedGraph.read(out)
        except (OSError, ValueError, KeyError, TypeError) as e:
            return TraceResult(None, f"the traced graph could not be read: {e}", output)
    return TraceResult(graph, f"traced {graph.n:,} nodes in {len(graph.scopes):,} scopes ({graph.engine})", output)


# -----------------------------------------------------------------------------
# The child side


class TraceDone(BaseException):  # not an Exception: the script's `except Exception` does not stop it
    """Raised after the first backward() to stop the script."""


def looks_like_value(cls: type) -> bool:
    names = set()
    for klass in cls.__mro__:
        names |= set(vars(klass))
        names |= set(getattr(klass, "__slots__", ()) if not isinstance(getattr(klass, "__slots__", ()), str) else ())
    return "__add__" in names and "__mul__" in names and any(b in names for b in BACKWARD)


def child_main(write_fd: int, path: str, memory: int, seconds: int, out_dir: str) -> int:
    import runpy

    from core.foreign.runner import limit_child, plain, sign

    key = sys.stdin.readline().strip()
    sys.stdin.close()
    os.set_inheritable(write_fd, False)
    limit_child(memory, seconds, output=64 << 20)
    out = os.fdopen(write_fd, "w", encoding="utf-8")  # noqa: SIM115 -- open for the whole run
    me = os.getpid()

    def report(item: dict[str, Any]) -> None:
        if os.getpid() != me:
            os._exit(0)
        text = json.dumps(plain(item), allow_nan=False)
        out.write(sign(key, text) + " " + text + "\n")
        out.flush()

    from core import engine
    from core.scopes.record import Recorder, class_code, code_of, watch_class, watch_engine

    rec = Recorder(class_code(engine.Value) | code_of([engine._node, engine._operand]), base_file=path)
    undo = [watch_engine(rec)]
    caught: dict[str, Any] = {}

    def stop_after(cls: type, name: str) -> None:
        method = getattr(cls, name)

        def backward(self: Any, *args: Any, **kwargs: Any) -> Any:
            result = method(self, *args, **kwargs)
            if "root" not in caught:
                caught["root"] = self
                raise TraceDone
            return result

        rec.add_skip(code_of([backward]))
        setattr(cls, name, backward)

    stop_after(engine.Value, "backward")
    build_class = builtins.__build_class__

    def __build_class__(*args: Any, **kwargs: Any) -> Any:
        cls = build_class(*args, **kwargs)
        if looks_like_value(cls):
            rec.add_skip(class_code(cls))
            undo.append(watch_class(cls, rec))
            for name in BACKWARD:
                if callable(getattr(cls, name, None)):
                    stop_after(cls, name)
                    break
        return cls

    builtins.__build_class__ = __build_class__
    sys.path.insert(0, os.path.dirname(path))
    sys.argv = [path]
    try:
        runpy.run_path(path, run_name="__main__")
    except TraceDone:
        pass
    except SyntaxError as e:
        report({"kind": "unusable", "message": f"{path}, line {e.lineno}: syntax error: {e.msg}"})
        return 0
    except MemoryError:
        report({"kind": "unusable", "message": f"the script ran out of memory (limit {memory >> 20} MB)"})
        return 0
    except BaseException as e:  # noqa: BLE001 -- anything their script raises
        report({"kind": "unusable", "message": f"the script raised {type(e).__name__}: {e}"})
        return 0
    finally:
        builtins.__build_class__ = build_class
    rec.finish()
    root = caught.get("root")
    if root is None:
        report({"kind": "unusable", "message": "the script ended without calling backward() on a Value"})
        return 0
    from core.scopes.graph import ScopedGraph

    if isinstance(root, engine.Value):
        graph = ScopedGraph.from_values(root, rec)
    else:
        from core.scopes.foreign import from_foreign

        graph = from_foreign(root, rec)
    graph.write(out_dir)
    report({"kind": "traced", "n": graph.n})
    return 0


if __name__ == "__main__" and len(sys.argv) == 7 and sys.argv[1] == "--child":
    sys.path.insert(0, ROOT_DIR)
    sys.exit(child_main(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]))
