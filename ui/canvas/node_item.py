"""One node card on the canvas: header, typed ports and the autograd facts of its output.

The card shows what a learner asks of every tensor: its value, leaf or not,
``requires_grad`` (the border colour), the ``grad_fn`` name, a badge once ``.grad``
is populated, the step number, and the error in red when its step raised.  Zoomed
out, text goes first (level of detail); far out the scene's overview draws the
card instead (``ui.canvas.overview``), so big graphs stay fluid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsSceneHoverEvent,
    QStyleOptionGraphicsItem,
    QWidget,
)

from gradstudio.catalogue import NodeKind, NodeType, PortSpec
from ui.canvas.node_facts import NodeFacts, format_shape
from ui.canvas.port_item import PortItem
from ui.canvas.style import (
    CORNER,
    FACTS_LINE,
    FACTS_PAD,
    HEADER_HEIGHT,
    NODE_WIDTH,
    PORT_ROW,
    PORT_TOP_PAD,
    CanvasStyle,
    card_height,
    card_rows,
)

if TYPE_CHECKING:
    from gradstudio.document.model import Node
    from ui.canvas.scene import GraphScene

NODE_TYPE = QGraphicsItem.UserType + 1
LOD_TEXT = 0.45  # below this zoom, the card's details give way to its label and mark
EXECUTING = "#e5484d"  # the backward graph's colour for the grad_fn running now
TOUCHED = "#b57bff"  # ... and its gradient purple, for the nodes it just reached
FAR_LABEL_PX = 13.0  # on-screen size of a far card's label
FAR_MARK_PX = 11.0  # ... and of its leaf / grad_fn mark
GRAD_BADGE_CHARS = 9  # a .grad value this short is written in its badge
NODE_FLAGS = (
    QGraphicsItem.GraphicsItemFlag.ItemIsMovable | QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
)
PortPlaces = list[tuple[PortSpec, bool, QPointF]]
PortCentres = dict[tuple[str, bool], tuple[float, float]]
_PORT_LAYOUTS: dict[str, tuple[PortPlaces, float, float, PortCentres]] = {}


def _port_layout(node_type: NodeType) -> tuple[PortPlaces, float, float, PortCentres]:
    """Port places, facts top, height and port centres by ``(name, is_input)`` for a
    type (the same for every node of it; wires look the centres up by name)."""
    cached = _PORT_LAYOUTS.get(node_type.id)
    if cached is None:
        top = HEADER_HEIGHT + PORT_TOP_PAD
        ports = [
            (spec, True, QPointF(0.0, top + PORT_ROW * i + PORT_ROW / 2))
            for i, spec in enumerate(node_type.inputs)
        ] + [
            (spec, False, QPointF(NODE_WIDTH, top + PORT_ROW * i + PORT_ROW / 2))
            for i, spec in enumerate(node_type.outputs)
        ]
        facts_top = top + PORT_ROW * card_rows(node_type) + 2.0
        centres = {(spec.name, is_input): (c.x(), c.y()) for spec, is_input, c in ports}
        cached = (ports, facts_top, card_height(node_type), centres)
        _PORT_LAYOUTS[node_type.id] = cached
    return cached


def _param_summary(node: Node) -> str:
    """A one-line reminder of a source node's set-up, shown before evaluation."""
    params = node.params
    for name in ("data", "size", "sizes", "fill_value", "end"):
        if name in params and params[name] is not None:
            value = params[name]
            text = format_shape(tuple(value)) if name in ("size", "sizes") else str(value)
            return f"{name} = {text}"
    return ""


def _wrap(text: str, metrics: QFontMetricsF, width: float, lines: int) -> list[str]:
    """Word-wrap ``text`` into at most ``lines`` lines, eliding the last one."""
    words = text.split()
    out: list[str] = []
    while words and len(out) < lines - 1:
        line = words.pop(0)
        while words and metrics.horizontalAdvance(line + " " + words[0]) <= width:
            line += " " + words.pop(0)
        out.append(line)
    if words:
        out.append(metrics.elidedText(" ".join(words), Qt.TextElideMode.ElideRight, width))
    return out


class NodeItem(QGraphicsItem):
    """A card for one document node; its position is the node's ``(x, y)``."""

    def __init__(self, node: Node, host: GraphScene) -> None:
        super().__init__()
        self.host = host
        self.node = node
        self.node_id = node.id
        self.node_type: NodeType = node.type
        self.step = 0
        self.facts = NodeFacts()
        self.dimmed = False
        self._hover_port: PortItem | None = None
        # no ItemSendsGeometryChanges / itemChange: the scene re-routes wires itself,
        # which keeps building a 5,000-node scene free of Python callbacks per change
        self.setFlags(NODE_FLAGS)
        self.setAcceptHoverEvents(True)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setZValue(1.0)
        self._layout()
        self.setPos(node.x, node.y)

    # ------------------------------------------------------------------ geometry
    def type(self) -> int:  # noqa: A003 - Qt's name
        return NODE_TYPE

    def _layout(self) -> None:
        places, self.facts_top, self.height, self._centres = _port_layout(self.node_type)
        self.ports: list[PortItem] = [
            PortItem(self.node_id, spec, is_input, center) for spec, is_input, center in places
        ]
        self._rect = QRectF(0.0, 0.0, NODE_WIDTH, self.height)
        self._bounds = self._rect.adjusted(-8.0, -12.0, 8.0, 8.0)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._bounds

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRoundedRect(self._rect.adjusted(-6.0, 0.0, 6.0, 0.0), CORNER, CORNER)
        return path

    def port(self, name: str, is_input: bool) -> PortItem | None:
        for p in self.ports:
            if p.name == name and p.is_input == is_input:
                return p
        return None

    def port_at(self, local: QPointF) -> PortItem | None:
        """The port whose dot is under ``local`` (node coordinates), if any."""
        for p in self.ports:
            if p.hit(local):
                return p
        return None

    def port_scene_pos(self, name: str, is_input: bool) -> QPointF:
        """A port's centre in scene coordinates (cards are never rotated or scaled)."""
        x, y = self._centres.get((name, is_input), (0.0, HEADER_HEIGHT / 2))
        pos = self.pos()
        return QPointF(pos.x() + x, pos.y() + y)

    # ------------------------------------------------------------------ state
    def set_node(self, node: Node) -> None:
        """The document replaced this node's value (label or params changed)."""
        self.node = node
        self.refresh()

    def set_facts(self, facts: NodeFacts, dimmed: bool) -> None:
        if facts != self.facts or dimmed != self.dimmed:
            was_error = self.facts.status == "error"
            self.facts = facts
            self.dimmed = dimmed
            if was_error or facts.status == "error":
                self._update_tooltip()
            self.refresh()

    def set_step(self, step: int) -> None:
        if step != self.step:
            self.step = step
            self.refresh()

    def refresh(self) -> None:
        """Repaint (and drop the cached pixmap)."""
        self.update()

    def set_overview(self, on: bool) -> None:
        """Far out the scene's overview draws this card: paint nothing, but stay
        in the scene so that clicks, drags and rubber-band selection still find it."""
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, on)

    def _update_tooltip(self) -> None:
        f = self.facts
        if f.status == "error":
            self.setToolTip(self.host.error_tooltip(self.node_id))
        else:
            self.setToolTip("")

    # ------------------------------------------------------------------ interaction
    def hoverMoveEvent(self, event: QGraphicsSceneHoverEvent) -> None:  # noqa: N802
        port = self.port_at(event.pos())
        if port is not self._hover_port:
            self._hover_port = port
            if port is not None:
                scalar = self.node.params.get(port.name) if port.spec.scalar_ok else None
                self.setToolTip(port.describe(scalar))
            else:
                self._update_tooltip()
            self.update()
        super().hoverMoveEvent(event)

    def hoverLeaveEvent(self, event: QGraphicsSceneHoverEvent) -> None:  # noqa: N802
        if self._hover_port is not None:
            self._hover_port = None
            self._update_tooltip()
            self.update()
        super().hoverLeaveEvent(event)

    # ------------------------------------------------------------------ painting
    def border_color(self, s: CanvasStyle) -> QColor:
        f = self.facts
        if f.status == "error":
            return s.c("error")
        if f.requires_grad:
            return s.c("requires_grad")
        return s.c("node_border")

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        s = self.host.style
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        rect = self._rect
        selected = self.isSelected()
        if self.dimmed:
            painter.setOpacity(0.45)
        header_color = s.category(self.node_type.category)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        # shadow
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(s.c("node_shadow"))
        painter.drawRoundedRect(rect.translated(0.0, 3.0), CORNER, CORNER)
        # body
        painter.setBrush(s.c("node_body"))
        painter.drawRoundedRect(rect, CORNER, CORNER)
        # header
        header = QPainterPath()
        header.addRoundedRect(QRectF(0, 0, rect.width(), HEADER_HEIGHT + CORNER), CORNER, CORNER)
        clip = QPainterPath()
        clip.addRect(QRectF(0, 0, rect.width(), HEADER_HEIGHT))
        painter.setBrush(header_color.darker(135) if s.theme.is_dark else header_color)
        painter.drawPath(header.intersected(clip))
        # border: requires_grad colour, error red, selection outline
        border = self.border_color(s)
        width = 2.0 if (self.facts.requires_grad or self.facts.status == "error") else 1.0
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(border, width))
        painter.drawRoundedRect(rect, CORNER, CORNER)
        role = self.facts.replay_role
        if role:
            # the backward replay: this node's grad_fn runs now (the backward graph's red),
            # or it just received a gradient from the one that runs
            ring = QColor(EXECUTING if role == "executing" else TOUCHED)
            painter.setPen(QPen(ring, 3.0 if role == "executing" else 2.0, Qt.PenStyle.SolidLine))
            painter.drawRoundedRect(rect.adjusted(-6.5, -6.5, 6.5, 6.5), CORNER + 6, CORNER + 6)
        if selected:
            painter.setPen(QPen(s.c("node_selected"), 1.5, Qt.PenStyle.SolidLine))
            painter.drawRoundedRect(rect.adjusted(-3.5, -3.5, 3.5, 3.5), CORNER + 3, CORNER + 3)
        if lod >= LOD_TEXT:
            self._paint_header(painter, s)
            self._paint_ports_text(painter, s)
            self._paint_facts(painter, s)
        else:
            self._paint_far(painter, s, lod)
        self._paint_ports(painter, s)

    def _paint_far(self, painter: QPainter, s: CanvasStyle, lod: float) -> None:
        """Semantic zoom: too far out for the card's details, its label and its autograd
        mark (leaf, or the grad_fn's name) are drawn at a size that stays readable on
        screen, as maps keep place names legible when zoomed out."""
        rect = self._rect.adjusted(6.0, 4.0, -6.0, -4.0)
        label_font = QFont(s.title_font)
        label_font.setPixelSize(max(8, min(int(FAR_LABEL_PX / lod), int(rect.height() * 0.45))))
        label_font.setBold(True)
        metrics = QFontMetricsF(label_font)
        painter.setFont(label_font)
        painter.setPen(s.c("text"))
        top = QRectF(rect.left(), rect.top() + HEADER_HEIGHT * 0.2, rect.width(), rect.height() / 2)
        painter.drawText(
            top,
            Qt.AlignmentFlag.AlignCenter,
            metrics.elidedText(self.node.label, Qt.TextElideMode.ElideRight, rect.width()),
        )
        f = self.facts
        if f.is_leaf is None:
            return
        mark = "leaf" if f.is_leaf else (f.grad_fn or "")
        mark_font = QFont(s.small_font)
        mark_font.setPixelSize(max(7, min(int(FAR_MARK_PX / lod), int(rect.height() * 0.3))))
        mark_metrics = QFontMetricsF(mark_font)
        painter.setFont(mark_font)
        painter.setPen(s.c("requires_grad") if f.requires_grad else s.c("text_dim"))
        bottom = QRectF(rect.left(), rect.center().y(), rect.width(), rect.height() / 2)
        painter.drawText(
            bottom,
            Qt.AlignmentFlag.AlignCenter,
            mark_metrics.elidedText(mark, Qt.TextElideMode.ElideRight, rect.width()),
        )

    def _paint_header(self, painter: QPainter, s: CanvasStyle) -> None:
        # step number in a small dark disc
        step_text = str(self.step + 1)
        painter.setFont(s.badge_font)
        w = max(18.0, s.badge_metrics.horizontalAdvance(step_text) + 8.0)
        disc = QRectF(6.0, (HEADER_HEIGHT - 16.0) / 2, w, 16.0)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(0, 0, 0, 90))
        painter.drawRoundedRect(disc, 8.0, 8.0)
        painter.setPen(s.c("header_text"))
        painter.drawText(disc, Qt.AlignmentFlag.AlignCenter, step_text)
        # label, then the type title on the right
        title = self.node_type.title
        painter.setFont(s.small_font)
        tw = min(s.small_metrics.horizontalAdvance(title) + 2.0, 78.0)
        type_rect = QRectF(NODE_WIDTH - 8.0 - tw, 0.0, tw, HEADER_HEIGHT)
        dim = QColor(s.c("header_text"))
        dim.setAlpha(170)
        painter.setPen(dim)
        painter.drawText(
            type_rect,
            Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight,
            s.small_metrics.elidedText(title, Qt.TextElideMode.ElideRight, tw),
        )
        painter.setFont(s.title_font)
        painter.setPen(s.c("header_text"))
        left = disc.right() + 6.0
        avail = type_rect.left() - left - 6.0
        painter.drawText(
            QRectF(left, 0.0, avail, HEADER_HEIGHT),
            Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
            s.title_metrics.elidedText(self.node.label, Qt.TextElideMode.ElideRight, avail),
        )

    def _port_color(self, s: CanvasStyle, port: PortItem) -> QColor:
        return s.c("port_tensors") if port.type.value == "tensors" else s.c("port_tensor")

    def _paint_ports(self, painter: QPainter, s: CanvasStyle) -> None:
        connected = self.host.connected_ports(self.node_id)
        for port in self.ports:
            port.paint(
                painter,
                self._port_color(s, port),
                s.c("node_body"),
                (port.name, port.is_input) in connected,
                port is self._hover_port,
            )

    def _paint_ports_text(self, painter: QPainter, s: CanvasStyle) -> None:
        painter.setFont(s.small_font)
        connected = self.host.connected_ports(self.node_id)
        half = NODE_WIDTH / 2 - 10.0
        for port in self.ports:
            y = port.center.y() - PORT_ROW / 2
            text = port.name
            if port.is_input:
                if port.spec.variadic:
                    n = self.host.input_count(self.node_id, port.name)
                    text = f"{text} ({n})" if n else f"{text} …"
                if port.spec.scalar_ok and (port.name, True) not in connected:
                    value = self.node.params.get(port.name)
                    if value is not None:
                        text = f"{text} = {value}"
                color = s.c("text") if not port.spec.optional else s.c("text_dim")
                painter.setPen(color)
                painter.drawText(
                    QRectF(12.0, y, half + 18.0, PORT_ROW),
                    Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                    s.small_metrics.elidedText(text, Qt.TextElideMode.ElideRight, half + 18.0),
                )
            else:
                painter.setPen(s.c("text"))
                painter.drawText(
                    QRectF(NODE_WIDTH - 12.0 - half, y, half, PORT_ROW),
                    Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight,
                    s.small_metrics.elidedText(text, Qt.TextElideMode.ElideLeft, half),
                )

    def _pill(
        self,
        painter: QPainter,
        s: CanvasStyle,
        x: float,
        y: float,
        text: str,
        color: QColor,
        filled: bool,
    ) -> float:
        """Draw a rounded label at (x, y); returns its width."""
        w = s.badge_metrics.horizontalAdvance(text) + 10.0
        r = QRectF(x, y + 2.0, w, FACTS_LINE - 4.0)
        painter.setPen(QPen(color, 1.0))
        fill = QColor(color)
        fill.setAlpha(255 if filled else 40)
        painter.setBrush(fill)
        painter.drawRoundedRect(r, 4.0, 4.0)
        painter.setPen(s.c("node_body") if filled else color)
        painter.setFont(s.badge_font)
        painter.drawText(r, Qt.AlignmentFlag.AlignCenter, text)
        return w

    def _paint_facts(self, painter: QPainter, s: CanvasStyle) -> None:
        f = self.facts
        x0, width = 10.0, NODE_WIDTH - 20.0
        y = self.facts_top + FACTS_PAD
        painter.setPen(QPen(s.c("node_border"), 1.0))
        painter.drawLine(QPointF(1.0, self.facts_top), QPointF(NODE_WIDTH - 1.0, self.facts_top))
        if self.host.stale and f.status != "none":
            painter.setOpacity(painter.opacity() * 0.55)
        line = QRectF(x0, y, width, FACTS_LINE)
        left_mid = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft
        right_mid = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight
        if f.status == "error":
            painter.setFont(s.small_font)
            painter.setPen(s.c("error"))
            lines = 2 if self.node_type.outputs else 1
            for i, text in enumerate(_wrap("⚠ " + f.error_title, s.small_metrics, width, lines)):
                painter.drawText(QRectF(x0, y + FACTS_LINE * i, width, FACTS_LINE), left_mid, text)
            return
        if f.status in ("none", "pending", "skipped"):
            painter.setFont(s.small_font)
            painter.setPen(s.c("text_dim"))
            if f.status == "pending":
                msg = "not run yet at this step"
            elif f.status == "skipped":
                msg = "not run: an earlier step failed"
            elif self.node_type.kind is NodeKind.SOURCE:
                msg = _param_summary(self.node)
            else:
                msg = "run to see its facts"
            painter.drawText(
                line, left_mid, s.small_metrics.elidedText(msg, Qt.TextElideMode.ElideRight, width)
            )
            return
        if not f.has_tensor:
            painter.setFont(s.small_font)
            if self.node_type.outputs:
                painter.setPen(s.c("text_dim"))
                text = "None" if f.list_length is None else f"list of {f.list_length}"
            else:
                painter.setPen(s.c("ok"))
                text = "✓ ran"
            if f.warnings:
                text += f"   ⚠ {len(f.warnings)} warning" + ("s" if len(f.warnings) > 1 else "")
                painter.setPen(s.c("warning"))
            painter.drawText(line, left_mid, text)
            return
        # line 1: value (mono) and shape/dtype (dim)
        painter.setFont(s.small_font)
        meta = f"{f.shape} {f.dtype}"
        if f.list_length is not None:
            meta = f"list[{f.list_length}] · " + meta
        mw = s.small_metrics.horizontalAdvance(meta)
        painter.setPen(s.c("text_dim"))
        painter.drawText(line, right_mid, meta)
        painter.setFont(s.mono_font)
        painter.setPen(s.c("text"))
        vw = max(20.0, width - mw - 8.0)
        painter.drawText(
            QRectF(x0, y, vw, FACTS_LINE),
            left_mid,
            s.mono_metrics.elidedText(f.value, Qt.TextElideMode.ElideRight, vw),
        )
        # line 2: leaf mark, grad_fn (or requires_grad), .grad badge, warnings
        y += FACTS_LINE
        x = x0
        if f.is_leaf:
            x += self._pill(painter, s, x, y, "LEAF", s.c("leaf"), False) + 5.0
        else:
            x += self._pill(painter, s, x, y, "NON-LEAF", s.c("non_leaf"), False) + 5.0
        right = x0 + width
        if f.has_grad:
            grad = f.grad or ""
            # the value itself when it is short (w.grad = 5.), else just the mark
            text = f".grad {grad}" if len(grad) <= GRAD_BADGE_CHARS else ".grad"
            w = s.badge_metrics.horizontalAdvance(text) + 10.0
            right -= w
            self._pill(painter, s, right, y, text, s.c("grad"), True)
            right -= 5.0
        if f.warnings:
            painter.setFont(s.small_font)
            painter.setPen(s.c("warning"))
            right -= 14.0
            painter.drawText(QRectF(right, y, 14.0, FACTS_LINE), Qt.AlignmentFlag.AlignCenter, "⚠")
        painter.setFont(s.mono_font)
        if f.grad_fn:
            painter.setPen(s.c("non_leaf"))
            text = f.grad_fn
        elif f.requires_grad:
            painter.setPen(s.c("requires_grad"))
            text = "requires_grad"
        else:
            painter.setPen(s.c("text_dim"))
            text = "no grad"
        avail = max(0.0, right - x - 2.0)
        painter.drawText(
            QRectF(x, y, avail, FACTS_LINE),
            left_mid,
            s.mono_metrics.elidedText(text, Qt.TextElideMode.ElideRight, avail),
        )
        painter.setBrush(QBrush())
