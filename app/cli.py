"""The command line, without Qt: what `backprop-studio` does before (or instead of) a window.

The core install (`pip install backprop-studio`, no [app] extra) has no Qt: a notebook or a
grading machine. There `backprop-studio --check-engine FILE` still grades, `--copy-notebook`
still copies the tutorial out, and asking for the window says how to get Qt -- instead of an
ImportError's traceback. With Qt, everything else goes on to app/startup.py. The command
line itself is app/arguments.py, which both read.
"""

from __future__ import annotations

import sys

from app.arguments import copy_notebook, parse_args


def main(argv: list[str] | None = None) -> int:
    """The console script `backprop-studio` (and `python -m backprop_studio`)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] not in (["--tour"], ["--export-slides"]):  # those two have command lines of their own (startup)
        args = parse_args(argv)
        if args.copy_notebook is not None:
            return copy_notebook(args.copy_notebook)
        if args.check_engine:  # no window: a report for people or autograders, no Qt needed
            from app.foreign.cli import check_engines

            return check_engines(args)
    try:
        from app import startup
    except ImportError as e:  # the core install: no Qt
        print(
            f"backprop-studio: the desktop app needs Qt, which this install lacks ({e}). "
            "Install it with: pip install 'backprop-studio[app]'. Without it: backprop-studio --check-engine FILE, "
            "backprop-studio --copy-notebook, and in Python or a notebook: from backprop_studio import draw, stepper.",
            file=sys.stderr,
        )
        return 2
    return startup.main(argv)
