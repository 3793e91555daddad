"""Transposed convolutions (``F.conv_transpose1d/2d/3d``, ``nn.ConvTranspose*``): ATen's
``convolution`` with ``transposed=True``.  Float64 gradcheck and gradgradcheck hold the
formulas (the input gradient a plain convolution, the weight gradient the plain one's
with input and output gradient swapped) without PyTorch; the oracle tests compare values,
gradients and graphs with PyTorch's.  The goldens of the conformance scenario
``nn_conv_transpose_layers``, the random case ``nn_conv_transpose_init`` and
``golden/error_messages.json`` cover the rest without PyTorch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine

#: (input shape, weight shape, bias shape or None, keyword arguments)
CASES: list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...] | None, dict[str, Any]]] = [
    ((1, 4, 3, 3), (4, 3, 4, 4), (3,), {"stride": 2, "padding": 1}),
    (
        (2, 4, 3, 4),
        (4, 3, 3, 2),
        (6,),
        {
            "stride": (2, 1),
            "padding": (1, 0),
            "output_padding": (1, 0),
            "groups": 2,
            "dilation": (1, 2),
        },
    ),
    ((2, 3, 5), (3, 2, 3), None, {"output_padding": 1, "dilation": 2}),
    ((3, 4), (3, 2, 3), (2,), {"stride": 3, "padding": 1, "output_padding": 2}),
    ((1, 2, 2, 3, 2), (2, 2, 2, 2, 2), (2,), {"stride": 2}),
]


def _conv(T: Any, weight_shape: tuple[int, ...]) -> Any:
    return getattr(T.nn.functional, f"conv_transpose{len(weight_shape) - 2}d")


def _operands(T: Any, case: Any, dtype: Any) -> list[Any]:
    rng = np.random.default_rng(7)
    shapes = [s for s in case[:3] if s is not None]
    return [T.tensor(rng.standard_normal(s), dtype=dtype, requires_grad=True) for s in shapes]


@pytest.mark.once
@pytest.mark.parametrize("case", CASES, ids=[str(i) for i in range(len(CASES))])
def test_gradcheck_and_gradgradcheck_in_float64(case: Any) -> None:
    ops = _operands(engine, case, engine.float64)
    conv = _conv(engine, case[1])

    def f(*args: Any) -> Any:
        return conv(*args, **case[3])

    assert engine.autograd.gradcheck(f, tuple(ops))
    assert engine.autograd.gradgradcheck(f, tuple(ops))


def test_the_module_takes_output_size() -> None:
    layer = engine.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    x = engine.ones(1, 2, 4, 4)
    assert layer(x).shape == (1, 3, 7, 7)
    assert layer(x, output_size=[8, 8]).shape == (1, 3, 8, 8)
    assert layer(x[0], output_size=[3, 8, 7]).shape == (3, 8, 7)


def _run(T: Any, case: Any, dtype: Any) -> dict[str, Any]:
    ops = _operands(T, case, dtype)
    y = _conv(T, case[1])(*ops, **case[3])
    weights = T.linspace(-1, 1, y.numel(), dtype=dtype).reshape(y.shape)
    (y * weights).sum().backward()
    fn = y.grad_fn
    return {
        "y": y.detach().numpy(),
        "grads": [t.grad.numpy() for t in ops],
        "graph": [type(fn).__name__, [type(f).__name__ for f, _ in fn.next_functions]],
    }


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[str(i) for i in range(len(CASES))])
def test_values_gradients_and_graph_are_pytorchs(case: Any, dtype: str) -> None:
    torch = pytest.importorskip("torch")
    ours = _run(engine, case, getattr(engine, dtype))
    theirs = _run(torch, case, getattr(torch, dtype))
    tol = 1e-5 if dtype == "float32" else 1e-12
    assert ours["graph"] == theirs["graph"]
    assert ours["y"].dtype == theirs["y"].dtype
    np.testing.assert_allclose(ours["y"], theirs["y"], rtol=tol, atol=tol)
    for a, b in zip(ours["grads"], theirs["grads"], strict=True):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


@pytest.mark.torch
def test_double_backward_graph_is_pytorchs() -> None:
    torch = pytest.importorskip("torch")

    def names(T: Any) -> list[Any]:
        x = T.ones(1, 2, 3, 3, dtype=T.float64, requires_grad=True)
        w = T.ones(2, 2, 2, 2, dtype=T.float64, requires_grad=True)
        y = T.nn.functional.conv_transpose2d(x, w, stride=2, output_padding=1)
        (gx,) = T.autograd.grad(y.pow(2).sum(), x, create_graph=True)
        gx.sum().backward()
        return [type(gx.grad_fn).__name__, x.grad.tolist(), w.grad.tolist()]

    assert names(engine) == names(torch)
