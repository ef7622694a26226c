"""The window composes (issue 41 item 1): every field of `MainWindow` is set in
app/main_window.py, where `__init__` can be read, and the window forwards no call a
caller could make to the real owner itself.

Read from the source with ast (no window is built): a file other than app/main_window.py
that writes `window.x = ...`, `self.window.x = ...`, `win.x = ...` or
`setattr(window, ...)` fails the first test; a one-statement method of MainWindow that
only hands its arguments to another object fails the second, unless FORWARDERS below
names it with the reason it has to stay.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WINDOW_NAMES = {"window", "win", "main_window"}  # what the app's code calls the MainWindow

# one-statement methods the window keeps, each with why a caller cannot go to the owner
FORWARDERS = {
    "layout_pending": "a property scripts and tests wait on (the documented extension point); the arranger is how",
    "wait_for_layout": "the documented extension point for scripts: wait until an open is laid out and drawn",
    "show_message": "adds the window's 8 s default to QStatusBar.showMessage: what Services.say hands to panels",
    "show_document": "gives the arranger's decision (LayoutRunner.place) the window's own _show_laid_out",
    "open_value": "gives the arranger's trace the window's own _show_traced",
    "open_scoped": "the code runner (app/editor) reaches the scope page (app/graph): panels don't import each other",
}


def _is_window(node):
    """`window`, `win`, `self.window`, `self._window`, ...: an expression naming the window."""
    if isinstance(node, ast.Name):
        return node.id in WINDOW_NAMES
    if isinstance(node, ast.Attribute):
        return node.attr.lstrip("_") in WINDOW_NAMES and isinstance(node.value, ast.Name)
    return False


def assignments_on_window(path):
    """(line, attribute) of every attribute a file sets on the window."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for t in target.elts if isinstance(target, ast.Tuple) else [target]:
                if isinstance(t, ast.Attribute) and _is_window(t.value):
                    found.append((node.lineno, t.attr))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and node.args
            and _is_window(node.args[0])
        ):
            found.append((node.lineno, ast.unparse(node.args[1]) if len(node.args) > 1 else "?"))
    return found


def _body(function):
    """The statements of a function past its docstring and its local imports."""
    body = list(function.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return [s for s in body if not isinstance(s, (ast.Import, ast.ImportFrom))]


def _makes(call):
    """A call of a class (CamelCase), i.e. a constructor."""
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    return name[:1].isupper()


def forwarders(path=ROOT / "app" / "main_window.py"):
    """MainWindow's methods whose body is one call (or `return` of one call or of an attribute)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    window = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "MainWindow")
    found = []
    for node in window.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):  # open_lesson = show_lessons
            found += [t.id for t in node.targets if isinstance(t, ast.Name)]
        if not isinstance(node, ast.FunctionDef) or node.name == "__init__":
            continue
        body = _body(node)
        if len(body) != 1:
            continue
        statement = body[0]
        value = statement.value if isinstance(statement, (ast.Return, ast.Expr)) else None
        if isinstance(value, ast.Call) and _makes(value):
            continue  # `return Services(...)`: building a value, not handing a call on
        if isinstance(value, (ast.Call, ast.Attribute)):
            found.append(node.name)
    return found


def test_no_file_but_the_window_sets_its_fields():
    bad = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        if path == ROOT / "app" / "main_window.py":
            continue
        for line, attr in assignments_on_window(path):
            bad.append(f"{path.relative_to(ROOT).as_posix()}:{line} sets window.{attr}")
    assert not bad, "the window's fields are set in app/main_window.py only (return what you build):\n" + "\n".join(bad)


def test_the_window_forwards_only_what_it_must():
    found = forwarders()
    extra = [name for name in found if name not in FORWARDERS]
    assert not extra, f"one-statement forwarders on MainWindow: call the owner instead, or say why here: {extra}"
    stale = [name for name in FORWARDERS if name not in found]
    assert not stale, f"FORWARDERS names methods that are no longer one-statement forwarders: {stale}"


def test_the_scan_sees_what_it_must(tmp_path):
    """The two scans catch the patterns they are for (a scan that sees nothing passes everything)."""
    source = tmp_path / "panel.py"
    source.write_text(
        "def install(window, other):\n"
        "    window.palette = 1\n"
        "    self.window.box: int = 2\n"
        "    win.x, y = 3, 4\n"
        "    setattr(window, '_welcome', None)\n"
        "    other.palette = 5\n"
    )
    assert [attr for _line, attr in assignments_on_window(source)] == ["palette", "box", "x", "'_welcome'"]
    shell = tmp_path / "main_window.py"
    shell.write_text(
        "class MainWindow:\n"
        "    def __init__(self):\n        self.a = 1\n"
        "    def relayout(self):\n        '''Doc.'''\n        return window_actions.relayout(self)\n"
        "    def focus(self):\n        from x import y\n        y(self)\n"
        "    def real(self):\n        a = 1\n        return a\n"
        "    def services(self):\n        return Services(a=self.a)\n"
        "    alias = relayout\n"
    )
    assert forwarders(shell) == ["relayout", "focus", "alias"]
