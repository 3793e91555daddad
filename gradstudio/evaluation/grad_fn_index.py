"""Which document node owns a ``grad_fn``: the mapping every view of an evaluation shares.

The playhead answers "which node does the executing grad_fn belong to" with it, the
backward-graph view and the inspector turn a grad_fn into a node with it; one
index per evaluation, built once.
"""

from __future__ import annotations

from gradstudio.evaluation.facts import TensorFacts
from gradstudio.evaluation.results import Evaluation, Snapshot
from gradstudio.evaluation.structure import same_structure


class GradFnIndex:
    """Maps between ``grad_fn`` keys and document nodes for one evaluation.

    A grad_fn belongs to the node whose step created it (the node's own output
    got it first; for an in-place op that is the in-place node, not the tensor it
    modified), and an ``AccumulateGrad`` belongs to its leaf's node.
    """

    def __init__(self, evaluation: Evaluation, like: GradFnIndex | None = None) -> None:
        """``like``: the index of a run with the same structure (``same_structure``),
        whose owners are this one's."""
        self.evaluation = evaluation
        self.owner: dict[int, str] = {}
        if like is not None:
            self.owner = like.owner  # (never changed once made)
            return
        for result in evaluation.steps:
            for ref, facts in result.changed.items():
                if (
                    facts is not None
                    and facts.grad_fn is not None
                    and ref.node_id == result.node_id
                ):
                    self.owner.setdefault(facts.grad_fn.key, ref.node_id)
        for result in evaluation.steps:
            for ref, facts in result.changed.items():
                if facts is not None and facts.grad_fn is not None:
                    self.owner.setdefault(facts.grad_fn.key, ref.node_id)
            for key, fn in result.grad_fns.items():
                if fn.variable is not None:
                    self.owner.setdefault(key, fn.variable.node_id)

    def node_for(self, key: int | None) -> str | None:
        """The document node of a grad_fn key (None: an op-internal node)."""
        return None if key is None else self.owner.get(key)

    def key_for(self, snapshot: Snapshot, node_id: str) -> int | None:
        """The grad_fn of a node's output at ``snapshot``; for a leaf, its AccumulateGrad."""
        leaf: TensorFacts | None = None
        for ref, facts in snapshot.items():
            if ref.node_id != node_id or facts is None:
                continue
            if facts.grad_fn is not None:
                return facts.grad_fn.key
            if facts.requires_grad and leaf is None:
                leaf = facts
        return None if leaf is None else accumulate_key(snapshot, leaf)

    def label(self, node_id: str) -> str:
        return self.evaluation.plan.labels.get(node_id, node_id)


def accumulate_key(snapshot: Snapshot, leaf: TensorFacts) -> int | None:
    """The AccumulateGrad that writes into ``leaf`` (None until an op used the leaf)."""
    for key, fn in snapshot.grad_fns().items():
        if fn.name != "AccumulateGrad" or fn.variable is None:
            continue
        var = snapshot.facts(fn.variable.node_id, fn.variable.port, fn.variable.index)
        if var is not None and var.tensor_id == leaf.tensor_id:
            return key
    return None


_INDEX_CACHE: list[GradFnIndex] = []


def index_for(evaluation: Evaluation) -> GradFnIndex:
    """The (cached) index of an evaluation: built once per evaluation object (a re-run
    that changed values alone shares the owners of the run before)."""
    before = _INDEX_CACHE[0] if _INDEX_CACHE else None
    if before is not None and before.evaluation is evaluation:
        return before
    same = before is not None and same_structure(before.evaluation, evaluation)
    index = GradFnIndex(evaluation, before if same else None)
    _INDEX_CACHE[:] = [index]
    return index
