"""``engine.nn.functional`` (``F``): re-exported from the op declarations."""

from engine.nn.dropout import dropout, dropout1d, dropout2d
from engine.nn.gumbel_softmax import gumbel_softmax
from engine.nn.kl_div import kl_div

# PyTorch's private helpers of ``multi_head_attention_forward`` too: attention code copied
# from ``torch/nn`` calls them as ``F._canonical_mask(...)``
from engine.nn.multi_head_attention import (
    _canonical_mask,  # noqa: F401
    _in_projection,  # noqa: F401
    _in_projection_packed,  # noqa: F401
    _mha_shape_check,  # noqa: F401
    _none_or_dtype,  # noqa: F401
    multi_head_attention_forward,
)
from engine.nn.sdpa import scaled_dot_product_attention
from engine.ops.nn import (
    cross_entropy,
    linear,
    log_softmax,
    mse_loss,
    nll_loss,
    relu,
    sigmoid,
    softmax,
    tanh,
)

__all__ = [
    "cross_entropy",
    "dropout",
    "dropout1d",
    "dropout2d",
    "gumbel_softmax",
    "kl_div",
    "linear",
    "log_softmax",
    "mse_loss",
    "multi_head_attention_forward",
    "nll_loss",
    "relu",
    "scaled_dot_product_attention",
    "sigmoid",
    "softmax",
    "tanh",
]

from engine import ops as _ops
from engine.catalog import FUNCTIONS as _FUNCTIONS
from engine.catalog import Example as _Example
from engine.catalog import Param as _Param
from engine.catalog import public as _public
from engine.ops.adaptive_pool import adaptive_avg_pool1d
from engine.ops.composites import cosine_similarity, normalize
from engine.ops.nn import resolve_softmax_dim as _resolve_softmax_dim
from engine.ops.nn import softmax as _softmax
from engine.ops.one_hot import one_hot
from engine.ops.pool import avg_pool1d, max_pool1d

for _sig in _FUNCTIONS.values():
    if _sig.namespace == "torch.nn.functional" and _sig.name not in globals():
        globals()[_sig.name] = _sig.fn
        __all__.append(_sig.name)


@_public(
    "softmin",
    ("input",),
    (_Param("dim", "optional_dim", -1), _Param("dtype", "dtype")),
    namespace="torch.nn.functional",
    category="activation",
    doc="softmax of -input along dim",
    method=False,
)
def softmin(input, dim=None, _stacklevel=3, dtype=None):  # type: ignore[no-untyped-def]  # noqa: A002
    """``softmax(-input)``, as ``torch.nn.functional`` writes it (``NegBackward0`` first);
    without ``dim``, PyTorch's deprecated implicit choice, with its warning."""
    dim = _resolve_softmax_dim("softmin", input, dim, _stacklevel)
    return _softmax(-input if dtype is None else (-input).to(dtype), dim)


#: ``F.relu_`` is ``torch.relu_`` itself, as in PyTorch: the declaration of ``Tensor.relu_``.
relu_ = _FUNCTIONS["torch.Tensor.relu_"].fn


__all__ += [
    "adaptive_avg_pool1d",
    "avg_pool1d",
    "cosine_similarity",
    "max_pool1d",
    "normalize",
    "one_hot",
    "relu_",
    "softmin",
]
del _ops, _sig


@_public(
    "upsample",
    ("input",),
    (
        _Param("size", "sizes"),
        _Param("scale_factor", "float"),
        _Param("mode", "str", choices=("nearest", "linear", "bilinear", "area")),
    ),
    namespace="torch.nn.functional",
    category="layer",
    doc="interpolate under its deprecated name",
    method=False,
    example=_Example(inputs={"input": (1, 2, 3, 3)}, params={"scale_factor": 2.0}),
)
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # type: ignore[no-untyped-def]  # noqa: A002
    """Deprecated in PyTorch (it warns so): ``interpolate``."""
    import warnings

    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)  # type: ignore[name-defined]  # noqa: F821


@_public(
    "upsample_nearest",
    ("input",),
    (_Param("size", "sizes"), _Param("scale_factor", "float")),
    namespace="torch.nn.functional",
    category="layer",
    doc="interpolate, nearest, under its deprecated name",
    method=False,
    example=_Example(inputs={"input": (1, 2, 3, 3)}, params={"scale_factor": 2.0}),
)
def upsample_nearest(input, size=None, scale_factor=None):  # type: ignore[no-untyped-def]  # noqa: A002
    """Deprecated in PyTorch (it warns so): ``interpolate`` in nearest mode."""
    import warnings

    warnings.warn(
        "`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")  # type: ignore[name-defined]  # noqa: F821


@_public(
    "upsample_bilinear",
    ("input",),
    (_Param("size", "sizes"), _Param("scale_factor", "float")),
    namespace="torch.nn.functional",
    category="layer",
    doc="interpolate, bilinear, corners aligned, under its deprecated name",
    method=False,
    example=_Example(inputs={"input": (1, 2, 3, 3)}, params={"scale_factor": 2.0}),
)
def upsample_bilinear(input, size=None, scale_factor=None):  # type: ignore[no-untyped-def]  # noqa: A002
    """Deprecated in PyTorch (it warns so): ``interpolate``, bilinear with corners aligned."""
    import warnings

    warnings.warn(
        "`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)  # type: ignore[name-defined]  # noqa: F821


__all__ += ["upsample", "upsample_bilinear", "upsample_nearest"]
