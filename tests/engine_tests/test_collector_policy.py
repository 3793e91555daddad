"""The collector is paused while backward runs and resumed after it, whatever happens.

Backward pauses Python's cyclic collector (a speed measure: see ``run_backward``); these
tests pin down that the user's collector setting always comes back: after a normal
backward, after one that raises, after a hook that runs backward inside backward, and
that a collector the user switched off stays off.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

import engine


@pytest.fixture(autouse=True)
def _collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_paused_during_backward_and_resumed_after() -> None:
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    seen: list[bool] = []
    y = (x * 3.0).tanh()
    y.register_hook(lambda g: seen.append(gc.isenabled()))
    y.sum().backward()
    assert seen == [False]
    assert gc.isenabled()


def test_resumed_after_backward_raises() -> None:
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0

    def boom(g: engine.Tensor) -> None:
        raise ValueError("hook failed")

    y.register_hook(boom)
    with pytest.raises(ValueError, match="hook failed"):
        y.sum().backward()
    assert gc.isenabled()
    z = x.clone()
    w = z.sin()
    z.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        w.sum().backward()
    assert gc.isenabled()


def test_backward_inside_a_hook_leaves_it_paused_until_the_outer_one_ends() -> None:
    x = engine.tensor([0.5, -1.0], requires_grad=True)
    inner = engine.tensor([2.0], requires_grad=True)
    seen: list[bool] = []

    def hook(g: engine.Tensor) -> None:
        with engine.enable_grad():
            (inner * inner).sum().backward()
        seen.append(gc.isenabled())

    y = x.sin()
    y.register_hook(hook)
    y.sum().backward()
    assert seen == [False]
    assert gc.isenabled()
    assert inner.grad is not None and inner.grad.tolist() == [4.0]


def test_autograd_grad_resumes_it_too() -> None:
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    (g,) = engine.autograd.grad((x * x).sum(), x, create_graph=True)
    assert gc.isenabled()
    (gg,) = engine.autograd.grad(g.sum(), x)
    assert gc.isenabled()
    assert gg.tolist() == [2.0, 2.0]


def test_a_collector_switched_off_by_the_user_stays_off() -> None:
    gc.disable()
    x = engine.tensor([1.0], requires_grad=True)
    (x * 2.0).sum().backward()
    assert not gc.isenabled()
