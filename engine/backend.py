"""The one place that chooses the array module for a device.

CPU tensors hold NumPy arrays, CUDA tensors hold CuPy arrays.  Every op is
written once against an array module ``xp``; this module hands out the right
one and explains, in PyTorch's words where they exist, why CUDA cannot be used.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

import numpy as np


class device:  # noqa: N801  (PyTorch spells it in lower case)
    """A device such as ``cpu`` or ``cuda:0``; compares equal to its string form."""

    __slots__ = ("index", "type")

    def __init__(self, type: str | device, index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if not isinstance(type, str):
            raise TypeError(
                f"device() received an invalid combination of arguments - got ({type!r})"
            )
        name, _, idx = type.partition(":")
        if name not in ("cpu", "cuda"):
            raise RuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, "
                "fpga, "
                "maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start "
                f"of device string: {type}"
            )
        if idx:
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(idx)
        self.type = name
        self.index = index

    def __repr__(self) -> str:
        idx = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{idx})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = device("cpu")
CUDA0 = device("cuda", 0)


@functools.cache
def _cupy_status() -> tuple[ModuleType | None, str]:
    """Import CuPy and probe for a GPU once; return (module or None, reason)."""
    try:
        import cupy  # type: ignore[import-not-found]
    except Exception as exc:  # ImportError, or a broken CUDA install
        return None, f"CuPy cannot be imported ({exc.__class__.__name__}: {exc})"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return None, f"CuPy found no usable CUDA driver ({exc})"
    if count < 1:
        return None, "CuPy is installed but no CUDA GPU is present"
    return cupy, ""


def cuda_available() -> bool:
    return _cupy_status()[0] is not None


def cuda_unavailable_reason() -> str:
    return _cupy_status()[1]


def cupy_module() -> ModuleType:
    """CuPy, or a RuntimeError that says why CUDA cannot be used here."""
    mod, why = _cupy_status()
    if mod is None:
        raise RuntimeError(
            f"Torch not compiled with CUDA enabled: {why}. "
            "GradStudio runs CUDA tensors on CuPy; install it with `pip install -e '.[cuda]'` "
            "on a machine with an NVIDIA GPU, or use device='cpu'."
        )
    return mod


#: Where new tensors go when no device is given (``set_default_device``).
DEFAULT_DEVICE: device


def to_device(dev: Any) -> device:
    """Normalise a user's device argument (str, int, device or None)."""
    if dev is None:
        return DEFAULT_DEVICE
    if isinstance(dev, device):
        d = dev
    elif isinstance(dev, int):
        d = device("cuda", dev)
    else:
        d = device(dev)
    if d.type == "cuda":
        cupy_module()
        return CUDA0 if d.index in (None, 0) else d
    return CPU


def xp_for(dev: device) -> ModuleType:
    """The array module that holds tensors of ``dev``."""
    return np if dev.type == "cpu" else cupy_module()


def array_module(arr: Any) -> ModuleType:
    """The array module an array belongs to (NumPy unless it is a CuPy array)."""
    if isinstance(arr, np.ndarray | np.generic):
        return np
    return cupy_module()


def device_of(arr: Any) -> device:
    return CPU if isinstance(arr, np.ndarray | np.generic) else CUDA0


#: What a bfloat16 tensor on the engine's CUDA device raises: CuPy, which holds the
#: engine's CUDA arrays, has no bfloat16 dtype (``ml_dtypes``' is a NumPy one only).
CUDA_BFLOAT16 = (
    "bfloat16 tensors are not supported on the engine's CUDA device: CuPy, which holds "
    "its CUDA tensors, has no bfloat16 dtype. Keep bfloat16 tensors on the CPU, or use "
    "torch.float16 or torch.float32 on CUDA."
)


def refuse_cuda_dtype(np_dtype: Any, dev: device) -> None:
    """A clear ``RuntimeError`` for a dtype CuPy cannot hold, before CuPy fails on it."""
    if dev.type == "cuda" and np_dtype.kind == "V":
        raise RuntimeError(CUDA_BFLOAT16)


def transfer(arr: Any, dev: device) -> Any:
    """``arr`` on ``dev``: the one place arrays cross between host and GPU.

    ``numpy.asarray`` of a CuPy array raises (CuPy forbids implicit copies) and
    ``cupy.asarray`` of a host array silently uploads it, so neither may be used
    to "normalise" an array whose device is not known.
    """
    if dev.type == "cpu":
        return to_numpy(arr)
    if isinstance(arr, np.ndarray | np.generic | int | float | bool):
        if isinstance(arr, np.ndarray | np.generic):
            refuse_cuda_dtype(arr.dtype, dev)
        return cupy_module().asarray(arr)
    return arr


_NUMPY_TYPES = (np.ndarray, np.generic)


def is_writeable(arr: Any) -> bool:
    """Whether an array may be written in place.

    NumPy marks broadcast views read-only; CuPy's ``flags`` has no ``writeable``
    (only ``c_contiguous``, ``f_contiguous``, ``owndata``) and every CuPy array is
    writeable, so for it ownership (``base is None``) is the caller's test.
    """
    if isinstance(arr, _NUMPY_TYPES):  # NumPy scalars are never writeable
        return bool(arr.flags.writeable)
    return True


def to_numpy(arr: Any) -> np.ndarray:
    """A host copy (or the array itself on CPU)."""
    if isinstance(arr, np.ndarray):
        return arr
    if isinstance(arr, np.generic | int | float | bool):
        return np.asarray(arr)
    return arr.get()


DEFAULT_DEVICE = CPU
