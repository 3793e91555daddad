"""Normalisation layers' functions: ``layer_norm`` (``NativeLayerNormBackward0``),
``batch_norm`` (``NativeBatchNormBackward0``) and ``embedding``
(``EmbeddingBackward0``, whose only edge is the weight, as in PyTorch).

``batch_norm`` in training mode updates the running statistics in place (their
version counters advance) with the unbiased batch variance, as PyTorch does.
"""

from __future__ import annotations

import math
from typing import Any

from engine.autograd.functional import grad as autograd_grad
from engine.backend import array_module
from engine.catalog import Example, Param, Port, public
from engine.grad_mode import enable_grad
from engine.integers import int_tuple
from engine.ops.core import ARRAY_MATH, TENSOR_MATH, Sample, apply_op, declare
from engine.ops.kernel_devices import check_common_device
from engine.tensor import Tensor

NS = "torch.nn.functional"


def _composed_grads(
    ctx: Any, g: Any, a: Any, w: Any, axes: tuple[int, ...], stats: Any, param_axes: Any
) -> tuple[Any, Any, Any]:
    """Under ``create_graph``: the normalisation's gradients built from elementary ops,
    so they can be differentiated again (PyTorch has one fused node for them instead).
    ``stats`` is None when mean and variance come from ``a`` itself, else the constant
    ``(mean, rstd)`` arrays of evaluation mode."""
    m = ctx.math
    if stats is None:
        mean = m.mean_dim(a, dims=axes, keepdim=True)
        centred = a - mean
        var = m.mean_dim(centred * centred, dims=axes, keepdim=True)
        rstd = m.rsqrt(m.add_scalar(var, other=ctx.params["eps"]))
    else:
        mean, rstd = (Tensor._wrap(s) for s in stats)
        centred = a - mean
    xhat = centred * rstd
    dxhat = g * w if w is not None else g
    gi = gw = gb = None
    if ctx.needs[0]:
        if stats is None:
            gi = rstd * (
                dxhat
                - m.mean_dim(dxhat, dims=axes, keepdim=True)
                - xhat * m.mean_dim(dxhat * xhat, dims=axes, keepdim=True)
            )
        else:
            gi = dxhat * rstd
    if len(ctx.needs) > 1 and ctx.needs[1]:
        gw = m.sum_dim(g * xhat, dims=param_axes, keepdim=False) if param_axes else g * xhat
    if len(ctx.needs) > 2 and ctx.needs[2]:
        gb = m.sum_dim(g, dims=param_axes, keepdim=False) if param_axes else g
    return gi, gw, gb


def _normalised_grad(xp: Any, dxhat: Any, xhat: Any, rstd: Any, axes: Any) -> Any:
    """The gradient through ``(x - mean) * rstd`` when mean and rstd are the statistics
    of ``x`` over ``axes`` (shared by layer and batch normalisation)."""
    return rstd * (
        dxhat
        - xp.mean(dxhat, axis=axes, keepdims=True)
        - xhat * xp.mean(dxhat * xhat, axis=axes, keepdims=True)
    )


# -- the fused backward nodes -----------------------------------------------------------
_WHICH = ("input", "weight", "bias")


class _Formula:
    """What a formula reads from its node (``ctx``), for running one outside a node."""

    def __init__(
        self, saved: dict[str, Any], params: dict[str, Any], needs: Any, math: Any
    ) -> None:
        self.saved, self.params, self.needs, self.math = saved, params, needs, math


def _fused_grads(ctx: Any, name: str, ins: tuple[Any, ...]) -> tuple[Any, Any, Any]:
    """Under ``create_graph``: each gradient is PyTorch's fused node (``Native…Backward
    Backward0`` on its inputs); PyTorch's one node has an output per gradient."""
    op = getattr(ctx.math, name)
    return tuple(  # type: ignore[return-value]
        op(*ins, which=which, **ctx.params) if i < len(ctx.needs) and ctx.needs[i] else None
        for i, which in enumerate(_WHICH)
    )


def _fused_kernel(grad: Any, positions: tuple[int, int, int]) -> Any:
    """The array kernel of one gradient: the first-order formula, one output picked."""

    def kernel(xp: Any, *args: Any, which: str, **p: Any) -> Any:
        g, a, w = (args[i] for i in positions)
        needs = tuple(k == which for k in _WHICH)
        c = _Formula({"input": a, "weight": w}, p, needs, ARRAY_MATH)
        return grad(c, g)[_WHICH.index(which)]

    return kernel


def _fused_double_backward(grad: Any, positions: tuple[int, int, int]) -> Any:
    """The derivatives of one fused gradient: the same formula built from elementary ops
    on (grad_output, input, weight), differentiated with ``autograd.grad``."""

    def backward(ctx: Any, gg: Any) -> tuple[Any, ...]:
        tm = ctx.math is TENSOR_MATH
        names = [ctx._op.inputs[i] for i in positions]
        vals = [ctx.saved.get(n) for n in names]
        wanted = [k for k, i in enumerate(positions) if ctx.needs[i]]
        if not tm:
            vals = [None if v is None else Tensor._wrap(v) for v in vals]
            for k in wanted:
                vals[k].requires_grad_(True)
            gg = Tensor._wrap(gg)
        which = ctx.params["which"]
        p = {**{k: v for k, v in ctx.params.items() if k != "which"}, "composed": True}
        needs = tuple(k == which for k in _WHICH)
        f = _Formula({"input": vals[1], "weight": vals[2]}, p, needs, TENSOR_MATH)
        grads: list[Any] = [None] * len(ctx.needs)
        with enable_grad():
            out = grad(f, vals[0])[_WHICH.index(which)]
            if not out.requires_grad:  # e.g. the bias's gradient, when only input needs one
                return tuple(grads)
            res = autograd_grad(
                out, [vals[k] for k in wanted], gg, create_graph=tm, allow_unused=True
            )
        for k, r in zip(wanted, res, strict=True):
            grads[positions[k]] = r if tm or r is None else r._data
        return tuple(grads)

    return backward


# -- layer_norm ---------------------------------------------------------------------------
def _ln_stats(xp: Any, a: Any, dims: tuple[int, ...], eps: float) -> tuple[Any, Any]:
    mean = xp.mean(a, axis=dims, keepdims=True)
    var = xp.mean((a - mean) ** 2, axis=dims, keepdims=True)
    return mean, 1 / xp.sqrt(var + a.dtype.type(eps))


def _ln_fwd(xp: Any, a: Any, w: Any = None, b: Any = None, *, dims: Any, eps: float) -> Any:
    mean, rstd = _ln_stats(xp, a, dims, eps)
    y = (a - mean) * rstd
    if w is not None:
        y = y * w
    if b is not None:
        y = y + b
    # ATen's kernel writes a new contiguous output (copy() is C order in NumPy and CuPy)
    return y if y.flags.c_contiguous else y.copy()


def _ln_grad(ctx: Any, g: Any) -> tuple[Any, Any, Any]:
    if ctx.math is TENSOR_MATH:
        if ctx.params.get("composed"):
            a, dims = ctx.saved["input"], ctx.params["dims"]
            batch = tuple(range(a.ndim - len(dims)))
            return _composed_grads(ctx, g, a, ctx.saved.get("weight"), dims, None, batch)
        ins = (g, ctx.saved["input"], None, None, ctx.saved.get("weight"), ctx.saved.get("bias"))
        return _fused_grads(ctx, "layer_norm_backward", ins)

    xp = array_module(g)
    a = getattr(ctx.saved["input"], "_data", ctx.saved["input"])
    w = ctx.saved.get("weight")
    w = getattr(w, "_data", w)
    dims = ctx.params["dims"]
    mean, rstd = _ln_stats(xp, a, dims, ctx.params["eps"])
    xhat = (a - mean) * rstd
    batch = tuple(range(a.ndim - len(dims)))
    dxhat = g * w if w is not None else g
    gi = _normalised_grad(xp, dxhat, xhat, rstd, dims) if ctx.needs[0] else None
    gw = xp.sum(g * xhat, axis=batch) if len(ctx.needs) > 1 and ctx.needs[1] else None
    gb = xp.sum(g, axis=batch) if len(ctx.needs) > 2 and ctx.needs[2] else None
    return gi, gw, gb


LAYER_NORM = declare(
    "layer_norm",
    "NativeLayerNormBackward0",
    ("input", "weight", "bias"),
    _ln_fwd,
    _ln_grad,
    save={"input": None, "weight": None, "bias": None},
    samples=(
        Sample(((2, 3, 4), (4,), (4,)), {"dims": (2,), "eps": 1e-5}),
        Sample(((2, 3, 4), (3, 4), (3, 4)), {"dims": (1, 2), "eps": 1e-5}),
    ),
)


declare(
    "layer_norm_backward",
    "NativeLayerNormBackwardBackward0",
    ("grad_out", "input", "mean", "rstd", "weight", "bias"),
    _fused_kernel(_ln_grad, (0, 1, 4)),
    _fused_double_backward(_ln_grad, (0, 1, 4)),
    dtype="same",
    save={"grad_out": None, "input": None, "weight": None},
)


@public(
    "layer_norm",
    ("input", Port("weight", optional=True), Port("bias", optional=True)),
    (Param("normalized_shape", "shape", (4,)), Param("eps", "float")),
    namespace=NS,
    category="layer",
    doc="normalise over the last dimensions",
    method=False,
    example=Example(inputs={"weight": (3,), "bias": (3,)}, params={"normalized_shape": [3]}),
)
def layer_norm(
    input: Any,  # noqa: A002
    normalized_shape: Any,
    weight: Any = None,
    bias: Any = None,
    eps: float = 1e-5,
) -> Any:
    shape = int_tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape) :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(map(str, shape))}], but got input of size{list(input.shape)}"
        )
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    return apply_op(LAYER_NORM, (input, weight, bias), {"dims": dims, "eps": eps})


# -- batch_norm ---------------------------------------------------------------------------
def _bn_axes(a: Any) -> tuple[int, ...]:
    return (0, *range(2, a.ndim))


def _bn_shape(a: Any) -> tuple[int, ...]:
    return (1, a.shape[1], *([1] * (a.ndim - 2)))


def _bn_fwd(
    xp: Any,
    a: Any,
    w: Any = None,
    b: Any = None,
    *,
    training: bool,
    eps: float,
    mean: Any = None,
    var: Any = None,
) -> Any:
    axes = _bn_axes(a)
    if training:
        mu = xp.mean(a, axis=axes, keepdims=True)
        sigma2 = xp.mean((a - mu) ** 2, axis=axes, keepdims=True)
    else:
        mu, sigma2 = mean.reshape(_bn_shape(a)), var.reshape(_bn_shape(a))
    y = (a - mu) / xp.sqrt(sigma2 + a.dtype.type(eps))
    if w is not None:
        y = y * w.reshape(_bn_shape(a))
    if b is not None:
        y = y + b.reshape(_bn_shape(a))
    return y


def _bn_grad(ctx: Any, g: Any) -> tuple[Any, Any, Any]:
    if ctx.math is TENSOR_MATH and not ctx.params.get("composed"):
        return _fused_grads(
            ctx, "batch_norm_backward", (g, ctx.saved["input"], ctx.saved.get("weight"), None, None)
        )
    if ctx.math is TENSOR_MATH:
        a, w = ctx.saved["input"], ctx.saved.get("weight")
        shape, axes = _bn_shape(a), _bn_axes(a)
        if w is not None:
            w = ctx.math.view(w, size=shape)
        stats = None
        if not ctx.params["training"]:
            var = ctx.params["var"].reshape(shape)
            stats = (
                ctx.params["mean"].reshape(shape),
                1 / (var + var.dtype.type(ctx.params["eps"])) ** 0.5,
            )
        return _composed_grads(ctx, g, a, w, axes, stats, axes)

    xp = array_module(g)
    a = getattr(ctx.saved["input"], "_data", ctx.saved["input"])
    w = ctx.saved.get("weight")
    w = getattr(w, "_data", w)
    axes = _bn_axes(a)
    eps = ctx.params["eps"]
    if ctx.params["training"]:
        mu = xp.mean(a, axis=axes, keepdims=True)
        sigma2 = xp.mean((a - mu) ** 2, axis=axes, keepdims=True)
    else:
        mu, sigma2 = (
            ctx.params["mean"].reshape(_bn_shape(a)),
            ctx.params["var"].reshape(_bn_shape(a)),
        )
    rstd = 1 / xp.sqrt(sigma2 + a.dtype.type(eps))
    xhat = (a - mu) * rstd
    dxhat = g * w.reshape(_bn_shape(a)) if w is not None else g
    gi = None
    if ctx.needs[0]:
        # in training the statistics depend on the input too; in eval they are constants
        gi = (
            _normalised_grad(xp, dxhat, xhat, rstd, axes)
            if ctx.params["training"]
            else dxhat * rstd
        )
    gw = xp.sum(g * xhat, axis=axes) if len(ctx.needs) > 1 and ctx.needs[1] else None
    gb = xp.sum(g, axis=axes) if len(ctx.needs) > 2 and ctx.needs[2] else None
    return gi, gw, gb


BATCH_NORM = declare(
    "batch_norm",
    "NativeBatchNormBackward0",
    ("input", "weight", "bias"),
    _bn_fwd,
    _bn_grad,
    save={"input": None, "weight": None},
    samples=(
        Sample(((4, 3), (3,), (3,)), {"training": True, "eps": 1e-5}),
        Sample(((2, 3, 2, 2), (3,), (3,)), {"training": True, "eps": 1e-5}),
    ),
)


declare(
    "batch_norm_backward",
    "NativeBatchNormBackwardBackward0",
    ("grad_out", "input", "weight", "save_mean", "save_invstd"),
    _fused_kernel(_bn_grad, (0, 1, 2)),
    _fused_double_backward(_bn_grad, (0, 1, 2)),
    dtype="same",
    save={"grad_out": None, "input": None, "weight": None},
)


@public(
    "batch_norm",
    (
        "input",
        Port("running_mean", optional=True),
        Port("running_var", optional=True),
        Port("weight", optional=True),
        Port("bias", optional=True),
    ),
    (
        Param("training", "bool"),
        Param("momentum", "float"),
        Param("eps", "float"),
    ),
    namespace=NS,
    category="layer",
    doc="normalise each channel over the batch",
    method=False,
    example=Example(
        inputs={"running_mean": (3,), "running_var": (3,), "weight": (3,), "bias": (3,)},
        params={"training": True},
        values={"running_mean": "constant", "running_var": "positive"},
    ),
)
def batch_norm(
    input: Any,  # noqa: A002
    running_mean: Any,
    running_var: Any,
    weight: Any = None,
    bias: Any = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Any:
    if input.ndim < 2:
        raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")
    per_channel = math.prod(input.shape) // input.shape[1]
    if training and per_channel == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {input.shape}"
        )
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.numel() != input.shape[1]:
            raise RuntimeError(f"{name} should contain {input.shape[1]} elements not {t.numel()}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != input.shape[1]:
            raise RuntimeError(f"{name} should contain {input.shape[1]} elements not {t.numel()}")
    params: dict[str, Any] = {"training": bool(training), "eps": eps}
    if not training:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        params["mean"], params["var"] = running_mean._data, running_var._data
    out = apply_op(BATCH_NORM, (input, weight, bias), params)
    if training and running_mean is not None:
        _update_running(input, running_mean, running_var, momentum, per_channel)
    return out


def _update_running(x: Any, mean: Tensor, var: Tensor, momentum: float, n: int) -> None:
    """ATen's kernel writes the running statistics directly: their versions stay."""

    xp = array_module(x._data)
    axes = _bn_axes(x._data)
    batch_mean = xp.mean(x._data, axis=axes)
    batch_var = xp.var(x._data, axis=axes) * (n / (n - 1))
    m = mean._data.dtype.type(momentum)
    mean._data[...] = (1 - m) * mean._data + m * batch_mean.astype(mean._data.dtype)
    var._data[...] = (1 - m) * var._data + m * batch_var.astype(var._data.dtype)


# -- embedding ----------------------------------------------------------------------------
def _embedding_dense_backward(
    xp: Any, g: Any, indices: Any, shape: tuple[int, ...], padding_idx: Any = None
) -> Any:
    idx = indices.reshape(-1)
    rows = g.reshape(idx.size, -1)
    if padding_idx is not None:
        rows = rows * (idx != padding_idx).reshape(-1, 1)
    grad = xp.zeros(shape, dtype=g.dtype)
    xp.add.at(grad, idx, rows)
    return grad


def _embedding_double_backward(ctx: Any, gg: Any) -> Any:
    """``embedding_dense_double_backward``: the rows of ``gg`` the indices pick, zero at
    ``padding_idx``."""
    indices, pad = ctx.params["indices"], ctx.params.get("padding_idx")
    picked = ctx.math.embedding(gg, indices=indices)
    if pad is not None:
        picked = ctx.math.masked_fill(picked, mask=(indices == pad)[..., None], value=0)
    return picked


declare(
    "embedding_dense_backward",
    "EmbeddingDenseBackwardBackward0",
    ("grad_output",),
    _embedding_dense_backward,
    _embedding_double_backward,
    dtype="same",
    samples=(Sample(((2, 3, 3),), {"indices": "embedding_indices", "shape": (5, 3)}),),
)


def _embedding_grad(ctx: Any, g: Any) -> Any:
    return ctx.math.embedding_dense_backward(
        g,
        indices=ctx.params["indices"],
        shape=tuple(ctx.shapes[0]),
        padding_idx=ctx.params.get("padding_idx"),
    )


EMBEDDING = declare(
    "embedding",
    "EmbeddingBackward0",
    ("weight",),
    lambda xp, w, indices, padding_idx=None: w[indices],
    _embedding_grad,
    dtype="same",
    saved_params=("indices",),
    samples=(Sample(((5, 3),), {"indices": "embedding_indices"}),),
)


@public(
    "embedding",
    ("input", "weight"),
    (Param("padding_idx", "int"),),
    namespace=NS,
    category="layer",
    doc="rows of weight picked by integer indices",
    method=False,
    example=Example(inputs={"input": (2, 2), "weight": (3, 2)}, values={"input": "index"}),
)
def embedding(
    input: Any,  # noqa: A002
    weight: Any,
    padding_idx: int | None = None,
    max_norm: Any = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Any:
    if input.dtype.is_floating_point:
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got torch.{input.dtype.scalar_name}Tensor instead (while "
            "checking arguments for embedding)"
        )
    check_common_device("_index_select", self=weight, index=input)  # (weight.index_select)
    n = weight.shape[0]
    idx = input._data
    if idx.size and (int(idx.max()) >= n or int(idx.min()) < 0):
        raise IndexError("index out of range in self")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += n
    return apply_op(EMBEDDING, (weight,), {"indices": idx, "padding_idx": padding_idx})
