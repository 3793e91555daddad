"""What learners' programs index and count with, checked against PyTorch's facts:
Python ranges, lists and tuples as indices (read, assigned, their graphs and warnings),
values with extra leading ones, ``histogram``/``histc``/``bincount``, ``arange`` and
``range`` bit for bit, fast ``gradcheck``, the legacy loss arguments and ``Generator``
draws.  Facts are recorded from PyTorch into ``golden/index_gaps.json``
(``python -m tests.engine_tests.test_index_gaps`` re-records them)."""

from __future__ import annotations

import hashlib
import json
import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import engine
from engine.autograd.gradcheck import GradcheckError

GOLDEN = Path(__file__).parent / "golden" / "index_gaps.json"


def _node(t: Any) -> str | None:
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def _tree(fn: Any) -> Any:
    """A node's name and its inputs' trees (None for an absent edge)."""
    if fn is None:
        return None
    return [type(fn).__name__, [_tree(n) for n, _ in fn.next_functions]]


def _bits(t: Any) -> str:
    """A digest of the tensor's exact bytes: equal only where every bit is."""
    return hashlib.sha256(np.ascontiguousarray(t.detach().numpy()).tobytes()).hexdigest()[:16]


def _warned(fn: Callable[[], Any]) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in caught]


def _error(fn: Callable[[], Any]) -> list[str]:
    try:
        fn()
    except Exception as exc:  # the type is one of the facts
        return [type(exc).__name__, str(exc).split("\n")[0]]
    return ["no error"]


def _sequences(T: Any) -> list[Any]:
    x = T.arange(12.0).reshape(3, 4).requires_grad_()
    y = x[range(3), [0, 3, 1]]
    (y * T.tensor([1.0, 2.0, 3.0])).sum().backward()
    facts: list[Any] = [y.tolist(), _node(y), x.grad.tolist()]
    z, said = _warned(lambda: x.detach()[[[0, 1], [2, 0]]])
    facts += [z.tolist(), len(said), said[0][:40]]
    facts += [x.detach()[(0, 1)].item(), x.detach()[[0, 1]].shape == (2, 4)]
    facts += [x.detach()[[True, False, True]].tolist(), x.detach()[[0.5, 1]].tolist()]
    facts += [list(x.detach()[[]].shape), x.detach()[:, range(0, 4, 2)].tolist()]
    facts.append(_error(lambda: x[[0, 5]]))
    facts.append(_error(lambda: x[[1, 2], [0, 1, 2]]))
    return facts


def _assignment(T: Any) -> list[Any]:
    v = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
    t = T.zeros(2, 3)
    t[0] = v.reshape(1, 1, 3)
    u = T.zeros(3, 3)
    u[[0, 1]] = v.reshape(1, 1, 3)
    w = T.zeros(2, 3)
    w[:] = v
    s = T.ones(3, 3, requires_grad=True) * 1
    s[[0, 2], 1:] = T.tensor([[5.0, 6.0]])
    (t.sum() + u.sum() + w.sum() + s.sum()).backward()
    facts: list[Any] = [t.tolist(), u.tolist(), s.tolist(), v.grad.tolist()]
    facts += [_tree(t.grad_fn), _tree(u.grad_fn), _tree(w.grad_fn), _tree(s.grad_fn)]
    facts += [t._version, u._version, w._version]
    r = T.zeros(3, 3)
    r[range(3), range(3)] = 1.0
    facts += [r.tolist(), r._version]
    facts.append(_error(lambda: T.zeros(2, 3).__setitem__(0, T.ones(2, 3))))
    facts.append(_error(lambda: T.zeros(3, 3).__setitem__([0, 1], T.ones(3, 3))))
    return facts


def _histograms(T: Any) -> list[Any]:
    g = T.Generator().manual_seed(1)
    r = T.randn(500, generator=g)
    x = T.arange(0, 1, 0.01)
    h = T.histogram(r, bins=9)
    facts: list[Any] = [h.hist.tolist(), _bits(h.bin_edges), type(h).__name__]
    facts += [T.histogram(x, bins=7, range=(0.1, 0.8)).hist.tolist()]
    facts += [T.histogram(r, T.linspace(-2, 2, 6)).hist.tolist()]
    d = T.histogram(r, 5, range=(-1.0, 2.0), weight=r.abs(), density=True)
    facts += [_bits(d.hist), T.histc(r, bins=7).tolist(), T.histc(x, 10).tolist()]
    facts += [T.histc(T.tensor([3.0, 3.0]), bins=3).tolist(), str(T.histc(r).dtype)]
    facts += [T.bincount(T.tensor([0, 1, 1, 3])).tolist()]
    for w in (T.tensor([1.0, 2.0]), T.tensor([1, 2]), T.tensor([1.0, 2.0], dtype=T.float64)):
        facts.append(str(T.bincount(T.tensor([0, 2]), weights=w).dtype))
    facts += [str(T.bincount(T.tensor([], dtype=T.int64), weights=T.tensor([])).dtype)]
    facts.append(_error(lambda: T.bincount(T.tensor([1.0]))))
    facts.append(_error(lambda: T.histc(T.tensor([1, 2]))))
    facts.append(_error(lambda: T.histogram(r, 3, range=(3.0, 1.0))))
    return facts


def _ranges(T: Any) -> list[Any]:
    facts: list[Any] = []
    for args in ((-8, 8, 0.1), (0, 1, 0.01), (10.0, 0, -0.3), (0, 40000, 0.37)):
        for dt in (T.float32, T.float64):
            a = T.arange(*args, dtype=dt)
            facts += [len(a), _bits(a)]
    facts.append(T.arange(-8, 8, 0.1)[80].item())
    facts.append(T.arange(0, 10, 1.5, dtype=T.int64).tolist())
    b, said = _warned(lambda: T.range(-8, 8, 0.1))
    c, _ = _warned(lambda: T.range(0, 3))
    facts += [len(b), _bits(b), said, str(c.dtype)]
    facts += [_bits(T.linspace(-8, 8, 161)), _bits(T.linspace(0.1, 0.9, 33, dtype=T.float64))]
    return facts


def _fast_gradcheck(T: Any) -> list[Any]:
    x = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)

    class Wrong(T.autograd.Function):
        @staticmethod
        def forward(ctx: Any, t: Any) -> Any:
            return t * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 3

    ok = T.autograd.gradcheck(lambda t: (t * t).sin(), (x,), fast_mode=True)
    quiet = T.autograd.gradcheck(Wrong.apply, (x,), fast_mode=True, raise_exception=False)
    facts: list[Any] = [
        ok,
        quiet,
        _error(lambda: T.autograd.gradcheck(Wrong.apply, (x,), fast_mode=True)),
    ]
    T.manual_seed(0)
    facts.append(T.autograd.gradgradcheck(lambda t: (t**3).sum(), (x,), fast_mode=True))
    facts.append(T.rand(2).tolist())
    return facts


def _legacy_losses(T: Any) -> list[Any]:
    m, said = _warned(lambda: T.nn.MSELoss(size_average=False))
    facts: list[Any] = [m.reduction, said]
    p = T.tensor([[0.5, 0.2], [0.1, 0.3]])
    t = T.tensor([1, 0])
    loss, said = _warned(lambda: T.nn.functional.cross_entropy(p, t, reduce=False))
    facts += [loss.tolist(), said]
    loss, said = _warned(lambda: T.nn.functional.nll_loss(p, t, size_average=False))
    facts += [loss.item(), said]
    return facts


def _generators(T: Any) -> list[Any]:
    g = T.Generator().manual_seed(11)
    probs = T.rand(3, 30, generator=g)
    facts: list[Any] = [g.initial_seed()]
    facts += [T.multinomial(probs, 10, generator=g).tolist()]
    facts += [T.multinomial(probs, 40, replacement=True, generator=g).tolist()]
    facts += [T.randperm(20, generator=g).tolist(), T.randint(0, 9, (6,), generator=g).tolist()]
    state = g.get_state()
    first = T.randn(5, generator=g)
    g.set_state(state)
    facts += [_bits(first), _bits(T.randn(5, generator=g))]
    return facts


FACTS: dict[str, Callable[[Any], list[Any]]] = {
    "sequences": _sequences,
    "assignment": _assignment,
    "histograms": _histograms,
    "ranges": _ranges,
    "fast_gradcheck": _fast_gradcheck,
    "legacy_losses": _legacy_losses,
    "generators": _generators,
}


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-30)
    return a == b


def _plain(v: Any) -> Any:
    return json.loads(json.dumps(v))


@pytest.mark.parametrize("name", FACTS)
def test_engine_matches_the_golden(name: str) -> None:
    expected = json.loads(GOLDEN.read_text("utf-8"))[name]
    actual = _plain(FACTS[name](engine))
    assert _close(actual, expected), f"{name}:\n{actual}\n!=\n{expected}"


@pytest.mark.torch
@pytest.mark.parametrize("name", FACTS)
def test_golden_is_what_pytorch_says(name: str) -> None:
    torch = pytest.importorskip("torch")
    expected = json.loads(GOLDEN.read_text("utf-8"))[name]
    assert _close(_plain(FACTS[name](torch)), expected)


@pytest.mark.torch
@pytest.mark.parametrize(
    "args",
    [
        (-8, 8, 0.1),
        (0, 1, 0.001),
        (-3.7, 12.2, 0.013),
        (5, -5, -0.07),
        (0, 70000, 0.9),
        (1e6, 1e6 + 7, 0.3),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_arange_is_pytorchs_bit_for_bit(args: tuple[float, ...], dtype: str) -> None:
    torch = pytest.importorskip("torch")
    expected = torch.arange(*args, dtype=getattr(torch, dtype)).numpy()
    actual = np.asarray(engine.arange(*args, dtype=getattr(engine, dtype)).numpy())
    assert actual.shape == expected.shape
    assert (actual.view(np.uint8) == expected.view(np.uint8)).all()


@pytest.mark.torch
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("bins", [3, 10, 64])
def test_histograms_place_every_element_as_pytorch(seed: int, bins: int) -> None:
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(seed).standard_normal(2000).astype(np.float32) * 3
    data[:50] = np.round(data[:50])  # values on bin edges
    t, e = torch.from_numpy(data), engine.tensor(data)
    assert engine.histc(e, bins).tolist() == torch.histc(t, bins).tolist()
    assert engine.histc(e, bins, -2, 2).tolist() == torch.histc(t, bins, -2, 2).tolist()
    got, want = engine.histogram(e, bins), torch.histogram(t, bins)
    assert got.hist.tolist() == want.hist.tolist()
    assert got.bin_edges.tolist() == want.bin_edges.tolist()
    edges = np.sort(data[::97]).copy()
    assert (
        engine.histogram(e, engine.tensor(edges)).hist.tolist()
        == torch.histogram(t, torch.from_numpy(edges)).hist.tolist()
    )


def test_range_indexing_gradient_passes_gradcheck() -> None:
    x = engine.tensor(np.arange(12.0).reshape(3, 4) / 7, dtype=engine.float64, requires_grad=True)
    assert engine.autograd.gradcheck(lambda t: t[range(3), [0, 3, 0]].exp(), (x,))
    assert engine.autograd.gradcheck(lambda t: t[[0, 2], 1:].sin(), (x,), fast_mode=True)


def test_assigned_value_gradient_passes_gradcheck() -> None:
    v = engine.tensor([0.5, -1.0, 2.0], dtype=engine.float64, requires_grad=True)

    def put(val: Any) -> Any:
        t = engine.zeros(3, 3, dtype=engine.float64)
        t[[0, 2]] = val.reshape(1, 1, 3) * 2
        return t

    def written(val: Any) -> Any:
        t = put(val)
        t[1] = val.sin()
        return t

    assert engine.autograd.gradcheck(written, (v,))
    assert engine.autograd.gradcheck(written, (v,), fast_mode=True)
    assert engine.autograd.gradgradcheck(put, (v,), fast_mode=True)
    # second order through CopySlices (x[i] = v under create_graph)
    assert engine.autograd.gradgradcheck(written, (v,))
    assert engine.autograd.gradgradcheck(written, (v,), fast_mode=True)


def test_fast_gradcheck_catches_a_wrong_backward() -> None:
    class Wrong(engine.autograd.Function):
        @staticmethod
        def forward(ctx: Any, t: Any) -> Any:
            return t.exp()

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

    x = engine.tensor([0.1, 0.2], dtype=engine.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect"):
        engine.autograd.gradcheck(Wrong.apply, (x,), fast_mode=True)
    assert not engine.autograd.gradcheck(Wrong.apply, (x,), fast_mode=True, raise_exception=False)


def write_golden() -> None:
    """``python -m tests.engine_tests.test_index_gaps``: re-record from PyTorch."""
    import torch

    data = {name: _plain(fn(torch)) for name, fn in FACTS.items()}
    GOLDEN.write_text(json.dumps(data, indent=1) + "\n", "utf-8")


if __name__ == "__main__":
    write_golden()
