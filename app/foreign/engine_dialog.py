"""File → Debug my engine…: check a learner's own Value class, off the GUI thread.

The user picks a .py file (`choose_engine_file`) and is told plainly that it
will run in a separate process (`confirm_run`); both are module-level
functions so tests can replace them. A `EngineCheckWorker` (a QThread) waits
for `core.foreign.runner.check_file`, which runs the file in a child process
with time and memory limits, so the window never freezes and the learner's
code never runs in the studio's process. The `EngineCheckDialog` lists the
tests, then the first wrong gradient with its likely cause; the failing
expression is drawn on the canvas (an undoable step) with the faulty node
highlighted.
"""

from PySide6.QtCore import Qt, QThread, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QListWidget,
    QMessageBox,
    QPlainTextEdit,
    QVBoxLayout,
)

from core.foreign.document import to_document
from core.foreign.report import fault_lines
from core.foreign.runner import TIMEOUT, check_file


def choose_engine_file(parent):
    """The .py file to check, or '' if the user cancelled."""
    path, _ = QFileDialog.getOpenFileName(parent, "Debug my engine: choose your Value class", "", "Python files (*.py)")
    return path


def confirm_run(parent, path):
    """True if the user agrees to run `path` (in a separate process)."""
    answer = QMessageBox.question(
        parent,
        "Debug my engine",
        f"The studio will run {path} in a separate process (at most {TIMEOUT:g} s, 1 GB of memory) "
        f"to build test expressions with your Value class and step its backward pass.\n\n"
        f"Your open graph is not touched unless a wrong gradient is found; then the failing "
        f"expression is shown on the canvas (Undo brings your graph back).\n\nRun it?",
    )
    return answer == QMessageBox.Yes


class EngineCheckWorker(QThread):
    """Waits for the child process on its own thread; only plain data comes back."""

    finished_report = Signal(dict)

    def __init__(self, path, timeout=TIMEOUT, parent=None):
        super().__init__(parent)
        self.path = path
        self.timeout = timeout

    def run(self):
        try:
            report = check_file(self.path, timeout=self.timeout)
        except Exception as e:  # noqa: BLE001 -- reported in the dialog, never a crash
            report = {
                "file": self.path,
                "status": "unusable",
                "message": f"the check failed: {e}",
                "cases": [],
                "notes": [],
                "fault": None,
            }
        self.finished_report.emit(report)


class EngineCheckDialog(QDialog):
    """The tests and the first wrong gradient of one learner's file."""

    def __init__(self, window, path, timeout=TIMEOUT):
        super().__init__(window)
        self.setObjectName("engine-check")
        self.setAttribute(Qt.WA_DeleteOnClose)
        self.setWindowTitle("Debug my engine")
        self.window_ = window
        self.path = path
        self.report = None
        self.status = QLabel(f"Running {path} in a separate process…")
        self.status.setWordWrap(True)
        self.tests = QListWidget()
        self.finding = QPlainTextEdit()
        self.finding.setReadOnly(True)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(QLabel("Tests"))
        layout.addWidget(self.tests, 2)
        layout.addWidget(QLabel("First wrong gradient"))
        layout.addWidget(self.finding, 1)
        layout.addWidget(buttons)
        self.resize(620, 520)
        self.worker = EngineCheckWorker(path, timeout, self)
        self.worker.finished_report.connect(self.show_report)

    def start(self):
        self.worker.start()

    def show_report(self, report):
        self.report = report
        marks = {"pass": "✓", "fail": "✗", "error": "!"}
        for case in report.get("cases", []):
            self.tests.addItem(f"{marks.get(case['status'], '?')}  {case['name']}")
            if case["status"] != "pass" and self.tests.currentRow() < 0:
                self.tests.setCurrentRow(self.tests.count() - 1)  # the failing test, in view
        for skipped in report.get("skipped", []):
            self.tests.addItem(f"–  {skipped['name']} (your class has no {', '.join(skipped['missing'])})")
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

    def show_on_canvas(self, report):
        """The failing expression on the canvas, the faulty node highlighted."""
        fault = report["fault"]
        case = next((c for c in report["cases"] if c["name"] == fault["case"]), None)
        if not case or not case.get("graph"):
            return False
        doc, problem = to_document(case["graph"])
        if doc is None:
            self.finding.appendPlainText(f"\n(Not drawn: {problem}.)")
            return False
        if not self.window_.show_document(doc, text="Show my engine's failing expression", layout=True):
            return False
        self.window_.files.detach()  # not the file's graph: Save must ask where
        self.window_.wait_for_layout()
        if fault.get("node_id") in doc.nodes:
            self.window_.scene.marks.set_highlight(nodes=[fault["node_id"]])
        return True

    def closeEvent(self, event):
        self.worker.wait()  # the child is time-limited, so this ends
        super().closeEvent(event)


def debug_my_engine(window):
    """File → Debug my engine…: pick, confirm, check off the GUI thread. Returns the dialog."""
    path = choose_engine_file(window)
    if not path or not confirm_run(window, path):
        return None
    dialog = EngineCheckDialog(window, path)
    dialog.show()
    dialog.start()
    return dialog
