"""How much the scene draws: zoomed far out, one overview item draws the whole graph
in a few batches (``ui.canvas.overview``) and the cards and wires hide; an exported
image asks for every item's own drawing for a while.

A mixin of ``GraphScene``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal

from ui.canvas.edge_item import EdgeItem
from ui.canvas.group_layer import GroupLayer
from ui.canvas.node_item import NodeItem
from ui.canvas.overview import OVERVIEW_LOD, Overview

if TYPE_CHECKING:
    from gradstudio.document.values import Edge


class SceneDetail:
    """``GraphScene``'s level of detail: the far-out overview (mixed into it)."""

    titlesMoved: Signal
    groups: GroupLayer
    overview: Overview | None
    _nodes: dict[str, NodeItem]
    _edges: dict[Edge, EdgeItem]
    _overview_on: bool

    def _overview_changed(self, geometry: bool = True) -> None:
        if self.overview is not None:
            self.overview.invalidate(geometry)

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
