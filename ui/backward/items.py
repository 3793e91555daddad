"""The graphics items of the backward-graph view: boxes, edges, gradient labels, overview.

Kept apart from the view so each item's drawing can be read on its own, and so
the costs that matter for big graphs stay visible: one C++-painted path per edge,
one item for all gradient labels, and one overview item that draws the whole
graph as a few batched paths when it is zoomed out too far to read.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Collection, Generator, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsRectItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from gradstudio.evaluation.facts import GradValue
from gradstudio.text import shape_text
from ui.backward.model import Box, BoxId, Link
from ui.backward.steps import finish
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
        self.setPen(_link_pen(colour.rgba(), width, self.link.dashed))
        if self.link.arrow:
            self.setBrush(colour)
        self.setZValue(1.5 if grad is not None else 1)


def _group_box(
    groups: dict[tuple[str, int, float], Any],
    item: Any,
    fill: int,
    current: bool,
    executed: bool,
    selected: bool,
    highlight: QColor,
) -> None:
    """A box's rectangle in the overview's batches: its fill, then its marks."""
    rect = QRectF(item.cx - item.w / 2, item.cy - item.h / 2, item.w, item.h)
    groups.setdefault(("fill", fill, 0.0), []).append(rect)
    if current:
        groups.setdefault(("mark", CURRENT.rgba(), 2.5), []).append(rect)
    elif executed:  # many during a replay: hairlines, Qt's fastest stroke
        groups.setdefault(("mark", FLOW.rgba(), 0.0), []).append(rect)
    if selected:
        halo = rect.adjusted(-4, -4, 4, 4)
        groups.setdefault(("mark", highlight.rgba(), 3.0), []).append(halo)


def _sorted_batches(
    groups: dict[tuple[str, int, float], Any],
) -> list[tuple[str, QColor, float, Any]]:
    order = {"edge": 0, "fill": 1, "mark": 2}
    batches = [(kind, QColor.fromRgba(rgba), w, p) for (kind, rgba, w), p in groups.items()]
    return sorted(batches, key=lambda b: (order[b[0]], b[2]))


def _mix(a: QColor, b: QColor, t: float) -> QColor:
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )


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


@functools.lru_cache(maxsize=64)
def _link_pen(rgba: int, width: float, dashed: bool) -> QPen:
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
        fill = _mix(fill, QColor("#c8c8c8"), 0.6)
    return fill.rgba()


@dataclass(frozen=True)
class OverviewState:
    """The graph at the position, for an overview drawing ahead of its (hidden) items:
    the boxes and link flows shown, the gradients, the strong flows, the grad_fns run
    and the one running."""

    boxes: Mapping[BoxId, Box]
    present: Collection[tuple]
    flows: Mapping[tuple, GradValue | None]
    strong: Collection[tuple]
    done: Collection[int]
    current: int | None


BATCH_CHUNK = 1000  # links or boxes batched between two yields (a few ms of work)
OVERVIEW_LOD = (
    0.3  # below this zoom (no text is readable) one BackwardOverview item draws the graph
)


class BackwardOverview(QGraphicsItem):
    """The whole graph as a few batched paths, for zoomed-out views of big graphs.

    Far out, the boxes are a few pixels and the labels are not drawn at all, but
    each item still costs Qt a cached pixmap and a call; a thousand-node graph
    would take a quarter of a second per repaint.  The view hides the items then
    and this one draws the same picture: boxes filled in torchviz's colours, edges
    in their flow colours, the selected and the executing grad_fn outlined.
    """

    def __init__(self) -> None:
        super().__init__()
        self._bounds = QRectF()
        self._boxes: list[BoxItem] = []
        self._links: list[LinkItem] = []
        self._paths: list[tuple[str, QColor, float, Any]] | None = None
        self._state: OverviewState | None = None
        #: The links, their styles and the paths made of them (``_edge_paths``).
        self._edges: tuple[list[LinkItem], list, dict] | None = None
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setZValue(0.5)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)  # panning blits

    def set_items(
        self, boxes: Iterable[BoxItem], links: Iterable[LinkItem], bounds: QRectF
    ) -> None:
        self.prepareGeometryChange()
        self._boxes, self._links, self._bounds = list(boxes), list(links), QRectF(bounds)
        self.invalidate()

    def invalidate(self) -> None:
        """Something shown changed: batch the paths again before the next paint."""
        self._paths = None
        if self.isVisible():
            self.update()

    @property
    def batching(self) -> bool:
        """Its next paint batches the items as they are then (nothing needs redrawing)."""
        return self._paths is None and self._state is None

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt API
        return self._bounds

    def shape(self) -> QPainterPath:
        return QPainterPath()  # clicks are resolved by the view (see ``box_near``)

    def _batch(self, highlight: QColor) -> list[tuple[str, QColor, float, Any]]:
        """Shapes grouped by what they are (edge, fill, mark) and how they are drawn.

        Edges are one path of curves per colour; boxes are lists of rectangles for
        ``drawRects``: one path of a thousand rectangles fills several times slower.
        """
        state = self._state
        if state is not None:
            return self._batch_state(state, highlight)
        styles: list[tuple[str, int, float] | None] = []
        for link in self._links:
            if not link.shown:
                styles.append(None)
                continue
            if link.flow is None:
                colour, width = link.ink, 0.0
            else:
                colour, width = (CURRENT, 2.0) if link.strong else (FLOW, 0.0)
            styles.append(("edge", colour.rgba(), width))
        groups = self._edge_paths(styles)
        for box in self._boxes:
            if not box.shown:
                continue
            fill = fill_rgba(box.box.kind, box.box.faded)
            _group_box(groups, box, fill, box.current, box.executed, box.selected, highlight)
        return _sorted_batches(groups)

    def _batch_state(
        self, state: OverviewState, highlight: QColor
    ) -> list[tuple[str, QColor, float, Any]]:
        """``_batch``, with what is shown read from ``state`` instead of the items."""
        return finish(self.batching_state(state, highlight))

    def batching_state(
        self, state: OverviewState, highlight: QColor
    ) -> Generator[None, None, list[tuple[str, QColor, float, Any]]]:
        """``_batch_state`` in steps: it yields after each chunk of links or boxes, so
        that a big graph's picture is made over idle ticks (``BackwardView``)."""
        present, flows, strong = state.present, state.flows, state.strong
        styles: list[tuple[str, int, float] | None] = []
        for n, link in enumerate(self._links, 1):
            if n % BATCH_CHUNK == 0:
                yield
            flow = link.link.flow
            if flow not in present:
                styles.append(None)
                continue
            if flows.get(flow) is None:
                colour, width = link.ink, 0.0
            else:
                colour, width = (CURRENT, 2.0) if flow in strong else (FLOW, 0.0)
            styles.append(("edge", colour.rgba(), width))
        yield
        groups = yield from self._edge_path_steps(styles)
        boxes, done, current = state.boxes, state.done, state.current
        for n, item in enumerate(self._boxes, 1):
            if n % BATCH_CHUNK == 0:
                yield
            box = boxes.get(item.box.id)
            if box is None:
                continue
            fn = box.kind == "fn"
            is_current, executed = fn and box.key == current, fn and box.key in done
            fill = fill_rgba(box.kind, box.faded)
            _group_box(groups, item, fill, is_current, executed, item.selected, highlight)
        return _sorted_batches(groups)

    def _edge_paths(
        self, styles: list[tuple[str, int, float] | None]
    ) -> dict[tuple[str, int, float], Any]:
        """One path of curves per edge style (``styles``: each link's, None: not shown)."""
        return finish(self._edge_path_steps(styles))

    def _edge_path_steps(
        self, styles: list[tuple[str, int, float] | None]
    ) -> Generator[None, None, dict[tuple[str, int, float], Any]]:
        """``_edge_paths`` in steps (a chunk of links each).

        The same styles as the last time give the same paths, kept: a re-run after an
        edit of values, or a scrub that changes no edge's colour, builds no curve again.
        """
        memo = self._edges
        if memo is not None and memo[0] is self._links and memo[1] == styles:
            return dict(memo[2])
        paths: dict[tuple[str, int, float], Any] = {}
        for n, (link, key) in enumerate(zip(self._links, styles, strict=True), 1):
            if n % BATCH_CHUNK == 0:
                yield
            if key is None:
                continue
            edge = paths.get(key)
            if edge is None:
                edge = paths[key] = QPainterPath()
            edge.moveTo(*link.segments[0][0])
            for _, c0, c1, end in link.segments:
                edge.cubicTo(*c0, *c1, *end)
        self._edges = (self._links, styles, paths)
        return dict(paths)

    def show_batches(self, paths: list[tuple[str, QColor, float, Any]]) -> None:
        """Draw these batches (made by ``batching_state``) from the next paint."""
        self._paths = paths
        if self.isVisible():
            self.update()

    @property
    def state(self) -> OverviewState | None:
        """What it draws from while the items lag behind (None: from the items)."""
        return self._state

    def set_state(self, state: OverviewState | None) -> None:
        """Draw from ``state`` (the items lag behind), or from the items again (None)."""
        self._state = state
        if state is None:
            self.invalidate()

    def paint(
        self, p: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        if self._paths is None:
            highlight = widget.palette().color(QPalette.ColorRole.Highlight) if widget else FLOW
            self._paths = self._batch(highlight)
        for kind, colour, width, shapes in self._paths:
            if kind == "fill":
                p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
                p.setPen(Qt.PenStyle.NoPen)
                p.setBrush(colour)
                p.drawRects(shapes)
                continue
            pen = QPen(colour, width)  # 0: a hairline
            pen.setCosmetic(True)  # a pixel or two wide whatever the zoom
            p.setPen(pen)
            p.setBrush(Qt.BrushStyle.NoBrush)
            if kind == "edge":
                p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
                p.drawPath(shapes)
            else:
                p.setRenderHint(QPainter.RenderHint.Antialiasing, False)
                p.drawRects(shapes)
