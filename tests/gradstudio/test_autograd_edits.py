"""The studio's autograd edits as commands: retain_grad, backward from a node, zero grads."""

from __future__ import annotations

import pytest

from gradstudio.document.autograd_edits import (
    BACKWARD,
    RETAIN_GRAD,
    ZERO_GRAD,
    backward_from,
    grad_leaves,
    retain_grad,
    retain_grad_nodes,
    zero_grads,
)
from gradstudio.document.commands import ConnectCommand, SequenceCommand
from gradstudio.document.model import Document
from gradstudio.document.undo import UndoStack
from gradstudio.document.values import EditError
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.fileformat import to_json
from gradstudio.interchange.pytorch_import import import_snippet

NO_BACKWARD = """\
import torch
w = torch.tensor([1., 2.], requires_grad=True)
x = torch.tensor([3., 4.])
a = torch.mul(w, x)
s = torch.sum(a)
"""


def facts_of(doc: Document):  # noqa: ANN201
    final = evaluate(doc).final
    return lambda node_id, port: final.facts(node_id, port)


def test_retain_grad_adds_a_step_right_after_the_node_and_pytorch_keeps_the_grad() -> None:
    doc, stack = import_snippet(NO_BACKWARD), UndoStack()
    a, s = doc.node_by_label("a").id, doc.node_by_label("s").id
    before = to_json(doc)
    stack.push(retain_grad(doc, a, True))
    (added,) = retain_grad_nodes(doc, a)
    assert doc.node(added).type_id == RETAIN_GRAD
    assert doc.step_of(added) == doc.step_of(a) + 1
    stack.push(backward_from(doc, s, facts_of(doc)))
    assert evaluate(doc).final.facts(a).grad.value == [1.0, 1.0]  # retained: d(sum)/da
    with pytest.raises(EditError, match="already calls retain_grad"):
        retain_grad(doc, a, True)
    stack.push(retain_grad(doc, a, False))
    assert retain_grad_nodes(doc, a) == []
    stack.undo()
    assert retain_grad_nodes(doc, a) == [added]
    stack.undo()
    stack.undo()
    assert to_json(doc) == before
    assert stack.undo_text == ""


def test_backward_from_refuses_a_non_scalar_before_adding_anything() -> None:
    doc = import_snippet(NO_BACKWARD)
    a = doc.node_by_label("a").id
    with pytest.raises(EditError, match=r"backward\(\) needs a scalar, but a has shape \(2,\)"):
        backward_from(doc, a, facts_of(doc))
    assert all(n.type_id != BACKWARD for n in doc.nodes())


def test_backward_from_is_one_undo_step_and_names_its_node() -> None:
    doc, stack = import_snippet(NO_BACKWARD), UndoStack()
    s = doc.node_by_label("s").id
    command = backward_from(doc, s, facts_of(doc))
    stack.push(command)
    (added,) = command.added
    assert doc.node(added).type_id == BACKWARD
    assert stack.undo_text == "Backward from s"
    assert evaluate(doc).final.facts(doc.node_by_label("w").id).grad.value == [3.0, 4.0]
    stack.undo()
    assert added not in doc
    stack.redo()
    assert added in doc and len(doc.edges_of(added)) == 1


def test_zero_grads_feeds_every_leaf_that_requires_grad() -> None:
    doc, stack = import_snippet(NO_BACKWARD), UndoStack()
    leaves = grad_leaves(doc, facts_of(doc))
    assert leaves == [(doc.node_by_label("w").id, "out")]  # x does not require grad
    assert grad_leaves(doc) == leaves  # unevaluated: by the requires_grad parameter
    command = zero_grads(doc, leaves)
    stack.push(command)
    (added,) = command.added
    assert doc.node(added).type_id == ZERO_GRAD
    assert [e.src for e in doc.edges_of(added)] == [doc.node_by_label("w").id]
    with pytest.raises(EditError, match="nothing to zero"):
        zero_grads(doc, [])


def test_a_refused_part_undoes_the_parts_done_and_records_nothing() -> None:
    doc, stack = import_snippet(NO_BACKWARD), UndoStack()
    w, s = doc.node_by_label("w").id, doc.node_by_label("s").id
    before = to_json(doc)
    command = backward_from(doc, s)
    bad = SequenceCommand(
        "connect into a cycle",
        [lambda: command, lambda: ConnectCommand(doc, s, "out", w, "data")],
    )
    with pytest.raises(EditError):
        stack.push(bad)
    assert to_json(doc) == before
    assert not stack.can_undo
