"""Run as Python: the editor's text runs as Python in a child process, its graph opens.

The window holds one `CodeRunner`. It keeps a `core.lecture.run.Notebook` (the
cells that ran, run again before the next one, as a notebook kernel would
remember them), runs the text on a `Job` (app/jobs.py) -- the child process may
take seconds, the window keeps answering -- and shows what came back: the graph
with the learner's names, the notes and what the code printed under the editor,
or the error on its line. The code never runs in the studio's process.
"""

from __future__ import annotations

from typing import Any

from app.jobs import Job
from core.lecture.run import MEMORY, TIMEOUT, Notebook


class CodeRunner:
    def __init__(self, window: Any) -> None:
        self.window = window
        self.notebook = Notebook()
        self.job: Job | None = None
        editor = window.editor
        editor.runCodeRequested.connect(self.run)
        editor.forgetCellsRequested.connect(self.forget)

    @property
    def running(self) -> bool:
        return self.job is not None

    def run(self, text: str | None = None) -> bool:
        """Run the text (default: the editor's) as Python; the result shows when it comes."""
        window = self.window
        if self.running:
            window.show_message("Your code is still running…")
            return False
        text = window.editor.text() if text is None else text
        window.editor.set_running(True)
        window.editor.clear_error()
        window.show_message(
            f"Running your code as Python in a separate process (at most {TIMEOUT:g} s, {MEMORY >> 20} MB)…", 0
        )
        self.job = Job(0, lambda: self.notebook.run(text), window, name="run-code")
        self.job.done.connect(self._ran)
        self.job.start()
        return True

    def wait(self, timeout_s: float = 60.0) -> bool:
        """For scripts and tests: wait until the run's result is shown. True if it was."""
        from PySide6.QtCore import QDeadlineTimer, QEventLoop
        from PySide6.QtWidgets import QApplication

        deadline = QDeadlineTimer(int(timeout_s * 1000))
        while self.running and not deadline.hasExpired():
            QApplication.processEvents(QEventLoop.AllEvents, 50)
        return not self.running

    def shutdown(self) -> None:
        """The window closes: let the child process end (within its time limit)."""
        if self.job is not None:
            self.job.wait()

    def forget(self) -> None:
        self.notebook.forget()
        self.window.editor.show_notes([])
        self.window.show_message("The earlier cells are forgotten: the next run starts afresh.")

    def _ran(self, _token: int, result: Any) -> bool:
        window = self.window
        job, self.job = self.job, None
        if job is not None:
            job.wait()
            job.deleteLater()
        window.editor.set_running(False)
        kept = len(self.notebook.cells)
        if isinstance(result, Exception):  # a bug of ours, said, never a lost window
            window.editor.show_error(f"Could not run the code: {result}")
            window.show_message(f"Not run: {result}")
            return False
        if result.error is not None:
            return self._refused(result, kept)
        window.editor.clear_error()
        window.editor.set_source_note(None)
        window.statusBar().clearMessage()
        if not window.show_document(result.doc, "Run as Python"):
            return False
        # the open file keeps the graph, as after a Run: Save writes it there
        window.editor.show_notes(result.notes, result.printed, kept)
        graphs = f" in {result.roots} graphs" if result.roots > 1 else ""
        window.show_message(f"Ran as Python: {len(result.doc.nodes):,} nodes{graphs}")
        return True

    def _refused(self, result: Any, kept: int) -> bool:
        window, error = self.window, self.result_error(result)
        if result.ran:  # it ran to its end: nothing to draw is news, not a fault
            window.editor.clear_error()
            window.editor.show_notes([error], result.printed, kept)
        else:
            window.editor.show_error(result.error.message, result.error.line, result.error.col)
            if result.printed.strip():
                window.editor.show_notes([], result.printed, kept)
        where = f"line {result.error.line}: " if result.error.line else ""
        window.show_message(f"Ran as Python: {where}{result.error.message}")
        return False

    @staticmethod
    def result_error(result: Any) -> str:
        message = result.error.message
        return message[:1].upper() + message[1:] + ("" if message.endswith(".") else ".")
