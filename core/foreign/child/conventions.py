"""What their class offers and how its leaves are made: found by what their code does.

Learners name things their own way. So the harness does not trust names: an
opt-in switch (`requires_grad`, `require_grad`, `needs_grad` ...) is taken only
where their own pass shows that gradients need it (`opt_in_flag`); an op is any
method that, called on a leaf, returns one of their Values made from it
(`offered`); gradient code is whatever per-node code or backward() their ops
leave on a result (`has_gradient_code`), never a constructor's do-nothing default.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from .graph import CLOSURES, backward_code, closure_name
from .shapes import BACKWARD, Shape, backward_of, children, local_grads, number

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
    switch = PYTORCH_FLAG + "_"  # PyTorch's method alone, no attribute: `x.requires_grad_()` (a MiniTorch variant)
    if callable(getattr(leaf, switch, None)) and _only_with(V, switch, grad):
        return switch
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
            _switch_on(x, flag)
        out = x * x
        backward = backward_of(out)
        if backward is None:
            raise TypeError("no backward()")
        backward()
        g = getattr(x, grad, None)
        return 0.0 if g is None else number(g)

    try:
        off = grad_of_square(False)
    except Exception:  # noqa: BLE001 -- their pass refuses a leaf without it ("require_grad is False"): no gradient
        off = 0.0
    try:
        return off == 0.0 and grad_of_square(True) != 0.0
    except Exception:  # noqa: BLE001 -- their pass cannot tell: not taken
        return False


def _switch_on(value: Any, flag: str) -> None:
    """Set their opt-in switch on a leaf: call it (`requires_grad_(True)`) or set it True."""
    if flag.endswith("_") and callable(getattr(value, flag, None)):
        getattr(value, flag)(True)
    else:
        setattr(value, flag, True)


def leaf_maker(V: type, grad: str = "grad") -> tuple[Callable[[float], Any], str]:
    """(make(x) -> a leaf that takes gradients, a note). A class whose leaves need an
    opt-in flag (`requires_grad=True`, as PyTorch's; see `opt_in_flag`) gets it -- by
    the constructor's keyword where it takes one, else set on the leaf -- and the
    report says so."""
    flag = opt_in_flag(V, grad)
    if flag is None:
        return V, ""
    if flag.endswith("_"):

        def switched(x: float) -> Any:
            value = V(x)
            _switch_on(value, flag)
            return value

        return switched, f"leaves switched on with {flag}(True)"
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


def code_of(fn: Any) -> Any:
    """The code object of a function or bound method (None for anything else)."""
    return getattr(getattr(fn, "__func__", fn), "__code__", None)


def style_of(root: Any) -> str:
    """How their nodes carry gradient code: 'closures' (micrograd), 'local-grads',
    'local-fn' (a node's code takes its operands and returns their local derivatives:
    `_backward(x, y) -> (1.0, 1.0)`, their pass multiplies), 'minitorch'."""
    if children(root)[0] and local_grads(root) is not None:
        return "local-grads"
    if callable(getattr(root, "chain_rule", None)) and getattr(root, "history", None) is not None:
        return "minitorch"
    if local_function(root) is not None:
        return "local-fn"
    return "closures"


def local_function(value: Any) -> list[float] | None:
    """The local derivatives of `value`'s operands when its per-node code takes the
    operands and returns them (`Add.backward(x, y) -> (1.0, 1.0)`, kept as `_backward`):
    a function whose required positional parameters are as many as the operands (two
    or more: a one-parameter closure may be micrograd's `_backward(out)`), called on
    them, returning that many numbers. None for any other kind of code."""
    fn = getattr(value, closure_name(value) or "_backward", None)
    kids = children(value)[0]
    if not callable(fn) or len(kids) < 2:
        return None
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    required = [p for p in params if p.kind in positional and p.default is p.empty]
    spread = any(p.kind == inspect.Parameter.VAR_POSITIONAL for p in params)
    if len(required) != len(kids) and not (spread and not required):
        return None
    return _numbers(fn, kids)


def _numbers(fn: Callable[..., Any], kids: list[Any]) -> list[float] | None:
    try:
        got = fn(*kids)
        if isinstance(got, (tuple, list)) and len(got) == len(kids):
            return [number(g) for g in got]
    except Exception:  # noqa: BLE001 -- their code: not this kind, or it raises (stepped later, and named)
        return None
    return None


def operand_locals(value: Any) -> list[float] | None:
    """`value`'s local derivatives from code that takes its operands (any count, one
    included), once the class is known to be of that kind ('local-fn')."""
    fn = getattr(value, closure_name(value) or "_backward", None)
    kids = children(value)[0]
    return _numbers(fn, kids) if callable(fn) and kids else None


def has_gradient_code(make: Callable[[float], Any], methods: tuple[str, ...] = ()) -> bool:
    """Can anything of theirs compute a gradient: a backward() pass, or per-node code
    (a closure, local grads, MiniTorch's chain_rule) on the result of ANY of their ops?
    A leaf's do-nothing closure, kept by every node of a forward-only start, is none."""
    default = code_of(backward_code(make(1.0)))
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
        a, b = make(2.0), make(3.0)
        try:
            out = op(a, b)
        except Exception:  # noqa: BLE001 -- an op their class does not have
            continue
        results += [out, a, b]  # some classes hang the closures on the operands
    if any(out is None for out in results[::3]):
        return True  # an op that returns nothing: each test names it, at its line (`return out` missing?)
    for out in results:
        own = default is None or code_of(backward_code(out)) is not default
        if (
            backward_of(out) is not None
            or (closure_name(out) is not None and own)
            or (callable(getattr(out, "_backward", None)) and own)
            or (children(out)[0] and local_grads(out) is not None)
            or callable(getattr(out, "chain_rule", None))
        ):
            return True
    return not results  # no op works at all: the tests say what breaks


MEANT = ("backward", "_backward")  # the names a misspelling is read against


def near_misses(V: type, make: Callable[[float], Any]) -> list[list[str]]:
    """[[their name, the name meant]] for a method of their class or an attribute of an op's
    result spelled like micrograd's pass or closure but not as it (`backaward`,
    `_backwards`, `_backword`): the studio looks for the names it knows, so the learner
    is told which of theirs was passed over."""
    import difflib

    known = {*BACKWARD, *CLOSURES}
    names = {n for n in dir(V) if not n.startswith("__") and callable(getattr(V, n, None))}  # as resolved
    try:
        out = make(1.0) * make(2.0)
        names |= {n for n, v in getattr(out, "__dict__", {}).items() if callable(v)}
    except Exception:  # noqa: BLE001 -- no * with two Values: the class's own names are enough
        pass
    found = []
    for name in sorted(names - known):
        if name.startswith("__"):
            continue
        meant = difflib.get_close_matches(name.lower(), MEANT, n=1, cutoff=0.8)
        if meant:
            found.append([name, meant[0]])
    return found


def misspelt_names(V: type) -> dict[str, str]:
    """{"pass": their name, "closure": their name} where their class spells micrograd's pass
    and closure its own way THROUGHOUT -- no `backward` of any spelling the studio reads,
    one near miss (`backword`) -- so that their code is judged as they wrote it. The closure
    is taken only with a pass: a pass is what makes the rest gradient code."""
    if backward_of(V(1.0)) is not None:
        return {}
    near = dict((meant, theirs) for theirs, meant in near_misses(V, V))
    if "backward" not in near:
        return {}
    found = {"pass": near["backward"]}
    try:
        out = V(1.0) * V(2.0)
        default = code_of(backward_code(V(1.0)))  # a constructor's do-nothing `_backward` is no closure of an op
        if "_backward" in near and (closure_name(out) is None or code_of(backward_code(out)) is default):
            found["closure"] = near["_backward"]
    except Exception:  # noqa: BLE001 -- no * with two Values: the pass alone
        pass
    return found
