"""The key results are remembered under: content counts, labels and positions do not."""

from __future__ import annotations

from gradstudio.document.commands import MoveNodesCommand, SetLabelCommand, SetParamCommand
from gradstudio.document.undo import UndoStack
from gradstudio.evaluation.plan import prepare, with_params
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


def test_a_plan_updated_after_an_edit_of_values_has_a_fresh_plans_key() -> None:
    """``with_params`` shares the steps not edited, whose keys are remembered by
    identity: the key is still the one a fresh copy of the document gets."""
    doc, stack = import_snippet(SEED_001), UndoStack()
    w = doc.node_by_label("w").id
    plan = prepare(doc)
    key = plan_key(plan)
    stack.push(SetParamCommand(doc, w, "data", [2.0]))
    edited = with_params(plan, doc, [w])
    assert plan_key(edited) == plan_key(prepare(doc)) != key
    stack.undo()
    back = with_params(edited, doc, [w])
    assert plan_key(back) == key == plan_key(plan)
