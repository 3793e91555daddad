"""The node palette (object name ``palette``): the catalogue by category, with a search field.

Drag a type onto the canvas to add it there, or double-click (Enter) to add it in
the middle of the view.  While searching, the tree turns into one ranked list (the
same ranking as the canvas's Tab search), so typing ``mul`` then Enter just works.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QMimeData, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QLineEdit,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gradstudio.catalogue import NodeType, catalogue
from ui.canvas.view_quick_add import NODE_MIME
from ui.icons import swatch
from ui.palette.type_search import display_names, search
from ui.themes import CATEGORY_COLORS, DEFAULT_CATEGORY_COLOR

TYPE_ROLE = Qt.ItemDataRole.UserRole + 1


class _TypeTree(QTreeWidget):
    """A tree whose type rows drag out as ``NODE_MIME`` data.

    Its rows are filled before the tree is first polished, when the style sheet's item
    padding is not known yet: the rows are laid out again once it is, so the spacing a
    theme switch gives (a new sheet re-lays them out) is the spacing from the start.
    """

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.Polish:
            self.doItemsLayout()
        return handled

    def mimeData(self, items: Sequence[QTreeWidgetItem]) -> QMimeData:  # noqa: N802 - Qt
        data = QMimeData()
        for item in items:
            type_id = item.data(0, TYPE_ROLE)
            if type_id:
                data.setData(NODE_MIME, type_id.encode("utf-8"))
                data.setText(type_id)
                break
        return data

    def mimeTypes(self) -> list[str]:  # noqa: N802 - Qt's name
        return [NODE_MIME]


class Palette(QWidget):
    """Emits ``addRequested(type_id)`` on double-click or Enter."""

    addRequested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("palette")
        self.setMinimumWidth(190)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(6)
        self.search = QLineEdit()
        self.search.setObjectName("paletteSearch")
        self.search.setPlaceholderText("Search nodes…")
        self.search.setClearButtonEnabled(True)
        self.tree = _TypeTree()
        self.tree.setObjectName("paletteTree")
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(True)
        self.tree.setIndentation(14)
        self.tree.setIconSize(QSize(12, 12))
        self.tree.setUniformRowHeights(True)
        self.tree.setDragEnabled(True)
        self.tree.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        layout.addWidget(self.search)
        layout.addWidget(self.tree)
        self._icons = {c: swatch(v) for c, v in CATEGORY_COLORS.items()}
        self._names = display_names(catalogue().types())
        self._default_icon = swatch(DEFAULT_CATEGORY_COLOR)
        self.search.textChanged.connect(self._fill)
        self.search.returnPressed.connect(self._add_current)
        self.search.installEventFilter(self)
        self.tree.itemActivated.connect(self._activated)
        self._fill()

    # ------------------------------------------------------------------ contents
    def _type_item(self, t: NodeType) -> QTreeWidgetItem:
        item = QTreeWidgetItem([self._names.get(t.id, t.title)])
        item.setData(0, TYPE_ROLE, t.id)
        item.setIcon(0, self._icons.get(t.category, self._default_icon))
        tip = f"<b>{t.title}</b> <code>{t.id}</code>"
        if t.doc:
            tip += f"<br>{t.doc}"
        item.setToolTip(0, tip)
        item.setFlags(
            Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled
        )
        return item

    def _fill(self) -> None:
        self.tree.clear()
        cat = catalogue()
        query = self.search.text().strip()
        if query:
            for t in search(cat.types(), query):
                self.tree.addTopLevelItem(self._type_item(t))
            if self.tree.topLevelItemCount():
                self.tree.setCurrentItem(self.tree.topLevelItem(0))
            return
        bold = QFont(self.font())
        bold.setWeight(QFont.Weight.DemiBold)
        for category in cat.categories():
            head = QTreeWidgetItem([category.capitalize()])
            head.setFlags(Qt.ItemFlag.ItemIsEnabled)
            head.setFont(0, bold)
            head.setForeground(
                0, QBrush(QColor(CATEGORY_COLORS.get(category, DEFAULT_CATEGORY_COLOR)))
            )
            for t in cat.types():
                if t.category == category:
                    head.addChild(self._type_item(t))
            self.tree.addTopLevelItem(head)
        self.tree.expandAll()

    def visible_types(self) -> list[str]:
        """Type ids listed now, top to bottom (for tests and keyboard users)."""
        out: list[str] = []

        def walk(item: QTreeWidgetItem) -> None:
            type_id = item.data(0, TYPE_ROLE)
            if type_id:
                out.append(type_id)
            for i in range(item.childCount()):
                walk(item.child(i))

        for i in range(self.tree.topLevelItemCount()):
            walk(self.tree.topLevelItem(i))
        return out

    def item_for(self, type_id: str) -> QTreeWidgetItem | None:
        matches = [
            it
            for it in self.tree.findItems(
                "", Qt.MatchFlag.MatchContains | Qt.MatchFlag.MatchRecursive
            )
            if it.data(0, TYPE_ROLE) == type_id
        ]
        return matches[0] if matches else None

    def mime_for(self, type_id: str) -> QMimeData:
        """The drag data the palette gives for ``type_id`` (what a drop on the canvas reads)."""
        item = self.item_for(type_id)
        if item is None:
            raise KeyError(type_id)
        return self.tree.mimeData([item])

    # ------------------------------------------------------------------ actions
    def _activated(self, item: QTreeWidgetItem) -> None:
        type_id = item.data(0, TYPE_ROLE)
        if type_id:
            self.addRequested.emit(type_id)

    def _add_current(self) -> None:
        item = self.tree.currentItem()
        if item is not None:
            self._activated(item)

    def eventFilter(self, obj: object, event: object) -> bool:  # noqa: N802 - Qt's name
        if (
            obj is self.search
            and isinstance(event, QKeyEvent)
            and event.type() == QKeyEvent.Type.KeyPress
        ) and event.key() in (Qt.Key.Key_Down, Qt.Key.Key_Up):
            self.tree.setFocus()
            self.tree.keyPressEvent(event)
            return True
        return super().eventFilter(obj, event)
