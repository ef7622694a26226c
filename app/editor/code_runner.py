"""Run as Python: the editor's text runs as Python in a child process, its graph opens.

The window holds one `CodeRunner`, handed the window's `Services` and, by name,
what else it uses: the editor, the window's docks (an opened script's big graph gets
the page alone), `open_scoped` (the big-graph page, app/graph/scope_page.py),
`may_run_script` (issue 37: a script the studio does not ship runs only if the user
agrees) and `leave_big_graph` (the canvas again when a small graph follows a big one).
It keeps a `core.lecture.run.Notebook` (the
cells that ran, run again before the next one, as a notebook kernel would
remember them), runs the text on a `Job` (app/jobs.py) -- the child process may
take minutes, the window keeps answering -- and shows what came back:

* the graph, with the learner's names, showing the notebook's state: their
  data and grads as their code left them, the nodes the cell touched lit, a ✗
  where their grad is not the chain rule's (the chain rule's grads a click away
  in the notes: "Show the chain rule's grads");
* a graph too big for one picture collapsed by scope (app/graph/scope_page.py);
* the cell's `Out:`, the notes and what the code printed under the editor;
* what it plotted, in the Plots window (app/editor/plots.py);
* or the error on its line.

While it runs, the status bar says for how long (of at most TIMEOUT), which
line and the last line printed; the Run as Python button is Stop meanwhile.
The code never runs in the studio's process.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QDockWidget

from app.editor.expression_bar import ExpressionBar
from app.jobs import Job
from app.services import Services
from core.lecture.run import MAX_TEXT, MEMORY, TIMEOUT, Notebook, Progress

TICK_MS = 500
REFERENCE = "reference"  # the notes' link that swaps their grads and the chain rule's


class CodeRunner:
    def __init__(
        self,
        services: Services,
        editor: ExpressionBar,
        docks: dict[str, QDockWidget],
        open_scoped: Callable[[Any, str], bool],
        may_run_script: Callable[[str], bool],
        leave_big_graph: Callable[[], None],
    ) -> None:
        self.services = services
        self.editor = editor
        self.docks = docks  # the window's, by key
        self.open_scoped = open_scoped  # (ScopedGraph, title): the big-graph page, collapsed by scope
        self.may_run_script = may_run_script  # (path): True if the script may run (shipped, or the user agreed)
        self.leave_big_graph = leave_big_graph  # the canvas again if the big-graph page is in front
        self.notebook = Notebook()
        self.job: Job | None = None
        self.progress: Progress | None = None
        self.started = 0.0
        self.result: Any = None  # the last result shown on the canvas
        self.showing_reference = False
        self.plots: Any = None
        self.title = ""  # the script's file name, when a .py was opened
        self.folder: str | None = None  # its folder: on the path of the code's imports
        self.from_file = False  # the run is an opened script's: a big graph gets the page's whole width
        self.timer = QTimer(services.parent)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        editor.runCodeRequested.connect(self.run)
        editor.forgetCellsRequested.connect(self.forget)
        editor.stopCodeRequested.connect(self.stop)
        editor.noteLinkClicked.connect(self._link)

    @property
    def running(self) -> bool:
        return self.job is not None

    def run(self, text: str | None = None) -> bool:
        """Run the text (default: the editor's) as Python; the result shows when it comes."""
        if self.running:
            self.services.say("Your code is still running… (Stop ends it)")
            return False
        text = self.editor.text() if text is None else text
        self.editor.set_running(True)
        self.editor.clear_error()
        self.progress = progress = Progress()
        self.started = time.monotonic()
        self._tick()
        folder = self.folder
        self.job = Job(
            0, lambda: self.notebook.run(text, progress=progress, folder=folder), self.services.parent, name="run-code"
        )
        self.job.done.connect(self._ran)
        self.job.start()
        self.timer.start()
        return True

    def open_script(self, path: str) -> bool:
        """File → Open of a .py (and the command line, drag and drop): its text goes to the
        editor and runs as Python on a fresh notebook, by the same rules as a pasted cell."""
        import os

        say = self.services.say
        if self.running:
            say("Your code is still running: Stop it first, then open the script.")
            return False
        if not self.may_run_script(path):  # issue 37: never run unasked (the window asks)
            say(f"{os.path.basename(path)} was not run.")
            return False
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read(MAX_TEXT + 1)
        except (OSError, UnicodeDecodeError) as e:
            say(f"Could not read {path}: {e}")
            return False
        if len(text) > MAX_TEXT:
            say(f"{os.path.basename(path)} is too long to run: at most {MAX_TEXT:,} characters")
            return False
        self.notebook.forget()
        self.editor.set_text(text)
        self.title, self.from_file = os.path.basename(path), True
        self.folder = os.path.dirname(os.path.abspath(path))  # its own modules import, as `python script.py`
        return self.run(text)

    def stop(self) -> None:
        """The Stop button: the child ends the cell where it is and says on which line."""
        if self.progress is not None and self.running:
            self.progress.stop()
            self.services.say("Stopping your code…", 0)

    def progress_text(self) -> str:
        """The progress line: time run, of at most TIMEOUT, the line running, the last line printed."""
        seconds = time.monotonic() - self.started
        text = f"Running your code as Python: {seconds:.0f} s (stopped at {_duration(TIMEOUT)}, {MEMORY >> 20} MB)"
        seen = self.progress.read() if self.progress is not None else None
        if seen is not None:
            cell, cells, line, printed = seen
            if cells > 1:
                text += f" · cell {cell} of {cells}" + (" (an earlier cell, again)" if cell < cells else "")
            if line:
                text += f" · line {line}"
            if printed.strip():
                text += f" · printed: {printed.strip()[:80]}"
        return text + " — Stop ends it"

    def _tick(self) -> None:
        if self.progress is not None and not self.progress.stopped:
            self.services.say(self.progress_text(), 0)

    def wait(self, timeout_s: float = TIMEOUT + 60.0) -> bool:
        """For scripts and tests: wait until the run's result is shown. True if it was."""
        from PySide6.QtCore import QDeadlineTimer, QEventLoop
        from PySide6.QtWidgets import QApplication

        deadline = QDeadlineTimer(int(timeout_s * 1000))
        while self.running and not deadline.hasExpired():
            QApplication.processEvents(QEventLoop.AllEvents, 50)
        return not self.running

    def shutdown(self) -> None:
        """The window closes: stop the child process and let it end; the Plots window goes too."""
        if self.plots is not None:
            self.plots.close()
        if self.job is not None:
            self.stop()
            self.job.wait()

    def forget(self) -> None:
        self.notebook.forget()
        self.folder = None
        self.editor.show_notes([])
        self.services.say("The earlier cells are forgotten: the next run starts afresh.")

    def _ran(self, _token: int, result: Any) -> bool:
        editor, say = self.editor, self.services.say
        job, self.job = self.job, None
        self.timer.stop()
        if job is not None:
            job.wait()
            job.deleteLater()
        editor.set_running(False)
        kept = len(self.notebook.cells)
        if isinstance(result, Exception):  # a bug of ours, said, never a lost window
            editor.show_error(f"Could not run the code: {result}")
            say(f"Not run: {result}")
            return False
        if result.figures:
            self.show_figures(result.figures)
        if result.error is not None:
            return self._refused(result, kept)
        editor.clear_error()
        editor.set_source_note(None)
        say("", 0)  # the status bar's message cleared
        if result.big is not None:
            return self._open_big(result, kept)
        self.leave_big_graph()  # a small graph after a big one: the canvas again
        if not self.services.show_document(result.doc, "Run as Python"):
            return False
        # the open file keeps the graph, as after a Run: Save writes it there
        self.result, self.showing_reference = result, False
        self._when_shown(lambda: self._show_state(result))
        editor.show_notes(result.notes, result.printed, kept, result.out, self._links(result))
        if self.title:
            editor.set_source_note(f"{self.title}, run as Python")
            self.title, self.from_file = "", False
        graphs = f" in {result.roots} graphs" if result.roots > 1 else ""
        lit = f", {len(result.touched):,} touched by this cell (lit)" if result.touched else ""
        say(f"Ran as Python: {len(result.doc.nodes):,} nodes{graphs}{lit}")
        return True

    def _open_big(self, result: Any, kept: int) -> bool:
        self.result = None
        self.editor.show_notes(result.notes, result.printed, kept, result.out)
        title, self.title = self.title or result.title, ""
        opened = self.open_scoped(result.big, f"{title}, by scope")

        from_file, self.from_file = self.from_file, False

        def keep_editor():  # the page sets the docks aside; the editor stays for the next cell (a pasted one)
            if from_file:  # an opened script gets the page alone, whatever an earlier run left floating
                for dock in self.docks.values():
                    if dock.isFloating():
                        dock.hide()
                return
            dock = self.docks.get("editor")
            if dock is not None:
                dock.show()
                dock.raise_()

        self._when_shown(keep_editor, always=True)
        return opened

    def _when_shown(self, then, always: bool = False) -> None:
        """then() once the graph just handed to show_document (or the scope page) is shown."""
        finished = self.services.layout_finished
        if not self.services.layout_pending():
            then()
            return

        def once():
            finished.disconnect(once)
            if always or self.result is not None:
                then()

        finished.connect(once)

    def _show_state(self, result: Any) -> None:
        """The canvas shows the learner's numbers: their data and grads, the nodes the cell
        touched lit, a ✗ where a grad is not the chain rule's (with the chain rule's number)."""
        if result is not self.result:
            return
        session, marks = self.services.session, self.services.scene.marks
        session.flush()
        values = session.values
        for nid, (data, grad) in result.state.items():
            value = values.get(nid)
            if value is not None:
                value.data = data
                value.grad = result.reference.get(nid, grad) if self.showing_reference else grad
        session.grads_shown = "full" if self.showing_reference else "code"
        session.notify_grads()
        marks.set_highlight(nodes=result.touched)
        marks.set_debug_marks(
            {nid: ("target", f"✗ chain rule: {ours:.4g}") for nid, (_theirs, ours) in result.wrong.items()}
        )

    def _links(self, result: Any) -> list[tuple[str, str]]:
        if not result.reference or not any(g for _d, g in result.state.values()):
            return []  # no backward yet: their grads are all 0, nothing to compare
        if self.showing_reference:
            return [(REFERENCE, "Showing the chain rule's grads: show yours again")]
        return [(REFERENCE, "Show the chain rule's grads (one backward() from the output) instead of yours")]

    def _link(self, link: str) -> None:
        result = self.result
        if link != REFERENCE or result is None or self.services.session.doc.nodes.keys() != result.doc.nodes.keys():
            return
        self.showing_reference = not self.showing_reference
        self._show_state(result)
        kept = len(self.notebook.cells)
        self.editor.show_notes(result.notes, result.printed, kept, result.out, self._links(result))
        which = "the chain rule's grads" if self.showing_reference else "your code's grads"
        self.services.say(f"The canvas shows {which}.")

    def show_figures(self, figures: list) -> None:
        from app.editor.plots import PlotsWindow

        if self.plots is None:
            self.plots = PlotsWindow(self.services.parent)
        if self.plots.show_figures(figures):
            self.plots.show()
            self.plots.raise_()

    def _refused(self, result: Any, kept: int) -> bool:
        editor, error = self.editor, self.result_error(result)
        if result.ran:  # it ran to its end: nothing to draw is news, not a fault
            editor.clear_error()
            editor.show_notes([error], result.printed, kept, result.out)
        else:
            editor.show_error(result.error.message, result.error.line, result.error.col)
            if result.printed.strip():
                editor.show_notes([], result.printed, kept)
        where = f"line {result.error.line}: " if result.error.line else ""
        self.services.say(f"Ran as Python: {where}{result.error.message}")
        return False

    @staticmethod
    def result_error(result: Any) -> str:
        message = result.error.message
        return message[:1].upper() + message[1:] + ("" if message.endswith(".") else ".")


def _duration(seconds: float) -> str:
    return f"{seconds / 60:g} min" if seconds >= 60 else f"{seconds:g} s"
