"""Graph menu: light up what feeds the selected node, what it affects, and the
inputs the output ignores; the graph's shape in the status bar.

The questions are answered by core/document/analysis.py (networkx on the
document's graph); this module only turns the answers into a glow on the canvas
(`scene.marks.set_highlight`, the same glow lessons use) and a sentence in the status
bar, naming nodes as the canvas does (core/document/names.py). The glow is
taken off at the next change of the graph's structure, whose answer it no
longer is.
"""

from core.document.analysis import ancestors, descendants, summary, unused_inputs
from core.document.graph import GraphError
from core.document.names import node_names

SHAPE_TIP = (
    "depth: the most wires on one path · widest layer: the most nodes that could compute "
    "at the same time · fan-out: the most wires leaving one node"
)
STRUCTURE_EVENTS = ("node_added", "node_removed", "edge_added", "edge_removed", "output_changed", "reset")

SUMMARY_MAX_NODES = 2000  # above this the status bar shows counts only (the summary is ~80 ms at 5k)


class ReachActions:
    """The menu actions and the status text; one per window."""

    def __init__(self, services):
        self.services = services  # app/services.py: the session, the canvas, the menus, the status bar
        self.lit = False  # our glow is on
        services.session.doc.changed.connect(self._doc_changed)

    def install(self):
        a = self.services.add_action
        self.services.menu("Graph").addSeparator()
        a(
            "Graph",
            "Highlight What &Feeds It",
            self.show_ancestors,
            key="highlight ancestors",
            tip="Light up every node the selected node's value depends on",
        )
        a(
            "Graph",
            "Highlight What It A&ffects",
            self.show_descendants,
            key="highlight descendants",
            tip="Light up every node whose value depends on the selected node",
        )
        a(
            "Graph",
            "Inputs the Output &Ignores",
            self.show_unused_inputs,
            key="unused inputs",
            tip="Light up the inputs the output does not depend on (their grad stays 0)",
        )
        a(
            "Graph",
            "Clear Hi&ghlight",
            self.clear,
            key="clear highlight",
            tip="Turn the highlight off: every node drawn plainly again",
        )

    # -- names and the status bar ---------------------------------------------

    def names(self):
        # core keeps them per version of the document, labels included (a cache keyed by
        # the revision alone kept a node's old name after a relabel)
        return node_names(self.services.session.doc)

    def shape_text(self):
        """'depth 4 · widest layer 5 · fan-out 3 (w)' for the status bar, or ''."""
        doc = self.services.session.doc
        if not doc.nodes or len(doc.nodes) > SUMMARY_MAX_NODES:
            return ""  # layering 5,000 nodes takes ~80 ms: too long for each edit's status update
        shape = summary(doc)
        # the busiest node by its label only: naming every node by formula costs
        # 0.2 s on a 5,000-node graph, too much for each edit's status update
        label = doc.nodes[shape.fan_out_id].label if shape.fan_out_id is not None else ""
        return shape.shape_text({shape.fan_out_id: label} if label else None)

    # -- the actions ----------------------------------------------------------

    def _selected(self):
        nid = self.services.session.current_id
        if nid is None or nid not in self.services.session.doc.nodes:
            self.services.say("Select a node first.")
            return None
        return nid

    def show_ancestors(self):
        """Glow on the selected node and all that feeds it; returns their ids."""
        nid = self._selected()
        if nid is None:
            return None
        found = ancestors(self.services.session.doc, nid)
        self._light([nid] + found)
        name = self.names()[nid]
        inputs = sum(1 for v in found if self.services.session.doc.nodes[v].kind == "input")
        self.services.say(f"{_count(len(found), 'node')} feed {name} ({_count(inputs, 'input')}).")
        return found

    def show_descendants(self):
        """Glow on the selected node and all it affects; returns their ids."""
        nid = self._selected()
        if nid is None:
            return None
        found = descendants(self.services.session.doc, nid)
        self._light([nid] + found)
        self.services.say(f"{self.names()[nid]} affects {_count(len(found), 'node')}.")
        return found

    def show_unused_inputs(self):
        """Glow on the inputs the output does not depend on; returns their ids."""
        doc = self.services.session.doc
        try:
            found = unused_inputs(doc)
        except GraphError as e:
            self.services.say(f"No answer: {e}.")
            return None
        self._light(found)
        out = self.names()[doc.effective_output()]
        if found:
            listed = ", ".join(self.names()[v] for v in found[:8]) + (", …" if len(found) > 8 else "")
            self.services.say(f"{out} does not depend on {_count(len(found), 'input')}: {listed} (their grad stays 0).")
        else:
            self.services.say(f"{out} depends on every input.")
        return found

    def clear(self):
        self.services.scene.marks.set_highlight(())
        self.lit = False

    def _light(self, nodes):
        inside = set(nodes)
        wires = [e for e in self.services.session.doc.edges if e.src in inside and e.dst in inside]
        self.services.scene.marks.set_highlight(nodes, wires)
        self.lit = True

    def _doc_changed(self, event, *_details):
        if self.lit and event in STRUCTURE_EVENTS:
            self.clear()


def _count(k, word):
    return f"{k:,} {word}" + ("" if k == 1 else "s")
