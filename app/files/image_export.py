"""Export the graph as a picture: PNG (pixels) or SVG (vectors, text stays text).

The picture is the whole graph, as the canvas draws it, without the selection
halo (a figure, not a screen). A graph still being built in slices is
finished first. A large graph's PNG is scaled down to at most EXPORT_MAX_SIDE
pixels a side and EXPORT_MAX_PIXELS in all.

Each function takes the window's `Services` (app/services.py: `window.services()`): the
scene, the session, the theme and the status bar are all a picture needs.
"""

import os

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QApplication

from app.files import dialogs

EXPORT_MAX_SIDE = 12000  # pixels; a 5,000-node graph is exported scaled down to fit
EXPORT_MAX_PIXELS = 40_000_000  # and to at most this many pixels (160 MB of RGBA)


def _export_source(services):
    services.scene.finish_build()  # a picture of the whole graph, not of the part drawn yet
    rect = services.scene.items_rect()
    return rect.adjusted(-30, -30, 30, 30)


def _render(services, painter, target, source, vector=False):
    """scene.render without the selection halo (a figure, not a screen), with a
    busy cursor; for SVG, items paint themselves instead of their pixmap caches."""
    scene = services.scene
    selected = scene.selection.selected_ids()
    items = list(scene.node_items().values()) if vector else []
    modes = [item.cacheMode() for item in items]
    QApplication.setOverrideCursor(Qt.WaitCursor)
    scene.blockSignals(True)  # a passing deselect is not a change of the current node
    try:
        scene.clearSelection()
        for item in items:
            item.setCacheMode(item.CacheMode.NoCache)
        scene.render(painter, target, source)
    finally:
        for item, mode in zip(items, modes):
            item.setCacheMode(mode)
        for nid in selected:
            scene.node_item(nid).setSelected(True)
        scene.blockSignals(False)
        QApplication.restoreOverrideCursor()


def export_png(services, path, scale=2.0):
    """The whole graph as a PNG (at `scale`, capped to EXPORT_MAX_SIDE pixels)."""
    source = _export_source(services)
    if source.isEmpty():
        services.say("Nothing to export: the graph is empty.")
        return False
    scale = min(
        scale,
        EXPORT_MAX_SIDE / max(source.width(), source.height()),
        (EXPORT_MAX_PIXELS / (source.width() * source.height())) ** 0.5,
    )
    size = QSize(max(1, round(source.width() * scale)), max(1, round(source.height() * scale)))
    image = QImage(size, QImage.Format_ARGB32_Premultiplied)
    image.fill(services.theme().color("background"))
    painter = QPainter(image)
    painter.setRenderHints(QPainter.Antialiasing | QPainter.TextAntialiasing)
    try:
        _render(services, painter, QRectF(0, 0, size.width(), size.height()), source)
    finally:
        painter.end()
    ok = image.save(str(path), "PNG")
    services.say(f"Exported {path}" if ok else f"Could not write {path}")
    return ok


def export_svg(services, path):
    """The whole graph as SVG (text stays text, so labels can be searched)."""
    from PySide6.QtSvg import QSvgGenerator

    source = _export_source(services)
    if source.isEmpty():
        services.say("Nothing to export: the graph is empty.")
        return False
    gen = QSvgGenerator()
    gen.setFileName(str(path))
    gen.setSize(QSize(round(source.width()), round(source.height())))
    gen.setViewBox(QRectF(0, 0, source.width(), source.height()))
    gen.setTitle("Backprop Studio graph")
    gen.setDescription(f"{len(services.session.doc.nodes)} nodes")
    painter = QPainter()
    if not painter.begin(gen):
        services.say(f"Could not write {path}")
        return False
    painter.fillRect(QRectF(0, 0, source.width(), source.height()), services.theme().color("background"))
    try:
        _render(services, painter, QRectF(0, 0, source.width(), source.height()), source, vector=True)
    finally:
        painter.end()
    services.say(f"Exported {path}")
    return os.path.exists(str(path))


def export_dialog(services, kind):
    filters = {"png": "PNG image (*.png)", "svg": "SVG drawing (*.svg)"}
    path = dialogs.ask_save_path(services.parent, f"Export {kind.upper()}", f"graph.{kind}", filters[kind])
    if path:
        return (export_png if kind == "png" else export_svg)(services, path)
    return False
