"""Special functions and the rest of the elementwise math programs reach for: ``erf``,
``erfinv``, ``lgamma``/``digamma``/``polygamma``, ``exp2``, ``sinc``, ``logit``,
``deg2rad``/``rad2deg``, ``nan_to_num``, ``xlogy``, ``logaddexp``, ``hypot``,
``copysign``.

Functions NumPy lacks (``erf``, ``lgamma``) are evaluated in float64 on the host from
Python's ``math`` module and rounded once to the result dtype; each backward is
PyTorch's ``derivatives.yaml`` formula written with ``ctx.math`` so ``create_graph`` works.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from engine import dtypes
from engine.backend import array_module
from engine.catalog import Example, Param, Port, applying, public
from engine.ops.core import ARRAY_MATH, OPS, Sample, apply_op, declare
from engine.ops.host import on_host
from engine.ops.kernel_dtypes import refuse_dtype
from engine.ops.pointwise import (
    POS,
    UNARY,
    _unary_public,
    data_of,
    scalar_minus,
    zero_scalar,
    zeros_like,
)
from engine.transcendental import libm

S23 = Sample(((2, 3), (2, 3)))
UNIT = (Sample(((2, 3),), unit=True),)


def _on_host(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[..., Any]:
    """A forward computed by ``fn`` on a float64 host copy, returned on ``a``'s device."""

    def forward(xp: Any, a: Any) -> Any:
        host = a if xp is np else xp.asnumpy(a)
        out = fn(np.asarray(host, dtype=np.float64))
        return out if xp is np else xp.asarray(out)

    return forward


def _elementwise(scalar: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
    vec = np.frompyfunc(scalar, 1, 1)
    return lambda a: np.asarray(vec(a), dtype=np.float64).reshape(a.shape)


def _lgamma1(x: float) -> float:
    try:
        return math.lgamma(x)
    except ValueError:  # a pole: 0 and the negative integers
        return math.inf
    except OverflowError:
        return math.inf


def _erfinv(y: np.ndarray) -> np.ndarray:
    """Giles' single-precision approximation refined by Newton steps on ``math.erf``."""
    erf = _elementwise(math.erf)
    w = -np.log(np.maximum((1.0 - y) * (1.0 + y), 1e-300))
    small = w < 5.0
    ws = w - 2.5
    p = 2.81022636e-08
    for k in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
              -0.00125372503, -0.00417768164, 0.246640727, 1.50140941):  # fmt: skip
        p = k + p * ws
    wl = np.sqrt(w) - 3.0
    q = -0.000200214257
    for k in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
              -0.0076224613, 0.00943887047, 1.00167406, 2.83297682):  # fmt: skip
        q = k + q * wl
    x = np.where(small, p, q) * y
    for _ in range(3):
        x = x - (erf(x) - y) / (2.0 / math.sqrt(math.pi) * np.exp(-x * x))
    x = np.where(np.abs(y) == 1.0, np.copysign(np.inf, y), x)
    return np.where(np.abs(y) > 1.0, np.nan, x)


_ASYMPTOTIC = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)  # B_2k


def _polygamma(n: int, x: np.ndarray) -> np.ndarray:
    """``ψ⁽ⁿ⁾(x)``: shifted up to ``x ≥ 10`` by the recurrence, then the asymptotic series
    (``n = 0`` is the digamma function; negative ``x`` uses the reflection for ``n = 0``)."""
    x = np.asarray(x, dtype=np.float64)
    pole = (x <= 0) & (x == np.floor(x))
    if n == 0:
        neg = x < 0
        z = np.where(neg, 1.0 - x, x)
    else:
        neg = np.zeros(x.shape, bool)
        z = x
    acc = np.zeros(x.shape)
    sign = (-1.0) ** (n + 1) * math.factorial(n)
    with np.errstate(all="ignore"):
        shift = np.clip(np.ceil(10.0 - np.where(np.isfinite(z), z, 10.0)), 0, None)
        steps = int(shift.max()) if shift.size else 0
        for k in range(steps):
            live = k < shift
            term = 1.0 / (z + k) ** (n + 1)
            acc = acc + np.where(live, (-1.0 if n == 0 else sign) * term, 0.0)
        w = z + shift
        if n == 0:
            series = np.log(w) - 0.5 / w
            for k, b in enumerate(_ASYMPTOTIC, 1):
                series = series - b / (2 * k * w ** (2 * k))
        else:
            series = math.factorial(n - 1) / w**n + math.factorial(n) / (2 * w ** (n + 1))
            for k, b in enumerate(_ASYMPTOTIC, 1):
                series = series + b * math.factorial(2 * k + n - 1) / (
                    math.factorial(2 * k) * w ** (2 * k + n)
                )
            series = series * (-1.0) ** (n + 1)
        out = series + acc
        if n == 0:
            out = np.where(neg, out - math.pi / np.tan(math.pi * x), out)
            out = np.where(x == 0, -np.inf, np.where(pole, np.nan, out))
        else:
            out = np.where(pole, np.inf if n % 2 else np.nan, out)
        out = np.where(x == np.inf, 0.0 if n else np.inf, out)
    return out


def _float_unary(
    name: str,
    grad_fn: str,
    forward: Any,
    backward: Any,
    doc: str,
    *,
    saves: str = "self",
    samples: Any = UNARY,
    inplace: bool = True,
    example: Example | None = None,
) -> Any:
    op = declare(
        name,
        grad_fn,
        ("self",),
        forward,
        backward,
        dtype="float",
        save={saves: None} if saves else {},
        samples=samples,
        quiet=True,
    )

    def make(apply_op: Callable[..., Any]) -> Callable[..., Any]:
        def fn(input: Any) -> Any:  # noqa: A002
            return apply_op(op, (input,))

        fn.__name__ = name
        fn.__doc__ = doc
        return fn

    return public(name, ("input",), category="math", doc=doc, inplace=inplace, example=example)(
        applying(make)
    )


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

erf = _float_unary(
    "erf",
    "ErfBackward0",
    _on_host(_elementwise(math.erf)),
    lambda ctx, g: (
        ctx.math.mul_scalar(
            ctx.math.exp(-ctx.math.pow(ctx.saved["self"], exponent=2)), other=_TWO_OVER_SQRT_PI
        )
        * g
    ),
    "error function",
)
erfc = _float_unary(
    "erfc",
    "ErfcBackward0",
    _on_host(_elementwise(math.erfc)),
    lambda ctx, g: (
        ctx.math.mul_scalar(
            ctx.math.exp(-ctx.math.pow(ctx.saved["self"], exponent=2)), other=-_TWO_OVER_SQRT_PI
        )
        * g
    ),
    "complementary error function",
)
erfinv = _float_unary(
    "erfinv",
    "ErfinvBackward0",
    _on_host(_erfinv),
    lambda ctx, g: (
        ctx.math.mul_scalar(
            ctx.math.exp(ctx.math.pow(ctx.math.erfinv(ctx.saved["self"]), exponent=2)),
            other=0.5 * math.sqrt(math.pi),
        )
        * g
    ),
    "inverse error function",
    samples=UNIT,
    example=Example(values={"input": "probability"}),
)
lgamma = _float_unary(
    "lgamma",
    "LgammaBackward0",
    _on_host(_elementwise(_lgamma1)),
    lambda ctx, g: g * ctx.math.digamma(ctx.saved["self"]),
    "log of the absolute gamma function",
    samples=POS,
)
digamma = _float_unary(
    "digamma",
    "DigammaBackward0",
    _on_host(lambda a: _polygamma(0, a)),
    lambda ctx, g: g * ctx.math.polygamma(ctx.saved["self"], n=1),
    "derivative of lgamma",
    samples=POS,
)
POLYGAMMA = declare(
    "polygamma",
    "PolygammaBackward0",
    ("self",),
    lambda xp, a, n: _on_host(lambda h: _polygamma(n, h))(xp, a),
    lambda ctx, g: g * ctx.math.polygamma(ctx.saved["self"], n=ctx.params["n"] + 1),
    dtype="float",
    save={"self": None},
    samples=(Sample(((2, 3),), {"n": 1}, positive=True),),
    quiet=True,
)


@public(
    "polygamma",
    ("input",),
    (Param("n", "int", 1),),
    category="math",
    doc="n-th derivative of digamma",
    method=False,
    example=Example(values={"input": "positive"}),
)
def polygamma(n: int, input: Any) -> Any:  # noqa: A002
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 0:
        return digamma(input)
    return apply_op(POLYGAMMA, (input,), {"n": n})


exp2 = _float_unary(
    "exp2",
    "Exp2Backward0",
    libm("exp2"),
    lambda ctx, g: ctx.math.mul_scalar(g * ctx.saved["result"], other=math.log(2.0)),
    "2 ** input",
    saves="result",
)


def _sinc_grad(ctx: Any, g: Any) -> Any:
    """``sinc_backward``: ``grad * ((πx cos πx − sin πx) / (π x²))``, 0 where ``x`` is 0."""
    x = ctx.saved["self"]
    m = ctx.math
    ratio = (
        m.mul_scalar(x, other=math.pi) * m.cos(m.mul_scalar(x, other=math.pi))
        - m.sin(m.mul_scalar(x, other=math.pi))
    ) / m.mul_scalar(x * x, other=math.pi)
    return m.where(zero_scalar(ctx, g), g * ratio, condition=data_of(ctx, x) == 0)


sinc = _float_unary(
    "sinc", "SincBackward0", on_host(lambda xp, a: xp.sinc(a)), _sinc_grad, "sin(πx)/(πx)"
)
deg2rad = _float_unary(
    "deg2rad",
    "Deg2RadBackward0",
    lambda xp, a: a * (math.pi / 180.0),
    lambda ctx, g: ctx.math.mul_scalar(g, other=math.pi / 180.0),
    "degrees to radians",
    saves="",
)
rad2deg = _float_unary(
    "rad2deg",
    "Rad2DegBackward0",
    lambda xp, a: a * (180.0 / math.pi),
    lambda ctx, g: ctx.math.mul_scalar(g, other=180.0 / math.pi),
    "radians to degrees",
    saves="",
)


def _logit_fwd(xp: Any, a: Any, eps: float | None = None) -> Any:
    if eps is not None:
        a = xp.clip(a, eps, 1.0 - eps)
    return xp.log(a / (1.0 - a))


def _logit_grad(ctx: Any, g: Any) -> Any:
    """``infinitely_differentiable_logit_backward``: ``grad / (x (1 - x))`` inside
    ``[eps, 1 - eps]``, 0 outside it with ``eps``, NaN outside ``[0, 1]`` without."""
    x = ctx.saved["self"]
    m = ctx.math
    eps = ctx.params.get("eps")
    out = g / (x * scalar_minus(ctx, 1.0, x))
    data = data_of(ctx, x)
    lo, hi = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
    inside = (data >= lo) & (data <= hi)
    fill = zero_scalar(ctx, g) + (math.nan if eps is None else 0.0)
    return m.where(out, fill, condition=inside)


LOGIT_EPS = declare(
    "logit_eps",
    "LogitBackward0",
    ("self",),
    _logit_fwd,
    _logit_grad,
    dtype="float",
    save={"self": None},
    samples=(Sample(((2, 3),), unit=True), Sample(((2, 3),), {"eps": 0.2}, unit=True)),
    quiet=True,
)


@public(
    "logit",
    ("input",),
    (Param("eps", "optional_number"),),
    category="math",
    doc="log(p / (1 - p))",
    inplace=True,
    example=Example(values={"input": "probability"}),
)
def logit(input: Any, eps: float | None = None) -> Any:  # noqa: A002
    """Its own op, not the ``logit`` that ``losses`` declares for its formulas: the
    public one clamps to ``[eps, 1 - eps]`` and its gradient is NaN (0 with ``eps``)
    outside the domain, as PyTorch's."""
    return apply_op(LOGIT_EPS, (input,), {} if eps is None else {"eps": float(eps)})


# -- nan_to_num ----------------------------------------------------------------------------
def _nan_to_num_fwd(
    xp: Any, a: Any, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None
) -> Any:
    if a.dtype.kind != "f":
        return a.copy()
    info = np.finfo(a.dtype)
    out = xp.where(xp.isnan(a), a.dtype.type(nan), a)
    out = xp.where(out == np.inf, a.dtype.type(info.max if posinf is None else posinf), out)
    return xp.where(out == -np.inf, a.dtype.type(info.min if neginf is None else neginf), out)


def _isfinite(ctx: Any, x: Any) -> Any:
    data = data_of(ctx, x)

    mask = array_module(data).isfinite(data)
    return mask if ctx.math is ARRAY_MATH else type(x)._wrap(mask)


NAN_TO_NUM = declare(
    "nan_to_num",
    "NanToNumBackward0",
    ("self",),
    _nan_to_num_fwd,
    lambda ctx, g: g * _isfinite(ctx, ctx.saved["self"]),
    dtype="same",
    save={"self": None},
    samples=UNARY,
)


@public(
    "nan_to_num",
    ("input",),
    (
        Param("nan", "number"),
        Param("posinf", "optional_number"),
        Param("neginf", "optional_number"),
    ),
    category="math",
    doc="NaN and infinities replaced by finite numbers",
    inplace=True,
)
def nan_to_num(
    input: Any,  # noqa: A002
    nan: float = 0.0,
    posinf: float | None = None,
    neginf: float | None = None,
) -> Any:
    params: dict[str, Any] = {"nan": 0.0 if nan is None else nan}
    if posinf is not None:
        params["posinf"] = posinf
    if neginf is not None:
        params["neginf"] = neginf
    return apply_op(NAN_TO_NUM, (input,), params)


sgn = _unary_public("sgn", OPS["sgn"], "math", "sign (x / |x| for complex input)", inplace=True)


# -- binary ---------------------------------------------------------------------------------
def _float_promote(inputs: tuple[Any, ...], params: dict[str, Any]) -> dtypes.dtype:
    return dtypes.to_float(dtypes.result_type(*inputs, *params.values()))


def _xlogy_fwd(xp: Any, a: Any, b: Any) -> Any:
    out = a * xp.log(b)
    return xp.where((a == 0) & ~xp.isnan(b), 0.0, out)


def _xlogy_self_grad(ctx: Any, g: Any, other: Any) -> Any:
    m = ctx.math
    out = m.xlogy(g, other)
    self_zero = data_of(ctx, ctx.saved["self"]) == 0
    o = data_of(ctx, other) if hasattr(other, "shape") else other
    return m.masked_fill(out, mask=self_zero & (o <= 0), value=0.0)


XLOGY = declare(
    "xlogy",
    "XlogyBackward0",
    ("self", "other"),
    _xlogy_fwd,
    lambda ctx, g: (
        _xlogy_self_grad(ctx, g, ctx.saved["other"]) if ctx.needs[0] else None,
        g * ctx.saved["self"] / ctx.saved["other"] if ctx.needs[1] else None,
    ),
    dtype="float",
    save={"self": None, "other": None},
    samples=(Sample(((2, 3), (2, 3)), positive=True), Sample(((2, 3), (3,)), positive=True)),
    quiet=True,
)
XLOGY_SELF = declare(
    "xlogy_scalar_self",
    "XlogyBackward1",
    ("other",),
    lambda xp, b, self: _xlogy_fwd(xp, xp.asarray(self, dtype=b.dtype), b),
    lambda ctx, g: ctx.math.mul_scalar(g, other=ctx.params["self"]) / ctx.saved["other"],
    dtype=lambda i, p: _float_promote(i, p),
    save={"other": None},
    samples=(Sample(((2, 3),), {"self": 2.0}, positive=True),),
    quiet=True,
)
XLOGY_OTHER = declare(
    "xlogy_scalar_other",
    "XlogyBackward2",
    ("self",),
    lambda xp, a, other: _xlogy_fwd(xp, a, xp.asarray(other, dtype=a.dtype)),
    lambda ctx, g: _xlogy_scalar_other_grad(ctx, g),
    dtype=lambda i, p: _float_promote(i, p),
    save={"self": None},
    samples=(Sample(((2, 3),), {"other": 2.0}),),
    quiet=True,
)


def _xlogy_scalar_other_grad(ctx: Any, g: Any) -> Any:
    other = ctx.params["other"]
    out = ctx.math.xlogy_scalar_other(g, other=other)
    if other > 0:
        return out
    return ctx.math.masked_fill(out, mask=data_of(ctx, ctx.saved["self"]) == 0, value=0.0)


def _is_tensor(x: Any) -> bool:
    return hasattr(x, "_data")


@public(
    "xlogy",
    (Port("input", scalar_ok=True), Port("other", scalar_ok=True)),
    category="math",
    doc="input * log(other), 0 where input is 0",
    inplace=True,
    example=Example(values={"other": "positive"}),
)
def xlogy(input: Any, other: Any) -> Any:  # noqa: A002
    if not _is_tensor(input):
        return apply_op(XLOGY_SELF, (other,), {"self": input})
    if not _is_tensor(other):
        return apply_op(XLOGY_OTHER, (input,), {"other": other})
    return apply_op(XLOGY, (input, other))


LOGADDEXP = declare(
    "logaddexp",
    "LogaddexpBackward0",
    ("self", "other"),
    on_host(lambda xp, a, b: xp.logaddexp(a, b)),
    lambda ctx, g: (
        g / ctx.math.add_scalar(ctx.math.exp(ctx.saved["other"] - ctx.saved["self"]), other=1)
        if ctx.needs[0]
        else None,
        g / ctx.math.add_scalar(ctx.math.exp(ctx.saved["self"] - ctx.saved["other"]), other=1)
        if ctx.needs[1]
        else None,
    ),
    dtype="float",
    save={"self": None, "other": None},
    samples=(S23, Sample(((2, 3), (3,)))),
    quiet=True,
)


@public("logaddexp", ("input", "other"), category="math", doc="log(exp(input) + exp(other))")
def logaddexp(input: Any, other: Any) -> Any:  # noqa: A002
    refuse_dtype("logaddexp_cpu", input, integral=True)
    return apply_op(LOGADDEXP, (input, other))


HYPOT = declare(
    "hypot",
    "HypotBackward0",
    ("self", "other"),
    lambda xp, a, b: xp.hypot(a, b),
    lambda ctx, g: (
        g * ctx.saved["self"] / ctx.saved["result"] if ctx.needs[0] else None,
        g * ctx.saved["other"] / ctx.saved["result"] if ctx.needs[1] else None,
    ),
    save={"self": None, "other": None, "result": None},
    samples=(S23, Sample(((2, 3), (3,)))),
    quiet=True,
)


@public("hypot", ("input", "other"), category="math", doc="sqrt(input² + other²)", inplace=True)
def hypot(input: Any, other: Any) -> Any:  # noqa: A002
    refuse_dtype("hypot_cpu", input, integral=True)
    return apply_op(HYPOT, (input, other))


def _copysign_grad(ctx: Any, g: Any) -> Any:
    """``copysign_tensor_self_backward``: ``grad * result / self``, 0 where self is 0."""
    x = ctx.saved["self"]
    ratio = ctx.saved["result"] / x
    ratio = ctx.math.masked_fill(ratio, mask=data_of(ctx, x) == 0, value=0)
    return g * ratio


COPYSIGN = declare(
    "copysign",
    "CopysignBackward0",
    ("self", "other"),
    lambda xp, a, b: xp.copysign(a, b),
    lambda ctx, g: (
        _copysign_grad(ctx, g) if ctx.needs[0] else None,
        zeros_like(ctx, ctx.saved["other"]) if ctx.needs[1] else None,
    ),
    dtype="float",
    save={"self": ("self",), "other": ("other",), "result": ("self",)},
    samples=(Sample(((2, 3), (2, 3)), distinct=True),),
    quiet=True,
)
COPYSIGN_SCALAR = declare(
    "copysign_scalar",
    "CopysignBackward1",
    ("self",),
    lambda xp, a, other: xp.copysign(a, xp.asarray(other, dtype=a.dtype)),
    _copysign_grad,
    dtype=lambda i, p: _float_promote(i, p),
    save={"self": None, "result": None},
    samples=(Sample(((2, 3),), {"other": -1.0}, distinct=True),),
    quiet=True,
)


@public(
    "copysign",
    ("input", Port("other", scalar_ok=True)),
    category="math",
    doc="magnitude of input with the sign of other",
    inplace=True,
)
def copysign(input: Any, other: Any) -> Any:  # noqa: A002
    if not _is_tensor(other):
        return apply_op(COPYSIGN_SCALAR, (input,), {"other": other})
    return apply_op(COPYSIGN, (input, other))
