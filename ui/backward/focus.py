"""Which boxes the backward view puts aside to show the last backward's graph alone.

A training loop records one backward graph per iteration; drawn together they are
unreadable.  The view shows the graph of the most recent backward at the playhead
(and whatever has not been through a backward yet, such as the forward of the
iteration under way) and puts aside the grad_fns that only earlier backwards ran.
"""

from __future__ import annotations

from dataclasses import dataclass

from gradstudio.evaluation.playhead import Playhead


@dataclass(frozen=True)
class Focus:
    """``hidden``: the grad_fn keys only earlier backwards ran; ``count``: how many
    earlier backward graphs they make up (0: nothing is put aside)."""

    hidden: frozenset[int] = frozenset()
    count: int = 0


def focus_at(playhead: Playhead) -> Focus:
    """What to put aside at the playhead's position: the backwards before the one
    ``Playhead.trace_at`` shows (a step whose trace ran no grad_fn is no backward)."""
    ev, at = playhead.evaluation, playhead.trace_at()
    if ev is None or at is None:
        return Focus()
    last = at.trace
    shown = set(last.keys)
    earlier: set[int] = set()
    count = 0
    for s in range(last.step):
        trace = ev.steps[s].trace
        if trace is None or not trace.keys:
            continue
        only_earlier = set(trace.keys) - shown
        if only_earlier:
            count += 1
            earlier |= only_earlier
    return Focus(frozenset(earlier), count)


def hidden_text(count: int) -> str:
    """The heading's words for ``count`` put-aside graphs."""
    return f"{count} earlier backward graph{'s' if count != 1 else ''} hidden"
