"""Flatten parameters into one vector and write a vector back into them."""

from __future__ import annotations

from collections.abc import Iterable

from engine.tensor import Tensor


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """``torch.cat`` of the flattened parameters, called as PyTorch's own code calls it
    (through the public ``cat``: a tool watching public calls sees the ``CatBackward0``)."""
    import engine  # the package's ``cat`` at call time: a recorder replaces that name

    return engine.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    start = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[start : start + n].view_as(p).data
        start += n
