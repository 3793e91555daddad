"""``torch.set_float32_matmul_precision`` and its getter: a hint that float32 matrix products
may use TensorFloat-32 or bfloat16 inside. The engine's products always run in full float32
(as PyTorch's CPU ones do), so the setting is only remembered and reported back."""

from __future__ import annotations

import warnings

from engine import warn_site

_PRECISIONS = ("highest", "high", "medium")
_state = {"precision": "highest"}


def get_float32_matmul_precision() -> str:
    return _state["precision"]


def set_float32_matmul_precision(precision: str) -> None:
    """Remember ``precision``; any other word leaves it as it was, with PyTorch's warning."""
    if precision not in _PRECISIONS:
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
            "setFloat32MatmulPrecision call has no effect. (Triggered internally at "
            "/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:458.)",
            UserWarning,
            stacklevel=warn_site.stacklevel(2, __file__),
        )
        return
    _state["precision"] = precision
