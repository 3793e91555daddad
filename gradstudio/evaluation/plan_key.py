"""What an evaluation's results depend on, as one hashable key.

Two plans with equal keys give the same results, so a finished evaluation can be
remembered under its key and shown again at once when the document comes back to
that content (undo, redo, an edit and its reversal).  Labels and positions do
not change results and are not part of it.
"""

from __future__ import annotations

from gradstudio.evaluation.evaluate import Plan


def plan_key(plan: Plan) -> tuple:
    """The node types, parameters and wiring in step order, the device, seed and trust."""
    steps = tuple(
        (
            s.node_id,
            s.type.id,
            repr(sorted(s.params.items())),
            tuple(sorted(s.inputs.items())),
        )
        for s in plan.steps
    )
    return (steps, plan.device, plan.seed, plan.trusted)
