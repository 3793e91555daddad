"""A CuPy simulator over NumPy, so the ``cuda`` half of the suite runs on a CPU.

It proves something only where it fails as real CuPy fails (rules read from CuPy's
``cupy/_core/core.pyx`` and ``cupy/__init__.py``):

- its own array type, not a NumPy subclass; ``__array__`` raises CuPy's implicit-conversion
  ``TypeError``, so ``numpy.asarray(device_array)`` fails; ``.get()`` and ``cupy.asnumpy`` are
  the only ways back to the host; ``cupy.asarray(host)`` copies to the device;
- operators, ufuncs and functions refuse NumPy arrays and lists (``Unsupported type``);
- reductions and integer indexing return 0-d device arrays, never NumPy scalars;
- ``flags`` holds only ``c_contiguous``, ``f_contiguous`` and ``owndata``;
- ``cupy.ndarray(shape, dtype)`` takes a shape, as CuPy's constructor does;
- only names that CuPy's ``__init__`` exports exist (no ``cupy.errstate``), and no
  floating-point warnings are ever raised (CUDA kernels do not report them).

``install()`` puts ``cupy`` and ``cupyx`` into ``sys.modules``; ``tests/conftest.py`` calls it
when ``GRADSTUDIO_CUPY_SIM=1`` (or ``--cupy-sim``) before the engine is imported.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

_IMPLICIT = (
    "Implicit conversion to a NumPy array is not allowed. "
    "Please use `.get()` to construct a NumPy array explicitly."
)
_SCALARS = (bool, int, float, complex, np.generic)


def _unsupported(obj: object) -> TypeError:
    return TypeError(f"Unsupported type {type(obj)}")


class _Flags:
    """CuPy's ``flags``: three booleans, nothing else (no ``writeable``)."""

    __slots__ = ("c_contiguous", "f_contiguous", "owndata")

    def __init__(self, a: np.ndarray, owndata: bool) -> None:
        self.c_contiguous = bool(a.flags.c_contiguous)
        self.f_contiguous = bool(a.flags.f_contiguous)
        self.owndata = owndata

    def __getitem__(self, name: str) -> bool:
        key = {"C_CONTIGUOUS": "c_contiguous", "F_CONTIGUOUS": "f_contiguous", "OWNDATA": "owndata"}
        return getattr(self, key[name])


class _MemoryPointer:
    """``ndarray.data``: CuPy's ``MemoryPointer``, whose ``ptr`` is the first element's
    device address (a view's is offset into its base's allocation)."""

    __slots__ = ("ptr",)

    def __init__(self, a: np.ndarray) -> None:
        self.ptr = int(a.ctypes.data)


def _operand(x: Any) -> Any:
    """An operand of a device operator or ufunc: device arrays and scalars only."""
    if isinstance(x, ndarray):
        return x._a
    if isinstance(x, _SCALARS):
        return x
    raise _unsupported(x)


def _deep(x: Any) -> Any:
    """Arguments of non-ufunc functions: device arrays anywhere, but no host arrays."""
    if isinstance(x, ndarray):
        return x._a
    if isinstance(x, np.ndarray):
        raise _unsupported(x)
    if isinstance(x, list | tuple):
        return type(x)(_deep(v) for v in x)
    return x


def _wrap(r: Any) -> Any:
    if isinstance(r, np.ndarray):
        return ndarray._of(r)
    if isinstance(r, np.generic):
        return ndarray._of(np.asarray(r))
    if isinstance(r, tuple):
        return tuple(_wrap(v) for v in r)
    if isinstance(r, list):
        return [_wrap(v) for v in r]
    return r


def _quiet(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    with np.errstate(all="ignore"):
        return fn(*args, **kwargs)


def _index(key: Any) -> Any:
    if isinstance(key, ndarray):
        return key._a
    if isinstance(key, tuple):
        return tuple(_index(k) for k in key)
    if isinstance(key, list):
        return [_index(k) for k in key]
    return key


class ndarray:  # noqa: N801  (CuPy's spelling)
    """A device array: a NumPy array that never leaves the simulated device implicitly."""

    __slots__ = ("_a", "_own")
    __array_priority__ = 100

    def __init__(
        self, shape: Any, dtype: Any = float, memptr: Any = None, strides: Any = None, order="C"
    ) -> None:
        if memptr is not None or strides is not None:
            raise NotImplementedError("the simulator does not model memory pointers")
        if isinstance(shape, np.ndarray | list) and not all(isinstance(s, int) for s in shape):
            raise TypeError("an integer is required")
        self._a = np.empty(shape, dtype=dtype, order=order)
        self._own = True

    @classmethod
    def _of(cls, a: np.ndarray, own: bool | None = None) -> ndarray:
        obj = object.__new__(cls)
        obj._a = a
        obj._own = a.base is None if own is None else own
        return obj

    # -- the host boundary ------------------------------------------------------------
    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise TypeError(_IMPLICIT)

    def get(self, stream: Any = None, order: str = "C", out: Any = None) -> np.ndarray:
        return np.array(self._a, order=order)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method != "__call__":
            return NotImplemented
        return _ufunc(ufunc)(*inputs, **kwargs)

    def __array_function__(self, func: Any, types_: Any, args: Any, kwargs: Any) -> Any:
        """As CuPy: NumPy functions that CuPy also has run on the device, others refuse."""
        if func.__module__ != "numpy" or func.__name__ not in cupy.__dict__:
            return NotImplemented
        return getattr(cupy, func.__name__)(*args, **kwargs)

    # -- attributes -------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return self._a.shape

    @shape.setter
    def shape(self, value: Any) -> None:
        """In place, as CuPy's setter: ``AttributeError`` when a copy would be needed."""
        try:
            self._a.shape = value
        except AttributeError:
            raise AttributeError("Incompatible shape") from None

    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    nbytes = property(lambda self: self._a.nbytes)
    itemsize = property(lambda self: self._a.itemsize)
    strides = property(lambda self: self._a.strides)
    base = property(lambda self: None if self._own else ndarray._of(self._a.base, own=True))
    T = property(lambda self: ndarray._of(self._a.T, own=False))
    flags = property(lambda self: _Flags(self._a, self._own))
    device = property(lambda self: cuda.Device(0))
    data = property(lambda self: _MemoryPointer(self._a))

    def __repr__(self) -> str:
        return repr(self._a)

    def __str__(self) -> str:
        return str(self._a)

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self) -> Any:
        return (_wrap(v) for v in self._a)

    def __bool__(self) -> bool:
        return bool(self._a)

    def __float__(self) -> float:
        return float(self._a)

    def __int__(self) -> int:
        return int(self._a)

    def __index__(self) -> int:
        return self._a.__index__()

    def __complex__(self) -> complex:
        return complex(self._a)

    def item(self) -> Any:
        return self._a.item()

    def tolist(self) -> Any:
        return self._a.tolist()

    def __getitem__(self, key: Any) -> Any:
        r = self._a[_index(key)]
        return ndarray._of(np.asarray(r)) if isinstance(r, np.generic) else ndarray._of(r)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._a[_index(key)] = _operand(value)

    def copy(self, order: str = "C") -> ndarray:
        return ndarray._of(self._a.copy(order=order))

    def astype(self, dtype: Any, order: str = "K", casting: Any = None, copy: bool = True) -> Any:
        r = _quiet(self._a.astype, dtype, order=order, copy=copy)
        return self if r is self._a else ndarray._of(r)

    def view(self, dtype: Any = None) -> ndarray:
        return ndarray._of(self._a.view() if dtype is None else self._a.view(dtype), own=False)

    def fill(self, value: Any) -> None:
        self._a.fill(_operand(value))

    def set(self, arr: np.ndarray) -> None:
        self._a[...] = arr

    def __getattr__(self, name: str) -> Any:
        if name in _METHODS:
            method = getattr(self._a, name)

            def call(*args: Any, **kwargs: Any) -> Any:
                return _wrap(
                    _quiet(method, *_deep(args), **{k: _deep(v) for k, v in kwargs.items()})
                )

            return call
        raise AttributeError(f"'cupy.ndarray' object has no attribute '{name}'")


_METHODS = frozenset(
    [
        "reshape",
        "ravel",
        "flatten",
        "transpose",
        "swapaxes",
        "squeeze",
        "sum",
        "prod",
        "mean",
        "var",
        "std",
        "max",
        "min",
        "argmax",
        "argmin",
        "cumsum",
        "clip",
        "any",
        "all",
        "nonzero",
        "repeat",
        "take",
        "conj",
        "dot",
        "round",
        "sort",
        "argsort",
    ]
)


def _binary(name: str, reflected: bool = False) -> Callable[..., Any]:
    def op(self: ndarray, other: Any) -> Any:
        if isinstance(other, np.ndarray | list | tuple):
            raise _unsupported(other)
        if not isinstance(other, (ndarray, *_SCALARS)):
            return NotImplemented
        a, b = (other, self._a) if reflected else (self._a, _operand(other))
        return _wrap(_quiet(getattr(np, name), _operand(a) if reflected else a, b))

    return op


for _dunder, _ufname in {
    "add": "add",
    "sub": "subtract",
    "mul": "multiply",
    "truediv": "true_divide",
    "floordiv": "floor_divide",
    "mod": "remainder",
    "pow": "power",
    "matmul": "matmul",
    "and": "bitwise_and",
    "or": "bitwise_or",
    "xor": "bitwise_xor",
    "lshift": "left_shift",
    "rshift": "right_shift",
}.items():
    setattr(ndarray, f"__{_dunder}__", _binary(_ufname))
    setattr(ndarray, f"__r{_dunder}__", _binary(_ufname, reflected=True))

    def _inplace(self: ndarray, other: Any, _n: str = _ufname) -> ndarray:
        if isinstance(other, np.ndarray | list | tuple):
            raise _unsupported(other)
        _quiet(getattr(np, _n), self._a, _operand(other), out=self._a)
        return self

    setattr(ndarray, f"__i{_dunder}__", _inplace)

for _dunder, _ufname in {
    "eq": "equal",
    "ne": "not_equal",
    "lt": "less",
    "le": "less_equal",
    "gt": "greater",
    "ge": "greater_equal",
}.items():
    setattr(ndarray, f"__{_dunder}__", _binary(_ufname))

for _dunder, _ufname in {
    "neg": "negative",
    "pos": "positive",
    "abs": "absolute",
    "invert": "invert",
}.items():
    setattr(
        ndarray, f"__{_dunder}__", lambda self, _n=_ufname: _wrap(_quiet(getattr(np, _n), self._a))
    )
ndarray.__hash__ = None  # type: ignore[assignment]
ndarray.__module__ = "cupy"


def _ufunc(uf: np.ufunc) -> Callable[..., Any]:
    def call(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        arrays = [_operand(a) for a in args]
        if out is not None:
            target = out[0] if isinstance(out, tuple) else out
            if not isinstance(target, ndarray):
                raise _unsupported(target)
            _quiet(uf, *arrays, out=target._a, **kwargs)
            return target
        return _wrap(_quiet(uf, *arrays, **kwargs))

    def at(a: Any, indices: Any, b: Any = None) -> None:
        """``ufunc.at``: unbuffered in place, repeated indices accumulate; as CuPy's
        ``_scatter_op``, only where CUDA has the atomic for ``a``'s dtype."""
        if not isinstance(a, ndarray):
            raise _unsupported(a)
        _check_atomic(uf.__name__, a, indices)
        args = () if b is None else (_operand(b),)
        _quiet(uf.at, a._a, _index(indices), *args)

    call.__name__ = uf.__name__
    call.at = at  # type: ignore[attr-defined]
    return call


_I32 = ("int32", "uint32")
_WIDE_INTS = ("int32", "int64", "uint32", "uint64")
#: ``ufunc.at``'s dtypes (``_scatter_op_single`` in ``cupy/_core/_routines_indexing.pyx``:
#: those CUDA has an atomic for); ufuncs without a ``scatter_op`` have no ``at`` at all.
_ATOMIC_DTYPES = {
    "add": ("int32", "int64", "float16", "float32", "float64", "uint32", "uint64"),
    "subtract": _I32,
    "maximum": ("int32", "int64", "float32", "float64", "uint32", "uint64"),
    "minimum": ("int32", "int64", "float32", "float64", "uint32", "uint64"),
    "bitwise_and": _WIDE_INTS,
    "bitwise_or": _WIDE_INTS,
    "bitwise_xor": _WIDE_INTS,
}


def _check_atomic(name: str, a: ndarray, indices: Any) -> None:
    """CuPy's refusals in ``ufunc.at`` (and ``cupyx.scatter_add``): a ufunc without a
    scatter kernel; with an integer-array index (a boolean mask or slices alone go through
    plain elementwise kernels), a dtype CUDA has no atomic for."""
    allowed = _ATOMIC_DTYPES.get(name)
    if allowed is None:
        raise NotImplementedError(f"`cupy_{name}.at` is not supported yet")
    keys = indices if isinstance(indices, tuple) else (indices,)
    arrays = [k for k in keys if isinstance(k, ndarray | np.ndarray | list)]
    integer = any(
        np.asarray(k._a if isinstance(k, ndarray) else k).dtype.kind in "iu" for k in arrays
    )
    if integer and a.dtype.name not in allowed:
        kinds = ", ".join(allowed)
        raise TypeError(f"cupy.{name}.at only supports {kinds} as data type")


def _function(fn: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        if args and isinstance(args[0], list) and fn.__name__ not in _SEQUENCE_FUNCS:
            raise _unsupported(args[0])
        return _wrap(_quiet(fn, *_deep(args), **{k: _deep(v) for k, v in kwargs.items()}))

    call.__name__ = fn.__name__
    return call


_SEQUENCE_FUNCS = frozenset(
    {"concatenate", "stack", "vstack", "hstack", "dstack", "column_stack", "broadcast_arrays"}
)


def _from_host(obj: Any, dtype: Any = None, copy: Any = True, order: str = "K", ndmin=0) -> Any:
    """``cupy.array``/``asarray``: host data (NumPy arrays, lists, scalars) is copied over."""
    if isinstance(obj, ndarray):
        a = obj._a if dtype is None else obj._a.astype(dtype, copy=False)
        return ndarray._of(np.array(a, ndmin=ndmin)) if copy else _wrap(a)
    if isinstance(obj, list | tuple) and any(isinstance(v, ndarray) for v in obj):
        obj = [v.get() if isinstance(v, ndarray) else v for v in obj]
    return ndarray._of(np.array(obj, dtype=dtype, ndmin=ndmin))


def asarray(a: Any, dtype: Any = None, order: Any = None, *, blocking: bool = False) -> Any:
    if isinstance(a, ndarray) and (dtype is None or np.dtype(dtype) == a.dtype):
        return a
    return _from_host(a, dtype=dtype)


def array(obj: Any, dtype: Any = None, copy: bool = True, order: str = "K", subok=False, ndmin=0):
    return _from_host(obj, dtype=dtype, copy=copy, ndmin=ndmin)


def asnumpy(a: Any, stream: Any = None, order: str = "C", out: Any = None) -> np.ndarray:
    if isinstance(a, ndarray):
        return a.get()
    return np.asarray(a, order=order)


def get_array_module(*args: Any) -> types.ModuleType:
    return sys.modules["cupy"] if any(isinstance(a, ndarray) for a in args) else np


# Public names of ``cupy/__init__.py`` that the simulator models (ufuncs and functions that
# exist in both CuPy and NumPy); any other attribute is missing, as in CuPy.
_UFUNCS = [
    "add",
    "fmod",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "floor_divide",
    "remainder",
    "mod",
    "power",
    "negative",
    "positive",
    "absolute",
    "abs",
    "sign",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "sqrt",
    "square",
    "cbrt",
    "reciprocal",
    "sin",
    "cos",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "arctan2",
    "sinh",
    "cosh",
    "tanh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_not",
    "logical_xor",
    "isnan",
    "isinf",
    "isfinite",
    "floor",
    "ceil",
    "trunc",
    "rint",
    "hypot",
    "signbit",
    "copysign",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "invert",
    "left_shift",
    "right_shift",
]
_FUNCS = [
    "zeros",
    "ones",
    "empty",
    "full",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "arange",
    "linspace",
    "eye",
    "identity",
    "sum",
    "prod",
    "mean",
    "var",
    "std",
    "max",
    "min",
    "amax",
    "amin",
    "argmax",
    "argmin",
    "cumsum",
    "cumprod",
    "all",
    "any",
    "where",
    "clip",
    "matmul",
    "dot",
    "tensordot",
    "einsum",
    "outer",
    "inner",
    "transpose",
    "swapaxes",
    "moveaxis",
    "reshape",
    "ravel",
    "squeeze",
    "expand_dims",
    "broadcast_to",
    "broadcast_arrays",
    "concatenate",
    "stack",
    "vstack",
    "hstack",
    "split",
    "array_split",
    "take",
    "indices",
    "take_along_axis",
    "put_along_axis",
    "repeat",
    "tile",
    "flip",
    "roll",
    "sort",
    "argsort",
    "tril",
    "triu",
    "diag",
    "diagonal",
    "trace",
    "nonzero",
    "argwhere",
    "flatnonzero",
    "count_nonzero",
    "allclose",
    "isclose",
    "array_equal",
    "result_type",
    "can_cast",
    "shape",
    "ndim",
    "size",
    "around",
    "round",
    "nan_to_num",
    "unique",
    "pad",
    "atleast_1d",
    "atleast_2d",
    "meshgrid",
    "diff",
]
_DTYPES = [
    "bool_",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "dtype",
    "finfo",
    "iinfo",
    "inf",
    "nan",
    "pi",
    "e",
    "newaxis",
    "integer",
    "floating",
    "complexfloating",
    "number",
    "generic",
    "signedinteger",
    "unsignedinteger",
]


class _Device:
    def __init__(self, device: int = 0) -> None:
        self.id = device

    def synchronize(self) -> None:
        return None

    def use(self) -> None:
        return None

    def __enter__(self) -> _Device:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


def _build() -> tuple[types.ModuleType, types.ModuleType]:
    mod = types.ModuleType("cupy", "Simulated CuPy (tests/cupy_sim.py); a CPU stand-in.")
    mod.__dict__["__gradstudio_simulator__"] = True
    mod.ndarray = ndarray
    mod.asarray = asarray
    mod.array = array
    mod.asnumpy = asnumpy
    mod.get_array_module = get_array_module
    for name in _UFUNCS:
        if hasattr(np, name):
            setattr(mod, name, _ufunc(getattr(np, name)))
    for name in _FUNCS:
        if hasattr(np, name) and not hasattr(mod, name):
            setattr(mod, name, _function(getattr(np, name)))
    for name in _DTYPES:
        if hasattr(np, name):
            setattr(mod, name, getattr(np, name))
    mod.float_ = np.float64
    mod.int_ = np.int64

    runtime = types.SimpleNamespace(getDeviceCount=lambda: 1, deviceSynchronize=lambda: None)
    mod.cuda = types.SimpleNamespace(runtime=runtime, Device=_Device)
    state = {"rng": np.random.default_rng(0)}

    def seed(s: int | None = None) -> None:
        state["rng"] = np.random.default_rng(s)

    mod.random = types.SimpleNamespace(
        seed=seed,
        random=lambda size=None, dtype=float: _wrap(np.asarray(state["rng"].random(size))),
        standard_normal=lambda size=None, dtype=float: _wrap(
            np.asarray(state["rng"].standard_normal(size))
        ),
    )

    def scatter_add(a: ndarray, slices: Any, value: Any) -> None:
        """``cupyx.scatter_add``: ``a.scatter_add``, CuPy's ``add.at`` (its dtypes too)."""
        _check_atomic("add", a, slices)
        np.add.at(a._a, _index(slices), _operand(value))

    def as_strided(x: ndarray, shape: Any = None, strides: Any = None) -> ndarray:
        """``cupy.lib.stride_tricks.as_strided``: a view with the given shape and strides."""
        if not isinstance(x, ndarray):
            raise _unsupported(x)
        return ndarray._of(np.lib.stride_tricks.as_strided(x._a, shape, strides), own=False)

    mod.lib = types.SimpleNamespace(stride_tricks=types.SimpleNamespace(as_strided=as_strided))
    mod.linalg = types.SimpleNamespace(
        **{n: _function(getattr(np.linalg, n)) for n in ("solve", "inv", "norm", "det")}
    )

    cupyx = types.ModuleType("cupyx", "Simulated cupyx.")
    cupyx.scatter_add = scatter_add
    return mod, cupyx


cupy, cupyx = _build()
cuda = cupy.cuda


def install() -> None:
    """Make ``import cupy`` / ``import cupyx`` give the simulator, here and in child
    processes (the evaluation worker): ``tests/cupy_path`` goes on ``PYTHONPATH``."""
    sys.modules["cupy"] = cupy
    sys.modules["cupyx"] = cupyx
    root = Path(__file__).resolve().parent.parent
    paths = [str(root / "tests" / "cupy_path"), str(root), os.environ.get("PYTHONPATH", "")]
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
