"""The studio's garbage-collector settings: fewer collections, over fewer objects.

The studio allocates in bursts — a scene of thousands of items, an evaluation
that records every tensor's facts after every step.  With CPython's default
first threshold (700 allocations) such a burst runs hundreds of young
collections and, as survivors pile up, full collections of the whole heap: on a
1,000-node graph those took about 0.2 s of a 1.5 s open-and-evaluate (measured
with ``gc.callbacks``).  A first threshold of 20,000 keeps cycles collected
(autograd graphs with custom Functions do make them) while the full passes
become rare.  CPython 3.13 raised its own default for the same reason.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 20_000


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
