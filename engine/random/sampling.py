"""Values from the generator's words, by the transforms of ATen's CPU kernels.

Each function returns a flat NumPy array of ``n`` values and advances the
generator exactly as the PyTorch kernel does, so a sequence of calls draws the
same words as the same sequence under PyTorch.  Float32 ``normal_`` of 16 or
more elements follows the AVX2 kernel (``normal_fill_AVX2``), which is the one a
``CPU capability usage: AVX2`` build runs.  Float32 and float64 are bit-exact;
float16 draws the same words (a float32 value rounded to half) but its
``normal_`` blocks, which go through libm in half precision, are not reproduced.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from engine.random.avx_mathfun import log256, sincos256
from engine.random.exact_float import fma32, fma64
from engine.random.generator import Generator

#: Mantissa digits of ``std::numeric_limits<T>::digits``; half draws as float.
_DIGITS = {np.dtype(np.float16): 24, np.dtype(np.float32): 24, np.dtype(np.float64): 53}
_TWO_PI = 2.0 * np.pi
#: ``uniform_int_from_to_distribution`` switches to 64-bit words from this range.
_RANGE_64 = 1 << 28


def _libm(fn: Callable[[float], float], x: np.ndarray) -> np.ndarray:
    """``fn`` applied by the C library, as ATen's scalar kernels call ``std::log``.

    NumPy's float64 ``log`` and ``log1p`` are its own SIMD code on AVX-512
    machines and differ from glibc in the last bit, so PyTorch's doubles would
    not be reproduced there.
    """
    return np.fromiter(map(fn, x.ravel().tolist()), np.float64, x.size).reshape(x.shape)


def unit(gen: Generator, n: int, dt: np.dtype) -> np.ndarray:
    """``uniform_real_distribution<T>(0, 1)``: the low ``digits`` bits over ``2**digits``."""
    digits = _DIGITS[dt]
    if digits == 53:
        words = gen.random64(n) & np.uint64((1 << 53) - 1)
        return words.astype(np.float64) * 2.0**-53
    words = gen.random(n) & np.uint64((1 << digits) - 1)
    return words.astype(np.float32) * np.float32(2.0**-digits)


def uniform(gen: Generator, n: int, dt: np.dtype, low: float, high: float) -> np.ndarray:
    """``uniform_(low, high)``: ``x * (to - from) + from`` fused, in the dtype's accumulator."""
    dt = np.dtype(dt)
    x = unit(gen, n, dt)
    if dt == np.float64:
        return fma64(x, high - low, low)
    lo, hi = np.float32(low), np.float32(high)
    return fma32(x, hi - lo, lo).astype(dt)


def _box_muller_scalar(gen: Generator, n: int) -> np.ndarray:
    """``normal_distribution<double>``: pairs of 53-bit uniforms, the sine cached
    on the generator for the next draw (``next_double_normal_sample``)."""
    out = np.empty(n, dtype=np.float64)
    start = 0
    if n and gen.next_double_normal_sample is not None:
        out[0] = gen.next_double_normal_sample
        gen.next_double_normal_sample = None
        start = 1
    pairs = (n - start + 1) // 2
    if pairs:
        u = unit(gen, 2 * pairs, np.dtype(np.float64))
        r = np.sqrt(-2.0 * _libm(math.log1p, -u[1::2]))
        theta = _TWO_PI * u[0::2]
        both = np.empty(2 * pairs, dtype=np.float64)
        both[0::2] = r * _libm(math.cos, theta)
        both[1::2] = r * _libm(math.sin, theta)
        out[start:] = both[: n - start]
        if (n - start) % 2:
            gen.next_double_normal_sample = float(both[-1])
    return out


def _fill_16_double(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    """``normal_fill_16<double>`` on rows of 16 uniforms."""
    radius = np.sqrt(-2.0 * _libm(math.log, 1.0 - u[:, :8]))
    theta = _TWO_PI * u[:, 8:]
    return np.concatenate(
        [
            fma64(radius * _libm(math.cos, theta), std, mean),
            fma64(radius * _libm(math.sin, theta), std, mean),
        ],
        axis=1,
    )


def _fill_16_avx2(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    """``normal_fill_16_AVX2`` on rows of 16 float32 uniforms."""
    f = np.float32
    radius = np.sqrt(f(-2.0) * log256(f(1.0) - u[:, :8]))
    sin, cos = sincos256(f(_TWO_PI) * u[:, 8:])
    m, s = f(mean), f(std)
    return np.concatenate([fma32(radius * cos, s, m), fma32(radius * sin, s, m)], axis=1)


def normal(
    gen: Generator, n: int, dt: np.dtype, mean: float, std: float, contiguous: bool = True
) -> np.ndarray:
    """``normal_(mean, std)`` on a tensor of ``n`` elements.

    A non-contiguous tensor, or one of fewer than 16 elements, draws one value
    at a time (``normal_distribution<double>``, cast to the dtype).
    From 16 elements on, all ``n`` uniforms are drawn first and transformed in
    blocks of 16 (Box-Muller on halves of each block); when ``n`` is not a
    multiple of 16 the last 16 slots are drawn again and transformed once more,
    overwriting part of the previous block, as ``normal_fill`` does.
    """
    dt = np.dtype(dt)
    if n < 16 or not contiguous or dt == np.float16:
        return fma64(_box_muller_scalar(gen, n), std, mean).astype(dt)
    fill = _fill_16_double if dt == np.float64 else _fill_16_avx2
    data = unit(gen, n, dt)
    whole = n // 16 * 16
    data[:whole] = fill(data[:whole].reshape(-1, 16), mean, std).ravel()
    if n % 16:
        data[n - 16 :] = fill(unit(gen, 16, dt).reshape(1, 16), mean, std).ravel()
    return data


def randint(gen: Generator, n: int, low: int, high: int) -> np.ndarray:
    """``random_(low, high)``: a word modulo the range, 64-bit words from 2**28 on."""
    span = high - low
    words = gen.random64(n) if span >= _RANGE_64 else gen.random(n)
    return (words % np.uint64(span)).astype(np.int64) + low


def random_full(gen: Generator, n: int, dt: np.dtype) -> np.ndarray:
    """``random_()`` with no bounds (``uniform_int_distribution``): 64-bit words
    for int64 and float64, modulo ``max + 1`` for integers, ``2**digits + 1`` for
    floats; bools take the low bit."""
    dt = np.dtype(dt)
    wide = dt in (np.dtype(np.int64), np.dtype(np.float64))
    words = gen.random64(n) if wide else gen.random(n)
    if dt == np.bool_:
        return (words & np.uint64(1)).astype(np.bool_)
    if dt.kind == "f":
        span = (1 << _DIGITS[dt] if dt != np.float16 else 1 << 11) + 1
    else:
        span = int(np.iinfo(dt).max) + 1
    return (words % np.uint64(span)).astype(dt)


def randperm(gen: Generator, n: int) -> np.ndarray:
    """``randperm_cpu``: Fisher-Yates from the front, one word per swap."""
    if n < 2:
        return np.arange(n, dtype=np.int64)
    i = np.arange(n - 1, dtype=np.int64)
    targets = ((gen.random(n - 1) % (n - i).astype(np.uint64)).astype(np.int64) + i).tolist()
    perm = list(range(n))  # swaps on a list run ~5x faster than on an array
    for k, z in enumerate(targets):
        perm[k], perm[z] = perm[z], perm[k]
    return np.array(perm, dtype=np.int64)


def bernoulli(gen: Generator, n: int, p: float) -> np.ndarray:
    """``bernoulli_(p)`` with a float ``p``: a 53-bit uniform below ``p``.

    This is the kernel PyTorch runs on every CPU but Intel ones with MKL, where
    it seeds MKL's MCG31 stream from one word instead (not reproduced)."""
    return unit(gen, n, np.dtype(np.float64)) < p


def exponential(gen: Generator, n: int, lambd: float) -> np.ndarray:
    """``exponential_(lambd)``: ``-1 / lambd * log1p(-u)`` of a 53-bit uniform, in double
    (``exponential_kernel_default``; a float tensor takes the rounded double)."""
    u = unit(gen, n, np.dtype(np.float64))
    return (-1.0 / lambd) * _libm(math.log1p, -u)


def multinomial_with_replacement(gen: Generator, probs: np.ndarray, n_sample: int) -> np.ndarray:
    """``multinomial_with_replacement_apply``: each row's running sum in double over its
    total, the last bucket set to 1, then per sample a 53-bit uniform placed by binary
    search (the first bucket whose cumulative mass is not below it)."""
    rows = probs.reshape(-1, probs.shape[-1]).astype(np.float64)
    out = np.empty((rows.shape[0], n_sample), dtype=np.int64)
    for i, row in enumerate(rows):
        cum = np.cumsum(row) / row.sum()
        cum[-1] = 1.0
        out[i] = np.searchsorted(cum, unit(gen, n_sample, np.dtype(np.float64)), side="left")
    return out.reshape(*probs.shape[:-1], n_sample)


def _log_or_minus_inf(x: float) -> float:
    """``std::log``, whose log of 0 is ``-inf`` where ``math.log`` raises."""
    return math.log(x) if x > 0 else -math.inf


def geometric(gen: Generator, n: int, p: float) -> np.ndarray:
    """``geometric_(p)``: ``ceil(log(u) / log(1 - p))`` of a 53-bit uniform, in double."""
    u = unit(gen, n, np.dtype(np.float64))
    return np.ceil(_libm(_log_or_minus_inf, u) / math.log(1.0 - p))


def cauchy(gen: Generator, n: int, median: float, sigma: float) -> np.ndarray:
    """``cauchy_(median, sigma)``: ``median + sigma * tan(pi * (u - 0.5))`` of a 53-bit
    uniform, the multiply-add fused as the AVX2 build compiles it."""
    u = unit(gen, n, np.dtype(np.float64))
    return fma64(sigma, _libm(math.tan, math.pi * (u - 0.5)), median)


def log_normal(gen: Generator, n: int, mean: float, std: float) -> np.ndarray:
    """``log_normal_(mean, std)``: ``exp`` of ``normal_distribution<double>``'s draws,
    one at a time (the cached second normal included)."""
    return _libm(math.exp, fma64(_box_muller_scalar(gen, n), std, mean))


def _libm_lgamma() -> Callable[[float], float]:
    """The C library's ``lgamma`` (CPython's ``math.lgamma`` is its own approximation)."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("m")
    if name is None:
        return math.lgamma
    fn = ctypes.CDLL(name).lgamma
    fn.restype, fn.argtypes = ctypes.c_double, (ctypes.c_double,)
    return fn  # type: ignore[no-any-return]


_LGAMMA: list[Callable[[float], float]] = []


def _poisson_one(gen: Generator, lam: float) -> int:
    """``sample_poisson``: Hörmann's transformed rejection from a rate of 10, else the
    product of uniforms against ``exp(-lambda)``; each uniform a 53-bit double."""

    def uniform() -> float:
        return float(unit(gen, 1, np.dtype(np.float64))[0])

    if lam >= 10:
        if not _LGAMMA:
            _LGAMMA.append(_libm_lgamma())
        lgamma = _LGAMMA[0]
        slam = math.sqrt(lam)
        loglam = math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = uniform() - 0.5
            v = uniform()
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + lam + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            left = _log_or_minus_inf(v) + math.log(invalpha) - math.log(a / (us * us) + b)
            if left <= -lam + k * loglam - lgamma(k + 1.0):
                return k
    if lam == 0:
        return 0
    enlam = math.exp(-lam)
    x = 0
    prod = 1.0
    while True:
        prod *= uniform()
        if prod > enlam:
            x += 1
        else:
            return x


def poisson(gen: Generator, rates: np.ndarray) -> np.ndarray:
    """``torch.poisson``: one count per rate (as double), in the rates' row-major order."""
    flat = rates.astype(np.float64).ravel().tolist()
    return np.array([_poisson_one(gen, lam) for lam in flat], dtype=np.float64)
