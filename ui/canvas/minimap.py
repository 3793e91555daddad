"""The minimap: the whole graph in a corner of the canvas, with the view's rectangle.

For graphs larger than the view (as ComfyUI and Node-RED have): every card is a
small rectangle, the part on screen is outlined, dragging the outline pans the
canvas and clicking elsewhere centres the view there.  The cards are drawn once
into a cached pixmap, again only when the document moves, adds or removes nodes
(never per frame), so a 5,000-node graph costs one blit and one rectangle per
repaint; panning and zooming only move the outline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen, QPixmap, QTransform
from PySide6.QtWidgets import QWidget

from gradstudio.document.events import (
    DocumentEvent,
    DocumentReset,
    NodeAdded,
    NodeMoved,
    NodeRemoved,
)

if TYPE_CHECKING:
    from ui.canvas.view import GraphView

SIZE = (220, 150)
LEAST = 48
MARGIN = 10
PAD = 6.0


def fitted_size(world: QRectF) -> tuple[int, int]:
    """The minimap's size for a graph of ``world``'s shape: within ``SIZE``, as wide or
    as tall as it allows, and no emptier than ``LEAST`` pixels across."""
    width, height = SIZE
    if world.isEmpty():
        return SIZE
    inner_w, inner_h = width - 2 * PAD, height - 2 * PAD
    scale = min(inner_w / world.width(), inner_h / world.height())
    return (
        max(LEAST, round(world.width() * scale + 2 * PAD)),
        max(LEAST, round(world.height() * scale + 2 * PAD)),
    )


class Minimap(QWidget):
    """A child of the canvas, in its bottom-right corner; shown by ``set_enabled``."""

    def __init__(self, view: GraphView) -> None:
        super().__init__(view)
        self.setObjectName("minimap")
        self.view = view
        self.enabled = False
        self.setFixedSize(*SIZE)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        # opaque: a repaint draws the minimap alone, never the canvas under it
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent, True)
        self.setToolTip("Drag the rectangle to pan; click to centre the view there")
        self._pixmap: QPixmap | None = None
        self._cards: list[QRectF] | None = None  # None: to measure again
        self._world = QRectF()
        self._drag: QPointF | None = None  # the press point's offset from the view's centre
        self.redraws = 0  # how often the cards were drawn (the cache's test)
        self._unsubscribe = view.state.document.subscribe(self._on_event)
        view.state.documentReplaced.connect(self._document_replaced)
        view.horizontalScrollBar().valueChanged.connect(self._view_moved)
        view.verticalScrollBar().valueChanged.connect(self._view_moved)
        view.zoomChanged.connect(self._view_moved)
        view.installEventFilter(self)
        self.hide()

    # -- state ---------------------------------------------------------------
    def set_enabled(self, on: bool) -> None:
        self.enabled = on
        self._view_moved()

    def needed(self) -> bool:
        """The graph does not fit in the view."""
        items = self.world()
        return not items.isEmpty() and not self.visible_rect().contains(items)

    def visible_rect(self) -> QRectF:
        return self.view.mapToScene(self.view.viewport().rect()).boundingRect()

    def world(self) -> QRectF:
        """The scene area the minimap shows: every card."""
        if self._cards is None:
            self._measure()
        return self._world

    def invalidate(self) -> None:
        self._pixmap = None
        self._cards = None
        self._view_moved()

    def _on_event(self, event: DocumentEvent) -> None:
        if isinstance(event, NodeAdded | NodeRemoved | NodeMoved | DocumentReset):
            self.invalidate()

    def _document_replaced(self) -> None:
        self._unsubscribe()
        self._unsubscribe = self.view.state.document.subscribe(self._on_event)
        self.invalidate()

    def _view_moved(self, *_args: object) -> None:
        show = self.enabled and self.needed()
        if show != self.isVisible():
            self.setVisible(show)
        if show:
            self._place()
            self.update()

    def _place(self) -> None:
        vp = self.view.viewport().geometry()
        self.move(vp.right() - self.width() - MARGIN, vp.bottom() - self.height() - MARGIN)
        self.raise_()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            # a new theme: redraw the cards once the canvas has its new style
            QTimer.singleShot(0, self, self.invalidate)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if watched is self.view and event.type() == QEvent.Type.Resize:
            self._view_moved()
        return False

    # -- geometry ------------------------------------------------------------
    def _measure(self) -> None:
        scene = self.view.graph_scene
        cards = [item.sceneBoundingRect() for item in scene.node_items() if item.isVisible()]
        cards += [card.sceneBoundingRect() for card in scene.groups.cards.values()]  # collapsed
        world = QRectF()
        for r in cards:
            world = world.united(r)
        self._world = world
        self._cards = cards
        size = fitted_size(world)
        if size != (self.width(), self.height()):
            self.setFixedSize(*size)  # a long graph gets a low strip, not a box of canvas
            self._pixmap = None

    def _transform(self) -> tuple[float, float, float]:
        """(scale, dx, dy): minimap point = scene point * scale + (dx, dy)."""
        w = self._world
        inner = QRectF(self.rect()).adjusted(PAD, PAD, -PAD, -PAD)
        if w.isEmpty():
            return 1.0, 0.0, 0.0
        scale = min(inner.width() / w.width(), inner.height() / w.height())
        dx = inner.left() + (inner.width() - w.width() * scale) / 2 - w.left() * scale
        dy = inner.top() + (inner.height() - w.height() * scale) / 2 - w.top() * scale
        return scale, dx, dy

    def to_map(self, r: QRectF) -> QRectF:
        s, dx, dy = self._transform()
        return QRectF(r.left() * s + dx, r.top() * s + dy, r.width() * s, r.height() * s)

    def to_scene(self, p: QPointF) -> QPointF:
        s, dx, dy = self._transform()
        return QPointF((p.x() - dx) / s, (p.y() - dy) / s)

    def _draw_cards(self) -> QPixmap:
        if self._cards is None:
            self._measure()
        self.redraws += 1
        ratio = self.devicePixelRatioF()
        pixmap = QPixmap(int(self.width() * ratio), int(self.height() * ratio))
        pixmap.setDevicePixelRatio(ratio)
        style = self.view.graph_scene.style
        pixmap.fill(QColor(style.c("canvas")).darker(115))
        p = QPainter(pixmap)
        p.setPen(QPen(style.c("node_border"), 1.0))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5))
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(style.c("text"))
        p.setOpacity(0.55)
        scale, dx, dy = self._transform()
        p.setTransform(QTransform(scale, 0.0, 0.0, scale, dx, dy))
        p.drawRects(self._cards or [])  # one call for all the cards
        p.end()
        return pixmap

    # -- painting and mouse --------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        if self._pixmap is None:
            self._pixmap = self._draw_cards()
        p = QPainter(self)
        p.drawPixmap(0, 0, self._pixmap)
        view = self.to_map(self.visible_rect()).intersected(
            QRectF(self.rect()).adjusted(1, 1, -1, -1)
        )
        accent = QColor(self.view.graph_scene.style.c("node_selected"))
        p.setPen(QPen(accent, 1.5))
        fill = QColor(accent)
        fill.setAlpha(40)
        p.setBrush(fill)
        p.drawRect(view)
        p.end()

    def view_rect_on_map(self) -> QRectF:
        return self.to_map(self.visible_rect())

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if event.button() != Qt.MouseButton.LeftButton:
            return
        pos = event.position()
        centre = self.view_rect_on_map().center()
        if self.view_rect_on_map().contains(pos):
            self._drag = pos - centre  # grab the rectangle where it was pressed
        else:
            self._drag = QPointF(0.0, 0.0)
            self.view.centerOn(self.to_scene(pos))
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if self._drag is not None:
            self.view.centerOn(self.to_scene(event.position() - self._drag))
            event.accept()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        self._drag = None
        event.accept()
