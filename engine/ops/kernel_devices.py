"""The device check of ATen's generated CUDA wrappers, for ops whose tensors other than
the first reach the kernel as parameters (indices, targets, class weights).

Ops whose tensors are all inputs get TensorIterator's check (``core._same_device``); an
index or target that rides in ``params`` would reach the device kernel as a host array,
which CuPy refuses with a ``TypeError`` no learner could read.  PyTorch checks these in
the wrapper the dispatcher calls (``c10::impl::check_and_update_common_device``): the
first tensor sets the device, and the first other tensor elsewhere is named, with the
wrapper, in ``common_device_check_failure``'s words (PyTorch 2.13's ``adaption.cpp``).
"""

from __future__ import annotations

from typing import Any


def check_common_device(method: str, **tensors: Any) -> None:
    """Raise PyTorch's error when ``tensors`` (by argument name, in the op's argument
    order; ``None`` for an optional one left out) are on more than one device.  ``method``
    is the CUDA wrapper's name after ``wrapper_CUDA_`` (``_index_select``, ``gather``):
    the dispatcher picks CUDA's kernel whenever one of them is a CUDA tensor."""
    common = None
    for name, t in tensors.items():
        if t is None:
            continue
        if common is None:
            common = t.device
        elif t.device != common:
            raise RuntimeError(
                f"Expected all tensors to be on the same device, but got {name} is on "
                f"{t.device}, different from other tensors on {common} (when checking "
                f"argument in method wrapper_CUDA_{method})"
            )
