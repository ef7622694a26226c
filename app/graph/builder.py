"""Building graphs by hand: every gesture of the editor as one pushed command.

`GraphBuilder` turns what the user does on the canvas and in the palette into
core commands pushed through the session (never a direct edit of the
document), one command per gesture:

    add a part        AddNode (an op dropped on a wire: InsertOnEdge)
    add a block       Macro of AddNode/Connect + AddGroup (core/document/blocks.py)
    delete            Macro(RemoveNodes, ForgetNodes) / Disconnect for a wire
    copy/cut/paste    a JSON fragment on the clipboard (FRAGMENT_MIME and text);
                      paste = PasteWithGroups, cut = copy + delete
    duplicate         PasteWithGroups of the selection, offset, without the clipboard
    edit a node       Macro of SetLabel/SetValue/SetParam (the changed fields only)
    set output        SetOutput
    collapse/expand   SetCollapsed; ungroup: Ungroup

It also owns the two floating editors (quick add, node edit) and fills the
canvas's right-click menu. Selection and zoom are not edits and push nothing.
"""

import json

from PySide6.QtCore import QMimeData, QObject, QPointF, Signal
from PySide6.QtGui import QGuiApplication

from app.graph.node_geometry import node_size
from app.graph.quick_add import NodeEditOverlay, QuickAddOverlay
from core.document.blocks import ENTRIES, layer_block, neuron_block, node_for
from core.document.commands import (
    AddNode,
    Disconnect,
    InsertOnEdge,
    Macro,
    RemoveNodes,
    SetLabel,
    SetOutput,
    SetParam,
    SetValue,
    copy_fragment,
    describe,
)
from core.document.expr import ExprError, parse
from core.document.graph import OPS, GraphError
from core.document.groups import AddGroup, ForgetNodes, PasteWithGroups, SetCollapsed, Ungroup
from core.files.graph_file import MAX_BYTES

FRAGMENT_MIME = "application/x-backprop-studio-fragment"
FRAGMENT_FORMAT = "backprop-studio.fragment"
DUPLICATE_OFFSET = (40.0, 40.0)
PASTE_NEAR = 8.0  # a pasted node this close (document units) to a node is "on" it
BLOCK_KEYS = ("neuron", "layer")


def fragment_text(fragment):
    return json.dumps(dict(fragment, format=FRAGMENT_FORMAT), allow_nan=False, sort_keys=True)


def fragment_from_text(text):
    """The fragment dict in text (our JSON), or None if the text is not one."""
    if len(text) > MAX_BYTES:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("format") != FRAGMENT_FORMAT:
        return None
    if not isinstance(data.get("nodes"), list) or not isinstance(data.get("edges", []), list):
        return None
    groups = data.get("groups", [])
    if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
        return None
    return {"nodes": data["nodes"], "edges": data.get("edges", []), "groups": groups}


class GraphBuilder(QObject):
    """The editing gestures of one window: session, scene and view it acts on."""

    message = Signal(str)  # what happened / why not, for the status bar

    def __init__(self, session, scene, view, parent=None):
        super().__init__(parent)
        self.session, self.scene, self.view = session, scene, view
        # the palette's options for blocks and pow; UI state, not document state
        self.options = {"nin": 2, "nout": 3, "activation": "tanh", "k": 2.0, "feed_selection": True}
        self.quick_add = QuickAddOverlay(view)
        self.quick_add.chosen.connect(lambda key, pos: self.add_entry({"key": key}, pos))
        self.node_editor = NodeEditOverlay(view)
        self.node_editor.applied.connect(self.apply_edit)
        view.entryDropped.connect(self.add_entry)
        view.quickAddRequested.connect(self.open_quick_add)
        scene.quickAddRequested.connect(self.open_quick_add)
        scene.editRequested.connect(self.edit_node)
        scene.context_menu.provider = self.fill_menu
        self.last_added = []

    @property
    def doc(self):
        return self.session.doc

    def _push(self, command):
        ok, error = self.session.push(command)
        if not ok:
            self.message.emit(f"Not done: {error}")
        return ok, error

    # -- adding parts -------------------------------------------------------------------

    def add_entry(self, spec, scene_pos):
        """Add the palette entry spec ({'key': ..., options}) at scene_pos; the new ids.

        An op with inputs dropped on a wire goes onto that wire (InsertOnEdge)."""
        key = spec.get("key")
        if key not in ENTRIES:
            self.message.emit(f"Unknown palette entry {key!r}")
            return []
        pos = self.scene.to_doc(scene_pos)  # a document position is at scale 1 (presenter mode)
        opts = dict(self.options)
        opts.update({k: v for k, v in spec.items() if k != "key"})
        try:
            if key in BLOCK_KEYS:
                return self._add_block(key, pos, opts)
            node = node_for(key, self.doc, pos, param=opts.get("k") if key in ("pow", "rpow") else None)
        except (GraphError, TypeError, ValueError) as e:
            self.message.emit(f"Not added: {e}")
            return []
        edge = None
        if node.kind == "op" and OPS[node.op][0] >= 1:
            edge = self.scene.edge_at(QPointF(scene_pos), self.scene.hit_radius())
        command = InsertOnEdge(node, edge) if edge is not None else AddNode(node)
        ok, _error = self._push(command)
        if not ok:
            return []
        nid = command.node_id
        self._select([nid])
        self.message.emit(
            f"Added {describe(self.doc.nodes[nid])}"
            + (" on the wire" if edge is not None else "")
            + (": double-click it to edit" if node.kind != "op" else "")
        )
        return [nid]

    def _add_block(self, key, pos, opts):
        nin, nout = int(opts["nin"]), int(opts["nout"])
        inputs = None
        if opts.get("feed_selection"):
            chosen = self.scene.selection.edit_selection()
            if len(chosen) == nin:
                inputs = sorted(chosen, key=lambda nid: (self.doc.nodes[nid].pos[1], nid))
        theme = self.scene.theme.with_(scale=1.0)  # document units (GraphScene.to_doc)
        sizes = lambda node: node_size(theme, node)  # noqa: E731 -- the layout's measure
        if key == "neuron":
            block = neuron_block(self.doc, pos, nin, opts["activation"], inputs, sizes=sizes)
        else:
            block = layer_block(self.doc, pos, nin, nout, opts["activation"], inputs, sizes=sizes)
        command = Macro(block.command.text, [block.command, AddGroup(self.session.groups, block.group)])
        ok, _error = self._push(command)
        if not ok:
            return []
        created = [node.id for node in block.nodes]
        self._select(created)
        fed = f", reading {', '.join(describe(self.doc.nodes[n]) for n in inputs)}" if inputs else ""
        self.message.emit(
            f"Added {block.group['title']}{fed}. Its weights and bias are inputs: "
            "double-click one to change it; right-click the frame's nodes to collapse."
        )
        return created

    def _select(self, ids):
        self.last_added = list(ids)
        self.scene.selection.select_ids(ids)
        if len(ids) == 1:
            self.session.select(ids[0])

    def open_quick_add(self, scene_pos):
        self.quick_add.open_at(scene_pos)

    # -- editing ----------------------------------------------------------------------------

    def edit_node(self, nid):
        node = self.doc.nodes.get(nid)
        item = self.scene.node_item(nid)
        if node is None or item is None:
            return
        self.scene.selection.select_node(nid)
        point = self.view.mapFromScene(item.box_rect().bottomLeft())
        self.node_editor.open_for(node, point)

    def apply_edit(self, nid, changes):
        """Push the changed fields of node nid as one step (label, value, param)."""
        commands = []
        if "label" in changes:
            commands.append(SetLabel(nid, changes["label"]))
        if "value" in changes:
            commands.append(SetValue(nid, changes["value"]))
        if "param" in changes:
            commands.append(SetParam(nid, changes["param"]))
        if not commands:
            return False
        command = commands[0] if len(commands) == 1 else Macro(f"Edit {describe(self.doc.nodes[nid])}", commands)
        return self._push(command)[0]

    def set_output(self, nid):
        """nid becomes the output (None: back to the single sink)."""
        if self.doc.output == nid:
            return False
        return self._push(SetOutput(nid))[0]

    # -- deleting -----------------------------------------------------------------------------

    def delete_selection(self):
        edge = self.scene.selection.selected_edge
        if edge is not None:
            self.scene.selection.select_edge(None)
            return self.delete_edge(edge)
        ids = self.scene.selection.edit_selection()
        if not ids:
            self.message.emit("Nothing selected to delete.")
            return False
        return self.delete_nodes(ids)

    def delete_nodes(self, ids):
        ids = [nid for nid in ids if nid in self.doc.nodes]
        if not ids:
            return False
        text = f"Delete {describe(self.doc.nodes[ids[0]])}" if len(ids) == 1 else f"Delete {len(ids)} nodes"
        command = Macro(text, [RemoveNodes(ids), ForgetNodes(self.session.groups, ids)])
        return self._push(command)[0]

    def delete_edge(self, edge):
        return self._push(Disconnect(edge[1], edge[2]))[0]

    # -- clipboard ------------------------------------------------------------------------------

    def fragment(self, ids):
        """copy_fragment plus the groups lying wholly inside ids."""
        fragment = copy_fragment(self.doc, ids)
        chosen = set(ids)
        fragment["groups"] = [g for g in self.session.groups.to_list() if set(g["nodes"]) <= chosen]
        return fragment

    def copy(self):
        ids = self.scene.selection.edit_selection()
        if not ids:
            self.message.emit("Nothing selected to copy.")
            return False
        text = fragment_text(self.fragment(ids))
        mime = QMimeData()
        mime.setData(FRAGMENT_MIME, text.encode("utf-8"))
        mime.setText(text)
        QGuiApplication.clipboard().setMimeData(mime)
        self.message.emit(f"Copied {len(ids)} node{'s' if len(ids) != 1 else ''}.")
        return True

    def cut(self):
        return self.copy() and self.delete_selection()

    def clipboard_fragment(self):
        """The fragment on the clipboard: ours, or micrograd code / a formula as text."""
        mime = QGuiApplication.clipboard().mimeData()
        if mime is None:
            return None, "the clipboard is empty"
        if mime.hasFormat(FRAGMENT_MIME):
            raw = bytes(mime.data(FRAGMENT_MIME))
            fragment = fragment_from_text(raw.decode("utf-8", "replace"))
            if fragment is not None:
                return fragment, ""
        text = mime.text() if mime.hasText() else ""
        if not text.strip():
            return None, "the clipboard holds no graph"
        fragment = fragment_from_text(text)
        if fragment is not None:
            return fragment, ""
        try:
            doc = parse(text)
        except ExprError as e:
            return None, f"the clipboard text is not a graph (line {e.line}, column {e.col}: {e.message})"
        return {
            "nodes": [n.to_dict() for n in doc.nodes.values()],
            "edges": [e.to_dict() for e in doc.edges],
            "groups": [],
        }, ""

    def paste(self, scene_pos=None):
        fragment, why = self.clipboard_fragment()
        if fragment is None:
            self.message.emit(f"Nothing pasted: {why}.")
            return []
        if scene_pos is None:
            scene_pos = self.view.cursor_scene_pos()
        try:
            command = PasteWithGroups(self.session.groups, fragment)
            nodes = list(command.paste.fragment.nodes.values())
            if nodes:  # centre the pasted nodes on the mouse
                cx = sum(n.pos[0] for n in nodes) / len(nodes)
                cy = sum(n.pos[1] for n in nodes) / len(nodes)
                x, y = self.scene.to_doc(scene_pos)
                command.paste.offset = (x - cx, y - cy)
            self._clear_of_nodes(command.paste)
        except (GraphError, KeyError, TypeError, ValueError, AttributeError) as e:
            self.message.emit(f"Nothing pasted: the clipboard's graph is broken ({e}).")
            return []
        return self._push_paste(command)

    def duplicate(self):
        ids = self.scene.selection.edit_selection()
        if not ids:
            self.message.emit("Nothing selected to duplicate.")
            return []
        command = PasteWithGroups(self.session.groups, self.fragment(ids), DUPLICATE_OFFSET)
        command.text = f"Duplicate {command.paste.text[len('Paste ') :]}"
        self._clear_of_nodes(command.paste)
        return self._push_paste(command)

    def _clear_of_nodes(self, paste):
        """Shift a paste on by DUPLICATE_OFFSET while one of its nodes would land on a
        node already there (the mouse still over what was copied; a second paste): a
        copy drawn exactly over its original looks like nothing happened."""
        cell = PASTE_NEAR
        taken = {(round(n.pos[0] / cell), round(n.pos[1] / cell)) for n in self.doc.nodes.values()}
        nodes = list(paste.fragment.nodes.values())
        dx, dy = paste.offset

        def lands_on_one(dx, dy):
            for n in nodes:
                x, y = round((n.pos[0] + dx) / cell), round((n.pos[1] + dy) / cell)
                if any((x + i, y + j) in taken for i in (-1, 0, 1) for j in (-1, 0, 1)):
                    return True
            return False

        for _ in range(len(self.doc.nodes) * len(nodes) + 1):  # a pair of nodes blocks one shift at most
            if not lands_on_one(dx, dy):
                break
            dx, dy = dx + DUPLICATE_OFFSET[0], dy + DUPLICATE_OFFSET[1]
        paste.offset = (dx, dy)

    def _push_paste(self, command):
        ok, _error = self._push(command)
        if not ok:
            return []
        self._select(command.created)
        return list(command.created)

    def select_all(self):
        self.scene.selection.select_ids(self.doc.nodes)

    # -- groups ---------------------------------------------------------------------------------

    def set_collapsed(self, gid, collapsed):
        return self._push(SetCollapsed(self.session.groups, gid, collapsed))[0]

    def ungroup(self, gid):
        return self._push(Ungroup(self.session.groups, gid))[0]

    # -- the right-click menu -------------------------------------------------------------------

    def fill_menu(self, menu, target, pos):
        kind, key = target
        doc = self.doc
        add = menu.addAction
        if kind == "group":
            add("Expand", lambda: self.set_collapsed(key, False))
            add("Ungroup", lambda: self.ungroup(key))
            menu.addSeparator()
            self._selection_entries(menu)
            return
        if kind == "node":
            node = doc.nodes[key]
            add("Edit…", lambda: self.edit_node(key))
            if doc.effective_output() == key and doc.output == key:
                add("Use the Single Sink as Output", lambda: self.set_output(None))
            elif doc.effective_output() != key:
                add("Set as Output", lambda: self.set_output(key))
            if node.kind == "op" and any(s is not None for s in doc.inputs_of(key)):
                add("Disconnect Inputs", lambda: self._disconnect_inputs(key))
            gid = self.session.groups.group_of(key)
            if gid is not None:
                title = self.session.groups.get(gid)["title"]
                add(f"Collapse {title}", lambda: self.set_collapsed(gid, True))
                add(f"Ungroup {title}", lambda: self.ungroup(gid))
            menu.addSeparator()
            self._selection_entries(menu)
            return
        if kind == "edge":
            src, dst, port = key
            add(f"Delete Wire {describe(doc.nodes[src])} → {describe(doc.nodes[dst])}", lambda: self.delete_edge(key))
            insert = menu.addMenu("Insert on Wire")
            for op in ("relu", "tanh", "sigmoid", "exp", "log", "neg", "pow"):
                insert.addAction(op, lambda op=op: self._insert_on(op, key, pos))
            return
        add_menu = menu.addMenu("Add")
        for section in ("Leaves", "Operations", "Blocks"):
            for entry in (e for e in ENTRIES.values() if e.section == section):
                add_menu.addAction(
                    f"{entry.symbol}   {entry.title}", lambda k=entry.key: self.add_entry({"key": k}, pos)
                )
            add_menu.addSeparator()
        add("Paste", lambda: self.paste(pos))
        add("Select All", self.select_all)

    def _selection_entries(self, menu):
        menu.addAction("Copy", self.copy)
        menu.addAction("Duplicate", self.duplicate)
        menu.addAction("Delete", self.delete_selection)

    def _disconnect_inputs(self, nid):
        commands = [Disconnect(nid, p) for p, s in enumerate(self.doc.inputs_of(nid)) if s is not None]
        self._push(Macro(f"Disconnect inputs of {describe(self.doc.nodes[nid])}", commands))

    def _insert_on(self, op, edge, pos):
        node = node_for(op, self.doc, self.scene.to_doc(pos), param=self.options["k"] if op == "pow" else None)
        command = InsertOnEdge(node, edge)
        if self._push(command)[0]:
            self._select([command.node_id])
