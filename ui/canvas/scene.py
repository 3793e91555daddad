"""The graph scene: one item per document node and edge, kept in step with document events.

The scene never edits the document; it redraws only what an event names (a moved
node moves one card and its wires), and repaints node facts from
the playhead (``state.playhead``) when the evaluation or its position changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, Signal
from PySide6.QtGui import QPixmapCache
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene

from gradstudio.text import html_text
from ui.canvas.edge_item import EdgeItem
from ui.canvas.group_layer import GroupLayer
from ui.canvas.node_item import NodeItem
from ui.canvas.overview import Overview
from ui.canvas.scene_detail import SceneDetail
from ui.canvas.scene_dragging import SceneDragging
from ui.canvas.scene_facts import SceneFacts
from ui.canvas.scene_selection import SceneSelection
from ui.canvas.scene_sync import SceneSync
from ui.canvas.style import CanvasStyle, canvas_style
from ui.themes import DARK, Theme

if TYPE_CHECKING:
    from gradstudio.document.model import Document
    from gradstudio.document.values import Edge
    from ui.state import StudioState


class GraphScene(
    SceneSync,
    SceneFacts,
    SceneDetail,
    SceneSelection,
    SceneDragging,
    QGraphicsScene,
):
    """Cards and wires for ``state.document``; emits ``nodesDragged`` after a drag.

    The scene's state, its lookups and its theme; what it does is in the mixins, one
    module per purpose: building and document events (``scene_sync``), facts from the
    playhead (``scene_facts``), the far-out overview (``scene_detail``), the selection
    (``scene_selection``) and card drags (``scene_dragging``)."""

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
