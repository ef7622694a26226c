"""Issue 32 item 7: a lesson's links reach only the web, mail and the studio's own
`studio:` links; files, shares, scripts and local images are refused with a note."""

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QTextBrowser

from app.lessons import panel as panel_module
from app.lessons.reading import set_markdown
from app.main_window import MainWindow


@pytest.fixture
def panel(qtbot, monkeypatch):
    opened = []
    monkeypatch.setattr(panel_module.QDesktopServices, "openUrl", lambda url: opened.append(url.toString()))
    w = MainWindow()
    w.files.prompt_on_close = False
    qtbot.addWidget(w)
    w.lessons.opened = opened
    yield w.lessons
    w.close()


@pytest.mark.parametrize(
    "link",
    [
        "file:///etc/passwd",
        "FILE:///etc/passwd",
        "smb://server/share/x.exe",
        "javascript:alert(1)",
        "vscode://file/etc/passwd",
        "ms-settings:privacy",
        "/etc/passwd",
        "data:text/html,<b>x</b>",
    ],
)
def test_a_link_to_a_file_a_share_or_a_script_is_refused_with_a_note(panel, link):
    assert not panel.follow_link(QUrl(link))
    assert panel.opened == []  # repro: file:///etc/passwd was handed to the desktop
    assert not panel.error.isHidden()
    assert "not followed" in panel.error.text() and "never files" in panel.error.text()


@pytest.mark.parametrize(
    "link", ["https://karpathy.ai/zero-to-hero.html", "http://example.org/", "mailto:t@example.org"]
)
def test_web_and_mail_links_open_in_the_desktop(panel, link):
    panel.follow_link(QUrl(link))
    assert panel.opened == [QUrl(link).toString()]
    assert panel.error.isHidden()


def test_a_markdown_image_from_a_local_file_is_not_shown(qtbot, tmp_path):
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"\x89PNG\r\n\x1a\n")
    browser = QTextBrowser()
    qtbot.addWidget(browser)
    set_markdown(browser, f"Before ![x]({secret}) and ![y](file://{secret}) after.")
    html = browser.toHtml()
    assert "<img" not in html
    assert browser.toPlainText().count("image not shown") == 2
    assert browser.toPlainText().startswith("Before ") and browser.toPlainText().endswith(" after.")
