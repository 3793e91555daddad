"""The quick-add popup: Tab on the canvas (Blender, ComfyUI) or a wire dropped on empty canvas.

A frameless popup at the cursor with a search field and a ranked list; Enter adds
the highlighted type, Escape closes.  When opened from a dropped wire it lists only
types that can take that wire (Orange, Unreal), and says so in its hint line.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QPoint, QSize, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gradstudio.catalogue import NodeType, catalogue
from ui.icons import swatch
from ui.palette.type_search import display_names, search
from ui.themes import CATEGORY_COLORS, DEFAULT_CATEGORY_COLOR

TYPE_ROLE = Qt.ItemDataRole.UserRole + 1
MAX_ROWS = 10


class NodeSearchPopup(QFrame):
    """Emits ``chosen(type_id)`` when the user picks a node type."""

    chosen = Signal(str)
    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("nodeSearch")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._filter: Callable[[NodeType], bool] | None = None
        self._picked = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        self.hint = QLabel("Add node")
        self.hint.setObjectName("nodeSearchHint")
        self.field = QLineEdit()
        self.field.setObjectName("nodeSearchField")
        self.field.setPlaceholderText("Search nodes… (add, matmul, backward)")
        self.field.setClearButtonEnabled(True)
        self.list = QListWidget()
        self.list.setObjectName("nodeSearchList")
        self.list.setUniformItemSizes(True)
        self.list.setIconSize(QSize(12, 12))
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        layout.addWidget(self.hint)
        layout.addWidget(self.field)
        layout.addWidget(self.list)
        self.setFixedWidth(320)
        self.field.textChanged.connect(self._refill)
        self.field.installEventFilter(self)
        self.list.itemActivated.connect(self._activate)
        self.list.itemClicked.connect(self._activate)

    # ------------------------------------------------------------------ opening
    def open_at(
        self,
        global_pos: QPoint,
        accept: Callable[[NodeType], bool] | None = None,
        hint: str = "Add node",
    ) -> None:
        """Show at ``global_pos`` listing every type (or those ``accept`` allows)."""
        self._filter = accept
        self._picked = False
        self.hint.setText(hint)
        self.field.blockSignals(True)
        self.field.clear()
        self.field.blockSignals(False)
        self._refill()
        self.adjustSize()
        self.move(global_pos)
        self.show()
        self.raise_()
        self.activateWindow()
        self.field.setFocus(Qt.FocusReason.PopupFocusReason)

    def set_query(self, text: str) -> None:
        self.field.setText(text)

    def results(self) -> list[str]:
        """Type ids listed now, in order."""
        return [self.list.item(i).data(TYPE_ROLE) for i in range(self.list.count())]

    def choose_current(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self._activate(item)

    # ------------------------------------------------------------------ internals
    def _types(self) -> list[NodeType]:
        types = catalogue().types()
        if self._filter is not None:
            types = [t for t in types if self._filter(t)]
        return types

    def _refill(self) -> None:
        self.list.clear()
        names = display_names(catalogue().types())
        for t in search(self._types(), self.field.text()):
            item = QListWidgetItem(f"{names.get(t.id, t.title)}   ·  {t.category}")
            item.setData(TYPE_ROLE, t.id)
            item.setToolTip(f"<b>{t.id}</b><br>{t.doc}" if t.doc else t.id)
            item.setIcon(swatch(CATEGORY_COLORS.get(t.category, DEFAULT_CATEGORY_COLOR)))
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)
        rows = min(MAX_ROWS, max(self.list.count(), 1))
        self.list.setFixedHeight(rows * (self.list.sizeHintForRow(0) or 22) + 6)
        self.adjustSize()

    def _activate(self, item: QListWidgetItem) -> None:
        type_id = item.data(TYPE_ROLE)
        self._picked = True
        self.hide()
        self.chosen.emit(type_id)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if obj is self.field and event.type() == QEvent.Type.KeyPress:
            key = event.key() if isinstance(event, QKeyEvent) else None
            if key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
                step = {
                    Qt.Key.Key_Down: 1,
                    Qt.Key.Key_Up: -1,
                    Qt.Key.Key_PageDown: 8,
                    Qt.Key.Key_PageUp: -8,
                }[key]
                row = max(0, min(self.list.count() - 1, self.list.currentRow() + step))
                self.list.setCurrentRow(row)
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Tab):
                self.choose_current()
                return True
            if key == Qt.Key.Key_Escape:
                self.hide()
                return True
        return super().eventFilter(obj, event)

    def hideEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        super().hideEvent(event)
        if not self._picked:
            self.dismissed.emit()
