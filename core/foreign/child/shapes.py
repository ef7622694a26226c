"""The shapes learners give their Value class, in one table.

Every course names the same few things its own way:

    micrograd / the lecture   data, grad, _prev (a set), _op, a _backward closure
    EurekaLabs, microgpt      data, grad, _children + _local_grads, __slots__
    MiniTorch module 1        Scalar: data, derivative (None until backward),
                              history.inputs / last_fn, backward() -> backpropagate
    homework sheets           value and d (or grad)
    other repos               v, children, a `back` closure, a `backprop()` pass
    the unexpected            children under a name of their own (_kids, parents ...)

The studio reads a learner's Value only through this table: `Shape.of(V)` looks
at one leaf, `V(2.0)`, and picks the attribute that holds its number and the
one that holds its gradient; `children(value)` follows `_prev`, `_children`,
`history.inputs`, and failing those any attribute that holds instances of
their class. Nothing here runs their methods except the constructor.
"""

from __future__ import annotations

import functools
import os
from typing import Any

DATA = ("data", "value", "val", "v", "x")
GRAD = ("grad", "derivative", "d", "g")
CHILDREN = ("_prev", "_children", "children", "prev", "_parents", "parents", "_operands", "operands")
BACKWARD = ("backward", "backprop", "back_prop", "backpropagate")  # the pass, as a method of the output


def number(x: Any) -> float:
    """Their number as a float: floats, ints, numpy scalars and 0-d arrays, Fraction,
    Decimal, float32. Raises TypeError/ValueError when it is none of these."""
    if hasattr(x, "item") and callable(x.item) and getattr(x, "size", 1) == 1:
        x = x.item()
    return float(x)


def zero_like(g: Any) -> Any:
    """A zero of the type their grads have (0.0 * a numpy float32 stays float32, an
    array stays an array, a Fraction a Fraction); plain 0.0 when that fails."""
    if g is None:
        return 0.0
    try:
        z = g * 0
        number(z)
        return z
    except Exception:  # noqa: BLE001 -- their number type
        return 0.0


def one_like(g: Any) -> Any:
    z = zero_like(g)
    try:
        return z + 1
    except Exception:  # noqa: BLE001
        return 1.0


def eps_of(sample: Any) -> float:
    """The machine epsilon of their number type: 2**-52 for float64 (and ints,
    Fractions), numpy's finfo for float32/float16 scalars and arrays."""
    dtype = getattr(sample, "dtype", None)
    if dtype is not None:
        try:
            import numpy

            return float(numpy.finfo(dtype).eps)
        except (ImportError, TypeError, ValueError):
            pass
    return 2.0**-52


class Shape:
    """Which attributes of their class hold the number and the gradient."""

    def __init__(self, data: str, grad: str, grad_is_method: bool = False) -> None:
        self.data = data
        self.grad = grad
        self.grad_is_method = grad_is_method  # `x.grad()`: a sum of contributions, read by calling it

    @classmethod
    def of(cls, V: type) -> Shape:
        """Read one leaf V(2.0). Raises ValueError naming what is missing."""
        leaf = V(2.0)
        data = next((a for a in DATA if _is_number(getattr(leaf, a, None))), None) or _data_by_value(leaf)
        if data is None:
            raise ValueError("its Value(2.0) has no number in .data (or .value)")
        grad = next((a for a in GRAD if a != data and hasattr(leaf, a) and _grad_like(getattr(leaf, a))), None)
        if grad is not None:
            return cls(data, grad)
        for a in GRAD:  # a method that returns the gradient: `def grad(self): return sum(self._grad)`
            method = getattr(leaf, a, None)
            if a != data and callable(method) and not isinstance(method, type):
                try:
                    if _grad_like(method()):
                        return cls(data, a, grad_is_method=True)
                except Exception:  # noqa: BLE001 -- a method that needs arguments is no gradient
                    continue
        found = _grad_by_behaviour(V, data)
        if found is not None:
            return cls(data, found)
        raise ValueError("its Value(2.0) has no gradient in .grad (or .derivative, .d)")

    def read_data(self, value: Any) -> float:
        return number(getattr(value, self.data))

    def raw_grad(self, value: Any) -> Any:
        """Their grad as they hold it (None if never set), read by calling where it is a method."""
        g = getattr(value, self.grad, None)
        return g() if self.grad_is_method and callable(g) else g

    def read_grad(self, value: Any) -> float:
        """Their grad as a float; a grad never set (MiniTorch's None) reads 0."""
        g = self.raw_grad(value)
        return 0.0 if g is None else number(g)


def _data_by_value(leaf: Any) -> str | None:
    """The one attribute of V(2.0) that holds 2.0, under a name of their own (`_data`,
    `_value`, `number`): their number, wherever they keep it."""
    slots = [s for c in type(leaf).__mro__ for s in getattr(c, "__slots__", ()) if isinstance(s, str)]
    names = [*getattr(leaf, "__dict__", {}), *slots]
    found = []
    for name in dict.fromkeys(names):
        value = getattr(leaf, name, None)
        if _is_number(value) and number(value) == 2.0:
            found.append(name)
    return found[0] if len(found) == 1 else None


def _grad_by_behaviour(V: type, data: str) -> str | None:
    """Where their gradient lives when the table's names miss it (`self._grad`,
    `self.gradient`): of the attributes of a fresh leaf that name gradients and hold
    a number (or None), the one their own backward() of x * x fills -- found by what
    their code does, not by its name alone. None when no single one does."""
    leaf = V(2.0)
    fields = vars(leaf) if hasattr(leaf, "__dict__") else {}
    names = [a for a, v in fields.items() if a != data and "grad" in a.lower() and _grad_like(v)]
    if not names:
        return None
    if len(names) == 1 and _is_number(fields[names[0]]):  # one, holding a number: theirs, whatever their pass does
        return names[0]
    try:
        x = V(2.0)
        out = x * x
        backward = backward_of(out)
        if backward is None:
            return None
        backward()
        filled = [a for a in names if _is_number(getattr(x, a, None)) and number(getattr(x, a)) != 0]
    except Exception:  # noqa: BLE001 -- their pass cannot tell
        return None
    return filled[0] if len(filled) == 1 else None


def _is_number(x: Any) -> bool:
    if x is None or isinstance(x, (str, bytes, bool)):
        return False
    try:
        number(x)
    except (TypeError, ValueError, OverflowError):
        return False
    return True


def _grad_like(x: Any) -> bool:
    return x is None or _is_number(x)


def children(value: Any) -> tuple[list[Any], bool, str]:
    """(children, ordered?, where found) of one of their Values. A set is unordered.
    Tries the names of the table, MiniTorch's `history.inputs`, then any attribute
    holding instances of the value's own class (a tuple/list/set of them)."""
    for name in CHILDREN:
        found = getattr(value, name, None)
        if isinstance(found, (set, frozenset, tuple, list)):
            return _unpaired(list(found), type(value)), not isinstance(found, (set, frozenset)), name
    history = getattr(value, "history", None)
    inputs = getattr(history, "inputs", None)
    if isinstance(inputs, (tuple, list)):
        return [x for x in inputs if isinstance(x, type(value))], True, "history.inputs"
    slots = [s for c in type(value).__mro__ for s in getattr(c, "__slots__", ())]
    names = list(getattr(value, "__dict__", {})) + [s for s in slots if isinstance(s, str)]
    for name in names:
        found = getattr(value, name, None)
        if isinstance(found, (set, frozenset, tuple, list)) and found:
            kids = _unpaired(list(found), type(value))
            if all(isinstance(x, type(value)) for x in kids):
                return kids, not isinstance(found, (set, frozenset)), name
    return [], True, ""


def _unpaired(found: list[Any], cls: type) -> list[Any]:
    """The children of a list of (child, local derivative) pairs -- `parents = [(x, y.v),
    (y, x.v)]`, as some engines keep them beside a recursive backward -- else `found`.
    A None is no child: `(self, None)` keeps a unary op's children in a binary op's shape."""
    found = [x for x in found if x is not None]
    if found and all(_is_pair(x, cls) for x in found):
        return [x[0] for x in found]
    return found


def _is_pair(x: Any, cls: type) -> bool:
    return isinstance(x, (tuple, list)) and len(x) == 2 and isinstance(x[0], cls) and _is_number(x[1])


def backward_of(value: Any) -> Any:
    """Their backward pass as a bound method of `value` (`backward`, `backprop` ...), else
    their module's pass function bound to it (`backward(root)`, see `use_pass_function`), or None."""
    for name in BACKWARD:
        method = getattr(value, name, None)
        if callable(method):
            return method
    method = getattr(value, alias_of(value, "pass") or "", None)
    if callable(method):
        return method
    for cls in type(value).__mro__:
        fn = _PASS.get(cls)
        if fn is not None:
            return functools.partial(fn, value)
    return None


_ALIASES: dict[type, dict[str, str]] = {}  # their class -> {"pass"/"closure": the name they spelt it}


def use_names(cls: type, names: dict[str, str]) -> None:
    """Read `names` as the pass ("pass": `backword`) and the closure ("closure": `_backword`)
    of `cls`, where they spelt them their own way throughout; {} forgets."""
    _ALIASES[cls] = dict(names)


def pass_name(value: Any) -> str:
    """The name of their backward pass on `value` (`backward`, `backprop`, a module function's), or ''."""
    for name in (*BACKWARD, alias_of(value, "pass")):
        if name and callable(getattr(value, name, None)):
            return name
    for cls in type(value).__mro__:
        fn = _PASS.get(cls)
        if fn is not None:
            return getattr(fn, "__name__", "")
    return ""


def names_of(cls: type) -> dict[str, str]:
    """The names `use_names` took for `cls` ({} when it spells them as micrograd does)."""
    return dict(_ALIASES.get(cls, {}))


LOCAL_GRADS = ("_local_grads", "local_grads", "_local_grad", "local_grad")  # microgpt's, and as learners spell it


def local_grads(value: Any) -> list[Any] | None:
    """The local derivatives a node keeps beside its children (microgpt's `_local_grads`,
    `_local_grad`, `__local_grads` as Python keeps it): a tuple or list as long as its
    children, or None for a node that keeps none."""
    kids = children(value)[0]
    for name in (m for n in LOCAL_GRADS for m in mangled(value, n)):
        found = getattr(value, name, None)
        if isinstance(found, (tuple, list)) and len(found) == len(kids):
            return list(found)
    return None


def mangled(value: Any, name: str) -> list[str]:
    """`name` and the names Python gives it when a class writes it with two underscores:
    `self.__backward` in class Value is kept as `_Value__backward` (any class of the
    value's, its bases included)."""
    bare = name.lstrip("_")
    return [name] + [f"_{cls.__name__.lstrip('_')}__{bare}" for cls in type(value).__mro__ if cls is not object]


def alias_of(value: Any, kind: str) -> str | None:
    """The name their class spells the pass or the closure with (see use_names), or None."""
    for cls in type(value).__mro__:
        found = _ALIASES.get(cls, {}).get(kind)
        if found:
            return found
    return None


_PASS: dict[type, Any] = {}  # their class -> their module-level pass function


def use_pass_function(fn: Any, namespace: dict[str, Any]) -> None:
    """Take `fn(root)` as the backward pass of the classes written beside it in `namespace`
    (their module) that have no method for it: some engines keep the pass beside the class
    (`def backward(variable): ...`). None: their classes have none."""
    for obj in list(namespace.values()):
        if not isinstance(obj, type):
            continue
        _PASS.pop(obj, None)
        if fn is not None and any(getattr(f, "__globals__", None) is fn.__globals__ for f in vars(obj).values()):
            _PASS[obj] = fn


def pass_function(namespace: dict[str, Any], roots: tuple[str, ...]) -> Any:
    """Their module-level pass: a function of THEIR file named as a pass (`backward`,
    `backprop` ...) that takes one argument, the output; None when there is none."""
    import inspect

    for name in BACKWARD:
        fn = namespace.get(name)
        code = getattr(fn, "__code__", None)
        if not inspect.isfunction(fn) or code is None:
            continue
        if roots and not any(code.co_filename.startswith(r.rstrip(os.sep)) for r in roots):
            continue  # a library's (torch.autograd.backward), not theirs
        try:
            params = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            continue
        required = [
            p for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        first = params[0] if params else None
        if (
            first is not None
            and len(required) <= 1
            and first.kind in (first.POSITIONAL_ONLY, first.POSITIONAL_OR_KEYWORD)
        ):
            return fn
    return None


OPS = ("__add__", "__mul__")
LIBRARIES = ("torch", "numpy", "jax", "jaxlib", "tensorflow", "mpmath", "sympy")  # tensors, not a learner's Value


def is_value_class(cls: Any) -> bool:
    """Is `cls` a learner's Value class? A class of their own that can be added or
    multiplied and whose `cls(2.0)` holds a number and a gradient (by the table above).
    The one test the checker, the pytest plugin and the script tracer share."""
    if not isinstance(cls, type) or cls.__module__ == "builtins":
        return False
    if not any(op in vars(base) for base in cls.__mro__[:-1] for op in OPS):
        return False
    try:
        Shape.of(cls)
    except Exception:  # noqa: BLE001 -- their constructor: any failure rules it out
        return False
    return True


def is_value_like(obj: Any) -> bool:
    """Is `obj` a node of a Value graph -- micrograd's, MiniTorch's `Scalar`, the
    local-grads style, `.value`/`.d` homework? Its class can be added or multiplied
    and it holds a number where the table says. Nothing is called but attribute
    reads. The one test show(), the notebook, the lecture runner and the tracer share."""
    if obj is None or isinstance(obj, (type, str, bytes, bool, int, float, complex, list, tuple, dict, set, frozenset)):
        return False
    cls = type(obj)
    if (getattr(cls, "__module__", "") or "").split(".")[0] in LIBRARIES:
        return False
    if not any(op in vars(base) for base in cls.__mro__[:-1] for op in OPS):
        return False
    try:
        return any(_is_number(getattr(obj, a, None)) for a in DATA)
    except Exception:  # noqa: BLE001 -- their __getattr__ may raise anything
        return False
