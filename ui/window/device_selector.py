"""The device selector: where the graph runs (the document's ``device`` setting).

CUDA stays in the list even without a GPU, greyed out and disabled, with the engine's
own reason as its tooltip and in words (``note``, which the window shows in its status
bar), so a learner sees *why* it is unavailable instead of wondering where it went.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QComboBox, QLabel, QWidget

from ui.devices import cuda_status, disable_choice, short_reason

DEVICES = (("cpu", "CPU"), ("cuda", "CUDA"))


class DeviceSelector(QComboBox):
    """Emits ``deviceChosen(device)`` when the user picks a device."""

    deviceChosen = Signal(str)

    def __init__(
        self,
        parent: QWidget | None = None,
        status: Callable[[], tuple[bool, str]] = cuda_status,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("deviceSelector")
        for device, text in DEVICES:
            self.addItem(text, device)
        usable, why = status()
        self.cuda_usable = usable
        self.cuda_reason = why
        #: The reason in words, for the window's status bar (hidden with a GPU).
        self.note = QLabel(f"CUDA unavailable: {short_reason(why)}" if not usable else "")
        self.note.setObjectName("deviceNote")
        self.note.setVisible(not usable)
        if not usable:
            disable_choice(self, 1, f"CUDA is not available: {why}")
            self.note.setToolTip(f"CUDA is not available: {why}")
            self.setToolTip(f"Device the graph runs on. CUDA is not available: {why}")
        else:
            self.setItemData(1, "Run on the GPU (CuPy)", Qt.ItemDataRole.ToolTipRole)
            self.setToolTip("Device the graph runs on")
        self.currentIndexChanged.connect(self._changed)
        self._setting = False

    def set_device(self, device: str) -> None:
        """Show ``device`` without emitting ``deviceChosen``."""
        index = self.findData(device)
        if index >= 0 and index != self.currentIndex():
            self._setting = True
            try:
                self.setCurrentIndex(index)
            finally:
                self._setting = False

    @property
    def device(self) -> str:
        return str(self.currentData())

    def item_tooltip(self, device: str) -> str:
        index = self.findData(device)
        return str(self.itemData(index, Qt.ItemDataRole.ToolTipRole) or "")

    def item_enabled(self, device: str) -> bool:
        model = self.model()
        assert isinstance(model, QStandardItemModel)
        return model.item(self.findData(device)).isEnabled()

    def _changed(self, index: int) -> None:
        if not self._setting:
            self.deviceChosen.emit(str(self.itemData(index)))
