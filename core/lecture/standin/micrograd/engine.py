"""`from micrograd.engine import Value` gives the studio's Value: the same ops
micrograd has, plus tanh, exp, log, sigmoid and a `label`, as in the lecture."""

from core.engine import Value

__all__ = ["Value"]
