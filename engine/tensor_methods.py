"""``Tensor`` methods that are not catalogue functions: questions about the dtype and the
memory (``is_complex``, ``is_signed``, ``nbytes``, ``itemsize``, ``storage_offset``),
conversions (``byte``, ``char``, ``short``), and the in-place forms of shape and
elementwise ops (``t_``, ``transpose_``, ``squeeze_``, ``unsqueeze_``, ``swapaxes_``,
``tril_``, ``triu_``, ``cumsum_``, ``square_``, ``logical_not_``).

An in-place view op (``x.t_()``) changes the tensor's shape without copying: the tensor
keeps its identity, its version counter moves, and its ``grad_fn`` becomes PyTorch's
node for the in-place op (``TBackward1``, ``SqueezeBackward3/4/5``...), whose edge is
the tensor's previous history.
"""

from __future__ import annotations

from typing import Any

from engine import counting, dtypes
from engine.catalog import public
from engine.integers import is_int
from engine.ops import shape
from engine.ops.core import OPS, Sample, apply_inplace, apply_op, check_inplace, declare
from engine.ops.placement import fill_diagonal_
from engine.ops.shape import _reshape_back, _wrap
from engine.ops.special import polygamma as of_order
from engine.tensor import Tensor

_SIGNED = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)


def is_complex(self: Tensor) -> bool:
    return False  # the engine has no complex dtypes


def is_signed(self: Tensor) -> bool:
    return self.dtype.is_floating_point or self.dtype in _SIGNED


def is_floating_point(self: Tensor) -> bool:
    return self.dtype.is_floating_point


def ndimension(self: Tensor) -> int:
    return self.ndim


def storage_offset(self: Tensor) -> int:
    """Elements between the start of the storage (the base's memory) and this view's."""
    base = self._base
    if base is None:
        return 0
    data, root = self._data, base._data
    if hasattr(data, "__array_interface__"):
        start, origin = data.__array_interface__["data"][0], root.__array_interface__["data"][0]
    else:  # CuPy
        start, origin = data.data.ptr, root.data.ptr
    return (start - origin) // max(data.itemsize, 1)


def _nbytes(self: Tensor) -> int:
    return int(self._data.size) * self._data.itemsize


def _itemsize(self: Tensor) -> int:
    return self._data.itemsize


def _to(dtype: Any, name: str) -> Any:
    def convert(self: Tensor, memory_format: Any = None) -> Tensor:
        return self.to(dtype)

    convert.__name__ = convert.__qualname__ = name
    return convert


# -- in-place view ops -----------------------------------------------------------------------
T_ = declare(
    "t_",
    "TBackward1",
    ("self",),
    lambda xp, a: a.T,
    lambda ctx, g: ctx.math.t(g),
    dtype="same",
    samples=(Sample(((2, 3),)),),
)
TRANSPOSE_ = declare(
    "transpose_",
    "TransposeBackward1",
    ("self",),
    lambda xp, a, dim0, dim1: xp.swapaxes(a, dim0, dim1),
    lambda ctx, g: ctx.math.transpose(g, dim0=ctx.params["dim0"], dim1=ctx.params["dim1"]),
    dtype="same",
    samples=(Sample(((2, 3, 4),), {"dim0": 0, "dim1": 2}),),
)
SQUEEZE3 = declare(
    "squeeze_all_",
    "SqueezeBackward3",
    ("self",),
    lambda xp, a: a.reshape([s for s in a.shape if s != 1]),
    _reshape_back,
    dtype="same",
    samples=(Sample(((2, 1, 3),)),),
)
SQUEEZE5 = declare(
    "squeeze_dims_",
    "SqueezeBackward5",
    ("self",),
    lambda xp, a, dims: a.reshape([s for i, s in enumerate(a.shape) if not (i in dims and s == 1)]),
    _reshape_back,
    dtype="same",
    samples=(Sample(((1, 2, 1, 3),), {"dims": (0, 2)}),),
)
UNSQUEEZE1 = declare(
    "unsqueeze_",
    "UnsqueezeBackward1",
    ("self",),
    lambda xp, a, dim: xp.expand_dims(a, dim),
    _reshape_back,
    dtype="same",
    samples=(Sample(((2, 3),), {"dim": 1}),),
)


def _restride(self: Tensor, op: Any, params: dict[str, Any]) -> Tensor:
    """``self`` re-viewed in place by ``op``: same object, new shape, version bumped, and
    (where it needs one) ``op``'s node over the previous history."""
    check_inplace(self)
    out = apply_op(op, (self,), params)
    self._data = out._data
    self._counter()[0] += 1
    if out.grad_fn is not None:
        self._output_nr = 0
        if self._base is not None and self._view_chain is not None:
            # the view is now the old view followed by this op's out-of-place twin, its
            # node kept as a view's is, to be made anew if its base changes (``_GradFn``)
            self._view_chain = (*self._view_chain, (_TWINS[op.name], params))
            self._view_fn = out.grad_fn
            self._view_ver = self._vc[0]
        else:
            self.grad_fn = out.grad_fn
    elif self._base is not None and self._view_chain is not None:
        self._view_chain = (*self._view_chain, (_TWINS[op.name], params))
    return self


def _twins() -> dict[str, Any]:
    return {
        "t_": shape.T_OP,
        "transpose_": shape.TRANSPOSE,
        "squeeze_all_": shape.SQUEEZE0,
        "squeeze_": shape.SQUEEZE1,
        "squeeze_dims_": shape.SQUEEZE2,
        "unsqueeze_": shape.UNSQUEEZE,
    }


_TWINS: dict[str, Any] = _twins()


def t_(self: Tensor) -> Tensor:
    check_inplace(self)  # first: a leaf's error comes before the shape's
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _restride(self, T_, {})


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    n = self.ndim
    return _restride(self, TRANSPOSE_, {"dim0": _wrap(dim0, n), "dim1": _wrap(dim1, n)})


def squeeze_(self: Tensor, dim: Any = None) -> Tensor:
    if dim is None:
        return _restride(self, SQUEEZE3, {})
    if is_int(dim):
        return _restride(self, OPS["squeeze_"], {"dim": _wrap(dim, self.ndim)})
    return _restride(self, SQUEEZE5, {"dims": tuple(_wrap(d, self.ndim) for d in dim)})


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return _restride(self, UNSQUEEZE1, {"dim": _wrap(dim, self.ndim + 1)})


# -- in-place elementwise and triangle ops ----------------------------------------------------
def tril_(self: Tensor, diagonal: int = 0) -> Tensor:
    if self.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return apply_inplace(OPS["tril"], (self,), {"diagonal": diagonal})


def triu_(self: Tensor, diagonal: int = 0) -> Tensor:
    if self.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return apply_inplace(OPS["triu"], (self,), {"diagonal": diagonal})


def cumsum_(self: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    if dtype is not None and dtype is not self.dtype:
        raise RuntimeError(
            f"Bad in-place call: input tensor dtype {self.dtype.scalar_name.lower()} and output "
            f"tensor dtype {dtype.scalar_name.lower()} should match"
        )
    return apply_inplace(OPS["cumsum"], (self,), {"dim": _wrap(dim, self.ndim) if self.ndim else 0})


@public(
    "square_",
    ("input",),
    namespace="torch.Tensor",
    category="in-place",
    doc="input ** 2, in place",
    mutates=True,
)
def square_(input: Tensor) -> Tensor:  # noqa: A002
    """``PowBackward0``, as ``square`` (ATen's ``square_`` is ``pow_(2)``)."""
    return input.pow_(2)


def logical_not_(self: Tensor) -> Tensor:
    """Written in the tensor's own dtype; the op is not differentiable, so the tensor's
    history is left as it is (as in PyTorch)."""
    check_inplace(self)
    self._data[...] = (self._data == 0).astype(self._data.dtype)
    self._counter()[0] += 1
    return self


def bincount(self: Tensor, weights: Any = None, minlength: int = 0) -> Tensor:
    return counting.bincount(self, weights, minlength)


def polygamma(self: Tensor, n: int) -> Tensor:
    """``x.polygamma(n)``: the method takes ``n`` after the tensor, the function before."""

    return of_order(n, self)


def _install() -> None:
    methods = {
        "is_complex": is_complex,
        "is_signed": is_signed,
        "ndimension": ndimension,
        "storage_offset": storage_offset,
        "byte": _to(dtypes.uint8, "byte"),
        "char": _to(dtypes.int8, "char"),
        "short": _to(dtypes.int16, "short"),
        "t_": t_,
        "transpose_": transpose_,
        "swapaxes_": transpose_,
        "swapdims_": transpose_,
        "squeeze_": squeeze_,
        "unsqueeze_": unsqueeze_,
        "tril_": tril_,
        "triu_": triu_,
        "cumsum_": cumsum_,
        "square_": square_,
        "logical_not_": logical_not_,
        "bincount": bincount,
        "fill_diagonal_": fill_diagonal_,
        "polygamma": polygamma,
    }
    for name, fn in methods.items():
        if name not in Tensor.__dict__:
            setattr(Tensor, name, fn)
    for name, getter in (("nbytes", _nbytes), ("itemsize", _itemsize)):
        if name not in Tensor.__dict__:
            setattr(Tensor, name, property(getter))


_install()
