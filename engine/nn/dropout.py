"""``F.dropout`` as PyTorch's CPU path computes it (``_dropout_impl``): a noise
tensor from ``bernoulli_(1 - p)`` scaled by ``1 / (1 - p)``, multiplied in, so the
output's ``grad_fn`` is ``MulBackward0`` and the mask uses the generator."""

from __future__ import annotations

from typing import Any

from engine.catalog import Example, Param, public
from engine.creation import empty, empty_like, zeros
from engine.ops import random as fills


@public(
    "dropout",
    ("input",),
    (Param("p", "float"), Param("training", "bool")),
    namespace="torch.nn.functional",
    category="layer",
    doc="each element zeroed with probability p, the rest scaled by 1/(1-p)",
    method=False,
    example=Example(inputs={"input": (2, 3)}, deterministic=False),
)
def dropout(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:  # noqa: A002
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)``."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        noise = zeros((), dtype=input.dtype, device=input.device)
    else:
        noise = fills.bernoulli_(_empty_in_layout(input), 1 - p)
        noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


def _empty_in_layout(input: Any) -> Any:  # noqa: A002
    """``empty_like(input)`` with input's memory layout, as ATen's keeps a dense one: the
    noise is drawn in memory order, so a transposed input (``MultiheadAttention``'s
    batch-first output) gets PyTorch's mask."""
    if input.is_contiguous() or input.ndim < 2:
        return empty_like(input)
    strides = input.stride()
    order = sorted(range(input.ndim), key=lambda d: -strides[d])
    if not input.permute(*order).is_contiguous():
        return empty_like(input)
    inverse = sorted(range(input.ndim), key=lambda d: order[d])
    shape = [input.shape[d] for d in order]
    return empty(shape, dtype=input.dtype, device=input.device).permute(*inverse)


def feature_dropout(input: Any, p: float, training: bool, inplace: bool = False) -> Any:  # noqa: A002
    """ATen's ``feature_dropout``: one ``bernoulli_(1 - p)`` draw per (sample, channel),
    shaped ``(N, C, 1, ...)``, scaled by ``1 / (1 - p)`` and multiplied in."""
    if p == 0 or not training or input.numel() == 0:
        return input
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if p == 1:
        noise = zeros((), dtype=input.dtype, device=input.device)
    else:
        shape = (input.shape[0], input.shape[1], *([1] * (input.ndim - 2)))
        noise = fills.bernoulli_(input.new_empty(shape), 1 - p)
        noise.div_(1 - p)
    return input.mul_(noise) if inplace else input * noise


@public(
    "dropout1d",
    ("input",),
    (Param("p", "float"), Param("training", "bool")),
    namespace="torch.nn.functional",
    category="layer",
    doc="each channel of a (N, C, L) input zeroed with probability p",
    method=False,
    example=Example(inputs={"input": (2, 3, 4)}, deterministic=False),
)
def dropout1d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:  # noqa: A002
    """Whole channels of a ``(N, C, L)`` (or ``(C, L)``) input zeroed together."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
            "spatial dimension, a channel dimension, and an optional batch dimension "
            "(i.e. 2D or 3D inputs)."
        )
    batched = input.ndim == 3
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)  # noqa: A001
    out = feature_dropout(input, p, training, inplace)
    if not batched:
        out = out.squeeze_(0) if inplace else out.squeeze(0)
    return out


@public(
    "dropout2d",
    ("input",),
    (Param("p", "float"), Param("training", "bool")),
    namespace="torch.nn.functional",
    category="layer",
    doc="each channel of a (N, C, H, W) input zeroed with probability p",
    method=False,
    example=Example(inputs={"input": (1, 3, 2, 2)}, deterministic=False),
)
def dropout2d(input: Any, p: float = 0.5, training: bool = True, inplace: bool = False) -> Any:  # noqa: A002
    """Whole channels of an ``(N, C, H, W)`` input zeroed together (a 3-D input is taken
    as ``(N, C, L)``, with PyTorch's warnings)."""
    import warnings

    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout2d "
            "exists to provide channel-wise dropout on inputs with 2 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return feature_dropout(input, p, training, inplace)
