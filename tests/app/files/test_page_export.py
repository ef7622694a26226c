"""File → Export as Interactive Page (HTML): the one-file stepper of the graph shown (issue 39 item 2)."""

import json
import re


def test_export_the_interactive_page_from_the_file_menu(window, qtbot, tmp_path):
    titles = [a.text() for a in window.menus["File"].actions()]
    assert "Export as I&nteractive Page (HTML)…" in titles
    path = tmp_path / "f.html"
    window.files.export_page(str(path))
    qtbot.waitUntil(lambda: window.files._page_job is None, timeout=60000)  # its outcome was handled
    text = path.read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="bps-steps">(.*?)</script>', text, re.S).group(1))
    assert data["total"] == 3  # f = x*y + y**2: three _backward calls
    assert "y.grad += 2·y.data · (y^2).grad" in " ".join(step["L"] for step in data["steps"])
    assert text.startswith("<!DOCTYPE html>") and "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    assert "Exported" in window.statusBar().currentMessage()
    assert "#step=5" in window.statusBar().currentMessage()


def test_a_page_that_cannot_be_written_says_so(window, qtbot, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr("app.files.dialogs.show_error", lambda parent, title, text: shown.append(text))
    window.files.export_page(str(tmp_path / "no such folder" / "f.html"))
    qtbot.waitUntil(lambda: bool(shown), timeout=60000)
    assert "not written" in shown[0] and "does not exist" in shown[0]
