"""The ``Tensor``: an array plus the autograd facts PyTorch attaches to it.

Storage is a NumPy (CPU) or CuPy (CUDA) array.  Views share the array and the
version counter (a one-element list), which is what makes ``detach()`` share
mutations and version bumps with its source while ``.data`` shares only the
values, exactly as the seeds describe.
"""

from __future__ import annotations

import functools
import warnings
import weakref
from collections.abc import Callable
from typing import Any

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
_WARNED_0D: set[str] = set()  # the 0-D transposes PyTorch has warned of (once each)


class _GradFn:
    """``tensor.grad_fn`` where the tensor holds none of its own: None, or a view's node.
    A view keeps its node apart (``_view_fn``) with the version it was made at; once the
    base or another view of it is changed in place, the node is made anew, an
    ``AsStridedBackward0`` onto the base's current history, as PyTorch's
    ``VariableHooks::grad_fn`` does on the next read.  Tensors with a node of their own
    hold it in their ``__dict__``, which wins over this (non-data) descriptor."""

    def __get__(self, t: Any, cls: Any = None) -> Any:
        if t is None:
            return self
        fn = t._view_fn
        if fn is None and t._base is None:
            return None
        vc = t._vc
        if vc is None or vc[0] == t._view_ver or t._nograd_view:
            return fn
        from engine.ops.core import regenerate_view_fn

        return regenerate_view_fn(t)


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
    grad_fn: Node | None = _GradFn()  # type: ignore[assignment]
    _view_fn: Node | None = None  # a view's node (see ``_GradFn``)
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
    def __new__(cls, *args: Any, **kwargs: Any) -> Tensor:
        """Legacy constructor: ``Tensor(2, 3)`` is uninitialised, ``Tensor([1, 2])`` copies."""
        from engine.creation import legacy_new

        return legacy_new(dtypes.float32, args, kwargs.get("device"))

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

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Any = None,
    ) -> None:
        _backward_fn()(self, gradient, retain_graph, create_graph, inputs=inputs)

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

    def __array_wrap__(self, array: Any, context: Any = None, return_scalar: bool = False) -> Any:
        """A NumPy ufunc of a tensor (``np.exp(t)``) gives a tensor, as PyTorch's does:
        sharing the result's memory, a boolean result as uint8 (PyTorch's own workaround)."""
        if array.dtype == bool:
            array = array.astype("uint8")
        from engine.spaced import from_numpy

        return from_numpy(array)

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

    def __repr__(self) -> str:
        from engine.formatting import tensor_repr

        return tensor_repr(self)

    __str__ = __repr__

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

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Pickled as its values, dtype and ``requires_grad``, as PyTorch keeps them (a
        non-leaf comes back a leaf that requires grad, as there)."""
        from engine.creation import tensor

        rebuild = functools.partial(tensor, dtype=self.dtype, requires_grad=self.requires_grad)
        return (rebuild, (self.tolist(),), None)

    # -- devices and dtypes ------------------------------------------------
    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        from engine.ops.convert import to

        return to(self, *args, **kwargs)

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

    def new_tensor(
        self, data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
    ) -> Tensor:
        from engine.creation import tensor

        return tensor(
            data,
            dtype=dtype or self.dtype,
            device=self.device if device is None else device,
            requires_grad=requires_grad,
        )

    def new(self, *args: Any, device: Any = None) -> Tensor:
        """The legacy ``x.new(*sizes)`` (uninitialised) or ``x.new(data)``, of ``x``'s dtype
        (``torch.distributions.Multinomial.sample`` counts into ``samples.new(shape)``)."""
        from engine.creation import legacy_new

        return legacy_new(self.dtype, args, device if device is not None else self.device)

    def _new_filled(
        self, how: str, size: tuple[Any, ...], kwargs: dict[str, Any], fill: Any = None
    ) -> Tensor:
        """``new_zeros``/``new_ones``/``new_empty``/``new_full``: sizes as varargs or as
        ``size=`` (Coderx7's tutorial writes ``t.new_ones(size=(2, 2))``), ``self``'s dtype
        and device unless given, ``requires_grad`` as the factories take it."""
        from engine.creation import _filled, empty, full, ones

        shape = kwargs.pop("size", None)
        if shape is not None:
            if size:
                raise TypeError(f"{how}() got multiple values for argument 'size'")
            size = (shape,)
        dtype = kwargs.pop("dtype", None) or self.dtype
        device = kwargs.pop("device", None)
        device = self.device if device is None else device
        requires_grad = bool(kwargs.pop("requires_grad", False))
        for unused in ("layout", "pin_memory"):
            kwargs.pop(unused, None)
        if kwargs:
            raise TypeError(f"{how}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if how == "new_zeros":  # not ``zeros``: its negative-size message is its own
            out = _filled(lambda xp, s, d: xp.zeros(s, d), size, dtype, device, False)
        elif how == "new_ones":
            out = ones(*size, dtype=dtype, device=device)
        elif how == "new_empty":
            out = empty(*size, dtype=dtype, device=device)
        else:
            out = full(size[0] if len(size) == 1 else size, fill, dtype=dtype, device=device)
        return out.requires_grad_() if requires_grad else out

    def new_zeros(self, *size: Any, **kwargs: Any) -> Tensor:
        return self._new_filled("new_zeros", size, kwargs)

    def new_ones(self, *size: Any, **kwargs: Any) -> Tensor:
        return self._new_filled("new_ones", size, kwargs)

    def new_empty(self, *size: Any, **kwargs: Any) -> Tensor:
        return self._new_filled("new_empty", size, kwargs)

    def new_full(self, size: Any, fill_value: Any, **kwargs: Any) -> Tensor:
        return self._new_filled("new_full", (size,), kwargs, fill_value)

    # -- operators (the ops live in engine.ops, declared once) ------------
    def __add__(self, other: Any) -> Tensor:
        return _f.add(self, other)

    def __radd__(self, other: Any) -> Tensor:
        return _f.add(self, other)

    def __sub__(self, other: Any) -> Tensor:
        return _f.sub(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return _f.rsub(self, other)

    def __mul__(self, other: Any) -> Tensor:
        return _f.mul(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return _f.mul(self, other)

    def __truediv__(self, other: Any) -> Tensor:
        return _f.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return _f.reciprocal(self) * other

    def __matmul__(self, other: Any) -> Tensor:
        return _f.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return _f.matmul(other, self)

    def __pow__(self, other: Any) -> Tensor:
        return _f.pow(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return _f.pow(other, self)

    def __neg__(self) -> Tensor:
        return _f.neg(self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return _f.abs(self)

    def __iadd__(self, other: Any) -> Tensor:
        return self.add_(other)

    def __isub__(self, other: Any) -> Tensor:
        return self.sub_(other)

    def __imul__(self, other: Any) -> Tensor:
        return self.mul_(other)

    def __itruediv__(self, other: Any) -> Tensor:
        return self.div_(other)

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _f.eq(self, other)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _f.ne(self, other)

    def __lt__(self, other: Any) -> Tensor:
        return _f.lt(self, other)

    def __le__(self, other: Any) -> Tensor:
        return _f.le(self, other)

    def __gt__(self, other: Any) -> Tensor:
        return _f.gt(self, other)

    def __ge__(self, other: Any) -> Tensor:
        return _f.ge(self, other)

    def __invert__(self) -> Tensor:
        if self.dtype.is_floating_point or self.dtype.is_complex:
            raise TypeError(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
            )
        return _f.bitwise_not(self)

    def __and__(self, other: Any) -> Tensor:
        return _f.bitwise_and(self, other)

    def __or__(self, other: Any) -> Tensor:
        return _f.bitwise_or(self, other)

    def __xor__(self, other: Any) -> Tensor:
        return _f.bitwise_xor(self, other)

    def __rand__(self, other: Any) -> Tensor:
        return _f.bitwise_and(self, other)

    def __ror__(self, other: Any) -> Tensor:
        return _f.bitwise_or(self, other)

    def __rxor__(self, other: Any) -> Tensor:
        return _f.bitwise_xor(self, other)

    def __iand__(self, other: Any) -> Tensor:
        return _f.bitwise_and_(self, other)

    def __ior__(self, other: Any) -> Tensor:
        return _f.bitwise_or_(self, other)

    def __ixor__(self, other: Any) -> Tensor:
        return _f.bitwise_xor_(self, other)

    def __getitem__(self, key: Any) -> Tensor:
        from engine.ops.index import getitem

        return getitem(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        from engine.ops.index import setitem

        setitem(self, key, value)

    @property
    def T(self) -> Tensor:  # noqa: N802
        if self.ndim != 2:
            warnings.warn(
                "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                "deprecated and it will throw an error in a future release. Consider `x.mT` to "
                "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` "
                "to reverse the dimensions of a tensor. (Triggered internally at "
                "/__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4314.)",
                UserWarning,
                stacklevel=warn_site.stacklevel(2, __file__),
            )
        return _f.permute(self, tuple(range(self.ndim - 1, -1, -1)))

    def _transpose_0d(self, attr: str, line: int, advice: str) -> Tensor:
        """A 0-D tensor's transpose: itself, with PyTorch's once-per-process warning."""
        if attr not in _WARNED_0D:
            _WARNED_0D.add(attr)
            warnings.warn(
                f"Tensor.{attr} is deprecated on 0-D tensors. {advice} (Triggered internally "
                f"at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:{line}.)",
                UserWarning,
                stacklevel=warn_site.stacklevel(3, __file__),
            )
        return self

    @property
    def mT(self) -> Tensor:  # noqa: N802
        if self.ndim == 0:
            return self._transpose_0d("mT", 4373, "This function is the identity in these cases.")
        if self.ndim < 2:
            raise RuntimeError(
                "tensor.mT is only supported on matrices or batches of matrices. "
                f"Got {self.ndim}-D tensor."
            )
        return _f.transpose(self, -2, -1)

    @property
    def mH(self) -> Tensor:  # noqa: N802
        """The conjugate transpose of each matrix; the engine's dtypes are real, so ``mT``."""
        if self.ndim == 0:
            return self._transpose_0d("mH", 4382, "Consider using x.conj().")
        if self.ndim < 2:
            raise RuntimeError(
                "tensor.mH is only supported on matrices or batches of matrices. "
                f"Got {self.ndim}-D tensor."
            )
        return _f.transpose(self, -2, -1)

    @property
    def H(self) -> Tensor:  # noqa: N802
        """The conjugate transpose of a matrix (real here, so its transpose)."""
        if self.ndim == 0:
            return self._transpose_0d("H", 4335, "Consider using x.conj().")
        if self.ndim != 2:
            hint = " For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""
            raise RuntimeError(
                "tensor.H is only supported on matrices (2-D tensors). "
                f"Got {self.ndim}-D tensor.{hint}"
            )
        return _f.transpose(self, 0, 1)


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


class _Functions:
    """Late-bound access to ``engine.functions`` (filled when the ops load)."""

    def __getattr__(self, name: str) -> Any:
        from engine import functions

        fn = getattr(functions, name)
        setattr(self, name, fn)
        return fn


_f: Any = _Functions()

__all__ = ["AccumulateGrad", "Size", "Tensor", "device_of", "xp_for"]


_BACKWARD: list[Any] = []


def _backward_fn() -> Any:
    """``engine.autograd.functional.backward``, imported on first use (it imports this
    module) and kept, so ``loss.backward()`` pays no import statement per call."""
    if not _BACKWARD:
        from engine.autograd.functional import backward

        _BACKWARD.append(backward)
    return _BACKWARD[0]
