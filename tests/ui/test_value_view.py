"""Tensors as pictures and numbers: modes, colours, PyTorch's print, both themes."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtGui import QColor, QPalette

from ui.inspector.value_view import (
    NEGATIVE,
    POSITIVE,
    TensorPanel,
    TensorPicture,
    ValueGradView,
    color_for,
    short_number,
    symmetric_limit,
    tensor_text,
)

pytestmark = pytest.mark.gui


def palette(dark: bool) -> QPalette:
    p = QPalette()
    p.setColor(QPalette.ColorRole.Window, QColor("#1b1d21" if dark else "#f3f4f6"))
    return p


@pytest.mark.parametrize(
    ("arr", "mode"),
    [
        (None, "none"),
        (np.float32(2.0), "scalar"),
        (np.array([1.0, -2.0, 3.0]), "bars"),
        (np.ones((2, 3)), "heatmap"),
        (np.ones((2, 3, 4)), "heatmap"),
    ],
)
def test_picture_mode_follows_dimensions(qtbot, arr, mode) -> None:  # noqa: ANN001
    picture = TensorPicture()
    qtbot.addWidget(picture)
    picture.set_data(None if arr is None else np.asarray(arr))
    assert picture.mode == mode
    picture.resize(240, 120)
    assert not picture.grab().isNull()  # paints without raising


@pytest.mark.parametrize("dark", [False, True])
def test_diverging_colours_centre_on_zero(dark: bool) -> None:
    pal = palette(dark)
    assert color_for(1.0, 1.0, pal).name() == POSITIVE.name()
    assert color_for(-1.0, 1.0, pal).name() == NEGATIVE.name()
    zero = color_for(0.0, 1.0, pal)
    assert (zero.lightness() < 128) == dark  # zero recedes into the background
    assert color_for(float("nan"), 1.0, pal).name() == "#d000d0"


def test_symmetric_limit_and_short_numbers() -> None:
    assert symmetric_limit(np.array([-3.0, 2.0])) == 3.0
    assert symmetric_limit(np.zeros(3)) == 1.0
    assert symmetric_limit(np.array([np.nan, 2.0])) == 2.0
    assert short_number(5.0) == "5"
    assert short_number(0.123456) == "0.123"
    assert short_number(float("-inf")) == "-inf"


def test_tensor_text_is_what_pytorch_prints() -> None:
    assert tensor_text(np.array([5.0], dtype=np.float32)) == "tensor([5.])"
    assert (
        tensor_text(np.array([3.0], dtype=np.float32), grad_fn="AddBackward0")
        == "tensor([3.], grad_fn=<AddBackward0>)"
    )
    assert (
        tensor_text(np.array(1.0, dtype=np.float32), requires_grad=True)
        == "tensor(1., requires_grad=True)"
    )
    assert tensor_text(np.array([1.5, 2.0]), dtype="float64") == (
        "tensor([1.5000, 2.0000], dtype=torch.float64)"
    )
    assert tensor_text(None) == "None"


def test_heat_map_index_under_the_mouse(qtbot) -> None:  # noqa: ANN001
    picture = TensorPicture()
    qtbot.addWidget(picture)
    picture.resize(200, 100)
    picture.set_data(np.arange(6.0).reshape(2, 3))
    rect = picture._heat_rect()
    cell = rect.width() / 3
    assert picture.index_at(QPointF(rect.left() + cell * 2.5, rect.top() + cell * 1.5)) == (1, 2)
    assert picture.index_at(QPointF(rect.right() + 5, rect.top())) is None


def test_panel_summary_and_placeholder(qtbot) -> None:  # noqa: ANN001
    panel = TensorPanel(".grad")
    qtbot.addWidget(panel)
    panel.set_tensor(np.array([[1.0, -4.0]], dtype=np.float32), "float32")
    assert "shape (1, 2)" in panel.summary.text() and "min -4" in panel.summary.text()
    assert panel.text.toPlainText() == "tensor([[ 1., -4.]])"
    assert panel.scale.isVisibleTo(panel)
    panel.set_tensor(None, placeholder=".grad is None")
    assert ".grad is None" in panel.summary.text()
    assert panel.picture.mode == "none"
    assert panel.text.toPlainText() == "None"


def test_value_and_grad_side_by_side_or_stacked(qtbot) -> None:  # noqa: ANN001
    view = ValueGradView()
    qtbot.addWidget(view)
    view.show()
    view.resize(700, 300)
    qtbot.waitUntil(lambda: view.value.geometry().right() < view.grad.geometry().left())
    view.resize(300, 600)
    qtbot.waitUntil(lambda: view.value.geometry().bottom() < view.grad.geometry().top())


def test_many_elements_are_drawn_without_printing_everything(qtbot) -> None:  # noqa: ANN001
    panel = TensorPanel("value")
    qtbot.addWidget(panel)
    big = np.linspace(-1, 1, 600 * 600, dtype=np.float32).reshape(600, 600)
    panel.set_tensor(big, "float32")
    assert "too large" in panel.text.toPlainText()
    panel.resize(300, 300)
    assert not panel.grab().isNull()
    bars = TensorPicture()
    qtbot.addWidget(bars)
    bars.resize(120, 60)
    bars.set_data(np.sin(np.arange(5000.0)))
    assert not bars.grab().isNull()
