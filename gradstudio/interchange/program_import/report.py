"""The recorder's report as the parent reads it: bounded, parsed, checked like a file.

The report comes from the process that ran the user's program, so it is as untrusted as
a file from disk: the program may have replaced ``json.dump``, overwritten the file,
forged events or nested frames 20,000 deep.  ``read_report`` refuses a report that is too
large or not JSON, and ``check_report`` its shape: an object holding either the program's
error or its events and labels, each event an object with a kind, every frame's parent
declared before it (so frames never form a cycle; an event in an undeclared frame joins
none) and nested at most as deep as the document's groups.  Every refusal names the place
with its JSON path.  What the checks
cannot see in advance (an event naming a tensor no event made) is found while building,
and ``malformed`` turns it into the same kind of message, at the event being built.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

from gradstudio.document.groups import MAX_DEPTH
from gradstudio.interchange.pytorch_import import ImportProblem
from gradstudio.interchange.quoting import one_line


class MalformedReport(ImportProblem):
    """The recording is not what the recorder writes: where, as a JSON path, and why."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(f"the recording is malformed at {path}: {one_line(why, 200)}")
        self.path = path


class Events(list):
    """The report's events; iterating them remembers which one is being built, so a
    problem found while building names its place."""

    at = -1

    def __iter__(self) -> Iterator[Any]:
        for index, event in enumerate(super().__iter__()):
            self.at = index
            yield event


def read_report(path: str, max_bytes: int) -> dict[str, Any]:
    """The report at ``path``, checked; ``ImportProblem`` when it cannot be one."""
    size = os.path.getsize(path)
    if size > max_bytes:
        raise ImportProblem(
            f"the program recorded more than a document can hold "
            f"({size // 1024**2} MB of events; the limit is {max_bytes // 1024**2} MB)"
        )
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except UnicodeDecodeError:
        raise MalformedReport("$", "it is not UTF-8 text") from None
    except RecursionError:
        raise MalformedReport("$", "it nests too deep") from None
    except ValueError as exc:
        raise MalformedReport("$", f"it is not JSON ({exc})") from None
    return check_report(data)


def _type(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, int | float) else "null"
    )


def _expect(value: Any, kind: type | tuple[type, ...], path: str, what: str) -> None:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise MalformedReport(path, f"expected {what}, found {_type(value)}")


def check_report(data: Any) -> dict[str, Any]:
    """``data`` as the recorder writes it, or ``MalformedReport`` naming the first fault."""
    _expect(data, dict, "$", "an object")
    if "error" in data:
        _expect(data["error"], str, "$.error", "a string")
        line = data.get("line")
        if line is not None:
            _expect(line, int, "$.line", "a line number")
        return data
    _expect(data.get("events"), list, "$.events", "a list of events")
    labels = data.get("labels", {})
    _expect(labels, dict, "$.labels", "an object")
    for key, label in labels.items():
        _expect(label, str, f"$.labels[{json.dumps(key)}]", "a string")
    names = data.get("names", {})
    _expect(names, dict, "$.names", "an object")
    for key, name in names.items():
        _expect(name, str, f"$.names[{json.dumps(key)}]", "a string")
    depth: dict[Any, int] = {}
    for index, event in enumerate(data["events"]):
        where = f"$.events[{index}]"
        _expect(event, dict, where, "an event object")
        _expect(event.get("kind"), str, f"{where}.kind", "an event kind")
        line = event.get("line")
        if line is not None:
            _expect(line, int, f"{where}.line", "a line number")
        frame = event.get("frame")
        if frame is not None and frame not in depth:
            # a frame the recording left out (a folded loop's, say): the node joins none
            event["frame"] = None
        if event["kind"] == "frame":
            _check_frame(event, where, depth)
    data["events"] = Events(data["events"])
    return data


def _check_frame(event: dict[str, Any], where: str, depth: dict[Any, int]) -> None:
    frame_id, parent = event.get("id"), event.get("parent")
    _expect(frame_id, str, f"{where}.id", "a frame id")
    if frame_id in depth:
        raise MalformedReport(f"{where}.id", f"frame {frame_id!r} is declared twice")
    if parent is not None and parent not in depth:
        raise MalformedReport(f"{where}.parent", f"frame {parent!r} was not declared before")
    level = 0 if parent is None else depth[parent] + 1
    if level >= MAX_DEPTH:
        raise MalformedReport(f"{where}.parent", f"frames nest more than {MAX_DEPTH} deep")
    _expect(event.get("title"), str, f"{where}.title", "a title")
    _expect(event.get("frame_kind"), str, f"{where}.frame_kind", "a frame kind")
    _expect(event.get("meta", {}), dict, f"{where}.meta", "an object")
    depth[frame_id] = level


def malformed(report: dict[str, Any], exc: BaseException) -> MalformedReport:
    """A fault met while building ``report``, at the event being built."""
    events = report.get("events")
    at = events.at if isinstance(events, Events) else -1
    path = f"$.events[{at}]" if at >= 0 else "$.events"
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if isinstance(exc, KeyError):
        detail = f"it names {exc.args[0]!r}, which no earlier event made or holds"
    return MalformedReport(path, detail)
