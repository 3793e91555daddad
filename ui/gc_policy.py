"""The studio's garbage-collector settings: fewer collections, over fewer objects.

The studio allocates in bursts — a scene of thousands of items, an evaluation
that records every tensor's facts after every step.  With CPython's default
first threshold (700 allocations) such a burst runs hundreds of young
collections and, as survivors pile up, full collections of the whole heap: on a
1,000-node graph those took about 0.2 s of a 1.5 s open-and-evaluate (measured
with ``gc.callbacks``).  A first threshold of 20,000 keeps cycles collected
(autograd graphs with custom Functions do make them) while the full passes
become rare.  CPython 3.13 raised its own default for the same reason.

An evaluation's results arrive as tens of thousands of small objects (facts,
gradients, traces) that live until the next runs push them out of the runner's
cache, and almost all of them are freed by reference counting, not by the
collector.  Left to the collector, each was scanned again by young and middle
collections after every edit (40-100 ms of an edit and re-run of 1,000 nodes, on
a busy machine).  So the objects alive when a run's results have been received
and shown are frozen as well.  The price: a reference cycle that becomes garbage
while frozen waits for the next sweep (about 150 objects an edit were measured):
every ``SWEEP_EVERY`` evaluations one full collection runs over everything.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 20_000
#: Evaluations shown between two sweeps of the objects frozen after them.
SWEEP_EVERY = 100

_frozen_evaluations = 0


def tune_collector() -> None:
    """Raise the first generation's threshold (never lower one set higher already)."""
    young, middle, old = gc.get_threshold()
    if young < YOUNG_THRESHOLD:
        gc.set_threshold(YOUNG_THRESHOLD, middle, old)


def freeze_startup_objects() -> None:
    """Move everything alive now out of the collector's reach, once per process.

    Called when the application object is made: the objects the imports created
    (Qt's wrappers, numpy, networkx, the engine: some 65,000, no garbage among them)
    live as long as the process, yet every full collection walked them all again
    (about 0.05 s each), and so did the interpreter at exit.
    """
    gc.freeze()


def freeze_received() -> None:
    """A batch of results was just unpickled (collector paused): out of its reach."""
    gc.freeze()


def freeze_evaluation() -> None:
    """After a run's results are shown: freeze what is alive now; every
    ``SWEEP_EVERY``-th time, first collect the cycles that died while frozen."""
    global _frozen_evaluations
    _frozen_evaluations += 1
    if _frozen_evaluations % SWEEP_EVERY == 0:
        gc.unfreeze()
        gc.collect()
    gc.freeze()
