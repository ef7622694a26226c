"""Where the files the studio ships are: lessons, examples, engines, icons.

In a checkout they sit in `resources/` beside `core/`. An installed studio (a
wheel, `pip install .`, pipx) has no checkout around it: there `resources/` is
the package `backprop_studio` (pyproject.toml maps it so), and its files are
package data found through importlib.resources, wherever site-packages is.

    shipped("lessons")                     # the folder of lesson files
    shipped("examples", "tutorial.json")   # one file
"""

from __future__ import annotations

import importlib.resources
import os
import pathlib

PACKAGE = "backprop_studio"  # the installed name of resources/ (pyproject.toml: [tool.setuptools.package-dir])
CHECKOUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "resources")


def root() -> str:
    """The folder that holds lessons/, examples/, engines/ and icons/.

    The checkout's own resources/ first, so a worktree never reads another
    install's files; else the installed package's data. A wheel is always
    unpacked on disk, so the folder is a real path the loaders can list."""
    if os.path.isfile(os.path.join(CHECKOUT, "__init__.py")) and os.path.isdir(os.path.join(CHECKOUT, "lessons")):
        return CHECKOUT
    try:
        folder = importlib.resources.files(PACKAGE)
    except ModuleNotFoundError:
        return CHECKOUT  # the callers then say which file is missing, with this path
    return str(folder) if isinstance(folder, pathlib.Path) else CHECKOUT  # not a folder on disk: a zipped install


def shipped(*parts: str) -> str:
    """The path of a shipped file or folder: shipped("examples", "tutorial.json")."""
    return os.path.join(root(), *parts)


def copy_tutorial(folder: str = ".") -> str:
    """Copy the tutorial notebook out of an installed studio into `folder`; returns the copy's path.
    Never over a file already there (FileExistsError names it). `backprop-studio --copy-notebook`."""
    source = shipped("notebooks", "backprop_tutorial.ipynb")
    target = os.path.join(folder, os.path.basename(source))
    with open(source, "rb") as f:
        payload = f.read()
    try:
        with open(target, "xb") as f:  # exclusive: a learner's edited copy is never overwritten
            f.write(payload)
    except FileExistsError:
        raise FileExistsError(f"{target} is already there (yours is kept): copy into another folder") from None
    return os.path.abspath(target)
