"""No display, no abort: show() and the app raise or say why instead of Qt's SIGABRT (issue 39 item 4)."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app.display import NoDisplay, display_problem, no_display_error

ROOT = Path(__file__).resolve().parents[2]


def test_a_headless_platform_needs_no_display():
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None
    assert display_problem({"QT_QPA_PLATFORM": "minimal"}, "linux") is None


def test_linux_without_display_or_wayland_has_none():
    problem = display_problem({}, "linux")
    assert problem is not None and "DISPLAY" in problem and "WAYLAND_DISPLAY" in problem


def test_a_display_whose_server_is_gone_is_none(tmp_path):
    assert "no X server" in display_problem({"DISPLAY": ":987"}, "linux")
    assert display_problem({"DISPLAY": "somehost:0"}, "linux") is None  # remote: Qt decides
    assert "Wayland" in display_problem({"QT_QPA_PLATFORM": "wayland", "XDG_RUNTIME_DIR": str(tmp_path),
                                         "WAYLAND_DISPLAY": "wayland-9"}, "linux")  # fmt: skip
    (tmp_path / "wayland-9").touch()
    assert display_problem({"WAYLAND_DISPLAY": "wayland-9", "XDG_RUNTIME_DIR": str(tmp_path)}, "linux") is None


def test_windows_and_macos_have_their_window_system():
    assert display_problem({}, "win32") is None
    assert display_problem({}, "darwin") is None


def test_the_advice_differs_in_a_kernel():
    assert "%gui qt" in str(no_display_error("x", in_kernel=True))
    assert ".save('steps.html')" in str(no_display_error("x", in_kernel=False))
    assert isinstance(no_display_error("x"), RuntimeError)


def headless_env():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(ROOT)
    return env


@pytest.mark.slow
def test_show_in_a_script_without_display_raises_a_python_error(tmp_path):
    """The repro: `show(f)` in a display-less script aborted Python (SIGABRT), nothing to catch."""
    script = textwrap.dedent(
        """
        from app.show import show
        from app.display import NoDisplay
        from core.engine import Value
        x = Value(2.0, label="x")
        f = x * x
        f.backward()
        try:
            show(f)
        except NoDisplay as e:
            print("caught:", e)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], env=headless_env(), cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "caught: The studio's window needs a display" in done.stdout


@pytest.mark.slow
def test_the_app_without_display_exits_with_a_sentence(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "main.py"), "--no-welcome"], env=headless_env(), cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "needs a display" in done.stderr and "--screenshot" in done.stderr


def test_no_display_is_a_runtime_error():
    assert issubclass(NoDisplay, RuntimeError)


def studio_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("backprop_studio", ROOT / "resources" / "__init__.py")
    studio = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(studio)
    return studio


def a_graph():
    from core.engine import Value

    x = Value(3.0, label="x")
    f = x * x
    f.backward()
    return f


def test_window_in_a_kernel_without_qt_loop_says_run_gui_qt(monkeypatch):
    """The repro: show(f, window=True) in a kernel drew inline again, beside advice to use window=True."""
    studio = studio_module()
    monkeypatch.setattr(studio, "in_notebook", lambda: True)
    monkeypatch.setattr(studio, "qt_loop_in_kernel", lambda: False)
    monkeypatch.setenv("DISPLAY", "remote:0")
    monkeypatch.delenv("QT_QPA_PLATFORM")
    with pytest.raises(RuntimeError, match="run %gui qt in a cell, then this cell again"):
        studio.show(a_graph(), window=True)


def test_window_in_a_kernel_without_display_says_draw_inline(monkeypatch):
    studio = studio_module()
    monkeypatch.setattr(studio, "in_notebook", lambda: True)
    monkeypatch.setattr(studio, "qt_loop_in_kernel", lambda: False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("QT_QPA_PLATFORM")
    with pytest.raises(NoDisplay, match="Do not run %gui qt there"):
        studio.show(a_graph(), window=True)
