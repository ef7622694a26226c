"""A learner's own autograd engine, checked by the studio.

People learn backprop by writing a `Value` class. This package reads such a
class without trusting it: `shapes` is the one table of the
shapes learners give their class (data/value, grad/derivative/d, children under
any name, the pass's name), `trace` walks any such graph read-only, `battery`
builds test expressions with the learner's class, `results` judges each by what
THEIR backward() computes against the studio's engine, `check` steps their
code one node at a time to locate and explain a wrong result, `their_pass`
watches their whole pass (its order, zero_grad, their own topological sort via
`topo`), `diagnosis` says which classic bug a wrong number most likely comes
from, and `runner` does all of that in a child process under a supervisor,
with time and memory limits, so the learner's file never runs inside the
studio and nothing it starts outlives the check. `report` turns the result
into text and an exit code for `main.py --check-engine`; `batch` checks a
class's folder and `hints` gives each fault a ladder of four hints.
`expression` carries the learner's own typed expression (parsed here, never
run) to the child as plain data, where it is built with their class.

The child also records every step of a failing case -- the grads their code
left after each `_backward` call -- so the studio's debugger can replay their
pass on the canvas (core/debugger/foreign_replay.py).
"""
