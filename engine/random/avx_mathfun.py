"""The float32 ``log`` and ``sincos`` of ATen's ``avx_mathfun.h`` (Cephes
polynomials), as the AVX2 build computes them.

``normal_`` on a contiguous float32 tensor of 16 or more elements runs these
instead of libm, so their exact float32 steps, including the multiply-adds GCC
fuses, decide the last bit of every ``randn`` value.
"""

from __future__ import annotations

import numpy as np

from engine.random.exact_float import fma32

F = np.float32
_MIN_NORM_POS = np.array(0x00800000, np.int32).view(F)
_HALF_BITS = int(np.array(0.5, F).view(np.int32))
_LOG_P = (
    7.0376836292e-2,
    -1.1514610310e-1,
    1.1676998740e-1,
    -1.2420140846e-1,
    1.4249322787e-1,
    -1.6668057665e-1,
    2.0000714765e-1,
    -2.4999993993e-1,
    3.3333331174e-1,
)
_LOG_Q1 = F(-2.12194440e-4)
_LOG_Q2 = F(0.693359375)
_SQRTHF = F(0.707106781186547524)
_FOPI = F(1.27323954473516)
_DP = (F(-0.78515625), F(-2.4187564849853515625e-4), F(-3.77489497744594108e-8))
_COSCOF = (F(2.443315711809948e-005), F(-1.388731625493765e-003), F(4.166664568298827e-002))
_SINCOF = (F(-1.9515295891e-4), F(8.3321608736e-3), F(-1.6666654611e-1))


def log256(x: np.ndarray) -> np.ndarray:
    """``log256_ps`` for positive float32 input (the Box-Muller radius)."""
    invalid = x <= 0
    x = np.maximum(x, _MIN_NORM_POS)
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(F) + F(1)
    x = ((bits & ~0x7F800000) | _HALF_BITS).view(F)
    mask = x < _SQRTHF
    tmp = np.where(mask, x, F(0))
    x = x - F(1)
    e = e - np.where(mask, F(1), F(0))
    x = x + tmp
    z = x * x
    y = np.full_like(x, F(_LOG_P[0]))
    for c in _LOG_P[1:]:
        y = fma32(y, x, F(c))
    y = y * x
    y = fma32(y, z, e * _LOG_Q1)
    y = fma32(-z, F(0.5), y)
    x = fma32(e, _LOG_Q2, x + y)
    return np.where(invalid, F(np.nan), x)


def sincos256(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sincos256_ps``: (sine, cosine) of float32 angles."""
    sign_sin = np.signbit(x)
    x = np.abs(x)
    j = ((x * _FOPI).astype(np.int32) + 1) & ~1
    y = j.astype(F)
    sign_sin = sign_sin ^ ((j & 4) != 0)
    poly = (j & 2) == 0
    sign_cos = (~(j - 2) & 4) != 0
    for dp in _DP:
        x = fma32(y, dp, x)
    z = x * x
    yc = fma32(np.full_like(x, _COSCOF[0]), z, _COSCOF[1])
    yc = fma32(yc, z, _COSCOF[2])
    yc = yc * z
    yc = fma32(yc, z, -(z * F(0.5))) + F(1)
    ys = fma32(np.full_like(x, _SINCOF[0]), z, _SINCOF[1])
    ys = fma32(ys, z, _SINCOF[2])
    ys = fma32(ys * z, x, x)
    s = np.where(poly, ys, yc)
    c = np.where(poly, yc, ys)
    return np.where(sign_sin, -s, s), np.where(sign_cos, -c, c)
