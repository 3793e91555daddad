"""The backward view's fitting, zoom and orientation: the orientation that shows the
graph larger until the user picks one, and the level of detail (far out, the overview
item draws the graph)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QSignalBlocker
from PySide6.QtGui import QResizeEvent

from ui.backward.graph_layout import fit_orientation
from ui.backward.item_style import TEXT_LOD
from ui.backward.items import BoxItem
from ui.backward.overview import OVERVIEW_LOD


class FittingMixin:
    """``BackwardView``'s orientation and level of detail (mixed into it)."""

    def set_vertical(self, vertical: bool) -> None:
        """Top-to-bottom (torchviz) or left-to-right, as the user chose: it sticks."""
        self.orientation_auto = False
        self._orient(vertical)

    def _orient(self, vertical: bool) -> None:
        self._show_orientation(vertical)
        self.refresh()
        self.view.fit()

    def _show_orientation(self, vertical: bool) -> None:
        self.vertical = vertical
        with QSignalBlocker(self.orientation_button):
            self.orientation_button.setChecked(vertical)
        self.orientation_button.setText("⇅" if vertical else "⇄")

    def best_orientation(self) -> bool:
        """The orientation that shows the graph larger in this view (``fit_orientation``)."""
        port = self.view.viewport()
        return fit_orientation(self._extents, port.width(), port.height(), self.vertical)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        if self.orientation_auto and self._extents:
            self._reorient_timer.start()

    def _reorient(self) -> None:
        if self.orientation_auto and self.best_orientation() != self.vertical:
            self._orient(not self.vertical)

    def _scale_changed(self, scale: float) -> None:
        """Far out, hand the drawing to the overview item (and back when zoomed in)."""
        if (scale < TEXT_LOD) != self._names_hidden:
            self._names_hidden = scale < TEXT_LOD
            if self.boxes:
                self._update_status()
        detail = scale >= OVERVIEW_LOD
        if detail == self.detail:
            return
        self.detail = detail
        if detail:
            self.sync_items()
        for item in self.boxes.values():
            item.set_shown(item.shown, detail)
        for link in self.links:
            link.set_shown(link.shown, detail)
        self.pill_layer.setVisible(detail)
        self._update_pills()
        self.overview.setVisible(not detail)
        self.overview.invalidate()

    def box_near(self, point: QPointF, tolerance: float) -> BoxItem | None:
        """The shown box at a scene point (within ``tolerance``), for clicks on the overview."""
        self.sync_items()
        for item in self.boxes.values():
            if (
                item.drawn
                and abs(point.x() - item.cx) <= item.w / 2 + tolerance
                and abs(point.y() - item.cy) <= item.h / 2 + tolerance
            ):
                return item
        return None
