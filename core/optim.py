"""Optimizers: turn each parameter's gradient into a step downhill.

After `loss.backward()` every parameter p holds dloss/dp in `p.grad`. Plain
gradient descent moves each one a little against it:

    p.data -= lr * p.grad

which is exactly micrograd's training loop. The two optimizers here add memory:

* SGD with momentum keeps a velocity per parameter, a running sum of past
  gradients, so steps build up along directions that stay consistent and
  cancel out where the gradient zig-zags:

      v = momentum * v + grad;   p -= lr * v        (PyTorch's convention)

* Adam keeps running averages of the gradient (m) and of its square (v) and
  divides one by the square root of the other, so every parameter gets its own
  step size of about lr whatever the scale of its gradient:

      m = b1*m + (1-b1)*g;   v = b2*v + (1-b2)*g^2
      m^ = m / (1 - b1^t);   v^ = v / (1 - b2^t)    (t = 1, 2, ...: undo the bias of starting at 0)
      p -= lr * m^ / (sqrt(v^) + eps)

That memory lives inside the optimizer, in lists aligned with `params`
(velocity[i] belongs to params[i]), never on the parameters themselves, so a
model can be handed to a new optimizer with a clean slate. `lr` is a plain
attribute: a trainer may change it between steps (e.g. a linear decay).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.engine import Value

# -----------------------------------------------------------------------------
# helpers


def _check_lr(lr: float) -> float:
    if not (isinstance(lr, (int, float)) and math.isfinite(lr) and lr >= 0):
        raise ValueError(f"the learning rate must be a finite number >= 0, got {lr!r}")
    return float(lr)


def _check_list(name: str, numbers: Sequence[float], n: int) -> list[float]:
    if len(numbers) != n:
        raise ValueError(f"optimizer state {name!r} has {len(numbers)} entries for {n} parameters")
    return [float(x) for x in numbers]


# -----------------------------------------------------------------------------
# SGD


class SGD:
    """Stochastic gradient descent, with optional (heavy-ball) momentum."""

    def __init__(self, params: Iterable[Value], lr: float, momentum: float = 0.0) -> None:
        self.params = list(params)
        self.lr = _check_lr(lr)
        if not (0.0 <= momentum < 1.0):
            raise ValueError(f"momentum must be in [0, 1), got {momentum!r}")
        self.momentum = float(momentum)
        self.velocity = [0.0] * len(self.params)

    def step(self) -> None:
        lr, mu = self.lr, self.momentum
        if mu == 0.0:
            # micrograd's update, without a velocity that would equal the gradient anyway
            for p in self.params:
                p.data -= lr * p.grad
            return
        velocity = self.velocity
        for i, p in enumerate(self.params):
            v = mu * velocity[i] + p.grad
            velocity[i] = v
            p.data -= lr * v

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = 0.0

    def state(self) -> dict[str, Any]:
        """The optimizer's memory as plain data (for saving a session)."""
        return {"velocity": list(self.velocity)}

    def load_state(self, state: Mapping[str, Any]) -> None:
        self.velocity = _check_list("velocity", state["velocity"], len(self.params))


# -----------------------------------------------------------------------------
# Adam


class Adam:
    """Adam (Kingma & Ba, 2015) with bias correction, as in PyTorch."""

    def __init__(
        self, params: Iterable[Value], lr: float = 0.001, betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8
    ) -> None:
        self.params = list(params)
        self.lr = _check_lr(lr)
        beta1, beta2 = betas
        if not (0.0 <= beta1 < 1.0 and 0.0 <= beta2 < 1.0):
            raise ValueError(f"Adam's betas must each be in [0, 1), got {betas!r}")
        self.betas = (float(beta1), float(beta2))
        self.eps = float(eps)
        self.t = 0  # steps taken, for the bias correction
        self.m = [0.0] * len(self.params)
        self.v = [0.0] * len(self.params)

    def step(self) -> None:
        self.t += 1
        beta1, beta2 = self.betas
        # m and v start at 0, so early averages are too small by these factors
        correction1 = 1.0 - beta1**self.t
        correction2 = 1.0 - beta2**self.t
        lr, eps, m, v = self.lr, self.eps, self.m, self.v
        for i, p in enumerate(self.params):
            g = p.grad
            m[i] = beta1 * m[i] + (1.0 - beta1) * g
            v[i] = beta2 * v[i] + (1.0 - beta2) * g * g
            m_hat = m[i] / correction1
            v_hat = v[i] / correction2
            p.data -= lr * m_hat / (math.sqrt(v_hat) + eps)

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = 0.0

    def state(self) -> dict[str, Any]:
        return {"t": self.t, "m": list(self.m), "v": list(self.v)}

    def load_state(self, state: Mapping[str, Any]) -> None:
        n = len(self.params)
        m = _check_list("m", state["m"], n)
        v = _check_list("v", state["v"], n)
        self.t, self.m, self.v = int(state["t"]), m, v
