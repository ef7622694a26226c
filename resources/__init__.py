"""Backprop Studio, installed: `import backprop_studio` (this folder is that package).

    from backprop_studio import Value, show, stepper, check_engine

    x, y = Value(3.0, label="x"), Value(-2.0, label="y")
    f = x * y + y**2
    f.backward()
    show(f)                      # a notebook: drawn inline; a script: the studio's window
    stepper(f)                   # a notebook: step the backward pass (a page: stepper(f).save("f.html"))
    with recording() as rec:     # a big graph: record the code that builds it ...
        loss = model_loss()
    draw(loss, scopes=rec)       # ... and it is drawn collapsed, a block per call
    check_engine("my_value.py")  # grade your own Value class (a report; runs it in a child process)

In a checkout the same names are `core.engine.Value`, `app.show.show`, `core.notebook.stepper`
and `core.foreign.runner.check_file` (this folder is `resources/` there). `draw_dot(o)`, the
lecture's name, is `draw(o)`: the picture, inline. The folder also holds
the files the studio ships (lessons, examples, engines, icons): package data
that core.resources finds, installed or not.
"""

import os as _os
import sys as _sys

if not _os.path.isdir(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "core")):
    # a checkout (an editable install): core/ and app/ sit beside this folder, imported by those names
    # (a wheel has them inside this package, its imports rewritten to backprop_studio.core: setup.py)
    _checkout = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
    if _checkout not in _sys.path:
        _sys.path.insert(0, _checkout)

from core.engine import Value  # noqa: E402
from core.nn import MLP, Neuron  # noqa: E402
from core.notebook import Stepper, draw, in_notebook, inline_values, qt_loop_in_kernel, show_inline, stepper
from core.scopes.record import recording

draw_dot = draw  # the lecture's name for it: `draw_dot(o)` ends a cell, the graph shows

__all__ = [
    "MLP", "Neuron", "Stepper", "Value", "check_engine", "draw", "draw_dot", "inline_values", "main", "recording",
    "show", "stepper",
]  # fmt: skip


def show(value, window=None, scopes=None):
    """Show the graph that produced `value`: inline in a notebook (Jupyter, Colab, VS Code:
    no Qt needed), else in the studio's window (a script; or a notebook after `%gui qt`,
    or with window=True). Any Value graph: ours, micrograd's, a class you wrote.

    scopes: the `rec` of `with recording() as rec:` (or `recording(YourValue)` for your
    own class) around the code that built `value`: the window opens the graph collapsed
    by the code that made it, a block per call and loop turn -- for a big graph.

    Never a dead end: without a display the window raises NoDisplay (a RuntimeError saying
    what to do instead), and window=True in a kernel without `%gui qt` says to run it first."""
    if window is None:
        window = scopes is not None or not in_notebook() or qt_loop_in_kernel()
    if not window:
        return show_inline(value)
    from app.display import display_problem, no_display_error

    kernel = in_notebook()
    problem = display_problem()
    if problem is not None:
        raise no_display_error(problem, in_kernel=kernel)
    if kernel and not qt_loop_in_kernel():
        raise RuntimeError(
            "show(value, window=True) in a notebook needs the kernel to run Qt's event loop, so that the window "
            "and the notebook both stay usable: run %gui qt in a cell, then this cell again. "
            "(Without window=True the graph is drawn inline.)"
        )
    try:
        from app.show import show as show_window  # Qt: only once a window is wanted
    except ImportError as e:
        raise ImportError(
            f"the studio's window needs Qt, which is not installed ({e}): pip install 'backprop-studio[app]'. "
            "Without it, show(value) in a notebook and draw(value).save('graph.svg') still draw the graph."
        ) from e
    return show_window(value, block=None if not kernel else False, scopes=scopes)


class Report(dict):
    """check_engine's report: a dict (as `--check-engine --json` prints it) that
    reads as the text report when printed or shown in a notebook."""

    def __repr__(self):
        from core.foreign.report import to_text

        return to_text(self)


def check_engine(path, expression=None):
    """Check your own Value class (the .py file that defines it) in a child process
    with time and memory limits, as `backprop-studio --check-engine FILE` does."""
    from core.foreign.runner import check_file

    return Report(check_file(path, expression=expression))


def main(argv=None):
    """The `backprop-studio` command (also `python -m backprop_studio`): the window, or without Qt
    (the core install) --check-engine and --copy-notebook, and a sentence on how to get the window."""
    from app.cli import main as start

    return start(argv)
