"""The op table in numpy: every op's forward and `_backward`, on a whole batch at once.

`core/ops.py` says what each op computes for ONE number (its forward) and how
much its output moves per nudge of each operand (its local derivative), and
`core/engine.py` writes each op's `_backward` as

    a.grad += local * out.grad

Replaying a recorded graph (core/recorded.py) runs it over many samples at once
(core/training/batched.py) or over a whole microgpt step (core/microgpt/train.py),
so each op is applied to numpy arrays: one entry per sample, or per node.
Each row of the op table carries the same op for arrays, written beside its
float form: an `array_forward(xp, a, b, param, out)` that writes the output into
`out`, and an `array_backward(xp, out, a, b, g, param)` that returns what the op
adds to each operand's grad, `(da, db)` -- written line by line as the engine's
`_backward` writes it (`b.data * out.grad`, not `out.grad * b.data`;
`-(out / b) * g` for a division, which the engine subtracts). `xp` is the array
module: this file hands them numpy, so the table itself never imports it. A
subtraction in the engine (`b.grad -= out.grad`) is an addition of the negated
amount here: IEEE defines x - y as x + (-y), so the numbers are the same.

The numbers: +, -, *, /, neg and relu are IEEE arithmetic, equal to the
engine bit for bit. tanh, exp, log, sigmoid and ** come from numpy's vectorised
routines, which differ from the C library the engine calls by at most an ulp or
two (about 2e-16 relative). tests/core/test_numpy_ops.py checks every
op against the table, edge cases (0, inf, nan) included.

Numpy warns where the engine silently returns inf or nan (log(0), overflow);
core/recorded.py runs every op inside `np.errstate(all="ignore")`.
"""

from collections.abc import Callable
from functools import partial
from typing import NamedTuple

import numpy as np

from core.ops import TABLE


class NumpyOp(NamedTuple):
    name: str  # the op table's name: 'mul'
    forward: Callable  # forward(a, b, param, out): writes the output into out
    backward: Callable  # backward(out, a, b, g, param) -> (da, db): added to the operands' grads


# every row of the op table, its array forms bound to numpy
NUMPY_OPS = {
    op.name: NumpyOp(op.name, partial(op.array_forward, np), partial(op.array_backward, np))
    for op in TABLE
    if op.array_forward is not None and op.array_backward is not None
}
