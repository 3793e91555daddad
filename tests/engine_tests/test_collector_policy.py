"""The collector is off while backward runs and exactly as before once it returns."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

import engine


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_collector_is_paused_during_backward_and_back_on_after(collector_on: None) -> None:
    seen: list[bool] = []
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 3).tanh()
    y.register_hook(lambda g: seen.append(gc.isenabled()))
    y.sum().backward()
    assert seen == [False]
    assert gc.isenabled()


def test_collector_is_back_on_when_backward_raises(collector_on: None) -> None:
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2

    def fail(g: object) -> None:
        raise ValueError("hook failed")

    y.register_hook(fail)
    with pytest.raises(ValueError, match="hook failed"):
        y.sum().backward()
    assert gc.isenabled()
    loss = x.exp().sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()
    assert gc.isenabled()


def test_a_program_that_turned_the_collector_off_keeps_it_off() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        x = engine.tensor([1.0], requires_grad=True)
        (x * 2).sum().backward()
        assert not gc.isenabled()
    finally:
        if was:
            gc.enable()
