"""Gaps a second held-out census of public learner programs found (PyTorch-GAN, minimalRL,
d2l-pytorch, the PyTorch tutorials, a popular PyTorch course, pytorch-beginner), each pinned
by what PyTorch 2.13 gives: plain expected values so the suite runs without torch, and a
live comparison marked ``torch``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine


def _node(t: Any) -> str | None:
    return None if t.grad_fn is None else type(t.grad_fn).__name__


# -- NumPy-style aliases (the PyTorch-course notebooks' spelling) ------------------------
ALIASES = {
    "multiply": ("mul", "MulBackward0"),
    "subtract": ("sub", "SubBackward0"),
    "divide": ("div", "DivBackward0"),
    "arcsin": ("asin", "AsinBackward0"),
    "arccos": ("acos", "AcosBackward0"),
    "arctan": ("atan", "AtanBackward0"),
    "arctan2": ("atan2", "Atan2Backward0"),
    "greater": ("gt", None),
    "less": ("lt", None),
    "greater_equal": ("ge", None),
    "less_equal": ("le", None),
    "not_equal": ("ne", None),
}


def _alias_args(lib: Any, name: str) -> tuple[Any, ...]:
    x = lib.tensor([0.25, -0.5, 0.75], requires_grad=True)
    y = lib.tensor([0.5, 0.5, -0.25])
    return (x,) if name in ("arcsin", "arccos", "arctan") else (x, y)


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_aliases_are_the_ops_themselves(alias: str) -> None:
    """``torch.multiply`` is ``torch.mul``: the same values, the same node, a method too."""
    target, node = ALIASES[alias]
    args = _alias_args(engine, alias)
    got, want = getattr(engine, alias)(*args), getattr(engine, target)(*args)
    assert got.tolist() == want.tolist() and _node(got) == node
    assert getattr(args[0], alias)(*args[1:]).tolist() == want.tolist()


def test_cat_aliases_and_in_place_aliases() -> None:
    x = engine.tensor([1.0, 2.0])
    assert engine.concat([x, x]).tolist() == engine.concatenate((x, x)).tolist() == [1, 2, 1, 2]
    y = engine.tensor([1.0, 2.0])
    assert y.multiply_(3).tolist() == [3.0, 6.0] and y._version == 1
    assert engine.subtract(y, 1, alpha=2).tolist() == [1.0, 4.0]
    assert engine.divide(y, 4, rounding_mode="floor").tolist() == [0.0, 1.0]


@pytest.mark.torch
@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_aliases_against_pytorch(alias: str) -> None:
    torch = pytest.importorskip("torch")
    got = getattr(engine, alias)(*_alias_args(engine, alias))
    want = getattr(torch, alias)(*_alias_args(torch, alias))
    assert got.tolist() == want.tolist() and _node(got) == _node(want)


# -- sizes by keyword, and a Size given to a legacy constructor --------------------------
def test_creation_takes_size_by_keyword() -> None:
    assert engine.zeros(size=(3, 4)).shape == (3, 4)
    assert engine.ones(size=[2]).tolist() == [1.0, 1.0]
    assert engine.empty(size=(2, 1)).shape == (2, 1)
    assert engine.rand(size=(2,)).shape == (2,)
    with pytest.raises(TypeError, match="unexpected keyword argument 'sizes'"):
        engine.zeros(sizes=(3,))


def test_legacy_constructor_takes_a_size_as_sizes() -> None:
    """``torch.FloatTensor(std.size()).normal_()`` (a VAE's reparametrisation): a Size is the
    shape, a plain tuple is the data."""
    assert engine.FloatTensor(engine.Size([2, 3])).shape == (2, 3)
    assert engine.Tensor(engine.zeros(4, 5).size()).shape == (4, 5)
    assert engine.FloatTensor((2, 3)).tolist() == [2.0, 3.0]


# -- cat skips the legacy 1-D empty tensor ---------------------------------------------
def test_cat_skips_a_one_dimensional_empty_tensor() -> None:
    """``char = torch.FloatTensor(); char = torch.cat((char, row), 0)``: ATen's legacy rule."""
    a = engine.tensor([], requires_grad=True)
    b = engine.ones(2, 3, requires_grad=True)
    c = engine.cat([a, b])
    assert c.shape == (2, 3) and _node(c) == "CatBackward0"
    assert [type(n).__name__ for n, _ in c.grad_fn.next_functions] == ["AccumulateGrad"] * 2
    c.sum().backward()
    assert a.grad.shape == (0,) and b.grad.tolist() == [[1.0] * 3] * 2
    assert engine.cat([engine.ones(2, 3), engine.tensor([])], dim=-1).shape == (2, 3)
    assert engine.cat([engine.tensor([], dtype=engine.float64), engine.ones(2)]).dtype == (
        engine.float64
    )
    assert engine.cat([engine.tensor([]), engine.tensor([])]).shape == (0,)
    with pytest.raises(IndexError, match=r"expected to be in range of \[-2, 1\], but got 2"):
        engine.cat([engine.tensor([]), engine.ones(2, 3)], dim=2)
    with pytest.raises(RuntimeError, match="Expected size 2 but got size 3 for tensor number 1"):
        engine.cat([engine.zeros(0, 2), engine.ones(2, 3)])


@pytest.mark.torch
def test_cat_with_empty_against_pytorch() -> None:
    torch = pytest.importorskip("torch")
    for lib in (engine, torch):
        a = lib.tensor([], requires_grad=True)
        b = lib.arange(6.0).reshape(2, 3).requires_grad_()
        c = lib.cat([b, a, b], 1)
        (c * lib.arange(12.0).reshape(2, 6)).sum().backward()
        lib_result = (c.tolist(), b.grad.tolist(), tuple(a.grad.shape), _node(c))
        if lib is engine:
            got = lib_result
    assert got == lib_result


def test_numpy_stays_numpy() -> None:
    """The aliases reach no NumPy array path: a tensor in, a tensor out."""
    out = engine.multiply(engine.tensor(np.arange(3.0)), 2)
    assert isinstance(out, engine.Tensor) and out.tolist() == [0.0, 2.0, 4.0]


# -- the leftovers: fmax/fmin, tensordot, put ------------------------------------
def _fmax_case(lib: Any, name: str) -> tuple[list[Any], str | None, list[float], list[float]]:
    nan = float("nan")
    a = lib.tensor([1.0, nan, 3.0, 2.0], requires_grad=True)
    b = lib.tensor([nan, 2.0, 1.0, 2.0], requires_grad=True)
    y = getattr(lib, name)(a, b)
    y.sum().backward()
    return [round(v, 4) for v in y.tolist()], _node(y), a.grad.tolist(), b.grad.tolist()


def test_fmax_and_fmin_ignore_nan_and_give_ties_to_self() -> None:
    assert _fmax_case(engine, "fmax") == (
        [1.0, 2.0, 3.0, 2.0],
        "FmaxBackward0",
        [1.0, 0.0, 1.0, 1.0],
        [0.0, 1.0, 0.0, 0.0],
    )
    assert _fmax_case(engine, "fmin") == (
        [1.0, 2.0, 1.0, 2.0],
        "FminBackward0",
        [1.0, 0.0, 0.0, 1.0],
        [0.0, 1.0, 1.0, 0.0],
    )
    assert engine.fmax(engine.tensor([1, 5]), engine.tensor([3, 2])).tolist() == [3, 5]


def _graph(t: Any) -> list[str]:
    out, stack = [], [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None:
            out.append(type(node).__name__)
            stack.extend(n for n, _ in reversed(node.next_functions))
    return out


def _tensordot_case(lib: Any) -> tuple[Any, ...]:
    a = lib.arange(60.0).reshape(3, 4, 5).requires_grad_()
    b = lib.arange(40.0).reshape(4, 5, 2).requires_grad_()
    y = lib.tensordot(a, b, dims=2)
    z = lib.tensordot(a, b.permute(1, 0, 2), dims=([2, 1], [0, 1]))
    (y + z).sum().backward()
    w = lib.tensordot(lib.ones(2), lib.ones(3), dims=0)
    return y.tolist(), z.tolist(), _graph(y), _graph(z), a.grad.tolist(), tuple(w.shape)


def test_tensordot_is_atens_composite() -> None:
    y, z, gy, gz, _, w = _tensordot_case(engine)
    assert y == z and y[0] == [4940.0, 5130.0] and w == (2, 3)
    view, permute, leaf = "ViewBackward0", "PermuteBackward0", "AccumulateGrad"
    assert gy == [view, "MmBackward0", view, permute, leaf, view, permute, leaf]
    assert gz[2:4] == ["UnsafeViewBackward0", "CloneBackward0"]
    with pytest.raises(RuntimeError, match="first has size 4 in dim 1 and second has size 5"):
        engine.tensordot(engine.ones(3, 4, 5), engine.ones(4, 5, 2), dims=([1], [1]))
    with pytest.raises(RuntimeError, match="tensordot expects dims >= 0, but got dims=-1"):
        engine.tensordot(engine.ones(3, 4), engine.ones(4, 5), dims=-1)


def _put_case(lib: Any) -> tuple[Any, ...]:
    x = lib.zeros(2, 3, requires_grad=True)
    s = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x.put(lib.tensor([0, -2]), s)
    (y * lib.arange(6.0).reshape(2, 3)).sum().backward()
    z = lib.zeros(2, 3)
    z.put_(lib.tensor([5, 5]), lib.tensor([1.0, 2.0]), accumulate=True)
    return y.tolist(), _node(y), s.grad.tolist(), x.grad.tolist(), z.tolist(), z._version


def test_put_writes_at_flat_indices() -> None:
    assert _put_case(engine) == (
        [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0]],
        "PutBackward0",
        [0.0, 4.0],
        [[0.0, 1.0, 2.0], [3.0, 0.0, 5.0]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 3.0]],
        1,
    )
    z = engine.zeros(2, 3)
    with pytest.raises(IndexError, match="tried to access index 6 on a tensor of 6 elements"):
        z.put_(engine.tensor([6]), engine.tensor([1.0]))
    with pytest.raises(RuntimeError, match="Expected a long tensor for index, but got Float"):
        z.put_(engine.tensor([1.0]), engine.tensor([1.0]))
    with pytest.raises(IndexError, match=r"source.numel\(\) = 1, index.numel\(\) = 2"):
        z.put_(engine.tensor([1, 2]), engine.tensor([1.0]))


@pytest.mark.torch
def test_leftovers_against_pytorch() -> None:
    torch = pytest.importorskip("torch")

    def same(x: Any, y: Any) -> bool:
        return json_ish(x) == json_ish(y)

    def json_ish(v: Any) -> str:
        return repr(v).replace("nan", "NaN")

    for name in ("fmax", "fmin"):
        assert same(_fmax_case(engine, name), _fmax_case(torch, name))
    assert same(_tensordot_case(engine), _tensordot_case(torch))
    assert same(_put_case(engine), _put_case(torch))
