"""Gaps a held-out census of public programs (NYU's deep-learning notebooks, minGPT,
makemore) found in the engine, each pinned by what PyTorch 2.13 prints for it."""

from __future__ import annotations

import pickle

import engine as torch


def test_roll_along_dimension_0() -> None:
    """``dims=0`` is dimension 0, not "no dims" (which rolls the flattened tensor)."""
    x = torch.arange(6.0).reshape(2, 3)
    assert x.roll(1, 0).tolist() == [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]]
    assert torch.roll(x, 1).tolist() == [[5.0, 0.0, 1.0], [2.0, 3.0, 4.0]]


def test_tensor_tile_takes_the_sizes_themselves() -> None:
    assert torch.ones(2, 3).tile(2, 2).shape == (4, 6)
    assert torch.tile(torch.ones(2, 3), (2,)).shape == (2, 6)


def test_unfold_is_pytorchs_writable_view() -> None:
    x = torch.arange(7.0, requires_grad=True)
    y = x.unfold(0, 3, 2)
    assert y.tolist() == [[0.0, 1.0, 2.0], [2.0, 3.0, 4.0], [4.0, 5.0, 6.0]]
    assert y.stride() == (2, 1) and y._base is x and repr(y.grad_fn).startswith("<UnfoldBackward0")
    (y * torch.arange(9.0).reshape(3, 3)).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 5.0, 4.0, 11.0, 7.0, 8.0]
    node = y.grad_fn
    assert (node._saved_self_sym_sizes, node._saved_size, node._saved_step) == ((7,), 3, 2)


def test_class_names_print_as_pytorchs() -> None:
    """``print(type(x))`` in a tensor tutorial, a custom Function's ``grad_fn``."""

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):  # noqa: ANN001, ANN205
            return a * 2

        @staticmethod
        def backward(ctx, g):  # noqa: ANN001, ANN205
            return g * 2

    x = torch.randn(2, requires_grad=True)
    assert str(type(x)) == "<class 'torch.Tensor'>"
    assert str(type((x * 2).grad_fn)) == "<class 'MulBackward0'>"
    assert str(type(torch.nn.Parameter(torch.ones(1)))) == "<class 'torch.nn.parameter.Parameter'>"
    node = Double.apply(x).grad_fn
    assert str(type(node)) == "<class 'torch.autograd.function.DoubleBackward'>"
    assert repr(node).startswith("<torch.autograd.function.DoubleBackward object at 0x")


def test_a_pickled_tensor_keeps_its_dtype_and_requires_grad() -> None:
    x = torch.tensor([0.1, 0.2], dtype=torch.float64, requires_grad=True)
    y = pickle.loads(pickle.dumps(x))
    assert y.dtype == torch.float64 and y.requires_grad and y.tolist() == x.tolist()
