"""The device selector: where the graph runs (the document's ``device`` setting).

CUDA stays in the list even without a GPU, greyed out and disabled, its row saying why in
words ("CUDA — CuPy cannot be imported") and the engine's whole reason as its tooltip, so a
learner who opens the list to choose CUDA sees *why* it is unavailable.  The closed box
stays as narrow as its shortest entry: the toolbar has no room to spare.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QComboBox, QWidget

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
        if not usable:
            self.setItemText(1, f"CUDA — {short_reason(why)}")
            disable_choice(self, 1, f"CUDA is not available: {why}")
            self.setToolTip(f"Device the graph runs on. CUDA is not available: {why}")
            self.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            self.setMinimumContentsLength(max(len(text) for _, text in DEVICES))
            self.view().setMinimumWidth(self.view().sizeHintForColumn(0) + 24)
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
