"""The device selector: where the graph runs (the document's ``device`` setting).

CUDA stays in the list even without a GPU, disabled, with the engine's own reason
as its tooltip, so a learner sees *why* it is unavailable instead of wondering
where it went.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QComboBox, QWidget

DEVICES = (("cpu", "CPU"), ("cuda", "CUDA"))


def cuda_status() -> tuple[bool, str]:
    """(usable, why not) from the engine; never raises."""
    try:
        import engine

        ok = bool(engine.cuda.is_available())
        return ok, "" if ok else str(engine.cuda.unavailable_reason() or "no usable GPU")
    except Exception as exc:
        return False, f"the GPU check failed: {exc}"


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
        model = self.model()
        assert isinstance(model, QStandardItemModel)
        cuda = model.item(1)
        if not usable:
            cuda.setEnabled(False)
            cuda.setToolTip(f"CUDA is not available: {why}")
            self.setToolTip(f"Device the graph runs on. CUDA is not available: {why}")
        else:
            cuda.setToolTip("Run on the GPU (CuPy)")
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
