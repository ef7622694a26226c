"""File → Import Snippet and the exports: micrograd-style Python, a PyTorch script,
GraphML and Graphviz DOT, and the interactive page (the one-file stepper, core/notebook/page.py).
A part of FileActions (app/files/actions.py), which has `services` (the window's
Services: its dialogs' parent, the status bar, the theme, show_document), `session`,
`editor`, `name`, `path`. (Pictures, PNG and SVG: app/files/image_export.py.)"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from app.files import dialogs
from app.jobs import Job
from app.services import Editor, Services
from core.document.codegen import micrograd_lacks, to_pytorch, to_script
from core.document.expr import ExprError, parse
from core.files import graph_file, strict_json
from core.files.atomic import write_atomically
from core.files.interchange import dot, graphml
from core.notebook.stepper import Stepper


class CodeAndGraphExports:
    services: Services  # the window's (FileActions sets these)
    session: Any  # GraphSession
    editor: Editor
    name: str
    path: str | None
    detach: Callable[[], None]
    _page_job: Job | None = None  # File → Export as Interactive Page, while it is being written
    # -- code in and out --------------------------------------------------------------------

    def export_code(self, kind: str, path: str) -> bool:
        """kind: 'python' (a script on the studio's engine), 'micrograd' (on micrograd's,
        where its ops allow) or 'pytorch'. Each runs as it is and prints the canvas's numbers."""
        try:
            doc = self.session.doc
            text = (
                to_pytorch(doc)
                if kind == "pytorch"
                else to_script(doc, "micrograd" if kind == "micrograd" else "studio")
            )
            write_atomically(str(path), text)
        except (OSError, ValueError) as e:
            dialogs.show_error(self.services.parent, "Could not export", f"The graph was not exported: {e}")
            return False
        self.services.say(f"Exported {path}")
        return True

    def export_code_dialog(self, kind: str) -> bool:
        stem = os.path.splitext(self.name)[0] if self.path else "graph"
        suffix, title = {
            "pytorch": ("_torch", "Export as PyTorch"),
            "micrograd": ("_micrograd", "Export as Python for micrograd"),
        }.get(kind, ("", "Export as Python"))
        if kind == "micrograd" and micrograd_lacks(self.session.doc):
            return self.export_code(kind, "")  # says which ops micrograd lacks, before asking where
        path = dialogs.ask_save_path(self.services.parent, title, f"{stem}{suffix}.py", "Python (*.py)")
        return self.export_code(kind, path) if path else False

    def export_graph(self, kind: str, path: str) -> bool:
        """Write the graph as GraphML or DOT (core/files/interchange.py), with the data
        and grad of every node as the canvas shows them."""
        numbers = {nid: (value.data, value.grad) for nid, value in self.session.values.items()}
        try:
            write = graphml if kind == "graphml" else dot
            write_atomically(str(path), write(self.session.doc, numbers))
        except (OSError, ValueError) as e:
            dialogs.show_error(self.services.parent, "Could not export", f"The graph was not exported: {e}")
            return False
        self.services.say(f"Exported {path}")
        return True

    def export_graph_dialog(self, kind: str) -> bool:
        stem = os.path.splitext(self.name)[0] if self.path else "graph"
        title, pattern = (
            ("Export as GraphML", "GraphML (*.graphml)")
            if kind == "graphml"
            else ("Export as Graphviz DOT", "Graphviz DOT (*.dot *.gv)")
        )
        path = dialogs.ask_save_path(
            self.services.parent, title, f"{stem}.{'graphml' if kind == 'graphml' else 'dot'}", pattern
        )
        return self.export_graph(kind, path) if path else False

    def export_page(self, path: str) -> Job:
        """Write the one-file stepper page of the graph (core/notebook/page.py): the graph, every step of
        its backward pass, plain JavaScript; it steps in any browser, offline. Made on a worker (a 400-node
        graph takes most of a second) from a copy of the document; the outcome is said when it is written."""
        doc = self.session.doc.copy(read_only=True)
        palette = self.services.theme().palette
        title = os.path.splitext(self.name)[0] if self.path else "graph"

        return self._write_page(path, lambda: Stepper.from_document(doc, palette, title).page(), "export-page")

    def _write_page(self, path: str, make: Callable[[], str], name: str) -> Job:
        """Make a page with `make()` on a worker, write it atomically at `path`, say the outcome."""

        def work() -> str:
            write_atomically(str(path), make().encode("utf-8"))
            return str(path)

        job = Job(0, work, self.services.parent, name=name)
        job.done.connect(self._page_written)
        self._page_job = job  # kept until it is done
        self.services.say(f"Writing the interactive page {os.path.basename(path)}…", timeout=0)
        job.start()
        return job

    def _page_written(self, _token: int, outcome: Any) -> None:
        self._page_job = None
        if isinstance(outcome, BaseException):
            self.services.say("The interactive page was not written")
            dialogs.show_error(self.services.parent, "Could not export", f"The page was not written: {outcome}")
            return
        self.services.say(f"Exported {outcome}: open it in any browser (add #step=5 to its address to start at step 5)")

    def export_block_page(self, graph: Any, title: str, path: str) -> Job:
        """Write a big graph's one-file page (core/notebook/block_page.py): its collapsed picture,
        a Step per block, in any browser, offline. Walked on a worker (a 138k-node step takes a few
        seconds) on the graph's twin -- Values of its own -- so the big-graph page's stepping stays."""
        from core.notebook.block_page import BlockStepper

        palette = self.services.theme().palette
        return self._write_page(
            path, lambda: BlockStepper.of_graph(graph, palette, title).page(title), "export-block-page"
        )

    def export_block_page_dialog(self, graph: Any, title: str) -> bool:
        stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in title) or "graph"
        path = dialogs.ask_save_path(
            self.services.parent, "Export as Interactive Page", f"{stem}.html", "Web page (*.html *.htm)"
        )
        if not path:
            return False
        self.export_block_page(graph, title, path)
        return True

    def export_page_dialog(self) -> bool:
        stem = os.path.splitext(self.name)[0] if self.path else "graph"
        path = dialogs.ask_save_path(
            self.services.parent, "Export as Interactive Page", f"{stem}.html", "Web page (*.html *.htm)"
        )
        if not path:
            return False
        self.export_page(path)
        return True

    def import_snippet(self, path: str) -> bool:
        """Read micrograd-style code into the graph (one undoable step)."""
        try:
            # the strict reader: a FIFO or a device is refused before it is opened
            text = strict_json.decode(strict_json.read_bytes(path, graph_file.MAX_BYTES, "a snippet"), "a snippet")
            doc = parse(text)
        except ExprError as e:
            dialogs.show_error(
                self.services.parent,
                "Could not import",
                f"{os.path.basename(path)}, line {e.line}, column {e.col}: {e.message}\n\n"
                "The graph shown is unchanged.",
            )
            return False
        except strict_json.JSONFileError as e:
            dialogs.show_error(
                self.services.parent,
                "Could not import",
                f"{os.path.basename(path)}: {e.message}\n\nThe graph shown is unchanged.",
            )
            return False
        except (OSError, UnicodeDecodeError, ValueError) as e:
            dialogs.show_error(
                self.services.parent,
                "Could not import",
                f"{os.path.basename(path)}: {e}\n\nThe graph shown is unchanged.",
            )
            return False
        self.editor.set_text(text)
        if not self.services.show_document(doc, f"Import {os.path.basename(path)}"):
            return False
        self.detach()
        return True

    def import_snippet_dialog(self) -> bool:
        path = dialogs.ask_open_path(self.services.parent, "Import snippet", "", "Python (*.py *.txt);;All files (*)")
        return self.import_snippet(path) if path else False
