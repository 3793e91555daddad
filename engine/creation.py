"""Tensor creation: ``tensor``, ``zeros``/``ones``/``full``/``arange``, the random
factories (``rand``/``randn``/``randint``/``randperm``, drawing from
``engine.random`` as PyTorch's CPU kernels do) and the legacy constructors
(``Tensor(2, 3)``, ``FloatTensor([...])``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine import dtypes, warn_site
from engine.backend import device, refuse_cuda_dtype, to_device, to_numpy, transfer, xp_for
from engine.catalog import Example, Param, public
from engine.messages import fmt_shape
from engine.quiet import quietly
from engine.random import sampling
from engine.random.generator import generator_of
from engine.range_values import arange_values, integer_values
from engine.tensor import Size, Tensor


def _flatten_data(data: Any) -> Any:
    if isinstance(data, Tensor):
        return to_numpy(data._data)
    if isinstance(data, list | tuple | range):  # a range reads as the list of its ints
        return [_flatten_data(d) for d in data]
    return data


#: PyTorch's refusal of an array in the other byte order (``tensor_numpy.cpp``).
BYTE_ORDER = (
    "given numpy array has byte order different from the native byte order. Conversion "
    "between byte orders is currently not supported."
)


def refuse_byte_order(data: Any) -> None:
    """A NumPy array in the other byte order (``'>f4'`` on this host) is refused, as
    PyTorch refuses it, before its dtype is looked up."""
    if isinstance(data, np.ndarray) and not data.dtype.isnative:
        raise ValueError(BYTE_ORDER)


def _infer(data: Any) -> dtypes.dtype:
    if isinstance(data, Tensor):
        return data.dtype
    if isinstance(data, np.ndarray):
        return dtypes.FROM_NP[data.dtype]
    if isinstance(data, list | tuple | range):
        out: dtypes.dtype | None = None
        for d in data:
            di = _infer(d)
            out = di if out is None else dtypes.promote_types(out, di)
        return out or dtypes.DEFAULT_FLOAT
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    if not isinstance(data, bool | int | float | np.generic):
        raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")
    return dtypes.infer_dtype(data)


def _shape_error(data: Any, dt: dtypes.dtype) -> Exception | None:
    """PyTorch's complaint about nested data that is not a box: the sizes are read off
    the first element at each depth, then every element is checked against them."""
    sizes: list[int] = []
    d = data
    while isinstance(d, list | tuple | range | Tensor | np.ndarray) and not (
        isinstance(d, Tensor | np.ndarray) and d.ndim == 0
    ):
        sizes.append(len(d))
        if not len(d):
            break
        d = d[0]

    def walk(d: Any, dim: int) -> Exception | None:
        if dim == len(sizes):
            if isinstance(d, list | tuple):
                if dt.is_floating_point:
                    return TypeError(f"must be real number, not {type(d).__name__}")
                return TypeError(f"'{type(d).__name__}' object cannot be interpreted as an integer")
            return None
        if not isinstance(d, list | tuple | Tensor | np.ndarray):
            return TypeError("not a sequence")
        if len(d) != sizes[dim]:
            return ValueError(
                f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(d)})"
            )
        for x in d:
            e = walk(x, dim + 1)
            if e is not None:
                return e
        return None

    return walk(data, 0)


def _check_requires_grad(dt: dtypes.dtype, requires_grad: bool) -> None:
    if requires_grad and not dt.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")


def _finish(arr: Any, dev: device, requires_grad: bool) -> Tensor:
    t = Tensor._wrap(transfer(arr, dev))
    t._requires_grad = bool(requires_grad)
    return t


@public(
    "tensor",
    (),
    (Param("data", "data"), Param("dtype", "dtype"), Param("requires_grad", "bool")),
    category="creation",
    doc="a tensor from literal data",
    method=False,
)
def tensor(
    data: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    if isinstance(data, Tensor):
        import warnings

        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach()."
            "clone() or sourceTensor.detach().clone().requires_grad_(True), rather than "
            "torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=warn_site.outside_engine(),  # past out='s wrapper, at the caller
        )
    refuse_byte_order(data)
    dt = dtypes.as_dtype(dtype) if dtype is not None else _infer(data)
    _check_requires_grad(dt, requires_grad)
    raw = _flatten_data(data)
    try:
        if dt is dtypes.bfloat16:  # each number through float, as ``c10::BFloat16``
            arr = dtypes.cast_array(quietly(np.array, raw, dtype=np.float32), dt.np)
        else:
            arr = quietly(np.array, raw, dtype=dt.np)  # 1e40 as float32 is inf, silently
    except (ValueError, TypeError) as exc:
        error = _shape_error(data, dt)
        if error is not None:
            raise error from None
        raise ValueError(f"expected sequence of equal-length lists: {exc}") from None
    if arr.dtype == object:
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    dev = (
        to_device(device)
        if device is not None
        else (data.device if isinstance(data, Tensor) else to_device(None))
    )
    return _finish(arr, dev, requires_grad)


def scalar_tensor_like(value: Any, like: Tensor) -> Tensor:
    """A 0-dim tensor for a Python number, on ``like``'s device (wrapped scalar)."""
    return _finish(np.array(value, dtype=dtypes.scalar_dtype(value).np), like.device, False)


def _flat_size(size: tuple[Any, ...]) -> tuple[Any, ...]:
    """``f(2, 3)`` and ``f((2, 3))`` alike."""
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], list | tuple) else size


def _size_entry(s: Any) -> Any:
    """A one-element integer tensor counts as its int in a size, as PyTorch's IntArrayRef
    parser takes it (``zeros((n, lengths.max()))``, PyTorchZeroToAll's padding)."""
    integral = isinstance(s, Tensor) and not (s.dtype.is_floating_point or s.dtype.is_complex)
    if integral and s.dtype is not dtypes.bool_ and s.numel() == 1:
        return int(s.item())
    return s


def _size(size: tuple[Any, ...]) -> tuple[int, ...]:
    size = tuple(_size_entry(s) for s in _flat_size(size))
    for s in size:
        if not isinstance(s, int | np.integer):
            raise TypeError(
                "zeros(): argument 'size' (position 1) must be tuple of ints, but found element "
                "of "
                f"type {type(s).__name__} at pos 0"
            )
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {fmt_shape(size)}"
            )
    return tuple(int(s) for s in size)


def _size_keyword(kind: str, size: tuple[Any, ...], keywords: dict[str, Any]) -> tuple[Any, ...]:
    """``zeros(size=(3, 4))``: PyTorch names the sizes ``size`` whether they come by position
    or by keyword (the spelling of the PyTorch-course notebooks); no other keyword is taken."""
    if "size" in keywords and not size:
        size = (keywords.pop("size"),)
    if keywords:
        raise TypeError(f"{kind}() got an unexpected keyword argument '{next(iter(keywords))}'")
    return size


def _filled(
    fill: Any, size: tuple[Any, ...], dtype: Any, device: Any, requires_grad: bool
) -> Tensor:
    dt = dtypes.as_dtype(dtype) if dtype is not None else dtypes.DEFAULT_FLOAT
    _check_requires_grad(dt, requires_grad)
    dev = to_device(device)
    refuse_cuda_dtype(dt.np, dev)
    xp = xp_for(dev)
    shape = _size(size)
    arr = fill(xp, shape, dt.np)
    t = Tensor._wrap(arr)
    t._requires_grad = bool(requires_grad)
    return t


SIZE = Param("size", "shape", (2, 3))
DTYPE = Param("dtype", "dtype")
RG = Param("requires_grad", "bool")


@public("zeros", (), (SIZE, DTYPE, RG), category="creation", doc="a tensor of zeros", method=False)
def zeros(
    *size: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **keywords: Any,
) -> Tensor:
    size = _size_keyword("zeros", size, keywords)
    if any(isinstance(s, int | np.integer) and s < 0 for s in _flat_size(size)):
        raise RuntimeError("zeros: Dimension size must be non-negative.")  # zeros' own check
    return _filled(lambda xp, s, d: xp.zeros(s, d), size, dtype, device, requires_grad)


@public("ones", (), (SIZE, DTYPE, RG), category="creation", doc="a tensor of ones", method=False)
def ones(
    *size: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **keywords: Any,
) -> Tensor:
    size = _size_keyword("ones", size, keywords)
    return _filled(lambda xp, s, d: xp.ones(s, d), size, dtype, device, requires_grad)


@public(
    "empty",
    (),
    (SIZE, DTYPE, RG),
    category="creation",
    doc="a tensor of whatever memory held",
    method=False,
    example=Example(deterministic=False),
)
def empty(
    *size: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **keywords: Any,
) -> Tensor:
    size = _size_keyword("empty", size, keywords)
    return _filled(lambda xp, s, d: xp.empty(s, d), size, dtype, device, requires_grad)


@public(
    "full",
    (),
    (SIZE, Param("fill_value", "number", 0.0), DTYPE, RG),
    category="creation",
    doc="a tensor filled with one value",
    method=False,
)
def full(
    size: Any,
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    if dtype is None:
        dtype = dtypes.scalar_dtype(fill_value)
    return _filled(
        lambda xp, s, d: xp.full(s, fill_value, d), (tuple(size),), dtype, device, requires_grad
    )


def _random(kind: str) -> Any:
    """``rand``/``randn``: an empty tensor filled by ``uniform_(0, 1)``/``normal_(0, 1)``."""

    def fn(
        *size: Any,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
        generator: Any = None,
        **keywords: Any,
    ) -> Tensor:
        size = _size_keyword(kind, size, keywords)

        def fill(xp: Any, s: tuple[int, ...], d: Any) -> Any:
            gen = generator_of(generator, xp is not np)
            dt = np.dtype(d)
            if dt.kind != "f":
                kernel = "check_uniform_bounds" if kind == "rand" else "normal_kernel_cpu"
                raise NotImplementedError(
                    f"\"{kernel}\" not implemented for '{dtypes.FROM_NP[dt].scalar_name}'"
                )
            n = int(np.prod(s))
            flat = (
                sampling.uniform(gen, n, dt, 0.0, 1.0)
                if kind == "rand"
                else sampling.normal(gen, n, dt, 0.0, 1.0)
            )
            return xp.asarray(flat.reshape(s))

        return _filled(fill, size, dtype, device, requires_grad)

    fn.__name__ = kind
    return fn


rand = public(
    "rand",
    (),
    (SIZE, DTYPE, RG),
    category="creation",
    doc="uniform random values in [0, 1)",
    method=False,
)(_random("rand"))
randn = public(
    "randn",
    (),
    (SIZE, DTYPE, RG),
    category="creation",
    doc="standard normal random values",
    method=False,
)(_random("randn"))


@public(
    "randint",
    (),
    (
        Param("low", "int", 0),
        Param("high", "int", 5, always=True),
        Param("size", "shape", (2, 3), always=True),
        DTYPE,
        RG,
    ),
    category="creation",
    doc="random integers in [low, high), int64 by default",
    method=False,
    example=Example(deterministic=False),
)
def randint(
    *args: Any,
    low: Any = None,
    high: Any = None,
    size: Any = None,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``torch.randint([low=0,] high, size)``: integers in ``[low, high)``, int64 by default."""
    given = list(args)
    if size is None and given and isinstance(given[-1], list | tuple):
        size = given.pop()
    if high is None and given:
        high = given.pop()
    if low is None and given:
        low = given.pop()
    low = 0 if low is None else low
    if given or high is None or not isinstance(size, list | tuple):
        raise TypeError(
            "randint() received an invalid combination of arguments - got "
            f"({', '.join(type(a).__name__ for a in args)}), but expected (int low, int high, "
            "tuple of ints size)"
        )
    low, high = int(low), int(high)
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    gen = generator_of(generator, to_device(device).type == "cuda")
    dt = dtypes.as_dtype(dtype) if dtype is not None else dtypes.int64
    _check_requires_grad(dt, requires_grad)
    shape = _size(tuple(size))
    arr = sampling.randint(gen, int(np.prod(shape)), low, high).reshape(shape).astype(dt.np)
    return _finish(arr, to_device(device), requires_grad)


@public(
    "randint_like",
    ("input",),
    (Param("low", "int"), Param("high", "int", 5), DTYPE, RG),
    category="creation",
    doc="random integers in [low, high), shaped and typed like input",
    method=False,
    example=Example(deterministic=False),
)
def randint_like(
    input: Tensor,  # noqa: A002
    low: int = 0,
    high: int | None = None,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    generator: Any = None,
) -> Tensor:
    """``torch.randint_like(input, [low=0,] high)``: shaped and typed like ``input``."""
    if high is None:
        low, high = 0, low
    return randint(
        low,
        high,
        tuple(input.shape),
        dtype=dtype or input.dtype,
        device=device or input.device,
        requires_grad=requires_grad,
        generator=generator,
    )


@public(
    "randperm",
    (),
    (Param("n", "int", 5), DTYPE, RG),
    category="creation",
    doc="a random permutation of 0 .. n-1, int64 by default",
    method=False,
    example=Example(deterministic=False),
)
def randperm(
    n: int,
    *,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``torch.randperm(n)``: a random permutation of ``0..n-1`` (int64 by default)."""
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = dtypes.as_dtype(dtype) if dtype is not None else dtypes.int64
    _check_requires_grad(dt, requires_grad)
    arr = sampling.randperm(
        generator_of(generator, to_device(device).type == "cuda"), int(n)
    ).astype(dt.np)
    return _finish(arr, to_device(device), requires_grad)


@public(
    "arange",
    (),
    (Param("start", "number", 0), Param("end", "number", 5), Param("step", "number"), DTYPE, RG),
    category="creation",
    doc="evenly spaced values in [start, end)",
    method=False,
)
def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dtype = dtypes.result_type(start, end, step)
    dt = dtypes.as_dtype(dtype)
    _check_requires_grad(dt, requires_grad)
    return _finish(_arange_array(start, end, step, dt), to_device(device), requires_grad)


def _arange_array(start: Any, end: Any, step: Any, dt: dtypes.dtype) -> Any:
    """ATen's size (``ceil((end - start) / step)`` in double; integer outputs take their
    bounds and step truncated to integers first) and values (``range_values``)."""
    if dt.is_floating_point:
        n = max(math.ceil((float(end) - float(start)) / float(step)), 0)
        return arange_values(float(start), float(step), n, dt.np)
    xs, xe, xst = int(start), int(end), int(step)
    if xst == 0:
        raise RuntimeError("step must be nonzero")
    sgn = (xst > 0) - (xst < 0)
    num = xe - xs + xst - sgn
    n = max(abs(num) // abs(xst) * (1 if (num >= 0) == (xst > 0) else -1), 0)
    return integer_values(xs, xst, n, dt.np)


def _like(fn: Any, doc: str, deterministic: bool = True) -> Any:
    def like(
        input: Tensor,  # noqa: A002  (PyTorch's name)
        *,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
    ) -> Tensor:
        return fn(
            *input.shape,
            dtype=dtype or input.dtype,
            device=device or input.device,
            requires_grad=requires_grad,
        )

    like.__name__ = f"{fn.__name__}_like"
    return public(
        like.__name__,
        ("input",),
        (DTYPE, RG),
        category="creation",
        doc=doc,
        method=False,
        example=Example(deterministic=deterministic),
    )(like)


zeros_like = _like(zeros, "zeros shaped like input")
ones_like = _like(ones, "ones shaped like input")
rand_like = _like(rand, "uniform random values shaped like input")
randn_like = _like(randn, "normal random values shaped like input")
empty_like = _like(empty, "uninitialised, shaped like input", deterministic=False)


@public(
    "full_like",
    ("input",),
    (Param("fill_value", "number", 0.0), DTYPE, RG),
    category="creation",
    doc="one value, shaped like input",
    method=False,
)
def full_like(
    input: Tensor,  # noqa: A002
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    return full(
        tuple(input.shape),
        fill_value,
        dtype=dtype or input.dtype,
        device=device or input.device,
        requires_grad=requires_grad,
    )


def legacy_new(dt: dtypes.dtype, args: tuple[Any, ...], dev: Any = None) -> Tensor:
    """``torch.Tensor(*sizes)`` (uninitialised) or ``torch.Tensor(data)`` (a copy)."""
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])  # ``FloatTensor(x.size())``: the sizes, not the data
    if len(args) == 1 and isinstance(args[0], list | tuple | np.ndarray | Tensor):
        data = args[0]
        if isinstance(data, Tensor):
            return data
        arr = np.array(_flatten_data(data), dtype=dt.np)
        return _finish(arr, to_device(dev), False)
    if any(not isinstance(a, int | np.integer) for a in args):
        names = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"new(): invalid data type '{names}'")
    return _filled(lambda xp, s, d: xp.empty(s, d), args if args else (0,), dt, dev, False)


def new_filled(
    t: Tensor, how: str, size: tuple[Any, ...], kwargs: dict[str, Any], fill: Any = None
) -> Tensor:
    """``t.new_zeros``/``new_ones``/``new_empty``/``new_full``: sizes as varargs or as
    ``size=`` (Coderx7's tutorial writes ``t.new_ones(size=(2, 2))``), ``t``'s dtype
    and device unless given, ``requires_grad`` as the factories take it."""
    shape = kwargs.pop("size", None)
    if shape is not None:
        if size:
            raise TypeError(f"{how}() got multiple values for argument 'size'")
        size = (shape,)
    dtype = kwargs.pop("dtype", None) or t.dtype
    device = kwargs.pop("device", None)
    device = t.device if device is None else device
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


class _LegacyType(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls._dtype  # type: ignore[attr-defined]


def _legacy_class(name: str, dt: dtypes.dtype) -> type:
    def __new__(cls: type, *args: Any, device: Any = None) -> Tensor:  # noqa: N807
        return legacy_new(dt, args, device)

    return _LegacyType(name, (), {"__new__": __new__, "_dtype": dt})


FloatTensor = _legacy_class("FloatTensor", dtypes.float32)
DoubleTensor = _legacy_class("DoubleTensor", dtypes.float64)
HalfTensor = _legacy_class("HalfTensor", dtypes.float16)
BFloat16Tensor = _legacy_class("BFloat16Tensor", dtypes.bfloat16)
LongTensor = _legacy_class("LongTensor", dtypes.int64)
IntTensor = _legacy_class("IntTensor", dtypes.int32)
ShortTensor = _legacy_class("ShortTensor", dtypes.int16)
ByteTensor = _legacy_class("ByteTensor", dtypes.uint8)
BoolTensor = _legacy_class("BoolTensor", dtypes.bool_)

__all__ = ["to_numpy"]
