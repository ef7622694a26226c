"""Where the app keeps its own state: one QSettings store and one data folder.

UI choices (theme, presenter scale, recent files, lesson progress, "don't show
the welcome again") go to `settings()`, never into graph files. Autosaves go
under `data_dir()`. Setting BACKPROP_STUDIO_DATA_DIR moves both into that
folder (an ini file there instead of the platform's store): tests and a
portable install use it so they never touch the user's own settings.
"""

import os

from PySide6.QtCore import QSettings, QStandardPaths

ENV_DIR = "BACKPROP_STUDIO_DATA_DIR"


def data_dir() -> str:
    """Where Backprop Studio keeps its own files (recovery, settings in tests)."""
    path = os.environ.get(ENV_DIR) or QStandardPaths.writableLocation(QStandardPaths.AppDataLocation)
    return path or os.path.join(os.path.expanduser("~"), ".backprop-studio")


def settings() -> QSettings:
    """The app's QSettings (an ini file in BACKPROP_STUDIO_DATA_DIR when that is set)."""
    if os.environ.get(ENV_DIR):
        return QSettings(os.path.join(data_dir(), "settings.ini"), QSettings.IniFormat)
    return QSettings("Backprop Studio", "Backprop Studio")
