"""``same_values``: the fast comparison of recorded arrays says what NumPy says."""

from __future__ import annotations

import itertools

import numpy as np

from gradstudio.evaluation.facts import same_values


def test_same_values_agrees_with_array_equal() -> None:
    rng = np.random.default_rng(0)
    base = rng.standard_normal(6)
    nan = np.array([np.nan, 1.0, -0.0])
    arrays = [
        base,
        base.copy(),
        base.astype(np.float32),
        base + 1e-12,
        base.reshape(2, 3),
        nan,
        np.array([np.nan, 1.0, 0.0]),  # -0.0 == 0.0
        np.array([np.nan, 1.0, -0.0]).view(np.int64).copy().view(np.float64),
        np.frombuffer(np.array([0x7FF8000000000001, 0, 0], dtype=np.int64).tobytes()),  # NaN
        np.arange(6),
        np.arange(6, dtype=np.int32),
        np.arange(6).astype(np.float64),
        np.array([True, False, True]),
        np.array([1, 0, 1]),
        np.array([1 + 1j, np.nan + 0j, 2j]),
        np.array([1 + 1j, np.nan + 0j, 2j]),
        np.float64(3.0).reshape(()),
        np.array(3),
        np.zeros((0, 3)),
        np.zeros((0, 3), dtype=np.float32),
    ]
    for a, b in itertools.product(arrays, repeat=2):
        want = bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
        assert same_values(a, b) == want, (a, b)
