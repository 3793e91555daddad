"""Folding a long loop: its first iterations and its last stay; the rest become one card.

A 500-step training loop recorded op by op is 8,500 nodes that say the same thing 500
times.  After the program ran, the events of iterations ``keep + 1 .. n - 1`` of each
loop are dropped and replaced by one collapsed ``loop`` frame holding a literal for
every tensor those iterations leave behind that the rest of the program reads (the
parameters the optimizer updated and its momentum buffers, say), with the values
they had then.  So the document
still evaluates to what the program computed, and the last iteration's facts are the
program's.

A loop whose folded iterations leave behind a tensor with history (a running total that
later backward goes through) is not folded: a literal would cut that graph.  Nor is one
whose folded backward passes left a ``.grad`` that the rest of the program reads or adds
to before clearing it, unless the recorder knows that ``.grad`` as the last iteration
began: then the card sets it again (``x.grad = g``, a ``gradstudio.set_grad`` node), as
a GAN's two optimizers need, each backward adding to the other network's gradients.
Clearing may come anywhere before the next backward (``zero_grad`` after the forward
pass, as the tutorials write it), since a forward pass does not read ``.grad``.

Each fold adds a frame, so the frame index grows with the events: a later loop that
runs beside a folded one sees the folded frame (its literals live in it).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

#: Event fields that name the keys of the tensors an event reads.
KEY_FIELDS = ("target", "index", "inputs", "outputs", "grad_outputs", "tensors", "grad_tensors")


def produced(event: dict[str, Any]) -> Iterator[str]:
    if event["kind"] == "literal":
        yield event["key"]
    out = event.get("out")
    for key in out if isinstance(out, list) else [out]:
        if isinstance(key, str):
            yield key


def consumed(event: dict[str, Any]) -> Iterator[str]:
    if event["kind"] == "call":  # most events: only their arguments hold tensors
        yield from _tensors(event["args"])
        yield from _tensors(event["kwargs"])
        return
    for name in KEY_FIELDS:
        value = event.get(name)
        for key in value if isinstance(value, list) else [value]:
            if isinstance(key, str):
                yield key
    if event["kind"] == "set_data":
        yield event["value"]
    for name in ("args", "kwargs", "gradient", "value"):
        yield from _tensors(event.get(name))


def _tensors(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            key = item.get("tensor")
            if isinstance(key, str):
                yield key
            else:
                stack.extend(item.values())
        elif type(item) is list:
            stack.extend(reversed(item))


def fold(
    events: list[dict[str, Any]],
    snapshots: dict[str, dict[str, Any]],
    keep: int,
    leaves: dict[str, int] | None = None,
    reads: dict[int, tuple[str, ...]] | None = None,
    grads: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """``events`` with each long loop's middle iterations folded (see the module doc).

    ``leaves`` maps the key of each leaf that requires grad to the tensor it is a
    version of: ``.grad`` belongs to the tensor, not to one version of it.  ``reads``
    holds what each event (by ``id``) reads, where the recorder already knows.
    ``grads`` holds, per loop run, the ``.grad`` of each leaf (by tensor) as its latest
    iteration began (``Recorder.snapshot_grads``)."""
    frames = {e["id"]: e for e in events if e["kind"] == "frame"}
    runs: dict[str, list[str]] = {}
    for frame in frames.values():
        if frame["frame_kind"] == "loop" and frame.get("instance"):
            runs.setdefault(frame["instance"], []).append(frame["id"])
    reads = {} if reads is None else reads
    for instance, iterations in runs.items():
        if len(iterations) <= keep + 1 or iterations[0] not in _present(events):
            continue
        events = _fold_run(
            events,
            frames,
            snapshots,
            instance,
            iterations,
            keep,
            leaves or {},
            reads,
            (grads or {}).get(instance),
        )
    return events


def _reads(cache: dict[int, tuple[str, ...]], event: dict[str, Any]) -> tuple[str, ...]:
    """``consumed(event)``, computed once per event for all the folds of a recording."""
    found = cache.get(id(event))
    if found is None:
        found = cache[id(event)] = tuple(consumed(event))
    return found


def _present(events: list[dict[str, Any]]) -> set[str]:
    return {e["id"] for e in events if e["kind"] == "frame"}


def _chain(frames: dict[str, dict[str, Any]], frame_id: str | None) -> Iterator[str]:
    while frame_id is not None:
        yield frame_id
        frame_id = frames[frame_id]["parent"]


def _fold_run(
    events: list[dict[str, Any]],
    frames: dict[str, dict[str, Any]],
    snapshots: dict[str, dict[str, Any]],
    instance: str,
    iterations: list[str],
    keep: int,
    leaves: dict[str, int],
    reads: dict[int, tuple[str, ...]],
    grads: Any = None,
) -> list[dict[str, Any]]:
    folded = set(iterations[keep:-1])
    inside: dict[str | None, bool] = {}

    def in_folded(frame_id: str | None) -> bool:
        if frame_id not in inside:
            inside[frame_id] = any(f in folded for f in _chain(frames, frame_id))
        return inside[frame_id]

    dropped: set[int] = set()
    made: set[str] = set()
    for index, event in enumerate(events):
        own = event["id"] if event["kind"] == "frame" else event.get("frame")
        if event["kind"] == "hook" and event["changes"] and in_folded(own):
            # its node would be folded away with the backward it changes
            event.update(
                kind="refused",
                message="a hook registered here changes a gradient in a loop iteration "
                "that is folded; keep more iterations to import it",
            )
        if event["kind"] != "refused" and in_folded(own):  # a refusal always stops the import
            dropped.add(index)
            made.update(produced(event))
    needed: list[str] = []
    seen: set[str] = set()
    first = min(dropped)
    for index in range(first, len(events)):
        if index in dropped:
            continue
        for key in _reads(reads, events[index]):
            if key in made and key not in seen:
                seen.add(key)
                needed.append(key)
    states = [snapshots.get(key) for key in needed]
    if any(s is None or s["history"] for s in states):
        return events  # a literal would cut a graph the rest of the program uses
    carried = _grads_carry_over(events, dropped, first, leaves, reads)
    set_grads: list[tuple[str, dict[str, Any]]] = []
    if carried:
        if grads is None or grads.frame != iterations[-1]:
            return events  # what the folded backward passes left is not known
        set_grads = _grads_to_set(events, dropped, first, leaves, reads, carried, grads.grads)
        if any(state["history"] for _, state in set_grads):
            return events  # a literal gradient would cut the graph create_graph made
    sample = frames[iterations[-2]]
    count = len(folded)
    summary_id = f"{instance}_folded"
    header = sample["title"].split(" · ", 1)[1]
    line = int(sample["meta"].get("line", "0")) or None
    replacement: list[dict[str, Any]] = [
        {
            "kind": "frame",
            "id": summary_id,
            "frame_kind": "loop",
            "title": f"×{count} iterations · {header}",
            "parent": sample["parent"],
            # ``last``: the iteration whose values it carries (they are named for it)
            "meta": {
                "iterations": str(count),
                "line": sample["meta"].get("line", ""),
                "last": sample["meta"].get("iteration", ""),
            },
            "instance": "",
            "collapsed": True,
        }
    ]
    frames[summary_id] = replacement[0]
    for key, state in zip(needed, states, strict=True):
        assert state is not None
        replacement.append(
            {
                "kind": "literal",
                "key": key,
                "data": state["data"],
                "dtype": state["dtype"],
                "requires_grad": state["requires_grad"],
                "label": state.get("name"),
                "line": line,
                "frame": summary_id,
            }
        )
    for key, state in set_grads:
        replacement.append(
            {
                "kind": "set_grad",
                "target": key,
                "data": state["array"].tolist(),
                "dtype": state["dtype"],
                "line": line,
                "frame": summary_id,
            }
        )
    kept = [e for i, e in enumerate(events[:first]) if i not in dropped]
    rest = [e for i, e in enumerate(events[first:], first) if i not in dropped]
    return kept + replacement + rest


def _grads_to_set(
    events: list[dict[str, Any]],
    dropped: set[int],
    first: int,
    leaves: dict[str, int],
    reads: dict[int, tuple[str, ...]],
    carried: set[int],
    grads: dict[int, dict[str, Any]],
) -> list[tuple[str, dict[str, Any]]]:
    """``(key, gradient)`` for each leaf of ``carried`` that held a ``.grad`` as the last
    iteration began: the key is the version the rest of the program reads first (the
    fold card's literal, where the folded iterations updated it)."""
    wanted = {serial for serial in carried if serial in grads}
    found: list[tuple[str, dict[str, Any]]] = []
    later: set[str] = set()
    for index in range(first, len(events)):
        if not wanted:
            break
        if index in dropped:
            continue
        for key in _reads(reads, events[index]):
            serial = leaves.get(key)
            if serial in wanted and key not in later:
                wanted.discard(serial)
                found.append((key, grads[serial]))
        later.update(produced(events[index]))  # versions the card cannot reach
    return found


def _grads_carry_over(
    events: list[dict[str, Any]],
    dropped: set[int],
    first: int,
    leaves: dict[str, int],
    reads: dict[int, tuple[str, ...]],
) -> set[int]:
    """The leaves (by tensor) whose ``.grad`` the folded backward passes wrote is still
    used afterwards, if any is: that of a leaf read in the graph of a folded backward
    (between it and the one before), not cleared since, and not cleared after the fold
    before a backward adds to it, ``p.grad`` reads it, or the program ends with it read.
    Empty where none is."""
    touched: set[int] = set()  # leaves whose .grad a folded backward may have left
    since: set[int] = set()  # leaves read since the last backward: the graph it runs
    for index in sorted(dropped):
        event = events[index]
        if event["kind"] == "clear_grad":
            touched.discard(leaves.get(event["target"], -1))
        elif event["kind"] in ("backward", "autograd_backward"):
            touched |= since
            if not event.get("retain_graph"):
                since = set()
        elif not event.get("no_grad"):  # an update under no_grad is in no graph
            since.update(leaves[k] for k in _reads(reads, event) if k in leaves)
    used: set[int] = set()
    for index in range(first, len(events)):
        if not touched:
            return set()
        if index in dropped:
            continue
        event = events[index]
        if event["kind"] == "clear_grad":
            touched.discard(leaves.get(event["target"], -1))
        elif event["kind"] in GRAD_EVENTS:
            return touched
        else:
            owners = {leaves[k] for k in _reads(reads, event) if k in leaves} & touched
            if owners and _reads_grad(event):
                return touched
            used |= owners
    return touched if used & touched else set()


#: Events that add to (or read) the ``.grad`` of every leaf they reach.
GRAD_EVENTS = ("backward", "autograd_backward", "grad")


def _reads_grad(event: dict[str, Any]) -> bool:
    """``p.grad`` as a node, or a hook that sees a gradient."""
    return event["kind"] == "hook" or (
        event["kind"] == "call" and event.get("function") == "Tensor.grad"
    )
