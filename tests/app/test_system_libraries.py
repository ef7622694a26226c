"""A start that would fail for want of system libraries names them, read from Qt's xcb
plugin with ldd, and the Debian packages that hold them (issue 42 item 6)."""

import subprocess

from app import system_libraries as libs

LDD = """\
\tlinux-vdso.so.1 (0x00007ffd5b9f2000)
\tlibQt6XcbQpa.so.6 => /x/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f)
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
"""


def test_the_missing_libraries_are_those_ldd_says_are_not_found():
    assert libs.not_found(LDD) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    assert libs.not_found("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n") == []


def test_each_library_is_named_with_its_debian_package():
    assert libs.debian_package("libxcb-icccm.so.4") == "libxcb-icccm4"
    assert libs.debian_package("libxcb-keysyms.so.1") == "libxcb-keysyms1"
    assert libs.debian_package("libxcb-cursor.so.0") == "libxcb-cursor0"
    assert libs.debian_package("libxkbcommon-x11.so.0") == "libxkbcommon-x11-0"
    assert libs.debian_package("libX11-xcb.so.1") == "libx11-xcb1"
    assert libs.debian_package("libdbus-1.so.3") == "libdbus-1-3"


def test_only_an_x11_start_on_linux_is_checked(monkeypatch):
    monkeypatch.setattr(libs.sys, "platform", "linux")
    assert libs.will_use_xcb({"DISPLAY": ":0"})
    assert not libs.will_use_xcb({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"})
    assert not libs.will_use_xcb({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"})
    assert libs.will_use_xcb({"QT_QPA_PLATFORM": "xcb"})
    assert not libs.will_use_xcb({})
    monkeypatch.setattr(libs.sys, "platform", "darwin")
    assert not libs.will_use_xcb({"DISPLAY": ":0"})


def test_the_start_stops_with_the_names_and_the_install_line(monkeypatch, capsys):
    from app import startup

    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(libs.sys, "platform", "linux")
    monkeypatch.setattr(libs, "xcb_plugin_files", lambda: ["/x/libqxcb.so"])
    monkeypatch.setattr(
        libs.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 0, stdout=LDD, stderr="")
    )
    assert startup.main([]) == 3
    said = capsys.readouterr().err
    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1" in said
    assert "sudo apt-get install libxcb-icccm4 libxcb-keysyms1" in said


def test_the_real_plugin_is_found_and_read():
    files = libs.xcb_plugin_files()
    assert files and files[0].endswith("libqxcb.so")
    read = "".join(subprocess.run(["ldd", f], capture_output=True, text=True).stdout for f in files)
    assert libs.missing_for_xcb() == libs.not_found(read)  # both files read, each missing one once
