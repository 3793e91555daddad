"""Placing the gradient labels of the backward graph (plain numbers, no widgets)."""

from __future__ import annotations

import itertools

from ui.backward.labels import PAD, place_labels


def rect(centre: tuple[float, float], w: float, h: float) -> tuple[float, float, float, float]:
    return (centre[0] - w / 2, centre[1] - h / 2, centre[0] + w / 2, centre[1] + h / 2)


def overlaps(a: tuple, b: tuple) -> bool:
    return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def test_labels_of_edges_that_meet_move_apart_along_their_edges() -> None:
    """Three edges into one box: their middles are 10 px apart, the labels 60 px wide."""
    spots = [[(x, y) for y in (100.0, 80.0, 120.0, 60.0)] for x in (0.0, 10.0, 20.0)]
    placed = place_labels([(s, 60.0, 14.0) for s in spots])
    assert placed[0] == (0.0, 100.0)  # the first takes its best spot
    assert all(p in s for p, s in zip(placed, spots, strict=True))  # all on their edges
    for a, b in itertools.combinations(placed, 2):
        assert not overlaps(rect(a, 60.0 + 2 * PAD, 14.0), rect(b, 60.0, 14.0))


def test_a_label_avoids_boxes_and_takes_the_least_covered_spot_when_none_is_free() -> None:
    box = (-50.0, 90.0, 50.0, 110.0)
    assert place_labels([([(0.0, 100.0), (0.0, 130.0)], 40.0, 10.0)], [box]) == [(0.0, 130.0)]
    mostly = place_labels([([(0.0, 100.0), (0.0, 114.0)], 40.0, 10.0)], [box])
    assert mostly == [(0.0, 114.0)]
