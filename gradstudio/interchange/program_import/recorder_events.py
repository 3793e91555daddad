"""The recording's event list, and the bounds on what it may hold: past them the
recording is refused (``TooLarge``) before it fills the child's memory, since no
document a learner can read would hold it.
"""

from __future__ import annotations

from typing import Any

#: The most events one recording may hold outside the loop iterations that fold, and
#: the most numbers its literals may hold: a document beyond that is not one a learner
#: can read, and the recording is refused before it fills the child's memory.
MAX_EVENTS = 10_000
MAX_RECORDED_NUMBERS = 5_000_000
#: The most events a recording holds at once, folded iterations included (an event is
#: a few hundred bytes): past it the program runs longer than any document can show.
MAX_ALL_EVENTS = 2_000_000


class TooLarge(BaseException):
    """The recording holds more than a document should; the message says what.  A
    ``BaseException``, so that the program's own ``except Exception`` does not swallow it."""


class Events(list):
    """Events in program order; each one names the frame (module call, loop iteration)
    it happened in, declared by a ``frame`` event before its first use.

    It counts what it holds as it grows (events in iterations that will fold apart,
    since they leave the document) and raises ``TooLarge`` past the bounds above."""

    frames: Any = None
    recorder: Any = None
    kept = 0
    numbers = 0
    folding_numbers = 0

    def append(self, event: dict[str, Any]) -> None:
        if self.frames is not None and event["kind"] != "frame":
            event["frame"] = self.frames.current()
        super().append(event)
        folding = self.frames.folding_chain() if self.frames is not None else ()
        if self.recorder is not None:
            self.recorder.read(event, folding)
        data = event.get("data")
        if folding:
            if data is not None:
                self.folding_numbers += _count(data)
            if self.folding_numbers > 2 * MAX_RECORDED_NUMBERS:
                raise TooLarge(
                    f"the program's loops recorded over {2 * MAX_RECORDED_NUMBERS:,} numbers "
                    "as copies; GradStudio imports programs that record fewer"
                )
            if len(self) > MAX_ALL_EVENTS:
                raise TooLarge(
                    f"the program recorded over {MAX_ALL_EVENTS:,} operations; "
                    "GradStudio imports programs that run fewer"
                )
            return
        self.kept += 1
        if data is not None:
            self.numbers += _count(data)
        if self.kept > MAX_EVENTS:
            raise TooLarge(
                f"the program recorded over {MAX_EVENTS:,} operations outside loops that "
                "fold; a document holds fewer (run fewer steps, or fewer outside a loop)"
            )
        self.check_room(0)

    def check_room(self, numbers: int) -> None:
        """Raise ``TooLarge`` if ``numbers`` more would take the literals past the bound
        (before they are copied out of the tensor)."""
        if self.numbers + numbers > MAX_RECORDED_NUMBERS:
            raise TooLarge(
                f"the program's data holds over {MAX_RECORDED_NUMBERS:,} numbers; "
                "a document holds fewer (use smaller data)"
            )


def why_too_large(events: list[dict[str, Any]]) -> str | None:
    """Why the folded recording is more than a document should hold, if it is."""
    if len(events) > MAX_EVENTS:
        return (
            f"the program recorded {len(events):,} operations that do not fold into a "
            f"loop card; a document holds at most {MAX_EVENTS:,} (run fewer steps)"
        )
    numbers = sum(_count(e["data"]) for e in events if e.get("data") is not None)
    if numbers > MAX_RECORDED_NUMBERS:
        return (
            f"the program's data holds {numbers:,} numbers; a document holds at most "
            f"{MAX_RECORDED_NUMBERS:,} (use smaller data)"
        )
    return None


def _count(data: Any) -> int:
    """How many numbers nested lists hold."""
    if isinstance(data, list):
        if data and not isinstance(data[0], list):
            return len(data)
        return sum(_count(d) for d in data)
    return 1
