"""Is there a screen to open a window on? Asked before Qt is: without one, Qt aborts Python.

On Linux, `QApplication()` with no X server or Wayland compositor to talk to
prints "could not connect to display" and calls abort(): the process dies with
SIGABRT, and no `try` in the learner's script or notebook can catch it. So the
studio looks first -- at QT_QPA_PLATFORM, DISPLAY, WAYLAND_DISPLAY and their
sockets -- and raises `NoDisplay`, a Python error that says what to do instead.
This module imports no Qt, so the question is cheap and safe to ask anywhere.
"""

from __future__ import annotations

import os
import sys

# Qt platforms that need no screen (tests, servers) or bring their own (a framebuffer, VNC)
HEADLESS_PLATFORMS = {"offscreen", "minimal", "minimalegl", "vnc", "eglfs", "linuxfb", "vkkhrdisplay"}


class NoDisplay(RuntimeError):
    """There is no display for the studio's window (raised instead of Qt's abort)."""


def display_problem(environ: dict[str, str] | None = None, platform: str | None = None) -> str | None:
    """None when Qt can open a window here; otherwise why not, in a sentence."""
    env = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    wanted = env.get("QT_QPA_PLATFORM", "").split(":")[0].split(";")[0].strip().lower()
    if wanted in HEADLESS_PLATFORMS:
        return None
    if not wanted and (platform.startswith("win") or platform == "darwin"):
        return None  # Windows and macOS always have their window system
    if wanted in ("windows", "cocoa", "direct2d"):
        return None
    wayland = _wayland_ok(env)
    x11 = _x11_ok(env)
    if wanted.startswith("wayland"):
        return None if wayland else "QT_QPA_PLATFORM asks for Wayland, and no Wayland display is reachable"
    if wanted == "xcb":
        return None if x11 else "QT_QPA_PLATFORM asks for X11 (xcb), and no X display is reachable"
    if wanted:
        return None  # a platform we do not know: Qt decides
    if x11 or wayland:
        return None
    if env.get("DISPLAY"):
        return f"DISPLAY is {env['DISPLAY']!r}, and no X server listens there"
    return "this process has no display (neither DISPLAY nor WAYLAND_DISPLAY is set)"


def _x11_ok(env: os._Environ[str] | dict[str, str]) -> bool:
    display = env.get("DISPLAY", "")
    if not display:
        return False
    host, _, rest = display.rpartition(":")
    if host not in ("", "unix"):
        return True  # a remote X server (ssh -X, host:0): only connecting would tell
    number = rest.split(".")[0]
    return not number.isdigit() or os.path.exists(f"/tmp/.X11-unix/X{number}")


def _wayland_ok(env: os._Environ[str] | dict[str, str]) -> bool:
    name = env.get("WAYLAND_DISPLAY", "")
    if not name:
        return False
    if os.path.isabs(name):
        return os.path.exists(name)
    runtime = env.get("XDG_RUNTIME_DIR", "")
    return not runtime or os.path.exists(os.path.join(runtime, name))


def no_display_error(problem: str, in_kernel: bool = False) -> NoDisplay:
    """The error to raise, with what to do instead of a window."""
    if in_kernel:
        instead = (
            "In a notebook without a display (Colab, JupyterHub, a server) the graph is drawn inline: "
            "show(value) without window=True, or stepper(value) to step the backward pass. "
            "Do not run %gui qt there: Qt would abort the kernel."
        )
    else:
        instead = (
            "Instead: draw(value).save('graph.svg') writes the picture, stepper(value).save('steps.html') a page "
            "that steps the backward pass in any browser; or run with QT_QPA_PLATFORM=offscreen to render off screen."
        )
    return NoDisplay(f"The studio's window needs a display: {problem}. {instead}")


def require_display(in_kernel: bool = False) -> None:
    """Raise NoDisplay (a Python error, not Qt's abort) when no window can open here."""
    problem = display_problem()
    if problem is not None:
        raise no_display_error(problem, in_kernel)
