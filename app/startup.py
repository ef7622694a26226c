"""The `backprop-studio` entry point: command line, the QApplication, `--screenshot`.

    backprop-studio [FILE] [--screenshot OUT.png] [--size WxH] [--dark]
    backprop-studio --tour OUTDIR [--presenter 2] [--quiz]          (tour_main)
    backprop-studio --export-slides [GRAPH.json] OUT.pdf [--lesson ID]  (slides_main)

`main(argv)` is what main.py and app/cli.py's console script call. It imports
app.main_window late, after the process is tuned; nothing imports this module back
(the tour and the slide deck are driven from here, so no lesson module builds a
window of its own).
"""

import argparse
import os
import sys
import time

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication

from app.arguments import parse_args as _parse_args  # Qt-free: the core install answers --check-engine without Qt
from app.display import display_problem
from app.look.theme import DARK, DEFAULT, FONT_FAMILY


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


def check_lesson_file(path):
    """`--check-lesson FILE`: every problem on its own line (file:line: step k ...)."""
    from core.lessons.check import check_lesson
    from core.lessons.format import LessonError, load_lesson

    try:
        lesson = load_lesson(path)
    except LessonError as e:
        print(f"refused: {e}", file=sys.stderr)
        return 2
    problems = check_lesson(lesson)
    for problem in problems:
        print(problem)
    steps = len(lesson.steps)
    if problems:
        print(f"{len(problems)} problem(s) in {steps} steps of “{lesson.title}”")
        return 1
    print(f"“{lesson.title}”: {steps} steps, every claim, placeholder and question agrees with the engine")
    return 0


def main(argv=None):
    # Before numpy and pyqtgraph load: the GUI thread gets the interpreter back within
    # 1 ms of a training worker, and OpenBLAS runs one thread (its idle threads spun on
    # the GUI's core and halved training speed). See app/training/tuning.py.
    from app.training.tuning import tune_process

    tune_process()
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--tour"]:  # the course as a teacher gives it, pictures saved (app/lessons/tour.py)
        return tour_main(argv[1:])
    if argv[:1] == ["--export-slides"]:  # a lesson's deck or a backward pass as slides (app/lessons/slides.py)
        return slides_main(argv[1:])
    args = _parse_args(argv)
    answer = _without_window(args)
    if answer is not None:
        return answer
    if args.screenshot and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if QApplication.instance() is None and (problem := display_problem()) is not None:
        print(
            f"backprop-studio: the window needs a display: {problem}. Use --screenshot OUT.png to render "
            "off screen, or --check-engine FILE for a report.",
            file=sys.stderr,
        )  # not Qt's abort (SIGABRT)
        return 2
    from app import system_libraries

    problem = system_libraries.check()  # Qt would abort, naming the wrong library: say which are missing
    if problem:
        print(problem, file=sys.stderr)
        return 3
    app = _application()
    from app.main_window import MainWindow  # here, not at the top: app.main_window re-exports main

    started = time.perf_counter()
    window = MainWindow(theme=DEFAULT.with_(palette=DARK) if args.dark else DEFAULT)
    if args.screenshot:  # the picture's size first: a file then opens into it (a big graph's page
        window.resize(*args.size)  # lays out its first picture for the window's size)
    else:  # the last run's size and docks first, for the same reason
        window.window_state.restore_ui_state()
    if args.file:
        window.open_file(args.file)
        window.code_runner.wait()  # a .py runs as Python: its graph comes when the run ends
    window.wait_for_layout()
    if args.run_python:
        _run_python(window, args.run_python)
    _start_classroom(window, args)
    _start_debugger(window, args)
    if args.screenshot:
        return _screenshot(app, window, args, started)
    from app import errors

    errors.install_excepthook()  # a bug we did not foresee is reported, the work stays open
    _start_training(window, args)  # after the saved layout: the Training workspace hides the docks
    if args.presenter is not None:
        window.appearance.set_presenter(True, args.presenter)
    else:
        window.show()
    recovered = window.files.offer_recovery()  # work a crash left behind
    from app.help.welcome import should_show_at_start

    asked = args.no_welcome or args.lesson or args.file or args.workspace == "training"
    if not (asked or recovered) and should_show_at_start():
        window.opening.show_welcome()
    return app.exec()


def _without_window(args):
    """--check-lesson, --make-autograder, --check-engine, --copy-notebook: the exit code
    of what needs no window; None for everything else."""
    if args.check_lesson:  # no window: a teacher's check before the lecture
        return check_lesson_file(args.check_lesson)
    if args.make_autograder:  # no window: a bundle for Gradescope
        from app.foreign.cli import make_autograder

        return make_autograder(args.make_autograder)
    if args.check_engine:  # no window: a report for people or autograders
        from app.foreign.cli import check_engines

        return check_engines(args)
    if args.copy_notebook is not None:
        from app.arguments import copy_notebook

        return copy_notebook(args.copy_notebook)
    return None


def _start_debugger(window, args):
    """--debug-engine (Debug my engine on a file, stopped), --forward-steps, --debug-steps."""
    if args.debug_engine:
        from app.foreign.engine_dialog import open_engine_check

        engine_check = open_engine_check(window.engine_checks, args.debug_engine, args.expr, wait=True)
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


def _screenshot(app, window, args, started):
    """--screenshot: the window at --size, settled as on screen, saved as a PNG; the exit code."""
    window.files.prompt_on_close = False  # a picture, not a session: nothing to ask
    _start_training(window, args, wait=True)
    window.resize(*args.size)
    window.show()
    window.wait_for_layout()
    app.processEvents()
    from app.lessons.presenter_layout import frame_step, readable_zoom, size_presenter_docks

    if window.appearance.presenting:
        size_presenter_docks(window)  # as its timer does after a resize on screen
        app.processEvents()
    if window.appearance.presenting:  # digits readable from the back row, as on screen
        if not readable_zoom(window):
            frame_step(window)
    else:
        window.view.fit()
    window.lessons.follow()
    app.processEvents()
    page = window.scope_page.current
    if page is not None:  # a big graph's page: its first picture for the final size
        page.settle()
    window.view.minimap.finish_drawing()  # a large graph's overview is drawn in slices
    ok = window.grab().save(args.screenshot, "PNG")
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
    print(f"{'saved' if ok else 'could not save'} {args.screenshot} ({time.perf_counter() - started:.2f} s)")
    return 0 if ok else 1


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
            window.opening.show_lessons(args.lesson, max(0, args.step - 1))
        except KeyError as e:
            window.show_message(str(e).strip("'\""))
        window.lessons.wait_idle()
        window.wait_for_layout()


def tour_main(argv=None):
    """`--tour OUTDIR [--size WxH] [--presenter 2] [--quiz] [--train-limit N] [--lesson ID]...`: the course as
    a teacher gives it (app/lessons/tour.py), a picture of each view saved in OUTDIR with what it measured;
    exit 1 if a view breaks issue 38's facts."""
    from app.lessons.tour import problems, teach

    parser = argparse.ArgumentParser(
        prog="backprop-studio --tour", description="A tour of the whole course as the class sees it"
    )
    parser.add_argument("out")
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--presenter", type=float, default=None)
    parser.add_argument("--quiz", action="store_true", help="tick Quiz: every grad a step computes is asked too")
    parser.add_argument("--train-limit", type=int, default=None)
    parser.add_argument("--lesson", action="append", help="only these lessons (ids)")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.main_window import MainWindow

    _application()
    os.makedirs(args.out, exist_ok=True)
    window = MainWindow()
    window.files.prompt_on_close = False
    window.lessons.train_limit = args.train_limit
    width, height = (int(n) for n in args.size.lower().split("x"))
    window.resize(width, height)
    window.show()
    window.wait_for_layout()
    if args.presenter:
        window.appearance.set_presenter(True, args.presenter, full_screen=False)
    bad = views = cut = 0
    for lesson, index, phase, seen in teach(window, args.quiz, lessons=args.lesson):
        views += 1
        name = f"{lesson.order:02d}-{lesson.id}-{index + 1}-{phase}"
        if seen["pages"] > 1 or seen["parts"] > 1:
            name += f"-p{seen['page']}v{seen['part']}"
        window.grab().save(os.path.join(args.out, name + ".png"), "PNG")
        found = problems(seen, name)
        bad += bool(found)
        cut += bool(found) and not problems(seen, name, whole=False)
        shown = " ".join(f"{k}={v}" for k, v in seen.items() if k != "note")
        print(name, "ok" if not found else "; ".join(found), "|", shown, flush=True)
    if args.presenter:
        window.appearance.set_presenter(False)
    window.close()
    print(f"{bad} of {views} view(s) break issue 38's facts ({cut} of them only by text or verdict cut)")
    return 1 if bad else 0


def slides_main(argv=None):
    """`--export-slides [GRAPH.json] OUT.pdf [--lesson ID] [--quiz] [--presenter 2] [--size WxH]`: a lesson's
    deck, or a graph's backward pass, as slides (app/lessons/slides.py): a PNG each, one PDF and a GIF."""
    from app.lessons.slides import SlideExport

    parser = argparse.ArgumentParser(
        prog="backprop-studio --export-slides",
        description="A graph's backward pass as slides: PNGs, a PDF and a GIF",
    )
    parser.add_argument("graph", nargs="?", help="a graph file (or --lesson)")
    parser.add_argument("pdf")
    parser.add_argument("--lesson", help="a lesson's id: its whole deck")
    parser.add_argument("--quiz", action="store_true", help="with --lesson: the Quiz ticked")
    parser.add_argument("--presenter", type=float, default=None)
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--train-limit", type=int, default=None)
    args = parser.parse_args(argv)
    if (args.graph is None) == (args.lesson is None):
        parser.error("give a graph file or --lesson ID")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.main_window import MainWindow

    _application()
    window = MainWindow()
    window.files.prompt_on_close = False
    window.lessons.train_limit = args.train_limit
    if args.graph:
        window.open_file(args.graph)
    width, height = (int(n) for n in args.size.lower().split("x"))
    window.resize(width, height)
    window.show()
    window.wait_for_layout()
    if args.presenter:
        window.appearance.set_presenter(True, args.presenter, full_screen=False)
    if args.lesson:
        window.lessons.quiz_check.setChecked(args.quiz)
        window.opening.show_lessons(args.lesson, 0)
        window.lessons.wait_idle()
    paths = SlideExport(window, args.pdf, backward=not args.lesson).run()
    if args.presenter:
        window.appearance.set_presenter(False)
    window.close()
    print("\n".join(paths))
    return 0
