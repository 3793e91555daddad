"""Editors for node parameters: each parameter kind names its editor (``engine.param_kinds``).

Each editor shows a value and emits ``edited(value)`` once the user is done
(Enter, focus out, a click), never per keystroke, so the inspector turns one
edit into one ``SetParamCommand``.  Editors never write to the document; when
the document changes they are told with ``set_value``.  Literal tensor data gets
a table (rows × columns, resizable) because typing nested brackets is where
beginners get stuck.
"""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gradstudio.catalogue import ParamSpec
from gradstudio.params import param_kind
from gradstudio.text import shape_text
from ui.devices import cuda_status, disable_choice

MAX_TABLE_CELLS = 400


class ParamEditor(QWidget):
    """Base: ``edited(value)`` when the user commits a value; ``set_value`` from outside."""

    edited = Signal(object)

    def __init__(self, spec: ParamSpec, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        self.setToolTip(spec.doc)

    def set_value(self, value: Any) -> None:
        raise NotImplementedError

    def value(self) -> Any:
        raise NotImplementedError


class BoolEditor(ParamEditor):
    def __init__(self, spec: ParamSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.box = QCheckBox(self)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.box)
        lay.addStretch(1)
        self.box.toggled.connect(lambda on: self.edited.emit(bool(on)))

    def set_value(self, value: Any) -> None:
        with QSignalBlocker(self.box):
            self.box.setChecked(bool(value))

    def value(self) -> bool:
        return self.box.isChecked()


class ChoiceEditor(ParamEditor):
    """A fixed list of values (dtype, device, optional bool, string choices)."""

    def __init__(
        self, spec: ParamSpec, choices: list[tuple[str, Any]], parent: QWidget | None = None
    ) -> None:
        super().__init__(spec, parent)
        self.combo = QComboBox(self)
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.choices = choices
        for text, _ in choices:
            self.combo.addItem(text)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.combo)
        lay.addStretch(1)
        self.combo.activated.connect(lambda i: self.edited.emit(self.choices[i][1]))

    def set_value(self, value: Any) -> None:
        index = next((i for i, (_, v) in enumerate(self.choices) if v == value), -1)
        if index < 0:  # a value the list does not know: show it anyway
            self.choices.append((str(value), value))
            self.combo.addItem(str(value))
            index = len(self.choices) - 1
        with QSignalBlocker(self.combo):
            self.combo.setCurrentIndex(index)

    def value(self) -> Any:
        return self.choices[self.combo.currentIndex()][1]


def format_literal(value: Any, spec: ParamSpec | None = None) -> str:
    """A parameter value as the user would type it (None as empty), in its kind's own
    text where it has one (a custom Function's ``x, y, z=4``)."""
    if value is None:
        return ""
    to_text = param_kind(spec.kind).to_text if spec is not None else None
    if to_text is not None:
        return to_text(value)
    if isinstance(value, str):
        return value
    return repr(value)


def parse_literal(text: str, spec: ParamSpec) -> Any:
    """What the user typed, as a value of the parameter's kind ("" is None where the kind
    allows it).  Raises ``ValueError`` with a message for the inspector's error line.
    """
    return param_kind(spec.kind).from_text(text.strip())


class LiteralEditor(ParamEditor):
    """A one-line text for numbers, shapes, dims, names and argument lists."""

    def __init__(self, spec: ParamSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.line = QLineEdit(self)
        kind = param_kind(spec.kind)
        self.line.setPlaceholderText(
            "None" if kind.optional or spec.default is None else kind.placeholder
        )
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.line)
        self._shown = ""
        self.line.editingFinished.connect(self._commit)

    def _commit(self) -> None:
        text = self.line.text()
        if text == self._shown:
            return
        self._shown = text
        try:
            value = parse_literal(text, self.spec)
        except ValueError as exc:
            self.edited.emit(_Invalid(str(exc)))
            return
        self.edited.emit(value)

    def set_value(self, value: Any) -> None:
        self._shown = format_literal(value, self.spec)
        if self.line.text() != self._shown:
            with QSignalBlocker(self.line):
                self.line.setText(self._shown)

    def value(self) -> Any:
        return parse_literal(self.line.text(), self.spec)


class _Invalid:
    """Emitted instead of a value when the text cannot be parsed (carries the reason)."""

    def __init__(self, message: str) -> None:
        self.message = message


def is_invalid(value: Any) -> str | None:
    """The parse error carried by an ``edited`` value, or None for a real value."""
    return value.message if isinstance(value, _Invalid) else None


def _depth(data: Any) -> int:
    d = 0
    while isinstance(data, list):
        d += 1
        data = data[0] if data else None
    return d


def _cell_text(v: Any) -> str:
    if isinstance(v, str):  # a non-finite number, held by its name ("-inf")
        return v
    if isinstance(v, float) and math.isfinite(v) and v == int(v) and abs(v) < 1e15:
        return f"{v:.1f}"
    return repr(v)


def _parse_cell(text: str) -> Any:
    text = text.strip()
    if text in ("True", "False"):
        return text == "True"
    try:
        return int(text)
    except ValueError:
        pass
    return float(text)  # raises ValueError for junk


class DataEditor(ParamEditor):
    """Literal tensor data: a table for 0/1/2-D data, and the literal text for any.

    Rows × columns buttons resize the table; new cells are 0 of the data's kind.
    """

    def __init__(self, spec: ParamSpec, parent: QWidget | None = None) -> None:
        super().__init__(spec, parent)
        self.optional = param_kind(spec.kind).optional
        self._data: Any = None
        self.text = LiteralEditor(spec, self)
        self.text.edited.connect(self._text_edited)
        self.table = QTableWidget(self)
        self.table.setObjectName("dataTable")
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setMinimumSectionSize(44)
        self.table.verticalHeader().setDefaultSectionSize(24)
        self.table.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )
        self.table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.table.itemChanged.connect(self._cell_edited)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.setSpacing(2)
        self.buttons: dict[str, QToolButton] = {}
        for name, text, tip in (
            ("row+", "+row", "Add a row"),
            ("row-", "−row", "Remove the last row"),
            ("col+", "+col", "Add a column (an element for 1-D data)"),
            ("col-", "−col", "Remove the last column"),
        ):
            b = QToolButton(self)
            b.setText(text)
            b.setToolTip(tip)
            b.setAutoRaise(True)
            b.clicked.connect(lambda _=False, n=name: self.resize_data(n))
            buttons.addWidget(b)
            self.buttons[name] = b
        buttons.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(3)
        lay.addWidget(self.text)
        lay.addWidget(self.table)
        lay.addLayout(buttons)

    # -- value ---------------------------------------------------------------
    def value(self) -> Any:
        return self._data

    def set_value(self, value: Any) -> None:
        self._data = value
        self.text.set_value(value)
        self._fill_table()

    def _grid(self) -> list[list[Any]] | None:
        """The data as rows of cells, or None when a table cannot show it."""
        data = self._data
        depth = _depth(data)
        if data is None or depth > 2:
            return None
        if depth == 0:
            return [[data]]
        if depth == 1:
            return [list(data)]
        return [list(r) for r in data]

    def _fill_table(self) -> None:
        grid = self._grid()
        depth = _depth(self._data)
        cells = sum(len(r) for r in grid) if grid else 0
        show = grid is not None and cells <= MAX_TABLE_CELLS
        self.table.setVisible(show)
        for b in self.buttons.values():
            b.setVisible(show)
            b.setEnabled(show)
        if show and grid is not None:
            rows, cols = len(grid), max((len(r) for r in grid), default=0)
            with QSignalBlocker(self.table):
                self.table.clear()
                self.table.setRowCount(rows)
                self.table.setColumnCount(cols)
                self.table.setHorizontalHeaderLabels([str(c) for c in range(cols)])
                self.table.setVerticalHeaderLabels([str(r) for r in range(rows)])
                self.table.verticalHeader().setVisible(depth == 2)
                for r, row in enumerate(grid):
                    for c, v in enumerate(row):
                        item = QTableWidgetItem(_cell_text(v))
                        item.setTextAlignment(
                            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                        )
                        self.table.setItem(r, c, item)
            self.buttons["row+"].setEnabled(depth != 0)
            self.buttons["row-"].setEnabled(depth == 2 and rows > 1)
            self.buttons["col-"].setEnabled(depth >= 1 and cols > (1 if depth == 2 else 0))
            header = self.table.horizontalHeader().height()
            height = header + rows * self.table.verticalHeader().defaultSectionSize() + 4
            self.table.setFixedHeight(min(height, 240))
        shape = _shape_of(self._data)
        self.table.setToolTip("" if shape is None else f"shape {shape_text(shape)}")

    # -- edits ---------------------------------------------------------------
    def _text_edited(self, value: Any) -> None:
        self.edited.emit(value)

    def _cell_edited(self, item: QTableWidgetItem) -> None:
        try:
            v = _parse_cell(item.text())
        except ValueError:
            self.edited.emit(_Invalid(f"{item.text()!r} is not a number"))
            self._fill_table()
            return
        depth = _depth(self._data)
        r, c = item.row(), item.column()
        if depth == 0:
            new: Any = v
        elif depth == 1:
            new = list(self._data)
            new[c] = v
        else:
            new = [list(row) for row in self._data]
            new[r][c] = v
        self.edited.emit(new)

    def resize_data(self, what: str) -> None:
        """Add or remove a row or column (emits the resized data)."""
        data = self._data
        depth = _depth(data)
        zero = _zero_like(data)
        if depth == 0 and what in ("row+", "col+"):
            new: Any = [data, zero] if data is not None else [zero]
        elif depth == 1:
            if what == "col+":
                new = [*data, zero]
            elif what == "col-":
                new = data[:-1]
            elif what == "row+":
                new = [list(data), [zero] * len(data)]
            else:
                return
        elif depth == 2:
            cols = len(data[0]) if data else 0
            if what == "row+":
                new = [*data, [zero] * cols]
            elif what == "row-" and len(data) > 1:
                new = data[:-1]
            elif what == "col+":
                new = [[*row, zero] for row in data]
            elif what == "col-" and cols > 1:
                new = [row[:-1] for row in data]
            else:
                return
        else:
            return
        self.edited.emit(new)


def _shape_of(data: Any) -> tuple[int, ...] | None:
    shape = []
    while isinstance(data, list):
        shape.append(len(data))
        data = data[0] if data else None
    return tuple(shape) if shape or data is not None else None


def _zero_like(data: Any) -> Any:
    while isinstance(data, list) and data:
        data = data[0]
    if isinstance(data, bool):
        return False
    if isinstance(data, int):
        return 0
    return 0.0


def editor_for(spec: ParamSpec, parent: QWidget | None = None) -> ParamEditor | None:
    """The editor the parameter's kind names (None for ``code``: the inspector shows a
    code editor)."""
    kind = param_kind(spec.kind)
    name = kind.editor_name(spec.choices)
    if name == "choice":
        assert kind.options is not None
        editor = ChoiceEditor(spec, kind.options(spec.choices), parent)
        if spec.kind == "device":
            usable, why = cuda_status()
            for row, (_, value) in enumerate(editor.choices):
                if not usable and value == "cuda":
                    disable_choice(editor.combo, row, f"CUDA is not available: {why}")
        return editor
    cls = EDITORS[name]
    return None if cls is None else cls(spec, parent)


#: Editor names (``ParamKind.editor``) and their widgets.
EDITORS: dict[str, type[ParamEditor] | None] = {
    "line": LiteralEditor,
    "check": BoolEditor,
    "table": DataEditor,
    "code": None,
}
