"""The canvas's paint kit: a theme's colours as ready ``QColor``s, plus fonts and sizes.

Built once per theme so thousands of node paints do not parse colour strings or
build fonts on every frame.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QFont, QFontMetricsF

from gradstudio.catalogue import NodeType
from gradstudio.document.layout import DEFAULT_CARD_WIDTH
from ui.themes import Theme, mono_font, ui_font

NODE_WIDTH = DEFAULT_CARD_WIDTH  # the narrowest card (``card_width`` widens it for its text)
HEADER_HEIGHT = 26.0
PORT_ROW = 20.0
PORT_TOP_PAD = 6.0
FACTS_LINE = 18.0
FACTS_PAD = 6.0
CORNER = 6.0
LOD_TEXT = 0.45  # below this zoom, cards' and frames' details give way to their labels
FAR_LABEL_PX = 13.0  # on-screen size of a far card's or frame's label


def card_rows(node_type: NodeType) -> int:
    return max(len(node_type.inputs), len(node_type.outputs), 1)


def card_height(node_type: NodeType) -> float:
    """A card's height: header, one row per port, then one or two lines of facts."""
    facts_top = HEADER_HEIGHT + PORT_TOP_PAD + PORT_ROW * card_rows(node_type) + 2.0
    lines = 2 if node_type.outputs else 1
    return facts_top + FACTS_PAD + FACTS_LINE * lines + FACTS_PAD


@dataclass
class CanvasStyle:
    theme: Theme
    title_font: QFont
    small_font: QFont
    mono_font: QFont
    badge_font: QFont
    title_metrics: QFontMetricsF
    small_metrics: QFontMetricsF
    mono_metrics: QFontMetricsF
    badge_metrics: QFontMetricsF
    colors: dict[str, QColor]

    def c(self, role: str) -> QColor:
        return self.colors[role]

    def category(self, name: str) -> QColor:
        key = "cat:" + name
        color = self.colors.get(key)
        if color is None:
            color = self.theme.category_color(name)
            self.colors[key] = color
        return color


def canvas_style(theme: Theme) -> CanvasStyle:
    base = ui_font()
    title = QFont(base)
    title.setPointSizeF(max(9.5, base.pointSizeF()))
    title.setWeight(QFont.Weight.DemiBold)
    small = QFont(base)
    small.setPointSizeF(max(8.0, base.pointSizeF() - 1.0))
    mono = mono_font(8.5)
    badge = QFont(base)
    badge.setPointSizeF(7.5)
    badge.setWeight(QFont.Weight.Bold)
    colors = {
        name: QColor(value)
        for name, value in vars(theme).items()
        if isinstance(value, str) and value.startswith("#")
    }
    return CanvasStyle(
        theme=theme,
        title_font=title,
        small_font=small,
        mono_font=mono,
        badge_font=badge,
        title_metrics=QFontMetricsF(title),
        small_metrics=QFontMetricsF(small),
        mono_metrics=QFontMetricsF(mono),
        badge_metrics=QFontMetricsF(badge),
        colors=colors,
    )
