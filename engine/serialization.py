"""``save`` and ``load``: tensors, parameters and containers of them, pickled.

The file is a pickle whose tensors are rebuilt from raw bytes, dtype and shape (so
every dtype survives, unlike a list of Python numbers).  ``load`` defaults to
``weights_only=True`` as PyTorch 2.6+ does: only tensors, parameters, numbers,
strings and the standard containers come back, and anything else is refused with
PyTorch's message instead of running code from the file.  The format is the
engine's own: files written by PyTorch are not read, and PyTorch does not read these.
"""

from __future__ import annotations

import collections
import copyreg
import io
import os
import pickle
from typing import Any

import numpy as np

from engine import dtypes
from engine.backend import to_numpy
from engine.nn.parameter import Parameter
from engine.tensor import Tensor

_PROTOCOL = 4


def _rebuild_tensor(raw: bytes, dtype: str, shape: tuple[int, ...], requires_grad: bool) -> Tensor:
    dt = dtypes.FROM_NP[np.dtype(dtype)]
    arr = np.frombuffer(raw, dtype=dt.np).reshape(shape).copy()
    t = Tensor._wrap(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data: Tensor, requires_grad: bool) -> Any:
    return Parameter(data, requires_grad)


def _reduce_tensor(t: Tensor) -> tuple[Any, ...]:
    # the tensor's own shape: ``ascontiguousarray`` makes a 0-d array 1-d
    arr = np.ascontiguousarray(to_numpy(t._data))
    return (_rebuild_tensor, (arr.tobytes(), t.dtype.name, tuple(t.shape), t.requires_grad))


def _reduce_parameter(p: Any) -> tuple[Any, ...]:
    return (_rebuild_parameter, (p.detach(), p.requires_grad))


def _pickler(f: Any) -> pickle.Pickler:
    pickler = pickle.Pickler(f, protocol=_PROTOCOL)
    table = copyreg.dispatch_table.copy()
    table[Tensor] = _reduce_tensor
    table[Parameter] = _reduce_parameter
    pickler.dispatch_table = table
    return pickler


def save(
    obj: Any,
    f: Any,
    pickle_module: Any = None,
    pickle_protocol: int = _PROTOCOL,
    _use_new_zipfile_serialization: bool = True,
) -> None:
    """Write ``obj`` to a path or a binary file object."""
    if isinstance(f, str | os.PathLike):
        with open(f, "wb") as out:
            _pickler(out).dump(obj)
    else:
        _pickler(f).dump(obj)


_SAFE = {
    ("engine.serialization", "_rebuild_tensor"): _rebuild_tensor,
    ("engine.serialization", "_rebuild_parameter"): _rebuild_parameter,
    ("collections", "OrderedDict"): collections.OrderedDict,
}


class _WeightsUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        found = _SAFE.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(
                "Weights only load failed. This file can still be loaded, to do so you have two "
                "options, do those steps only if you trust the source of the checkpoint. \n\t(1) "
                "In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
                "`torch.load` from `False` to `True`. Re-running `torch.load` with "
                "`weights_only` set to `False` will likely succeed, but it can result in "
                "arbitrary code execution. Do it only if you got the file from a trusted "
                "source.\n\t(2) Alternatively, to load with `weights_only=True` please check "
                "the recommended steps in the following error message.\n\tWeightsUnpickler "
                f"error: Unsupported global: GLOBAL {module}.{name} was not an allowed global "
                "by default."
            )
        return found


def load(
    f: Any,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: Any = None,
    **pickle_load_args: Any,
) -> Any:
    """Read what ``save`` wrote; ``map_location`` moves tensors (``"cpu"``, ``"cuda"``)."""
    if isinstance(f, str | os.PathLike):
        with open(f, "rb") as src:
            data = src.read()
    else:
        data = f.read()
    stream = io.BytesIO(data)
    unpickler = pickle.Unpickler(stream) if weights_only is False else _WeightsUnpickler(stream)
    obj = unpickler.load()
    if map_location is not None:
        obj = _move(obj, map_location)
    return obj


def _move(obj: Any, where: Any) -> Any:
    if isinstance(obj, Parameter):
        return Parameter(obj.detach().to(where), obj.requires_grad)
    if isinstance(obj, Tensor):
        moved = obj.detach().to(where)
        return moved.requires_grad_(obj.requires_grad) if obj.requires_grad else moved
    if isinstance(obj, dict):
        return type(obj)((k, _move(v, where)) for k, v in obj.items())
    if isinstance(obj, list | tuple):
        return type(obj)(_move(v, where) for v in obj)
    return obj
