"""The backward graph at a timeline position, kept up to date as the playhead moves.

``model_at`` walks every grad_fn reachable from the document's tensors: on a graph
of thousands that costs a tenth of a second, at every step of a scrub, although a
step changes a handful of them.  ``ScrubModel`` keeps what the walk found between
positions and, moved to another step, re-reads only what the steps in between
changed (``Evaluation.changed_between``).  Autograd's graph is acyclic, so counting
for each grad_fn the tensors and the grad_fns that point at it tells exactly
whether it is still reachable: a change spreads only as far as the counts that
cross zero.  Every box and link belongs to one grad_fn (its key), so a change
rebuilds the parts of the few keys it touches, and the view is told what changed
(``ModelDelta``) instead of comparing two whole models.  Plain data, no Qt.
"""

from __future__ import annotations

from collections.abc import Generator, KeysView
from dataclasses import dataclass, field

from gradstudio.evaluation.facts import GradFnFacts, OutputRef
from gradstudio.evaluation.grad_fn_index import GradFnIndex
from gradstudio.evaluation.results import Evaluation, Snapshot
from ui.backward.model import (
    Box,
    BoxId,
    GraphModel,
    Link,
    Memo,
    fn_box,
    fn_parts,
    leaf_box,
    next_links,
    out_box,
)
from ui.backward.steps import finish

#: The boxes and links one grad_fn contributes: its box, leaf, saved tensors, output.
Parts = tuple[dict[BoxId, Box], tuple[Link, ...]]
#: A move that changes more tensors than this share of those shown walks the graph
#: afresh instead of following the changes.
RESEED_SHARE = 0.25
#: grad_fns rebuilt between two yields of ``ScrubModel.moving`` (a few ms of work).
REBUILD_CHUNK = 400


@dataclass
class ModelDelta:
    """What differs between the model at the position before and the one now."""

    #: Boxes that appeared or changed (new objects), and those that went.
    boxes: dict[BoxId, Box] = field(default_factory=dict)
    removed: set[BoxId] = field(default_factory=set)
    #: The flows of the links that appeared, and of those that went.
    links_added: set[tuple] = field(default_factory=set)
    links_removed: set[tuple] = field(default_factory=set)
    #: grad_fn keys that became or stopped being roots (outputs nothing uses yet).
    roots: set[int] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(
            self.boxes or self.removed or self.links_added or self.links_removed or self.roots
        )


class ScrubModel:
    """The model of one evaluation (with or without saved tensors) at one step.

    ``move_to(snapshot)`` brings it to the snapshot's step and says what changed;
    ``model`` is then what ``model_at`` builds for that snapshot (the same boxes and
    links, and the same Box objects for what did not change).
    """

    def __init__(
        self, evaluation: Evaluation, index: GradFnIndex, show_saved: bool, memo: Memo
    ) -> None:
        self.evaluation = evaluation
        self.index = index
        self.show_saved = show_saved
        self.memo = memo
        self.step = -1  # before any step: nothing
        #: The tensors with a grad_fn at the step: ref -> (key, shape).
        self._start_of: dict[OutputRef, tuple[int, tuple[int, ...]]] = {}
        #: Per key, the tensors whose grad_fn it is (ordered as the snapshot lists them).
        self._starts: dict[int, set[OutputRef]] = {}
        #: Per key, the reachable grad_fns whose next_functions point at it (how often).
        self._referrers: dict[int, dict[int, int]] = {}
        self._fns: dict[int, GradFnFacts] = {}  # the reachable grad_fns
        #: AccumulateGrad keys by their variable: a leaf box shows the variable's shape.
        self._acc_of: dict[OutputRef, set[int]] = {}
        self._parts: dict[int, Parts] = {}
        self._boxes: dict[BoxId, Box] = {}
        self._links: dict[tuple, Link] = {}  # by flow, which names one link
        self.roots: set[int] = set()
        self._rank: dict[OutputRef, int] | None = None

    @property
    def flows(self) -> KeysView[tuple]:
        """The flows of the links at the position (a live view)."""
        return self._links.keys()

    @property
    def model(self) -> GraphModel:
        links = list(self._links.values())
        return GraphModel(
            dict(self._boxes),
            links,
            [(link.head, link.tail) for link in links],
            set(self.roots),
            len(self._fns),
        )

    def rebase(self, evaluation: Evaluation, index: GradFnIndex) -> None:
        """Stand for ``evaluation``, a run of the same structure (``same_structure``:
        values alone differ) at the same step: the boxes and links stay what they are,
        only the grad_fn facts read later are the new run's."""
        grad_fns = evaluation.snapshot(self.step).grad_fns()
        self._fns = {key: grad_fns[key] for key in self._fns}
        self.evaluation, self.index = evaluation, index

    def move_to(self, snapshot: Snapshot) -> ModelDelta:
        """Bring the model to ``snapshot``'s step (a snapshot of this evaluation)."""
        return finish(self.moving(snapshot))

    def moving(self, snapshot: Snapshot) -> Generator[None, None, ModelDelta]:
        """``move_to`` in steps: it yields after each chunk of grad_fns walked or
        rebuilt, so that a view can spread a long jump over idle ticks.  The model is
        half moved until the generator returns its delta: run it to the end before
        asking anything else of this model."""
        refs, keys = self.evaluation.changed_between(self.step, snapshot.step)
        self.step = snapshot.step
        if len(refs) > RESEED_SHARE * max(len(self._start_of), 64):
            return (yield from self._reseed(snapshot))  # a long jump: walk afresh
        grad_fns = snapshot.grad_fns()
        dirty: set[int] = set()
        check: set[int] = set(keys)
        for ref in refs:
            facts = snapshot.facts(*ref)
            new = (
                (facts.grad_fn.key, facts.shape)
                if facts is not None and facts.grad_fn is not None
                else None
            )
            old = self._start_of.get(ref)
            if self._acc_of:
                dirty.update(self._acc_of.get(ref, ()))  # a leaf box shows its variable's shape
            if new == old:
                continue
            if old is not None:
                del self._start_of[ref]
                self._starts[old[0]].discard(ref)
                dirty.add(old[0])
                check.add(old[0])
            if new is not None:
                self._start_of[ref] = new
                self._starts.setdefault(new[0], set()).add(ref)
                dirty.add(new[0])
                check.add(new[0])
        work = list(check)
        while work:
            key = work.pop()
            wanted = self._starts.get(key) or self._referrers.get(key)
            new_fn = grad_fns.get(key) if wanted else None
            old_fn = self._fns.get(key)
            if new_fn is old_fn:
                continue
            dirty.add(key)
            dirty.update(self._referrers.get(key, ()))  # their links to it come or go
            if old_fn is not None:
                del self._fns[key]
                self._unlink(old_fn, key, work, dirty)
            if new_fn is not None:
                self._fns[key] = new_fn
                self._link(new_fn, key, work, dirty)
        return (yield from self._rebuild(dirty, snapshot))

    def _reseed(self, snapshot: Snapshot) -> Generator[None, None, ModelDelta]:
        """Walk the graph at ``snapshot`` from its tensors, as ``model_at`` does (cheaper
        than undoing and redoing most of the graph), and compare the parts."""
        start_of: dict[OutputRef, tuple[int, tuple[int, ...]]] = {}
        starts: dict[int, set[OutputRef]] = {}
        for ref, facts in snapshot.items():
            if facts is not None and facts.grad_fn is not None:
                key = facts.grad_fn.key
                start_of[ref] = (key, facts.shape)
                starts.setdefault(key, set()).add(ref)
        grad_fns = dict(snapshot.grad_fns().items())
        yield
        fns: dict[int, GradFnFacts] = {}
        referrers: dict[int, dict[int, int]] = {}
        acc_of: dict[OutputRef, set[int]] = {}
        stack = list(starts)
        walked = 0
        while stack:
            walked += 1
            if walked % (4 * REBUILD_CHUNK) == 0:
                yield
            key = stack.pop()
            if key in fns or key not in grad_fns:
                continue
            fn = fns[key] = grad_fns[key]
            for nxt in fn.next_functions:
                if nxt is not None:
                    counts = referrers.setdefault(nxt.key, {})
                    counts[key] = counts.get(key, 0) + 1
                    stack.append(nxt.key)
            if fn.variable is not None and fn.name == "AccumulateGrad":
                acc_of.setdefault(fn.variable, set()).add(key)
        dirty = self._fns.keys() | fns.keys()
        self._start_of, self._starts, self._fns = start_of, starts, fns
        self._referrers, self._acc_of = referrers, acc_of
        yield
        return (yield from self._rebuild(dirty, snapshot))

    def _link(self, fn: GradFnFacts, key: int, work: list[int], dirty: set[int]) -> None:
        for nxt in fn.next_functions:
            if nxt is not None:
                counts = self._referrers.setdefault(nxt.key, {})
                counts[key] = counts.get(key, 0) + 1
                work.append(nxt.key)
                dirty.add(nxt.key)  # whether it is a root may change
        if fn.name == "AccumulateGrad" and fn.variable is not None:
            self._acc_of.setdefault(fn.variable, set()).add(key)

    def _unlink(self, fn: GradFnFacts, key: int, work: list[int], dirty: set[int]) -> None:
        for nxt in fn.next_functions:
            if nxt is not None:
                counts = self._referrers[nxt.key]
                counts[key] -= 1
                if not counts[key]:
                    del counts[key]
                    if not counts:
                        del self._referrers[nxt.key]
                work.append(nxt.key)
                dirty.add(nxt.key)
        if fn.name == "AccumulateGrad" and fn.variable is not None:
            self._acc_of[fn.variable].discard(key)

    def _rebuild(self, dirty: set[int], snapshot: Snapshot) -> Generator[None, None, ModelDelta]:
        """Make the parts of the ``dirty`` keys again; what differs is the delta."""
        delta = ModelDelta()
        for n, key in enumerate(dirty, 1):
            if n % REBUILD_CHUNK == 0:
                yield
            is_root = (
                key in self._fns and bool(self._starts.get(key)) and key not in self._referrers
            )
            if is_root != (key in self.roots):
                delta.roots.add(key)
                (self.roots.add if is_root else self.roots.discard)(key)
            old = self._parts.pop(key, None)
            new = self._parts_of(key, is_root, snapshot)
            if old is not None and new is not None and old[0] == new[0] and old[1] == new[1]:
                self._parts[key] = old  # the same boxes and links (mostly the same objects)
                continue
            old_boxes, old_links = old if old is not None else ({}, ())
            new_boxes, new_links = new if new is not None else ({}, ())
            for box_id, box in new_boxes.items():
                before = old_boxes.get(box_id)
                if before is not None and (before is box or before == box):
                    new_boxes[box_id] = before  # the same object while nothing changed
                else:
                    delta.boxes[box_id] = box
                    self._boxes[box_id] = box
            for box_id in old_boxes.keys() - new_boxes.keys():
                del self._boxes[box_id]
                delta.removed.add(box_id)
            if old_links != new_links:
                for link in old_links:
                    del self._links[link.flow]
                    delta.links_removed.add(link.flow)
                for link in new_links:
                    self._links[link.flow] = link
                    delta.links_added.add(link.flow)
            if new is not None:
                self._parts[key] = new
        both = delta.links_added & delta.links_removed
        delta.links_added -= both
        delta.links_removed -= both
        return delta

    def _parts_of(self, key: int, is_root: bool, snapshot: Snapshot) -> Parts | None:
        """The boxes and links of one grad_fn, as ``build_model`` makes them."""
        fn = self._fns.get(key)
        if fn is None:
            return None
        index, plan = self.index, self.evaluation.plan
        starts = self._starts.get(key)
        caption = shape = None
        if starts:
            first, last = self._first_last(starts)
            owner = index.node_for(key) or first.node_id
            caption = plan.labels.get(owner, owner)
            shape = self._start_of[last][1]
        parts = fn_parts(fn, key, caption, index, self.memo)
        named = fn.name != "AccumulateGrad" and not is_root
        box = fn_box(parts, fn, key, (caption or "") if named else "", index)
        boxes: dict[BoxId, Box] = {box.id: box}
        links = [link for nxt, link, _ in next_links(parts, fn, key) if nxt in self._fns]
        if fn.name == "AccumulateGrad" and fn.variable is not None:
            var = fn.variable
            leaf, link = leaf_box(
                plan.display_label(var), snapshot.facts(var.node_id, var.port, var.index), fn, key
            )
            boxes[leaf.id] = leaf
            links.append(link)
        if self.show_saved:
            for saved, link in parts[3]:
                boxes[saved.id] = saved
                links.append(link)
        if is_root:
            assert caption is not None and shape is not None
            out, link = out_box(key, caption, shape, fn, index)
            boxes[out.id] = out
            links.append(link)
        return boxes, tuple(links)

    def _first_last(self, refs: set[OutputRef]) -> tuple[OutputRef, OutputRef]:
        """The first and the last of these tensors in the snapshot's order (the order
        each first appeared in): the first names a grad_fn, the last gives its shape."""
        if len(refs) == 1:
            (ref,) = refs
            return ref, ref
        if self._rank is None:
            rank: dict[OutputRef, int] = {}
            for result in self.evaluation.steps:
                for ref in result.changed:
                    rank.setdefault(ref, len(rank))
            self._rank = rank
        ordered = sorted(refs, key=self._rank.__getitem__)
        return ordered[0], ordered[-1]
