"""A small Python editor for custom ``autograd.Function`` nodes.

Writing ``forward``/``backward`` by hand is where learners meet ``ctx``,
``save_for_backward`` and gradient shapes, so the editor stays out of the way:
syntax colours that follow the theme, line numbers (errors name a line),
four-space indentation and auto-indent, and a single ``committed`` signal when
the text is finished (focus leaves, or Ctrl+Enter) so that one edit becomes one
undoable command instead of one per keystroke.
"""

from __future__ import annotations

import builtins
import keyword
import re

from PySide6.QtCore import QEvent, QRect, QRegularExpression, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFocusEvent,
    QFont,
    QFontDatabase,
    QKeyEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
)
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit, QWidget

INDENT = "    "

#: Token colours (light theme, dark theme), roughly those of common editor themes.
STYLES: dict[str, tuple[str, str, bool, bool]] = {
    # name: (light colour, dark colour, bold, italic)
    "keyword": ("#0033b3", "#cf8e6d", True, False),
    "builtin": ("#7a3e9d", "#c77dbb", False, False),
    "self": ("#94558d", "#94558d", False, True),
    "decorator": ("#9e880d", "#bbb529", False, False),
    "defname": ("#00627a", "#56a8f5", True, False),
    "string": ("#067d17", "#6aab73", False, False),
    "number": ("#1750eb", "#2aacb8", False, False),
    "comment": ("#8c8c8c", "#7a7e85", False, True),
    "torch": ("#00627a", "#e0a060", False, False),
}


def _format(name: str, dark: bool) -> QTextCharFormat:
    light_colour, dark_colour, bold, italic = STYLES[name]
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(dark_colour if dark else light_colour))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    fmt.setFontItalic(italic)
    return fmt


class PythonHighlighter(QSyntaxHighlighter):
    """Python tokens by regular expression, plus triple-quoted strings across lines."""

    def __init__(self, document: QTextDocument, dark: bool = False) -> None:
        super().__init__(document)
        self._rules: list[tuple[QRegularExpression, int, str]] = []
        self._formats: dict[str, QTextCharFormat] = {}
        words = "|".join(k for k in keyword.kwlist if k not in ("True", "False", "None"))
        names = "|".join(n for n in dir(builtins) if not n.startswith("_"))

        def rule(pattern: str, name: str, group: int = 0) -> None:
            self._rules.append((QRegularExpression(pattern), group, name))

        rule(rf"\b({names})\b", "builtin")
        rule(rf"\b({words}|True|False|None)\b", "keyword")
        rule(r"\b(self|ctx|cls)\b", "self")
        rule(r"\b(torch|engine|F|nn)\b(?=\.)", "torch")
        rule(r"\b[+-]?(0[xX][0-9a-fA-F_]+|\d[\d_]*\.?\d*([eE][+-]?\d+)?j?)\b", "number")
        rule(r"^\s*@[\w.]+", "decorator")
        rule(r"\b(?:def|class)\s+(\w+)", "defname", 1)
        rule(r"[rbuRBU]{0,2}(\"[^\"\\\n]*(\\.[^\"\\\n]*)*\"|'[^'\\\n]*(\\.[^'\\\n]*)*')", "string")
        rule(r"#[^\n]*", "comment")
        self._triple = [(QRegularExpression('"""'), 1), (QRegularExpression("'''"), 2)]
        self.set_dark(dark)

    def set_dark(self, dark: bool) -> None:
        self._formats = {name: _format(name, dark) for name in STYLES}
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt API
        for expression, group, name in self._rules:
            it = expression.globalMatch(text)
            while it.hasNext():
                match = it.next()
                start = match.capturedStart(group)
                if start >= 0:
                    self.setFormat(start, match.capturedLength(group), self._formats[name])
        self._multiline(text)

    def _multiline(self, text: str) -> None:
        """Triple-quoted strings (docstrings) that may span blocks: state 1 or 2 = inside."""
        self.setCurrentBlockState(0)
        fmt = self._formats["string"]
        start = 0
        inside = self.previousBlockState()
        for delimiter, state in self._triple:
            if inside == state:
                begin, offset = 0, 0
            elif inside <= 0:
                m = delimiter.match(text, start)
                if not m.hasMatch():
                    continue
                begin, offset = m.capturedStart(), 3
            else:
                continue
            while begin >= 0:
                end = delimiter.match(text, begin + offset)
                if end.hasMatch():
                    length = end.capturedEnd() - begin
                    self.setFormat(begin, length, fmt)
                    nxt = delimiter.match(text, begin + length)
                    begin = nxt.capturedStart() if nxt.hasMatch() else -1
                    offset = 3
                else:
                    self.setCurrentBlockState(state)
                    self.setFormat(begin, len(text) - begin, fmt)
                    begin = -1
            if self.currentBlockState() == state:
                return


class _LineNumbers(QWidget):
    def __init__(self, editor: CodeEditor) -> None:
        super().__init__(editor)
        self._editor = editor

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt API
        return QSize(self._editor.gutter_width(), 0)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt API
        self._editor.paint_gutter(event)


class CodeEditor(QPlainTextEdit):
    """A plain-text Python editor; ``committed(text)`` when an edit is finished."""

    committed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("codeEditor")
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self.setFont(font)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
        self._gutter = _LineNumbers(self)
        self._error_line: int | None = None
        self._committed_text = ""
        self.highlighter = PythonHighlighter(self.document(), self._dark())
        self.blockCountChanged.connect(self._update_margins)
        self.updateRequest.connect(self._update_gutter)
        self.cursorPositionChanged.connect(self._highlight_lines)
        self._update_margins()
        self._highlight_lines()

    # -- content -------------------------------------------------------------
    def set_code(self, text: str) -> None:
        """Replace the text without emitting ``committed`` (it came from the document)."""
        if text != self.toPlainText():
            self.setPlainText(text)
        self._committed_text = text

    def commit(self) -> None:
        """Emit ``committed`` if the text differs from what was last set or committed."""
        text = self.toPlainText()
        if text != self._committed_text:
            self._committed_text = text
            self.committed.emit(text)

    def set_error_line(self, line: int | None) -> None:
        """Mark a 1-based line (e.g. from a traceback) with an error background."""
        self._error_line = line
        self._highlight_lines()
        self._gutter.update()

    # -- theme ---------------------------------------------------------------
    def _dark(self) -> bool:
        return self.palette().color(QPalette.ColorRole.Base).lightness() < 128

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt API
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.highlighter.set_dark(self._dark())
            self._highlight_lines()

    # -- editing -------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt API
        key, mods = event.key(), event.modifiers()
        ctrl = bool(mods & Qt.KeyboardModifier.ControlModifier)
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and ctrl:
            self.commit()
            return
        if key == Qt.Key.Key_Tab and not mods:
            self.textCursor().insertText(INDENT)
            return
        if key == Qt.Key.Key_Backtab:
            self._dedent()
            return
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            line = self.textCursor().block().text()[: self.textCursor().positionInBlock()]
            indent = re.match(r"\s*", line).group(0)  # type: ignore[union-attr]
            if line.rstrip().endswith(":"):
                indent += INDENT
            self.textCursor().insertText("\n" + indent)
            self.ensureCursorVisible()
            return
        if key == Qt.Key.Key_Backspace and not mods:
            cursor = self.textCursor()
            before = cursor.block().text()[: cursor.positionInBlock()]
            if before and not before.strip() and not cursor.hasSelection():
                remove = len(before) % 4 or 4
                for _ in range(remove):
                    cursor.deletePreviousChar()
                return
        super().keyPressEvent(event)

    def _dedent(self) -> None:
        cursor = self.textCursor()
        block = cursor.block()
        text = block.text()
        remove = len(text) - len(text.lstrip(" "))
        remove = min(remove, 4)
        if remove:
            c = QTextCursor(block)
            c.movePosition(QTextCursor.MoveOperation.Right, QTextCursor.MoveMode.KeepAnchor, remove)
            c.removeSelectedText()

    def focusOutEvent(self, event: QFocusEvent) -> None:  # noqa: N802 - Qt API
        super().focusOutEvent(event)
        self.commit()

    # -- gutter --------------------------------------------------------------
    def gutter_width(self) -> int:
        digits = len(str(max(1, self.blockCount())))
        return 14 + self.fontMetrics().horizontalAdvance("9") * max(digits, 2)

    def _update_margins(self, *_: object) -> None:
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)

    def _update_gutter(self, rect: QRect, dy: int) -> None:
        if dy:
            self._gutter.scroll(0, dy)
        else:
            self._gutter.update(0, rect.y(), self._gutter.width(), rect.height())

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        cr = self.contentsRect()
        self._gutter.setGeometry(QRect(cr.left(), cr.top(), self.gutter_width(), cr.height()))

    def paint_gutter(self, event: QPaintEvent) -> None:
        p = QPainter(self._gutter)
        pal = self.palette()
        p.fillRect(event.rect(), pal.color(QPalette.ColorRole.AlternateBase))
        block = self.firstVisibleBlock()
        number = block.blockNumber()
        top = round(self.blockBoundingGeometry(block).translated(self.contentOffset()).top())
        bottom = top + round(self.blockBoundingRect(block).height())
        current = self.textCursor().blockNumber()
        while block.isValid() and top <= event.rect().bottom():
            if block.isVisible() and bottom >= event.rect().top():
                is_error = self._error_line == number + 1
                if is_error:
                    colour = QColor("#e5484d")
                elif number == current:
                    colour = pal.color(QPalette.ColorRole.Text)
                else:
                    colour = pal.color(QPalette.ColorRole.PlaceholderText)
                p.setPen(colour)
                p.drawText(
                    0,
                    top,
                    self._gutter.width() - 6,
                    self.fontMetrics().height(),
                    Qt.AlignmentFlag.AlignRight,
                    str(number + 1),
                )
            block = block.next()
            top = bottom
            bottom = top + round(self.blockBoundingRect(block).height())
            number += 1
        p.end()

    def _highlight_lines(self) -> None:
        selections = []
        if self.hasFocus() or not self.isReadOnly():
            current = QTextEdit.ExtraSelection()
            colour = self.palette().color(QPalette.ColorRole.Highlight)
            colour.setAlpha(28)
            current.format.setBackground(colour)
            current.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            current.cursor = self.textCursor()
            current.cursor.clearSelection()
            selections.append(current)
        if self._error_line is not None:
            block = self.document().findBlockByNumber(self._error_line - 1)
            if block.isValid():
                err = QTextEdit.ExtraSelection()
                err.format.setBackground(QColor(229, 72, 77, 60))
                err.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
                err.cursor = QTextCursor(block)
                selections.append(err)
        self.setExtraSelections(selections)
