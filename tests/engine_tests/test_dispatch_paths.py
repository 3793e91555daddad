"""``apply_op``, the one path every op takes, against PyTorch on the calls a model makes
most (one, two or more same-dtype CPU float inputs, with or without parameters; a view
of one tensor) and on those PyTorch's promotion rules decide: the same values, dtypes,
nodes, edges, gradients, saved values and version counters."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine
from engine.ops.shape import EXPAND

torch = pytest.importorskip("torch")

Case = Callable[[Any, dict[str, Any]], Any]


def _inputs(T: Any) -> dict[str, Any]:
    """The same data for both libraries: float32 leaves, constants and odd dtypes."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((2, 3)).astype(np.float32)
    row = rng.standard_normal(3).astype(np.float32)
    w = rng.standard_normal((3, 2)).astype(np.float32)
    return {
        "x": T.tensor(a, requires_grad=True),
        "y": T.tensor(b, requires_grad=True),
        "c": T.tensor(b),
        "row": T.tensor(row, requires_grad=True),
        "w": T.tensor(w, requires_grad=True),
        "xt": T.tensor(b.T.copy()).t(),  # non-contiguous (2, 3)
        "s": T.tensor(np.float32(1.25), requires_grad=True),
        "x64": T.tensor(a.astype(np.float64), requires_grad=True),
        "h16": T.tensor(a.astype(np.float16)),
        "i": T.tensor(np.arange(6).reshape(2, 3)),
    }


#: Calls whose inputs share one dtype: no promotion to decide.
COMMON: dict[str, Case] = {
    "mul scalar": lambda T, v: v["x"] * 1.5,
    "rmul int": lambda T, v: 2 * v["x"],
    "add tensors": lambda T, v: v["x"] + v["y"],
    "add constant": lambda T, v: v["x"] + v["c"],
    "constant first": lambda T, v: v["c"] * v["x"],
    "sub int": lambda T, v: v["x"] - 3,
    "div": lambda T, v: v["x"] / v["y"],
    "div by zero": lambda T, v: v["x"] / 0.0,
    "tanh": lambda T, v: T.tanh(v["x"]),
    "exp": lambda T, v: T.exp(v["x"] * 30),
    "log of negatives": lambda T, v: T.log(v["x"]),
    "sigmoid": lambda T, v: T.sigmoid(v["x"]),
    "relu": lambda T, v: T.relu(v["x"]),
    "neg": lambda T, v: -v["x"],
    "broadcast": lambda T, v: v["x"] + v["row"],
    "0-d times tensor": lambda T, v: v["s"] * v["x"],
    "0-d result": lambda T, v: T.tanh(v["s"] * 2.0),
    "non-contiguous": lambda T, v: v["x"] * v["xt"],
    "chain": lambda T, v: T.tanh(v["x"] * 2.0 + v["y"]) - 1.0,
    "same input twice": lambda T, v: v["x"] * v["x"],
    "float64": lambda T, v: T.tanh(v["x64"] * 2.5),
    "float16 without grad": lambda T, v: v["h16"] + v["h16"],
    "no grad needed": lambda T, v: v["c"] * 3.0,
    "matmul": lambda T, v: v["x"] @ v["w"],
    "t of a leaf": lambda T, v: v["x"].t(),
    "t of a result": lambda T, v: (v["x"] * 2.0).t() * 1.5,
    "t of a view": lambda T, v: v["xt"].t() * v["w"],
    "t twice": lambda T, v: v["x"].t().t() + v["y"],
    "t of a constant": lambda T, v: v["c"].t(),
    "t of float64": lambda T, v: v["x64"].t() * 2.0,
    "alpha": lambda T, v: T.add(v["x"], v["y"], alpha=2),
    "log_softmax's dim": lambda T, v: T.log_softmax(v["x"] * 3.0, 1),
    "addmm, three inputs": lambda T, v: T.addmm(v["row"], v["x"].t(), v["x"]),
    "linear": lambda T, v: T.nn.functional.linear(v["x"].t(), v["w"], v["row"]),
    "clamp, three tensors": lambda T, v: T.clamp(v["x"], min=v["c"], max=v["y"]),
    "addcmul with a constant": lambda T, v: T.addcmul(v["x"], v["c"], v["y"], value=0.5),
    "cross_entropy": lambda T, v: T.nn.functional.cross_entropy(v["x"], T.tensor(np.array([2, 0]))),
}

#: Calls that promotion decides: mixed dtypes, integers, bools.
PROMOTED: dict[str, Case] = {
    "mixed dtypes": lambda T, v: v["x"] * v["x64"],
    "int tensor": lambda T, v: v["i"] * 2,
    "int tensor and float": lambda T, v: v["i"] * 1.5,
    "float16 and float32": lambda T, v: v["h16"] * v["x"],
    "bool scalar": lambda T, v: v["x"] * True,
    "three inputs, one float64": lambda T, v: T.addcmul(v["x64"], v["x"], v["y"]),
    "int tensor into float": lambda T, v: v["x"] + v["i"],
}


def _facts(out: Any) -> dict[str, Any]:
    """What PyTorch shows of a result: dtype, shape, node, edges and values."""
    fn = out.grad_fn
    return {
        "dtype": str(out.dtype),
        "shape": tuple(out.shape),
        "requires_grad": out.requires_grad,
        "grad_fn": None if fn is None else fn.name(),
        "edges": None
        if fn is None
        else [(None if f is None else f.name(), nr) for f, nr in fn.next_functions],
        "values": out.detach().to(dtype=out.dtype).numpy().astype(np.float64),
    }


def _compare(got: dict[str, Any], want: dict[str, Any]) -> None:
    values, expected = got.pop("values"), want.pop("values")
    assert got == want
    np.testing.assert_allclose(values, expected, rtol=2e-6, atol=1e-7, equal_nan=True)


def _grads(T: Any, v: dict[str, Any], out: Any) -> dict[str, Any]:
    if not out.requires_grad:
        return {}
    out.sum().backward()
    return {k: t.grad.numpy() for k, t in v.items() if t.requires_grad and t.grad is not None}


@pytest.mark.parametrize("name", sorted({**COMMON, **PROMOTED}))
def test_matches_pytorch(name: str) -> None:
    case = {**COMMON, **PROMOTED}[name]
    v_e, v_t = _inputs(engine), _inputs(torch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy must not warn where PyTorch is silent
        out_e, out_t = case(engine, v_e), case(torch, v_t)
    _compare(_facts(out_e), _facts(out_t))
    g_e, g_t = _grads(engine, v_e, out_e), _grads(torch, v_t, out_t)
    assert sorted(g_e) == sorted(g_t)
    for k in g_e:
        np.testing.assert_allclose(g_e[k], g_t[k], rtol=2e-6, atol=1e-6)


def test_saved_output_keeps_its_version_check() -> None:
    """A result saved by its node (tanh) and changed in place: PyTorch's error, both libraries."""
    messages = []
    for T in (engine, torch):
        x = T.tensor([0.5, -1.0], requires_grad=True)
        y = T.tanh(x * 2.0)
        y.add_(1)
        assert y._version == 1
        with pytest.raises(RuntimeError) as err:
            y.sum().backward()
        messages.append(str(err.value))
    assert messages[0] == messages[1]


def test_saved_input_version_and_no_grad() -> None:
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    c = engine.tensor([3.0, 4.0])
    y = x * c  # saves c for x's gradient
    c.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    with engine.no_grad():
        z = x * 2.0
    assert z.grad_fn is None and not z.requires_grad


def test_inference_mode_marks_fast_results() -> None:
    x = engine.tensor([1.0, 2.0])
    with engine.inference_mode():
        y = x * 2.0
    assert y.is_inference() and not x.is_inference()
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved"):
        engine.tanh(y * engine.tensor([1.0, 1.0], requires_grad=True))


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
def test_anomaly_mode_records_the_forward_trace() -> None:
    x = engine.tensor([1.0], requires_grad=True)
    with engine.autograd.detect_anomaly():
        y = x * 2.0
    assert y.grad_fn.metadata.get("traceback_")


def test_layouts_are_shared() -> None:
    """Nodes of one shape share their layout tuples (which nothing may mutate)."""
    x = engine.tensor(np.ones((4, 5), np.float32), requires_grad=True)
    a, b = x * 2.0, x * 3.0
    assert a.grad_fn.shapes is b.grad_fn.shapes
    assert a.grad_fn._out_meta is b.grad_fn._out_meta
    assert type(a.grad_fn._out_meta) is tuple and type(a.grad_fn.shapes) is tuple
    w, v = (engine.tensor(np.ones((4, 5), np.float32), requires_grad=True) for _ in range(2))
    acc_w, acc_v = (t.grad_fn.next_functions[0][0] for t in (w * 2.0, v * 2.0))
    assert acc_w is not acc_v and acc_w._out_meta is acc_v._out_meta


@pytest.mark.parametrize(
    ("shape", "size"),
    [
        ((), (3,)),
        ((), ()),
        ((3, 1), (3, 5)),
        ((3, 1), (3, 1)),
        ((1, 4), (2, 5, 4)),
        ((2, 1, 3), (4, 2, 5, 3)),
        ((1, 1), (0, 1)),
        ((0,), (2, 0)),
        ((2, 3), (2, 3)),
    ],
)
@pytest.mark.parametrize("layout", ["owner", "view", "transposed"])
def test_expand_is_numpys_broadcast_view(
    shape: tuple[int, ...], size: tuple[int, ...], layout: str
) -> None:
    """``expand``'s forward gives ``np.broadcast_to``'s view: values, strides, flags and
    whether its base is the input or None (what stealing and in-place adds in backward
    read); through the public API, PyTorch's values."""
    n = int(np.prod(shape))
    data = np.arange(2 * n, dtype=np.float32)
    if layout == "owner":
        a = data[:n].reshape(shape).copy()
    elif layout == "view":
        a = data[:n].reshape(shape)
    elif len(shape) == 2:
        a = data[:n].reshape(shape[::-1]).T
    else:
        pytest.skip("a transposed layout needs two dims")
    want = np.broadcast_to(a, size)
    got = EXPAND.forward(np, a, size=size)
    assert got.shape == want.shape and got.strides == want.strides and got.dtype == want.dtype
    assert np.array_equal(got, want)
    for flag in ("C_CONTIGUOUS", "F_CONTIGUOUS", "WRITEABLE", "OWNDATA"):
        assert got.flags[flag] == want.flags[flag], flag
    assert (got.base is a) == (want.base is a) and (got.base is None) == (want.base is None)
    mine = engine.tensor(a).expand(size)
    assert np.array_equal(mine.detach().numpy(), torch.tensor(a).expand(size).numpy())
