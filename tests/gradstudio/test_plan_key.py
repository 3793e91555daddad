"""The key results are remembered under: content counts, labels and positions do not."""

from __future__ import annotations

from gradstudio.document.commands import MoveNodesCommand, SetLabelCommand, SetParamCommand
from gradstudio.document.undo import UndoStack
from gradstudio.evaluation.evaluate import prepare
from gradstudio.evaluation.plan_key import plan_key
from gradstudio.interchange.pytorch_import import import_snippet
from tests.gradstudio.snippets import SEED_001


def test_only_what_results_depend_on_changes_the_key() -> None:
    doc, stack = import_snippet(SEED_001), UndoStack()
    w = doc.node_by_label("w").id
    key = plan_key(prepare(doc))
    stack.push(SetLabelCommand(doc, w, "weight"))
    stack.push(MoveNodesCommand(doc, {w: (500.0, 500.0)}))
    assert plan_key(prepare(doc)) == key
    stack.push(SetParamCommand(doc, w, "data", [2.0]))
    assert plan_key(prepare(doc)) != key
    stack.undo()
    assert plan_key(prepare(doc)) == key
    assert plan_key(prepare(doc, "cuda")) != key
