"""The paths a gradient took from the backward's root to one tensor: each edge with
its rule and numbers, each path's share of the gradient where every rule on it is
declared, and names that tell paths apart (``a-path``, ``h-path (as self of …)``).

A part of the ``.grad`` explainer (``explain_grad``), over the rules (``explain_grad_rules``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.ops import formula
from gradstudio.evaluation.explain_grad_rules import GradRules, number
from gradstudio.evaluation.facts import GradValue, TraceExecution
from gradstudio.evaluation.results import Snapshot

MAX_PATHS = 24


@dataclass(frozen=True)
class Hop:
    """One edge of a path: ``grad_fn`` sends a gradient along its ``slot``-th edge."""

    grad_fn: str
    key: int
    slot: int
    rule: str  # "MulBackward0: ∂y/∂a = b = 2" (the rule with its numbers)
    gradient: GradValue | None  # what the engine sent on the edge (all paths through it)


@dataclass(frozen=True)
class GradPath:
    name: str  # "a-path": named by the first tensor it passes
    hops: tuple[Hop, ...]
    #: This path's share of the gradient (the formulas chained), None where a grad_fn
    #: on it declares no formula.
    share: np.ndarray | None


class GradPaths(GradRules):
    """The gradient's paths to the tensor explained (a part of the explainer)."""

    def paths(
        self, executions: tuple[TraceExecution, ...], sink: int, before: Snapshot
    ) -> tuple[GradPath, ...]:
        by_key = {ex.key: ex for ex in executions}
        root = executions[0]
        found: list[list[tuple[TraceExecution, int]]] = []

        reaches = {sink}  # the grad_fns with a path to the sink: the walk enters no other
        for ex in reversed(executions):  # (backward runs a node before those it feeds)
            if any(n is not None and n.key in reaches for n, _ in ex.outgoing):
                reaches.add(ex.key)

        def walk(ex: TraceExecution, trail: list[tuple[TraceExecution, int]]) -> None:
            if len(found) >= MAX_PATHS:
                return
            if ex.key == sink:
                found.append(list(trail))
                return
            for slot, (nxt, _) in enumerate(ex.outgoing):
                if nxt is not None and nxt.key in by_key and nxt.key in reaches:
                    walk(by_key[nxt.key], [*trail, (ex, slot)])

        walk(root, [])
        edges_into: dict[int, int] = {}
        for ex in executions:
            for nxt, _ in ex.outgoing:
                if nxt is not None:
                    edges_into[nxt.key] = edges_into.get(nxt.key, 0) + 1
        out: list[GradPath] = []
        names = [self.path_name(trail, before) for trail in found]
        for trail, name in zip(found, names, strict=True):
            grad: Any = None
            hops = []
            whole = True  # every rule on the path declared: ``grad`` is the path's share
            merged = False  # passed a buffer where other paths joined in
            for ex, slot in trail:
                merged = merged or edges_into.get(ex.key, 0) > 1
                if not merged and ex.incoming and ex.incoming[0] is not None:
                    grad = ex.incoming[0].array  # all of it is this path's (after any hook)
                elif self.hooked(ex, executions):
                    whole = False  # a hook changed a sum: no share of it is any one path's
                text, grad = self.rule(ex, slot, before, grad)
                sent = ex.outgoing[slot][1]
                if grad is None:  # go on from what the engine sent on this edge
                    whole = False
                    grad = None if sent is None else sent.array
                hops.append(Hop(ex.name, ex.key, slot, text, sent))
            out.append(GradPath(name, tuple(hops), grad if whole else None))
        return tuple(self.distinct_names(out))

    def distinct_names(self, paths: list[GradPath]) -> list[GradPath]:
        """Paths of one name (``h * h`` reaches ``h`` twice) told apart by the first
        edge that is theirs alone."""
        out = []
        for p in paths:
            twins = [q for q in paths if q.name == p.name]
            if len(twins) == 1:
                out.append(p)
                continue
            shared = set.intersection(*({(h.key, h.slot) for h in q.hops} for q in twins))
            own = next((h for h in p.hops if (h.key, h.slot) not in shared), p.hops[-1])
            out.append(GradPath(f"{p.name} ({self.operand(own)})", p.hops, p.share))
        return out

    def path_name(self, trail: list[tuple[TraceExecution, int]], before: Snapshot) -> str:
        first = trail[0][0].outgoing[trail[0][1]][0] if trail else None
        return f"{self.key_label(first.key, before) if first is not None else self.label}-path"

    @staticmethod
    def operand(hop: Hop) -> str:
        declared = formula.rules(hop.grad_fn)
        if declared is not None and hop.slot < len(declared[0]):
            return f"as {declared[0][hop.slot]} of {hop.grad_fn}"
        return f"edge {hop.slot} of {hop.grad_fn}"

    @staticmethod
    def hooked(ex: TraceExecution, executions: tuple[TraceExecution, ...]) -> bool:
        arriving = [
            g.array
            for e in executions
            for n, g in e.outgoing
            if n is not None and n.key == ex.key and g is not None
        ]
        if not arriving or not ex.incoming or ex.incoming[0] is None:
            return False
        total = np.sum(arriving, axis=0)
        return total.shape != ex.incoming[0].array.shape or not np.allclose(
            total, ex.incoming[0].array, equal_nan=True
        )

    def path_line(self, path: GradPath) -> str:
        hops = " · ".join(f"({h.rule})" for h in path.hops)
        share = "" if path.share is None else f" → {number(path.share)}"
        edges = ", ".join(self.value(h.gradient) for h in path.hops)
        return f"{path.name}: {hops}{share}   [gradient on its edges: {edges}]"

    def summary(self, paths: tuple[GradPath, ...]) -> str:
        if not paths:
            return ""
        return " + ".join(f"{p.name} " + " · ".join(f"({h.rule})" for h in p.hops) for p in paths)
