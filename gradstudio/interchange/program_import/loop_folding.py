"""Folding a long loop: its first iterations and its last stay; the rest become one card.

A 500-step training loop recorded op by op is 8,500 nodes that say the same thing 500
times.  After the program ran, the events of iterations ``keep + 1 .. n - 1`` of each
loop are dropped and replaced by one collapsed ``loop`` frame holding a literal for
every tensor those iterations leave behind that the rest of the program reads (the
parameters the optimizer updated, say), with the values it had then.  So the document
still evaluates to what the program computed, and the last iteration's facts are the
program's.

A loop whose folded iterations leave behind a tensor with history (a running total that
later backward goes through) is not folded: a literal would cut that graph.
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
    if isinstance(value, dict):
        if isinstance(value.get("tensor"), str):
            yield value["tensor"]
        else:
            for item in value.values():
                yield from _tensors(item)
    elif isinstance(value, list):
        for item in value:
            yield from _tensors(item)


def fold(
    events: list[dict[str, Any]],
    snapshots: dict[str, dict[str, Any]],
    keep: int,
    leaves: set[str] | None = None,
) -> list[dict[str, Any]]:
    """``events`` with each long loop's middle iterations folded (see the module doc)."""
    frames = {e["id"]: e for e in events if e["kind"] == "frame"}
    runs: dict[str, list[str]] = {}
    for frame in frames.values():
        if frame["frame_kind"] == "loop" and frame.get("instance"):
            runs.setdefault(frame["instance"], []).append(frame["id"])
    for instance, iterations in runs.items():
        if len(iterations) <= keep + 1 or iterations[0] not in _present(events):
            continue
        events = _fold_run(events, frames, snapshots, instance, iterations, keep, leaves or set())
    return events


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
    leaves: set[str],
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
        for key in consumed(events[index]):
            if key in made and key not in seen:
                seen.add(key)
                needed.append(key)
    states = [snapshots.get(key) for key in needed]
    if any(s is None or s["history"] for s in states):
        return events  # a literal would cut a graph the rest of the program uses
    backwards = [i for i in dropped if events[i]["kind"] in ("backward", "autograd_backward")]
    if backwards:
        # the folded backward passes wrote .grad of leaves; unless the program cleared a
        # leaf's .grad after the last of them, or clears it before it next uses it, that
        # sum is state no literal carries
        cleared = {
            events[i]["target"]
            for i in dropped
            if i > max(backwards) and events[i]["kind"] == "clear_grad"
        }
        for key, use in _first_uses(events[first:], dropped, first).items():
            if key in leaves and key not in cleared and use != "clear_grad":
                return events
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
            "meta": {"iterations": str(count), "line": sample["meta"].get("line", "")},
            "instance": "",
            "collapsed": True,
        }
    ]
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
    kept = [e for i, e in enumerate(events[:first]) if i not in dropped]
    rest = [e for i, e in enumerate(events[first:], first) if i not in dropped]
    return kept + replacement + rest


def _first_uses(rest: list[dict[str, Any]], dropped: set[int], offset: int) -> dict[str, str]:
    """The kind of the first kept event after the fold that reads each key."""
    found: dict[str, str] = {}
    for index, event in enumerate(rest, offset):
        if index in dropped:
            continue
        for key in consumed(event):
            found.setdefault(key, event["kind"])
    return found
