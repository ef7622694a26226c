"""The app's debugger is a thin adapter: the decisions live in core's DebugSession.

No module in app/debugger runs a `_backward` itself (the steppers in core do,
inside a DebugSession), and the controller holds no stepper of its own making.
These scans read the source with `ast`; they need no window.
"""

import ast
from pathlib import Path

import app.debugger

PACKAGE = Path(app.debugger.__file__).parent


def backward_calls(source, filename="<text>"):
    """(line, text) of every call of something named `_backward` in source."""
    calls = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name == "_backward":
                calls.append((node.lineno, ast.get_source_segment(source, node)))
    return calls


def test_the_scan_finds_a_backward_call():
    source = "def pin(st):\n    for node in st.topo:\n        node._backward(node)\n"
    assert backward_calls(source) == [(3, "node._backward(node)")]
    assert backward_calls("_backward(x)\nprint('_backward(')\n") == [(1, "_backward(x)")]


def test_no_module_in_app_debugger_calls_backward():
    modules = sorted(PACKAGE.glob("*.py"))
    assert len(modules) >= 7
    found = {path.name: backward_calls(path.read_text(encoding="utf-8"), str(path)) for path in modules}
    assert {name: calls for name, calls in found.items() if calls} == {}


def test_the_controller_makes_no_stepper_itself():
    tree = ast.parse((PACKAGE / "controller.py").read_text(encoding="utf-8"))
    # names imported for type hints only (under `if TYPE_CHECKING:`) make nothing at run time
    hints = [n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING"]
    typing_only = {id(node) for block in hints for node in ast.walk(block)}
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and id(node) not in typing_only
        for alias in node.names
    }
    assert "DebugSession" in imported
    assert not imported & {"BackwardStepper", "ForwardStepper", "ForwardRecord"}


def test_play_waits_for_a_quiz_answer_without_redrawing(window, qtbot):
    """Each beat of play while a quiz question is open changes nothing, and says nothing:
    the panel is not re-synced on every tick of the timer."""
    ctrl = window.debugger.controller
    ctrl.set_quiz_mode(True)
    ctrl.set_speed(20)
    ctrl.play()
    qtbot.waitUntil(lambda: ctrl.quiz_question() != "", timeout=5000)
    position = ctrl.position
    changes = []
    ctrl.stateChanged.connect(lambda: changes.append(1))
    for _ in range(5):
        ctrl._tick()  # what the play timer calls
    assert ctrl.position == position and changes == [] and ctrl.playing
    ctrl.reveal_quiz()
    qtbot.waitUntil(lambda: ctrl.position > position, timeout=5000)
    ctrl.pause()
    assert not ctrl.playing
