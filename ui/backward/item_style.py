"""The backward graph's look: its colours in torchviz's language, its fonts, and the
fills and texts of its boxes and gradients."""

from __future__ import annotations

import functools

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPen

from gradstudio.evaluation.facts import GradValue
from gradstudio.text import shape_text
from ui.backward.model import Box
from ui.inspector.value_view import short_number

# torchviz's colours (graphviz names): lightblue, lightgrey, orange, darkolivegreen1.
LEAF_FILL = QColor("#add8e6")
FN_FILL = QColor("#d3d3d3")
SAVED_FILL = QColor("#ffa500")
OUTPUT_FILL = QColor("#caff70")
#: Ours: gradients that flowed, and the grad_fn executing during a replay.
FLOW = QColor("#a23cc8")
CURRENT = QColor("#e5484d")
INK = QColor("#1b1b1b")  # text on the light torchviz fills, in both themes
SUB_INK = QColor("#3c3c3c")

KIND_FILL = {"leaf": LEAF_FILL, "fn": FN_FILL, "saved": SAVED_FILL, "out": OUTPUT_FILL}
HALO = 5.0  # room around a box for the selection halo
TEXT_LOD = 0.35  # below this zoom the boxes draw no names (their tooltips still tell)

Point = tuple[float, float]
Segment = tuple[Point, Point, Point, Point]


class Fonts:
    """The fonts and metrics every item shares (made once per scene, not per item)."""

    def __init__(self, base: QFont) -> None:
        self.title = QFont(base)
        self.bold = QFont(base)
        self.bold.setBold(True)
        self.sub = QFont(base)
        self.sub.setPointSizeF(base.pointSizeF() * 0.85)
        self.pill = QFont(base)
        self.pill.setPointSizeF(base.pointSizeF() * 0.8)
        self.pill.setBold(True)
        self.m_title = QFontMetricsF(self.title)
        self.m_bold = QFontMetricsF(self.bold)
        self.m_sub = QFontMetricsF(self.sub)
        self.m_pill = QFontMetricsF(self.pill)
        self._widths: dict[tuple[int, str], float] = {}

    def width(self, metrics: QFontMetricsF, text: str) -> float:
        """``metrics.horizontalAdvance(text)``, remembered: a graph repeats its names."""
        key = (id(metrics), text)
        w = self._widths.get(key)
        if w is None:
            w = self._widths[key] = metrics.horizontalAdvance(text)
        return w


def mix(a: QColor, b: QColor, t: float) -> QColor:
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )


@functools.lru_cache(maxsize=64)
def link_pen(rgba: int, width: float, dashed: bool) -> QPen:
    """The pens of the links, made once per style (``setPen`` copies them)."""
    pen = QPen(QColor.fromRgba(rgba), width)
    if dashed:
        pen.setStyle(Qt.PenStyle.DashLine)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    return pen


def grad_text(grad: GradValue) -> str:
    """A gradient in a few characters: the number, or the shape and the range."""
    arr = grad.array
    if arr.size == 1:
        return short_number(float(arr.reshape(-1)[0]))
    if arr.size <= 3:
        return "[" + ", ".join(short_number(float(v)) for v in arr.reshape(-1)) + "]"
    finite = arr[np.isfinite(arr)] if arr.dtype.kind == "f" else arr
    if finite.size == 0:
        return f"{shape_text(grad.shape)} nan"
    lo, hi = short_number(float(finite.min())), short_number(float(finite.max()))
    return f"{shape_text(grad.shape)} {lo}…{hi}"


def box_fill(box: Box) -> QColor:
    """torchviz's colour for a box's kind; washed out (opaque, both themes) when faded."""
    return QColor.fromRgba(fill_rgba(box.kind, box.faded))


@functools.cache
def fill_rgba(kind: str, faded: bool) -> int:
    """``box_fill`` as a number, worked out once per kind (the overview asks per box)."""
    fill = QColor(KIND_FILL[kind])
    if faded:  # a saved tensor freed by backward or modified in place
        fill = mix(fill, QColor("#c8c8c8"), 0.6)
    return fill.rgba()
