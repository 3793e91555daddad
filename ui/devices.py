"""Whether CUDA can be chosen here, and how a device list shows it when it cannot.

Every place a learner picks a device (the toolbar's selector, a creation node's
``device`` parameter) keeps CUDA in its list, greyed out and disabled, with the
engine's reason, so the choice is visibly there and visibly unavailable.
"""

from __future__ import annotations

from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QComboBox, QStyledItemDelegate

import engine


def cuda_status() -> tuple[bool, str]:
    """(usable, why not) from the engine; never raises."""
    try:
        ok = bool(engine.cuda.is_available())
        return ok, "" if ok else str(engine.cuda.unavailable_reason() or "no usable GPU")
    except Exception as exc:
        return False, f"the GPU check failed: {exc}"


def short_reason(why: str) -> str:
    """The reason without the exception's details: "CuPy cannot be imported" (the full
    text stays in the tooltip)."""
    return why.split(" (", 1)[0].strip() or why


def disable_choice(combo: QComboBox, row: int, why: str) -> None:
    """Grey out and disable ``row`` of ``combo``, with ``why`` as its tooltip.

    The combo's popup draws with a styled delegate: Fusion's menu-like delegate paints a
    disabled row in the style sheet's text colour, so only the styled one shows the
    ``::item:disabled`` colour the sheet gives.
    """
    if not isinstance(combo.itemDelegate(), QStyledItemDelegate):
        combo.setItemDelegate(QStyledItemDelegate(combo))
    model = combo.model()
    assert isinstance(model, QStandardItemModel)
    item = model.item(row)
    item.setEnabled(False)
    item.setToolTip(why)
