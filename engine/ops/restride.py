"""In-place shape methods (``unsqueeze_``, ``squeeze_``, ``t_``, ``transpose_``): the tensor
itself takes the new shape, its version is bumped and, when it records, its history moves
to the op's in-place node (``UnsqueezeBackward1``), as ATen's metadata-changing ops do."""

from __future__ import annotations

from typing import Any

from engine import grad_mode
from engine.messages import LEAF_INPLACE
from engine.ops.core import OpDef, Sample, apply_op, declare
from engine.ops.shape import _reshape_back, _wrap

UNSQUEEZE_ = declare(
    "unsqueeze_",
    "UnsqueezeBackward1",
    ("self",),
    lambda xp, a, dim: xp.expand_dims(a, dim),
    lambda c, g: c.m.squeeze_dim(g, dim=c.p["dim"]),
    dtype="same",
    samples=(Sample(((2, 3),), {"dim": 1}),),
)
SQUEEZE_ALL_ = declare(
    "squeeze_all_",
    "SqueezeBackward3",
    ("self",),
    lambda xp, a: a.reshape([s for s in a.shape if s != 1]),
    _reshape_back,
    dtype="same",
    samples=(Sample(((2, 1, 3),)),),
)
T_ = declare(
    "t_",
    "TBackward1",
    ("self",),
    lambda xp, a: a.T,
    lambda c, g: c.m.t(g),
    dtype="same",
    samples=(Sample(((2, 3),)),),
)
TRANSPOSE_ = declare(
    "transpose_",
    "TransposeBackward1",
    ("self",),
    lambda xp, a, dim0, dim1: xp.swapaxes(a, dim0, dim1),
    lambda c, g: c.m.transpose(g, dim0=c.p["dim0"], dim1=c.p["dim1"]),
    dtype="same",
    samples=(Sample(((2, 3, 4),), {"dim0": 0, "dim1": 2}),),
)


def _restride(self: Any, op: OpDef, params: dict[str, Any]) -> Any:
    """``self`` made the op's result: its array, its node, one more version."""
    if self.grad_fn is None and self._requires_grad and grad_mode.STATE.enabled:
        raise RuntimeError(LEAF_INPLACE)
    out = apply_op(op, (self,), params)
    if out.grad_fn is not None:
        self._counter()  # records of its old node keep watching its version
        self.grad_fn = out.grad_fn
        self._output_nr = 0
    self._data = out._data
    self._counter()[0] += 1
    return self


def unsqueeze_(self: Any, dim: int) -> Any:
    return _restride(self, UNSQUEEZE_, {"dim": _wrap(dim, self.ndim + 1)})


def squeeze_(self: Any, dim: Any = None) -> Any:
    from engine.ops.shape import SQUEEZE4

    if dim is None:
        return _restride(self, SQUEEZE_ALL_, {})
    if not isinstance(dim, int):
        for d in sorted((_wrap(d, self.ndim) for d in dim), reverse=True):
            squeeze_(self, d)
        return self
    return _restride(self, SQUEEZE4, {"dim": _wrap(dim, self.ndim) if self.ndim else 0})


def t_(self: Any) -> Any:
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _restride(self, T_, {})


def transpose_(self: Any, dim0: int, dim1: int) -> Any:
    n = self.ndim
    return _restride(self, TRANSPOSE_, {"dim0": _wrap(dim0, n), "dim1": _wrap(dim1, n)})
