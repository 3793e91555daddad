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
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPainterPath,
    QPen,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsSceneHoverEvent,
    QStyleOptionGraphicsItem,
    QWidget,
)

from gradstudio.catalogue import NodeKind, NodeType, PortSpec
from gradstudio.document.layout import card_width, port_caption
from ui.canvas.node_facts import (
    MAX_INLINE_ELEMENTS,
    PENDING,
    NodeFacts,
    format_array,
    format_shape,
)
from ui.canvas.port_item import PortItem
from ui.canvas.style import (
    CORNER,
    FACTS_LINE,
    FACTS_PAD,
    HEADER_HEIGHT,
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
FAR_LEAST_LABEL_PX = 8.0  # the least on-screen sizes they shrink to before wrapping
FAR_LEAST_MARK_PX = 7.0
GRAD_BADGE_CHARS = 9  # a .grad value this short is written in its badge
NODE_FLAGS = (
    QGraphicsItem.GraphicsItemFlag.ItemIsMovable | QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
)
PortPlaces = list[tuple[PortSpec, bool, QPointF]]
PortCentres = dict[tuple[str, bool], tuple[float, float]]
_PORT_LAYOUTS: dict[
    tuple[str, tuple[PortSpec, ...], float], tuple[PortPlaces, float, float, PortCentres]
] = {}
DrawnText = tuple[str, str, str]
"""What a card drew: ``(where, full text, drawn text)``; the two differ when it was cut."""


def _port_layout(node_type: NodeType, width: float) -> tuple[PortPlaces, float, float, PortCentres]:
    """Port places, facts top, height and port centres by ``(name, is_input)`` for a
    type at a width (the same for every such card, a custom Function's by its own
    ports; wires look the centres up by name)."""
    key = (node_type.id, node_type.inputs, width)
    cached = _PORT_LAYOUTS.get(key)
    if cached is None:
        top = HEADER_HEIGHT + PORT_TOP_PAD
        ports = [
            (spec, True, QPointF(0.0, top + PORT_ROW * i + PORT_ROW / 2))
            for i, spec in enumerate(node_type.inputs)
        ] + [
            (spec, False, QPointF(width, top + PORT_ROW * i + PORT_ROW / 2))
            for i, spec in enumerate(node_type.outputs)
        ]
        facts_top = top + PORT_ROW * card_rows(node_type) + 2.0
        centres = {(spec.name, is_input): (c.x(), c.y()) for spec, is_input, c in ports}
        cached = (ports, facts_top, card_height(node_type), centres)
        _PORT_LAYOUTS[key] = cached
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
    """Word-wrap ``text`` into at most ``lines`` lines; the last one holds the rest
    (the painter elides it if it is still too long, and records that it did)."""
    words = text.split()
    out: list[str] = []
    while words and len(out) < lines - 1:
        line = words.pop(0)
        while words and metrics.horizontalAdvance(line + " " + words[0]) <= width:
            line += " " + words.pop(0)
        out.append(line)
    if words:
        out.append(" ".join(words))
    return out


def _fitting_value(facts: NodeFacts, metrics: QFontMetricsF, width: float) -> str:
    """The tensor's value with as many elements as fit in ``width`` (``[0.4963, …]``):
    fewer elements rather than a cut number; empty when not even one fits."""
    text = facts.value
    if facts.tensor is None or metrics.horizontalAdvance(text) <= width:
        return text
    for budget in range(MAX_INLINE_ELEMENTS - 1, 0, -1):
        text = format_array(facts.tensor.array, budget)
        if metrics.horizontalAdvance(text) <= width:
            return text
    return ""


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
        self._far = False  # far out: the scene's overview draws this card
        self._stale = False  # changed while far out: repainted once drawn again
        self._hover_port: PortItem | None = None
        self._drawn: list[DrawnText] = []
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
        """Size the card for its text (``card_width``: long labels make wide cards)."""
        self.width = card_width(self.node_type, self.node.label, self.node.params)
        places, self.facts_top, self.height, self._centres = _port_layout(
            self.node_type, self.width
        )
        self.ports: list[PortItem] = [
            PortItem(self.node_id, spec, is_input, center) for spec, is_input, center in places
        ]
        self._rect = QRectF(0.0, 0.0, self.width, self.height)
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
        """The document replaced this node's value (label or params changed); a longer
        label or caption widens the card, new ports (a custom Function's arguments) make
        its rows again, and its wires follow the moved ports."""
        self.node = node
        ports_changed = node.type.inputs != self.node_type.inputs
        self.node_type = node.type
        if ports_changed or card_width(self.node_type, node.label, node.params) != self.width:
            self.prepareGeometryChange()
            self._layout()
            self.host.node_item_moved(self)
        self.refresh()

    def set_facts(self, facts: NodeFacts, dimmed: bool) -> bool:
        """Show these facts; True when they differ from the ones shown (a repaint)."""
        if (facts is not self.facts and facts != self.facts) or dimmed != self.dimmed:
            was_error = self.facts.status == "error"
            self.facts = facts
            self.dimmed = dimmed
            if was_error or facts.status == "error":
                self._update_tooltip()
            self.refresh()
            return True
        return False

    def set_pending(self, dimmed: bool) -> None:
        """Show ``PENDING`` (the timeline is before this node's step): ``set_facts``
        without comparing facts, since most of a long jump back turns cards pending."""
        if self.facts is PENDING and dimmed == self.dimmed:
            return
        was_error = self.facts.status == "error"
        self.facts = PENDING
        self.dimmed = dimmed
        if was_error:
            self._update_tooltip()
        self.refresh()

    def set_step(self, step: int) -> None:
        if step != self.step:
            self.step = step
            self.refresh()

    def refresh(self) -> None:
        """Repaint (and drop the cached pixmap); far out, or off screen during a scrub,
        once the card is drawn again (a scrub restyles thousands of cards that paint
        nothing then: see ``GraphScene.refresh_facts``)."""
        if self._far or not self.host.on_screen(self):
            self._stale = True
        else:
            self.update()

    def show_put_off(self) -> None:
        """Repaint now what ``refresh`` put off (the card came into view)."""
        if self._stale and not self._far:
            self._stale = False
            self.update()

    def set_overview(self, on: bool) -> None:
        """Far out the scene's overview draws this card: paint nothing, but stay
        in the scene so that clicks, drags and rubber-band selection still find it."""
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, on)
        self._far = on
        if not on and self._stale:
            self._stale = False
            self.update()

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
        self._drawn = []
        if lod >= LOD_TEXT:
            self._paint_header(painter, s)
            self._paint_ports_text(painter, s)
            self._paint_facts(painter, s)
        else:
            self._paint_far(painter, s, lod)
        self._paint_ports(painter, s)

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

    def drawn_texts(self, zoom: float = 1.0) -> list[DrawnText]:
        """Every text the card draws at ``zoom`` (full detail at 100 %, its label and mark
        alone when far out), as ``(where, full, drawn)``: the card paints itself once
        offscreen at that zoom and reports what it wrote."""
        image = QImage(1, 1, QImage.Format.Format_ARGB32)
        painter = QPainter(image)
        painter.scale(zoom, zoom)
        try:
            self.paint(painter, QStyleOptionGraphicsItem(), None)
        finally:
            painter.end()
        return list(self._drawn)

    def _paint_far(self, painter: QPainter, s: CanvasStyle, lod: float) -> None:
        """Semantic zoom: too far out for the card's details, its label and its autograd
        mark (leaf, or the grad_fn's name) are drawn at a size that stays readable on
        screen, as maps keep place names legible when zoomed out.  A label or mark too
        long for the card's width at the least readable size goes on two lines (words,
        or a grad_fn's name at its capitals) before anything would be cut."""
        rect = self._rect.adjusted(6.0, 4.0, -6.0, -4.0)
        f = self.facts
        mark = None if f.is_leaf is None else ("leaf" if f.is_leaf else (f.grad_fn or ""))
        label_font = QFont(s.title_font)
        label_font.setBold(True)
        mark_font = QFont(s.small_font)
        blocks = _far_layout(
            self.node.label, mark, label_font, mark_font, rect.width(), rect.height(), lod
        )
        heights = [QFontMetricsF(font).lineSpacing() * len(lines) for font, lines in blocks]
        y = rect.top() + max(0.0, (rect.height() - sum(heights)) / 2)
        pens = [s.c("text"), s.c("requires_grad") if f.requires_grad else s.c("text_dim")]
        for (font, lines), where, pen in zip(blocks, ("far label", "far mark"), pens, strict=True):
            metrics = QFontMetricsF(font)
            painter.setFont(font)
            painter.setPen(pen)
            for line in lines:
                box = QRectF(rect.left(), y, rect.width(), metrics.lineSpacing())
                self._text(painter, where, box, Qt.AlignmentFlag.AlignCenter, line, metrics)
                y += metrics.lineSpacing()

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
        tw = s.small_metrics.horizontalAdvance(title) + 2.0
        type_rect = QRectF(self.width - 8.0 - tw, 0.0, tw, HEADER_HEIGHT)
        dim = QColor(s.c("header_text"))
        dim.setAlpha(170)
        painter.setPen(dim)
        middle = Qt.AlignmentFlag.AlignVCenter
        self._text(
            painter, "type", type_rect, middle | Qt.AlignmentFlag.AlignRight, title, s.small_metrics
        )
        painter.setFont(s.title_font)
        painter.setPen(s.c("header_text"))
        left = disc.right() + 6.0
        avail = type_rect.left() - left - 6.0
        self._text(
            painter,
            "label",
            QRectF(left, 0.0, avail, HEADER_HEIGHT),
            middle | Qt.AlignmentFlag.AlignLeft,
            self.node.label,
            s.title_metrics,
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
        metrics = s.small_metrics
        outputs = {p.center.y(): p.name for p in self.ports if not p.is_input}
        middle = Qt.AlignmentFlag.AlignVCenter
        for port in self.ports:
            y = port.center.y() - PORT_ROW / 2
            if port.is_input:
                params = {} if (port.name, True) in connected else self.node.params
                variadic = port.spec.variadic
                count = self.host.input_count(self.node_id, port.name) if variadic else None
                text = port_caption(port.spec, params, count, wired=(port.name, True) in connected)
                beside = outputs.get(port.center.y())
                right = self.width - 12.0
                if beside is not None:
                    right -= metrics.horizontalAdvance(beside) + 10.0
                painter.setPen(s.c("text") if not port.spec.optional else s.c("text_dim"))
                rect = QRectF(12.0, y, right - 12.0, PORT_ROW)
                self._text(
                    painter, "port", rect, middle | Qt.AlignmentFlag.AlignLeft, text, metrics
                )
            else:
                painter.setPen(s.c("text"))
                w = metrics.horizontalAdvance(port.name) + 1.0
                rect = QRectF(self.width - 12.0 - w, y, w, PORT_ROW)
                self._text(
                    painter,
                    "port",
                    rect,
                    middle | Qt.AlignmentFlag.AlignRight,
                    port.name,
                    metrics,
                    Qt.TextElideMode.ElideLeft,
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
        x0, width = 10.0, self.width - 20.0
        y = self.facts_top + FACTS_PAD
        painter.setPen(QPen(s.c("node_border"), 1.0))
        painter.drawLine(QPointF(1.0, self.facts_top), QPointF(self.width - 1.0, self.facts_top))
        if self.host.stale and f.status != "none":
            painter.setOpacity(painter.opacity() * 0.55)
        line = QRectF(x0, y, width, FACTS_LINE)
        left_mid = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft
        right_mid = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight
        lines = 2 if self.node_type.outputs else 1
        message = self._message(f)
        if message is not None:
            text, role = message
            painter.setFont(s.small_font)
            painter.setPen(s.c(role))
            metrics = s.small_metrics
            parts = _wrap(text, metrics, width, lines)
            # a long sentence (PyTorch's errors) takes the padding too, in lines of the
            # small font's own spacing: a one-line card has room for two of them
            room = self.height - self.facts_top
            most = int(room // metrics.lineSpacing())
            if parts and metrics.horizontalAdvance(parts[-1]) > width and most > lines:
                parts = _wrap(text, metrics, width, most)
            step = FACTS_LINE if len(parts) <= lines else metrics.lineSpacing()
            if len(parts) > lines:
                y = self.facts_top + (room - step * len(parts)) / 2
            for i, part in enumerate(parts):
                rect = QRectF(x0, y + step * i, width, step)
                self._text(painter, "facts", rect, left_mid, part, metrics)
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
            self._text(painter, "facts", line, left_mid, text, s.small_metrics)
            return
        # line 1: value (mono, as many elements as fit) and shape/dtype (dim)
        painter.setFont(s.small_font)
        meta = f"{f.shape} {f.dtype}"
        if f.list_length is not None:
            meta = f"list[{f.list_length}] · " + meta
        mw = s.small_metrics.horizontalAdvance(meta)
        painter.setPen(s.c("text_dim"))
        self._text(painter, "facts", line, right_mid, meta, s.small_metrics)
        painter.setFont(s.mono_font)
        painter.setPen(s.c("text"))
        vw = max(0.0, width - mw - 8.0)
        value = _fitting_value(f, s.mono_metrics, vw)
        if value:
            rect = QRectF(x0, y, vw, FACTS_LINE)
            self._text(painter, "value", rect, left_mid, value, s.mono_metrics)
        # line 2: leaf mark, grad_fn (or requires_grad), .grad badge, warnings
        y += FACTS_LINE
        pill, mark, badge = self._second_line(f, s, width)
        x = x0
        if pill:
            color = s.c("leaf") if f.is_leaf else s.c("non_leaf")
            x += self._pill(painter, s, x, y, pill, color, False) + 5.0
        right = x0 + width
        if badge:
            w = s.badge_metrics.horizontalAdvance(badge) + 10.0
            right -= w
            self._pill(painter, s, right, y, badge, s.c("grad"), True)
            right -= 5.0
        if f.has_grad:
            self._drawn.append(("grad", self._full_badge(f), badge))
        if f.warnings:
            painter.setFont(s.small_font)
            painter.setPen(s.c("warning"))
            right -= 14.0
            painter.drawText(QRectF(right, y, 14.0, FACTS_LINE), Qt.AlignmentFlag.AlignCenter, "⚠")
        painter.setFont(s.mono_font)
        painter.setPen(
            s.c("non_leaf" if f.grad_fn else "requires_grad" if f.requires_grad else "text_dim")
        )
        rect = QRectF(x, y, max(0.0, right - x - 2.0), FACTS_LINE)
        self._text(painter, "facts", rect, left_mid, mark, s.mono_metrics)
        painter.setBrush(QBrush())

    def _message(self, f: NodeFacts) -> tuple[str, str] | None:
        """The sentence a card shows instead of tensor facts, and its colour role."""
        if f.status == "error":
            return "⚠ " + f.error_title, "error"
        if f.status == "waiting":
            return f.waiting_text, "accent"
        if f.status == "pending":
            return "not run yet at this step", "text_dim"
        if f.status == "skipped":
            return "not run: an earlier step failed", "text_dim"
        if f.status == "none":
            if self.node_type.kind is NodeKind.SOURCE:
                return _param_summary(self.node), "text_dim"
            return "run to see its facts", "text_dim"
        return None

    @staticmethod
    def _full_badge(f: NodeFacts) -> str:
        """The ``.grad`` badge with its value when the value is short enough for a badge
        (a longer one is the inspector's to show, on leaves and non-leaves alike)."""
        grad = f.grad or ""
        return f".grad {grad}" if len(grad) <= GRAD_BADGE_CHARS else ".grad"

    def _second_line(self, f: NodeFacts, s: CanvasStyle, width: float) -> tuple[str, str, str]:
        """The leaf pill, the autograd mark and the ``.grad`` badge, shortened until they
        fit: first a non-leaf drops its pill (its grad_fn already says it is not a leaf)
        and a leaf with a ``.grad`` its ``requires_grad`` mark (the gradient and the
        border's colour say it), so that every ``.grad`` short enough shows its value;
        only then does the badge drop its value (the inspector shows it)."""
        mark = f.grad_fn or ("requires_grad" if f.requires_grad else "no grad")
        pill = "LEAF" if f.is_leaf else "NON-LEAF"
        full = self._full_badge(f)
        badges = list(dict.fromkeys([full, ".grad"])) if f.has_grad else [""]
        pills = [pill, ""] if f.grad_fn else [pill]
        marks = [mark, ""] if f.has_grad and not f.grad_fn and f.requires_grad else [mark]

        def need(pill: str, mark: str, badge: str) -> float:
            w = s.mono_metrics.horizontalAdvance(mark) + 2.0
            if pill:
                w += s.badge_metrics.horizontalAdvance(pill) + 15.0
            if badge:
                w += s.badge_metrics.horizontalAdvance(badge) + 15.0
            return w + (14.0 if f.warnings else 0.0)

        choices = [(p, m, b) for b in badges for p in pills for m in marks]
        for p, m, b in choices:
            if need(p, m, b) <= width:
                return p, m, b
        return choices[-1]


def _two_lines(text: str, capitals: bool) -> list[str]:
    """``text`` split in two near its middle: a label at a space or after a call's
    punctuation (``loss.`` / ``backward()``), a grad_fn's name before a capital
    letter; unsplit when it has no such place."""
    if capitals:
        cuts = [i for i, c in enumerate(text) if i > 0 and c.isupper()]
    else:
        cuts = [i + 1 for i, c in enumerate(text[:-1]) if c in " .(,="]
    if not cuts:
        return [text]
    cut = min(cuts, key=lambda i: abs(len(text) / 2 - i))
    return [text[:cut].strip(), text[cut:].strip()]


def _far_layout(
    label: str,
    mark: str | None,
    label_font: QFont,
    mark_font: QFont,
    width: float,
    height: float,
    lod: float,
) -> list[tuple[QFont, list[str]]]:
    """The far card's text blocks (sized font, lines): the first of one line
    each, a two-line label, a two-line mark too, that fits the card at no less than the
    least readable size; the last of them when none does (the painter then cuts)."""
    label_ways = [[label], _two_lines(label, False)]
    mark_ways = [[mark], _two_lines(mark, True)] if mark else [[]]
    tries = [(a, b) for b in mark_ways for a in label_ways]
    tries.sort(key=lambda t: len(t[0]) + len(t[1]))
    best: list[tuple[QFont, list[str]]] | None = None
    for label_lines, mark_lines in tries:
        label_px, mark_px = FAR_LABEL_PX / lod, FAR_MARK_PX / lod
        least_label, least_mark = FAR_LEAST_LABEL_PX / lod, FAR_LEAST_MARK_PX / lod
        while True:
            fonts = []
            for font, px in ((label_font, label_px), (mark_font, mark_px)):
                sized = QFont(font)
                sized.setPixelSize(max(1, int(px)))
                fonts.append(sized)
            blocks = [(fonts[0], label_lines), (fonts[1], mark_lines)]
            wide = max(
                QFontMetricsF(font).horizontalAdvance(line)
                for font, lines in blocks
                for line in lines
            )
            tall = sum(QFontMetricsF(font).lineSpacing() * len(lines) for font, lines in blocks)
            if wide <= width and tall <= height:
                return blocks
            if label_px <= least_label and mark_px <= least_mark:
                break
            label_px = max(least_label, label_px * 0.9)
            mark_px = max(least_mark, mark_px * 0.9)
        best = blocks
    assert best is not None
    return best
