"""The command line of `backprop-studio` and `python main.py`, without Qt: the parser and
the one answer that needs nothing else (`--copy-notebook`).

Read by app/cli.py (the Qt-free entry point) and app/startup.py (the window's); it
imports neither, so the two never import each other in a circle.
"""

from __future__ import annotations

import argparse
import os
import sys


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line of `backprop-studio` and `python main.py`."""
    parser = argparse.ArgumentParser(
        prog="backprop-studio",
        description="Backprop Studio",
        epilog="Also: backprop-studio --tour OUTDIR [...] (the course, a picture a view) and "
        "backprop-studio --export-slides [GRAPH.json] OUT.pdf [--lesson ID] [...]; each with --help.",
    )
    parser.add_argument("file", nargs="?", help="a saved graph (.json) to open")
    parser.add_argument("--screenshot", metavar="OUT.png", help="render the window to a PNG offscreen and exit")
    parser.add_argument(
        "--size", default="1440x880", metavar="WxH", help="window size for --screenshot (default 1440x880)"
    )
    parser.add_argument("--dark", action="store_true", help="start with the dark theme")
    parser.add_argument(
        "--theme",
        choices=("light", "dark", "high-contrast"),
        help="start with this theme (default: the last one chosen)",
    )
    parser.add_argument(
        "--presenter",
        metavar="SCALE",
        type=float,
        nargs="?",
        const=2.0,
        help="start in presenter mode, everything SCALE times as large (1-3, default 2)",
    )
    parser.add_argument("--lesson", metavar="ID", help="open this lesson (e.g. chain-rule)")
    parser.add_argument("--step", metavar="K", type=int, default=1, help="with --lesson: start at step K (1-based)")
    parser.add_argument("--no-welcome", action="store_true", help="do not show the welcome page")
    parser.add_argument(
        "--run-python",
        metavar="CODE.py",
        help="put this code in the editor and run it as Python (Run as Python: a child process), e.g. a lecture cell",
    )
    parser.add_argument(
        "--debug-steps", metavar="N|end", help="open the debugger and run N backward steps (0: just reset; end: all)"
    )
    parser.add_argument(
        "--forward-steps", metavar="N", type=int, help="open the debugger and compute N nodes of the forward pass"
    )
    parser.add_argument(
        "--workspace", choices=("graph", "training"), default="graph", help="start in this workspace (default: graph)"
    )
    parser.add_argument(
        "--train-preset", metavar="NAME", help="a training preset, by its name or first words (e.g. spiral)"
    )
    parser.add_argument(
        "--train-layers",
        metavar="N",
        type=int,
        help="that many hidden layers, added or removed as the + and - buttons do",
    )
    parser.add_argument(
        "--train-steps", metavar="N", type=int, help="press Play in the Training panel; it pauses after N steps"
    )
    parser.add_argument(
        "--check-engine",
        metavar="FILE_OR_FOLDER",
        nargs="+",
        help="check your own Value class's gradients (run in a separate process); "
        "exit 0 right, 1 wrong gradient, 2 file unusable, 3 your code raised, 4 could not check. "
        "A folder (or several files): every .py in it, a table and a histogram of first faults "
        "(exit 0 when each could be checked, 2 when the folder cannot be read)",
    )
    parser.add_argument("--json", action="store_true", help="with --check-engine: the report as JSON")
    parser.add_argument("--csv", metavar="OUT.csv", help="with --check-engine on a folder: the table for a gradebook")
    parser.add_argument(
        "--hints", metavar="N", type=int, default=0, help="with --check-engine: the first N of 4 hints for each fault"
    )
    parser.add_argument(
        "--jobs",
        metavar="N",
        type=int,
        default=0,
        help="with --check-engine on a folder: checks at once (default: cores)",
    )
    parser.add_argument(
        "--debug-engine",
        metavar="FILE.py",
        help="open the studio, check your own Value class (in a separate process) and step its backward "
        "pass in the debugger, stopped at the first wrong gradient",
    )
    parser.add_argument(
        "--expr",
        metavar="EXPRESSION",
        help="with --check-engine or --debug-engine: also check this expression (the studio's syntax, "
        "e.g. 'x*y + y**2'), "
        "built with your class",
    )
    parser.add_argument(
        "--copy-notebook",
        nargs="?",
        const=".",
        metavar="FOLDER",
        help="copy the tutorial notebook (backprop_tutorial.ipynb) into FOLDER (default: here) and exit; "
        "never over a file of that name",
    )
    parser.add_argument(
        "--check-lesson",
        metavar="FILE.json",
        help="run a lesson file headless and list each claim, placeholder or question the engine "
        "contradicts, with its line and step (exit 0: all agree, 1: problems, 2: the file is refused)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="with --check-engine: draw the test points from this seed (default: new points every run)",
    )
    parser.add_argument(
        "--gradescope",
        metavar="OUT.json",
        help="with --check-engine: write Gradescope's results.json for this one submission "
        "(a file, or its folder: the .py that checks best)",
    )
    parser.add_argument(
        "--prairielearn", metavar="OUT.json", help="with --check-engine: write PrairieLearn's results.json"
    )
    parser.add_argument(
        "--make-autograder",
        metavar="OUT.zip",
        help="write a Gradescope autograder bundle (setup.sh, run_autograder, the studio's checker) and exit",
    )
    args = parser.parse_args(argv)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        parser.error(f"--size must look like 1440x880, not {args.size!r}")
    args.size = (w, h)
    return args


def copy_notebook(folder: str) -> int:
    """Copy the shipped tutorial notebook into `folder`; exit code 0, or 2 saying why not."""
    from core.resources import copy_tutorial

    try:
        path = copy_tutorial(folder)
    except OSError as e:
        print(f"backprop-studio: the notebook was not copied: {e}", file=sys.stderr)
        return 2
    print(f"Copied the tutorial notebook to {path}: open it with jupyter lab {os.path.basename(path)}")
    return 0
