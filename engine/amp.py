"""``torch.autocast`` (``torch.amp.autocast``): automatic mixed precision, as ATen's
``Autocast`` dispatch keys apply it.

Inside an enabled region an op on PyTorch's lists casts its floating tensor arguments
before it runs (``at::autocast::cached_cast``, a ``_to_copy`` that shows in the graph as
``ToCopyBackward0``); ops on no list run in the widest input type, as they would outside.
The lists are ``aten/src/ATen/autocast_mode.cpp``'s for the CPU (``KERNEL_CPU``), less the
ATen names the engine has no public function for:

- ``lower_precision_fp``: to the region's dtype (bfloat16 by default on the CPU);
- ``fp32``: to float32 (the losses, ``prod``, ``cdist``, the decompositions);
- ``promote``: every floating argument to their widest type (``cat``, ``stack``).

A float64 argument is never cast to a lower or to float32 (``cached_cast`` skips
``kDouble``), and only tensors on the region's device are.  While a listed op runs the
region is suspended for the ops it is made of (ATen's ``ExcludeDispatchKeyGuard``), so
``linear``'s ``addmm`` does not cast again.  A float32 leaf that requires grad is cast
once per outermost region (``cached_casts``): a weight used twice has one
``ToCopyBackward0``.

The catalogue wraps each listed public function with ``autocast_wrapped`` as it
registers it, so ``F.linear``, ``x @ w``, ``nn.Linear`` and the studio's node all take
the one path; outside a region the wrapper is a flag test.
"""

from __future__ import annotations

import functools
import warnings
import weakref
from collections.abc import Callable
from typing import Any

from engine import dtypes, warn_site
from engine.backend import CUDA_BFLOAT16, cuda_available

#: PyTorch's CPU autocast policy, by the engine's qualified public name.
LOWER = "lower_precision_fp"
FP32 = "fp32"
PROMOTE = "promote"
_F = "torch.nn.functional."
POLICY: dict[str, str] = {
    **{
        name: LOWER
        for name in (
            f"{_F}conv1d",
            f"{_F}conv2d",
            f"{_F}conv3d",
            "torch.bmm",
            "torch.mm",
            "torch.linalg.vecdot",
            "torch.baddbmm",
            "torch.addmm",
            "torch.addbmm",
            f"{_F}linear",
            "torch.matmul",
            f"{_F}conv_transpose1d",
            f"{_F}conv_transpose2d",
            f"{_F}conv_transpose3d",
            f"{_F}prelu",
            "torch.prelu",
            f"{_F}scaled_dot_product_attention",
        )
    },
    **{
        name: FP32
        for name in (
            f"{_F}binary_cross_entropy",
            "torch.prod",
            "torch.quantile",
            "torch.nanquantile",
            "torch.cdist",
            "torch.trace",
            "torch.cholesky",
            "torch.inverse",
            "torch.pinverse",
            f"{_F}mse_loss",
            f"{_F}nll_loss",
            f"{_F}smooth_l1_loss",
            f"{_F}cross_entropy",
            f"{_F}l1_loss",
            f"{_F}huber_loss",
            f"{_F}kl_div",
            f"{_F}binary_cross_entropy_with_logits",
            "torch.linalg.matrix_rank",
            "torch.linalg.solve",
            "torch.linalg.cholesky",
            "torch.linalg.svdvals",
            "torch.linalg.eigvalsh",
            "torch.linalg.inv",
            "torch.linalg.qr",
            "torch.linalg.svd",
            "torch.linalg.eigh",
            "torch.linalg.lstsq",
        )
    },
    **{name: PROMOTE for name in ("torch.cat", "torch.stack", "torch.index_copy")},
}

#: The dtypes a CPU region may lower to (``autocast.__init__``'s check).
_CPU_DTYPES = (dtypes.bfloat16, dtypes.float16)


class _State:
    """The process-wide autocast state, per device type, as ATen keeps it."""

    def __init__(self) -> None:
        self.enabled = {"cpu": False, "cuda": False}
        self.dtype = {"cpu": dtypes.bfloat16, "cuda": dtypes.float16}
        self.cache_enabled = True
        self.nesting = 0
        #: Inside a listed op: its own ops do not cast again.
        self.suspended = 0
        #: id(leaf) -> (weakref to the leaf, its cast), for one outermost region.
        self.cache: dict[int, tuple[Any, Any]] = {}

    def active(self) -> bool:
        return not self.suspended and (self.enabled["cpu"] or self.enabled["cuda"])


STATE = _State()


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """``torch.is_autocast_enabled``: CUDA's state without an argument, as in PyTorch."""
    return STATE.enabled[_device_type(device_type or "cuda")]


def get_autocast_dtype(device_type: str) -> dtypes.dtype:
    """``torch.get_autocast_dtype``: the dtype a region of ``device_type`` lowers to."""
    return STATE.dtype[_device_type(device_type)]


def clear_autocast_cache() -> None:
    """``torch.clear_autocast_cache``: forget the casts of weights kept for reuse."""
    STATE.cache.clear()


def _device_type(device_type: str) -> str:
    if device_type not in STATE.enabled:
        raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
    return device_type


class autocast:  # noqa: N801  (PyTorch's name)
    """``torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``: a
    context manager and a decorator.  A CUDA region where the engine has no CUDA device
    warns and is disabled, as PyTorch's CPU-only build does; an unsupported CPU dtype
    likewise."""

    def __init__(
        self,
        device_type: str,
        dtype: Any = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = _device_type(device_type)
        self.fast_dtype = STATE.dtype[self.device] if dtype is None else dtype
        self._cache_enabled = STATE.cache_enabled if cache_enabled is None else cache_enabled
        enabled = bool(enabled)
        if self.device == "cpu" and enabled and self.fast_dtype not in _CPU_DTYPES:
            _warn(
                "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently."
            )
            enabled = False
        if self.device == "cuda" and enabled:
            if not cuda_available():
                _warn("CUDA is not available or torch_xla is imported. Disabling autocast.")
                enabled = False
            elif self.fast_dtype is dtypes.bfloat16:
                raise RuntimeError(CUDA_BFLOAT16)
        self._enabled = enabled
        self._saved: list[tuple[bool, dtypes.dtype, bool]] = []

    def __enter__(self) -> autocast:
        self._saved.append(
            (STATE.enabled[self.device], STATE.dtype[self.device], STATE.cache_enabled)
        )
        STATE.enabled[self.device] = self._enabled
        STATE.dtype[self.device] = self.fast_dtype
        STATE.cache_enabled = self._cache_enabled
        STATE.nesting += 1
        return self

    def __exit__(self, *exc: Any) -> bool:
        STATE.nesting -= 1
        if STATE.nesting == 0:
            clear_autocast_cache()
        enabled, dtype, cache_enabled = self._saved.pop()
        STATE.enabled[self.device] = enabled
        STATE.dtype[self.device] = dtype
        STATE.cache_enabled = cache_enabled
        return False

    def __call__(self, func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def decorated(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return decorated


def _warn(message: str) -> None:
    warnings.warn(message, UserWarning, stacklevel=warn_site.outside_engine())


def autocast_wrapped(qualname: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` under its autocast policy, or ``fn`` itself where it has none."""
    policy = POLICY.get(qualname)
    if policy is None:
        return fn

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if not STATE.active():
            return fn(*args, **kwargs)
        for device in ("cpu", "cuda"):
            if STATE.enabled[device]:
                args, kwargs = _cast_arguments(policy, device, args, kwargs)
        STATE.suspended += 1
        try:
            return fn(*args, **kwargs)
        finally:
            STATE.suspended -= 1

    return call


def _eligible(value: Any, device: str) -> bool:
    """A floating tensor on the region's device (``is_autocast_eligible``)."""
    data = getattr(value, "_data", None)
    if data is None or not hasattr(value, "grad_fn"):
        return False
    return value.dtype.is_floating_point and value.device.type == device


def _cast_arguments(
    policy: str, device: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The arguments with each eligible tensor (in a list or tuple too) cast."""
    if policy == PROMOTE:
        target = STATE.dtype[device]
        for value in _tensors(args, kwargs):
            if _eligible(value, device):
                target = dtypes.promote_types(target, value.dtype)
    else:
        target = STATE.dtype[device] if policy == LOWER else dtypes.float32

    def cast(value: Any) -> Any:
        if isinstance(value, list | tuple) and not hasattr(value, "_fields"):
            return type(value)(cast(v) for v in value)
        if not _eligible(value, device) or value.dtype is target:
            return value
        if policy != PROMOTE and value.dtype is dtypes.float64:
            return value
        return _cached_cast(value, target, policy)

    return tuple(cast(a) for a in args), {k: cast(v) for k, v in kwargs.items()}


def _tensors(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    out: list[Any] = []
    for value in (*args, *kwargs.values()):
        if isinstance(value, list | tuple):
            out.extend(value)
        else:
            out.append(value)
    return out


def _cached_cast(value: Any, target: dtypes.dtype, policy: str) -> Any:
    """``value.to(target)``, reused within the outermost region for a float32 leaf that
    requires grad and is not a view (``cached_cast``'s ``can_try_cache``)."""
    cacheable = (
        policy == LOWER
        and STATE.cache_enabled
        and value.dtype is dtypes.float32
        and value.requires_grad
        and value.grad_fn is None
        and value._base is None
    )
    if not cacheable:
        return value.to(target)
    hit = STATE.cache.get(id(value))
    if hit is not None and hit[0]() is value:
        return hit[1]
    cast = value.to(target)
    STATE.cache[id(value)] = (weakref.ref(value), cast)
    return cast
