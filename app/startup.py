"""The `backprop-studio` entry point: command line, the QApplication, `--screenshot`.

    backprop-studio [FILE] [--screenshot OUT.png] [--size WxH] [--dark]

`main(argv)` is the console script (`app.startup:main`) and what main.py calls.
It imports app.main_window late, after the process is tuned; nothing imports
this module back.
"""

import argparse
import os
import sys
import time

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication

from app.display import display_problem
from app.look.theme import DARK, DEFAULT, FONT_FAMILY


def _parse_args(argv):
    parser = argparse.ArgumentParser(prog="backprop-studio", description="Backprop Studio")
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
    args = parser.parse_args(argv)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        parser.error(f"--size must look like 1440x880, not {args.size!r}")
    args.size = (w, h)
    return args


def _application():
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("Backprop Studio")
        app.setOrganizationName("Backprop Studio")
        app.setStyle("Fusion")
        font = QFont(FONT_FAMILY)
        font.setPixelSize(13)
        app.setFont(font)
        app.setDesktopFileName("backprop-studio")  # matches the menu entry (app/files/desktop_entry.py)
        from app.files.desktop_entry import app_icon

        app.setWindowIcon(app_icon())
    return app


def main(argv=None):
    # Before numpy and pyqtgraph load: the GUI thread gets the interpreter back within
    # 1 ms of a training worker, and OpenBLAS runs one thread (its idle threads spun on
    # the GUI's core and halved training speed). See app/training/tuning.py.
    from app.training.tuning import tune_process

    tune_process()
    args = _parse_args(sys.argv[1:] if argv is None else argv)
    if args.check_engine:  # no window: a report for people or autograders
        from app.foreign.cli import check_engines

        return check_engines(args)
    if args.screenshot and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if QApplication.instance() is None and (problem := display_problem()) is not None:
        print(
            f"backprop-studio: the window needs a display: {problem}. Use --screenshot OUT.png to render "
            "off screen, or --check-engine FILE for a report.",
            file=sys.stderr,
        )  # not Qt's abort (SIGABRT)
        return 2
    app = _application()
    from app.main_window import MainWindow  # here, not at the top: app.main_window re-exports main

    started = time.perf_counter()
    window = MainWindow(theme=DEFAULT.with_(palette=DARK) if args.dark else DEFAULT)
    if args.file:
        window.open_file(args.file)
    window.wait_for_layout()
    if args.run_python:
        _run_python(window, args.run_python)
    _start_classroom(window, args)
    if args.debug_engine:
        from app.foreign.engine_dialog import open_engine_check

        engine_check = open_engine_check(window, args.debug_engine, args.expr, wait=True)
        if args.screenshot:
            engine_check.hide()  # the picture is the window: the canvas and the stopped debugger
    if args.forward_steps is not None:
        window.debugger.controller.forward_reset()
        for _ in range(args.forward_steps):
            window.debugger.controller.forward_step()
    if args.debug_steps is not None:
        window.debugger.controller.reset()
        if args.debug_steps == "end":
            window.debugger.controller.run_to_end()
        else:
            for _ in range(int(args.debug_steps)):
                window.debugger.controller.step()
    if args.screenshot:
        window.files.prompt_on_close = False  # a picture, not a session: nothing to ask
        _start_training(window, args, wait=True)
        window.resize(*args.size)
        window.show()
        window.wait_for_layout()
        app.processEvents()
        if window.appearance.presenting:
            window._size_presenter_docks()  # as its timer does after a resize on screen
            app.processEvents()
        window.view.fit()
        if window.appearance.presenting:  # digits readable from the back row, as on screen
            from app.lessons.presenter_layout import readable_zoom

            readable_zoom(window)
        window.lessons.follow()
        app.processEvents()
        window.view.minimap.finish_drawing()  # a large graph's overview is drawn in slices
        ok = window.grab().save(args.screenshot, "PNG")
        window.close()
        window.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
        print(f"{'saved' if ok else 'could not save'} {args.screenshot} ({time.perf_counter() - started:.2f} s)")
        return 0 if ok else 1
    from app import errors

    errors.install_excepthook()  # a bug we did not foresee is reported, the work stays open
    window.files.restore_ui_state()
    _start_training(window, args)  # after the saved layout: the Training workspace hides the docks
    if args.presenter is not None:
        window.appearance.set_presenter(True, args.presenter)
    else:
        window.show()
    recovered = window.files.offer_recovery()  # work a crash left behind
    from app.help.welcome import should_show_at_start

    asked = args.no_welcome or args.lesson or args.file or args.workspace == "training"
    if not (asked or recovered) and should_show_at_start():
        window.show_welcome()
    return app.exec()


def _run_python(window, path):
    """--run-python: the file's text in the editor, run as Python; waits for the graph."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(1 << 20)
    except (OSError, UnicodeDecodeError) as e:
        window.editor.show_error(f"Could not read {path}: {e}")
        return
    window.editor.set_text(text)
    window.code_runner.run(text)
    window.code_runner.wait()
    window.wait_for_layout()


def _start_training(window, args, wait=False):
    """--workspace, --train-preset, --train-layers, --train-steps; with `wait`, return once
    the run has paused after its steps (for a screenshot)."""
    if args.workspace == "training":
        window.training.show("training")
    if args.train_preset or args.train_layers or args.train_steps is not None:
        problem = window.training.start(args.train_preset, args.train_layers, args.train_steps, wait)
        if problem:
            print(problem, file=sys.stderr)
            window.show_message(problem)


def _start_classroom(window, args):
    """--theme/--dark, the last appearance from QSettings, --lesson/--step; and for a
    --screenshot with --presenter, the presenter look without going full screen."""
    look = window.appearance
    look.restore()
    if args.theme or args.dark:
        look.palette_name = args.theme or "dark"
        if args.presenter is not None:  # asked for with --presenter: the theme presenter mode shows
            look.presenter_palette = look.palette_name
    look.apply()
    if args.presenter is not None and args.screenshot:  # the look, at the picture's size
        look.set_presenter(True, args.presenter, full_screen=False)
    if args.lesson:
        try:
            window.show_lessons(args.lesson, max(0, args.step - 1))
        except KeyError as e:
            window.show_message(str(e).strip("'\""))
        window.lessons.wait_idle()
        window.wait_for_layout()
