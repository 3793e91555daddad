"""Where the backward graph's boxes and links go: the orientation that shows it larger,
the placement of its layers, the ends of the links along the boxes' sides, and a
thread that makes a big graph's layout while the window goes on answering."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from ui.backward.model import (
    LAYER_GAP,
    BoxId,
    GraphModel,
    Link,
    Placement,
    arrange,
    extents,
    layers_of,
)

MAX_FIT_SCALE = 1.4
SCENE_MARGIN = 14.0  # around everything drawn: boxes, halos, edges, gradient labels
SCENE_PAD = (120.0, 50.0)  # what ``best_orientation`` allows around the boxes' centres
ORIENTATION_MARGIN = 1.25  # left-to-right only when it shows the graph this much larger


def fit_orientation(
    extents: dict[bool, tuple[float, float]], width: int, height: int, current: bool
) -> bool:
    """The orientation that shows a graph of these ``extents`` larger in a viewport of
    ``width`` by ``height`` (True: top-to-bottom); ``current`` without extents.

    torchviz's top-to-bottom unless left-to-right is clearly larger, as in a
    wide, short dock or for a long chain of grad_fns.
    """
    if not extents:
        return current
    vw, vh = max(width, 1), max(height, 1)

    def scale(vertical: bool) -> float:
        w, h = extents[vertical]
        return min(vw / (w + 2 * SCENE_PAD[0]), vh / (h + 2 * SCENE_PAD[1]), MAX_FIT_SCALE)

    return not scale(False) > scale(True) * ORIENTATION_MARGIN


@dataclass
class Layout:
    """Where the boxes go: the orientation, its extents (for later resizes), the placement;
    the points each link passes and where its ends sit along the sides of its boxes."""

    extents: dict[bool, tuple[float, float]]
    vertical: bool
    placement: Placement
    vias: dict[Link, list[tuple[float, float]]]
    ends: dict[Link, tuple[float, float]]


def lay_out(
    model: GraphModel,
    sizes: dict[BoxId, tuple[float, float]],
    across: float,
    viewport: tuple[int, int] | None,
    vertical: bool,
) -> Layout:
    """The layout of ``model`` (plain data in and out, so that a thread can make it).

    ``viewport``: the view's size, when the orientation is chosen to fit it (else
    ``vertical`` stays); ``across``: the layer gap left to right, where labels go.
    """
    layering = layers_of(model)
    shape: dict[bool, tuple[float, float]] = {}
    if viewport is not None:
        shape = extents(model, sizes, layering, across)
        vertical = fit_orientation(shape, *viewport, vertical)
    gap = LAYER_GAP if vertical else across
    placement = arrange(model, sizes, vertical, layering, gap)
    vias: dict[Link, list[tuple[float, float]]] = {}
    for link in model.links:
        via = placement.routes.get((link.tail, link.head))
        if via is None:
            via = placement.routes.get((link.head, link.tail), [])[::-1]
        vias[link] = via
    ends = link_ends(model, placement.positions, sizes, vias, vertical)
    return Layout(shape, vertical, placement, vias, ends)


def link_ends(
    model: GraphModel,
    positions: dict[BoxId, tuple[float, float]],
    sizes: dict[BoxId, tuple[float, float]],
    vias: dict[Link, list[tuple[float, float]]],
    vertical: bool,
) -> dict[Link, tuple[float, float]]:
    """Spread the ends of the links along a box's side, ordered by where each link
    goes next (its first waypoint, or the other box), so that the arrows into a
    function with several inputs stay apart and uncrossed."""
    axis = 0 if vertical else 1

    def spread(box_id: BoxId, others: list[tuple[Link, tuple[float, float]]]) -> dict[Link, float]:
        n = len(others)
        if n == 1:
            return {others[0][0]: 0.0}
        span = min(sizes[box_id][axis] * 0.6, 18.0 * (n - 1))
        ordered = sorted(others, key=lambda lo: lo[1][axis])
        return {link: -span / 2 + span * i / (n - 1) for i, (link, _) in enumerate(ordered)}

    into: dict[BoxId, list[tuple[Link, tuple[float, float]]]] = {}
    out_of: dict[BoxId, list[tuple[Link, tuple[float, float]]]] = {}
    for link in model.links:
        if link.tail in positions and link.head in positions:
            via = vias.get(link) or []
            into.setdefault(link.head, []).append((link, via[-1] if via else positions[link.tail]))
            out_of.setdefault(link.tail, []).append((link, via[0] if via else positions[link.head]))
    head_at: dict[Link, float] = {}
    tail_at: dict[Link, float] = {}
    for box_id, others in into.items():
        head_at.update(spread(box_id, others))
    for box_id, others in out_of.items():
        tail_at.update(spread(box_id, others))
    return {link: (tail_at.get(link, 0.0), head_at.get(link, 0.0)) for link in model.links}


class BackgroundLayout:
    """``lay_out`` on a daemon thread, for graphs big enough that it would hold the
    window still for a second: the window paints and answers meanwhile (the layout is
    pure Python on plain data, and the interpreter hands over to the event loop every
    few milliseconds), and the view builds its items once it is done."""

    def __init__(self, job: Callable[[], Layout]) -> None:
        self.result: Layout | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._run, args=(job,), name="backward-layout", daemon=True
        )

    def start(self) -> None:
        if not self._thread.ident:
            self._thread.start()

    def _run(self, job: Callable[[], Layout]) -> None:
        try:
            self.result = job()
        except BaseException as error:  # raised again where it is taken
            self.error = error

    def done(self) -> bool:
        return bool(self._thread.ident) and not self._thread.is_alive()

    def take(self) -> Layout:
        """The layout (waiting for it), or the error the thread met, raised here."""
        self.start()
        self._thread.join()
        if self.error is not None:
            raise self.error
        assert self.result is not None
        return self.result
