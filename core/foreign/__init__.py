"""A learner's own autograd engine, checked by the studio.

People learn backprop by writing a `Value` class. This package reads such a
class without trusting it: `trace` walks any micrograd-like graph read-only,
`battery` builds test expressions with the learner's class, `check` steps
their `_backward` code one node at a time against the studio's reference,
`diagnosis` says which classic bug a wrong number most likely comes from, and
`runner` does all of that in a child process with time and memory limits,
so the learner's file never runs inside the studio. `report` turns the
result into text and an exit code for `main.py --check-engine`.
`expression` carries the learner's own typed expression (parsed here, never
run) to the child as plain data, where it is built with their class.

The child also records every step of a failing case -- the grads their code
left after each `_backward` call -- so the studio's debugger can replay their
pass on the canvas (core/debugger/foreign_replay.py).
"""
