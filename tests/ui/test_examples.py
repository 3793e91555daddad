"""Every example opens from the Examples menu, evaluates, and shows PyTorch's facts on its cards."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from gradstudio.interchange.examples import EXAMPLES
from tests.ui.uitools import wait_evaluated
from ui.canvas.node_facts import format_array

pytestmark = pytest.mark.gui

NAMES = [e.name for e in EXAMPLES]
CODE = {e.name: e.code for e in EXAMPLES}


def open_and_wait(window, qtbot, path) -> None:  # noqa: ANN001
    with qtbot.waitSignal(window.runner.finished, timeout=20000):
        assert window.open_example(path)
    wait_evaluated(qtbot, window)


def test_examples_menu_lists_every_shipped_example(window) -> None:  # noqa: ANN001
    from ui.window.examples import example_files

    shipped = example_files()
    actions = window.example_actions()
    assert len(actions) == len(shipped)
    for action, example in zip(actions, shipped):
        assert action.text() == example.menu_text


def test_seed_001_shows_w_grad_5_and_a_non_leaf(window, qtbot, example_paths) -> None:  # noqa: ANN001
    open_and_wait(window, qtbot, example_paths["001_leaf_grad"])
    doc = window.state.document
    facts = window.canvas.graph_scene.facts_of
    w = doc.node_by_label("w")
    a = doc.node_by_label("a")
    y = doc.node_by_label("y")
    assert facts(w.id).grad == "[5.]"
    assert facts(w.id).is_leaf is True
    assert facts(a.id).is_leaf is False
    assert facts(a.id).grad_fn == "AddBackward0"
    assert facts(a.id).requires_grad is True
    assert facts(y.id).grad_fn == "MulBackward0"
    assert facts(y.id).value == "[6.]"
    assert window.windowTitle().startswith("001_leaf_grad (example)")
    assert not window.isWindowModified()
    # an example is a template: Save asks where to put the copy
    assert window.file_path is None


@pytest.mark.parametrize("name", NAMES)
def test_example_opens_and_evaluates(window, qtbot, example_paths, name) -> None:  # noqa: ANN001
    open_and_wait(window, qtbot, example_paths[name])
    ev = window.state.evaluation
    assert ev is not None and not ev.cancelled
    scene = window.canvas.graph_scene
    doc = window.state.document
    assert len(scene.node_items()) == len(doc)
    assert len(scene.edge_items()) == len(doc.edges())
    for node in doc.nodes():
        facts = scene.facts_of(node.id)
        assert facts.status in ("ok", "error")
        if (
            facts.status == "ok"
            and node.type.outputs
            and node.type.outputs[0].type.value == "tensor"
        ):
            assert facts.has_tensor, node.label
    # cards never overlap once opened
    items = scene.node_items()
    for i, a in enumerate(items):
        for b in items[i + 1 :]:
            assert (
                not a.sceneBoundingRect()
                .adjusted(8, 12, -8, -8)
                .intersects(b.sceneBoundingRect().adjusted(8, 12, -8, -8))
            ), (a.node.label, b.node.label)


def torch_namespace(code: str) -> dict:
    torch = pytest.importorskip("torch")
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, "<example>", "exec"), namespace)
    return {k: v for k, v in namespace.items() if isinstance(v, torch.Tensor)}


@pytest.mark.torch
@pytest.mark.parametrize("name", NAMES)
def test_example_facts_match_pytorch(window, qtbot, example_paths, name) -> None:  # noqa: ANN001
    tensors = torch_namespace(CODE[name])
    open_and_wait(window, qtbot, example_paths[name])
    doc = window.state.document
    scene = window.canvas.graph_scene
    random = "rand" in CODE[name]
    checked = 0
    for label, t in tensors.items():
        node = doc.node_by_label(label)
        if node is None or not node.type.outputs:
            continue
        facts = scene.facts_of(node.id)
        assert facts.status == "ok", label
        assert facts.requires_grad == t.requires_grad, label
        assert facts.is_leaf == t.is_leaf, label
        expected_fn = None if t.grad_fn is None else type(t.grad_fn).__name__
        assert facts.grad_fn == expected_fn, label
        grad = t.grad if (t.is_leaf or t.retains_grad) else None
        assert facts.has_grad == (grad is not None), label
        if grad is not None and not random:
            assert facts.grad == format_array(grad.detach().numpy()), label
        if not random:
            assert np.allclose(facts.tensor.array, t.detach().numpy(), atol=1e-6), label
            assert facts.value == format_array(t.detach().numpy()), label
        assert facts.shape == scene.facts_of(node.id).shape
        checked += 1
    assert checked >= 2
