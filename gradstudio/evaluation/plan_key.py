"""What an evaluation's results depend on, as one hashable key.

Two plans with equal keys give the same results, so a finished evaluation can be
remembered under its key and shown again at once when the document comes back to
that content (undo, redo, an edit and its reversal).  Labels and positions do
not change results and are not part of it.
"""

from __future__ import annotations

from gradstudio.evaluation.plan import Plan, PlanStep

#: The steps keyed by the last call, by identity: a plan made from the one before by
#: ``with_params`` (an edit of values) shares all its other steps, keyed already.
_last: dict[int, tuple[PlanStep, tuple]] = {}


def plan_key(plan: Plan) -> tuple:
    """The node types, parameters and wiring in step order, the device, seed and trust."""
    global _last
    last: dict[int, tuple[PlanStep, tuple]] = _last
    seen: dict[int, tuple[PlanStep, tuple]] = {}
    keys = []
    for s in plan.steps:
        hit = last.get(id(s))
        if hit is None or hit[0] is not s:
            hit = (s, _step_key(s))
        seen[id(s)] = hit
        keys.append(hit[1])
    _last = seen  # (a step held here keeps its id: no other object can take it)
    return (tuple(keys), plan.device, plan.seed, plan.trusted)


def _step_key(s: PlanStep) -> tuple:
    return (s.node_id, s.type.id, repr(sorted(s.params.items())), tuple(sorted(s.inputs.items())))
