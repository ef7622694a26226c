"""`--check-engine`: one engine's report, or a class's table, printed; no window.

One file prints its report (text or --json) and exits with its category. A
folder, or several files, prints a progress line per file as its check ends,
then the table and the histogram of first faults (core/foreign/batch.py), and
writes --csv for a gradebook; it exits 0 when every file could be read and
checked, whatever their verdicts, and 2 when the folder cannot be read.
"""

from __future__ import annotations

import os
import sys
from argparse import Namespace

from core.files.atomic import write_atomically
from core.foreign import batch, hints
from core.foreign.report import UNUSABLE, exit_code, to_json, to_text
from core.foreign.runner import check_file


def say(text: str) -> None:
    """Print to stdout; a reader that stopped reading (`| head`) is not an error: the
    rest goes nowhere, and the run still writes --csv and exits with its category."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's own flush at exit must not fail again
        os.close(devnull)


def check_engines(args: Namespace) -> int:
    paths = list(args.check_engine)
    if len(paths) == 1 and (not os.path.isdir(paths[0]) or batch.is_package_engine(paths[0])):
        report = check_file(paths[0], expression=args.expr, seed=getattr(args, "seed", None) or -1)
        rungs = hints.climb(report["fault"], args.hints) if args.hints and report.get("fault") else []
        if args.json:
            say(to_json({**report, "hints": rungs} if rungs else report))
        else:
            say(to_text(report))
            for i, hint in enumerate(rungs, 1):
                say(f"Hint {i}: {hint}")
        return exit_code(report)
    try:
        files = batch.files_of(paths)
    except batch.FolderError as e:
        print(f"Cannot check the class: {e}", file=sys.stderr)
        return UNUSABLE

    def progress(done: int, total: int, row: dict) -> None:
        print(f"[{done}/{total}] {os.path.basename(row['file'])}: {row['category']}", file=sys.stderr, flush=True)

    rows = batch.check_many(files, jobs=args.jobs or None, progress=progress)
    say(batch.to_json(rows, args.hints) if args.json else batch.to_text(rows, args.hints))
    if args.csv:
        try:
            write_atomically(args.csv, batch.to_csv(rows))
        except OSError as e:
            print(f"Could not write {args.csv}: {e.strerror}", file=sys.stderr)
            return UNUSABLE
    return 0
