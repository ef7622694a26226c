"""A learner's own autograd engine, checked by the studio.

People learn backprop by writing a `Value` class. This package checks such a
class without trusting it, in three parts:

- in the child process, `child/` is a harness of the standard library only: it
  reads the shapes of their class (`child/shapes.py`: data/value, grad/derivative,
  children under any name, the pass's name), builds each test program with it
  (`child/build.py`), runs their forward and backward and writes back plain
  numbers (`child/run.py`). It never imports the studio's engine or op table.
- in the studio, `battery` writes the test programs, `runner` runs the child
  under a supervisor with time and memory limits (nothing it starts outlives the
  check), `judge` decides each test from the numbers alone, by the one rule of
  `agree` (their number against the derivative of their function, within a
  tolerance), `diagnosis` names the classic bug a wrong number most likely comes
  from and `hints` gives it a ladder of four hints.
- around it: `report` turns a result into text and an exit code for
  `main.py --check-engine`; `batch` checks a class's folder; `expression` carries
  the learner's own typed expression to the child as plain data; `trace`,
  `shapes` and `document` read a Value graph in the user's own process (show(),
  the notebook); `local` runs the checker in this process (tests, the studio's
  own classes); `pytest_plugin` gives a course's failing gradient test the
  studio's diagnosis.

The child also records every step of a failing case -- the grads their code
left after each `_backward` call -- so the studio's debugger can replay their
pass on the canvas (core/debugger/foreign_replay.py).
"""
