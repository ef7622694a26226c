"""Tracing a script with scopes in a child process: one training step, grouped by its code.

A learner's microgpt (or any script that builds a graph of Values and calls
`backward()`) is their code, so the studio never imports it: like the checker
(core/sandbox/, whose box it shares), `trace_script(path)` runs it in a
box with a time and a memory limit. In the child:

1. the studio's engine is watched from the start (a script that does
   `from core.engine import Value`), and every class the script defines that
   looks like a Value (it has `data`, `__add__` and `__mul__` and a backward
   method) is watched as soon as Python has built it -- the child wraps
   `__build_class__` for that, before the script runs -- so each node is
   noted with the call and the loop turn that made it (record.py);
2. the first call of `backward()` (or `backprop` ...) on such a Value runs to
   its end, and then the script is stopped: that output and its graph,
   grads filled, are one training step;
3. the graph is sent back on the report channel, as plain arrays (base64)
   and JSON (graph.py's `to_plain`); the report line is signed.

The parent reads it with every check `ScopedGraph.from_plain` makes (sizes,
operands made before their users, known ops): nothing the child writes is
trusted as code. The script's top level is the root scope.
"""

from __future__ import annotations

import builtins
import json
import os
import sys
from typing import Any

ROOT_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMEOUT = 120.0  # seconds: a 130,000-node step of a learner's pure-Python Value, traced, takes ~10
MEMORY = 3 << 30  # bytes of address space: every Value of the step stays alive while it is traced
BACKWARD = ("backward", "backprop", "back_prop", "backpropagate")


class TraceResult:
    """What `trace_script` found: `graph` (a ScopedGraph) or None and `message` saying why."""

    def __init__(self, graph: Any, message: str, output: str = "") -> None:
        self.graph, self.message, self.output = graph, message, output


def trace_script(path: str, timeout: float = TIMEOUT, memory: int = MEMORY, box: bool | None = None) -> TraceResult:
    """Run the script at `path` in a box (core/sandbox/) up to its first backward(); its graph.

    The box holds the studio's `core` and `resources` read-only (a script may use
    the studio's engine and its data: names.txt) and the script's own folder
    read-only (its data files: microgpt reads names.txt beside it) -- for a
    script of the studio's resources/, that folder -- and nothing else of the
    machine. The graph comes back over the report channel; the file names it
    records are mapped back to the host's."""
    import base64
    import secrets

    from core.sandbox import run_boxed, verified
    from core.scopes.graph import ScopedGraph

    path = os.path.realpath(path)
    if not os.path.isfile(path):
        return TraceResult(None, f"{path}: no such file")
    from core.resources import root

    resources = os.path.realpath(root())
    folder = resources if path.startswith(resources + os.sep) else os.path.dirname(path)
    inside = os.path.join("work", os.path.relpath(path, folder))
    key = secrets.token_hex(16)
    files = {"studio/core": os.path.join(ROOT_DIR, "core"), "studio/resources": resources, "work": folder}
    args = [inside, str(int(memory)), str(int(timeout))]
    result = run_boxed(
        os.path.abspath(__file__), args, files, stdin=key.encode() + b"\n", timeout=timeout, memory=memory,
        output=64 << 20, box=box, flags=["--child"],
    )  # fmt: skip
    lines = verified(result.data, key)
    output = result.output[:2000]
    if lines is None:
        return TraceResult(None, "the trace's report was forged or cut: refused", output)
    done = next((x for x in lines if x.get("kind") == "traced"), None)
    if done is None:
        problem = next((x["message"] for x in lines if x.get("kind") == "unusable"), None)
        if problem is None:
            problem = "the script stopped before its first backward()"
            if result.timed_out:
                problem = f"the script did not finish its first backward() within {timeout:.0f} s"
            elif result.message():
                problem = f"the script {result.message()}"
        return TraceResult(None, problem.replace(inside, path), output)
    try:
        meta = _host_files(done["meta"], inside, path, folder)
        blobs = {k: base64.b64decode(v, validate=True) for k, v in done["blobs"].items()}
        graph = ScopedGraph.from_plain(meta, blobs)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        return TraceResult(None, f"the traced graph could not be read: {e}", output)
    return TraceResult(graph, f"traced {graph.n:,} nodes in {len(graph.scopes):,} scopes ({graph.engine})", output)


def _host_files(meta: dict[str, Any], inside: str, path: str, folder: str) -> dict[str, Any]:
    """The graph's file names as the host knows them (the child saw the box's)."""

    def host(name: Any) -> Any:
        if not isinstance(name, str) or not name:
            return name
        for prefix in (os.path.join(os.sep, "box", "work") + os.sep, "work" + os.sep):
            if name.startswith(prefix):
                return os.path.join(folder, name[len(prefix) :])
        return name if name != inside else path

    meta = dict(meta)
    meta["scopes"] = [[*s[:4], host(s[4]), *s[5:]] if isinstance(s, list) and len(s) > 4 else s for s in meta["scopes"]]
    meta["sources"] = {host(k): v for k, v in meta.get("sources", {}).items()}
    return meta


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


def child_main(write_fd: int, path: str, memory: int, seconds: int) -> int:
    import runpy

    from core.sandbox import limit_child, plain, sign

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
    import base64

    meta, blobs = graph.to_plain()
    blobs64 = {k: base64.b64encode(v).decode("ascii") for k, v in blobs.items()}
    report({"kind": "traced", "n": graph.n, "meta": meta, "blobs": blobs64})
    return 0


if __name__ == "__main__" and len(sys.argv) == 6 and sys.argv[1] == "--child":
    sys.path.insert(0, ROOT_DIR)
    sys.exit(child_main(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])))
