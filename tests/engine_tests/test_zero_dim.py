"""0-d results stay 0-d arrays in backward: NumPy turns 0-d arithmetic into
scalars (``numpy.float64``), which ``Tensor.device`` would take for CUDA data."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine

SEEN: list[Any] = []


class Capture(engine.autograd.Function):
    """Identity that records the type of the gradient data it receives."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return x.clone()

    @staticmethod
    def backward(ctx: Any, grad_out: Any) -> Any:
        SEEN.append(type(grad_out._data))
        return grad_out


OPS = {
    "mul scalar": lambda x: x * 3,
    "rmul": lambda x: 3 * x,
    "div": lambda x: x / 3,
    "rdiv": lambda x: 3 / x,
    "pow": lambda x: x**2,
    "rpow": lambda x: 2**x,
    "add": lambda x: x + 1,
    "rsub": lambda x: 1 - x,
    "neg": lambda x: -x,
    "mul self": lambda x: x * x,
    "sin": lambda x: x.sin(),
    "cos": lambda x: x.cos(),
    "exp": lambda x: x.exp(),
    "log": lambda x: x.log(),
    "sqrt": lambda x: x.sqrt(),
    "tanh": lambda x: x.tanh(),
    "sigmoid": lambda x: x.sigmoid(),
    "relu": lambda x: x.relu(),
    "abs": lambda x: x.abs(),
    "clamp": lambda x: x.clamp(0, 1),
    "sum": lambda x: x.sum(),
    "mean": lambda x: x.mean(),
    "maximum": lambda x: engine.maximum(x, engine.tensor(0.5, dtype=engine.float64)),
    "reshape": lambda x: x.reshape(1).sum(),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_backward_into_a_function_gets_a_0d_array(name: str) -> None:
    SEEN.clear()
    x = engine.tensor(1.3, dtype=engine.float64, requires_grad=True)
    OPS[name](Capture.apply(x)).backward()
    assert [t.__name__ for t in SEEN] == ["ndarray"]
    assert type(x.grad._data) is np.ndarray
    assert x.grad.device.type == "cpu"
