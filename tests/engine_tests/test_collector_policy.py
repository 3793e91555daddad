"""The collector policy (``engine/autograd/collector.py``), a speed measure that must be
invisible otherwise.

Backward pauses Python's cyclic collector; these tests pin down that the user's collector
setting always comes back: after a normal backward, after one that raises, after a hook
that runs backward inside backward, and that a collector the user switched off stays off.
While a graph grows the young threshold is raised; the tests below show that collections
go on (a cycle made meanwhile is collected), that the threshold comes back once nodes are
no longer made, and that a program's own thresholds are never touched.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

import engine
from engine.autograd import collector
from engine.autograd.collector import YOUNG_WHILE_GROWING

DEFAULT = (700, 10, 10)


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


@pytest.fixture
def policy() -> Iterator[None]:
    """The policy installed afresh over CPython's default thresholds, as at import."""
    was = gc.get_threshold()
    collector.uninstall()
    gc.set_threshold(*DEFAULT)
    collector.install()
    yield
    collector.uninstall()
    gc.set_threshold(*was)
    collector.install()


def _grow(nodes: int) -> list[engine.Tensor]:
    x = engine.tensor([0.5, -1.0], requires_grad=True)
    return [(x * 2.0).tanh() for _ in range(nodes // 2)]


def _allocate_without_nodes(count: int) -> list[list[int]]:
    return [[] for _ in range(count)]


def test_raised_while_a_graph_grows_and_back_after(policy: None) -> None:
    graph = _grow(4000)
    assert gc.isenabled()
    assert gc.get_threshold() == (YOUNG_WHILE_GROWING, 10, 10)
    other = _allocate_without_nodes(2 * YOUNG_WHILE_GROWING)
    assert gc.get_threshold() == DEFAULT
    assert len(graph) == 2000 and len(other) == 2 * YOUNG_WHILE_GROWING


def test_a_cycle_made_while_the_graph_grows_is_still_collected(policy: None) -> None:
    import weakref

    class Cyclic:
        pass

    graph = _grow(2000)
    assert gc.get_threshold()[0] == YOUNG_WHILE_GROWING
    gone: list[bool] = []
    a, b = Cyclic(), Cyclic()
    a.other, b.other = b, a  # type: ignore[attr-defined]
    weakref.finalize(a, gone.append, True)
    del a, b
    graph += _grow(4 * YOUNG_WHILE_GROWING // 5)  # more allocations than the raised threshold
    assert gone == [True]
    assert gc.get_threshold()[0] == YOUNG_WHILE_GROWING


def test_thresholds_the_program_sets_are_left_alone(policy: None) -> None:
    gc.set_threshold(1000, 20, 20)
    graph = _grow(4000)
    assert gc.get_threshold() == (1000, 20, 20)
    gc.set_threshold(*DEFAULT)
    graph += _grow(4000)
    assert gc.get_threshold()[0] == YOUNG_WHILE_GROWING
    gc.set_threshold(1500, 10, 10)  # while raised: the program's choice stands
    graph += _grow(4 * YOUNG_WHILE_GROWING // 5)
    other = _allocate_without_nodes(2 * YOUNG_WHILE_GROWING)
    assert gc.get_threshold() == (1500, 10, 10)
    assert graph and other


def test_a_higher_threshold_is_never_lowered(policy: None) -> None:
    gc.set_threshold(50_000, 10, 10)
    collector.install()  # as if the program had set it before importing the engine
    graph = _grow(4000)
    other = _allocate_without_nodes(2 * 50_000)
    assert gc.get_threshold() == (50_000, 10, 10)
    assert graph and other


def test_uninstall_gives_the_thresholds_back(policy: None) -> None:
    graph = _grow(4000)
    assert gc.get_threshold()[0] == YOUNG_WHILE_GROWING
    collector.uninstall()
    assert gc.get_threshold() == DEFAULT
    assert collector.POLICY not in gc.callbacks
    assert graph
