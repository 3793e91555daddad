"""How a group looks on the canvas: a titled frame behind its cards, or one card.

An expanded group is a translucent frame in the group's colour, sized around its
members (and the frames nested in it), drawn behind every card; only its title bar
takes the mouse, so a rubber band can still start inside it.  A collapsed group is
one card (``GroupCardItem``) with the group's title, kind or module class and a port
for every wire that crosses its border: wires from outside end on it.

Both are dragged by hand (``GroupDrag``): the members move with them while the mouse
moves, and the scene's ``groupDragged`` signal carries the whole move on release,
one undo step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsSceneMouseEvent,
    QStyleOptionGraphicsItem,
    QWidget,
)

from gradstudio.document.layout import group_card_width
from ui.canvas.style import (
    CORNER,
    FAR_LABEL_PX,
    HEADER_HEIGHT,
    LOD_TEXT,
    NODE_WIDTH,
    PORT_ROW,
    PORT_TOP_PAD,
)

if TYPE_CHECKING:
    from gradstudio.document.groups import Group
    from ui.canvas.scene import GraphScene

FRAME_TYPE = QGraphicsItem.UserType + 5
GROUP_CARD_TYPE = QGraphicsItem.UserType + 6
TITLE_HEIGHT = 28.0  # the frame's title bar, above its members
FRAME_PAD = 14.0  # room between the members and the frame's border
SUBTITLE_ROW = 18.0
CHEVRON = 22.0  # the collapse/expand mark at the title's left
FRAME_Z = -0.9  # frames sit under the wires (z 0) and cards (z 1), nested ones over outer ones
FAR_TITLE_Z = 3.0  # a frame's far-out title sits over its cards
DEFAULT_ALPHA = (34, 170, 90)  # body, border and title-bar opacity of the frame colour


def group_color(group: Group, scene: GraphScene) -> QColor:
    return QColor(group.color) if group.color else QColor(scene.style.c("accent"))


class GroupDrag:
    """A press on a frame or a group card, then the moves of the mouse, to one drag."""

    def __init__(self) -> None:
        self.start: QPointF | None = None
        self.offset = QPointF()

    def press(self, event: QGraphicsSceneMouseEvent) -> None:
        self.start = event.scenePos() if event.button() == Qt.MouseButton.LeftButton else None
        self.offset = QPointF()

    def move(self, event: QGraphicsSceneMouseEvent, scene: GraphScene, group_id: str) -> None:
        if self.start is None:
            return
        delta = event.scenePos() - self.start
        delta = QPointF(round(delta.x(), 1), round(delta.y(), 1))
        step = delta - self.offset
        if step.isNull():
            return
        self.offset = delta
        scene.groups.shift_group(group_id, step.x(), step.y())

    def release(self, scene: GraphScene, group_id: str) -> None:
        if self.start is not None and not self.offset.isNull():
            scene.groupDragged.emit(group_id, self.offset.x(), self.offset.y())
        self.start = None
        self.offset = QPointF()


def far_card_title(painter: QPainter, rect: QRectF, text: str, base: QFont, lod: float) -> float:
    """A collapsed card's title far out: word-wrapped in the card's body, as large as
    fits it, up to a size that reads on screen (a long title wraps rather than shrinks
    to a speck).  Returns one line's height on screen, in pixels."""
    font = QFont(base)
    font.setBold(True)
    flags = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap
    px = max(1, int(FAR_LABEL_PX / lod))
    while px > 1:
        font.setPixelSize(px)
        need = QFontMetricsF(font).boundingRect(rect, int(flags), text)
        if need.width() <= rect.width() and need.height() <= rect.height():
            break
        px = max(1, int(px * 0.9))
    painter.setFont(font)
    painter.drawText(rect, int(flags), text)
    return QFontMetricsF(font).height() * lod


def drawn(metrics: QFontMetricsF, text: str, width: float) -> str:
    """``text`` as a title drawn ``width`` wide shows it (elided when it does not fit)."""
    return metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)


class _DraggedAsGroup(QGraphicsItem):
    """A frame or a collapsed card: pressing selects it (Ctrl toggles), as a card does,
    and dragging moves every member of its group, as one undo step."""

    host: GraphScene
    group_id: str
    _drag: GroupDrag

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        super().mousePressEvent(event)
        self._drag.press(event)
        event.accept()

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        self._drag.move(event, self.host, self.group_id)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        super().mouseReleaseEvent(event)
        self._drag.release(self.host, self.group_id)


class GroupFrameItem(_DraggedAsGroup):
    """The frame of one expanded group; its scene rect is set by the group layer."""

    def __init__(self, group: Group, host: GraphScene) -> None:
        super().__init__()
        self.host = host
        self.group = group
        self.group_id = group.id
        self._rect = QRectF(0.0, 0.0, NODE_WIDTH, TITLE_HEIGHT)
        self._drag = GroupDrag()
        self.title_px = 0.0  # the title's on-screen size when last painted
        self.drawn_title = ""  # ... and its text as drawn (the no-elided test reads it)
        self.far_label: FarTitle | None = None  # its title far out (the layer's)
        self.shown_left: float | None = None  # the view's left edge, when inside the frame
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setAcceptHoverEvents(True)
        self.setToolTip("Drag the title to move the group; double-click it to rename")

    def type(self) -> int:  # noqa: A003 - Qt's name
        return FRAME_TYPE

    def set_group(self, group: Group) -> None:
        self.group = group
        self.update()

    def set_scene_rect(self, rect: QRectF) -> None:
        """Place the frame around ``rect`` (scene coordinates, title bar included)."""
        if rect != self.scene_rect():
            self.prepareGeometryChange()
            self._rect = QRectF(0.0, 0.0, rect.width(), rect.height())
            self.setPos(rect.topLeft())

    def scene_rect(self) -> QRectF:
        return self._rect.translated(self.pos())

    def title_left(self, need: float, limit: float) -> float:
        """Where the title starts in the bar: after the chevron, or, when the frame's
        left end is scrolled out of the view, at the view's left edge (a long frame
        keeps saying what it is), never so far that it would not fit before ``limit``."""
        left = 6.0 + CHEVRON
        if self.shown_left is None:
            return left
        return max(left, min(self.shown_left - self.x() + 8.0, limit - 6.0 - need))

    def set_shown_left(self, x: float | None) -> None:
        """The view's left edge (scene x), or None: the title follows it (``title_left``)."""
        if x is not None and x <= self.x():
            x = None
        if x != self.shown_left:
            self.shown_left = x
            self.update(self.title_rect())

    def title_rect(self) -> QRectF:
        """The title bar, in item coordinates: what takes clicks and drags."""
        return QRectF(0.0, 0.0, self._rect.width(), TITLE_HEIGHT)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._rect.adjusted(-2.0, -2.0, 2.0, 2.0)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(self.title_rect())
        return path

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        s = self.host.style
        color = group_color(self.group, self.host)
        body, border, bar = (QColor(color) for _ in range(3))
        body.setAlpha(DEFAULT_ALPHA[0])
        border.setAlpha(DEFAULT_ALPHA[1])
        bar.setAlpha(DEFAULT_ALPHA[2])
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        selected = self.isSelected()
        painter.setPen(QPen(s.c("accent") if selected else border, 2.5 if selected else 1.2))
        painter.setBrush(body)
        painter.drawRoundedRect(self._rect, CORNER * 1.5, CORNER * 1.5)
        title = QPainterPath()
        title.addRoundedRect(
            self.title_rect().adjusted(0.0, 0.0, 0.0, CORNER * 2), CORNER * 1.5, CORNER * 1.5
        )
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(bar)
        painter.drawPath(title.intersected(_rect_path(self.title_rect())))
        painter.setPen(s.c("text"))
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        if lod < LOD_TEXT:
            # far out the title is the layer's ``FarTitle``, drawn over the cards at a
            # size that reads (a frame nested in another shows none: they would collide)
            shown = self.far_label is not None and self.far_label.isVisible()
            self.title_px = self.far_label.height() if shown and self.far_label else 0.0
            self.drawn_title = self.group.title if shown else ""
            return
        self.title_px = QFontMetricsF(s.title_font).height() * lod
        painter.setFont(s.small_font)
        painter.drawText(QRectF(6.0, 0.0, CHEVRON, TITLE_HEIGHT), Qt.AlignmentFlag.AlignCenter, "▾")
        subtitle = self.group.subtitle
        # the subtitle takes what the title leaves, at least a third of the bar
        left_over = self._rect.width() - 50.0 - s.title_metrics.horizontalAdvance(self.group.title)
        sw = min(
            s.small_metrics.horizontalAdvance(subtitle) + 4.0,
            max(self._rect.width() / 3, left_over),
        )
        right = QRectF(self._rect.width() - 10.0 - sw, 0.0, sw, TITLE_HEIGHT)
        dim = QColor(s.c("text"))
        dim.setAlpha(160)
        painter.setPen(dim)
        painter.drawText(
            right,
            Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight,
            s.small_metrics.elidedText(subtitle, Qt.TextElideMode.ElideRight, sw),
        )
        painter.setFont(s.title_font)
        painter.setPen(s.c("text"))
        left = self.title_left(s.title_metrics.horizontalAdvance(self.group.title), right.left())
        avail = max(0.0, right.left() - left - 6.0)
        self.drawn_title = drawn(s.title_metrics, self.group.title, avail)
        painter.drawText(
            QRectF(left, 0.0, avail, TITLE_HEIGHT),
            Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
            self.drawn_title,
        )


class FarTitle(QGraphicsItem):
    """A top-level frame's title far out (below ``LOD_TEXT``): a label of constant
    on-screen size at the frame's corner, over the cards, so that the overview of an
    imported program still says which iteration is which.  It takes no clicks."""

    def __init__(self, frame: GroupFrameItem) -> None:
        super().__init__()
        self.frame = frame
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        self.setZValue(FAR_TITLE_Z)
        self.setVisible(False)
        self._text = ""
        self._size = QRectF()

    def font(self) -> QFont:
        font = QFont(self.frame.host.style.title_font)
        font.setBold(True)
        font.setPixelSize(int(FAR_LABEL_PX))
        return font

    def refresh(self) -> None:
        """Measure the title again (renamed, or a new theme's font)."""
        text = self.frame.group.title
        metrics = QFontMetricsF(self.font())
        size = QRectF(0.0, 0.0, metrics.horizontalAdvance(text) + 12.0, metrics.height() + 4.0)
        if (text, size) != (self._text, self._size):
            self.prepareGeometryChange()
            self._text, self._size = text, size
        self.update()

    def width(self) -> float:
        return self._size.width()

    def height(self) -> float:
        return self._size.height()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._size

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        s = self.frame.host.style
        back = QColor(group_color(self.frame.group, self.frame.host))
        back.setAlpha(215)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(back)
        painter.drawRoundedRect(self._size, CORNER, CORNER)
        painter.setPen(s.c("header_text"))
        painter.setFont(self.font())
        painter.drawText(
            self._size.adjusted(6.0, 0.0, -6.0, 0.0),
            Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
            self._text,
        )


class CardPort(NamedTuple):
    """A port of a collapsed group: the member's port a wire from outside reaches."""

    node_id: str
    port: str
    is_input: bool
    text: str
    center: QPointF


class GroupCardItem(_DraggedAsGroup):
    """A collapsed group: one card with the group's external inputs and outputs."""

    def __init__(self, group: Group, host: GraphScene) -> None:
        super().__init__()
        self.host = host
        self.group = group
        self.group_id = group.id
        self.ports: list[CardPort] = []
        self._index: dict[tuple[str, str, bool], CardPort] = {}
        self.members = 0
        self.height = HEADER_HEIGHT + SUBTITLE_ROW + PORT_ROW
        self.width = group_card_width(group)  # as wide as its title and subtitle need
        self._rect = QRectF(0.0, 0.0, self.width, self.height)
        self._drag = GroupDrag()
        self.title_px = 0.0  # the title's on-screen size when last painted
        self.drawn_title = ""  # ... and its text as drawn (the no-elided test reads it)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setZValue(1.0)
        self.setToolTip("A collapsed group: double-click to expand it")

    def type(self) -> int:  # noqa: A003 - Qt's name
        return GROUP_CARD_TYPE

    def set_group(self, group: Group) -> None:
        self.group = group
        if group_card_width(group) != self.width:
            self.set_ports(*self._port_lists(), self.members)
        self.update()

    def _port_lists(self) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
        ins = [(c.node_id, c.port, c.text) for c in self.ports if c.is_input]
        outs = [(c.node_id, c.port, c.text) for c in self.ports if not c.is_input]
        return ins, outs

    def set_ports(
        self, inputs: list[tuple[str, str, str]], outputs: list[tuple[str, str, str]], members: int
    ) -> None:
        """``inputs``/``outputs``: ``(node_id, port, text)`` for each wire end crossing in/out."""
        top = HEADER_HEIGHT + SUBTITLE_ROW + PORT_TOP_PAD
        width = group_card_width(self.group)
        ports = [
            CardPort(n, p, True, text, QPointF(0.0, top + PORT_ROW * i + PORT_ROW / 2))
            for i, (n, p, text) in enumerate(inputs)
        ] + [
            CardPort(n, p, False, text, QPointF(width, top + PORT_ROW * i + PORT_ROW / 2))
            for i, (n, p, text) in enumerate(outputs)
        ]
        rows = max(len(inputs), len(outputs), 1)
        self.prepareGeometryChange()
        self.ports = ports
        self._index = {(c.node_id, c.port, c.is_input): c for c in ports}
        self.members = members
        self.height = top + PORT_ROW * rows + PORT_TOP_PAD
        self.width = width
        self._rect = QRectF(0.0, 0.0, width, self.height)
        self.update()

    def port_scene_pos(self, node_id: str, port: str, is_input: bool) -> QPointF:
        """Where a wire to ``node_id.port`` ends: its port here, else the card's side."""
        found = self._index.get((node_id, port, is_input))
        local = (
            found.center if found else QPointF(0.0 if is_input else self.width, HEADER_HEIGHT / 2)
        )
        return self.pos() + local

    def scene_rect(self) -> QRectF:
        return self._rect.translated(self.pos())

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt's name
        return self._rect.adjusted(-8.0, -4.0, 8.0, 8.0)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRoundedRect(self._rect, CORNER, CORNER)
        return path

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        s = self.host.style
        color = group_color(self.group, self.host)
        rect = self._rect
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(s.c("node_shadow"))
        painter.drawRoundedRect(rect.translated(0.0, 3.0), CORNER, CORNER)
        # a stack of cards: two offset outlines say "several nodes in here"
        edge = QColor(color)
        edge.setAlpha(120)
        painter.setPen(QPen(edge, 1.0))
        painter.setBrush(s.c("node_body"))
        for k in (2, 1):
            painter.drawRoundedRect(rect.translated(3.0 * k, -3.0 * k), CORNER, CORNER)
        painter.drawRoundedRect(rect, CORNER, CORNER)
        header = QColor(color)
        header.setAlpha(200)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(header)
        path = QPainterPath()
        path.addRoundedRect(QRectF(0, 0, rect.width(), HEADER_HEIGHT + CORNER), CORNER, CORNER)
        painter.drawPath(path.intersected(_rect_path(QRectF(0, 0, rect.width(), HEADER_HEIGHT))))
        selected = self.isSelected()
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(s.c("accent") if selected else color, 2.5 if selected else 1.4))
        painter.drawRoundedRect(rect, CORNER, CORNER)
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        if lod < LOD_TEXT:
            painter.setPen(s.c("text"))
            body = rect.adjusted(8.0, 2.0, -8.0, -2.0)  # far out the header reads as body
            self.title_px = far_card_title(painter, body, self.group.title, s.title_font, lod)
            self.drawn_title = self.group.title
            painter.setPen(QPen(s.c("port_tensor"), 1.6))
            painter.setBrush(s.c("port_tensor"))
            for port in self.ports:
                painter.drawEllipse(port.center, 5.0, 5.0)
            return
        self.title_px = QFontMetricsF(s.title_font).height() * lod
        painter.setPen(s.c("header_text"))
        painter.setFont(s.small_font)
        painter.drawText(
            QRectF(4.0, 0.0, CHEVRON, HEADER_HEIGHT), Qt.AlignmentFlag.AlignCenter, "▸"
        )
        painter.setFont(s.title_font)
        avail = rect.width() - CHEVRON - 12.0
        self.drawn_title = drawn(s.title_metrics, self.group.title, avail)
        painter.drawText(
            QRectF(4.0 + CHEVRON, 0.0, avail, HEADER_HEIGHT),
            Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
            self.drawn_title,
        )
        painter.setFont(s.small_font)
        painter.setPen(s.c("text_dim"))
        nodes = f"{self.members} node{'s' if self.members != 1 else ''}"
        painter.drawText(
            QRectF(10.0, HEADER_HEIGHT, rect.width() - 20.0, SUBTITLE_ROW),
            Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
            f"{self.group.subtitle} · {nodes}",
        )
        half = rect.width() / 2 - 14.0
        for port in self.ports:
            painter.setPen(QPen(s.c("port_tensor"), 1.6))
            painter.setBrush(s.c("port_tensor"))
            painter.drawEllipse(port.center, 5.0, 5.0)
            painter.setPen(s.c("text"))
            if port.is_input:
                box = QRectF(12.0, port.center.y() - PORT_ROW / 2, half, PORT_ROW)
                align = Qt.AlignmentFlag.AlignLeft
            else:
                box = QRectF(
                    rect.width() - 12.0 - half, port.center.y() - PORT_ROW / 2, half, PORT_ROW
                )
                align = Qt.AlignmentFlag.AlignRight
            painter.drawText(
                box,
                Qt.AlignmentFlag.AlignVCenter | align,
                s.small_metrics.elidedText(port.text, Qt.TextElideMode.ElideMiddle, half),
            )


def _rect_path(rect: QRectF) -> QPainterPath:
    path = QPainterPath()
    path.addRect(rect)
    return path
