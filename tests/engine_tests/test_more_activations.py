"""The activations batch (SELU, CELU, PReLU, Mish, hardswish, hardsigmoid, GLU, the
shrinks, threshold, softsign, tanhshrink, softmin, Softmax2d) against PyTorch's facts:
values, dtypes, ``grad_fn`` chains and edges, gradients, errors and module reprs.

Each idiom runs under the engine and is compared with a golden copy recorded from
PyTorch 2.13 (always; float32 within 1e-6 relative, float64 within 1e-12), and under
PyTorch itself when it is installed; gradcheck in float64 checks every analytic
gradient against finite differences.  ``python -m tests.engine_tests.test_more_activations``
re-records the golden copy.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import engine

GOLDEN = Path(__file__).parent / "golden" / "more_activations.json"


def _edges(fn: Any) -> list[Any]:
    return [[None if n is None else type(n).__name__, nr] for n, nr in fn.next_functions]


def _facts_of(T: Any, r: Any, wrt: list[Any]) -> list[Any]:
    """Node, its edges, dtype, values and the gradients of ``sum(r * weights)``."""
    fn = r.grad_fn
    facts: list[Any] = [
        None if fn is None else type(fn).__name__,
        None if fn is None else _edges(fn),
        str(r.dtype),
        list(r.shape),
        r.tolist(),
    ]
    if r.requires_grad:
        weights = T.arange(1.0, r.numel() + 1.0, dtype=r.dtype).reshape(r.shape)
        grads = T.autograd.grad((r * weights).sum(), wrt, allow_unused=True)
        facts.append([None if g is None else g.tolist() for g in grads])
    return facts


def _error(call: Callable[[], Any]) -> list[str] | None:
    try:
        call()
    except Exception as exc:
        return [type(exc).__name__, str(exc)]
    return None


def _inputs(T: Any, dtype: Any) -> tuple[Any, Any]:
    values = [[0.3, -0.5, 0.8, -3.5], [1.5, -2.0, 0.25, 4.0], [-0.1, 2.5, -1.2, 3.0]]
    x = T.tensor(values, dtype=dtype, requires_grad=True)
    w = T.tensor([0.2, -0.3, 0.4, 0.1], dtype=dtype, requires_grad=True)
    return x, w


def _functional(T: Any, dtype: Any) -> list[Any]:
    F = T.nn.functional
    x, w = _inputs(T, dtype)
    x4 = (x.reshape(1, 3, 2, 2) * 1).detach().requires_grad_(True)
    calls: list[tuple[Callable[[], Any], list[Any]]] = [
        (lambda: F.selu(x), [x]),
        (lambda: T.selu(x), [x]),
        (lambda: F.celu(x), [x]),
        (lambda: F.celu(x, 0.7), [x]),
        (lambda: T.celu(x, alpha=2.0), [x]),
        (lambda: F.selu(x * 1, inplace=True), [x]),
        (lambda: F.celu(x * 1, 0.7, inplace=True), [x]),
        (lambda: T.selu_(x * 1), [x]),
        (lambda: F.mish(x), [x]),
        (lambda: F.hardswish(x), [x]),
        (lambda: F.hardsigmoid(x), [x]),
        (lambda: F.glu(x), [x]),
        (lambda: F.glu(x4, 2), [x4]),
        (lambda: F.softsign(x), [x]),
        (lambda: F.hardshrink(x), [x]),
        (lambda: x.hardshrink(1.0), [x]),
        (lambda: T.hardshrink(x, 0.3), [x]),
        (lambda: F.softshrink(x), [x]),
        (lambda: F.softshrink(x, 1.0), [x]),
        (lambda: F.tanhshrink(x), [x]),
        (lambda: F.threshold(x, 0.25, -7.0), [x]),
        (lambda: T.threshold(x, 0.1, 20), [x]),
        (lambda: F.threshold(x * 1, 0.25, -7.0, inplace=True), [x]),
        (lambda: F.prelu(x, w), [x, w]),
        (lambda: F.prelu(x4, w[:3]), [x4, w]),
        (lambda: F.prelu(x, w[:1]), [x, w]),
        (lambda: x.prelu(w[1:2]), [x, w]),
        (lambda: T.prelu(x[0], w[:1]), [x, w]),
        (lambda: F.prelu(x[0], w[0]), [x, w]),
        (lambda: F.softmin(x, 1), [x]),
        (lambda: F.softmin(x, 0, dtype=T.float64), [x]),
        (lambda: F.relu_(x * 1), [x]),
    ]
    return [_facts_of(T, call(), wrt) for call, wrt in calls]


def _integers(T: Any) -> list[Any]:
    F = T.nn.functional
    i = T.tensor([[1, -2, 3], [0, 5, -6]])
    return [
        _facts_of(T, F.threshold(i, 1, 7), []),
        _facts_of(T, F.softsign(i), []),
        _facts_of(T, F.tanhshrink(i), []),
    ]


def _modules(T: Any) -> list[Any]:
    nn = T.nn
    T.manual_seed(0)
    layers = [
        nn.PReLU(),
        nn.PReLU(3, init=0.1),
        nn.SELU(),
        nn.SELU(True),
        nn.CELU(),
        nn.CELU(0.5, inplace=True),
        nn.Mish(),
        nn.Mish(inplace=True),
        nn.Hardswish(),
        nn.Hardswish(inplace=True),
        nn.Hardsigmoid(inplace=True),
        nn.GLU(),
        nn.GLU(0),
        nn.Hardshrink(),
        nn.Hardshrink(0.25),
        nn.Softshrink(1),
        nn.Threshold(0.1, 20),
        nn.Threshold(0.5, -1.0, inplace=True),
        nn.Softsign(),
        nn.Tanhshrink(),
        nn.Softmin(1),
        nn.Softmin(),
        nn.Softmax2d(),
    ]
    x = T.tensor([[[0.3, -0.5], [0.8, 1.5]], [[-2.0, 0.25], [4.0, -0.1]]]).reshape(1, 2, 2, 2)
    facts: list[Any] = []
    for layer in layers:
        params = [[n, p.tolist(), p.requires_grad] for n, p in layer.named_parameters()]
        xin = x.reshape(2, 4) if isinstance(layer, (nn.Softmin, nn.GLU)) else x
        if isinstance(layer, nn.PReLU) and layer.num_parameters == 3:
            xin = T.cat([x, x[:, :1]], 1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = layer(xin.clone())
        facts.append([repr(layer), params, out.tolist()])
    return facts


def _errors(T: Any) -> list[Any]:
    F = T.nn.functional
    x = T.tensor([[0.3, -0.5, 0.8], [1.5, -2.0, 0.25]])
    i = T.tensor([[1, -2, 3], [0, 5, -6]])
    calls = [
        lambda: F.glu(x),
        lambda: F.glu(T.tensor(1.0)),
        lambda: F.glu(x, 5),
        lambda: F.prelu(x, T.ones(2)),
        lambda: F.prelu(x, T.ones(3, dtype=T.float64)),
        lambda: F.prelu(x, T.ones(3, 1)),
        lambda: F.prelu(T.tensor(1.0), T.ones(3)),
        lambda: F.prelu(i, T.ones(1, dtype=T.int64)),
        lambda: F.celu(x, 0.0),
        lambda: F.selu(i),
        lambda: F.celu(i),
        lambda: F.mish(i),
        lambda: F.hardswish(i),
        lambda: F.hardsigmoid(i),
        lambda: F.hardshrink(i),
        lambda: F.softshrink(i),
        lambda: F.softshrink(x, -1.0),
        lambda: F.softshrink(x.double(), -0.5),
        lambda: F.threshold(x > 0, 1, 2),
        lambda: T.nn.Softmax2d()(T.randn(3)),
        lambda: T.autograd.grad(
            T.autograd.grad(F.hardsigmoid(x.requires_grad_()).sum(), x, create_graph=True)[0].sum(),
            x,
        ),
    ]
    return [_error(call) for call in calls]


def _second_order(T: Any) -> list[Any]:
    """The first-order gradient's node and edges under ``create_graph``."""
    F = T.nn.functional
    x, w = _inputs(T, T.float64)
    calls = [
        lambda: F.selu(x),
        lambda: F.celu(x, 0.7),
        lambda: F.mish(x),
        lambda: F.hardswish(x),
        lambda: F.glu(x),
        lambda: F.hardshrink(x),
        lambda: F.softshrink(x),
        lambda: F.threshold(x, 0.25, -7.0),
        lambda: F.softsign(x),
        lambda: F.tanhshrink(x),
    ]
    out = []
    for call in calls:
        (g,) = T.autograd.grad(call().sum(), x, create_graph=True)
        out.append([type(g.grad_fn).__name__, _edges(g.grad_fn), g.tolist()])
    gx, gw = T.autograd.grad(F.prelu(x, w).sum(), [x, w], create_graph=True)
    out.append([type(gx.grad_fn).__name__, _edges(gx.grad_fn), gx.tolist(), gw.tolist()])
    return out


def _prelu_weight_gradient_node(T: Any) -> list[Any]:
    x, w = _inputs(T, T.float64)
    (gw,) = T.autograd.grad(T.nn.functional.prelu(x, w).sum(), [w], create_graph=True)
    return [type(gw.grad_fn).__name__, _edges(gw.grad_fn)]


FACTS: dict[str, Callable[[Any], list[Any]]] = {
    "functional_float32": lambda T: _functional(T, T.float32),
    "functional_float64": lambda T: _functional(T, T.float64),
    "integers": _integers,
    "modules": _modules,
    "errors": _errors,
    "second_order": _second_order,
}
#: Facts where the engine is not PyTorch yet, each a strict xfail with its reason.
KNOWN_DIFFERENCES: dict[str, Callable[[Any], list[Any]]] = {
    "prelu_weight_gradient_node": _prelu_weight_gradient_node,
}


def _close(a: Any, b: Any, rel: float) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, rel) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=rel, abs_tol=rel)
    return bool(a == b)


def _tolerance(name: str) -> float:
    return 1e-12 if name in ("functional_float64", "second_order") else 1e-6


def _plain(v: Any) -> Any:
    return json.loads(json.dumps(v))


@pytest.mark.parametrize("name", FACTS)
def test_engine_matches_the_golden(name: str) -> None:
    expected = json.loads(GOLDEN.read_text("utf-8"))[name]
    actual = _plain(FACTS[name](engine))
    assert _close(actual, expected, _tolerance(name)), f"{name}:\n{actual}\n!=\n{expected}"


@pytest.mark.torch
@pytest.mark.parametrize("name", FACTS)
def test_golden_is_what_pytorch_says(name: str) -> None:
    torch = pytest.importorskip("torch")
    expected = json.loads(GOLDEN.read_text("utf-8"))[name]
    assert _close(_plain(FACTS[name](torch)), expected, _tolerance(name))


@pytest.mark.xfail(
    strict=True,
    reason="under create_graph the engine's view backward (shape.py _reshape_back) is "
    "reshape_copy (ReshapeCopyBackward0); ATen's reshape of a contiguous gradient is a view",
)
@pytest.mark.parametrize("name", KNOWN_DIFFERENCES)
def test_known_difference(name: str) -> None:
    expected = json.loads(GOLDEN.read_text("utf-8"))[name]
    assert _plain(KNOWN_DIFFERENCES[name](engine)) == expected


GRADCHECKED: dict[str, Callable[..., Any]] = {
    "selu": lambda x, w: engine.nn.functional.selu(x),
    "celu": lambda x, w: engine.nn.functional.celu(x, 0.7),
    "celu_": lambda x, w: engine.nn.functional.celu(x * 1, 0.7, inplace=True),
    "selu_": lambda x, w: engine.selu_(x * 1),
    "mish": lambda x, w: engine.nn.functional.mish(x),
    "hardswish": lambda x, w: engine.nn.functional.hardswish(x),
    "hardsigmoid": lambda x, w: engine.nn.functional.hardsigmoid(x),
    "glu": lambda x, w: engine.nn.functional.glu(x, 0),
    "softsign": lambda x, w: engine.nn.functional.softsign(x),
    "hardshrink": lambda x, w: engine.nn.functional.hardshrink(x, 0.2),
    "softshrink": lambda x, w: engine.nn.functional.softshrink(x, 0.2),
    "tanhshrink": lambda x, w: engine.nn.functional.tanhshrink(x),
    "threshold": lambda x, w: engine.nn.functional.threshold(x, 0.05, 3.0),
    "threshold_": lambda x, w: engine.nn.functional.threshold(x * 1, 0.05, 3.0, inplace=True),
    "prelu": lambda x, w: engine.nn.functional.prelu(x.reshape(1, 2, 3), w),
    "softmin": lambda x, w: engine.nn.functional.softmin(x, 1),
}


def _gradcheck_inputs() -> tuple[Any, Any]:
    rng = np.random.default_rng(3)
    x = rng.permutation(6).reshape(2, 3) / 6 - 0.4 + 0.01 * rng.random((2, 3))
    return (
        engine.tensor(x * 4, dtype=engine.float64, requires_grad=True),
        engine.tensor([0.3, -0.2], dtype=engine.float64, requires_grad=True),
    )


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name: str) -> None:
    assert engine.autograd.gradcheck(GRADCHECKED[name], _gradcheck_inputs())


@pytest.mark.parametrize("name", [n for n in GRADCHECKED if n != "hardsigmoid"])
def test_gradgradcheck(name: str) -> None:
    assert engine.autograd.gradgradcheck(GRADCHECKED[name], _gradcheck_inputs())


def test_prelu_weight_is_a_parameter_drawn_like_pytorchs() -> None:
    layer = engine.nn.PReLU(4, init=0.5)
    assert isinstance(layer.weight, engine.nn.Parameter)
    assert layer.weight.tolist() == [0.5] * 4
    assert [n for n, _ in layer.named_parameters()] == ["weight"]


def test_inplace_layers_return_their_input() -> None:
    for layer in (
        engine.nn.SELU(True),
        engine.nn.CELU(inplace=True),
        engine.nn.Threshold(0.0, 1.0, True),
    ):
        x = engine.tensor([0.5, -1.0])
        assert layer(x) is x


def write_golden() -> None:
    """``python -m tests.engine_tests.test_more_activations``: re-record from PyTorch."""
    import torch

    data = {name: _plain(fn(torch)) for name, fn in {**FACTS, **KNOWN_DIFFERENCES}.items()}
    GOLDEN.write_text(json.dumps(data, indent=1) + "\n", "utf-8")


if __name__ == "__main__":
    write_golden()
