"""PyTorch's CUDA surface: devices of results and grads, ``torch.cuda``, mixed-device errors.

Marked ``cuda``; ``make test`` runs them on the CuPy simulator when there is no GPU.
Texts are PyTorch 2.13's (ATen's ``TensorIterator``/``Indexing`` checks and the autograd
engine's ``validate_outputs``).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import engine

pytestmark = pytest.mark.cuda

SAME_DEVICE = (
    "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
)


def test_device_prints_cuda_0_and_is_cuda() -> None:
    t = engine.ones(2, device="cuda")
    assert str(t.device) == "cuda:0" and t.is_cuda
    assert repr(t.device) == "device(type='cuda', index=0)"
    assert "device='cuda:0'" in repr(t)
    assert not engine.ones(2).is_cuda


def test_cuda_of_a_leaf_is_a_to_copy_non_leaf_and_grad_returns_to_cpu() -> None:
    a = engine.rand(10, requires_grad=True)
    b = a.cuda()
    assert (b.is_leaf, b.grad_fn.name(), str(b.device)) == (False, "ToCopyBackward0", "cuda:0")
    (b * 2).sum().backward()
    assert str(a.grad.device) == "cpu"
    np.testing.assert_array_equal(a.grad.numpy(), np.full(10, 2.0, np.float32))


def test_to_cuda_non_blocking_and_back() -> None:
    x = engine.tensor([1.0, 2.0])
    y = x.to("cuda", non_blocking=True)
    assert y.is_cuda and x.cuda(non_blocking=True).is_cuda
    z = y.cpu()
    assert str(z.device) == "cpu" and type(z._data) is np.ndarray
    assert z.tolist() == [1.0, 2.0]
    assert y.to("cuda") is y


def test_grads_of_cuda_leaves_live_on_cuda() -> None:
    w = engine.randn(3, 2, device="cuda", requires_grad=True)
    x = engine.ones(4, 3, device="cuda")
    (x @ w).tanh().sum().backward()
    assert w.grad.is_cuda and w.grad.dtype is engine.float32
    assert w.grad.cpu().shape == (3, 2)


def test_copy_from_cpu_into_cuda_and_back() -> None:
    dst = engine.zeros(3, device="cuda")
    dst.copy_(engine.tensor([1.0, 2.0, 3.0]))
    assert dst.is_cuda and dst.tolist() == [1.0, 2.0, 3.0]
    host = engine.zeros(3)
    host.copy_(dst)
    assert not host.is_cuda and host.tolist() == [1.0, 2.0, 3.0]


def test_numpy_of_a_cuda_tensor_says_use_cpu() -> None:
    with pytest.raises(TypeError, match=r"can't convert cuda:0 device type tensor to numpy"):
        engine.ones(2, device="cuda").numpy()


@pytest.mark.parametrize(
    "call",
    [
        lambda c, g: c + g,
        lambda c, g: g * c,
        lambda c, g: c.reshape(2, 1) @ g.reshape(1, 2),
        lambda c, g: engine.cat([g, c]),
        lambda c, g: engine.where(c > 0, c, g),
        lambda c, g: c.add_(g),
        lambda c, g: g.mul_(c),
    ],
    ids=["add", "mul", "matmul", "cat", "where", "add_", "mul_"],
)
def test_mixed_devices_are_refused_with_pytorchs_text(call: object) -> None:
    c, g = engine.ones(2), engine.ones(2, device="cuda")
    with pytest.raises(RuntimeError, match=re.escape(SAME_DEVICE)):
        call(c, g)  # type: ignore[operator]


def test_cpu_tensor_indexed_with_cuda_indices_is_a_runtime_error() -> None:
    x = engine.arange(5.0)
    idx = engine.tensor([0, 2], device="cuda")
    with pytest.raises(
        RuntimeError,
        match=r"^indices should be either on cpu or on the same device as the indexed tensor "
        r"\(cpu\)$",
    ):
        x[idx]
    assert engine.arange(5.0, device="cuda")[engine.tensor([0, 2])].tolist() == [0.0, 2.0]


def test_backward_with_a_gradient_on_another_device_is_refused() -> None:
    w = engine.ones(3, device="cuda", requires_grad=True)
    y = w * 2
    with pytest.raises(
        RuntimeError, match=r"^invalid gradient at index 0 - expected device cuda:0 but got cpu$"
    ):
        y.backward(engine.ones(3))
    with pytest.raises(RuntimeError, match=r"expected device cuda:0 but got cpu"):
        engine.autograd.grad(y, w, engine.ones(3))
    assert w.grad is None


def test_torch_cuda_surface() -> None:
    assert engine.cuda.is_available() and engine.cuda.device_count() == 1
    assert engine.cuda.current_device() == 0
    engine.cuda.synchronize()
    engine.manual_seed(0)
    cpu_first = engine.rand(3).tolist()
    engine.manual_seed(0)
    engine.cuda.manual_seed_all(5)
    assert engine.rand(3).tolist() == cpu_first  # seeding CUDA leaves the CPU stream alone
    a = engine.rand(4, device="cuda").tolist()
    engine.cuda.manual_seed_all(5)
    assert engine.rand(4, device="cuda").tolist() == a


def test_a_function_returning_a_gradient_on_the_wrong_device_is_refused() -> None:
    class ToHost(engine.autograd.Function):
        @staticmethod
        def forward(ctx, x):  # noqa: ANN001, ANN205
            return x * 2

        @staticmethod
        def backward(ctx, g):  # noqa: ANN001, ANN205
            return g.cpu()

    w = engine.ones(3, device="cuda", requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match=r"^Function ToHostBackward returned an invalid gradient at index 0 - "
        r"expected device cuda:0 but got cpu$",
    ):
        ToHost.apply(w).sum().backward()
