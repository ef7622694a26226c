"""Moved: app/graph/node_geometry.py, node_item.py, node_paint.py and edge_item.py.

Kept for the importers not yet updated (app/main_window.py imports node_size).
"""

from app.graph.node_geometry import node_size  # noqa: F401
