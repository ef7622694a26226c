"""Install Backprop Studio into the Linux desktop's application menu.

    python -m app.files.desktop_entry --install     # menu entry + icon, for this user
    python -m app.files.desktop_entry --uninstall   # take them out again
    python -m app.files.desktop_entry --print       # show the entry that would be written

`--install` fills in resources/backprop-studio.desktop and writes it to
$XDG_DATA_HOME/applications/backprop-studio.desktop (~/.local/share/... when
XDG_DATA_HOME is unset). Its Exec runs *this* Python on *this* checkout's
main.py, both as absolute paths, so the entry works from the menu whatever the
current directory or PATH. The icon goes into the user's hicolor theme
(one PNG per size plus the SVG), and the entry names it `backprop-studio`.
Nothing outside the user's data directory is touched and no root is needed;
the desktop's caches are refreshed when their tools are installed.
"""

import argparse
import os
import shutil
import subprocess
import sys

from core.files.atomic import write_atomically
from core.resources import shipped

APP_ID = "backprop-studio"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEMPLATE = shipped(f"{APP_ID}.desktop")
ICONS = shipped("icons")
MAIN = os.path.join(ROOT, "main.py")  # a checkout's; an installed studio runs `python -m backprop_studio`
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256)


def data_home(environ=None):
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_DATA_HOME", "")
    if xdg and os.path.isabs(xdg):
        return xdg
    return os.path.join(env.get("HOME") or os.path.expanduser("~"), ".local", "share")


def entry_path(environ=None):
    return os.path.join(data_home(environ), "applications", f"{APP_ID}.desktop")


def icon_paths(environ=None):
    """{source file: installed path} of the icon in the user's hicolor theme."""
    base = os.path.join(data_home(environ), "icons", "hicolor")
    paths = {
        os.path.join(ICONS, f"{APP_ID}-{n}.png"): os.path.join(base, f"{n}x{n}", "apps", f"{APP_ID}.png")
        for n in PNG_SIZES
    }
    paths[os.path.join(ICONS, f"{APP_ID}.svg")] = os.path.join(base, "scalable", "apps", f"{APP_ID}.svg")
    return paths


def exec_quote(arg):
    """One Exec argument as the Desktop Entry spec wants it: double-quoted when it
    holds a reserved character, with \\ " ` $ escaped inside the quotes, and
    every backslash doubled again because the value is itself an escaped string."""
    reserved = set(" \t\n\"'\\><~|&;$*?#()`")
    if arg and not (set(arg) & reserved) and "%" not in arg:
        return arg
    inner = "".join("\\" + c if c in '"`$\\' else c for c in arg).replace("%", "%%")
    return ('"' + inner + '"').replace("\\", "\\\\")


def render_entry(python=None, main=MAIN):
    """The .desktop text: the template with Exec, TryExec and Icon filled in."""
    python = os.path.abspath(python or sys.executable)
    with open(TEMPLATE, encoding="utf-8") as f:
        text = f.read()
    return (
        text.replace("@EXEC@", f"{exec_quote(python)} {_program(main)}")
        .replace("@TRYEXEC@", python)
        .replace("@ICON@", APP_ID)
    )


def _program(main):
    """What the python runs: the checkout's main.py, or the installed package."""
    if os.path.isfile(main):
        return exec_quote(os.path.abspath(main))
    return "-m backprop_studio"


def install(environ=None, python=None, refresh=True):
    """Write the entry and the icons; returns the paths written."""
    written = []
    for src, dst in icon_paths(environ).items():
        if not os.path.exists(src):
            raise FileNotFoundError(f"{src} is missing: run python resources/icons/render_icons.py")
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(src, dst)
        written.append(dst)
    path = entry_path(environ)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomically(path, render_entry(python))  # the one atomic writer (core/files/atomic.py)
    os.chmod(path, 0o755)  # some desktops only launch entries marked executable
    written.append(path)
    if refresh:
        _refresh(environ)
    return written


def uninstall(environ=None, refresh=True):
    """Remove what `install` wrote; returns the paths removed."""
    removed = []
    for path in [entry_path(environ)] + list(icon_paths(environ).values()):
        if os.path.exists(path):
            os.remove(path)
            removed.append(path)
    if refresh:
        _refresh(environ)
    return removed


def _refresh(environ):
    """Tell the desktop about the change, where its tools exist (never fatal)."""
    home = data_home(environ)
    for cmd in (
        ["update-desktop-database", os.path.join(home, "applications")],
        ["gtk-update-icon-cache", "-f", "-t", os.path.join(home, "icons", "hicolor")],
    ):
        if shutil.which(cmd[0]) and os.path.isdir(cmd[-1]):
            try:
                subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20, check=False)
            except (OSError, subprocess.SubprocessError):
                pass


def app_icon():
    """The window icon: every rendered size, so each place gets a crisp one."""
    from PySide6.QtGui import QIcon

    icon = QIcon()
    for n in PNG_SIZES:
        path = os.path.join(ICONS, f"{APP_ID}-{n}.png")
        if os.path.exists(path):
            icon.addFile(path)
    return icon


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m app.files.desktop_entry", description="Add Backprop Studio to the desktop's application menu."
    )
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--install", action="store_true", help="write the menu entry and the icon")
    group.add_argument("--uninstall", action="store_true", help="remove them")
    group.add_argument("--print", action="store_true", help="print the entry without writing it")
    args = parser.parse_args(argv)
    if args.print:
        sys.stdout.write(render_entry())
        return 0
    if args.install:
        paths = install()
        print(
            f"Installed {paths[-1]}\n  runs: {sys.executable} {_program(MAIN)}\n  icon: {len(paths) - 1} files "
            f"in {os.path.join(data_home(), 'icons', 'hicolor')}"
        )
        return 0
    removed = uninstall()
    print("Removed:\n  " + "\n  ".join(removed) if removed else "Nothing to remove.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
