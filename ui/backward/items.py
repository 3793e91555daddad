"""The graphics items of the backward-graph view: boxes, edges, gradient labels (their
look is ``ui.backward.item_style``; far out, ``ui.backward.overview`` draws them all).

Kept apart from the view so each item's drawing can be read on its own, and so
the costs that matter for big graphs stay visible: one C++-painted path per edge,
one item for all gradient labels, and one overview item that draws the whole
graph as a few batched paths when it is zoomed out too far to read.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from gradstudio.evaluation.facts import GradValue
from ui.backward.item_style import (
    CURRENT,
    FLOW,
    HALO,
    INK,
    OUTPUT_FILL,
    SUB_INK,
    TEXT_LOD,
    Fonts,
    Point,
    Segment,
    box_fill,
    grad_text,
    link_pen,
)
from ui.backward.model import Box, Link

# ===================================================================== graphics items


_HALO_PEN = QPen(Qt.GlobalColor.transparent, 2 * HALO)


class Shown:
    """What boxes and edges share: part of the graph at this position or not, drawn by
    the item itself or (far out) by the overview, and set up only once first drawn."""

    shown: bool
    _visible: bool
    _realized: bool

    def _realize(self) -> None:
        raise NotImplementedError

    if TYPE_CHECKING:  # the Qt item the class is mixed into provides it

        def setVisible(self, visible: bool) -> None: ...  # noqa: N802

    #: Part of an earlier backward's graph, put aside while the view shows the last one
    #: (``BackwardView.set_show_all``).
    muted = False
    _detail = True

    @property
    def drawn(self) -> bool:
        """At this position and not put aside: what the user sees (zoomed in)."""
        return self.shown and not self.muted

    def set_muted(self, muted: bool) -> None:
        self.muted = muted
        self.set_shown(self.shown, self._detail)

    def set_shown(self, on: bool, detail: bool = True) -> None:
        """``on``: it exists at this position; ``detail``: this item draws it."""
        self.shown = on
        self._detail = detail
        visible = on and detail and not self.muted
        if visible and not self._realized:
            self._realize()
        if visible != self._visible:
            self._visible = visible
            self.setVisible(visible)


class BoxItem(Shown, QGraphicsRectItem):
    """A node of the backward graph, painted by hand (no per-item widgets).

    The item's own pen is never drawn: its width only reserves room for the halo
    in the bounding rectangle that QGraphicsRectItem computes in C++.  Its tooltip
    (``box.tooltip``) is shown by the view, which finds boxes in the overview too.
    """

    def __init__(self, box: Box, fonts: Fonts) -> None:
        self.fonts = fonts
        self.w, self.h = self.size_of(box, fonts)
        super().__init__(-self.w / 2, -self.h / 2, self.w, self.h)
        self.box = box
        self.selected = False
        self.executed = False
        self.current = False
        self.output = False  # a root at this position, without a green box of its own
        self.shown = True  # part of the graph at this position (drawn by it or the overview)
        self._visible = True
        self.cx = self.cy = 0.0  # the centre, as plain numbers for the overview
        self._realized = False  # pen, cache and stacking are set when first drawn

    @staticmethod
    def size_of(box: Box, fonts: Fonts) -> tuple[float, float]:
        """The item's ``(w, h)`` for ``box``, known before the item is made (a layout
        needs the sizes; a big graph's items are made once it is laid out)."""
        tm = fonts.m_bold if box.kind == "fn" else fonts.m_title
        subs = [box.subtitle] + (["modified", "freed"] if box.kind == "saved" else [])
        w = max([fonts.width(tm, box.title)] + [fonts.width(fonts.m_sub, s) for s in subs])
        h = tm.height() + (fonts.m_sub.height() if box.subtitle else 0)
        return max(w + 22, 56.0), h + 14

    def _realize(self) -> None:
        self._realized = True
        self.setPen(_HALO_PEN)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setZValue(2)

    @property
    def fill(self) -> QColor:
        """torchviz's colour for the kind; washed out (opaque, both themes) when faded."""
        return box_fill(self.box)

    def place(self, x: float, y: float) -> None:
        self.cx, self.cy = x, y
        self.setPos(x, y)

    def set_box(self, box: Box) -> None:
        """New facts for the same node (a saved tensor freed, a leaf's shape...)."""
        if box != self.box:
            self.box = box
            self.update()

    def set_state(
        self,
        *,
        selected: bool | None = None,
        executed: bool | None = None,
        current: bool | None = None,
        output: bool | None = None,
    ) -> None:
        new = (
            self.selected if selected is None else selected,
            self.executed if executed is None else executed,
            self.current if current is None else current,
            self.output if output is None else output,
        )
        if new != (self.selected, self.executed, self.current, self.output):
            self.selected, self.executed, self.current, self.output = new
            self.update()

    def paint(
        self, p: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        lod = option.levelOfDetailFromTransform(p.worldTransform())
        r = QRectF(-self.w / 2, -self.h / 2, self.w, self.h)
        kind = self.box.kind
        fill = self.fill
        if self.current:
            pen = QPen(CURRENT, 3.2)
        elif self.executed:
            pen = QPen(FLOW, 2.0)
        else:
            pen = QPen(QColor("#555555"), 1.0)
            if self.box.faded:
                pen.setStyle(Qt.PenStyle.DashLine)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        if self.selected:
            halo = (
                widget.palette().color(QPalette.ColorRole.Highlight)
                if widget
                else QColor("#3d7be0")
            )
            p.setPen(QPen(halo, 3.0))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRoundedRect(r.adjusted(-3.5, -3.5, 3.5, 3.5), 7, 7)
        p.setPen(pen)
        p.setBrush(fill)
        radius = 3.0 if kind == "fn" else 8.0
        p.drawRoundedRect(r, radius, radius)
        if lod < TEXT_LOD:
            return
        lines = self.text_lines()
        if self.output and len(lines) == 2:  # its tensor is an output right now: a green tag
            fonts = self.fonts
            tw = fonts.width(fonts.m_sub, self.box.subtitle) + 10
            tag = QRectF(-tw / 2, lines[1][2].top() + 1, tw, fonts.m_sub.height())
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(OUTPUT_FILL)
            p.drawRoundedRect(tag, 4, 4)
        for (font, text, rect), ink in zip(lines, (INK, SUB_INK), strict=False):
            p.setFont(font)
            p.setPen(ink)
            p.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)

    def text_lines(self) -> list[tuple[QFont, str, QRectF]]:
        """What ``paint`` writes, in which font and rectangle: the title, then the
        subtitle if any (each whole: the box is sized to hold both)."""
        fonts = self.fonts
        r = QRectF(-self.w / 2, -self.h / 2, self.w, self.h)
        title_font = fonts.bold if self.box.kind == "fn" else fonts.title
        if not self.box.subtitle:
            return [(title_font, self.box.title, r)]
        tm = fonts.m_bold if self.box.kind == "fn" else fonts.m_title
        top = QRectF(r.left(), r.top() + 6, r.width(), tm.height())
        bottom = QRectF(r.left(), top.bottom(), r.width(), r.bottom() - top.bottom() - 6)
        return [(title_font, self.box.title, top), (fonts.sub, self.box.subtitle, bottom)]


class PillLayer(QGraphicsItem):
    """The gradients that flowed along the edges, as small labels, drawn by one item.

    A big graph has thousands of edges and shows a gradient on each after backward;
    one item painting the labels in the exposed area costs far less than an item
    per label (to create, to index and to restyle on every replay step).
    """

    def __init__(self, fonts: Fonts) -> None:
        super().__init__()
        self.fonts = fonts
        self.pills: list[tuple[QPointF, str, bool]] = []  # (centre, text, strong)
        self._bounds = QRectF()
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setZValue(1.9)  # over the edges, under the boxes

    def set_pills(self, pills: list[tuple[QPointF, str, bool]], bounds: QRectF) -> None:
        if pills != self.pills or bounds != self._bounds:
            if bounds != self._bounds:
                self.prepareGeometryChange()
                self._bounds = bounds
            self.pills = pills
            self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt API
        return self._bounds

    def shape(self) -> QPainterPath:
        return QPainterPath()  # never under the mouse: clicks reach the boxes and the view

    def pill_rect(self, centre: QPointF, text: str) -> QRectF:
        w = self.fonts.width(self.fonts.m_pill, text) + 12
        h = self.fonts.m_pill.height() + 4
        return QRectF(centre.x() - w / 2, centre.y() - h / 2, w, h)

    def paint(
        self, p: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        if not self.pills or option.levelOfDetailFromTransform(p.worldTransform()) < 0.45:
            return
        exposed = option.exposedRect.adjusted(-60, -12, 60, 12)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setFont(self.fonts.pill)
        background = QColor(255, 255, 255, 238)
        for centre, text, strong in self.pills:
            if not exposed.contains(centre):
                continue
            r = self.pill_rect(centre, text)
            colour = CURRENT if strong else FLOW
            p.setPen(QPen(colour, 1.2))
            p.setBrush(background)
            p.drawRoundedRect(r, r.height() / 2, r.height() / 2)
            p.setPen(colour.darker(130))
            p.drawText(r, Qt.AlignmentFlag.AlignCenter, text)


class LinkItem(Shown, QGraphicsPathItem):
    """An edge: a curve along the layout's main axis ending in an arrowhead.

    One path item per edge, painted by Qt in C++ (no Python ``paint``, no child
    items): a graph has thousands of edges and all of them repaint on a zoom.  The
    arrowhead is a closed triangle in the same path; the curve runs out and back
    along itself, so it encloses no area and only the triangle takes the fill.
    """

    def __init__(
        self,
        link: Link,
        tail: tuple[float, float, float, float],
        head: tuple[float, float, float, float],
        vertical: bool,
        ink: QColor,
        ports: tuple[float, float] = (0.0, 0.0),
        pill_at: float = 0.5,
        via: list[tuple[float, float]] | None = None,
    ) -> None:
        """``tail`` and ``head``: the boxes' centres and sizes, ``(x, y, w, h)``; ``via``:
        the points a long edge passes on its way (the layout keeps them free)."""
        super().__init__()
        self.link = link
        self.ink = ink  # the colour of an edge nothing has flowed along yet
        self.shown = True
        self._visible = True
        (ax, ay, aw, ah), (bx, by, bw, bh) = tail, head
        main = 1 if vertical else 0
        if vertical:
            ax, bx = ax + ports[0], bx + ports[1]
            sign = 1.0 if by >= ay else -1.0
            x0, y0, x1, y1 = ax, ay + sign * ah / 2, bx, by - sign * bh / 2
        else:
            ay, by = ay + ports[0], by + ports[1]
            sign = 1.0 if bx >= ax else -1.0
            x0, y0, x1, y1 = ax + sign * aw / 2, ay, bx - sign * bw / 2, by
        points = [(x0, y0), *(via or []), (x1, y1)]
        #: Cubic pieces ``(start, control, control, end)``, leaving and entering every
        #: point along the main axis, so an edge through its dummies runs straight.
        self.segments: list[Segment] = []
        for (px, py), (qx, qy) in itertools.pairwise(points):
            bend = max(abs((qy - py) if vertical else (qx - px)) * 0.45, 12.0) * sign
            c0 = (px, py + bend) if main else (px + bend, py)
            c1 = (qx, qy - bend) if main else (qx - bend, qy)
            self.segments.append(((px, py), c0, c1, (qx, qy)))
        self.pill_at = pill_at
        self._pill_pos: QPointF | None = None
        self._spots: list[Point] | None = None
        self.flow: GradValue | None = None
        self.strong = False
        self._flow_text: str | None = ""
        self._realized = False  # path and pen are set the first time the item is drawn

    def _realize(self) -> None:
        """Give the item its path and pen (deferred: far out the overview draws edges)."""
        self._realized = True
        self.setPath(self.outline())
        self._apply_style()

    def outline(self) -> QPainterPath:
        """The edge's path: the curve, then (for an arrow) back along it and the head."""
        path = QPainterPath()
        path.moveTo(*self.segments[0][0])
        for _, c0, c1, end in self.segments:
            path.cubicTo(*c0, *c1, *end)
        if self.link.arrow:
            for start, c0, c1, _ in reversed(self.segments):
                path.cubicTo(*c1, *c0, *start)
            _, _, c1, end = self.segments[-1]
            _add_arrow_head(path, c1, end)
        return path

    def bounds(self) -> QRectF:
        """The scene rectangle the edge and its arrowhead stay inside (the control hull)."""
        xs = [p[0] for seg in self.segments for p in seg]
        ys = [p[1] for seg in self.segments for p in seg]
        return QRectF(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)).adjusted(-8, -8, 8, 8)

    @property
    def pill_pos(self) -> QPointF:
        """Where the gradient label sits best: a point along the curve (computed once)."""
        if self._pill_pos is None:
            self._pill_pos = QPointF(*self.point_at(self.pill_at))
        return self._pill_pos

    def point_at(self, at: float) -> Point:
        """The point a fraction ``at`` along the edge (by pieces, then Bézier parameter)."""
        n = len(self.segments)
        piece = min(int(at * n), n - 1)
        t = at * n - piece
        u = 1.0 - t
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = self.segments[piece]
        a, b, c, d = u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t
        return (a * x0 + b * x1 + c * x2 + d * x3, a * y0 + b * y1 + c * y2 + d * y3)

    def label_spots(self) -> list[Point]:
        """Where the gradient label may sit, best first: the middle, then further out."""
        if self._spots is None:
            p = self.pill_at
            ats = [p, p - 0.15, p + 0.15, p - 0.28, p + 0.28, p - 0.07, p + 0.07, p + 0.36]
            self._spots = [self.point_at(min(max(at, 0.08), 0.92)) for at in ats]
        return self._spots

    @property
    def flow_text(self) -> str:
        """The gradient on this edge in a few characters ("" before one has flowed)."""
        if self._flow_text is None:
            self._flow_text = "" if self.flow is None else grad_text(self.flow)
        return self._flow_text

    def set_flow(self, grad: GradValue | None, strong: bool) -> None:
        """Show the gradient that flowed here (None: nothing has flowed yet)."""
        if grad is self.flow and strong == self.strong:
            return
        if grad is not self.flow:
            self._flow_text = None
        self.flow, self.strong = grad, strong
        if self._realized:
            self._apply_style()

    def _apply_style(self) -> None:
        grad, strong = self.flow, self.strong
        if grad is None:
            colour, width = self.ink, 1.2
        else:
            colour, width = (CURRENT if strong else FLOW), (2.6 if strong else 1.8)
        self.setPen(link_pen(colour.rgba(), width, self.link.dashed))
        if self.link.arrow:
            self.setBrush(colour)
        self.setZValue(1.5 if grad is not None else 1)


def _add_arrow_head(
    path: QPainterPath, ctrl: tuple[float, float], end: tuple[float, float], size: float = 8.0
) -> None:
    """A closed triangle with its tip at ``end``, pointing away from ``ctrl``."""
    dx, dy = end[0] - ctrl[0], end[1] - ctrl[1]
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length * size, dy / length * size
    bx, by = end[0] - ux, end[1] - uy
    path.moveTo(*end)
    path.lineTo(bx - uy * 0.5, by + ux * 0.5)
    path.lineTo(bx + uy * 0.5, by - ux * 0.5)
    path.closeSubpath()
