"""Before Qt opens a window on Linux: are the system libraries its xcb plugin needs there?

PySide6's wheel brings Qt, not the X11 libraries Qt's xcb platform plugin loads
(libxcb-cursor, libxcb-icccm, libxcb-keysyms ... a plain Debian 12 lacks some). When
one is missing, Qt aborts with "Could not load the Qt platform plugin "xcb"" and
blames whichever library it tried first -- not always the missing one. So before
the QApplication is made, the plugin itself is asked: `ldd` lists what
`libqxcb.so` and the `libQt6XcbQpa` library it loads need, and says "not found"
for each missing one. Those, and the Debian/Ubuntu packages that hold them, are
what a failed start names -- read from the plugin, never guessed.

The package of a library follows Debian's naming of shared-library packages:
the soname without ".so.", lower-cased, a "-" before the version when the name
ends in a digit (libxcb-icccm.so.4 -> libxcb-icccm4, libxkbcommon-x11.so.0 ->
libxkbcommon-x11-0). No Qt here: this runs before Qt is loaded.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

_NOT_FOUND = re.compile(r"^\s*(\S+)\s*=>\s*not found", re.MULTILINE)


def xcb_plugin_files() -> list[str]:
    """The xcb platform plugin of the PySide6 that would be imported, and the Qt library it loads."""
    import importlib.util

    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return []
    qt = os.path.join(list(spec.submodule_search_locations)[0], "Qt")
    files = [os.path.join(qt, "plugins", "platforms", "libqxcb.so")]
    lib = os.path.join(qt, "lib")
    if os.path.isdir(lib):
        files += sorted(os.path.join(lib, f) for f in os.listdir(lib) if f.startswith("libQt6XcbQpa.so"))[:1]
    return [f for f in files if os.path.isfile(f)]


def not_found(ldd_output: str) -> list[str]:
    """The libraries `ldd` says are not found, each once, in its order."""
    return list(dict.fromkeys(_NOT_FOUND.findall(ldd_output)))


def debian_package(soname: str) -> str:
    """libxcb-icccm.so.4 -> libxcb-icccm4; libxkbcommon-x11.so.0 -> libxkbcommon-x11-0; libGL.so.1 -> libgl1."""
    name, _, version = soname.partition(".so")
    version = version.lstrip(".").split(".")[0]
    name = name.lower()
    return f"{name}-{version}" if name[-1:].isdigit() and version else f"{name}{version}"


def missing_for_xcb() -> list[str]:
    """The system libraries the xcb plugin needs that are not installed ([] if none, or if
    it cannot be told: no ldd, no plugin)."""
    ldd = shutil.which("ldd")
    if ldd is None:
        return []
    found: list[str] = []
    for path in xcb_plugin_files():
        try:
            out = subprocess.run([ldd, path], capture_output=True, text=True, timeout=20).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        found += not_found(out)
    return list(dict.fromkeys(found))


def will_use_xcb(environ=os.environ) -> bool:
    """True when Qt will try the xcb plugin: Linux, an X display, no other platform asked for."""
    if not sys.platform.startswith("linux"):
        return False
    platform = environ.get("QT_QPA_PLATFORM", "")
    if platform:
        return platform.split(":")[0].split(";")[0] == "xcb"
    return bool(environ.get("DISPLAY")) and not environ.get("WAYLAND_DISPLAY")


def message(missing: list[str]) -> str:
    packages = " ".join(dict.fromkeys(debian_package(lib) for lib in missing))
    return (
        "Backprop Studio cannot open its window: Qt's xcb platform plugin needs system libraries "
        f"that are not installed: {', '.join(missing)} (read with ldd from the plugin).\n"
        f"On Debian or Ubuntu:  sudo apt-get install {packages}\n"
        "(Without a display, QT_QPA_PLATFORM=offscreen runs it headless, e.g. for --screenshot.)"
    )


def check() -> str | None:
    """The message for a start that would fail for want of system libraries, else None."""
    if not will_use_xcb():
        return None
    missing = missing_for_xcb()
    return message(missing) if missing else None
