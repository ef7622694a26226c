"""The Linux menu entry: written to a scratch HOME, right Exec and Icon, removed again."""

import configparser
import os
import subprocess
import sys

import pytest

from app.files import desktop_entry
from app.files.desktop_entry import APP_ID, MAIN, PNG_SIZES, exec_quote

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def read_entry(path):
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive in a desktop entry
    parser.read(path, encoding="utf-8")
    return parser["Desktop Entry"]


def test_install_writes_the_entry_and_the_icon_to_home(tmp_path):
    env = {"HOME": str(tmp_path)}
    written = desktop_entry.install(env, refresh=False)
    entry_file = tmp_path / ".local" / "share" / "applications" / f"{APP_ID}.desktop"
    assert str(entry_file) in written and entry_file.exists()
    entry = read_entry(entry_file)
    assert entry["Type"] == "Application" and entry["Name"] == "Backprop Studio"
    assert entry["Exec"] == f"{exec_quote(sys.executable)} {exec_quote(MAIN)} %f"
    python, main = entry["Exec"].split(" ")[:2]
    assert os.path.isabs(python) and os.path.isabs(main) and main.endswith("main.py")
    assert os.path.exists(main) and os.path.samefile(main, os.path.join(ROOT, "main.py"))
    assert entry["TryExec"] == os.path.abspath(sys.executable)
    assert entry["Icon"] == APP_ID
    assert entry["Terminal"] == "false" and "Education" in entry["Categories"]
    hicolor = tmp_path / ".local" / "share" / "icons" / "hicolor"
    for n in PNG_SIZES:
        assert (hicolor / f"{n}x{n}" / "apps" / f"{APP_ID}.png").exists()
    assert (hicolor / "scalable" / "apps" / f"{APP_ID}.svg").exists()
    assert "@" not in entry_file.read_text()  # every placeholder was filled in

    removed = desktop_entry.uninstall(env, refresh=False)
    assert str(entry_file) in removed and not entry_file.exists()
    assert not (hicolor / "256x256" / "apps" / f"{APP_ID}.png").exists()


def test_xdg_data_home_wins(tmp_path):
    env = {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")}
    desktop_entry.install(env, refresh=False)
    assert (tmp_path / "data" / "applications" / f"{APP_ID}.desktop").exists()
    assert not (tmp_path / "home").exists()


def test_exec_quotes_paths_as_the_spec_says():
    assert exec_quote("/usr/bin/python3") == "/usr/bin/python3"
    # a space needs quotes; inside them $ is escaped, and every backslash doubled again
    assert exec_quote("/my dir/main.py") == '"/my dir/main.py"'
    assert exec_quote("/a$b/main.py") == '"/a\\\\$b/main.py"'
    assert exec_quote("/100%/x") == '"/100%%/x"'


def test_the_command_line_installs_into_home(tmp_path):
    env = dict(os.environ, HOME=str(tmp_path))
    env.pop("XDG_DATA_HOME", None)
    result = subprocess.run(
        [sys.executable, "-m", "app.files.desktop_entry", "--install"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    path = tmp_path / ".local" / "share" / "applications" / f"{APP_ID}.desktop"
    assert path.exists() and "Installed" in result.stdout
    result = subprocess.run(
        [sys.executable, "-m", "app.files.desktop_entry", "--uninstall"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0 and not path.exists()


@pytest.mark.parametrize("size", PNG_SIZES)
def test_icon_pngs_are_rendered_at_their_size(qapp, size):
    from PySide6.QtGui import QImage

    image = QImage(os.path.join(ROOT, "resources", "icons", f"{APP_ID}-{size}.png"))
    assert not image.isNull() and (image.width(), image.height()) == (size, size)
    assert image.hasAlphaChannel() and image.pixelColor(0, 0).alpha() == 0  # rounded corners


def test_svg_icon_is_valid(qapp):
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(os.path.join(ROOT, "resources", "icons", f"{APP_ID}.svg"))
    assert renderer.isValid() and renderer.defaultSize().width() == 256


def test_app_icon_has_every_size(qapp):
    icon = desktop_entry.app_icon()
    assert {s.width() for s in icon.availableSizes()} == set(PNG_SIZES)
