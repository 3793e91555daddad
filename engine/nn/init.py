"""``torch.nn.init``: the initialisers a layer calls on its parameters.

They fill in place under ``no_grad`` through ``uniform_``/``normal_``, so with
the same seed and the same call order (``nn.Linear.reset_parameters`` calls
``kaiming_uniform_(weight, a=sqrt(5))`` and then ``uniform_`` on the bias with
bound ``1/sqrt(fan_in)``) they draw PyTorch's exact values.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from engine import spaced
from engine.backend import to_numpy
from engine.creation import randperm
from engine.creation import tensor as make
from engine.grad_mode import no_grad
from engine.ops import random as fills
from engine.ops.pointwise import where

_LINEAR = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
)


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The gain that keeps activations' variance for ``nonlinearity``."""
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope: float = 0.01
        elif isinstance(param, int | float) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Any) -> tuple[int, int]:
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = math.prod(tensor.shape[2:])
    return tensor.size(1) * receptive, tensor.size(0) * receptive


def _calculate_correct_fan(tensor: Any, mode: str) -> int:
    mode = mode.lower()
    valid = ["fan_in", "fan_out"]
    if mode not in valid:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Any, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Any:
    with no_grad():
        return fills.uniform_(tensor, a, b, generator=generator)


def normal_(tensor: Any, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Any:
    with no_grad():
        return fills.normal_(tensor, mean, std, generator=generator)


def constant_(tensor: Any, val: float) -> Any:
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor: Any) -> Any:
    return constant_(tensor, 1.0)


def zeros_(tensor: Any) -> Any:
    with no_grad():
        return tensor.zero_()


def eye_(tensor: Any) -> Any:
    """The identity written into a 2-D tensor (ones on the diagonal of a non-square one)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(spaced.eye(*tensor.shape, dtype=tensor.dtype))


def orthogonal_(tensor: Any, gain: float = 1.0, generator: Any = None) -> Any:
    """PyTorch's recipe: standard normal draws of shape ``(rows, numel // rows)``, their QR
    (of the transpose when wide), Q's columns signed by R's diagonal, times ``gain``."""
    import numpy as np

    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    drawn = fills.normal_(tensor.new_empty((rows, cols)), 0.0, 1.0, generator=generator)
    a = to_numpy(drawn._data)
    a = a.T if rows < cols else a
    q, r = np.linalg.qr(a)
    q = q * np.sign(np.diag(r))
    q = q.T if rows < cols else q
    with no_grad():
        tensor.copy_(make(np.ascontiguousarray(q).reshape(tuple(tensor.shape))))
        return tensor.mul_(gain)


def xavier_uniform_(tensor: Any, gain: float = 1.0, generator: Any = None) -> Any:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Any, gain: float = 1.0, generator: Any = None) -> Any:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor: Any, a: float, mode: str, nonlinearity: str) -> float | None:
    """The Kaiming standard deviation, or None (with PyTorch's warning) for an empty tensor."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(
    tensor: Any,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Any:
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Any,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Any = None,
) -> Any:
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0, std, generator)


def trunc_normal_(
    tensor: Any,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Any = None,
) -> Any:
    """PyTorch 2.13's recipe, draw for draw: when most of the normal lies in ``[a, b]``
    (``p > 0.3``), normal draws with the ones outside drawn again; otherwise uniform draws
    on ``[a, b]`` accepted against the normal's density, rejected ones drawn again."""

    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )

    with no_grad():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            lo, hi = tensor.new_tensor(a).item(), tensor.new_tensor(b).item()
            result = fills.normal_(tensor, mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                again = result.new_empty(tuple(result.shape))
                fills.normal_(again, mean, std, generator=generator)
                result = where(mask, again, result)
            if tensor is not result:
                tensor.copy_(result)
            return tensor
        log_peak = -0.5 * ((max(a, min(mean, b)) - mean) / std) ** 2
        candidates = tensor.new_empty(tuple(tensor.shape))
        accept = tensor.new_empty(tuple(tensor.shape))
        fills.uniform_(tensor, a, b, generator=generator)
        candidates.copy_(tensor)
        candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        pending = fills.uniform_(accept, generator=generator).log_().gt(candidates)
        if not pending.any():
            return tensor
        result = tensor
        while True:
            fills.uniform_(candidates, a, b, generator=generator)
            result = where(pending, candidates, result)
            candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
            drawn = fills.uniform_(accept, generator=generator).log_().gt(candidates)
            pending = where(pending, drawn, pending)
            if not pending.any():
                break
        tensor.copy_(result)
        return tensor


def sparse_(tensor: Any, sparsity: float, std: float = 0.01, generator: Any = None) -> Any:
    """Normal draws, then in each column ``ceil(sparsity * rows)`` rows zeroed, chosen by
    ``randperm`` on the default generator (as PyTorch does, whatever ``generator`` is)."""

    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        fills.normal_(tensor, 0, std, generator=generator)
        for col in range(cols):
            tensor[randperm(rows)[:num_zeros], col] = 0
    return tensor


def dirac_(tensor: Any, groups: int = 1) -> Any:
    """The identity of a convolution: a one at the centre of each (group's) input
    channel's kernel for the matching output channel."""
    dims = tensor.ndim
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    centre = tuple(s // 2 for s in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, sizes[1])):
                tensor[(g * per_group + d, d, *centre)] = 1
    return tensor


def _deprecated(new: Any) -> Any:
    """The pre-1.0 name without the trailing underscore: the same fill, with PyTorch's
    FutureWarning pointing at the caller (old tutorials still call ``nn.init.normal``)."""
    old = new.__name__[:-1]

    def fill(*args: Any, **kwargs: Any) -> Any:
        warnings.warn(
            f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new.__name__}`.",
            FutureWarning,
            stacklevel=2,
        )
        return new(*args, **kwargs)

    fill.__name__ = fill.__qualname__ = old
    fill.__doc__ = f"Deprecated: use ``{new.__name__}``."
    return fill


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
