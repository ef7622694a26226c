"""One test: their class run on one program of the studio's, every number it gives.

`Probe(V, roots).run(case)` builds the program on fresh leaves of their class and
reports (run.py says how each is judged): their forward, their graph as read,
their gradient code stepped one node at a time in a correct order, their own
backward() several times (sets of children reordered in some), the order of
their calls, and their forward at nudged points for central differences.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

from .build import apply, build
from .conventions import code_of, leaf_maker, operand_locals, style_of
from .graph import (
    ReadError,
    backward_code,
    closure_name,
    read,
)
from .load import their_error
from .shapes import BACKWARD, Shape, backward_of, children, eps_of, local_grads, number, one_like, zero_like

REPEATS = 8  # runs of their backward() per test: a set-order walk shows in some of them


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
        try:  # a class whose per-node code takes the operands is so for a node of one operand too
            self.operand_code = style_of(self.make(1.0) * self.make(2.0)) == "local-fn"
        except Exception:  # noqa: BLE001 -- their * raises: each test says so
            self.operand_code = False
        self.node_grad = False  # a grad that was a node of their class, in this test
        self.unstepped = ""  # why their code could not be stepped node by node, in this test ('' when it was)

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
        default = code_of(backward_code(self.make(1.0)))  # a leaf's do-nothing closure
        for node, obj in zip(nodes, objects):
            if node["children"] and default is not None:
                node["default_closure"] = code_of(backward_code(obj)) is default
        out["graph"] = nodes
        out["made"] = {sid: ids.get(id(v)) for sid, v in made.items()}
        self.style = "local-fn" if self.operand_code else style_of(root)
        out["style"] = self.style
        if self.style == "local-fn":  # their code's local derivatives, read as the local-grads style's are
            for node, obj in zip(nodes, objects):
                if node["children"]:
                    node["local_grads"] = operand_locals(obj)
        shadowing = [n for n in BACKWARD if callable(getattr(root, "__dict__", {}).get(n))]
        if shadowing and nodes[-1]["children"]:  # an op's closure kept under the pass's name, on the node
            out["pass_shadowed"] = shadowing[0]
        self.unstepped = ""
        out["steps"] = self.step_all(nodes, objects)
        if self.unstepped:
            out["unstepped"] = self.unstepped
        if backward_of(root) is not None:
            out["watched"] = self.watch(nodes, objects)
            out["runs"] = self.their_runs(program, repeats)
        # the differences are taken, and judged, at the coarsest number type along the expression: a float32
        # sum of float64 leaves is flat to a float64-sized step (its "1" read as 1.004)
        coarsest = max((eps_of(getattr(v, self.shape.data, None)) for v in made.values()), default=self.eps)
        own = self.eps
        if coarsest > own:
            out["eps"] = coarsest
            self.eps = coarsest
        try:
            out["fd"] = self.fd(program, out["forward"])
            out["local_fd"] = self.local_fd(program, out["forward"])
        finally:
            self.eps = own

    # -- their gradient code, one node at a time --------------------------------

    def step_all(self, nodes: list[dict], objects: list[Any]) -> list[dict[str, Any]]:
        """Zero every grad, seed the output, run their code for each node in a
        correct reverse topological order; one record per node."""
        by_id = {n["id"]: obj for n, obj in zip(nodes, objects)}
        if self.shape.grad_is_method:
            self.unstepped = "grad-method"
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
            self.unstepped = "read-only"
            return []
        if self.style == "closures" and not any(
            closure_name(by_id[n["id"]]) or callable(getattr(by_id[n["id"]], "_backward", None))
            for n in nodes
            if n["children"]
        ):
            self.unstepped = "no-node-code"
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
                self._node_code(obj, out_grad, {id(by_id[c]): c for c in unique}, mine)
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

    def _node_code(self, obj: Any, out_grad: float, ids: dict[int, str], mine: dict[str, float]) -> None:
        """Run one node's own gradient code, as their style keeps it (`ids`: their operands'
        ids by object, for MiniTorch, whose derivatives the studio holds in `mine`)."""
        if self.style == "minitorch":
            for var, d in obj.chain_rule(out_grad):
                if id(var) in ids:
                    mine[ids[id(var)]] += number(d)
        elif self.style == "local-grads":
            for child, g in zip(children(obj)[0], local_grads(obj) or ()):
                child.grad += g * obj.grad
        elif self.style == "local-fn":  # their code gives the local derivatives; the chain rule is applied here
            kids, grad = children(obj)[0], self.shape.grad
            for child, g in zip(kids, getattr(obj, closure_name(obj) or "_backward")(*kids)):
                setattr(child, grad, getattr(child, grad) + number(g) * number(getattr(obj, grad)))
        else:
            call_backward(getattr(obj, closure_name(obj) or "_backward"), obj)

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
        if self.style not in ("local-grads", "local-fn"):  # their pass, not their node's code, adds to the grads
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

    def __iter__(self) -> Iterator[Any]:
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
