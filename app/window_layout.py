"""The window's panels, arranged: where the docks go first and how large they start.

`DockLayout` decides it for one window (`window.dock_layout`); the window only asks
it: `place()` once the docks exist, `arrange()` when the window is first shown,
unless the user's own arrangement was restored from the last run (`keep()`).
Presenter mode's arrangement is app/lessons/presenter_layout.py.
"""

from typing import Any

from PySide6.QtCore import Qt

NARROW_WINDOW = 1600  # pixels: a narrower window puts the inspector with the editor (place)


class DockLayout:
    """The first arrangement of one window's docks."""

    def __init__(self, window: Any) -> None:
        self.window = window  # the MainWindow: its docks, its size
        self.arranged = False  # True once the panels have their first (or the saved) arrangement

    def keep(self) -> None:
        """The user's own arrangement was restored (app/files/window_state.py): keep it."""
        self.arranged = True

    def place(self) -> None:
        """The first arrangement of the panels (a saved one is restored over it). The
        canvas is the main thing on screen: in a window narrower than NARROW_WINDOW
        pixels the inspector and history join the editor's column as tabs, so the
        canvas gets the width to show a dozen nodes at a legible size."""
        window = self.window
        if window.width() < NARROW_WINDOW:
            for key in ("inspector", "history"):
                if key in window.docks:
                    window.tabifyDockWidget(window.docks["editor"], window.docks[key])
            window.docks["editor"].raise_()

    def arrange(self) -> None:
        """The panels' first sizes: the side columns what they need to be read, the
        debugger (idle at first) about a quarter of the height, the canvas the rest."""
        window = self.window
        self.arranged = True
        side = 280 if window.width() <= 1440 else 320
        sides = [window.docks["editor"]]
        if not window.tabifiedDockWidgets(window.docks["editor"]).count(window.docks["inspector"]):
            sides.append(window.docks["inspector"])
        window.resizeDocks(sides, [side] * len(sides), Qt.Orientation.Horizontal)
        if "debugger" in window.docks:
            height = max(170, window.height() * 27 // 100)
            window.resizeDocks([window.docks["debugger"]], [height], Qt.Orientation.Vertical)
