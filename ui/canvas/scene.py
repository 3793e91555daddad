"""The graph scene: one item per document node and edge, kept in step with document events.

The scene never edits the document; it redraws only what an event names (a moved
node moves one card and its wires), and repaints node facts from
the playhead (``state.playhead``) when the evaluation or its position changes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QPixmapCache
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QGraphicsSceneMouseEvent

from gradstudio.document.events import (
    DocumentEvent,
    DocumentReset,
    EdgeAdded,
    EdgeRemoved,
    LabelChanged,
    NodeAdded,
    NodeMoved,
    NodeRemoved,
    OrderChanged,
    ParamChanged,
)
from gradstudio.text import html_text
from ui.canvas.edge_item import EdgeItem
from ui.canvas.group_item import GroupCardItem, GroupFrameItem
from ui.canvas.group_layer import GroupLayer
from ui.canvas.node_facts import PENDING, NodeFacts, facts_reader, node_facts
from ui.canvas.node_item import NodeItem
from ui.canvas.overview import OVERVIEW_LOD, Overview
from ui.canvas.style import CanvasStyle, canvas_style
from ui.themes import DARK, Theme

if TYPE_CHECKING:
    from gradstudio.document.model import Document, Edge
    from gradstudio.evaluation.facts import TensorFacts
    from ui.state import StudioState

SCENE_MARGIN = 3000.0


class GraphScene(QGraphicsScene):
    """Cards and wires for ``state.document``; emits ``nodesDragged`` after a drag."""

    nodesDragged = Signal(dict)  # {node_id: (x, y)} after a mouse drag of cards
    groupDragged = Signal(str, float, float)  # group id, dx, dy after a frame's drag
    titlesMoved = Signal()  # frames' titles were put back in place: a view re-places them

    def __init__(self, state: StudioState, theme: Theme = DARK, parent: object = None) -> None:
        super().__init__(parent)
        self.state = state
        self.style: CanvasStyle = canvas_style(theme)
        self.stale = False
        self._nodes: dict[str, NodeItem] = {}
        self._edges: dict[Edge, EdgeItem] = {}
        self._edges_by_node: dict[str, set[Edge]] = {}
        #: The wires out of each node (None: to gather again after an edit).
        #: the wires out of each node, by output port (a scrub re-colours them)
        self._out_wires: dict[str, tuple[tuple[str, list[EdgeItem]], ...]] | None = None
        self._connected: dict[str, set[tuple[str, bool]]] = {}
        self._input_counts: dict[tuple[str, str], int] = {}
        self._unsubscribe: Callable[[], None] | None = None
        self._syncing_selection = False
        self._clearing = False
        self._press_positions: dict[str, QPointF] = {}
        self._raised: set[str] = set()
        self._facts_key: tuple | None = None
        #: While a scrub restyles cards: the items the views show (None: every item).
        self._shown: set[QGraphicsItem] | None = None
        #: Cards and wires restyled off screen, repainted when a view shows them.
        self._put_off: set[NodeItem | EdgeItem] = set()
        self._overview_on = False
        self.overview: Overview | None = None
        self.groups = GroupLayer(self)
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        QPixmapCache.setCacheLimit(max(QPixmapCache.cacheLimit(), 96 * 1024))
        self.selectionChanged.connect(self._selection_to_state)
        state.documentReplaced.connect(self.rebuild)
        state.evaluationChanged.connect(self.refresh_facts)
        state.positionChanged.connect(self.refresh_facts)
        state.selectionChanged.connect(self._selection_from_state)
        self.rebuild()

    # ------------------------------------------------------------------ lookup
    @property
    def document(self) -> Document:
        return self.state.document

    def node_item(self, node_id: str) -> NodeItem | None:
        return self._nodes.get(node_id)

    def node_items(self) -> list[NodeItem]:
        return list(self._nodes.values())

    def edge_item(self, edge: Edge) -> EdgeItem | None:
        return self._edges.get(edge)

    def edge_items(self) -> list[EdgeItem]:
        return list(self._edges.values())

    def connected_ports(self, node_id: str) -> set[tuple[str, bool]]:
        return self._connected.get(node_id, set())

    def input_count(self, node_id: str, port: str) -> int:
        return self._input_counts.get((node_id, port), 0)

    def selected_node_ids(self) -> list[str]:
        """Selected nodes, those inside a selected group's frame or card too, in step order."""
        ids = {i.node_id for i in self.selectedItems() if isinstance(i, NodeItem)}
        ids |= self.groups.selected_members()
        return [n for n in self.document.order if n in ids]

    def edges_at(self, node_id: str) -> set[Edge]:
        """The wires with an end at this node."""
        return self._edges_by_node.get(node_id, set())

    def edges(self) -> list[Edge]:
        return list(self._edges)

    @property
    def overview_on(self) -> bool:
        return self._overview_on

    def selected_edges(self) -> list[Edge]:
        return [i.edge for i in self.selectedItems() if isinstance(i, EdgeItem)]

    def error_tooltip(self, node_id: str) -> str:
        ev = self.state.evaluation
        err = ev.error_for(node_id) if ev is not None else None
        if err is None:
            return ""
        parts = [f"<b style='color:{self.style.theme.error}'>{html_text(err.title)}</b>"]
        parts.append(f"<code>{html_text(err.exc_type)}: {html_text(err.message)}</code>")
        if err.explanation:
            parts.append(html_text(err.explanation))
        if err.fix:
            parts.append("<b>Fix:</b> " + html_text(err.fix))
        return "<p>" + "</p><p>".join(parts) + "</p>"

    # ------------------------------------------------------------------ theme
    def set_theme(self, theme: Theme) -> None:
        self.style = canvas_style(theme)
        for item in self._nodes.values():
            item.refresh()
        self._overview_changed(geometry=False)
        self.update()

    def set_stale(self, stale: bool) -> None:
        if stale != self.stale:
            self.stale = stale
            for item in self._nodes.values():
                item.refresh()

    # ------------------------------------------------------------------ building
    def rebuild(self) -> None:
        """Drop every item and draw the current document from scratch (New/Open/reset)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._raised = set()
        self._facts_key = None
        self._put_off.clear()
        self._nodes.clear()
        self._edges.clear()
        self._clearing = True
        try:
            self.clear()
        finally:
            self._clearing = False
        self._edges_by_node.clear()
        self._out_wires = None
        self._connected.clear()
        self._input_counts.clear()
        self.groups.reset()
        doc = self.document
        self.overview = Overview(self)
        self.overview.setVisible(self._overview_on)
        self.addItem(self.overview)
        for step, node in enumerate(doc.nodes()):
            self._add_node(node.id, step)
        for edge in doc.edges():
            self._add_edge(edge)
        self.groups.rebuild()
        self.overview.invalidate()
        self._unsubscribe = doc.subscribe(self._on_event)
        self.refresh_facts()
        self.update_scene_rect()

    def update_scene_rect(self) -> None:
        """The cards' extent plus a wide margin to pan into (wires run between cards).

        Measured from the cards in Python: ``itemsBoundingRect`` would ask every
        item, thousands of Python ``boundingRect`` calls on a big graph.
        """
        if self._nodes:
            xs: list[float] = []
            ys: list[float] = []
            for card in self._nodes.values():
                pos = card.pos()
                xs += (pos.x(), pos.x() + card.width)
                ys += (pos.y(), pos.y() + card.height)
            bounds = QRectF(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
        else:
            bounds = QRectF(0, 0, 800, 600)
        self.setSceneRect(bounds.adjusted(-SCENE_MARGIN, -SCENE_MARGIN, SCENE_MARGIN, SCENE_MARGIN))

    def _add_node(self, node_id: str, step: int | None = None) -> NodeItem:
        node = self.document.node(node_id)
        item = NodeItem(node, self)
        item.step = self.document.step_of(node_id) if step is None else step
        if self._overview_on:
            item.set_overview(True)
        self._nodes[node_id] = item
        self.addItem(item)
        return item

    def _add_edge(self, edge: Edge) -> None:
        item = EdgeItem(edge, self)
        item.setVisible(not self._overview_on)
        self._edges[edge] = item
        self._out_wires = None
        self._edges_by_node.setdefault(edge.src, set()).add(edge)
        self._edges_by_node.setdefault(edge.dst, set()).add(edge)
        self._connected.setdefault(edge.src, set()).add((edge.src_port, False))
        self._connected.setdefault(edge.dst, set()).add((edge.dst_port, True))
        key = (edge.dst, edge.dst_port)
        self._input_counts[key] = self._input_counts.get(key, 0) + 1
        self.addItem(item)
        self._overview_changed()

    def _remove_edge(self, edge: Edge) -> None:
        item = self._edges.pop(edge, None)
        if item is None:
            return
        self._out_wires = None
        self._put_off.discard(item)
        self.removeItem(item)
        for end in (edge.src, edge.dst):
            self._edges_by_node.get(end, set()).discard(edge)
        key = (edge.dst, edge.dst_port)
        self._input_counts[key] = max(0, self._input_counts.get(key, 0) - 1)
        self._overview_changed()
        self._recount_connected(edge.src)
        self._recount_connected(edge.dst)

    def _recount_connected(self, node_id: str) -> None:
        ports: set[tuple[str, bool]] = set()
        for e in self._edges_by_node.get(node_id, ()):
            if e.src == node_id:
                ports.add((e.src_port, False))
            if e.dst == node_id:
                ports.add((e.dst_port, True))
        self._connected[node_id] = ports
        item = self._nodes.get(node_id)
        if item is not None:
            item.refresh()

    # ------------------------------------------------------------------ events
    def _on_event(self, event: DocumentEvent) -> None:
        doc = self.document
        if isinstance(event, NodeAdded):
            self._add_node(event.node_id)
            self._refresh_steps()
            self._refresh_node_facts(event.node_id)
        elif isinstance(event, NodeRemoved):
            item = self._nodes.pop(event.node_id, None)
            for edge in list(self._edges_by_node.pop(event.node_id, ())):
                self._remove_edge(edge)
            self._connected.pop(event.node_id, None)
            if item is not None:
                self._put_off.discard(item)
                self.removeItem(item)
            self._refresh_steps()
        elif isinstance(event, EdgeAdded):
            self._add_edge(event.edge)
            for end in (event.edge.src, event.edge.dst):
                item = self._nodes.get(end)
                if item is not None:
                    item.refresh()
        elif isinstance(event, EdgeRemoved):
            self._remove_edge(event.edge)
        elif isinstance(event, NodeMoved):
            item = self._nodes.get(event.node_id)
            if item is not None and (item.x(), item.y()) != (event.x, event.y):
                item.setPos(event.x, event.y)
                self.node_item_moved(item)
        elif isinstance(event, ParamChanged):
            item = self._nodes.get(event.node_id)
            if item is not None:
                item.set_node(doc.node(event.node_id))
            # a card the edit widened re-measured the overview (``node_item_moved``);
            # a new value alone draws the same there, so the graph is not measured again
            return
        elif isinstance(event, LabelChanged):
            item = self._nodes.get(event.node_id)
            if item is not None:
                item.set_node(doc.node(event.node_id))
        elif isinstance(event, OrderChanged):
            self._refresh_steps()
        elif isinstance(event, DocumentReset):
            self.rebuild()
            return
        self.groups.on_event(event)
        self._overview_changed()

    def _overview_changed(self, geometry: bool = True) -> None:
        if self.overview is not None:
            self.overview.invalidate(geometry)

    def _refresh_steps(self) -> None:
        for step, node_id in enumerate(self.document.order):
            item = self._nodes.get(node_id)
            if item is not None:
                item.set_step(step)

    def node_item_moved(self, item: NodeItem) -> None:
        """A card moved (dragged, or set from the document): re-route its wires."""
        self.groups.node_moved(item.node_id)
        for edge in self._edges_by_node.get(item.node_id, ()):
            edge_item = self._edges.get(edge)
            if edge_item is not None:
                edge_item.update_path()
        self._overview_changed()

    def set_zoom_level(self, zoom: float) -> None:
        """Far out, the overview draws the graph as a few batches (``ui.canvas.overview``)."""
        self._set_overview(zoom < OVERVIEW_LOD)
        self.groups.set_zoom(zoom)
        self.expose()

    def _set_overview(self, on: bool) -> None:
        if on == self._overview_on:
            return
        self._overview_on = on
        for item in self._edges.values():
            item.setVisible(not on)
            if not on and item.stale:
                item.stale = False
                item.update()
        self.groups.apply_edge_visibility()
        for card in self._nodes.values():
            card.set_overview(on)
        if self.overview is not None:
            self.overview.setVisible(on)
            if on:
                self.overview.invalidate()

    @contextmanager
    def full_detail(self) -> Iterator[None]:
        """Every card and wire drawn by its own item for a while (exporting an image)."""
        was, zoom = self._overview_on, self.groups.zoom
        self._set_overview(False)
        self.groups.set_zoom(1.0)  # frames' titles in their title bars, not far labels
        self.groups.show_titles_in(None)
        try:
            yield
        finally:
            self._set_overview(was)
            self.groups.set_zoom(zoom)
            self.titlesMoved.emit()

    # ------------------------------------------------------------------ facts
    def refresh_facts(self) -> None:
        """Repaint node facts from the evaluation at the timeline position.

        ``set_evaluation`` announces both a new evaluation and a new position; the
        second call finds nothing new and returns at once.  Every card takes its new
        facts at once (what the inspector and the tests read), but only those on
        screen repaint now: a scrub restyles thousands of cards, and Qt's dirty-item
        pass asks each for its bounds; the others repaint once a view shows them
        (``expose``).
        """
        if not self._overview_on:
            rect = self._screen()
            self._shown = None if rect is None else set(self._items_in(rect))
        try:
            self._refresh_facts()
        finally:
            self._shown = None

    def _screen(self) -> QRectF | None:
        """The part of the scene the visible views show (None: no view shows it)."""
        rect = QRectF()
        for view in self.views():
            if view.isVisible():
                rect = rect.united(view.mapToScene(view.viewport().rect()).boundingRect())
        return None if rect.isEmpty() else rect

    def _items_in(self, rect: QRectF) -> list[QGraphicsItem]:
        """The items whose bounds meet ``rect`` (their shapes are not asked: a Python
        call each)."""
        mode = Qt.ItemSelectionMode.IntersectsItemBoundingRect
        return self.items(rect, mode, Qt.SortOrder.AscendingOrder)

    def on_screen(self, item: NodeItem | EdgeItem) -> bool:
        """Whether a view shows ``item`` (always, but while a scrub restyles cards);
        one it does not show is remembered, to repaint when it comes into view."""
        shown = self._shown
        if shown is None or item in shown:
            return True
        self._put_off.add(item)
        return False

    def expose(self) -> None:
        """Repaint the cards and wires a scrub restyled off screen that a view shows
        now (it scrolled or grew: zooming redraws every cached card anyway)."""
        if not self._put_off or self._overview_on:
            return
        rect = self._screen()
        if rect is None:
            return
        put_off = self._put_off
        for item in self._items_in(rect):
            if item in put_off:
                put_off.discard(item)
                item.show_put_off()

    def render(self, *args: object, **kwargs: object) -> None:
        """Draw the scene elsewhere (an exported image): what was put off first."""
        for item in self._put_off:
            item.show_put_off()
        self._put_off.clear()
        super().render(*args, **kwargs)

    def _refresh_facts(self) -> None:
        playhead = self.state.playhead
        ev = playhead.evaluation
        key = (ev, playhead.step, playhead.replay, len(self._nodes), len(self._edges))
        if key == self._facts_key:
            return
        before, self._facts_key = self._facts_key, key
        snap = playhead.snapshot()
        at_end = ev is None or playhead.at_end
        items: Iterable[NodeItem] = self._nodes.values()
        changed: set[str] | None = None
        if before is not None and ev is not None and before[0] is ev and before[3:] == key[3:]:
            # the same evaluation at another position: only what changed in between
            changed = playhead.nodes_changed_since(before[1], before[2])
            items = [item for n in changed if (item := self._nodes.get(n)) is not None]
        read = facts_reader(playhead)
        # A node whose step is after the one shown is pending and has no outputs yet:
        # most of a long jump back, told apart here without reading any facts.
        step_of = ev.plan.step_of if ev is not None and snap is not None else {}
        shown = playhead.effective_step
        later: set[str] = set()
        #: the first output's facts, read for the card already (its wires' colour)
        first: dict[str, tuple[str, TensorFacts | None]] = {}
        restyled = []  # the cards whose look far out (the overview's) changed
        pending_dimmed = not at_end
        far = self._overview_on
        for item in items:
            node_id = item.node_id
            step = step_of.get(node_id)
            old = item.facts
            if step is not None and step > shown:
                later.add(node_id)
                if old is PENDING:
                    if item.dimmed == pending_dimmed:
                        continue
                    restyled.append(item)
                elif old.status == "error" or old.requires_grad or item.dimmed != pending_dimmed:
                    restyled.append(item)
                if far and old.status != "error":  # ``set_pending``, inlined: thousands
                    item.facts, item.dimmed, item._stale = PENDING, pending_dimmed, True
                else:
                    item.set_pending(pending_dimmed)
                continue
            was_dimmed = item.dimmed
            facts = read(node_id, item.node_type)
            dimmed = facts.status == "skipped" or (not at_end and facts.status == "pending")
            if facts.status == "ok" and facts.list_length is None and item.node_type.outputs:
                first[node_id] = (item.node_type.outputs[0].name, facts.tensor)
            if item.set_facts(facts, dimmed=dimmed) and (
                dimmed != was_dimmed
                or (old.status == "error") != (facts.status == "error")
                or old.requires_grad != facts.requires_grad
            ):
                restyled.append(item)
        out = self._out_wires
        if out is None:
            by_port: dict[str, dict[str, list[EdgeItem]]] = {}
            for edge, edge_item in self._edges.items():
                by_port.setdefault(edge.src, {}).setdefault(edge.src_port, []).append(edge_item)
            out = self._out_wires = {src: tuple(ports.items()) for src, ports in by_port.items()}
        wires: list[EdgeItem] = []  # the wires whose gradient colour changed
        on_screen = self.on_screen
        for src in out if changed is None else changed:  # the wires out of changed nodes
            ports = out.get(src)
            if ports is None:
                continue
            if src in later:  # pending: no output yet, so no gradient on any wire
                for _port, port_wires in ports:
                    for edge_item in port_wires:
                        if edge_item.carries_grad:
                            if far:  # hidden: ``set_carries_grad``, inlined
                                edge_item.carries_grad, edge_item.stale = False, True
                            else:
                                edge_item.set_carries_grad(False, not on_screen(edge_item))
                            wires.append(edge_item)
                continue
            known = first.get(src)
            for port, port_wires in ports:
                if known is not None and known[0] == port:
                    f = known[1]
                else:
                    f = snap.facts(src, port) if snap is not None else None
                grad = bool(f is not None and f.requires_grad)
                for edge_item in port_wires:
                    if edge_item.carries_grad is not grad:
                        edge_item.set_carries_grad(grad, far or not on_screen(edge_item))
                        wires.append(edge_item)
        if changed is None:
            self._overview_changed(geometry=False)
        elif self.overview is not None:
            self.overview.restyle(restyled, wires)

    def _refresh_node_facts(self, node_id: str) -> None:
        item = self._nodes.get(node_id)
        if item is None:
            return
        facts = node_facts(item.node_id, item.node_type, self.state.playhead)
        item.set_facts(facts, dimmed=False)

    def facts_of(self, node_id: str) -> NodeFacts:
        item = self._nodes.get(node_id)
        return item.facts if item is not None else NodeFacts()

    # ------------------------------------------------------------------ selection
    def _raise_selected(self) -> None:
        """Selected cards draw above the others (and their wires stay visible)."""
        selected = {i.node_id for i in self.selectedItems() if isinstance(i, NodeItem)}
        for node_id in self._raised - selected:
            item = self._nodes.get(node_id)
            if item is not None:
                item.setZValue(1.0)
        for node_id in selected - self._raised:
            item = self._nodes.get(node_id)
            if item is not None:
                item.setZValue(2.0)
        self._raised = selected

    def _selection_to_state(self) -> None:
        if self._clearing:
            return
        self._overview_changed(geometry=False)
        self._raise_selected()
        if self._syncing_selection:
            return
        self._syncing_selection = True
        try:
            self.state.select(self.selected_node_ids())
        finally:
            self._syncing_selection = False

    def _selection_from_state(self) -> None:
        if self._syncing_selection:
            return
        self._syncing_selection = True
        try:
            wanted = set(self.state.selection)
            self.groups.ensure()
            for node_id, item in self._nodes.items():
                sel = node_id in wanted
                if item.isSelected() != sel:
                    item.setSelected(sel)
            self.groups.show_selected(wanted)
        finally:
            self._syncing_selection = False

    # ------------------------------------------------------------------ dragging cards
    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        super().mousePressEvent(event)
        if isinstance(self.mouseGrabberItem(), GroupFrameItem | GroupCardItem):
            self._press_positions = {}  # the group drags its nodes itself (groupDragged)
            return
        self._press_positions = {
            i.node_id: i.pos() for i in self.selectedItems() if isinstance(i, NodeItem)
        }

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        super().mouseMoveEvent(event)
        if self._press_positions and event.buttons() & Qt.MouseButton.LeftButton:
            for node_id in self._press_positions:
                item = self._nodes.get(node_id)
                if item is not None:
                    self.node_item_moved(item)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        super().mouseReleaseEvent(event)
        moved: dict[str, tuple[float, float]] = {}
        for node_id, before in self._press_positions.items():
            item = self._nodes.get(node_id)
            if item is not None and item.pos() != before:
                moved[node_id] = (round(item.x(), 1), round(item.y(), 1))
        self._press_positions = {}
        if moved:
            self.nodesDragged.emit(moved)

    def detach(self) -> None:
        """Stop following the document (the window is closing)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
