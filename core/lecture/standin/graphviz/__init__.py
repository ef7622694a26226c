"""A `graphviz.Digraph` that draws nothing, for the lecture-code runner's child:
the lecture's `draw_dot` cell (`from graphviz import Digraph`) runs as written,
and the studio draws the graph on its canvas instead."""

__all__ = ["Digraph", "Graph"]


class Digraph:
    """Accepts what draw_dot asks of it (node, edge, attr ...) and keeps nothing."""

    def __init__(self, *args, **kwargs):
        pass

    def node(self, *args, **kwargs):
        return None

    def edge(self, *args, **kwargs):
        return None

    def attr(self, *args, **kwargs):
        return None

    def render(self, *args, **kwargs):
        return None

    def __repr__(self):
        return "<graphviz stand-in: the studio draws the graph on its canvas>"


Graph = Digraph
