"""Integer arguments in every form PyTorch takes: a NumPy integer where an int goes (a
dim, a size, a kernel, a count), lists, tuples and ``torch.Size`` where sizes go.  Each
case's shape is the one PyTorch 2.13 gives; with PyTorch installed, the values too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine

I = np.int64

#: name -> (the call on a library ``t`` and its input ``x``, the shape PyTorch gives)
CASES: dict[str, tuple[Callable[[Any, Any], Any], tuple[int, ...]]] = {
    "max_pool2d_tuple": (
        lambda t, x: t.nn.functional.max_pool2d(x, kernel_size=(2, 2)),
        (1, 2, 2, 2),
    ),
    "max_pool2d_numpy": (lambda t, x: t.nn.functional.max_pool2d(x, I(2)), (1, 2, 2, 2)),
    "avg_pool2d_size": (lambda t, x: t.nn.functional.avg_pool2d(x, t.Size([2, 2])), (1, 2, 2, 2)),
    "sum": (lambda t, x: x.sum(I(1)), (1, 4, 4)),
    "sum_tuple": (lambda t, x: x.sum((np.int32(1), 2)), (1, 4)),
    "view": (lambda t, x: x.view(I(32)), (32,)),
    "reshape": (lambda t, x: x.reshape(I(2), -1), (2, 16)),
    "reshape_size": (lambda t, x: x.reshape(t.Size([2, 16])), (2, 16)),
    "expand": (lambda t, x: x[0:1].expand(I(3), -1, 4, 4), (3, 2, 4, 4)),
    "broadcast_to": (lambda t, x: x[0].broadcast_to(I(3), 2, 4, 4), (3, 2, 4, 4)),
    "squeeze": (lambda t, x: x.squeeze(I(0)), (2, 4, 4)),
    "chunk": (lambda t, x: x.chunk(I(2), 1)[0], (1, 1, 4, 4)),
    "std": (lambda t, x: x.std(dim=I(1)), (1, 4, 4)),
    "var": (lambda t, x: x.var(I(1), keepdim=True), (1, 1, 4, 4)),
    "roll": (lambda t, x: x.roll(I(1), I(2)), (1, 2, 4, 4)),
    "movedim": (lambda t, x: x.movedim(I(1), I(3)), (1, 4, 4, 2)),
    "layer_norm": (lambda t, x: t.nn.functional.layer_norm(x, (I(4),)), (1, 2, 4, 4)),
    "linspace": (lambda t, x: t.linspace(0, 1, I(5)), (5,)),
    "tensor_split": (lambda t, x: x.tensor_split(I(2), dim=1)[0], (1, 1, 4, 4)),
    "index": (lambda t, x: x[I(0), :, I(1)], (2, 4)),
}


def _input(lib: Any) -> Any:
    return lib.tensor(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4) / 10)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_engine_takes_what_pytorch_takes(name: str) -> None:
    call, shape = CASES[name]
    assert tuple(call(engine, _input(engine)).shape) == shape


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_values_are_pytorchs(name: str) -> None:
    torch = pytest.importorskip("torch")
    call = CASES[name][0]
    np.testing.assert_allclose(
        call(engine, _input(engine)).numpy(),
        call(torch, _input(torch)).numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
