"""Elementwise ops: arithmetic, unary math, activations, comparisons.

Broadcasting is never undone here: the backward engine sums every gradient
back to its input's shape in one place (``engine_run.validate_grad``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np

from engine import cpu_loops, dtypes
from engine.backend import array_module
from engine.catalog import Example, Param, Port, applying, public
from engine.creation import scalar_tensor_like, tensor
from engine.numerics import fma
from engine.ops.core import (
    ARRAY_MATH,
    OPS,
    Sample,
    _broadcast_error,
    apply_inplace,
    apply_op,
    declare,
)
from engine.ops.kernel_dtypes import (
    NUMBER_OPERANDS,
    is_bool,
    number_operand,
    refuse_bool_subtraction,
    refuse_dtype,
)
from engine.tensor import Tensor
from engine.transcendental import libm, sigmoid_f32

S23 = Sample(((2, 3), (2, 3)))
BCAST = Sample(((2, 3), (3,)))
BCAST2 = Sample(((2, 1), (1, 3)))
UNARY = (Sample(((2, 3),)), Sample(((),)))
POS = (Sample(((2, 3),), positive=True), Sample(((),), positive=True))

SCALAR_PORT = Port("other", scalar_ok=True)
ALPHA = Param("alpha", "number")


# -- binary arithmetic ---------------------------------------------------------
def _axpy(xp: Any, a: Any, b: Any, alpha: Any) -> Any:
    """``a + alpha * b`` rounded once, as ATen's fused CPU kernel for ``alpha != 1``."""
    out_dtype = xp.result_type(a, b)
    if out_dtype.kind != "f" or isinstance(alpha, bool):
        return a + alpha * b
    return fma(b, out_dtype.type(alpha), a)


ADD = declare(
    "add",
    "AddBackward0",
    ("self", "other"),
    lambda xp, a, b, alpha=1: a + b if alpha == 1 else _axpy(xp, a, b, alpha),
    lambda ctx, g: (g, g if ctx.params.get("alpha", 1) == 1 else g * ctx.params["alpha"]),
    samples=(S23, BCAST, BCAST2, Sample(((2, 3), (2, 3)), {"alpha": 2.0})),
    ufunc="add",
    formula={"self": "1", "other": "alpha"},
)


def _sub_other_grad(ctx: Any, g: Any) -> Any:
    """``-alpha * grad`` for ``other``, computed only where it has an edge (as PyTorch's
    ``should_compute_output``): ``x - 0.001`` negates nothing."""
    if not ctx.needs[1]:
        return None
    alpha = ctx.params.get("alpha", 1)
    return -g if alpha == 1 else -g * alpha


SUB = declare(
    "sub",
    "SubBackward0",
    ("self", "other"),
    lambda xp, a, b, alpha=1: a - b if alpha == 1 else _axpy(xp, a, b, -alpha),
    lambda ctx, g: (g, _sub_other_grad(ctx, g)),
    samples=(S23, BCAST, BCAST2),
    ufunc="subtract",
    formula={"self": "1", "other": "-alpha"},
)
RSUB_T = declare(
    "rsub_tensor",
    "RsubBackward0",
    ("self", "other"),
    lambda xp, a, b, alpha=1: b - a if alpha == 1 else _axpy(xp, b, a, -alpha),
    lambda ctx, g: (-g if ctx.params.get("alpha", 1) == 1 else -g * ctx.params["alpha"], g),
    samples=(S23, BCAST, Sample(((2, 3), (2, 3)), {"alpha": 2.0})),
)
RSUB = declare(
    "rsub",
    "RsubBackward1",
    ("self",),
    lambda xp, a, other, alpha=1: other - a if alpha == 1 else other - alpha * a,
    lambda ctx, g: -g if ctx.params.get("alpha", 1) == 1 else -g * ctx.params["alpha"],
    dtype=lambda i, p: dtypes.result_type(i[0], p["other"]),
    samples=(Sample(((2, 3),), {"other": 2.0}),),
)


def _operand(a: Any, k: Any) -> Any:
    """``k`` as the second operand of a ufunc on ``a``: a Python number on a floating
    NumPy array becomes the 0-d array NumPy would cast it to, which costs half as much
    (``number_operand``); anything else is left as it is."""
    tk = type(k)
    if (tk is float or tk is int) and type(a) is np.ndarray:
        dtype = a.dtype
        if dtype.kind == "f":
            known = NUMBER_OPERANDS.get(dtype)
            operand = None if known is None else known.get(k)
            return number_operand(k, dtype) if operand is None else operand
    return k


ADD_SCALAR = declare(
    "add_scalar",
    "AddBackward1",
    ("self",),
    lambda xp, a, other: a + _operand(a, other),
    lambda ctx, g: g,
    dtype=lambda i, p: dtypes.result_type(i[0], p["other"]),
    samples=(Sample(((2, 3),), {"other": 1.0}),),
    formula={"self": "1"},
)

SUB_SCALAR = declare(
    "sub_scalar",
    "SubBackward1",
    ("self",),
    lambda xp, a, other: a - _operand(a, other),
    lambda ctx, g: g,
    dtype=lambda i, p: dtypes.result_type(i[0], p["other"]),
    samples=(Sample(((2, 3),), {"other": 1.0}),),
    formula={"self": "1"},
)

DIV_SCALAR = declare(
    "div_scalar",
    "DivBackward1",
    ("self",),
    lambda xp, a, other: a / _operand(a, other),
    lambda ctx, g: ctx.math.div_scalar(g, other=ctx.params["other"]),
    dtype="float",
    samples=(Sample(((2, 3),), {"other": 4.0}),),
    quiet=True,
    formula={"self": "1 / other"},
)


def data_of(ctx: Any, t: Any) -> Any:
    """The array behind a formula's operand (a tensor under ``create_graph``)."""
    return t if ctx.math is ARRAY_MATH else t._data


def zero_scalar(ctx: Any, like: Any) -> Any:
    """``at::zeros({}, grad.options())``: a 0-d constant zero for ``where``."""
    data = data_of(ctx, like)
    zero = array_module(data).zeros((), dtype=data.dtype)
    return zero if ctx.math is ARRAY_MATH else Tensor._wrap(zero)


def scalar_minus(ctx: Any, k: float, t: Any) -> Any:
    """ATen's ``Scalar - Tensor`` inside a formula: ``empty_like(t).fill_(k).sub_(t)``,
    so a ``create_graph`` backward records ``SubBackward0`` with a constant first edge."""
    if ctx.math is ARRAY_MATH:
        return k - t
    data = t._data
    return Tensor._wrap(array_module(data).full_like(data, k)) - t


def _mul_grads(ctx: Any, g: Any) -> tuple[Any, Any]:
    """Other's gradient first: PyTorch's generated MulBackward0 computes it first, which
    orders the nodes a ``create_graph`` backward builds."""
    needs = ctx.needs
    grad_other = g * ctx.saved["self"] if needs[1] else None
    if not needs[0]:
        return (None, grad_other)
    return (g * _operand(g, ctx.saved["other"]), grad_other)


MUL = declare(
    "mul",
    "MulBackward0",
    ("self", "other"),
    lambda xp, a, b: a * b,
    lambda ctx, g: _mul_grads(ctx, g),
    save={"other": ("self",), "self": ("other",)},  # PyTorch saves (and packs) other first
    samples=(S23, BCAST, BCAST2),
    ufunc="multiply",
    formula={"self": "other", "other": "self"},
)
MUL_SCALAR = declare(
    "mul_scalar",
    "MulBackward1",
    ("self",),
    lambda xp, a, other: a * _operand(a, other),
    lambda ctx, g: ctx.math.mul_scalar(g, other=ctx.params["other"]),
    dtype=lambda i, p: dtypes.result_type(i[0], p["other"]),
    samples=(Sample(((2, 3),), {"other": 2.5}),),
    formula={"self": "other"},
)
DIV = declare(
    "div",
    "DivBackward0",
    ("self", "other"),
    lambda xp, a, b: a / b,
    lambda ctx, g: (
        g / ctx.saved["other"] if ctx.needs[0] else None,
        -g * ((ctx.saved["self"] / ctx.saved["other"]) / ctx.saved["other"])
        if ctx.needs[1]
        else None,
    ),
    dtype="float",
    save={"other": None, "self": ("other",)},  # PyTorch saves (and packs) other first
    samples=(Sample(((2, 3), (2, 3)), positive=True), Sample(((2, 3), (3,)), positive=True)),
    quiet=True,
    ufunc="true_divide",
    formula={"self": "1 / other", "other": "-self / other ** 2"},
)
RECIPROCAL = declare(
    "reciprocal",
    "ReciprocalBackward0",
    ("self",),
    lambda xp, a: 1.0 / a,
    lambda ctx, g: -g * (ctx.saved["result"] * ctx.saved["result"]),
    dtype="float",
    save={"result": None},
    samples=POS,
    quiet=True,
)
NEG = declare(
    "neg",
    "NegBackward0",
    ("self",),
    lambda xp, a: -a,
    lambda ctx, g: -g,
    samples=UNARY,
    formula={"self": "-1"},
)


def _pow_scalar_grad(ctx: Any, g: Any) -> Any:
    """``pow_backward``: ``grad * (exponent * self.pow(exponent - 1))``, the exponent a
    Scalar (so a second derivative meets ``MulBackward1`` and ``PowBackward0``)."""
    e = ctx.params["exponent"]
    if e == 0:
        return g * 0
    return g * ctx.math.mul_scalar(ctx.math.pow(ctx.saved["self"], exponent=e - 1), other=e)


POW0 = declare(
    "pow",
    "PowBackward0",
    ("self",),
    lambda xp, a, exponent: a**exponent,
    _pow_scalar_grad,
    dtype=lambda i, p: dtypes.result_type(i[0], p["exponent"]),
    save={"self": None},
    samples=(
        Sample(((2, 3),), {"exponent": 2}),
        Sample(((2, 3),), {"exponent": 0.5}, positive=True),
    ),
    quiet=True,
    formula={"self": "exponent * self ** (exponent - 1)"},
)


def _pow_tensor_grads(ctx: Any, g: Any) -> tuple[Any, Any]:
    """``pow_backward_self`` / ``pow_backward_exponent``: zero where the exponent is 0,
    and for the exponent where the base is 0 with a non-negative exponent."""
    s, e = ctx.saved["self"], ctx.saved["exponent"]
    grad_self = grad_exp = None
    if ctx.needs[0]:
        value = g * (e * ctx.math.pow_tensor(s, ctx.math.sub_scalar(e, other=1)))
        grad_self = ctx.math.where(zero_scalar(ctx, g), value, condition=data_of(ctx, e) == 0)
    if ctx.needs[1]:
        cond = (data_of(ctx, s) == 0) & (data_of(ctx, e) >= 0)
        grad_exp = g * ctx.math.where(
            zero_scalar(ctx, g), ctx.saved["result"] * ctx.math.log(s), condition=cond
        )
    return grad_self, grad_exp


POW1 = declare(
    "pow_tensor",
    "PowBackward1",
    ("self", "exponent"),
    lambda xp, a, b: a**b,
    lambda ctx, g: _pow_tensor_grads(ctx, g),
    save={"self": None, "exponent": None, "result": ("exponent",)},
    samples=(Sample(((2, 3), (2, 3)), positive=True),),
    quiet=True,
)
POW2 = declare(
    "pow_scalar_base",
    "PowBackward2",
    ("exponent",),
    lambda xp, e, base: (
        xp.power(base, e) if not isinstance(base, int) or e.dtype.kind == "f" else base**e
    ),
    lambda ctx, g: (
        g * ctx.math.mul_scalar(ctx.saved["result"], other=_log_number(ctx.params["base"]))
    ),
    dtype=lambda i, p: dtypes.result_type(p["base"], i[0]),
    save={"result": None},
    samples=(Sample(((2, 3),), {"base": 2.0}),),
    quiet=True,
)


def _log_number(x: float) -> float:
    return math.log(x) if x > 0 else float("nan")


# -- unary math and activations -----------------------------------------------
EXP = declare(
    "exp",
    "ExpBackward0",
    ("self",),
    libm("exp"),
    lambda ctx, g: g * ctx.saved["result"],
    dtype="float",
    save={"result": None},
    samples=UNARY,
    quiet=True,
    formula={"self": "result"},
)
LOG = declare(
    "log",
    "LogBackward0",
    ("self",),
    libm("log"),
    lambda ctx, g: g / ctx.saved["self"],
    dtype="float",
    save={"self": None},
    samples=POS,
    quiet=True,
    formula={"self": "1 / self"},
)
SQRT = declare(
    "sqrt",
    "SqrtBackward0",
    ("self",),
    lambda xp, a: xp.sqrt(a),
    lambda ctx, g: g / ctx.math.mul_scalar(ctx.saved["result"], other=2),
    dtype="float",
    save={"result": None},
    samples=POS,
    quiet=True,
    formula={"self": "1 / (2 * result)"},
)
ABS = declare(
    "abs",
    "AbsBackward0",
    ("self",),
    lambda xp, a: xp.abs(a),
    lambda ctx, g: g * ctx.math.sgn(ctx.saved["self"]),
    dtype="same",
    save={"self": None},
    samples=(Sample(((2, 3),), distinct=True),),
)
SIN = declare(
    "sin",
    "SinBackward0",
    ("self",),
    libm("sin"),
    lambda ctx, g: g * ctx.math.cos(ctx.saved["self"]),
    dtype="float",
    save={"self": None},
    samples=UNARY,
)
COS = declare(
    "cos",
    "CosBackward0",
    ("self",),
    libm("cos"),
    lambda ctx, g: g * -ctx.math.sin(ctx.saved["self"]),
    dtype="float",
    save={"self": None},
    samples=UNARY,
)
TANH = declare(
    "tanh",
    "TanhBackward0",
    ("self",),
    libm("tanh", bounded=True),
    lambda ctx, g: _tanh_grad(ctx, g),
    dtype="float",
    save={"result": None},
    samples=UNARY,
    formula={"self": "1 - result ** 2"},
)


def _tanh_grad(ctx: Any, g: Any) -> Any:
    """``TanhBackward0``: ``tanh_backward`` called directly on arrays (the formula runs
    once per tanh in every backward; ``ctx.math``'s lookup and wrapper cost a third of it)."""
    if ctx.math is ARRAY_MATH and type(g) is np.ndarray:
        return _tanh_backward(np, g, ctx.saved["result"])
    return ctx.math.tanh_backward(g, ctx.saved["result"])


#: Up to this many elements ``tanh_backward`` allocates its temporaries rather than
#: reusing one with ``out=`` (whose keyword costs more than a small allocation).
_SMALL = 4096


def _tanh_backward(xp: Any, g: Any, r: Any) -> Any:
    """``g * (1 - r**2)`` with one temporary (PyTorch's fused ``tanh_backward``)."""
    if (
        xp is np
        and type(r) is np.ndarray
        and r.ndim
        and r.size <= _SMALL
        and type(g) is np.ndarray
        and g.dtype is r.dtype
        and g.shape == r.shape
        and (r.ndim == 1 or g.strides == r.strides)  # a new 1-d array is contiguous
    ):
        return (_one(r.dtype) - r * r) * g  # the same three roundings, in r's dtype
    t = xp.asarray(r * r)
    xp.subtract(_one(t.dtype) if xp is np else 1, t, out=t)
    t *= g
    return t


_ONES: dict[Any, Any] = {}


def _one(dtype: Any) -> Any:
    """A 0-d NumPy one of ``dtype``: as a ufunc operand it costs half what a Python
    ``1`` does, which NumPy converts again on every call."""
    one = _ONES.get(dtype)
    if one is None:
        one = _ONES[dtype] = np.ones((), dtype)
        one.flags.writeable = False
    return one


def _sigmoid_backward(xp: Any, g: Any, r: Any) -> Any:
    """``g * r * (1 - r)`` with one temporary (PyTorch's ``sigmoid_backward``)."""
    t = xp.asarray(1 - r)
    t *= r
    t *= g
    return t


declare(
    "tanh_backward",
    "TanhBackwardBackward0",
    ("grad_output", "output"),
    _tanh_backward,
    lambda ctx, gg: (
        ctx.math.tanh_backward(gg, ctx.saved["output"]) if ctx.needs[0] else None,
        -2 * gg * ctx.saved["grad_output"] * ctx.saved["output"] if ctx.needs[1] else None,
    ),
    save={"grad_output": ("output",), "output": None},
    samples=(Sample(((2, 3), (2, 3))),),
)
declare(
    "sigmoid_backward",
    "SigmoidBackwardBackward0",
    ("grad_output", "output"),
    _sigmoid_backward,
    lambda ctx, gg: (
        ctx.math.sigmoid_backward(gg, ctx.saved["output"]) if ctx.needs[0] else None,
        gg * ctx.saved["grad_output"] * (1 - 2 * ctx.saved["output"]) if ctx.needs[1] else None,
    ),
    save={"grad_output": ("output",), "output": None},
    samples=(Sample(((2, 3), (2, 3))),),
)


def _sigmoid(xp: Any, a: Any) -> Any:
    """On the CPU in float32 as ATen rounds it (``transcendental.sigmoid_f32``)."""
    if a.dtype.kind == "b":
        a = a.astype(xp.float32)
    if xp is np and a.dtype == np.float32:
        return sigmoid_f32(a)
    return 1 / (1 + xp.exp(-a))


SIGMOID = declare(
    "sigmoid",
    "SigmoidBackward0",
    ("self",),
    _sigmoid,
    lambda ctx, g: ctx.math.sigmoid_backward(g, ctx.saved["result"]),
    dtype="float",
    save={"result": None},
    samples=UNARY,
    quiet=True,
    formula={"self": "result * (1 - result)"},
)


def zeros_like(ctx: Any, t: Any) -> Any:
    """A formula's constant zero gradient (``zeros_like``: no node even under create_graph)."""
    if ctx.math is ARRAY_MATH:
        return array_module(t).zeros_like(t)
    return Tensor._wrap(array_module(t._data).zeros_like(t._data))


_BITS = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _threshold_backward(xp: Any, g: Any, a: Any, threshold: Any) -> Any:
    """``a <= threshold ? 0 : g``.  For equal-shaped C-contiguous float arrays, the
    gradient's bits are ANDed with an all-ones or all-zeros word per element, a third of
    ``np.where``'s time and the same result (``+0.0`` where cut, NaN or inf included).
    The words are written into the float result itself, which therefore owns its memory
    (no view), as the compiled loop's and PyTorch's do: an input buffer adds into it in
    place, and ``.grad._version`` shows it."""
    looped = cpu_loops.threshold_backward(g, a, threshold)
    if looped is not None:
        return looped
    bits = _BITS.get(g.dtype.itemsize) if type(g) is np.ndarray else None
    if (
        bits is not None
        and g.dtype.kind == "f"
        and g.ndim
        and type(a) is np.ndarray
        and a.shape == g.shape
        and g.flags.c_contiguous
        and a.flags.c_contiguous
    ):
        out = np.empty_like(g)
        keep = out.view(bits)
        np.less_equal(a, threshold, out=keep, casting="unsafe")
        keep -= bits(1)  # 1 (cut) -> 0, 0 (kept) -> all ones
        np.bitwise_and(g.view(bits), keep, out=keep)
        return out
    return xp.where(a <= threshold, xp.zeros((), g.dtype), g)


declare(
    "threshold_backward",
    "ThresholdBackwardBackward0",
    ("grad_output", "self"),
    _threshold_backward,
    lambda ctx, gg: (
        ctx.math.threshold_backward(gg, ctx.saved["self"], threshold=ctx.params["threshold"])
        if ctx.needs[0]
        else None,
        zeros_like(ctx, ctx.saved["self"]) if ctx.needs[1] else None,
    ),
    save={"self": None},
    samples=(Sample(((2, 3), (2, 3)), {"threshold": 0.0}, distinct=True),),
)
_FEW = 1024
_ZEROS: dict[Any, Any] = {}


def _zero(xp: Any, dtype: Any) -> Any:
    """A 0-d zero of ``dtype`` (NumPy's kept, never written to)."""
    if xp is not np:
        return xp.zeros((), dtype)
    z = _ZEROS.get(dtype)
    if z is None:
        z = _ZEROS[dtype] = np.zeros((), dtype)
        z.flags.writeable = False
    return z


def _relu(xp: Any, a: Any) -> Any:
    """``a < 0 ? 0 : a``, as ATen's ``clamp_min`` kernel: ``-0.0`` and NaN (with its
    sign) pass through, which ``maximum`` does not promise.  A float array's bits are
    ANDed with an all-ones or all-zeros word per element (``_threshold_backward``'s
    trick), at about ``maximum``'s cost where ``where`` takes three times as long; below
    ``_FEW`` elements ``where``'s two calls cost less than the four."""
    if a.dtype.kind != "f":
        return xp.maximum(a, 0)
    looped = cpu_loops.relu(a)
    if looped is not None:
        return looped
    bits = _BITS.get(a.dtype.itemsize) if type(a) is np.ndarray else None
    if bits is None or a.size < _FEW:
        return xp.where(a < 0, _zero(xp, a.dtype), a)
    keep = np.less(a, 0).astype(bits)
    keep -= bits(1)  # 1 (cut) -> 0, 0 (kept) -> all ones
    return np.bitwise_and(a.view(bits), keep, out=keep).view(a.dtype)


RELU = declare(
    "relu",
    "ReluBackward0",
    ("self",),
    _relu,
    lambda ctx, g: ctx.math.threshold_backward(g, ctx.saved["result"], threshold=0),
    dtype="same",
    save={"result": None},
    samples=(Sample(((2, 3),), distinct=True),),
    formula={"self": "result > 0"},
)


def _sign(xp: Any, a: Any) -> Any:
    """The sign of a bool is itself (NumPy has no bool ``sign`` loop); NaN's is 0, as
    ATen's ``(0 < x) - (x < 0)``."""
    if a.dtype.kind == "b":
        return a.copy()
    if a.dtype.kind == "f":
        return ((a > 0).astype(a.dtype) - (a < 0).astype(a.dtype)).astype(a.dtype)
    return xp.sign(a)


SIGN = declare(
    "sign",
    "SignBackward0",
    ("self",),
    _sign,
    lambda ctx, g: g * 0,
    dtype="same",
    samples=UNARY,
)
SGN = declare(
    "sgn",
    "SgnBackward0",
    ("self",),
    _sign,
    lambda ctx, g: g * 0,
    dtype="same",
    samples=UNARY,
)


def _clamp_fwd(xp: Any, a: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A002
    if min is not None:
        a = xp.maximum(a, min)
    if max is not None:
        a = xp.minimum(a, max)
    return a


def _clamp_mask(ctx: Any) -> Any:
    x, lo, hi = ctx.saved["self"], ctx.params.get("min"), ctx.params.get("max")
    m = ctx.math
    if lo is not None and hi is not None:
        return m.logical_and(m.ge(x, lo), m.le(x, hi))
    return m.ge(x, lo) if lo is not None else m.le(x, hi)


CLAMP = declare(
    "clamp",
    "ClampBackward1",
    ("self",),
    _clamp_fwd,
    lambda ctx, g: g * _clamp_mask(ctx),
    dtype=lambda i, p: dtypes.result_type(
        i[0], *(v for v in (p.get("min"), p.get("max")) if v is not None)
    ),
    save={"self": None},
    samples=(
        Sample(((2, 3),), {"min": -0.5, "max": 0.5}, distinct=True),
        Sample(((2, 3),), {"min": 0.0}, distinct=True),
    ),
)
CLAMP_MIN, CLAMP_MAX = (
    declare(
        f"clamp_{bound}",
        f"Clamp{bound.title()}Backward0",
        ("self",),
        lambda xp, a, **p: _clamp_fwd(xp, a, **p),
        lambda ctx, g: g * _clamp_mask(ctx),
        dtype=lambda i, p: dtypes.result_type(i[0], *p.values()),
        save={"self": None},
        samples=(Sample(((2, 3),), {bound: 0.0}, distinct=True),),
    )
    for bound in ("min", "max")
)


def _clamp_t_grads(ctx: Any, g: Any) -> tuple[Any, Any, Any]:
    """ATen's ``clamp_backward_min_max``: ``where(pred, grad, 0)`` for each input (a
    masked-out negative gradient is ``+0.0``); where min > max, max wins."""
    x, lo, hi, m = ctx.saved["self"], ctx.saved.get("min"), ctx.saved.get("max"), ctx.math
    zero = zero_scalar(ctx, g)

    def pick(pred: Any) -> Any:
        return m.where(g, zero, condition=pred)

    if lo is not None and hi is not None:
        keep = pick(m.logical_and(m.ge(x, lo), m.le(x, hi)))
    else:
        keep = pick(m.ge(x, lo) if lo is not None else m.le(x, hi))
    g_min = g_max = None
    if lo is not None and hi is not None:
        crossed = m.gt(lo, hi)
        if ctx.needs[1]:
            g_min = pick(m.logical_and(m.logical_not(crossed), m.lt(x, lo)))
        if ctx.needs[2]:
            g_max = pick(m.logical_or(crossed, m.gt(x, hi)))
    else:
        g_min = pick(m.lt(x, lo)) if ctx.needs[1] else None
        g_max = pick(m.gt(x, hi)) if ctx.needs[2] else None
    return (keep if ctx.needs[0] else None, g_min, g_max)


CLAMP_T = declare(
    "clamp_tensor",
    "ClampBackward0",
    ("self", "min", "max"),
    lambda xp, a, lo, hi: _clamp_fwd(xp, a, lo, hi),
    _clamp_t_grads,
    save={"self": None, "min": None, "max": None},
    samples=(Sample(((2, 3), (2, 3), (2, 3)), distinct=True),),
)


def _max_grads(ctx: Any, g: Any, keep_self_gt: bool) -> tuple[Any, Any]:
    a, b, m = ctx.saved["self"], ctx.saved["other"], ctx.math
    half = m.where(g / 2, g, condition=m.eq(a, b))
    ga = half * (m.ge(a, b) if keep_self_gt else m.le(a, b))
    gb = half * (m.le(a, b) if keep_self_gt else m.ge(a, b))
    return (ga if ctx.needs[0] else None, gb if ctx.needs[1] else None)


MAXIMUM = declare(
    "maximum",
    "MaximumBackward0",
    ("self", "other"),
    lambda xp, a, b: xp.maximum(a, b),
    lambda ctx, g: _max_grads(ctx, g, True),
    save={"self": None, "other": None},
    samples=(Sample(((2, 3), (2, 3)), distinct=True), Sample(((2, 3), (3,)), distinct=True)),
    grad_version=1,
)
MINIMUM = declare(
    "minimum",
    "MinimumBackward0",
    ("self", "other"),
    lambda xp, a, b: xp.minimum(a, b),
    lambda ctx, g: _max_grads(ctx, g, False),
    save={"self": None, "other": None},
    samples=(Sample(((2, 3), (2, 3)), distinct=True),),
    grad_version=1,
)


def _where_fwd(xp: Any, a: Any, b: Any, condition: Any) -> Any:
    return xp.where(getattr(condition, "_data", condition), a, b)


WHERE = declare(
    "where",
    "WhereBackward0",
    ("self", "other"),
    _where_fwd,
    lambda ctx, g: (
        ctx.math.where(g, zero_scalar(ctx, g), condition=ctx.params["condition"])
        if ctx.needs[0]
        else None,
        ctx.math.where(zero_scalar(ctx, g), g, condition=ctx.params["condition"])
        if ctx.needs[1]
        else None,
    ),
    saved_params=("condition",),
    samples=(Sample(((2, 3), (2, 3)), {"condition": "mask"}),),
)

# -- comparisons and logic (no gradient) --------------------------------------
_CMP = {
    "eq": "equal",
    "ne": "not_equal",
    "lt": "less",
    "le": "less_equal",
    "gt": "greater",
    "ge": "greater_equal",
}
for _n, _np_name in _CMP.items():
    declare(
        _n,
        None,
        ("self", "other"),
        (lambda f: lambda xp, a, b: getattr(xp, f)(a, b))(_np_name),
        dtype="bool",
    )
declare("logical_not", None, ("self",), lambda xp, a: xp.logical_not(a), dtype="bool")
declare("logical_and", None, ("self", "other"), lambda xp, a, b: xp.logical_and(a, b), dtype="bool")
declare("logical_or", None, ("self", "other"), lambda xp, a, b: xp.logical_or(a, b), dtype="bool")


# -- public functions -----------------------------------------------------------
def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def _scalar_arg(name: str, x: Any) -> Any:
    """A ``Number`` argument as PyTorch's argument parser reads it: a 0-d tensor
    (``LBFGS`` passes its step size so) is its Python number (``item()``: on CUDA a sync,
    never a NumPy conversion of device data); any other tensor is refused."""
    if not _is_tensor(x):
        return x
    if x.ndim:
        raise TypeError(f"{name}(): argument 'alpha' must be Number, not Tensor")
    return x.item()


def _need_tensor(name: str, x: Any, pos: str = "input") -> None:
    if not _is_tensor(x):
        raise TypeError(
            f"{name}(): argument '{pos}' (position 1) must be Tensor, not {type(x).__name__}"
        )


@public(
    "add",
    ("input", SCALAR_PORT),
    (ALPHA,),
    category="arithmetic",
    doc="input + alpha * other",
    inplace=True,
)
@applying
def add(apply_op: Callable[..., Any]) -> Callable[..., Any]:
    def add(input: Any, other: Any, *, alpha: Any = 1) -> Any:  # noqa: A002
        alpha = _scalar_arg("add_" if apply_op is apply_inplace else "add", alpha)
        if not _is_tensor(input):
            input, other = other, input
        return apply_op(ADD, (input, other), {"alpha": alpha} if alpha != 1 else None)

    return add


@public(
    "sub",
    ("input", SCALAR_PORT),
    (ALPHA,),
    category="arithmetic",
    doc="input - alpha * other",
    inplace=True,
    aliases=("subtract",),
)
@applying
def sub(apply_op: Callable[..., Any]) -> Callable[..., Any]:
    def sub(input: Any, other: Any, *, alpha: Any = 1) -> Any:  # noqa: A002
        alpha = _scalar_arg("sub_" if apply_op is apply_inplace else "sub", alpha)
        refuse_bool_subtraction(input, other)
        if not _is_tensor(input):
            return rsub(other, input, alpha=alpha)
        return apply_op(SUB, (input, other), {"alpha": alpha} if alpha != 1 else None)

    return sub


@public(
    "rsub", ("input", SCALAR_PORT), (ALPHA,), category="arithmetic", doc="other - alpha * input"
)
def rsub(input: Any, other: Any, *, alpha: Any = 1) -> Any:  # noqa: A002
    """``other - alpha * input``, PyTorch's ``rsub`` (what ``2 - x`` calls)."""
    alpha = _scalar_arg("rsub", alpha)
    refuse_bool_subtraction(input, other)
    if _is_tensor(other):
        return apply_op(RSUB_T, (input, other), {"alpha": alpha} if alpha != 1 else None)
    return apply_op(RSUB, (input,), {"other": other, "alpha": alpha})


@public(
    "mul",
    ("input", SCALAR_PORT),
    category="arithmetic",
    doc="elementwise product",
    inplace=True,
    aliases=("multiply",),
)
@applying
def mul(apply_op: Callable[..., Any]) -> Callable[..., Any]:
    def mul(input: Any, other: Any) -> Any:  # noqa: A002
        if not _is_tensor(input):
            input, other = other, input
        return apply_op(MUL, (input, other))

    return mul


# -- operators ------------------------------------------------------------------
# ``Tensor.__add__`` and its kin: the public function with its first argument known to be
# the tensor, so ``x * 2`` reaches ``apply_op`` in one call.
def add_operator(self: Any, other: Any) -> Any:
    """``self + other`` (and ``other + self``): ``AddBackward0``."""
    return apply_op(ADD, (self, other))


def sub_operator(self: Any, other: Any) -> Any:
    """``self - other``: ``SubBackward0``, bools refused as ``sub`` refuses them."""
    if self._data.dtype.kind == "b" or is_bool(other):
        refuse_bool_subtraction(self, other)
    return apply_op(SUB, (self, other))


def mul_operator(self: Any, other: Any) -> Any:
    """``self * other`` (and ``other * self``): ``MulBackward0``."""
    return apply_op(MUL, (self, other))


def div_operator(self: Any, other: Any) -> Any:
    """``self / other``: ``DivBackward0``."""
    return apply_op(DIV, (self, other))


def _div_rounding(apply_op: Callable[..., Any], input: Any, other: Any, mode: str) -> Any:  # noqa: A002
    """``div(..., rounding_mode=...)``: one ``DivBackward2`` node, whose gradients are zeros."""
    if mode not in ("trunc", "floor"):
        raise RuntimeError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'"
        )
    if not _is_tensor(input):
        input = scalar_tensor_like(input, other)  # noqa: A001
    return apply_op(OPS["div_mode"], (input, other), {"rounding_mode": mode})


@public(
    "div",
    ("input", SCALAR_PORT),
    (Param("rounding_mode", "optional_str", choices=("trunc", "floor")),),
    category="arithmetic",
    doc="true division",
    inplace=True,
    aliases=("divide",),
)
@applying
def div(apply_op: Callable[..., Any]) -> Callable[..., Any]:
    def div(input: Any, other: Any, *, rounding_mode: str | None = None) -> Any:  # noqa: A002
        if rounding_mode is not None:
            return _div_rounding(apply_op, input, other, rounding_mode)
        if not _is_tensor(input):
            return reciprocal(other) * input
        return apply_op(DIV, (input, other))

    return div


@public("reciprocal", ("input",), category="arithmetic", doc="1 / input", inplace=True)
@applying
def reciprocal(apply_op: Callable[..., Any]) -> Callable[..., Any]:
    def reciprocal(input: Any) -> Any:  # noqa: A002
        return apply_op(RECIPROCAL, (input,))

    return reciprocal


@public("neg", ("input",), category="arithmetic", doc="-input", inplace=True)
@applying
def neg(apply_op: Callable[..., Any]) -> Callable[..., Any]:
    def neg(input: Any) -> Any:  # noqa: A002
        if input._data.dtype == bool:
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. "
                "If you are trying to invert a mask, use the `~` or `logical_not()` operator "
                "instead."
            )
        return apply_op(NEG, (input,))

    return neg


@public(
    "pow",
    (Port("input", scalar_ok=True), Port("exponent", scalar_ok=True)),
    category="arithmetic",
    doc="input ** exponent",
    inplace=True,
)
@applying
def pow(apply_op: Callable[..., Any]) -> Callable[..., Any]:
    def pow(input: Any, exponent: Any) -> Any:  # noqa: A001, A002
        if is_bool(input) and is_bool(exponent) and _is_tensor(exponent):
            raise NotImplementedError("\"pow\" not implemented for 'Bool'")
        if not _is_tensor(input):
            return apply_op(POW2, (exponent,), {"base": input})
        if _is_tensor(exponent):
            scalar = exponent.ndim == 0 and not exponent.requires_grad
            if scalar and exponent.device != input.device:
                exponent = exponent.item()
            else:
                return apply_op(POW1, (input, exponent))
        return apply_op(POW0, (input,), {"exponent": exponent})

    return pow


def _unary_public(
    name: str,
    op: Any,
    category: str,
    doc: str,
    inplace: bool = False,
    kernel: str | None = None,
    integral: bool = False,
    aliases: tuple[str, ...] = (),
) -> Any:
    """The public function of a one-input op; ``kernel`` names the ATen kernel that
    refuses bool (or, with ``integral``, every non-floating) input."""

    def make(apply_op: Callable[..., Any]) -> Callable[..., Any]:
        def fn(input: Any) -> Any:  # noqa: A002
            if kernel is not None:
                refuse_dtype(kernel, input, integral=integral)
            return apply_op(op, (input,))

        fn.__name__ = name
        fn.__doc__ = doc
        return fn

    return public(name, ("input",), category=category, doc=doc, inplace=inplace, aliases=aliases)(
        applying(make)
    )


exp = _unary_public("exp", EXP, "math", "e ** input", inplace=True)
log = _unary_public("log", LOG, "math", "natural logarithm", inplace=True)
sqrt = _unary_public("sqrt", SQRT, "math", "square root", inplace=True)
abs = _unary_public("abs", ABS, "math", "absolute value", inplace=True, kernel="abs_cpu")  # noqa: A001
sin = _unary_public("sin", SIN, "math", "sine", inplace=True)
cos = _unary_public("cos", COS, "math", "cosine", inplace=True)
tanh = _unary_public("tanh", TANH, "activation", "hyperbolic tangent", inplace=True)
sigmoid = _unary_public("sigmoid", SIGMOID, "activation", "logistic sigmoid", inplace=True)


@public("relu", ("input",), category="activation", doc="max(input, 0)", inplace=True)
@applying
def relu(apply_op: Callable[..., Any]) -> Callable[..., Any]:
    def relu(input: Any) -> Any:  # noqa: A002
        """``max(input, 0)``; PyTorch refuses bools here rather than returning a copy."""
        if is_bool(input):
            raise RuntimeError("Boolean inputs not supported for relu")
        return apply_op(RELU, (input,))

    return relu


sign = _unary_public("sign", SIGN, "math", "sign of input", inplace=True)


@public(
    "clamp",
    (
        "input",
        Port("min", optional=True, scalar_ok=True),
        Port("max", optional=True, scalar_ok=True),
    ),
    category="math",
    doc="limit values to [min, max]",
    inplace=True,
    example=Example(params={"min": -0.5, "max": 0.5}),
    aliases=("clip",),
)
@applying
def clamp(apply_op: Callable[..., Any]) -> Callable[..., Any]:
    def clamp(input: Any, min: Any = None, max: Any = None) -> Any:  # noqa: A001, A002
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        if _is_tensor(min) or _is_tensor(max):
            return apply_op(CLAMP_T, (input, min, max))
        return apply_op(CLAMP, (input,), {"min": min, "max": max})

    return clamp


@public("maximum", ("input", "other"), category="math", doc="elementwise maximum")
def maximum(input: Any, other: Any) -> Any:  # noqa: A002
    return apply_op(MAXIMUM, (input, other))


@public("minimum", ("input", "other"), category="math", doc="elementwise minimum")
def minimum(input: Any, other: Any) -> Any:  # noqa: A002
    return apply_op(MINIMUM, (input, other))


@public(
    "where",
    ("condition", Port("input", scalar_ok=True), Port("other", scalar_ok=True)),
    category="math",
    doc="input where condition else other",
    method=False,
    example=Example(values={"condition": "mask"}),
)
def where(condition: Any, input: Any = None, other: Any = None) -> Any:  # noqa: A002
    if input is None and other is None:  # ``torch.where(condition)``: nonzero as a tuple
        return condition.nonzero(as_tuple=True)
    cond = condition._data if _is_tensor(condition) else condition
    if not _is_tensor(input) and not _is_tensor(other):
        input = tensor(input, device=condition.device)
    if not _is_tensor(input):
        input = scalar_tensor_like(input, other)
    _where_shapes(cond, input, other)
    return apply_op(WHERE, (input, other), {"condition": cond})


def _where_shapes(*operands: Any) -> None:
    """PyTorch's broadcast message, the shape so far against each next operand in turn."""
    shape: tuple[int, ...] = ()
    for op in operands:
        if not hasattr(op, "shape"):
            continue
        mismatch = _broadcast_error([SimpleNamespace(shape=shape), op])
        if mismatch is not None:
            raise mismatch
        shape = tuple(np.broadcast_shapes(shape, tuple(op.shape)))


def _cmp_public(name: str) -> Any:
    op = OPS[name]

    def fn(input: Any, other: Any) -> Any:  # noqa: A002
        return apply_op(op, (input, other))

    fn.__name__ = fn.__qualname__ = name
    return public(
        name,
        ("input", SCALAR_PORT),
        category="comparison",
        doc=f"elementwise {name}",
        differentiable=False,
        aliases=(_CMP[name],) if name != "eq" else (),
    )(fn)


eq, ne, lt, le, gt, ge = (_cmp_public(n) for n in _CMP)


@public(
    "logical_not",
    ("input",),
    category="comparison",
    doc="not input, elementwise (bool)",
    differentiable=False,
)
def logical_not(input: Any) -> Any:  # noqa: A002
    return apply_op(OPS["logical_not"], (input,))


@public(
    "logical_and",
    ("input", "other"),
    category="comparison",
    doc="input and other, elementwise (bool)",
    differentiable=False,
)
def logical_and(input: Any, other: Any) -> Any:  # noqa: A002
    return apply_op(OPS["logical_and"], (input, other))


@public(
    "logical_or",
    ("input", "other"),
    category="comparison",
    doc="input or other, elementwise (bool)",
    differentiable=False,
)
def logical_or(input: Any, other: Any) -> Any:  # noqa: A002
    return apply_op(OPS["logical_or"], (input, other))
