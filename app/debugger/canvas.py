"""What a debugger move looks like on the canvas, at the cost of what it changed.

`CanvasSync` is the controller's hand on the graph scene: it draws what a
`Move` of core's DebugSession changed, and decides nothing about debugging.
One step changes the grads of a handful of operands, so it touches only those:
their grad text
(`session.notify_grads(ids)`), their status stripe, the 'current' / 'target'
marks with their chips, the glowing wires -- each through the scene's diffing
hooks (app/graph/marks.py), never a loop over every item.

A long jump (reset, seek, run to the end, the start of the forward pass, stop)
changes everything. Then the nodes in sight are redrawn at once and the rest a
chunk per event-loop turn (`redraw_all`), so that a 5,000-node graph never holds
the window up for long. A chunk reads the debugger's state when it runs, not
when it was queued: a step taken while chunks are pending is never undone by
one of them.

While stepping, the grad colours keep the scale of the finished pass
(`pin_grad_scale`): otherwise every step that brought a new largest |grad|
would re-tint, and repaint, every node. The forward pass keeps the scale shown
when it starts (`hold_grad_scale`), for the same reason.

Following the step (`follow`): the view scrolls only when the step's node is
not in sight, and then centres it with its operands. A scroll repaints the
whole view, so it must stay rare.
"""

from PySide6.QtCore import QObject, QTimer

from core.debugger.foreign_replay import ReplayStepper
from core.debugger.session import BACKWARD, FORWARD, IDLE
from core.format import format_number

REFRESH_CHUNK = 700  # nodes redrawn per event-loop turn after a long jump
PENDING, NO_GRAD = "?", "—"  # texts shown instead of numbers not known yet
__all__ = ["BACKWARD", "FORWARD", "IDLE", "NO_GRAD", "PENDING", "REFRESH_CHUNK", "CanvasSync"]


class CanvasSync(QObject):
    def __init__(self, controller):
        super().__init__(controller)
        self.ctrl = controller
        self.session, self.scene, self.view = controller.session, controller.scene, controller.view
        self.notifying = False  # our own gradsChanged, not someone else's
        self._pending = []  # node ids still to redraw after a long jump
        self._look = BACKWARD  # ... in the look of this phase
        self._timer = QTimer(self)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._tick)

    @property
    def refreshing(self):
        return bool(self._pending)

    # -- numbers and stripes ----------------------------------------------------------

    def notify(self, ids):
        self.notifying = True
        try:
            self.session.notify_grads(ids)
        finally:
            self.notifying = False

    def changed(self, ids):
        """Redraw these nodes (the few a move touched) in the look of the phase now."""
        self._redraw(list(ids), self.ctrl.phase)

    def redraw_all(self, look=BACKWARD):
        """Every node of the stepper's graph in the look of a phase (`look`): those in
        sight now, the rest a chunk per event-loop turn."""
        ids = self.ctrl.debug.ids_of(self.ctrl.stepper.topo)
        self.cancel()
        self._look = look
        if self.scene is None or self.view is None or len(ids) <= REFRESH_CHUNK:
            self._redraw(ids)
            return
        seen = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
        wanted = set(ids)
        first = [
            item.nid
            for item in self.scene.items(seen)
            if getattr(item, "nid", None) in wanted and hasattr(item, "set_numbers")
        ]
        done = set(first)
        self._redraw(first)
        self._pending = [n for n in ids if n not in done]
        self._timer.start()

    def cancel(self):
        self._timer.stop()
        self._pending = []

    def _redraw(self, ids, look=None):
        """Bring these nodes in line with the debugger's state now, whatever they showed
        before, in the look of a phase (default: the last long jump's). Backward:
        grads, status stripes, the quiz's hidden grads; forward: '?' until computed,
        grads hidden, no stripes; idle: the numbers only."""
        scene, value = self.scene, self.session.values.get
        look = look or self._look
        self.notify(ids)
        if scene is None:
            return
        if look == BACKWARD:
            st = self.ctrl.stepper
            hidden = {self.ctrl.nid(v) for v in self.ctrl.quiz_hidden()}
            scene.marks.set_node_status({n: st.status(value(n)) for n in ids})
            scene.marks.update_masks({n: (None, PENDING, False) if n in hidden else None for n in ids})
        elif look == FORWARD:
            fs = self.ctrl.forward_stepper
            scene.marks.set_node_status({n: None for n in ids})
            scene.marks.update_masks(
                {n: (None, NO_GRAD, False) if fs.computed(value(n)) else (PENDING, NO_GRAD, True) for n in ids}
            )
        else:
            scene.marks.set_node_status({n: None for n in ids})
            scene.marks.update_masks({n: None for n in ids})

    def _tick(self):
        chunk, self._pending = self._pending[:REFRESH_CHUNK], self._pending[REFRESH_CHUNK:]
        if chunk and self.ctrl.stepper is not None:
            self._redraw(chunk)
        if not self._pending:
            self._timer.stop()

    def pin_grad_scale(self, grad_max):
        """Colour grads on the scale of the finished pass while stepping (its largest
        finite |grad|, which the DebugSession measures when the pass starts)."""
        if self.scene is not None:
            self.scene.set_grad_scale(grad_max)

    def hold_grad_scale(self):
        """Keep the colour scale shown now (the forward pass: grads are hidden, and a
        scale that changed would redraw every node on the first forward step)."""
        if self.scene is not None:
            self.scene.set_grad_scale(self.scene.grad_max or None)

    # -- marks ---------------------------------------------------------------------------

    def clear(self):
        """Every debugger mark, mask and stripe off at once, the colour scale free again
        (a new compile; a long jump uses `redraw_all` instead)."""
        self.cancel()
        if self.scene is not None:
            self.scene.marks.clear_debug()
            self.scene.set_grad_scale(None)

    def leave(self):
        """Debugging stops on the same graph: the marks off, the colour scale free, and
        every node back to its plain look in chunks (`redraw_all`)."""
        if self.scene is not None:
            self.scene.marks.set_debug_marks({}, [])
            self.scene.set_grad_scale(None)
        self.redraw_all(IDLE)

    def breakpoints(self, ids):
        if self.scene is not None:
            self.scene.marks.set_breakpoint_marks(ids)

    def show_start(self, root):
        focus = self.ctrl.nid(root)
        self._mark({focus: ("current", "grad = 1")}, [], focus)

    def show_step(self, record, hidden=()):
        """The step's node 'current', its operands 'target' with what was added, the wires."""
        nid = self.ctrl.nid
        focus = nid(record.node)
        marks, edges = {focus: ("current", "_backward")}, []
        shares, wrong = {}, set()
        stepper = self.ctrl.stepper
        if isinstance(stepper, ReplayStepper):  # a learner's own pass: what THEIR code added
            shares, wrong = stepper.shares(record), stepper.wrong_operands(record)
        else:
            for child, (_sym, local) in zip(record.children, record.local):
                shares[child] = shares.get(child, 0.0) + local * record.out_grad
        for port, child in enumerate(record.children):
            cid = nid(child)
            text = (
                "+= ?" if child in hidden else f"+= {format_number(shares[child])}" + (" ✗" if child in wrong else "")
            )
            marks[cid] = ("target", text)
            edges.append((cid, focus, port))
        self._mark(marks, edges, focus)

    def show_forward(self, record):
        if record is None:
            self._mark({}, [], None)
            return
        nid = self.ctrl.nid
        focus = nid(record.node)
        edges = [(nid(c), focus, port) for port, c in enumerate(record.node._prev)]
        self._mark({focus: ("current", f"= {format_number(record.node.data)}")}, edges, focus)

    def _mark(self, marks, edges, focus):
        if self.scene is None:
            return
        self.scene.marks.set_debug_marks(marks, edges)
        if self.ctrl.follow and self.view is not None and focus is not None:
            self._follow(focus, [n for n in marks if n != focus])

    def _follow(self, focus, others):
        """Scroll only when the step's node or the operands receiving its grads are out
        of sight, and then so that the receivers are in sight, as many as fit, and the
        node with them if it fits too: the grads just added are what the step shows,
        and the next steps are usually among them. (Keeping the node at the view's
        edge nearest them scrolled more often on a 5,000-node MLP, whose next steps
        lie in every direction.)"""
        item = self.scene.node_item(focus)
        if item is None:
            return
        seen = self.view.mapToScene(self.view.viewport().rect()).boundingRect()
        receivers = [self.scene.node_item(nid) for nid in others]
        receivers = [other for other in receivers if other is not None]
        if all(seen.contains(i.sceneBoundingRect()) for i in [item] + receivers):
            return
        rect = None
        for other in receivers + [item]:
            wider = other.sceneBoundingRect() if rect is None else rect.united(other.sceneBoundingRect())
            if rect is None or (wider.width() <= seen.width() * 0.9 and wider.height() <= seen.height() * 0.9):
                rect = wider
        self.view.centerOn(rect.center())
