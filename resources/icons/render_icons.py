"""Render backprop-studio.svg to PNGs (16..256 px) next to it, with QSvgRenderer.

    python resources/icons/render_icons.py

Run it again after editing the SVG; the PNGs are checked in so that the app
and the desktop entry never need QtSvg to draw the icon.
"""

import os
import sys

SIZES = (16, 24, 32, 48, 64, 128, 256)
HERE = os.path.dirname(os.path.abspath(__file__))
SVG = os.path.join(HERE, "backprop-studio.svg")


def png_path(size):
    return os.path.join(HERE, f"backprop-studio-{size}.png")


def render(sizes=SIZES):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(SVG)
    if not renderer.isValid():
        raise SystemExit(f"{SVG} is not a valid SVG")
    written = []
    for size in sizes:
        image = QImage(size, size, QImage.Format_ARGB32_Premultiplied)
        image.fill(Qt.transparent)
        painter = QPainter(image)
        painter.setRenderHints(QPainter.Antialiasing | QPainter.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        if not image.save(png_path(size), "PNG"):
            raise SystemExit(f"could not write {png_path(size)}")
        written.append(png_path(size))
    del app
    return written


if __name__ == "__main__":
    for path in render():
        print(path)
