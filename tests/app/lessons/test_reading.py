"""app/lessons/reading.py: the lesson view loads only images the studio ships (issue 37:
`![x](/dev/zero)` aborted the app; local files were drawn)."""

from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextDocument

from app.lessons.reading import LessonBrowser, set_markdown
from tests.core.lessons.test_links import HOSTILE_IMAGES


def test_a_hostile_lesson_text_shows_without_reading_the_disk(qtbot):
    view = LessonBrowser()
    qtbot.addWidget(view)
    view.resize(500, 400)
    view.show()
    set_markdown(view, "# Lesson\n\n" + "\n\n".join(HOSTILE_IMAGES.values()))
    qtbot.waitExposed(view)
    view.repaint()
    assert "Lesson" in view.toPlainText()
    assert "zero" not in view.toPlainText() and "passwd" not in view.toPlainText()


def test_the_loader_behind_the_filter_opens_no_device_and_no_local_path(qtbot):
    view = LessonBrowser()
    qtbot.addWidget(view)
    for url in ("/dev/zero", "file:///dev/zero", "../../etc/passwd", "data:image/png;base64,AAAA", "https://e.org/x"):
        image = view.loadResource(QTextDocument.ImageResource, QUrl(url))
        assert image.width() == 1 and image.height() == 1  # an empty picture, never the file
    assert len(view.refused) == 5 and "/dev/zero" in view.refused[0]
    assert view.loadResource(QTextDocument.StyleSheetResource, QUrl("/dev/zero")) == ""


def test_the_lessons_panel_uses_the_loader(window):
    assert isinstance(window.lessons.text, LessonBrowser)
