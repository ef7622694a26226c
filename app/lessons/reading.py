"""Lesson text readable from the back of a room: the sizes, and Markdown whose
code follows them."""

from PySide6.QtGui import QTextCursor, QTextFormat

from app.look.theme import MONO_FAMILY
from core.lessons.links import without_local_images

TEXT_PX, TITLE_PX = 16, 20


def set_markdown(browser, text):
    """Markdown in `browser`, readable from the back of a room: code takes the
    body's size (Qt's importer fixes it at the system's small monospace size, which
    would not follow the scale) and long code lines wrap instead of scrolling."""
    text, _notes = without_local_images(text)  # a lesson file never reads the disk
    browser.setMarkdown(text)
    doc = browser.document()
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
