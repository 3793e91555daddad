"""The ``Tensor``: an array plus the autograd facts PyTorch attaches to it.

Storage is a NumPy (CPU) or CuPy (CUDA) array.  Views share the array and the
version counter (a one-element list), which is what makes ``detach()`` share
mutations and version bumps with its source while ``.data`` shares only the
values, exactly as the seeds describe.

This module is the tensor's data model: its array, its autograd facts (``grad``,
``requires_grad``, hooks, the version counter) and plain questions about shape and
memory.  It sits below the ops, which make tensors, and imports nothing above the
graph's nodes.  The methods that are ops (``x + y``, ``x[i]``, ``x.to``, ``repr(x)``,
``x.backward()``, the ``new_*`` factories, the legacy constructor ``Tensor(2, 3)``)
are defined above the ops and set on this class by ``engine._methods``, the way
PyTorch's ``torch/_tensor.py`` adds them above ``torch._C.TensorBase``; ``import
engine`` binds them before any caller sees the class.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from engine import dtypes, warn_site
from engine.autograd.graph import AccumulateGrad, Node, RemovableHandle, add_hook
from engine.backend import CPU, CUDA0, device, device_of, to_device, to_numpy, xp_for
from engine.grad_mode import is_grad_enabled
from engine.messages import (
    NONLEAF_GRAD_WARNING,
    NONLEAF_REQUIRES_GRAD,
    SCALAR_OF_REQUIRES_GRAD,
    fmt_shape,
)

#: Not empty once ``float()`` of a tensor that requires grad was warned about.
_WARNED_SCALAR: list[bool] = []


class Tensor:
    #: ``type(x)`` prints ``<class 'torch.Tensor'>``, as in PyTorch (pickling goes through
    #: ``__reduce_ex__``, never this name).
    __module__ = "torch"
    #: PyTorch's value: NumPy defers a binary operator to the tensor's reflected one, so
    #: ``np.float64(2) * t`` is a tensor (with its node), not an array.
    __array_priority__ = 1000
    # Class-level defaults: a new tensor sets only ``_data`` (the hot path of
    # every op); the version counter is created the first time it is shared.
    _requires_grad = False
    #: A tensor's own node is in its ``__dict__``; a view's reads go through the
    #: descriptor ``engine.ops.core.ViewGradFn``, bound here by ``engine._methods``.
    grad_fn: Node | None = None
    _view_fn: Node | None = None  # a view's node (see ``ViewGradFn``)
    _view_ver = 0  # the version its node was made at
    _grad: Tensor | None = None
    _retains_grad = False
    _vc: list[int] | None = None
    _base: Tensor | None = None
    _output_nr = 0
    _hooks: dict[int, Any] | None = None
    _post_accumulate_grad_hooks: dict[int, Any] | None = None
    _grad_acc: Any = None
    _view_chain: tuple[Any, ...] | None = None  # (op, params) steps from _base to this view
    _nograd_view = False  # a view made under no_grad of a tensor that requires grad
    _inference = False  # made under inference_mode (see engine/inference_mode.py)

    # -- construction -------------------------------------------------------
    @classmethod
    def _wrap(cls, arr: Any, grad_fn: Node | None = None, output_nr: int = 0) -> Tensor:
        t = object.__new__(Tensor)
        t._data = arr
        if grad_fn is not None:
            t.grad_fn = grad_fn
            t._output_nr = output_nr
        return t

    def _counter(self) -> list[int]:
        """The version counter, shared by views; created on first use."""
        vc = self._vc
        if vc is None:
            vc = self._vc = [0]
            fn = self.grad_fn
            if fn is not None:
                fn._count_output(self._output_nr, vc)  # a record saved it uncounted
        return vc

    # -- autograd facts -----------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad or self.grad_fn is not None

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self.grad_fn is not None:
            if value:
                raise RuntimeError("you can only change requires_grad flags of leaf variables.")
            raise RuntimeError(NONLEAF_REQUIRES_GRAD)
        if value and not self.dtype.is_floating_point:
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients"
            )
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if self.grad_fn is not None:
            if requires_grad:
                return self
            raise RuntimeError(NONLEAF_REQUIRES_GRAD)
        if requires_grad and not self.dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = bool(requires_grad)
        return self

    def is_inference(self) -> bool:
        return self._inference

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    @property
    def grad(self) -> Tensor | None:
        if self.grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(
                NONLEAF_GRAD_WARNING, UserWarning, stacklevel=warn_site.stacklevel(2, __file__)
            )
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value.dtype is not self.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{value.dtype.cpp_name}' to a "
                    f"tensor with grad_dtype '{self.dtype.scalar_name}'. The gradient must match "
                    "the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
                    "tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and "
                    "its gradient may break downstream systems that assume they match."
                )
            if value.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{fmt_shape(value.shape)}' to a "
                    f"tensor of size '{fmt_shape(self.shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size"
                )
            if value.device != self.device:
                raise RuntimeError("assigned grad has data located on a different device")
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def _version(self) -> int:
        if self._inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return 0 if self._vc is None else self._vc[0]

    @property
    def data(self) -> Tensor:
        return Tensor._wrap(self._data)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._data = value._data

    def retain_grad(self) -> None:
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        ref = weakref.ref(self)

        def keep(g: Any, tensor_mode: bool) -> None:
            t = ref()
            if t is None:
                return
            if t._grad is None:
                t._grad = g.clone() if tensor_mode else Tensor._wrap(g.copy())
            else:
                t._grad = t._grad + (g if tensor_mode else Tensor._wrap(g))

        node = self.grad_fn
        if node._retain_hooks is None:
            node._retain_hooks = {}
        node._retain_hooks[self._output_nr] = keep
        self._retains_grad = True

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn._add_tensor_hook(self._output_nr, hook)
        if self._hooks is None:
            self._hooks = {}
        return add_hook(self._hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle:
        """``hook(tensor)`` once ``.grad`` of this leaf has been accumulated in backward."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        if self._post_accumulate_grad_hooks is None:
            self._post_accumulate_grad_hooks = {}
        return add_hook(self._post_accumulate_grad_hooks, hook)

    def detach(self) -> Tensor:
        t = Tensor._wrap(self._data)
        t._vc = self._counter()
        return t

    def _view_alias_of(self, src: Tensor) -> Tensor:
        """Make this fresh tensor an alias of ``src`` (shares storage and version)."""
        self._vc = src._counter()
        self._base = src._base if src._base is not None else src
        return self

    def detach_(self) -> Tensor:
        if self._base is not None and self._base.requires_grad:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        if self.grad_fn is not None:
            self._counter()  # its node's records keep watching for in-place changes
        self.grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    # -- plain facts --------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None) -> Any:
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    @property
    def dtype(self) -> dtypes.dtype:
        return dtypes.FROM_NP[self._data.dtype]

    @property
    def _dtype_for_promotion(self) -> dtypes.dtype:
        return dtypes.FROM_NP[self._data.dtype]

    @property
    def device(self) -> device:
        return CPU if type(self._data) is np.ndarray else CUDA0

    @property
    def is_cuda(self) -> bool:
        return type(self._data) is not np.ndarray

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    def nelement(self) -> int:
        return int(self._data.size)

    def element_size(self) -> int:
        return self._data.itemsize

    def stride(self, dim: int | None = None) -> Any:
        """Strides in elements; engine views are NumPy views, whose strides are PyTorch's."""
        item = self._data.itemsize
        strides = tuple(s // item for s in self._data.strides)
        return strides if dim is None else strides[_wrap_dim(dim, self._data.ndim)]

    def storage_offset(self) -> int:
        """Elements from its base's first one: a view's offset (a non-view starts at 0)."""
        base = self._base
        if base is None:
            return 0
        return (self.data_ptr() - base.data_ptr()) // self._data.itemsize

    def data_ptr(self) -> int:
        """Address of the first element; programs compare it to tell a view from a copy."""
        data = self._data
        return int(data.ctypes.data) if type(data) is np.ndarray else int(data.data.ptr)

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_contiguous(self) -> bool:
        return bool(self._data.flags.c_contiguous)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def item(self) -> Any:
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return to_numpy(self._data).reshape(()).item()

    def tolist(self) -> Any:
        return to_numpy(self._data).tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        if self.requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        if self.is_cuda and not force:
            raise TypeError(
                "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the "
                "tensor to host memory first."
            )
        return to_numpy(self._data)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype)

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __float__(self) -> float:
        if self.requires_grad and is_grad_enabled() and not _WARNED_SCALAR:
            _WARNED_SCALAR.append(True)  # ``TORCH_WARN_ONCE``: once per process
            warnings.warn(
                SCALAR_OF_REQUIRES_GRAD, UserWarning, stacklevel=warn_site.stacklevel(2, __file__)
            )
        return float(self._python_scalar())

    def __int__(self) -> int:
        return int(self._python_scalar())

    def __complex__(self) -> complex:
        return complex(self._python_scalar())

    def _python_scalar(self) -> Any:
        """What ``float()``/``int()``/``complex()`` convert: Python's ``ValueError`` for
        more than one element, as PyTorch, where ``item()`` raises a ``RuntimeError``."""
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __hash__(self) -> int:
        return id(self)

    def __format__(self, spec: str) -> str:
        """A 0-d tensor formats as its Python number (``f"{t}"`` is ``12.0``);
        any other tensor only with an empty spec, as its repr."""
        if self._data.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    def __iter__(self) -> Any:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def cuda(self, device: Any = None, non_blocking: bool = False) -> Tensor:
        return self.to(to_device("cuda" if device is None else device))

    def cpu(self) -> Tensor:
        return self.to(CPU)

    def float(self) -> Tensor:
        return self.to(dtypes.float32)

    def double(self) -> Tensor:
        return self.to(dtypes.float64)

    def half(self) -> Tensor:
        return self.to(dtypes.float16)

    def bfloat16(self) -> Tensor:
        return self.to(dtypes.bfloat16)

    def long(self) -> Tensor:
        return self.to(dtypes.int64)

    def int(self) -> Tensor:
        return self.to(dtypes.int32)

    def bool(self) -> Tensor:
        return self.to(dtypes.bool_)

    def short(self) -> Tensor:
        return self.to(dtypes.int16)

    def char(self) -> Tensor:
        return self.to(dtypes.int8)

    def byte(self) -> Tensor:
        return self.to(dtypes.uint8)

    def ndimension(self) -> int:
        return self._data.ndim

    def type_as(self, other: Tensor) -> Tensor:
        return self.to(other.dtype)

    def type(self, dtype: Any = None) -> Any:
        """The legacy type name; or a cast to a dtype, a legacy class (``x.type(torch.
        LongTensor)``, as old tutorials write) or its name (``"torch.cuda.FloatTensor"``)."""
        if dtype is None:
            return dtypes.legacy_name(self.dtype, self.is_cuda)
        if isinstance(dtype, str):
            for dt in dtypes.FROM_NP.values():
                for cuda in (False, True):
                    if dtypes.legacy_name(dt, cuda) == dtype:
                        return self.to(dt, device="cuda" if cuda else "cpu")
            raise ValueError(f"invalid type: '{dtype}'")
        legacy = getattr(dtype, "_dtype", None)
        return self.to(legacy if isinstance(legacy, dtypes.dtype) else dtypes.as_dtype(dtype))

    def __pos__(self) -> Tensor:
        return self

    def __iadd__(self, other: Any) -> Tensor:
        return self.add_(other)

    def __isub__(self, other: Any) -> Tensor:
        return self.sub_(other)

    def __imul__(self, other: Any) -> Tensor:
        return self.mul_(other)

    def __itruediv__(self, other: Any) -> Tensor:
        return self.div_(other)

    if TYPE_CHECKING:  # bound by ``engine._methods.TensorOps``: what a type checker reads

        def to(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def backward(
            self,
            gradient: Tensor | None = None,
            retain_graph: bool | None = None,
            create_graph: bool = False,
            inputs: Any = None,
        ) -> None: ...
        def __getitem__(self, key: Any) -> Tensor: ...
        def __setitem__(self, key: Any, value: Any) -> None: ...
        def new_tensor(
            self, data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
        ) -> Tensor: ...
        def new_zeros(self, *size: Any, **kwargs: Any) -> Tensor: ...
        def new_ones(self, *size: Any, **kwargs: Any) -> Tensor: ...
        def new_empty(self, *size: Any, **kwargs: Any) -> Tensor: ...
        def new_full(self, size: Any, fill_value: Any, **kwargs: Any) -> Tensor: ...


class Size(tuple):
    """``torch.Size``: a tuple that prints like PyTorch's."""

    def __repr__(self) -> str:
        return f"torch.Size({fmt_shape(self)})"

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    # slices, sums and repeats of a Size are Sizes in PyTorch (``x.shape[1:]`` prints so)
    def __getitem__(self, key: Any) -> Any:
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out

    def __add__(self, other: Any) -> Size:
        if not isinstance(other, tuple):
            raise TypeError(
                f"can only concatenate tuple (not {type(other).__name__}) to torch.Size"
            )
        return Size(tuple.__add__(self, other))

    def __radd__(self, other: Any) -> Size:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n: Any) -> Size:
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__


def _wrap_dim(dim: int, ndim: int) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


__all__ = ["AccumulateGrad", "Size", "Tensor", "device_of", "xp_for"]
