"""Lesson text readable from the back of a room: the sizes, and Markdown whose
code follows them; `LessonBrowser`, the view whose one resource loader shows only
images the studio ships (core/lessons/links.py: a lesson never reads the disk)."""

from PySide6.QtGui import QImage, QTextCursor, QTextDocument, QTextFormat
from PySide6.QtWidgets import QTextBrowser

from app.look.theme import MONO_FAMILY
from core.lessons.links import shipped_image, without_local_images
from core.resources import root

TEXT_PX, TITLE_PX = 16, 20


class LessonBrowser(QTextBrowser):
    """A QTextBrowser whose resources all come through `loadResource`: an image the
    studio ships is read; anything else -- a device, a local path, file: or data: --
    gets an empty picture and a note in `refused`, and is never opened (Qt would
    otherwise read the path itself: `/dev/zero` never ends)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.refused: list[str] = []

    def loadResource(self, kind, url):  # noqa: N802 -- Qt's name
        if kind == QTextDocument.ImageResource:
            path, why = shipped_image(url.toString(), root())
            image = QImage(path) if path else QImage()
            if image.isNull():
                self.refused.append(why or f"{url.toString()!r} is not an image")
                image = QImage(1, 1, QImage.Format_ARGB32)
                image.fill(0)
            return image
        self.refused.append(f"{url.toString()!r} was not loaded: a lesson loads no style sheets or pages")
        return ""  # not None: Qt would then read the file itself


class LessonDocument(QTextDocument):
    """A lesson's text outside a view (measuring a page, app/lessons/paging.py): its
    resources come through a `LessonBrowser`'s loader, never from the disk by Qt."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._loader = LessonBrowser()

    def loadResource(self, kind, url):  # noqa: N802 -- Qt's name
        return self._loader.loadResource(kind, url)


def set_markdown(browser, text):
    """Markdown in `browser`, readable from the back of a room: code takes the
    body's size (Qt's importer fixes it at the system's small monospace size, which
    would not follow the scale) and long code lines wrap instead of scrolling."""
    text, _notes = without_local_images(text)  # a lesson file never reads the disk
    browser.setMarkdown(text)
    format_markdown(browser.document())


def set_document_markdown(doc, text):
    """`set_markdown` for a `LessonDocument`."""
    text, _notes = without_local_images(text)
    doc.setMarkdown(text)
    format_markdown(doc)


def format_markdown(doc):
    """Code at the body's size, long code lines wrapping (see `set_markdown`)."""
    cursor = QTextCursor(doc)
    block = doc.begin()
    while block.isValid():
        fmt = block.blockFormat()
        if fmt.nonBreakableLines():
            fmt.setNonBreakableLines(False)
            cursor.setPosition(block.position())
            cursor.setBlockFormat(fmt)
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            char = fragment.charFormat()
            if char.hasProperty(QTextFormat.FontPointSize) or char.hasProperty(QTextFormat.FontPixelSize):
                char.clearProperty(QTextFormat.FontPointSize)  # only code has a size of its own
                char.clearProperty(QTextFormat.FontPixelSize)
                char.setFontFamilies([MONO_FAMILY])
                cursor.setPosition(fragment.position())
                cursor.setPosition(fragment.position() + fragment.length(), QTextCursor.KeepAnchor)
                cursor.setCharFormat(char)
            it += 1
        block = block.next()
    doc.setModified(False)
