"""Where the gradient labels go: on their edge, clear of the boxes and of each other.

Edges that meet at a box run close together there; a label at each edge's middle
would cover its neighbour's.  Each label has a few candidate points along its edge,
best first; greedily, every label takes the first candidate that overlaps nothing
placed so far (boxes count as placed), or else the one that overlaps least.  Plain
numbers only, so it is cheap to test; a grid of cells keeps it linear in the labels.
"""

from __future__ import annotations

from collections.abc import Sequence

Point = tuple[float, float]
Rect = tuple[float, float, float, float]  # x0, y0, x1, y1

CELL = 64.0
PAD = 2.0  # room kept between two labels


def place_labels(
    labels: Sequence[tuple[Sequence[Point], float, float]],
    obstacles: Sequence[Rect] = (),
) -> list[Point]:
    """For each ``(candidates, width, height)``, in order, the centre it gets."""
    grid: dict[tuple[int, int], list[Rect]] = {}

    def cells(r: Rect) -> list[tuple[int, int]]:
        return [
            (i, j)
            for i in range(int(r[0] // CELL), int(r[2] // CELL) + 1)
            for j in range(int(r[1] // CELL), int(r[3] // CELL) + 1)
        ]

    def add(r: Rect) -> None:
        for c in cells(r):
            grid.setdefault(c, []).append(r)

    def overlap(r: Rect) -> float:
        total = 0.0
        seen: set[int] = set()
        for c in cells(r):
            for o in grid.get(c, ()):
                if id(o) in seen:
                    continue
                seen.add(id(o))
                w = min(r[2], o[2]) - max(r[0], o[0])
                h = min(r[3], o[3]) - max(r[1], o[1])
                if w > 0 and h > 0:
                    total += w * h
        return total

    for r in obstacles:
        add(r)
    out: list[Point] = []
    for candidates, width, height in labels:
        best: tuple[float, Point, Rect] | None = None
        for x, y in candidates:
            r = (
                x - width / 2 - PAD,
                y - height / 2 - PAD,
                x + width / 2 + PAD,
                y + height / 2 + PAD,
            )
            cost = overlap(r)
            if best is None or cost < best[0]:
                best = (cost, (x, y), r)
                if cost == 0:
                    break
        assert best is not None, "a label needs a candidate point"
        add(best[2])
        out.append(best[1])
    return out
