"""The backward graph, drawn the way PyTorch holds it (torchviz's picture, but live).

``grad_fn`` nodes are what ``backward`` actually walks; the document's canvas
shows the forward program.  Learners meet the backward graph in torchviz
pictures, so this view speaks its colour language: blue for leaves that require
grad (tied to their ``AccumulateGrad``), grey for backward functions, orange for
saved tensors, green for the outputs; arrows point the way torchviz draws them
(from ``next_functions`` towards the function that uses them).  On top of that
it shows what torchviz cannot: the gradient that flowed along each edge, and
during a replay the ``grad_fn`` being executed.

The scene is built once per evaluation from the union of all steps' graphs
(``ui.backward_model``); moving along the timeline only shows, hides and
restyles items, so scrubbing a graph of hundreds of nodes stays smooth.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QEvent, QPointF, QRectF, QSignalBlocker, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPalette,
    QPen,
    QPolygonF,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsPolygonItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QHBoxLayout,
    QStyleOptionGraphicsItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gradstudio.evaluation import Evaluation, GradValue
from ui.backward_model import (
    Box,
    BoxId,
    GraphModel,
    Link,
    Memo,
    index_for,
    layout,
    model_at,
    parse_key,
    shape_text,
    union_model,
)
from ui.state import StudioState
from ui.timeline import TraceAt, trace_at
from ui.value_view import WrapLabel, short_number

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
MAX_FIT_SCALE = 1.4
HALO = 5.0  # room around a box for the selection halo


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


# ===================================================================== graphics items


class BoxItem(QGraphicsRectItem):
    """A node of the backward graph, painted by hand (no per-item widgets).

    The item's own pen is never drawn: its width only reserves room for the halo
    in the bounding rectangle that QGraphicsRectItem computes in C++.
    """

    def __init__(self, box: Box, fonts: Fonts) -> None:
        self.fonts = fonts
        tm = fonts.m_bold if box.kind == "fn" else fonts.m_title
        subs = [box.subtitle] + (["modified", "freed"] if box.kind == "saved" else [])
        w = max(
            [tm.horizontalAdvance(box.title)] + [fonts.m_sub.horizontalAdvance(s) for s in subs]
        )
        h = tm.height() + (fonts.m_sub.height() if box.subtitle else 0)
        self.w, self.h = max(w + 22, 56.0), h + 14
        super().__init__(-self.w / 2, -self.h / 2, self.w, self.h)
        self.setPen(QPen(Qt.GlobalColor.transparent, 2 * HALO))
        self.box = box
        self.selected = False
        self.executed = False
        self.current = False
        self.output = False  # a root at this position, without a green box of its own
        self.shown = True
        self.setToolTip(box.tooltip)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setZValue(2)

    @property
    def fill(self) -> QColor:
        """torchviz's colour for the kind; washed out (opaque, both themes) when faded."""
        fill = QColor(KIND_FILL[self.box.kind])
        if self.box.faded:  # a saved tensor freed by backward or modified in place
            fill = _mix(fill, QColor("#c8c8c8"), 0.6)
        return fill

    def show_box(self, on: bool) -> None:
        if on != self.shown:
            self.shown = on
            self.setVisible(on)

    def set_box(self, box: Box) -> None:
        """New facts for the same node (a saved tensor freed, a leaf's shape...)."""
        if box != self.box:
            self.box = box
            self.setToolTip(box.tooltip)
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
        if lod < 0.35:
            return
        fonts = self.fonts
        title_font = fonts.bold if kind == "fn" else fonts.title
        if not self.box.subtitle:
            p.setFont(title_font)
            p.setPen(INK)
            p.drawText(r, Qt.AlignmentFlag.AlignCenter, self.box.title)
            return
        tm = fonts.m_bold if kind == "fn" else fonts.m_title
        top = QRectF(r.left(), r.top() + 6, r.width(), tm.height())
        bottom = QRectF(r.left(), top.bottom(), r.width(), r.bottom() - top.bottom() - 6)
        p.setFont(title_font)
        p.setPen(INK)
        p.drawText(top, Qt.AlignmentFlag.AlignCenter, self.box.title)
        p.setFont(fonts.sub)
        if self.output:  # this grad_fn's tensor is an output right now: a green tag
            tw = fonts.m_sub.horizontalAdvance(self.box.subtitle) + 10
            tag = QRectF(-tw / 2, bottom.top() + 1, tw, fonts.m_sub.height())
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(OUTPUT_FILL)
            p.drawRoundedRect(tag, 4, 4)
        p.setPen(SUB_INK)
        p.drawText(bottom, Qt.AlignmentFlag.AlignCenter, self.box.subtitle)


class GradPill(QGraphicsRectItem):
    """The gradient that flowed along an edge, as a small label on it."""

    def __init__(self, fonts: Fonts, parent: QGraphicsItem) -> None:
        super().__init__(parent)
        self.fonts = fonts
        self.text = ""
        self.strong = False
        self.setPen(QPen(Qt.GlobalColor.transparent, 2))
        self.setZValue(3)

    def set_text(self, text: str, strong: bool) -> None:
        if (text, strong) == (self.text, self.strong):
            return
        self.text, self.strong = text, strong
        w, h = self.fonts.m_pill.horizontalAdvance(text) + 12, self.fonts.m_pill.height() + 4
        self.setRect(-w / 2, -h / 2, w, h)
        self.update()

    def paint(
        self, p: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        if option.levelOfDetailFromTransform(p.worldTransform()) < 0.45:
            return
        r = self.rect()
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        colour = CURRENT if self.strong else FLOW
        p.setPen(QPen(colour, 1.2))
        p.setBrush(QColor(255, 255, 255, 238))
        p.drawRoundedRect(r, r.height() / 2, r.height() / 2)
        p.setFont(self.fonts.pill)
        p.setPen(colour.darker(130))
        p.drawText(r, Qt.AlignmentFlag.AlignCenter, self.text)


class LinkItem(QGraphicsPathItem):
    """An edge: a curve along the layout's main axis, an arrowhead, a gradient pill.

    Curve and arrowhead are plain path items painted by Qt in C++ (no Python
    ``paint``): a graph has hundreds of edges and all of them repaint on a zoom.
    """

    def __init__(
        self,
        link: Link,
        tail: BoxItem,
        head: BoxItem,
        vertical: bool,
        ink: QColor,
        fonts: Fonts,
        ports: tuple[float, float] = (0.0, 0.0),
        pill_at: float = 0.5,
    ) -> None:
        super().__init__()
        self.link = link
        self.ink = ink
        self.shown = True
        self.setZValue(1)
        a, b = tail.pos(), head.pos()
        if vertical:
            a, b = a + QPointF(ports[0], 0), b + QPointF(ports[1], 0)
            sign = 1.0 if b.y() >= a.y() else -1.0
            p0 = QPointF(a.x(), a.y() + sign * tail.h / 2)
            p1 = QPointF(b.x(), b.y() - sign * head.h / 2)
            bend = max(abs(p1.y() - p0.y()) * 0.45, 12.0) * sign
            c0, c1 = QPointF(p0.x(), p0.y() + bend), QPointF(p1.x(), p1.y() - bend)
        else:
            a, b = a + QPointF(0, ports[0]), b + QPointF(0, ports[1])
            sign = 1.0 if b.x() >= a.x() else -1.0
            p0 = QPointF(a.x() + sign * tail.w / 2, a.y())
            p1 = QPointF(b.x() - sign * head.w / 2, b.y())
            bend = max(abs(p1.x() - p0.x()) * 0.45, 12.0) * sign
            c0, c1 = QPointF(p0.x() + bend, p0.y()), QPointF(p1.x() - bend, p1.y())
        curve = QPainterPath(p0)
        curve.cubicTo(c0, c1, p1)
        self.setPath(curve)
        self.head: QGraphicsPolygonItem | None = None
        if link.arrow:
            self.head = QGraphicsPolygonItem(_arrow_head(c1, p1), self)
        self.pill = GradPill(fonts, self)
        self.pill.setPos(curve.pointAtPercent(pill_at))
        self.pill.setVisible(False)
        self.flow: GradValue | None = None
        self.strong = False
        self._style(None, False)

    def set_flow(self, grad: GradValue | None, strong: bool) -> None:
        """Show the gradient that flowed here (None: nothing has flowed yet)."""
        if grad is self.flow and strong == self.strong:
            return
        self._style(grad, strong)

    def _style(self, grad: GradValue | None, strong: bool) -> None:
        self.flow, self.strong = grad, strong
        if grad is None:
            colour, width = QColor(self.ink), 1.2
            colour.setAlpha(150)
            self.pill.setVisible(False)
        else:
            colour, width = (CURRENT if strong else FLOW), (2.6 if strong else 1.8)
            self.pill.set_text(grad_text(grad), strong)
            self.pill.setVisible(True)
        pen = QPen(colour, width)
        if self.link.dashed:
            pen.setStyle(Qt.PenStyle.DashLine)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        self.setPen(pen)
        if self.head is not None:
            self.head.setPen(QPen(colour, 1.0))
            self.head.setBrush(colour)
        self.setZValue(1.5 if grad is not None else 1)

    def show_link(self, on: bool) -> None:
        if on != self.shown:
            self.shown = on
            self.setVisible(on)


def _mix(a: QColor, b: QColor, t: float) -> QColor:
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )


def _arrow_head(ctrl: QPointF, end: QPointF, size: float = 8.0) -> QPolygonF:
    d = end - ctrl
    length = math.hypot(d.x(), d.y()) or 1.0
    ux, uy = d.x() / length, d.y() / length
    base = QPointF(end.x() - ux * size, end.y() - uy * size)
    left = QPointF(base.x() - uy * size * 0.5, base.y() + ux * size * 0.5)
    right = QPointF(base.x() + uy * size * 0.5, base.y() - ux * size * 0.5)
    return QPolygonF([end, left, right])


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


# ============================================================================ the view


class GraphView(QGraphicsView):
    """Zoom with the wheel, pan by dragging, double-click the background to fit."""

    boxClicked = Signal(object)  # a BoxItem
    backgroundClicked = Signal()

    def __init__(self, scene: QGraphicsScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.setObjectName("backwardGraphView")
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setOptimizationFlag(QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing, True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self._press: QPointF | None = None
        #: Fit the graph whenever the view or the graph changes, until the user zooms or pans.
        self.auto_fit = True

    def zoom(self, factor: float) -> None:
        self.auto_fit = False
        current = self.transform().m11()
        factor = max(0.05 / current, min(factor, 4.0 / current))
        self.scale(factor, factor)

    def fit(self) -> None:
        """Show the whole graph (not larger than MAX_FIT_SCALE); resumes auto-fitting."""
        self.auto_fit = True
        rect = self.scene().sceneRect()
        if rect.isEmpty():
            return
        self.resetTransform()
        self.fitInView(rect, Qt.AspectRatioMode.KeepAspectRatio)
        if self.transform().m11() > MAX_FIT_SCALE:
            self.resetTransform()
            self.scale(MAX_FIT_SCALE, MAX_FIT_SCALE)
            self.centerOn(rect.center())

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt API
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.zoom(1.18**steps)
        event.accept()

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        if self.auto_fit:
            self.fit()

    def box_at(self, pos: QPointF) -> BoxItem | None:
        item = self.itemAt(pos.toPoint())
        while item is not None and not isinstance(item, BoxItem):
            item = item.parentItem()
        return item

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt API
        self._press = event.position()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt API
        super().mouseReleaseEvent(event)
        if self._press is None or event.button() != Qt.MouseButton.LeftButton:
            return
        moved = (event.position() - self._press).manhattanLength()
        self._press = None
        if moved > 4:  # a pan, not a click
            self.auto_fit = False
            return
        box = self.box_at(event.position())
        if box is not None:
            self.boxClicked.emit(box)
        else:
            self.backgroundClicked.emit()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt API
        if self.box_at(event.position()) is None:
            self.fit()
        else:
            super().mouseDoubleClickEvent(event)


def _legend_chip(colour: QColor, text: str) -> str:
    """One legend entry as rich text (the entries wrap in a narrow dock)."""
    swatch = (
        f"<span style='background:{colour.name()}; color:{colour.name()};'>&nbsp;■&nbsp;</span>"
    )
    return f"<span style='white-space:nowrap'>{swatch}&nbsp;{text}</span>"


class BackwardView(QWidget):
    """The live ``grad_fn`` graph at the timeline position, synced with the selection."""

    def __init__(self, state: StudioState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("backwardGraph")
        self.state = state
        self.vertical = True
        self.show_saved = True
        self.scene = QGraphicsScene(self)
        self.scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.view = GraphView(self.scene, self)
        self.boxes: dict[BoxId, BoxItem] = {}
        self.links: list[LinkItem] = []
        self.model = GraphModel()  # the graph at the current position
        self._built: tuple[Evaluation | None, bool, bool] | None = None
        self._model_key: tuple[int, int, bool] | None = None
        self.selected_key: int | None = None
        self.current_key: int | None = None
        self.executed_keys: tuple[int, ...] = ()
        self._message: QGraphicsSimpleTextItem | None = None
        self._memo: Memo = {}

        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 2)
        bar.setSpacing(2)
        self.fit_button = self._tool(
            "Fit", "Fit the graph in view (or double-click the background)"
        )
        self.zoom_out_button = self._tool("−", "Zoom out (mouse wheel)")
        self.zoom_in_button = self._tool("+", "Zoom in (mouse wheel)")
        self.orientation_button = self._tool("⇅", "Top-to-bottom like torchviz, or left-to-right")
        self.orientation_button.setCheckable(True)
        self.orientation_button.setChecked(True)
        self.saved_button = self._tool("saved", "Show the tensors each grad_fn saved (orange)")
        self.saved_button.setCheckable(True)
        self.saved_button.setChecked(True)
        for b in (
            self.fit_button,
            self.zoom_out_button,
            self.zoom_in_button,
            self.orientation_button,
            self.saved_button,
        ):
            bar.addWidget(b)
        bar.addSpacing(8)
        self.status = WrapLabel(parent=self)
        self.status.setObjectName("backwardStatus")
        self.status.setTextFormat(Qt.TextFormat.RichText)
        bar.addWidget(self.status, 1)
        legend = QHBoxLayout()
        legend.setContentsMargins(8, 0, 6, 2)
        chips = (
            (LEAF_FILL, "leaf"),
            (FN_FILL, "grad_fn"),
            (SAVED_FILL, "saved"),
            (OUTPUT_FILL, "output"),
            (FLOW, "gradient"),
            (CURRENT, "executing"),
        )
        self.legend = WrapLabel(" &nbsp; ".join(_legend_chip(c, t) for c, t in chips), self)
        self.legend.setObjectName("backwardLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        legend.addWidget(self.legend, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addLayout(bar)
        lay.addLayout(legend)
        lay.addWidget(self.view, 1)

        self.fit_button.clicked.connect(self.view.fit)
        self.zoom_in_button.clicked.connect(lambda: self.view.zoom(1.25))
        self.zoom_out_button.clicked.connect(lambda: self.view.zoom(0.8))
        self.orientation_button.toggled.connect(self.set_vertical)
        self.saved_button.toggled.connect(self.set_show_saved)
        self.view.boxClicked.connect(self._box_clicked)
        self.view.backgroundClicked.connect(self._background_clicked)
        state.evaluationChanged.connect(self.refresh)
        state.positionChanged.connect(self.refresh)
        state.documentReplaced.connect(self.refresh)
        state.selectionChanged.connect(self._selection_changed)
        state.gradFnSelected.connect(self._grad_fn_selected)
        self.refresh()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt API
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.boxes:
            self._built = None  # edge ink and messages follow the theme
            self.refresh()

    def _tool(self, text: str, tip: str) -> QToolButton:
        b = QToolButton(self)
        b.setText(text)
        b.setToolTip(tip)
        b.setAutoRaise(True)
        return b

    # -- options -----------------------------------------------------------
    def set_vertical(self, vertical: bool) -> None:
        """Top-to-bottom (torchviz) or left-to-right."""
        self.vertical = vertical
        with QSignalBlocker(self.orientation_button):
            self.orientation_button.setChecked(vertical)
        self.orientation_button.setText("⇅" if vertical else "⇄")
        self.refresh()
        self.view.fit()

    def set_show_saved(self, show: bool) -> None:
        self.show_saved = show
        with QSignalBlocker(self.saved_button):
            self.saved_button.setChecked(show)
        self.refresh()

    # -- queries (for tests and the other panels) -----------------------------
    def visible_boxes(self, kind: str | None = None) -> list[BoxItem]:
        return [b for b in self.boxes.values() if b.shown and (kind is None or b.box.kind == kind)]

    def fn_item(self, key: int) -> BoxItem | None:
        item = self.boxes.get(("fn", key))
        return item if item is not None and item.shown else None

    def leaf_item(self, key: int) -> BoxItem | None:
        item = self.boxes.get(("leaf", key))
        return item if item is not None and item.shown else None

    def link_flow(self, flow: tuple) -> GradValue | None:
        """The gradient shown on the link named ``flow`` (see ``Link.flow``)."""
        return next((li.flow for li in self.links if li.link.flow == flow and li.shown), None)

    # -- building ----------------------------------------------------------
    def refresh(self) -> None:
        """Bring the scene to the state's evaluation, position and replay."""
        ev = self.state.evaluation
        snap = self.state.snapshot()
        if ev is None or snap is None:
            self._show_message("Run the graph to see the grad_fn graph autograd records.")
            return
        index = index_for(ev)
        built = (ev, self.vertical, self.show_saved)
        if self._built is None or self._built[0] is not ev or self._built[1:] != built[1:]:
            self._rebuild(union_model(ev, index, self.show_saved, self._memo))
            self._built = built
            self._model_key = None
            if self.view.auto_fit:
                self.view.fit()
        key = (id(ev), snap.step, self.show_saved)
        if key != self._model_key:
            self.model = model_at(ev, snap, index, self.show_saved, self._memo)
            self._model_key = key
            self._apply_model(self.model)
        if not self.model.boxes:
            self._set_message(
                "No backward graph at this step: no tensor that requires grad\n"
                "has been used by an operation yet."
            )
        else:
            self._set_message(None)
        self._apply_flow(trace_at(self.state))
        self._apply_selection()
        self._update_status()

    def _set_message(self, text: str | None) -> None:
        if text is None:
            if self._message is not None:
                self._message.setVisible(False)
            return
        if self._message is None:
            self._message = self.scene.addSimpleText(text)
        self._message.setText(text)
        self._message.setBrush(self.palette().color(QPalette.ColorRole.PlaceholderText))
        self._message.setVisible(True)
        visible = [b for b in self.boxes.values() if b.shown]
        if not visible:
            rect = self._message.boundingRect()
            self._message.setPos(self.scene.sceneRect().center() - rect.center())

    def _show_message(self, text: str) -> None:
        self.scene.clear()
        self.boxes, self.links, self._message = {}, [], None
        self._built, self._model_key = None, None
        self.model = GraphModel()
        self.scene.setSceneRect(QRectF(-200, -60, 400, 120))
        self._set_message(text)
        self.view.resetTransform()
        self.view.centerOn(0, 0)
        self.status.setText("")

    def _rebuild(self, model: GraphModel) -> None:
        self.scene.clear()
        self._message = None
        fonts = Fonts(self.font())
        boxes = {box_id: BoxItem(box, fonts) for box_id, box in model.boxes.items()}
        sizes = {box_id: (item.w, item.h) for box_id, item in boxes.items()}
        positions = layout(model, sizes, self.vertical)
        for box_id, item in boxes.items():
            item.setPos(*positions[box_id])
            self.scene.addItem(item)
        ink = self.palette().color(QPalette.ColorRole.Text)
        ports = self._ports(model, boxes)
        # parallel links (x * x uses x twice) carry their gradient labels at different heights
        parallel: dict[tuple, list[Link]] = {}
        for link in model.links:
            parallel.setdefault((link.tail, link.head), []).append(link)
        links = []
        for link in model.links:
            group = parallel[(link.tail, link.head)]
            pill_at = 0.5 if len(group) == 1 else 0.3 + 0.4 * group.index(link) / (len(group) - 1)
            if link.tail in boxes and link.head in boxes:
                tail, head = boxes[link.tail], boxes[link.head]
                item = LinkItem(link, tail, head, self.vertical, ink, fonts, ports[link], pill_at)
                self.scene.addItem(item)
                links.append(item)
        self.boxes, self.links = boxes, links
        if positions:
            xs = [x for x, _ in positions.values()]
            ys = [y for _, y in positions.values()]
            rect = QRectF(
                min(xs) - 120, min(ys) - 50, max(xs) - min(xs) + 240, max(ys) - min(ys) + 100
            )
        else:
            rect = QRectF(-200, -60, 400, 120)
        self.scene.setSceneRect(rect)

    def _ports(
        self, model: GraphModel, boxes: dict[BoxId, BoxItem]
    ) -> dict[Link, tuple[float, float]]:
        """Spread the ends of the links along a box's side, ordered by where the other
        end is, so that the arrows into a function with several inputs stay apart."""

        def cross(item: BoxItem) -> float:
            return item.pos().x() if self.vertical else item.pos().y()

        def spread(item: BoxItem, others: list[tuple[Link, BoxItem]]) -> dict[Link, float]:
            n = len(others)
            size = item.w if self.vertical else item.h
            span = min(size * 0.6, 18.0 * (n - 1))
            ordered = sorted(others, key=lambda lo: cross(lo[1]))
            return {
                link: (-span / 2 + span * i / (n - 1)) if n > 1 else 0.0
                for i, (link, _) in enumerate(ordered)
            }

        into: dict[BoxId, list[tuple[Link, BoxItem]]] = {}
        out_of: dict[BoxId, list[tuple[Link, BoxItem]]] = {}
        for link in model.links:
            if link.tail in boxes and link.head in boxes:
                into.setdefault(link.head, []).append((link, boxes[link.tail]))
                out_of.setdefault(link.tail, []).append((link, boxes[link.head]))
        head_at: dict[Link, float] = {}
        tail_at: dict[Link, float] = {}
        for box_id, others in into.items():
            head_at.update(spread(boxes[box_id], others))
        for box_id, others in out_of.items():
            tail_at.update(spread(boxes[box_id], others))
        return {link: (tail_at.get(link, 0.0), head_at.get(link, 0.0)) for link in model.links}

    # -- state -> view -------------------------------------------------------
    def _apply_model(self, model: GraphModel) -> None:
        """Show the part of the union graph that exists at this position."""
        for box_id, item in self.boxes.items():
            box = model.boxes.get(box_id)
            item.show_box(box is not None)
            if box is None:
                continue
            if item.box.kind != "fn":
                item.set_box(box)
            else:
                key = box_id[1]
                item.set_state(output=key in model.roots and ("out", key) not in self.boxes)
        present = {link.flow for link in model.links}
        for link in self.links:
            link.show_link(link.link.flow in present)

    def _apply_flow(self, at: TraceAt | None) -> None:
        executed = at.executed if at is not None else ()
        current = at.current if at is not None else None
        flows: dict[tuple, GradValue | None] = {}
        for ex in executed:
            for slot, (nxt, grad) in enumerate(ex.outgoing):
                if nxt is not None:
                    flows[("next", ex.key, slot)] = grad
            if ex.incoming:
                flows[("acc", ex.key)] = ex.incoming[0]
                flows[("out", ex.key)] = ex.incoming[0]
        strong: set[tuple] = set()
        if current is not None:
            strong = {("next", current.key, s) for s in range(len(current.outgoing))}
            strong |= {("acc", current.key), ("out", current.key)}
        for link in self.links:
            link.set_flow(flows.get(link.link.flow), link.link.flow in strong)
        self.executed_keys = tuple(ex.key for ex in executed)
        self.current_key = current.key if current is not None else None
        live = at is not None and at.live
        done = set(self.executed_keys) if live else set()
        for box_id, item in self.boxes.items():
            if box_id[0] == "fn":
                item.set_state(executed=box_id[1] in done, current=box_id[1] == self.current_key)

    def _apply_selection(self) -> None:
        key = self.selected_key
        for box_id, item in self.boxes.items():
            on = key is not None and item.box.key == key and box_id[0] in ("fn", "leaf", "out")
            item.set_state(selected=on)

    def _update_status(self) -> None:
        ev = self.state.evaluation
        n = self.model.fn_count
        muted = self.palette().color(QPalette.ColorRole.PlaceholderText).name()
        parts = [f"<b>{n}</b> grad_fn node{'s' if n != 1 else ''}"]
        at = trace_at(self.state)
        if at is not None and ev is not None:
            label = ev.plan.labels.get(at.trace.node_id, "backward")
            total = len(at.trace.executions)
            if at.live and self.state.replay is not None:
                parts.append(f"replaying <b>{label}</b>: {len(at.executed)} / {total}")
            elif at.live:
                parts.append(f"gradients of <b>{label}</b> (step {at.trace.step + 1})")
            else:
                parts.append(
                    f"<span style='color:{muted}'>gradients of the last backward, "
                    f"{label} (step {at.trace.step + 1})</span>"
                )
        self.status.setText(" · ".join(parts))

    def _ensure_visible(self, key: int) -> None:
        item = self.fn_item(key)
        if item is not None:
            self.view.ensureVisible(item, 40, 40)

    # -- selection sync ------------------------------------------------------
    def select_key(self, key: int | None) -> None:
        """Highlight a grad_fn here, and select its counterpart node via the state."""
        self.selected_key = key
        self._apply_selection()
        ev = self.state.evaluation
        self.state.select_grad_fn("" if key is None else str(key))
        if ev is None or key is None:
            self.state.select(())
            return
        node = index_for(ev).node_for(key)
        self.state.select((node,) if node is not None else ())
        self._ensure_visible(key)

    def click_box(self, box_id: BoxId) -> None:
        """What a click on a box does (the mouse path calls this too)."""
        item = self.boxes.get(box_id)
        if item is not None:
            self._box_clicked(item)

    def _box_clicked(self, item: BoxItem) -> None:
        box = item.box
        if box.kind in ("leaf", "out") and box.node_id is not None:
            self.selected_key = box.key
            self._apply_selection()
            self.state.select_grad_fn("" if box.key is None else str(box.key))
            self.state.select((box.node_id,))
            return
        self.select_key(box.key)

    def _background_clicked(self) -> None:
        if self.selected_key is not None:
            self.select_key(None)

    def _selection_changed(self) -> None:
        ev, snap = self.state.evaluation, self.state.snapshot()
        if ev is None or snap is None:
            return
        index = index_for(ev)
        selection = self.state.selection
        if self.selected_key is not None and index.node_for(self.selected_key) in selection:
            return  # the selection came from here (or agrees with it)
        key = index.key_for(snap, selection[0]) if selection else None
        self.selected_key = key
        self._apply_selection()
        self.state.select_grad_fn("" if key is None else str(key))
        if key is not None:
            self._ensure_visible(key)

    def _grad_fn_selected(self, text: str) -> None:
        key = parse_key(text)
        if key != self.selected_key:
            self.selected_key = key
            self._apply_selection()
            if key is not None:
                self._ensure_visible(key)
