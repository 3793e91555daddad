"""The backward graph zoomed far out: one item draws every box and edge in batches
(the items are hidden then), from the model and the flows at the position."""

from __future__ import annotations

from collections.abc import Collection, Generator, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPalette, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

from gradstudio.evaluation.facts import GradValue
from ui.backward.item_style import CURRENT, FLOW, fill_rgba
from ui.backward.items import BoxItem, LinkItem
from ui.backward.model import Box, BoxId
from ui.backward.steps import finish


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
