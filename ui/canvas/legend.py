"""The key in the canvas corner: what the colours and badges on a card mean.

A learner meets ``requires_grad``, leaves and ``.grad`` for the first time here, so
the canvas says what its marks stand for instead of leaving it to the manual.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from ui.canvas.style import CanvasStyle

PAD = 8.0


class Legend(QWidget):
    """Paints the key with the canvas's own colours (so it follows the theme)."""

    def __init__(self, style: CanvasStyle, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("legend")
        self.style_ = style
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setToolTip("")

    def set_style(self, style: CanvasStyle) -> None:
        self.style_ = style
        self.updateGeometry()
        self.update()

    def _entries(self) -> list[tuple[str, str, str]]:
        # (kind, colour role, text)
        return [
            ("ring", "requires_grad", "requires_grad"),
            ("ring", "node_border", "no grad"),
            ("pill", "leaf", "LEAF"),
            ("pill", "non_leaf", "NON-LEAF"),
            ("fill", "grad", ".grad"),
            ("ring", "error", "error"),
        ]

    def _item_width(self, kind: str, text: str) -> float:
        s = self.style_
        if kind == "ring":
            return 16.0 + 5.0 + s.small_metrics.horizontalAdvance(text)
        return s.badge_metrics.horizontalAdvance(text) + 10.0

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self.sizeHint()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        width = PAD * 2 + sum(self._item_width(k, t) + 12.0 for k, _, t in self._entries()) - 12.0
        return QSize(round(width), 24)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        s = self.style_
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        x = PAD
        h = float(self.height())
        for kind, role, text in self._entries():
            color = s.c(role)
            w = self._item_width(kind, text)
            if kind == "ring":
                p.setPen(QPen(color, 2.0))
                p.setBrush(s.c("node_body"))
                p.drawRoundedRect(QRectF(x, h / 2 - 6.0, 16.0, 12.0), 3.0, 3.0)
                p.setFont(s.small_font)
                p.setPen(s.c("text_dim"))
                p.drawText(
                    QRectF(x + 21.0, 0.0, w - 21.0, h),
                    Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                    text,
                )
            else:
                fill = QColor(color)
                fill.setAlpha(255 if kind == "fill" else 40)
                r = QRectF(x, h / 2 - 7.0, w, 14.0)
                p.setPen(QPen(color, 1.0))
                p.setBrush(fill)
                p.drawRoundedRect(r, 4.0, 4.0)
                p.setFont(s.badge_font)
                p.setPen(s.c("node_body") if kind == "fill" else color)
                p.drawText(r, Qt.AlignmentFlag.AlignCenter, text)
            x += w + 12.0
        p.end()
