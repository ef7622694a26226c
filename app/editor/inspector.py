"""The inspector: everything about the selected node, with the chain rule in numbers.

For the session's current node it shows the label (editable), what the node
is, its data and grad, the nodes it reads from and the nodes that use it
(click one to go there), and for an op the local derivative of its output
with respect to each operand, written out and evaluated:

    d(x·y)/dx = y = 3.0000
    x.grad += 3.0000 · f.grad 1.0000 = 3.0000

The numbers come from core (`core.debugger.stepper.local_derivatives`), the math from
the op table (`core.ops.notation`); the text names the operands by their labels.
Edits (label, value of an input) are pushed as undoable commands; the inspector
keeps no state of its own.
"""

import html
import math

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QFormLayout, QFrame, QLabel, QLineEdit, QScrollArea, QVBoxLayout, QWidget

from app.fields import ExactFloatField
from app.look.theme import FONT_FAMILY, MONO_FAMILY, format_number
from core.debugger.stepper import local_derivatives
from core.document.commands import SetLabel, SetValue
from core.document.graph import OPS, node_expression, op_symbol, short_number
from core.ops import BY_NAME, notation


def _bracket(name):
    return f"({name})" if any(c in name for c in " +−·/^(") else name


def _expression(node, args):
    """out written with its operands, bracketed when compound: '(x·y)', 'y^2'."""
    return node_expression(node, [_bracket(a) for a in args])


def derivative_lines(node, operand_names, out_name, value, out_grad):
    """[(formula, contribution)] for an op node: the local derivative written out with
    the operands' names and evaluated, and what it adds to each operand's grad."""
    if node.kind != "op" or value is None:
        return []
    op = BY_NAME[node.op]
    names = [_bracket(name) for name in operand_names]
    local = local_derivatives(value)
    lines = []
    for i, (formula, (_sym, number)) in enumerate(zip(notation(op, names, node.param), local)):
        if op.math[i] not in ("1", "−1"):
            formula += f" = {format_number(number)}"
        operand = names[i] if i < len(names) else names[-1]
        contribution = (
            f"{operand}.grad += {format_number(number)} · {out_name}.grad "
            f"{format_number(out_grad)} = {format_number(number * out_grad)}"
        )
        lines.append((formula, contribution))
    return lines


class InspectorPanel(QWidget):
    """Shows the session's current node; `navigate(nid)` asks to centre on another."""

    navigate = Signal(str)

    def __init__(self, session, parent=None):
        super().__init__(parent)
        self.session = session
        self._updating = False
        self._shown = None

        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.NoFrame)
        body = QWidget()
        scroll.setWidget(body)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

        layout = QVBoxLayout(body)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(8)
        self.empty = QLabel("Click a node in the graph to inspect it.")
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet("color: palette(mid);")
        layout.addWidget(self.empty)

        self.title = QLabel()
        self.title.setStyleSheet(f"font-family: '{FONT_FAMILY}'; font-size: 17px; font-weight: bold;")
        self.title.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.subtitle = QLabel()
        self.subtitle.setStyleSheet("color: palette(mid);")
        layout.addWidget(self.title)
        layout.addWidget(self.subtitle)

        self.form_widget = QWidget()
        form = QFormLayout(self.form_widget)
        form.setContentsMargins(0, 4, 0, 4)
        form.setLabelAlignment(Qt.AlignRight)
        self.label_edit = QLineEdit()
        self.label_edit.setPlaceholderText("(no label)")
        self.label_edit.editingFinished.connect(self._label_edited)
        self.value_edit = ExactFloatField()  # every digit of the number, as the document holds it
        self.value_edit.valueChanged.connect(self._value_edited)
        self.data_label = self._mono_label()
        self.grad_label = self._mono_label()
        self.op_label = self._mono_label()
        form.addRow("label", self.label_edit)
        form.addRow("value", self.value_edit)
        form.addRow("op", self.op_label)
        form.addRow("data", self.data_label)
        form.addRow("grad", self.grad_label)
        self._form = form
        layout.addWidget(self.form_widget)

        self.inputs_label = self._section(layout, "Inputs")
        self.consumers_label = self._section(layout, "Used by")
        self.derivative_label = self._section(layout, "Local derivatives (chain rule)")
        self.collected_label = self._section(layout, "Grad collected from its uses")
        self.notes_label = QLabel()
        self.notes_label.setWordWrap(True)
        layout.addWidget(self.notes_label)
        layout.addStretch(1)

        # The debugger hides numbers on the canvas (a grad the quiz asks for, a value the
        # forward pass has not computed); it sets this to hide them here too:
        # nid -> {} or {'grad': why} or {'grad': why, 'data': why}.
        self.conceals = lambda nid: {}
        session.currentChanged.connect(self.refresh)
        session.recompiled.connect(self.refresh)
        session.gradsChanged.connect(self._grads_changed)
        session.doc.changed.connect(self._doc_changed)
        self.refresh()

    def sizeHint(self):
        return QSize(300, 600)

    # -- construction helpers ----------------------------------------------------------

    def _mono_label(self):
        label = QLabel()
        label.setStyleSheet(f"font-family: '{MONO_FAMILY}';")
        label.setTextInteractionFlags(Qt.TextSelectableByMouse)
        return label

    def _section(self, layout, title):
        heading = QLabel(title.upper())
        heading.setStyleSheet(
            "color: palette(mid); font-size: 10px; font-weight: bold; letter-spacing: 1px; margin-top: 6px;"
        )
        body = QLabel()
        body.setWordWrap(True)
        body.setTextFormat(Qt.RichText)
        body.setTextInteractionFlags(Qt.TextBrowserInteraction)
        body.linkActivated.connect(self._link)
        layout.addWidget(heading)
        layout.addWidget(body)
        body.heading = heading
        return body

    # -- following the session -------------------------------------------------------

    def _grads_changed(self, ids):
        if ids is None or self.session.current_id in ids:
            self.refresh()

    def _doc_changed(self, event, *details):
        if event == "node_changed" and details[0] == self.session.current_id and details[1] == "label":
            self.refresh()

    def _name(self, nid, depth=2):
        """How to call a node in formulas: its label, its number, or a short
        expression of its inputs ('x·y'), else its id."""
        doc = self.session.doc
        node = doc.nodes.get(nid)
        if node is None:
            return nid
        if node.label:
            return node.label
        if node.kind == "const":
            return short_number(node.value)
        if node.kind == "op" and depth > 0:
            args = [self._name(src, depth - 1) if src is not None else "?" for src in doc.inputs_of(nid)]
            if all(a != src for a, src in zip(args, doc.inputs_of(nid))):
                text = _expression(node, args)
                if len(text) <= 18:
                    return text
        return nid

    def refresh(self, *_):
        doc = self.session.doc
        nid = self.session.current_id
        node = doc.nodes.get(nid) if nid is not None else None
        has = node is not None
        self.empty.setVisible(not has)
        for w in (
            self.title,
            self.subtitle,
            self.form_widget,
            self.inputs_label,
            self.consumers_label,
            self.derivative_label,
            self.collected_label,
            self.notes_label,
        ):
            w.setVisible(has)
        for w in (self.inputs_label, self.consumers_label, self.derivative_label, self.collected_label):
            w.heading.setVisible(has)
        self._shown = nid
        if not has:
            return
        value = self.session.value(nid)
        self._updating = True
        try:
            self.title.setText(self._name(nid))
            if node.kind == "op":
                kind = f"op {node.op}  ·  {op_symbol(node.op, node.param)}"
            else:
                kind = "input (a leaf you can change)" if node.kind == "input" else "constant"
            self.subtitle.setText(f"{kind}  ·  id {nid}")
            if not self.label_edit.hasFocus():
                self.label_edit.setText(node.label)
            is_leaf = node.kind != "op"
            self._form.setRowVisible(self.value_edit, is_leaf)
            self._form.setRowVisible(self.op_label, not is_leaf)
            if is_leaf and not self.value_edit.hasFocus():
                self.value_edit.setValue(float(node.value))
            self.op_label.setText(node.op if node.kind == "op" else "")
            hidden = self.conceals(nid)
            if "data" in hidden:
                self.data_label.setText(f"?  ({hidden['data']})")
            else:
                self.data_label.setText(format_number(value.data) if value is not None else "— (not computed)")
            if hidden:
                self.grad_label.setText(f"?  ({hidden['grad']})")
            else:
                self.grad_label.setText(format_number(value.grad) if value is not None else "—")
        finally:
            self._updating = False

        # inputs and consumers, as links
        if node.kind == "op":
            rows = []
            for port, src in enumerate(doc.inputs_of(nid)):
                if src is None:
                    rows.append(f"port {port}: <span style='color:#d42a3c'>not connected</span>")
                else:
                    v = self.session.value(src)
                    shown = "?" if "data" in self.conceals(src) else format_number(v.data) if v else "—"
                    rows.append(f"port {port}: {self._link_html(src)} = {shown}")
            self.inputs_label.setText("<br>".join(rows))
        else:
            self.inputs_label.setText("<i>none — a leaf</i>")
        consumers = doc.consumers_of(nid)
        if consumers:
            self.consumers_label.setText(
                "<br>".join(f"{self._link_html(e.dst)} (port {e.port}, {doc.nodes[e.dst].op})" for e in consumers)
            )
        else:
            self.consumers_label.setText("<i>nothing — this is a sink</i>")

        # the local derivatives
        lines = []
        if hidden:
            self.derivative_label.setText(f"<i>hidden: {hidden['grad']}</i>")
            self.collected_label.setText(f"<i>hidden: {hidden['grad']}</i>")
            self.notes_label.setText("")
            return
        asked = [src for src in doc.inputs_of(nid) if src is not None and self.conceals(src)]
        if node.kind == "op" and value is not None and asked:  # its lines give an operand's hidden grad away
            self.derivative_label.setText(f"<i>hidden: {self._name(asked[0])}'s grad is asked now</i>")
        elif node.kind == "op" and value is not None:
            names = [self._name(src) for src in doc.inputs_of(nid)]
            out_name = _bracket(self._name(nid))
            for formula, contribution in derivative_lines(node, names, out_name, value, value.grad):
                lines.append(
                    f"<div style=\"font-family:'{MONO_FAMILY}'; font-weight:bold\">"
                    f"{html.escape(formula)}</div>"
                    f"<div style='color:gray; margin-bottom:6px'>{html.escape(contribution)}</div>"
                )
            self.derivative_label.setText("".join(lines))
        elif node.kind == "op":
            self.derivative_label.setText("<i>not computed: wire every input first</i>")
        else:
            self.derivative_label.setText("<i>a leaf has no operands: its grad is where the chain rule ends</i>")

        self._show_collected(nid, consumers, value)

        notes = []
        if value is not None and not (math.isfinite(value.data) and math.isfinite(value.grad)):
            notes.append("<b style='color:#d42a3c'>! not finite</b> — data or grad is inf or nan.")
        missing = [p for p, src in enumerate(doc.inputs_of(nid)) if src is None] if node.kind == "op" else []
        if missing:
            notes.append(
                f"<b style='color:#d42a3c'>missing input</b> on port "
                f"{', '.join(map(str, missing))} ({OPS[node.op][0]} needed)."
            )
        if doc.effective_output() == nid:
            notes.append("<b>output</b> — backward starts here with grad = 1.")
        self.notes_label.setText("<br>".join(notes))
        self.notes_label.setVisible(bool(notes))

    def _show_collected(self, nid, consumers, value):
        """A node's grad is the sum of what each use passes back: the multivariate chain rule."""
        label = self.collected_label
        if value is None:
            label.setText("<i>not computed</i>")
            return
        if self.session.doc.effective_output() == nid:
            label.setText("<i>the output: backward starts with grad = 1</i>")
            return
        if not consumers:
            label.setText("<i>no uses: nothing flows back, grad stays 0</i>")
            return
        parts, total = [], 0.0
        for edge in consumers:
            out = self.session.value(edge.dst)
            if out is None:
                continue
            share = local_derivatives(out)[edge.port][1] * out.grad
            total += share
            parts.append(f"{format_number(share)} (from {self._name(edge.dst)})")
        sum_text = " + ".join(parts) + f" = {format_number(total)}"
        rich = f"<span style=\"font-family:'{MONO_FAMILY}'\">{html.escape(sum_text)}</span>"
        if len(parts) > 1:
            rich += "<br><span style='color:gray'>used more than once: the shares add up (+=)</span>"
        label.setText(rich)

    def _link_html(self, nid):
        return f"<a href='{html.escape(nid)}'>{html.escape(self._name(nid))}</a>"

    def _link(self, nid):
        self.session.select(nid)
        self.navigate.emit(nid)

    # -- edits -----------------------------------------------------------------------

    def _label_edited(self):
        nid = self.session.current_id
        node = self.session.doc.nodes.get(nid)
        if node is None or self._updating:
            return
        text = self.label_edit.text().strip()
        if text != node.label:
            self.session.push(SetLabel(nid, text))

    def _value_edited(self, number):
        nid = self.session.current_id
        node = self.session.doc.nodes.get(nid)
        if node is None or self._updating or node.kind == "op":
            return
        if float(number) != float(node.value):
            self.session.push(SetValue(nid, float(number)))

    # -- for tests and screen readers ----------------------------------------------------

    def text(self):
        """Everything shown, as plain text."""
        from PySide6.QtGui import QTextDocument

        parts = [
            self.title.text(),
            self.subtitle.text(),
            f"data {self.data_label.text()}",
            f"grad {self.grad_label.text()}",
        ]
        for label in (
            self.inputs_label,
            self.consumers_label,
            self.derivative_label,
            self.collected_label,
            self.notes_label,
        ):
            d = QTextDocument()
            d.setHtml(label.text())
            parts.append(d.toPlainText())
        return "\n".join(parts)
