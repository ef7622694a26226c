"""File → Debug my engine…: check a learner's own Value class, off the GUI thread.

The user picks a .py file (`choose_engine_file`) and is told plainly that it
will run in a separate process (`confirm_run`); both are module-level
functions so tests can replace them. A `Job` (app/jobs.py) waits
for `core.foreign.runner.check_file`, which runs the file in a child process
with time and memory limits, so the window never freezes and the learner's
code never runs in the studio's process. The `EngineCheckDialog` lists the
tests, then the first wrong gradient with its likely cause; the failing
expression is drawn on the canvas (an undoable step) with the faulty node
highlighted, and the debugger steps THEIR backward pass on it: the child
recorded their grads after each `_backward` call, and the debugger replays
that record (core/debugger/foreign_replay.py), stopped after the first wrong
step. The learner may type an expression of their own (the studio's
expression syntax, parsed and never run here); it is built with their class
in the child, checked first, and is the one shown and stepped.

A check is handed `EngineChecks`, which the window makes once (`window.engine_checks`):
the window's `Services` (app/services.py) and, by name, the parts a finding goes to --
the Debugger's controller, the editor, the open file's `detach` and `open_scoped` (the
big-graph page). It never holds the window.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from PySide6.QtCore import QCoreApplication, QEventLoop, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
)

from app.jobs import Job
from app.services import Editor, Services
from core.debugger.foreign_replay import ForeignReplay
from core.foreign.document import to_document
from core.foreign.expression import ExprError, program_of
from core.foreign.report import fault_lines
from core.foreign.runner import TIMEOUT, check_file


class Debugger(Protocol):
    """The Debugger's controller (app/debugger/controller.py) as a check uses it: it steps
    THEIR recorded backward pass on the graph shown."""

    def load_replay(self, replay: ForeignReplay) -> bool: ...

    def reset(self) -> bool: ...

    def run_to_end(self) -> Any: ...


@dataclass(frozen=True)
class EngineChecks:
    """What a check of a learner's engine uses (the window makes one: `window.engine_checks`)."""

    services: Services  # the window's: dialogs' parent, the canvas, show_document, the status bar
    debugger: Debugger  # steps THEIR recorded pass on the failing expression
    editor: Editor  # says what the canvas shows: their engine, not the editor's text
    detach: Callable[[], None]  # FileActions.detach: the graph shown is no longer the open file's
    open_scoped: Callable[[Any, str], bool]  # (graph, title): a big graph, collapsed on the big-graph page


def choose_engine_file(parent):
    """The .py file to check, or '' if the user cancelled."""
    path, _ = QFileDialog.getOpenFileName(parent, "Debug my engine: choose your Value class", "", "Python files (*.py)")
    return path


def choose_engine_folder(parent):
    """A package folder to check (MiniTorch's `minitorch/`, or the repository holding
    it), or '' if the user cancelled."""
    return QFileDialog.getExistingDirectory(parent, "Debug my engine: choose your package folder (minitorch/)")


def where():
    """Where a learner's file runs, in the words of the question before it runs."""
    from core import sandbox

    problem = sandbox.box_problem()
    if problem is None:
        return "in a box of its own (no access to your files, network or environment)"
    return f"in a separate process (no box here: {problem})"


def confirm_run(parent, path):
    """True if the user agrees to run `path` (in a separate process)."""
    answer = QMessageBox.question(
        parent,
        "Debug my engine",
        f"The studio will run {path} {where()} (at most {TIMEOUT:g} s, 1 GB of memory) "
        f"to build test expressions with your Value class and step its backward pass.\n\n"
        f"Your open graph is not touched unless a wrong gradient is found (or you check an expression "
        f"of your own); then that expression is shown on the canvas and the debugger steps YOUR "
        f"backward pass on it (Undo brings your graph back).\n\nRun it?",
    )
    return answer == QMessageBox.Yes


def unusable_report(path, error):
    """The report of a check that could not run at all (the dialog shows it like any other)."""
    return {
        "file": path,
        "status": "unusable",
        "message": f"the check failed: {error}",
        "cases": [],
        "notes": [],
        "fault": None,
    }


class EngineCheckDialog(QDialog):
    """The tests and the first wrong gradient of one learner's file."""

    def __init__(self, checks: EngineChecks, path: str, timeout: float = TIMEOUT, expression: str | None = None):
        super().__init__(checks.services.parent)
        self.setObjectName("engine-check")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowTitle("Debug my engine")
        self.checks = checks
        self.path = path
        self.report = None
        self.status = QLabel(f"Running {path} in a separate process…")
        self.status.setWordWrap(True)
        self.tests = QListWidget()
        self.finding = QPlainTextEdit()
        self.finding.setReadOnly(True)
        self.expression = QLineEdit(expression or "")
        self.expression.setPlaceholderText("your own expression, e.g.  x = 2; y = -3; h = x*y; h*h + y")
        self.expression.setToolTip(
            "Built with YOUR Value class in the separate process, checked first, then shown on the "
            "canvas and stepped in the debugger. Read as text by the studio; never run here."
        )
        self.check_own = QPushButton("Check my expression")
        self.check_own.clicked.connect(self.check_expression)
        self.expression.returnPressed.connect(self.check_expression)
        own = QHBoxLayout()
        own.addWidget(self.expression, 1)
        own.addWidget(self.check_own)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(QLabel("Tests"))
        layout.addWidget(self.tests, 2)
        layout.addWidget(QLabel("First wrong gradient"))
        layout.addWidget(self.finding, 1)
        layout.addWidget(QLabel("Your own expression (the studio's syntax: x*y + y**2, x.tanh(), ...)"))
        layout.addLayout(own)
        layout.addWidget(buttons)
        self.resize(620, 560)
        self.timeout = timeout
        self.shown_case = None  # the case drawn on the canvas and stepped in the debugger
        self.expression_text = expression or None  # sent to the child with the file
        # the child process is waited for on a Job's thread; only plain data comes back
        self.worker = Job(0, self._run_check, self, name="engine-check")
        self.worker.done.connect(self._checked)

    def start(self):
        self.check_own.setEnabled(False)
        self.worker.start()

    def check_expression(self):
        """Check the file again with the typed expression. A text that cannot be read
        is refused here, with its line and column; nothing runs."""
        text = self.expression.text()
        try:
            program_of(text)
        except ExprError as e:
            self.status.setText(f"Your expression cannot be read: {e}. Nothing was run.")
            return False
        if self.worker.isRunning():
            if self.report is None:  # a check is under way: its report comes first
                self.status.setText("A check is still running: check your expression when its report shows.")
                return False
            # it has reported and its thread is ending: a moment, not a check (was a silent refusal
            # when Return came right after the report)
            self.worker.wait()
        self.report = None
        self.tests.clear()
        self.finding.clear()
        self.status.setText(f"Running {self.path} in a separate process, with your expression…")
        self.expression_text = text
        self.start()
        return True

    def _run_check(self):  # on the worker's thread
        report = check_file(self.path, timeout=self.timeout, expression=self.expression_text, big=True)
        big = report.get("big")
        if big and big.get("rows"):  # the big graph their file built: grouped here, off the GUI thread,
            from core.scopes.infer import collapsed_rows  # by the function show(loss) uses

            try:
                report["big_graph"] = collapsed_rows(big.pop("rows"), report.get("class") or "")
            except Exception as e:  # noqa: BLE001 -- a graph we cannot group is named, not drawn
                big["error"] = f"could not be grouped: {e}"
        return report

    def _checked(self, _token, outcome):
        self.show_report(unusable_report(self.path, outcome) if isinstance(outcome, Exception) else outcome)

    def show_report(self, report):
        self.report = report
        self.check_own.setEnabled(True)
        marks = {"pass": "✓", "fail": "✗", "error": "!"}
        for case in report.get("cases", []):
            self.tests.addItem(f"{marks.get(case['status'], '?')}  {case['name']}")
            if case["status"] != "pass" and self.tests.currentRow() < 0:
                self.tests.setCurrentRow(self.tests.count() - 1)  # the failing test, in view
        for skipped in report.get("skipped", []):
            self.tests.addItem(f"–  {skipped['name']} (your class has no {', '.join(skipped['missing'])})")
        own = next((c for c in report.get("cases", []) if c.get("own")), None)
        if report["status"] == "unusable":
            self.status.setText(f"Cannot use this file: {report['message']}")
            self.finding.setPlainText(report["message"])
        elif report["fault"]:
            fault = report["fault"]
            where = fault.get("node") or fault.get("op")
            self.status.setText(f"A wrong gradient at {where} (op {fault.get('op')}).")
            self.finding.setPlainText("\n".join(fault_lines(fault) + [""] + report.get("notes", [])))
            self.show_on_canvas(report)
        else:
            self.status.setText(f"Every gradient is right ({len(report['cases'])} tests).")
            self.finding.setPlainText(
                "\n".join(
                    ["None: every step of your backward pass agrees with the studio's."] + report.get("notes", [])
                )
            )
            if own is not None:
                self.show_on_canvas(report)
        if own is not None and own.get("error"):
            self.finding.appendPlainText(f"\nYour expression: {own['error']}")
        self.show_big(report)

    def show_big(self, report):
        """The big graph their file built (`loss` of a whole MLP), opened collapsed on the
        big-graph page (app/graph/scope_page.py) -- unless the canvas shows a wrong gradient."""
        big, graph = report.get("big"), report.get("big_graph")
        if not big:
            return False
        name = big.get("name", "your graph")
        if graph is None:
            self.finding.appendPlainText(f"\nYour file builds {name}: not drawn ({big.get('error', 'unreadable')}).")
            return False
        if self.shown_case is not None:  # the wrong gradient is on the canvas: that comes first
            self.finding.appendPlainText(
                f"\nYour file builds {name} ({graph.n:,} nodes): fix the gradient above, then check again to "
                "open it collapsed."
            )
            return False
        self.finding.appendPlainText(
            f"\nYour file builds {name}: {graph.n:,} nodes, too many for one picture -- opened collapsed by "
            "its structure (double-click a block to open it; Step runs its backward pass block by block)."
        )
        return self.checks.open_scoped(graph, f"{name} ({os.path.basename(report['file'])}), collapsed")

    def case_to_show(self, report):
        """Their own expression when it could be built, else the failing case."""
        own = next((c for c in report["cases"] if c.get("own") and c.get("graph")), None)
        if own is not None:
            return own
        fault = report["fault"]
        if not fault:
            return None
        return next((c for c in report["cases"] if c["name"] == fault["case"] and c.get("graph")), None)

    def show_on_canvas(self, report):
        """The case on the canvas, the faulty node highlighted, and THEIR backward pass
        in the debugger: stopped after its first wrong step, or at step 0 if it has none."""
        case = self.case_to_show(report)
        if case is None:
            return False
        doc, problem = to_document(case["graph"])
        if doc is None:
            self.finding.appendPlainText(f"\n(Not drawn: {problem}.)")
            return False
        replay = ForeignReplay(case)
        checks, services = self.checks, self.checks.services
        debugger = checks.debugger
        text = "Show my expression" if case.get("own") else "Show my engine's failing expression"
        if not services.show_document(doc, text=text, layout=True):
            return False
        checks.detach()  # not the file's graph: Save must ask where
        checks.editor.set_source_note(f"your engine on {case['name']!r}, stepped with YOUR grads")
        checks.editor.set_text(engine_note(report["file"], case["name"], replay.their_code))
        services.wait_for_layout()
        self.shown_case = case
        if not debugger.load_replay(replay):  # the debugger steps THEIR recorded pass on this graph
            return False
        fault = case.get("fault") or {}
        debugger.reset()
        if fault and replay.steps:
            debugger.run_to_end()  # stops after the wrong step (or their last one): the panel says why
        elif fault:  # their very first _backward raised: nothing of theirs to step
            services.say(f"Stopped before any step: {replay.stop_reason()}")
        else:
            services.say(
                f"Your engine's backward pass on {case['name']!r}: press F10 to step it, one _backward at a time."
            )
        if fault.get("node_id") in doc.nodes:
            services.scene.marks.set_highlight(nodes=[fault["node_id"]])
        return True

    def closeEvent(self, event):
        self.worker.wait()  # the child is time-limited, so this ends
        super().closeEvent(event)


def engine_note(path, case, their_code):
    """The editor's text while the canvas shows a learner's engine: what is drawn, and
    from where -- never the studio's own example, which the canvas is not."""
    return (
        "# The canvas shows YOUR engine,\n"
        f"# {os.path.basename(path)},\n"
        f"# on {case},\n"
        f"# with the grads {their_code}\n"
        "# computed. F10 / Shift+F10 step them;\n"
        "# Run replaces the canvas.\n"
    )


def open_engine_check(
    checks: EngineChecks, path: str, expression: str | None = None, wait: bool = False
) -> EngineCheckDialog:
    """Check `path` without asking (the user named it on the command line: --debug-engine;
    a lesson's link; a row of Check a class); with `wait`, return once the report is shown
    and the debugger stopped. The dialog."""
    dialog = EngineCheckDialog(checks, path, expression=expression)
    dialog.show()
    dialog.start()
    if wait:
        loop = QEventLoop()
        dialog.worker.finished.connect(loop.quit)
        if dialog.worker.isRunning():
            loop.exec()
        QCoreApplication.sendPostedEvents()  # the queued report: show_report runs here
    return dialog


def debug_my_engine(
    checks: EngineChecks, expression: str | None = None, folder: bool = False
) -> EngineCheckDialog | None:
    """File → Debug my engine… (a .py file) or Debug my engine package… (a folder, as
    MiniTorch's course hands it in): pick, confirm, check off the GUI thread. Returns the dialog."""
    parent = checks.services.parent
    path = choose_engine_folder(parent) if folder else choose_engine_file(parent)
    if not path or not confirm_run(parent, path):
        return None
    dialog = EngineCheckDialog(checks, path, expression=expression)
    dialog.show()
    dialog.start()
    return dialog
