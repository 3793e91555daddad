"""Float32 transcendental functions rounded as PyTorch's CPU kernels round them.

ATen computes ``exp``, ``log``, ``tanh`` and their kin on float32 with SLEEF's
vectorised routines, accurate to about half an ulp; NumPy's float32 loops are
less accurate, so a third of its ``exp`` or ``tanh`` values differ from PyTorch's
in the last bit, and a learner's printed losses differ in their last digits.
Computing in float64 and rounding once to float32 gives the correctly rounded
value, which is what SLEEF returns almost everywhere (measured against PyTorch
2.13 on 100,000 values: ``exp`` 39 % → 1 %, ``tanh`` 32 % → 0.8 %, ``log`` and
``atan`` 19–27 % → 0 %).  Functions where this does not help (``asinh``, ``rsqrt``) are
not routed here; ``sigmoid`` has its own (``sigmoid_f32``): ATen computes its exp with
SLEEF's vector routine, which is not the correctly rounded one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np

from engine import cpu_loops
from engine.cascade_sum import GRAIN, num_threads

#: Elements widened at a time: the float64 copy stays at 256 KiB.
_BLOCK = 1 << 15
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def libm(name: str, bounded: bool = False) -> Callable[[Any, Any], Any]:
    """The forward of a one-input op that computes ``xp.<name>`` (a NumPy/CuPy ufunc),
    widened on the CPU for float32 input.

    ``bounded``: the function raises no floating-point flag for any input and its
    results fit float32 (``tanh``, ``arctan``), so the narrowing needs no error state
    around it (which costs more than the function on a small tensor)."""

    np_fn = getattr(np, name)

    def forward(xp: Any, a: Any) -> Any:
        if xp is np:
            dtype = getattr(a, "dtype", None)
            fn = np_fn
        else:
            dtype = None
            fn = getattr(xp, name)
        if dtype is _F32 or (dtype is not None and dtype == np.float32):
            # ``dtype=`` widens inside the ufunc, exactly as ``astype`` would, in one call
            if bounded and a.size <= _BLOCK:
                return fn(a, dtype=_F64).astype(_F32)
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                if a.size <= _BLOCK:
                    return fn(a, dtype=_F64).astype(_F32)
                # in blocks, so the float64 copy never costs more than a block of memory
                flat = a.reshape(-1)
                out = np.empty(a.shape, np.float32)
                dest = out.reshape(-1)
                for lo in range(0, flat.size, _BLOCK):
                    dest[lo : lo + _BLOCK] = fn(flat[lo : lo + _BLOCK].astype(np.float64))
                return out
        return fn(a)

    forward.__name__ = name
    return forward


def libm2(name: str) -> Callable[[Any, Any, Any], Any]:
    """The forward of a two-input op (``arctan2``), widened as ``libm`` widens: float32
    inputs are computed in float64 and rounded once (38 % of NumPy's float32 ``arctan2``
    values differ from PyTorch's SLEEF ones in the last bit, 2 % of the rounded ones)."""

    np_fn = getattr(np, name)

    def forward(xp: Any, a: Any, b: Any) -> Any:
        if xp is np and getattr(a, "dtype", None) == _F32 and getattr(b, "dtype", None) == _F32:
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                return np_fn(a, b, dtype=_F64).astype(_F32)
        return getattr(xp, name)(a, b)

    forward.__name__ = name
    return forward


# ---- sigmoid: ATen's float32 CPU kernel, ``1 / (1 + exp(-x))`` with SLEEF's vector exp ----

#: SLEEF ``xexpf``'s constants (``sleefsimdsp.c``): ``1/ln 2``, ``ln 2`` split in two, and
#: the degree-5 polynomial for ``exp`` on ``[-ln2/2, ln2/2]``.
_R_LN2F = np.float32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2UF = np.float32(0.693145751953125)
_L2LF = np.float32(1.428606765330187045e-06)
_EXP_POLY = tuple(
    np.float32(c)
    for c in (
        0.000198527617612853646278381,
        0.00139304355252534151077271,
        0.00833336077630519866943359,
        0.0416664853692054748535156,
        0.166666671633720397949219,
        0.5,
    )
)


#: ``cpu_loops.sleef_expf``'s tables: the constants above, then infinity; and the powers
#: of two its ``ldexpf`` multiplies by.
_SLEEF_CONSTS = np.array([_R_LN2F, _L2UF, _L2LF, *_EXP_POLY, np.inf], _F32)
_POW2 = np.ldexp(np.float32(1), np.arange(-75, 76, dtype=np.int32)).astype(_F32)


def _fma32(a: Any, b: Any, c: Any) -> Any:
    """``fmaf(a, b, c)`` on float32 arrays: the product of two float32 values is exact in
    float64, so one rounding of ``a*b + c`` in float64 and one to float32 (the double
    rounding differs from a true fma only at exact float64 ties, which the 29 spare bits
    make vanishingly rare)."""
    return (a.astype(_F64) * b + c).astype(_F32)


def sleef_expf_u10(d: Any) -> Any:
    """SLEEF's ``Sleef_expf16_u10`` (and ``expf8``, the same algorithm) on a float32 array,
    as ATen's ``Vectorized<float>::exp`` computes it inside vectorised kernels: within 1
    ulp, and not always the correctly rounded value that ``libm("exp")`` gives."""
    q = np.rint(d * _R_LN2F).astype(np.int32)
    qf = q.astype(_F32)
    s = _fma32(qf, -_L2UF, d)
    s = _fma32(qf, -_L2LF, s)
    u = np.full(d.shape, _EXP_POLY[0], _F32)
    for c in _EXP_POLY[1:]:
        u = _fma32(u, s, c)
    u = (np.float32(1) + _fma32(s * s, u, s)).astype(_F32)
    with np.errstate(over="ignore", under="ignore"):
        u = np.ldexp(u, q).astype(_F32)
    u[d < -104] = 0
    u[d > 100] = np.inf
    return u


@cache
def vector_floats() -> int:
    """Floats per loop step of ATen's vectorised unary kernels on this CPU: two
    ``Vectorized<float>`` registers, 32 on an AVX-512 build's dispatch, 16 on AVX2 and the
    generic build (``ATEN_CPU_CAPABILITY`` lowers the dispatch as it does PyTorch's)."""
    forced = os.environ.get("ATEN_CPU_CAPABILITY", "").lower()
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            flags = next((line.split() for line in f if line.startswith("flags")), [])
    except OSError:
        flags = []
    avx512 = {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= set(flags)
    if avx512 and forced in ("", "avx512"):
        return 32
    return 16


def _vector_lanes(a: Any) -> Any:
    """Which elements of ``a`` ATen's ``cpu_kernel_vec`` computes with the vector lambda:
    along each innermost run of memory-contiguous elements (all of ``a`` when it is
    dense, in memory order), whole steps of ``vector_floats()``; the rest of a run, and
    every element of an input whose innermost stride is not one element, take the scalar
    lambda.  A dense input above ``GRAIN`` elements is split between PyTorch's threads
    first (``at::parallel_for``), each chunk with its own tail."""
    step = vector_floats()
    if a.flags.c_contiguous or a.flags.f_contiguous:
        n = a.size
        flat = np.zeros(n, bool)
        threads = min(num_threads(), max(1, -(-n // GRAIN))) if n > GRAIN else 1
        chunk = -(-n // threads)
        for lo in range(0, n, chunk):
            hi = min(n, lo + chunk)
            flat[lo : lo + (hi - lo) // step * step] = True
        return flat.reshape(a.shape, order="C" if a.flags.c_contiguous else "F")
    keep = [k for k in range(a.ndim) if a.shape[k] != 1]
    order = sorted(keep, key=lambda k: -abs(a.strides[k]))
    shape = [a.shape[k] for k in order]
    strides = [a.strides[k] for k in order]
    mask = np.zeros(shape, bool)
    if shape and strides[-1] == a.itemsize:
        run, j = shape[-1], len(shape) - 1
        while j > 0 and strides[j - 1] == strides[j] * shape[j]:
            run *= shape[j - 1]
            j -= 1
        inner = np.zeros(run, bool)
        inner[: run // step * step] = True
        mask = np.broadcast_to(inner.reshape(shape[j:]), shape).copy()
    full = np.zeros(a.shape, bool)
    view = full.reshape([a.shape[k] for k in range(a.ndim) if a.shape[k] != 1] or [1])
    # ``view`` holds the non-unit axes in their own order; put ``mask`` back into it
    inverse = [order.index(k) for k in keep]
    view[...] = mask.transpose(inverse) if mask.ndim else mask
    return full


def sigmoid_f32(a: Any) -> Any:
    """``torch.sigmoid`` of a float32 array as ATen's CPU kernel rounds it: ``1 / (1 +
    exp(-x))`` in float32, the exp SLEEF's where the vector lambda runs and libm's
    (correctly rounded) where the scalar one does; NumPy's float32 exp differs from both
    in about a sixth of the values, which an LSTM's gates carry into every later step."""
    neg = np.negative(a)
    with np.errstate(over="ignore"):
        e = np.exp(neg, dtype=_F64).astype(_F32)
    lanes = _vector_lanes(a)
    if lanes.any():
        e[lanes] = sleef_expf_u10(neg[lanes])
    with np.errstate(over="ignore"):
        return (np.float32(1) / (np.float32(1) + e)).astype(_F32)


# ---- softmax: ATen's float32 CPU kernel along the last dim (``_vec_softmax_lastdim``) ----


def vector_lanes() -> int:
    """Floats in one ``Vectorized<float>`` register on this CPU (16 with AVX-512, 8
    otherwise): the lanes of ATen's ``vec::reduce_all``."""
    return vector_floats() // 2


def vec_reduce_sum(e: Any) -> Any:
    """Each row's sum as ATen's ``vec::reduce_all(add, row, n)`` adds it in float32: rows
    shorter than a register one element after another; longer ones lane by lane, a
    register at a time (the tail into the first lanes), then the register's lanes
    folded in halves (the shuffles of ``vec_reduce_all``)."""
    lanes = vector_lanes()
    n = e.shape[-1]
    if n < lanes:
        total = e[..., 0].copy()
        for j in range(1, n):
            total += e[..., j]
        return total
    acc = e[..., :lanes].copy()
    full = n - n % lanes
    for k in range(lanes, full, lanes):
        acc += e[..., k : k + lanes]
    if full < n:
        acc[..., : n - full] += e[..., full:]
    width = lanes
    while width > 1:
        width //= 2
        acc = acc[..., :width] + acc[..., width : 2 * width]
    return acc[..., 0]


def softmax_lastdim_f32(a: Any) -> Any:
    """``softmax`` of a float32 array over its last dim as ATen's CPU kernel rounds it:
    ``exp(x - max)`` with SLEEF's vector exp (every element, the partial register's too),
    the row's sum in ``vec::reduce_all``'s order, then each ``exp`` times the sum's
    reciprocal.  NumPy's exp and pairwise sum differ from it in the last bit in half of
    the values or more."""
    rows = np.ascontiguousarray(a)
    if rows.size == 0 or rows.shape[-1] == 0:
        return np.exp(rows - rows)
    out = cpu_loops.softmax_f32(rows, _SLEEF_CONSTS, _POW2, vector_lanes())
    if out is not None:
        return out
    with np.errstate(invalid="ignore", over="ignore"):
        e = sleef_expf_u10(rows - rows.max(axis=-1, keepdims=True))
        inverse = np.float32(1) / vec_reduce_sum(e)
        return e * inverse[..., None]


def softmax_backward_lastdim_f32(g: Any, y: Any) -> Any:
    """``softmax``'s backward over the last dim as ATen's kernel rounds it:
    ``(g - sum(g * y)) * y``, the sum in ``vec::reduce_all``'s order."""
    g, y = np.ascontiguousarray(g), np.ascontiguousarray(y)
    out = cpu_loops.softmax_backward_f32(g, y, vector_lanes())
    if out is not None:
        return out
    total = vec_reduce_sum(g * y)
    return (g - total[..., None]) * y


def log_softmax_lastdim_f32(a: Any) -> Any:
    """``log_softmax`` of a float32 array over its last dim as ATen's CPU kernel
    (``_vec_log_softmax_lastdim``) rounds it: the sum of SLEEF's ``exp(x - max)`` in
    ``vec::reduce_all``'s order, its log, then ``(x - max) - log``.  The log here is the
    correctly rounded one where ATen's is SLEEF's (within an ulp of it): measured against
    PyTorch 2.13 on random rows, 0.2 % of values differ, against NumPy's 6-24 %."""
    rows = np.ascontiguousarray(a)
    if rows.size == 0 or rows.shape[-1] == 0:
        return rows - rows
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        firsts = cpu_loops.log_softmax_sums_f32_rows(rows, _SLEEF_CONSTS, _POW2, vector_lanes())
        if firsts is not None:
            shifted, total = firsts
        else:
            shifted = rows - rows.max(axis=-1, keepdims=True)
            total = vec_reduce_sum(sleef_expf_u10(shifted))
        log = np.log(total, dtype=_F64).astype(_F32)
        return shifted - log[..., None]


def log_softmax_backward_lastdim_f32(g: Any, y: Any) -> Any:
    """``log_softmax``'s backward over the last dim as ATen's kernel rounds it:
    ``g - exp(y) * sum(g)`` with SLEEF's exp, the sum in ``vec::reduce_all``'s order, and
    the product and difference one fused multiply-add (as the compiler contracts
    ATen's vector expression): bit for bit PyTorch's on every row tried."""
    g, y = np.ascontiguousarray(g), np.ascontiguousarray(y)
    out = cpu_loops.log_softmax_backward_f32(g, y, _SLEEF_CONSTS, _POW2, vector_lanes())
    if out is not None:
        return out
    total = vec_reduce_sum(g)
    e = sleef_expf_u10(y)
    with np.errstate(invalid="ignore", over="ignore"):
        return (g.astype(_F64) - e.astype(_F64) * total[..., None]).astype(_F32)
