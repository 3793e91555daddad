"""Drawing a node card's texts: each one elided only if it cannot fit, and remembered
beside its full text, so a test (and ``NodeItem.drawn_texts``) can tell what a learner
reads on the card from what was cut.  Shared by the card's painters (header and ports,
facts lines), which are mixins meeting in ``NodeItem``."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetricsF, QPainter

from ui.canvas.node_facts import DrawnText


class CardText:
    """The texts a card drew during its last paint (``_drawn``), and how it draws one."""

    _drawn: list[DrawnText]

    def _text(
        self,
        painter: QPainter,
        where: str,
        rect: QRectF,
        flags: Qt.AlignmentFlag,
        text: str,
        metrics: QFontMetricsF,
        mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
    ) -> None:
        """Draw ``text`` in ``rect``, eliding it only if it cannot fit, and remember what
        was drawn beside the full text (``drawn_texts``)."""
        drawn = metrics.elidedText(text, mode, rect.width())
        self._drawn.append((where, text, drawn))
        painter.drawText(rect, flags, drawn)
