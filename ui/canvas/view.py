"""The canvas widget (object name ``canvas``): pan, zoom, wires, quick-add and clipboard.

Input follows the node editors people know: wheel zooms at the cursor, middle
mouse or Space+drag pans, drag a port to wire it (a wrong type turns the wire red
and the tooltip says why), drop a wire on empty canvas or press Tab to search for a
node, rubber-band to select.  Every edit is a gradstudio command pushed through the
``UndoBridge``; the view itself never changes the document.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QPoint, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QPainter, QPen
from PySide6.QtWidgets import QGraphicsView, QLabel, QMenu, QWidget

from ui.canvas.edge_item import WireDrag
from ui.canvas.editing import CanvasEditing
from ui.canvas.group_editing import CanvasGroups
from ui.canvas.inline_editor import InlineEditor
from ui.canvas.legend import Legend
from ui.canvas.port_item import PortItem
from ui.canvas.scene import GraphScene
from ui.canvas.search_popup import NodeSearchPopup
from ui.canvas.view_input import CanvasInput
from ui.canvas.view_quick_add import CanvasQuickAdd
from ui.canvas.view_wires import CanvasWires
from ui.canvas.view_zoom import CanvasZoom
from ui.themes import DARK, Theme

if TYPE_CHECKING:
    from gradstudio.document.model import Document
    from ui.state import StudioState
    from ui.window.undo_bridge import UndoBridge

GRID = 24.0


class GraphView(
    CanvasInput,
    CanvasWires,
    CanvasQuickAdd,
    CanvasZoom,
    CanvasGroups,
    CanvasEditing,
    QGraphicsView,
):
    """The node canvas for ``state.document``; ``message`` carries status-bar text.

    The widget, its hint, theme and grid background; what it does is in the mixins, one
    module per purpose: keys and mouse (``view_input``), wire drags (``view_wires``),
    quick-add and palette drops (``view_quick_add``), zoom and framing (``view_zoom``),
    edits (``editing``) and group commands (``group_editing``)."""

    message = Signal(str)
    zoomChanged = Signal(float)

    def __init__(
        self,
        state: StudioState,
        bridge: UndoBridge,
        theme: Theme = DARK,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("canvas")
        self.state = state
        self.bridge = bridge
        self.graph_scene = GraphScene(state, theme, self)
        self.setScene(self.graph_scene)
        self.graph_scene.nodesDragged.connect(self._push_drag)
        self.graph_scene.groupDragged.connect(self._push_group_drag)
        self.rubberBandChanged.connect(self._rubber_band)
        self.zoomChanged.connect(self.graph_scene.set_zoom_level)
        self.zoomChanged.connect(self._follow_titles)
        self.graph_scene.titlesMoved.connect(self._follow_titles)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing, True)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setDragMode(QGraphicsView.DragMode.RubberBandDrag)
        self.setRubberBandSelectionMode(Qt.ItemSelectionMode.IntersectsItemShape)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QGraphicsView.Shape.NoFrame)
        self.setAcceptDrops(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.search = NodeSearchPopup(self)
        self.search.chosen.connect(self._search_chosen)
        self.search.dismissed.connect(self._search_dismissed)
        self._search_scene_pos = QPointF()
        self._pending_wire: PortItem | None = None
        self._wire: WireDrag | None = None
        self._pan_from: QPoint | None = None
        self._space = False
        self._editor: InlineEditor | None = None
        #: The view the document opens at, ``(zoom, x, y)``, when it has one of its own
        #: (the window sets it for a file it remembers): ``home_view`` restores it.
        self.saved_view: tuple[float, float, float] | None = None
        #: Adders of more node context-menu actions (the instruments'): (menu, node id).
        self.node_menu_extras: list[Callable[[QMenu, str], None]] = []
        self.hint = QLabel(self)
        self.hint.setObjectName("canvasHint")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setText(
            "Drag nodes from the palette, or press <b>Tab</b> to search.<br>"
            "Drag from a port to connect; <b>Ctrl+Enter</b> runs the graph."
        )
        self.hint.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        # the key lives outside the viewport (the window puts it under the canvas):
        # a widget over the viewport would stop Qt from scrolling by blitting
        self.legend = Legend(self.graph_scene.style)
        state.documentReplaced.connect(self._update_hint)
        state.documentReplaced.connect(self._document_replaced)
        self._unsub = state.document.subscribe(lambda e: self._update_hint())
        self._update_hint()

    @property
    def document(self) -> Document:
        return self.state.document

    # ------------------------------------------------------------------ theme / hint
    def set_theme(self, theme: Theme) -> None:
        self.graph_scene.set_theme(theme)
        self.legend.set_style(self.graph_scene.style)
        self.resetCachedContent()
        self.viewport().update()

    def _document_replaced(self) -> None:
        self._unsub()
        self._unsub = self.state.document.subscribe(lambda e: self._update_hint())
        self.home_view()

    def _update_hint(self) -> None:
        self.hint.setVisible(len(self.document) == 0)
        self._place_hint()

    def _place_hint(self) -> None:
        self.hint.adjustSize()
        r = self.rect()
        self.hint.move((r.width() - self.hint.width()) // 2, (r.height() - self.hint.height()) // 2)

    def resizeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._place_hint()
        self.graph_scene.expose()
        self._follow_titles()

    def scrollContentsBy(self, dx: int, dy: int) -> None:  # noqa: N802 - Qt's name
        """Scrolled (panned): the cards a scrub restyled off screen repaint as they
        come into view (``GraphScene.expose``), and a frame whose left end went out
        of view moves its title to the view's edge."""
        super().scrollContentsBy(dx, dy)
        self.graph_scene.expose()
        self._follow_titles()

    def _follow_titles(self, *_args: object) -> None:
        shown = self.mapToScene(self.viewport().rect()).boundingRect()
        self.graph_scene.groups.show_titles_in(shown)

    # ------------------------------------------------------------------ background
    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:  # noqa: N802
        s = self.graph_scene.style
        painter.fillRect(rect, s.c("canvas"))
        scale = self.transform().m11()
        step = GRID
        while step * scale < 12.0:
            step *= 4.0
        major = step * 4.0
        left = math.floor(rect.left() / step) * step
        top = math.floor(rect.top() / step) * step
        minor_pen = QPen(s.c("grid_minor"), 0.0)
        major_pen = QPen(s.c("grid_major"), 0.0)
        lines_minor, lines_major = [], []
        x = left
        while x < rect.right():
            target = lines_major if abs(x / major - round(x / major)) < 1e-6 else lines_minor
            target.append((QPointF(x, rect.top()), QPointF(x, rect.bottom())))
            x += step
        y = top
        while y < rect.bottom():
            target = lines_major if abs(y / major - round(y / major)) < 1e-6 else lines_minor
            target.append((QPointF(rect.left(), y), QPointF(rect.right(), y)))
            y += step
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setPen(minor_pen)
        for a, b in lines_minor:
            painter.drawLine(a, b)
        painter.setPen(major_pen)
        for a, b in lines_major:
            painter.drawLine(a, b)
