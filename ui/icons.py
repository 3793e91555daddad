"""Toolbar and menu icons: line-art SVGs in ``resources/icons``, tinted for the theme.

The SVGs are drawn in black; each is recoloured when loaded so one set of files
serves the light and the dark theme (Qt's SVG renderer knows no ``currentColor``).
"""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

from gradstudio.locations import ICONS_DIR

SIZES = (16, 20, 24, 32, 48)


@lru_cache(maxsize=256)
def icon(name: str, color: str = "#000000") -> QIcon:
    """The icon ``name`` (file stem) in ``color``; an empty icon if there is no such file."""
    path = ICONS_DIR / f"{name}.svg"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return QIcon()
    renderer = QSvgRenderer(QByteArray(text.replace("#000000", color).encode("utf-8")))
    result = QIcon()
    for size in SIZES:
        pix = QPixmap(size, size)
        pix.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pix)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter, QRectF(0, 0, size, size))
        painter.end()
        result.addPixmap(pix)
    return result


@lru_cache(maxsize=64)
def swatch(color: str, size: int = 12) -> QIcon:
    """A small rounded colour square (node categories in the palette and quick search)."""
    pix = QPixmap(size, size)
    pix.fill(Qt.GlobalColor.transparent)
    p = QPainter(pix)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QColor(color))
    p.drawRoundedRect(QRectF(1, 1, size - 2, size - 2), 3, 3)
    p.end()
    return QIcon(pix)
