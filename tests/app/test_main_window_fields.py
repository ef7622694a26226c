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


# -- panels are handed what they use, not the window (issue 41 item 1) --------------------

# Modules that ARE part of the window: they arrange the window itself (its menus, docks,
# geometry, presenter mode) or drive a whole window from a command line. Each takes the
# MainWindow by design, for the reason given.
WINDOW_PARTS = {
    "app/startup.py": "builds the window and runs its command lines",
    "app/show.py": "show(value) opens a window on a graph: it makes one",
    "app/window_actions.py": "the window's own menus, toolbar and status bar",
    "app/window_layout.py": "the window's first arrangement of its docks",
    "app/files/window_state.py": "saves and restores the window's geometry and dock state",
    "app/look/presenter.py": "presenter mode sizes the whole window (full screen, its docks)",
    "app/lessons/presenter_layout.py": "presenter mode's arrangement of the window's docks",
    "app/lessons/presenter_chrome.py": "presenter mode hides and restores the window's bars",
    "app/lessons/side_fit.py": "the laptop layout sizes the window's side docks",
    "app/lessons/presenter_install.py": "the window's View → Theme / Scale / Presenter Mode and toolbar controls",
    "app/lessons/slides.py": "--export-slides drives a whole window through a lesson",
    "app/lessons/tour.py": "--tour drives a whole window through every lesson and condition",
    "app/training/workspace.py": "swaps the window's central widget for the stack of workspaces, sets the "
    "window's docks aside and gives them back, and greys the canvas's toolbar and status-bar numbers",
}

# Panels not yet handed Services: this set may only shrink (issue 41).
NOT_YET: set[str] = set()  # every panel is handed what it uses (issue 41)


def window_uses(path):
    """Lines where a module takes or keeps the MainWindow: a parameter named window/win/
    main_window, or `self.window`/`self._window`/`self.window_` (not Qt's `self.window()`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.arg in WINDOW_NAMES:
            lines.add(node.lineno)
        elif (
            isinstance(node, ast.Attribute)
            and node.attr.strip("_") in WINDOW_NAMES
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
            and id(node) not in called
        ):
            lines.add(node.lineno)
    return sorted(lines)


def test_panels_are_handed_services_not_the_window():
    taking = {}
    for path in sorted((ROOT / "app").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name != "app/main_window.py":
            lines = window_uses(path)
            if lines:
                taking[name] = lines
    bad = {n: lines for n, lines in taking.items() if n not in WINDOW_PARTS and n not in NOT_YET}
    assert not bad, (
        "a panel takes the MainWindow: hand it Services (app/services.py) and the collaborators it "
        "uses, by name in its constructor; or, if it arranges the window itself, name it in "
        f"WINDOW_PARTS with why: {bad}"
    )
    stale = sorted(n for n in WINDOW_PARTS.keys() | NOT_YET if n not in taking)
    assert not stale, f"these no longer take the window: take them off WINDOW_PARTS / NOT_YET: {stale}"


def test_the_window_scan_tells_the_window_from_qts_window(tmp_path):
    source = tmp_path / "panel.py"
    source.write_text(
        "class P:\n"
        "    def __init__(self, services, window=None):\n"  # 2: a parameter
        "        self._window = services\n"  # 3: kept
        "    def fit(self):\n"
        "        top = self.window()\n"  # 5: Qt's QWidget.window(): not ours
        "        return top.height()\n"
    )
    assert window_uses(source) == [2, 3]
