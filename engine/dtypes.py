"""Engine dtypes and PyTorch's type-promotion rules.

PyTorch promotes by *category* (bool < integer < floating) and gives tensors
with dimensions priority over zero-dim tensors, and those over Python numbers,
which only raise the category (to the default dtype).  NumPy's rules differ, so
each op computes the PyTorch result type here and casts NumPy's result to it.
"""

from __future__ import annotations

import builtins
from typing import Any

import ml_dtypes
import numpy as np

#: NumPy has no bfloat16: ``ml_dtypes`` gives one (kind ``"V"``, not ``"f"``, so the
#: engine asks ``is_float_np`` rather than a dtype's kind whenever bfloat16 may come).
BF16_NP = np.dtype(ml_dtypes.bfloat16)


def is_float_np(np_dtype: Any) -> bool:
    """Whether a NumPy dtype is one of the engine's floating ones, bfloat16 included."""
    return np_dtype.kind == "f" or np_dtype == BF16_NP


class dtype:  # noqa: N801  (PyTorch spells it in lower case)
    __slots__ = (
        "_legacy",
        "cpp_name",
        "is_floating_point",
        "is_signed",
        "itemsize",
        "name",
        "np",
        "scalar_name",
    )

    def __init__(self, name: str, np_type: Any, legacy: str, cpp_name: str) -> None:
        self.name = name
        #: The names PyTorch's messages use: ``Float`` (ScalarType) and ``float`` (C++).
        self.scalar_name = legacy.removesuffix("Tensor")
        self.cpp_name = cpp_name
        self.np = np.dtype(np_type)
        self.is_floating_point = is_float_np(self.np)
        self.is_signed = self.is_floating_point or self.np.kind == "i"
        self.itemsize = self.np.itemsize
        self._legacy = legacy

    @property
    def is_complex(self) -> bool:
        return False

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> str:
        return self.name


float32 = dtype("float32", np.float32, "FloatTensor", "float")
float64 = dtype("float64", np.float64, "DoubleTensor", "double")
float16 = dtype("float16", np.float16, "HalfTensor", "c10::Half")
bfloat16 = dtype("bfloat16", BF16_NP, "BFloat16Tensor", "c10::BFloat16")
int64 = dtype("int64", np.int64, "LongTensor", "long int")
int32 = dtype("int32", np.int32, "IntTensor", "int")
int16 = dtype("int16", np.int16, "ShortTensor", "short int")
int8 = dtype("int8", np.int8, "CharTensor", "signed char")
uint8 = dtype("uint8", np.uint8, "ByteTensor", "unsigned char")
bool_ = dtype("bool", np.bool_, "BoolTensor", "bool")
float = float32  # noqa: A001
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16

ALL = (float32, float64, float16, bfloat16, int64, int32, int16, int8, uint8, bool_)
FROM_NP: dict[Any, dtype] = {d.np: d for d in ALL}
#: PyTorch's default floating dtype (``torch.get_default_dtype()``).
DEFAULT_FLOAT = float32

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "V": 2}
#: The low-precision floating dtypes whose ATen CPU kernels compute in float32 and
#: round once per op (``at::opmath_type``).
REDUCED = (float16, bfloat16)


def category(d: dtype) -> int:
    return _CATEGORY[d.np.kind]


def promote_types(a: dtype, b: dtype) -> dtype:
    if a is b:
        return a
    if a is bool_:
        return b
    if b is bool_:
        return a
    ca, cb = category(a), category(b)
    if ca != cb:
        return a if ca > cb else b
    if a is bfloat16 or b is bfloat16:
        # bfloat16 and float16 hold neither's values: both go to float32, as in ATen
        other = b if a is bfloat16 else a
        return float32 if other is float16 else other
    if {a, b} == {float16, float32} or {a, b} == {float16, float64}:
        return a if a.itemsize > b.itemsize else b
    return FROM_NP[np.promote_types(a.np, b.np)]


def scalar_dtype(value: Any) -> dtype:
    """The dtype a Python number takes as a wrapped scalar in promotion.  A NumPy integer
    counts as a Python int, as in PyTorch (``arange(np.int64(3))`` is int64); PyTorch
    reads a NumPy bool as a float (``tensor([1, 2]) * np.bool_(True)`` is float32)."""
    if isinstance(value, builtins.bool):
        return bool_
    if isinstance(value, builtins.int | np.integer):
        return int64
    return DEFAULT_FLOAT


def infer_dtype(value: Any) -> dtype:
    """The dtype ``tensor(value)`` infers from Python data.  A NumPy scalar keeps its dtype:
    PyTorch reads it before asking for a float, and ``np.float64`` is a Python float."""
    if isinstance(value, np.generic) and value.dtype in FROM_NP:
        return FROM_NP[value.dtype]
    if isinstance(value, builtins.bool):
        return bool_
    if isinstance(value, builtins.int):
        return int64
    if isinstance(value, builtins.float):
        return DEFAULT_FLOAT
    raise TypeError(f"Could not infer dtype of {type(value).__name__}")


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_floating_point:
        return higher
    if higher is bool_ or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def result_type(*operands: Any) -> dtype:
    """PyTorch's ``torch.result_type`` over tensors and Python numbers."""
    dim: dtype | None = None
    zero: dtype | None = None
    wrapped: dtype | None = None
    for op in operands:
        d = getattr(op, "_dtype_for_promotion", None)
        if d is None:
            if op is None:
                continue
            s = scalar_dtype(op)
            wrapped = s if wrapped is None else promote_types(wrapped, s)
        elif op.ndim:
            dim = d if dim is None else promote_types(dim, d)
        else:
            zero = d if zero is None else promote_types(zero, d)
    out = _combine(dim, _combine(zero, wrapped))
    assert out is not None
    return out


def to_float(d: dtype) -> dtype:
    """The dtype a float-only op (exp, sqrt, true division) computes in."""
    return d if d.is_floating_point else DEFAULT_FLOAT


def legacy_name(d: dtype, cuda: bool = False) -> str:
    return f"torch.cuda.{d._legacy}" if cuda else f"torch.{d._legacy}"


def as_dtype(value: Any) -> dtype:
    if isinstance(value, dtype):
        return value
    if value is builtins.float:
        return float32
    if value is builtins.int:
        return int64
    if value is builtins.bool:
        return bool_
    return FROM_NP[np.dtype(value)]


def cast_array(arr: Any, np_dtype: Any) -> Any:
    """``arr.astype(np_dtype)`` as ATen converts: to bfloat16 through float32 (ATen's
    ``c10::BFloat16`` is built from a float, so a double rounds twice: ``1 + 2**-8 +
    2**-30`` becomes 1.0 where a direct rounding gives 1.0078125), overflow to ``inf``
    without NumPy's warning, as PyTorch gives it."""
    if np_dtype != BF16_NP or arr.dtype == BF16_NP:
        return arr.astype(np_dtype)
    with np.errstate(over="ignore"):
        if arr.dtype != np.float32 and arr.dtype.kind == "f":
            arr = arr.astype(np.float32)
        return arr.astype(np_dtype)


def widened(arr: Any) -> Any:
    """A bfloat16 array as the float32 one its ATen kernels compute in (exact); any
    other value as it is."""
    dt = getattr(arr, "dtype", None)
    if dt is not None and dt == BF16_NP:
        return arr.astype(np.float32)
    return arr
