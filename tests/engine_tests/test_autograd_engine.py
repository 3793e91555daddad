"""Engine behaviour that golden facts cannot show: scheduling, memory, devices."""

from __future__ import annotations

import gc
import sys
import weakref

import numpy as np
import pytest

import engine
from engine.autograd.graph import observe_backward


def test_chain_of_100k_ops_backpropagates_without_recursion() -> None:
    x = engine.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        y.sum().backward()
    finally:
        sys.setrecursionlimit(limit)
    assert x.grad is not None
    assert x.grad.tolist() == [1.0]
    del y
    gc.collect()


def _saved_chain() -> tuple[engine.Tensor, weakref.ref, weakref.ref]:
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    h = x.exp()  # saves its result
    z = (h * h).sum()  # saves h twice
    return z, weakref.ref(h), weakref.ref(h._data)


def test_saved_tensors_are_released_after_backward() -> None:
    z, h_ref, arr_ref = _saved_chain()
    z.backward()
    gc.collect()
    assert h_ref() is None
    assert arr_ref() is None


def test_retain_graph_keeps_saved_tensors() -> None:
    z, _h_ref, arr_ref = _saved_chain()
    z.backward(retain_graph=True)
    gc.collect()
    assert arr_ref() is not None
    z.backward()
    gc.collect()
    assert arr_ref() is None


def test_backward_twice_raises_pytorch_error() -> None:
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    z = (x.exp() * 2).sum()
    z.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        z.backward()


def test_ready_nodes_run_most_recent_first() -> None:
    """PyTorch's CPU ready queue orders by sequence number, newest first."""
    w = engine.tensor([1.0], requires_grad=True)
    x = engine.tensor([2.0], requires_grad=True)
    a = w + x
    b = w + 1
    y = a * b
    with observe_backward() as trace:
        y.backward()
    names = [e.node.name() for e in trace.executions]
    assert names[0] == "MulBackward0"
    assert names[1:3] == ["AddBackward0", "AddBackward0"]
    assert trace.executions[1].node is b.grad_fn
    assert names.count("torch::autograd::AccumulateGrad") == 2


def test_observer_records_gradients_along_edges() -> None:
    w = engine.tensor([1.0], requires_grad=True)
    x = engine.tensor([2.0], requires_grad=True)
    y = (w + x) * (w + 1)
    with observe_backward() as trace:
        y.backward()
    mul = trace.executions[0]
    assert [g.tolist() for g in mul.incoming] == [[1.0]]
    assert [g.tolist() for g in mul.outgoing] == [[2.0], [3.0]]
    acc = [e for e in trace.executions if e.node.name().endswith("AccumulateGrad")]
    assert {e.node.variable is w for e in acc} == {True, False}


def test_hooks_modify_gradients_and_can_be_removed() -> None:
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    handle = h.register_hook(lambda g: g * 10)
    h.sum().backward(retain_graph=True)
    assert x.grad.tolist() == [30.0, 30.0]
    handle.remove()
    x.grad = None
    h.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_leaf_hook_sees_accumulated_gradient() -> None:
    x = engine.tensor([1.0], requires_grad=True)
    seen: list[list[float]] = []
    x.register_hook(lambda g: seen.append(g.tolist()))
    (x * 2 + x * 3).sum().backward()
    assert seen == [[5.0]]


def test_post_hooks_and_observers_see_the_reduced_edge_gradient() -> None:
    # PyTorch runs validate_outputs (sum a broadcast gradient down to the input's
    # shape) before a node's post-hooks: grad_inputs[0] for the [2] input is [2]
    a = engine.tensor([1.0, 2.0], requires_grad=True)
    b = engine.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = a + b
    seen: list[list[tuple[int, ...]]] = []
    y.grad_fn.register_hook(lambda gi, go: seen.append([tuple(g.shape) for g in gi]))
    with observe_backward() as trace:
        y.sum().backward()
    assert seen == [[(2,), (2, 2)]]
    add = next(ex for ex in trace.executions if ex.node is y.grad_fn)
    assert add.outgoing[0].tolist() == [2.0, 2.0]


def test_cuda_request_without_gpu_says_why() -> None:
    if engine.cuda.is_available():
        pytest.skip("a GPU is usable here; the no-GPU message cannot be shown")
    reason = engine.cuda.unavailable_reason()
    assert reason
    with pytest.raises(RuntimeError, match="CUDA") as info:
        engine.zeros(3, device="cuda")
    assert reason in str(info.value)
    with pytest.raises(RuntimeError):
        engine.tensor([1.0]).cuda()
    assert engine.tensor([1.0]).cpu().device == engine.device("cpu")


@pytest.mark.cuda
def test_cuda_forward_and_backward_stay_on_gpu() -> None:
    x = engine.tensor([[1.0, 2.0], [3.0, 4.0]], device="cuda", requires_grad=True)
    w = engine.randn(2, 2, device="cuda", requires_grad=True)
    y = (x @ w).tanh().sum()
    y.backward()
    assert x.grad.is_cuda and w.grad.is_cuda
    assert type(x._data).__module__.startswith("cupy")
    cpu_x = x.detach().cpu().requires_grad_()
    cpu_w = w.detach().cpu().requires_grad_()
    (cpu_x @ cpu_w).tanh().sum().backward()
    # float32 on two devices: tanh's last bit may differ (SLEEF-like rounding on the CPU),
    # and 1 - tanh**2 of a saturated value cancels it into a small absolute error
    np.testing.assert_allclose(x.grad.cpu().numpy(), cpu_x.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.cuda
def test_cuda_copy_of_leaf_is_non_leaf_with_to_copy() -> None:
    b = engine.rand(10, requires_grad=True).cuda()
    assert not b.is_leaf
    assert b.grad_fn.name() == "ToCopyBackward0"
    f = engine.rand(10, requires_grad=True, device="cuda")
    assert f.is_leaf
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        _ = f + engine.rand(10)


def test_gradients_are_summed_to_broadcast_shapes() -> None:
    a = engine.ones(2, 3, requires_grad=True)
    b = engine.ones(3, requires_grad=True)
    c = engine.ones(2, 1, requires_grad=True)
    (a * b + c).sum().backward()
    assert b.grad.shape == (3,) and b.grad.tolist() == [2.0, 2.0, 2.0]
    assert c.grad.shape == (2, 1) and c.grad.tolist() == [[3.0], [3.0]]


def test_second_derivative_with_create_graph() -> None:
    x = engine.tensor(3.0, requires_grad=True)
    y = x**3
    (g,) = engine.autograd.grad(y, x, create_graph=True)
    assert g.item() == pytest.approx(27.0)
    assert g.requires_grad and g.grad_fn is not None
    (gg,) = engine.autograd.grad(g, x)
    assert gg.item() == pytest.approx(18.0)


def test_accumulation_is_in_place_like_pytorch() -> None:
    x = engine.tensor([1.0], requires_grad=True)
    (x * 2).sum().backward()
    first = x.grad
    (x * 2).sum().backward()
    assert x.grad is first
    assert first.tolist() == [4.0]
