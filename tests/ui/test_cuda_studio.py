"""The studio on CUDA: the device selector offers it whenever the engine can use it, a
run on CUDA keeps every tensor there, and the inspector says so.

Marked ``cuda``: on a GPU, or on the CuPy simulator (``make test`` runs both halves).
"""

from __future__ import annotations

import pytest

from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.pytorch_import import import_snippet
from tests.gradstudio.snippets import SEED_001
from tests.ui.uitools import node_id
from ui.inspector.panel import Inspector
from ui.state import StudioState
from ui.window.device_selector import DeviceSelector

pytestmark = [pytest.mark.gui, pytest.mark.cuda]


def test_device_selector_enables_cuda_when_the_engine_can_use_it(qtbot) -> None:  # noqa: ANN001
    selector = DeviceSelector()
    qtbot.addWidget(selector)
    assert selector.cuda_usable and selector.item_enabled("cuda")
    assert selector.item_tooltip("cuda") == "Run on the GPU (CuPy)"
    with qtbot.waitSignal(selector.deviceChosen) as chosen:
        selector.setCurrentIndex(selector.findData("cuda"))
    assert chosen.args == ["cuda"]


def test_inspector_shows_the_cuda_device_of_values_and_grads(qtbot) -> None:  # noqa: ANN001
    doc = import_snippet(SEED_001)
    state = StudioState(doc)
    state.set_evaluation(evaluate(doc, device="cuda"))
    inspector = Inspector(state)
    qtbot.addWidget(inspector)
    inspector.show()
    state.select([node_id(doc, "w")])
    assert "cuda:0" in inspector.fact_labels["tensor"].text()
    assert inspector.values.value.text.toPlainText() == (
        "tensor([1.], device='cuda:0', requires_grad=True)"
    )
    assert inspector.values.grad.text.toPlainText() == "tensor([5.], device='cuda:0')"
