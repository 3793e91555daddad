"""Every parameter kind takes every form PyTorch takes for it: an int or a tuple, a list,
``torch.Size``, NumPy scalars, dtype objects, and gives the value a document stores.

``max_pool2d(x, kernel_size=(2, 2))`` was refused at import (its kind took one int);
a new kind fails ``test_every_kind_has_its_forms`` until its forms are listed here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine
from gradstudio.catalogue import catalogue
from gradstudio.params import PARAM_KINDS, param_kind

#: kind -> (a form a program passes, the value the document stores)
FORMS: dict[str, list[tuple[Any, Any]]] = {
    "number": [
        (2, 2),
        (0.5, 0.5),
        (np.float32(0.5), 0.5),
        (np.int64(3), 3),
        (float("-inf"), "-inf"),
    ],
    "int": [(3, 3), (np.int64(3), 3), (np.int32(-1), -1), (3.0, 3)],
    "float": [(0.5, 0.5), (1, 1.0), (np.float64(0.25), 0.25), (np.float32(2), 2.0)],
    "bool": [(True, True), (np.bool_(False), False)],
    "dim": [(-1, -1), (np.int64(1), 1)],
    "dims": [(1, 1), ((0, 1), [0, 1]), ([0, 1], [0, 1]), ((np.int64(2), 3), [2, 3]), (None, None)],
    "dim_list": [(0, [0]), ((0, 1), [0, 1]), ([np.int32(1)], [1])],
    "ints": [
        (2, 2),
        ((2, 2), [2, 2]),
        ([1, 2], [1, 2]),
        (engine.Size([3, 3]), [3, 3]),
        (np.int64(2), 2),
        ((np.int64(1), 1), [1, 1]),
    ],
    "sizes": [(7, 7), ((None, 7), [None, 7]), ([4, np.int64(4)], [4, 4])],
    "shape": [
        (4, [4]),
        ((2, 3), [2, 3]),
        ([2, -1], [2, -1]),
        (engine.Size([2, 3]), [2, 3]),
        ((np.int64(2), 3), [2, 3]),
    ],
    "optional_shape": [(None, None), (engine.Size([2]), [2]), ((1, np.int64(2)), [1, 2])],
    "data": [([1.0, 2.0], [1.0, 2.0]), ((1, 2), [1, 2]), (3.5, 3.5), ([[True]], [[True]])],
    "optional_data": [(None, None), ([1, 2], [1, 2])],
    "dtype": [
        ("float64", "float64"),
        ("torch.float32", "float32"),
        ("double", "float64"),
        (engine.float64, "float64"),
        (engine.long, "int64"),
        (None, None),
    ],
    "str": [("mean", "mean")],
    "optional_str": [(None, None), ("floor", "floor")],
    "optional_bool": [(None, None), (True, True), (np.bool_(True), True)],
    "optional_number": [(None, None), (np.float32(1.5), 1.5), (2, 2)],
    "code": [("def hook(g):\n    return g\n", "def hook(g):\n    return g\n")],
    "identifier": [("hook", "hook")],
    "args": [([{"input": 0}, {"value": 2}], [{"input": 0}, {"value": 2}])],
    "index": [("0", "0"), (":, 1", ":, 1")],
    "device": [("cpu", "cpu"), ("default", "default")],
}


def test_every_kind_has_its_forms() -> None:
    assert set(FORMS) == set(PARAM_KINDS)


@pytest.mark.parametrize(
    ("kind", "form", "stored"),
    [(k, form, stored) for k, pairs in FORMS.items() for form, stored in pairs],
    ids=lambda v: repr(v)[:30],
)
def test_kind_takes_what_pytorch_takes(kind: str, form: Any, stored: Any) -> None:
    choices = ("mean", "sum", "none") if kind == "str" else ()
    choices = ("trunc", "floor") if kind == "optional_str" else choices
    got = param_kind(kind).validate(form, choices)
    assert got == stored and type(got) is type(stored)


def test_pools_take_a_size_per_dim() -> None:
    """``F.max_pool2d(x, kernel_size=(2, 2), stride=[2, 1])``: one int, or one per dim."""
    for name in ("torch.nn.functional.max_pool2d", "torch.nn.functional.avg_pool2d"):
        node_type = catalogue().by_function(name)
        assert node_type is not None
        for param in node_type.params:
            if param.name in ("kernel_size", "stride", "padding"):
                assert param.check((2, 1)) == [2, 1]
                assert param.check(np.int64(2)) == 2
