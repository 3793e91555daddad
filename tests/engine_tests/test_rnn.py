"""The recurrent layers' gradients: gradcheck in float64 of every layer kind (with each of
num_layers, bias, bidirectional, batch_first, packed data, projections) and every cell,
the fused float32 LSTM node against the composite path, and, where PyTorch is installed,
outputs and every gradient against it over a grid of arguments (seeded initialisation)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import engine
from engine.nn import recurrent as R
from engine.ops.recurrent import mkldnn_rnn_layer

T, B, IN, H = 3, 2, 2, 2


def _t(*shape: int, seed: int) -> Any:
    data = np.random.default_rng(seed).standard_normal(shape) * 0.5
    return engine.tensor(data, dtype=engine.float64, requires_grad=True)


def _weights(mode: str, layers: int, bias: bool, bidir: bool, proj: int = 0) -> list[Any]:
    gates = {"LSTM": 4, "GRU": 3}.get(mode, 1) * H
    real = proj or H
    dirs = 2 if bidir else 1
    out = []
    for layer in range(layers):
        for _ in range(dirs):
            n_in = IN if layer == 0 else real * dirs
            shapes = [(gates, n_in), (gates, real)] + ([(gates,), (gates,)] if bias else [])
            shapes += [(proj, H)] if proj else []
            out += [_t(*s, seed=len(out) + 10) for s in shapes]
    return out


#: The two-layer bidirectional configurations are the heavy ones: run once, compiled.
CONFIGS = [
    pytest.param(
        mode, layers, bias, bidir, batch_first, marks=pytest.mark.once if layers > 1 else ()
    )
    for mode in ("RNN_TANH", "RNN_RELU", "GRU", "LSTM")
    for layers, bias, bidir, batch_first in ((1, True, False, False), (2, False, True, True))
]


@pytest.mark.parametrize(("mode", "layers", "bias", "bidir", "batch_first"), CONFIGS)
def test_layer_gradcheck(
    mode: str, layers: int, bias: bool, bidir: bool, batch_first: bool
) -> None:
    dirs = 2 if bidir else 1
    x = _t(B, T, IN, seed=1) if batch_first else _t(T, B, IN, seed=1)
    h0 = _t(layers * dirs, B, H, seed=2)
    c0 = _t(layers * dirs, B, H, seed=3)
    weights = _weights(mode, layers, bias, bidir)

    def fn(x: Any, h0: Any, c0: Any, *w: Any) -> Any:
        hx = (h0, c0) if mode == "LSTM" else h0
        return R.run(mode, x, hx, w, bias, layers, 0.0, False, bidir, batch_first)

    assert engine.autograd.gradcheck(fn, (x, h0, c0, *weights))


def test_lstm_projection_gradcheck() -> None:
    proj = 1
    x, h0, c0 = _t(T, B, IN, seed=1), _t(2, B, proj, seed=2), _t(2, B, H, seed=3)
    weights = _weights("LSTM", 1, True, True, proj)

    def fn(x: Any, h0: Any, c0: Any, *w: Any) -> Any:
        return R.run("LSTM", x, (h0, c0), w, True, 1, 0.0, False, True, False)

    assert engine.autograd.gradcheck(fn, (x, h0, c0, *weights))


@pytest.mark.parametrize("mode", ["RNN_TANH", "GRU", "LSTM"])
def test_packed_gradcheck(mode: str) -> None:
    sizes = [2, 2, 1]  # lengths 3, 2
    data, h0, c0 = _t(sum(sizes), IN, seed=1), _t(2, 2, H, seed=2), _t(2, 2, H, seed=3)
    weights = _weights(mode, 1, True, True)

    def fn(data: Any, h0: Any, c0: Any, *w: Any) -> Any:
        hx = (h0, c0) if mode == "LSTM" else h0
        return R.run(mode, data, hx, w, True, 1, 0.0, False, True, False, sizes)

    assert engine.autograd.gradcheck(fn, (data, h0, c0, *weights))


@pytest.mark.parametrize("kind", ["rnn_tanh", "rnn_relu", "lstm", "gru"])
@pytest.mark.parametrize("bias", [True, False])
def test_cell_gradcheck(kind: str, bias: bool) -> None:
    gates = {"lstm": 4, "gru": 3}.get(kind, 1) * H
    x, h, c = _t(B, IN, seed=1), _t(B, H, seed=2), _t(B, H, seed=3)
    w = [_t(gates, IN, seed=4), _t(gates, H, seed=5)]
    b = [_t(gates, seed=6), _t(gates, seed=7)] if bias else [None, None]

    def fn(x: Any, h: Any, c: Any, *ws: Any) -> Any:
        p = (ws[0], ws[1], *(ws[2:] if bias else (None, None)), None)
        if kind == "lstm":
            return R.lstm_cell(x, (h, c), p)
        return R.CELLS[kind.upper()](x, h, p)

    assert engine.autograd.gradcheck(fn, (x, h, c, *w, *[t for t in b if t is not None]))


def test_fused_lstm_node_matches_the_composite_path() -> None:
    """Float32 runs the ``MkldnnRnnLayerBackward0`` node; float64 the composite cells."""
    engine.manual_seed(0)
    m32 = engine.nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True)
    m64 = engine.nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True).double()
    m64.load_state_dict({k: v.double() for k, v in m32.state_dict().items()})
    x = engine.randn(2, 5, 3)
    results = []
    for m, dtype in ((m32, engine.float32), (m64, engine.float64)):
        xi = x.to(dtype).clone().requires_grad_()
        out, (h, c) = m(xi)
        (out.pow(2).sum() + h.sum() + c.sum()).backward()
        results.append([out, h, c, xi.grad, *(p.grad for p in m.parameters())])
    cat = results[0][0].grad_fn.next_functions[0][0]  # TransposeBackward0 -> CatBackward0
    assert cat.next_functions[0][0].name() == "MkldnnRnnLayerBackward0"
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_fused_lstm_node_without_grad_outputs() -> None:
    """Only ``c_n`` used: the node's other two outputs receive no gradient."""
    engine.manual_seed(1)
    m = engine.nn.LSTM(2, 3)
    x = engine.randn(4, 1, 2, requires_grad=True)
    _, (_, c) = m(x)
    c.sum().backward()
    m64 = engine.nn.LSTM(2, 3).double()
    m64.load_state_dict({k: v.double() for k, v in m.state_dict().items()})
    x64 = x.detach().double().requires_grad_()
    m64(x64)[1][1].sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x64.grad.numpy(), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("reverse", [False, True])
def test_fused_lstm_node_second_derivative(reverse: bool) -> None:
    """``create_graph`` through ``MkldnnRnnLayerBackward0`` (ATen's differentiable backward)
    gives gradients whose own gradient gradcheck confirms."""
    inputs = [
        _t(*s, seed=k)
        for k, s in enumerate(((3, 2, 2), (8, 2), (8, 2), (8,), (8,), (2, 2), (2, 2)))
    ]
    v = [_t(3, 2, 2, seed=20).detach(), _t(2, 2, seed=21).detach(), _t(2, 2, seed=22).detach()]

    def first(*xs: Any) -> Any:
        outs = mkldnn_rnn_layer(*xs, reverse, [], 2, 2, 1, True, False, False, True)
        total = sum((o * w).sum() for o, w in zip(outs, v, strict=True))
        return engine.autograd.grad(total, xs, create_graph=True)

    assert engine.autograd.gradcheck(first, inputs)


GRID = list(
    itertools.product(
        ("RNN", "RNN_relu", "GRU", "LSTM"), (1, 2), (True, False), (False, True), (False, True)
    )
)


def _torch_run(
    lib: Any, kind: str, layers: int, bias: bool, bidir: bool, packed: bool
) -> list[Any]:
    lib.manual_seed(0)
    kw: dict[str, Any] = {"num_layers": layers, "bias": bias, "bidirectional": bidir}
    if kind == "RNN_relu":
        m = lib.nn.RNN(3, 4, nonlinearity="relu", **kw)
    else:
        m = getattr(lib.nn, kind)(3, 4, **kw)
    x = lib.randn(4, 3, 3, requires_grad=True)
    if packed:
        inp = lib.nn.utils.rnn.pack_padded_sequence(x, [2, 4, 3], enforce_sorted=False)
    else:
        inp = x
    out, hidden = m(inp)
    if packed:
        out, _ = lib.nn.utils.rnn.pad_packed_sequence(out)
    states = hidden if isinstance(hidden, tuple) else (hidden,)
    (out.pow(2).sum() + sum(s.sum() for s in states)).backward()
    return [out, *states, x.grad, *(p.grad for p in m.parameters())]


@pytest.mark.torch
@pytest.mark.parametrize(("kind", "layers", "bias", "bidir", "packed"), GRID)
def test_layer_matches_torch(kind: str, layers: int, bias: bool, bidir: bool, packed: bool) -> None:
    torch = pytest.importorskip("torch")
    ours = _torch_run(engine, kind, layers, bias, bidir, packed)
    theirs = _torch_run(torch, kind, layers, bias, bidir, packed)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-4, atol=1e-5)
