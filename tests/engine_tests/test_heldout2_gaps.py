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
