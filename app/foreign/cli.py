"""`--check-engine`: one engine's report, or a class's table, printed; no window.

One file prints its report (text or --json) and exits with its category. A
folder, or several files, prints a progress line per file as its check ends,
then the table and the histogram of first faults (core/foreign/batch.py), and
writes --csv for a gradebook; it exits 0 when every file could be read and
checked, whatever their verdicts, and 2 when the folder cannot be read. Ctrl+C
stops every check at once, prints and writes (--csv too) the rows done, and
exits 130.

For the platforms teachers grade on: `--gradescope OUT.json` and
`--prairielearn OUT.json` write the results file of one submission (a file, or
the folder of one submission: its .py that checks best); `--make-autograder
OUT.zip` writes a Gradescope autograder bundle (core/foreign/platforms.py).
Where learner code cannot run in a box, a note on stderr says so once.
"""

from __future__ import annotations

import json
import os
import sys
from argparse import Namespace

from core import sandbox
from core.files.atomic import write_atomically
from core.foreign import batch, hints, platforms
from core.foreign.report import UNUSABLE, exit_code, to_json, to_text
from core.foreign.runner import check_file

STOPPED = 130  # the shell's code for a run ended by Ctrl+C


def say(text: str) -> None:
    """Print to stdout; a reader that stopped reading (`| head`) is not an error: the
    rest goes nowhere, and the run still writes --csv and exits with its category."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's own flush at exit must not fail again
        os.close(devnull)


def make_autograder(out: str) -> int:
    """--make-autograder OUT.zip: Gradescope's bundle (setup.sh, run_autograder, the studio's core)."""
    try:
        platforms.autograder_zip(out)
    except OSError as e:
        print(f"Could not write {out}: {e.strerror or e}", file=sys.stderr)
        return UNUSABLE
    say(f"Wrote {out}: upload it as the assignment's autograder on Gradescope (setup.sh installs the studio's core).")
    return 0


def _platform_results(args: Namespace, paths: list[str]) -> int:
    """--gradescope / --prairielearn: one submission's results file."""
    report = platforms.best_report(paths, lambda path: check_file(path, expression=args.expr))
    for out, make in ((args.gradescope, platforms.gradescope), (args.prairielearn, platforms.prairielearn)):
        if out:
            try:
                write_atomically(out, json.dumps(make(report), indent=2, allow_nan=False))
            except OSError as e:
                print(f"Could not write {out}: {e.strerror}", file=sys.stderr)
                return UNUSABLE
    say(batch.printable(to_text(report) if report.get("file") else report.get("message", ""), lines=True))
    return exit_code(report)


def check_engines(args: Namespace) -> int:
    paths = list(args.check_engine)
    sandbox.say_once()
    if getattr(args, "gradescope", None) or getattr(args, "prairielearn", None):
        return _platform_results(args, paths)
    if len(paths) == 1 and (not os.path.isdir(paths[0]) or batch.is_package_engine(paths[0])):
        report = check_file(paths[0], expression=args.expr, seed=getattr(args, "seed", None) or -1)
        rungs = hints.climb(report["fault"], args.hints) if args.hints and report.get("fault") else []
        if args.json:
            say(to_json({**report, "hints": rungs} if rungs else report))
        else:
            say(batch.printable(to_text(report), lines=True))
            for i, hint in enumerate(rungs, 1):
                say(f"Hint {i}: {batch.printable(hint)}")
        return exit_code(report)
    try:
        files = batch.files_of(paths)
    except batch.FolderError as e:
        print(f"Cannot check the class: {e}", file=sys.stderr)
        return UNUSABLE

    def progress(done: int, total: int, row: dict) -> None:
        name = batch.printable(batch.name_of(row["file"]))
        print(f"[{done}/{total}] {name}: {batch.printable(row['category'])}", file=sys.stderr, flush=True)

    code = 0
    try:
        rows = batch.check_many(files, jobs=args.jobs or None, progress=progress)
    except batch.Stopped as stopped:
        rows, code = stopped.rows, STOPPED
        print(f"Stopped: {len(rows)} of {stopped.total} submissions were checked.", file=sys.stderr, flush=True)
    say(batch.to_json(rows, args.hints) if args.json else batch.to_text(rows, args.hints))
    if args.csv:
        try:
            write_atomically(args.csv, batch.to_csv(rows))
        except OSError as e:
            print(f"Could not write {args.csv}: {e.strerror}", file=sys.stderr)
            return UNUSABLE
    return code
