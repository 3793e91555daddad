"""``F.instance_norm`` and ``F.rms_norm``: composed from existing ops exactly as ATen
composes them, so their graphs (``ViewBackward0`` over ``NativeBatchNormBackward0``;
``MulBackward0`` over ``RsqrtBackward0``) are PyTorch's."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine import dtypes
from engine.catalog import Example, Param, Port, public
from engine.grad_mode import no_grad
from engine.integers import int_tuple
from engine.ops.core import apply_op
from engine.ops.normalization import batch_norm
from engine.ops.pointwise import ADD_SCALAR

NS = "torch.nn.functional"


def _repeat(t: Any, times: int) -> Any:
    return None if t is None else t.repeat(times)


@public(
    "instance_norm",
    (
        "input",
        Port("running_mean", optional=True),
        Port("running_var", optional=True),
        Port("weight", optional=True),
        Port("bias", optional=True),
    ),
    (Param("use_input_stats", "bool"), Param("momentum", "float"), Param("eps", "float")),
    namespace=NS,
    category="layer",
    doc="normalise each channel of each sample over its positions",
    method=False,
    example=Example(
        inputs={
            "input": (2, 3, 4),
            "running_mean": (3,),
            "running_var": (3,),
            "weight": (3,),
            "bias": (3,),
        },
        params={"use_input_stats": True},
        values={"running_mean": "constant", "running_var": "positive"},
    ),
)
def instance_norm(
    input: Any,  # noqa: A002
    running_mean: Any = None,
    running_var: Any = None,
    weight: Any = None,
    bias: Any = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Any:
    """ATen's ``instance_norm``: the batch folded into the channels (``1, N*C, ...``),
    batch-normalised with repeated parameters and statistics, viewed back; the running
    statistics, when updated, become the mean of the repeated ones (a ``copy_``: their
    versions advance)."""
    shape = tuple(input.shape)
    if use_input_stats and math.prod(shape[2:]) == 1:
        raise ValueError(
            f"Expected more than 1 spatial element when training, got input size {input.shape}"
        )
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError(
            "Expected running_mean and running_var to be defined when use_input_stats is false"
        )
    b, c = shape[0], shape[1]
    mean_, var_ = _repeat(running_mean, b), _repeat(running_var, b)
    folded = input.contiguous().view(1, b * c, *shape[2:])
    out = batch_norm(
        folded,
        mean_,
        var_,
        _repeat(weight, b),
        _repeat(bias, b),
        use_input_stats,
        momentum,
        eps,
    )
    if use_input_stats:
        with no_grad():
            if running_mean is not None:
                running_mean.copy_(mean_.view(b, c).mean(0, False))
            if running_var is not None:
                running_var.copy_(var_.view(b, c).mean(0, False))
    return out.view(shape)


_LOW = (dtypes.float16,)


@public(
    "rms_norm",
    ("input", Port("weight", optional=True)),
    (Param("normalized_shape", "shape", (4,)), Param("eps", "float")),
    namespace=NS,
    category="layer",
    doc="scale by the reciprocal root mean square over the last dimensions",
    method=False,
    example=Example(inputs={"weight": (3,)}, params={"normalized_shape": [3]}),
)
def rms_norm(
    input: Any,  # noqa: A002
    normalized_shape: Any,
    weight: Any = None,
    eps: float | None = None,
) -> Any:
    """ATen's composite: ``x * rsqrt(x.pow(2).mean(dims, keepdim=True) + eps)`` in the
    input's computation type (float for half types; ``add_`` of a Scalar, hence
    ``AddBackward1``), times ``weight``; ``eps`` defaults
    to that type's machine epsilon."""
    shape = int_tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape) :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*{', '.join(map(str, shape))}], but got input of size{list(input.shape)}"
        )
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(
            f"Expected weight to be of same shape as normalized_shape, but got weight of "
            f"shape {list(weight.shape)} and normalized_shape = {list(shape)}"
        )
    low = input.dtype in _LOW
    x = input.to(dtypes.float32) if low else input
    if eps is None:
        eps = float(np.finfo(np.float64 if x.dtype == dtypes.float64 else np.float32).eps)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    rstd = apply_op(ADD_SCALAR, (x.pow(2).mean(dims, True),), {"other": eps}).rsqrt()
    out = x * rstd
    if low:
        out = out.type_as(input)
    return out if weight is None else out * weight
