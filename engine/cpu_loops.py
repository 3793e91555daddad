# cython: boundscheck=False, wraparound=False, initializedcheck=False
"""Single-pass loops over float arrays where NumPy needs several calls, for the hot ops of a
training step: ``relu``, its backward (``threshold_backward``), a bias gradient's
summation cascade (its one level, and the quads of a narrow one), a short vector's whole
cascade, ``nll_loss``'s reduction, its class bounds and its gradient's scatter, and
``log_softmax`` of float64 over rows (forward and backward; NumPy still computes its
``exp`` and ``log``), and float32 ``softmax``/``log_softmax`` over rows as ATen's kernels
round them (SLEEF's ``exp`` element by element, ``vec::reduce_all``'s sums: the NumPy
expressions of ``transcendental``).  Matrix products are NumPy's (its BLAS), never the
engine's own.

The loops are typed by ``cpu_loops.pxd`` and run only compiled (the compiled core); the
entry points answer None otherwise, or for arrays the loops do not take (not a C-contiguous
float32/float64 NumPy array), and their callers keep their NumPy expressions.  Each loop
gives the bits those expressions give, so compiled and pure Python runs agree exactly.
A backward's result owns its memory (it is no view of a row-shaped array), as those
expressions' and PyTorch's do: an input buffer adds in place only into a gradient that is
no view, which ``.grad._version`` shows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

COMPILED: bool = not __file__.endswith(".py")


def relu_loop(src, dst) -> None:  # noqa: ANN001 - typed by the .pxd
    """``dst = src < 0 ? 0 : src``: ``-0.0`` and NaN pass through, as ATen's ``clamp_min``."""
    for i in range(src.shape[0]):
        v = src[i]
        dst[i] = 0 if v < 0 else v


def threshold_backward_loop(grad, src, dst, threshold) -> None:  # noqa: ANN001
    """``dst = src <= threshold ? 0 : grad`` (``+0.0`` where cut; a NaN ``src`` keeps ``grad``)."""
    for i in range(src.shape[0]):
        g = grad[i]  # read whether kept or not: a loop without branches vectorises
        dst[i] = 0 if src[i] <= threshold else g


def chunk_total_loop(x, acc, out, step, n_chunks) -> None:  # noqa: ANN001
    """``out`` = the in-order sum over ``n_chunks`` chunks of ``step`` rows of ``x`` of each
    chunk's in-order row sum, each sum started at ``0`` as NumPy's (so ``-0.0`` rows sum to
    ``0.0``): ``np.add.reduce`` over a middle axis, then over the first, row by row."""
    n = x.shape[1]
    for c in range(n_chunks):
        r0 = c * step
        for j in range(n):
            acc[j] = x[r0, j] + 0
        for r in range(r0 + 1, r0 + step):
            for j in range(n):
                acc[j] = acc[j] + x[r, j]
        if c == 0:
            for j in range(n):
                out[j] = acc[j] + 0
        else:
            for j in range(n):
                out[j] = out[j] + acc[j]


def one_level_loop(x, step, n_chunks, acc, out) -> None:  # noqa: ANN001
    """``cascade_sum._one_level`` of the ``(size, lanes)`` rows ``x``: the chunks' total
    (``chunk_total_loop``), then the leftover rows' in-order sum (``np.add.reduce`` over
    the first axis starts from the first row) plus ``0``, added before that total."""
    size = x.shape[0]
    n = x.shape[1]
    body = n_chunks * step
    if n_chunks > 0:
        chunk_total_loop(x, acc, out, step, n_chunks)
    if body == size:
        return
    for j in range(n):
        acc[j] = x[body, j]
    for r in range(body + 1, size):
        for j in range(n):
            acc[j] = acc[j] + x[r, j]
    if n_chunks == 0:
        for j in range(n):
            out[j] = acc[j] + 0
    else:
        for j in range(n):
            out[j] = (acc[j] + 0) + out[j]


def quad_rows_loop(x, quads, step, n_chunks, acc, part, out) -> None:  # noqa: ANN001
    """``cascade_sum._few_rows`` for ``(m, n)`` rows narrower than a block: ``part``
    (``4 n``) is ``one_level_loop`` of ``quads``, the first ``4 quads`` rows of ``x`` read
    as rows of ``4 n``; then its first quarter plus the leftover rows in order, plus the
    other three quarters."""
    m = x.shape[0]
    n = x.shape[1]
    one_level_loop(quads, step, n_chunks, acc, part)
    for j in range(n):
        total = part[j]
        for i in range(4 * quads.shape[0], m):
            total = total + x[i, j]
        out[j] = ((total + part[n + j]) + part[2 * n + j]) + part[3 * n + j]


def nll_reduce_loop(x, target, weight, weighted, ignore_index, power, sums) -> int:  # noqa: ANN001
    """``nll_loss_out_frame``'s cascade: ``sums[:8]`` the loss's partial sums, ``sums[8:]``
    the weights', added up from 0 into ``sums[0]`` and ``sums[8]`` at the end.  Returns how
    many targets were ignored, or -1 at a target that is not a class (nothing is read out
    of bounds)."""
    n_classes = x.shape[1]
    mask = (1 << power) - 1
    for j in range(16):
        sums[j] = 0
    ignored = 0
    for b in range(x.shape[0]):
        t = target[b]
        if t == ignore_index:
            ignored += 1
            continue
        if t < 0 or t >= n_classes:
            return -1
        if weighted:
            wv = weight[t]
            sums[0] = sums[0] - x[b, t] * wv
            sums[8] = sums[8] + wv
        else:
            sums[0] = sums[0] - x[b, t]
        for j in range(7):
            if b & (mask << (j * power)) != 0:
                break
            sums[9 + j] = sums[9 + j] + sums[8 + j]
            sums[1 + j] = sums[1 + j] + sums[j]
            sums[8 + j] = 0
            sums[j] = 0
    loss = sums[0] + 0
    total = sums[8] + 0
    for j in range(1, 8):
        loss = loss + sums[j]
        total = total + sums[8 + j]
    sums[0] = loss
    sums[8] = total
    return ignored


def row_max(x, i):  # noqa: ANN001, ANN201
    """``max(x[i])`` as ``np.maximum.reduce`` takes it: a NaN wins."""
    mx = x[i, 0]
    for j in range(1, x.shape[1]):
        v = x[i, j]
        if v != v:
            return v
        if v > mx:
            mx = v
    return mx


def row_max_loop(x, out) -> None:  # noqa: ANN001
    """``out[i] = max(x[i])`` for every row (``row_max``)."""
    for i in range(x.shape[0]):
        out[i] = row_max(x, i)


def sub_row_loop(a, c, out) -> None:  # noqa: ANN001
    """``out = a - c[:, None]``."""
    for i in range(a.shape[0]):
        ci = c[i]
        for j in range(a.shape[1]):
            out[i, j] = a[i, j] - ci


def pairwise_loop(x, i, start, n):  # noqa: ANN001, ANN201
    """NumPy's ``pairwise_sum`` of ``x[i, start:start + n]``: in order below 8 values, in 8
    interleaved partial sums up to 128, else the two halves (cut at a multiple of 8) apart."""
    if n < 8:
        res = -0.0
        for j in range(start, start + n):
            res = res + x[i, j]
        return res
    if n <= 128:
        r0, r1, r2, r3 = x[i, start], x[i, start + 1], x[i, start + 2], x[i, start + 3]
        r4, r5, r6, r7 = x[i, start + 4], x[i, start + 5], x[i, start + 6], x[i, start + 7]
        j = start + 8
        end = start + n - n % 8
        while j < end:
            r0 = r0 + x[i, j]
            r1 = r1 + x[i, j + 1]
            r2 = r2 + x[i, j + 2]
            r3 = r3 + x[i, j + 3]
            r4 = r4 + x[i, j + 4]
            r5 = r5 + x[i, j + 5]
            r6 = r6 + x[i, j + 6]
            r7 = r7 + x[i, j + 7]
            j += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while j < start + n:
            res = res + x[i, j]
            j += 1
        return res
    half = n // 2
    half -= half % 8
    return pairwise_loop(x, i, start, half) + pairwise_loop(x, i, start + half, n - half)


def row_sums_loop(x, sums) -> None:  # noqa: ANN001
    """``sums = np.add.reduce(x, axis=1)``: each row pairwise, added to NumPy's initial ``0``."""
    zero = 0
    for i in range(x.shape[0]):
        sums[i] = zero + pairwise_loop(x, i, 0, x.shape[1])


def sub_rows_loop(a, b, c, out) -> None:  # noqa: ANN001
    """``out = a - b * c[:, None]`` (``b * c`` rounded first: the build never fuses it)."""
    for i in range(a.shape[0]):
        ci = c[i]
        for j in range(a.shape[1]):
            bc = b[i, j] * ci
            out[i, j] = a[i, j] - bc


def small_sum_loop(x, lanes, acc):  # noqa: ANN001, ANN201
    """``cascade_sum._small`` of one row ``x`` of fewer than eight vectors of ``lanes``:
    each lane's running sum over the vectors in ``row_sum``'s order (``0, 4, 5, …, 1, 2,
    3``; one scalar per "vector" below one vector), then the leftover scalars and the lanes
    in order, plus ``0``."""
    n = x.shape[0]
    if n < lanes:
        v = n
        width = 1
    else:
        v = n // lanes
        width = lanes
    for lane in range(width):
        acc[lane] = x[lane]
    if v >= 4:
        for k in range(4, v):
            for lane in range(width):
                acc[lane] = acc[lane] + x[k * width + lane]
        for k in range(1, 4):
            for lane in range(width):
                acc[lane] = acc[lane] + x[k * width + lane]
    else:
        for k in range(1, v):
            for lane in range(width):
                acc[lane] = acc[lane] + x[k * width + lane]
    if width == 1:
        return acc[0] + 0
    body = v * width
    if body < n:
        total = x[body]
        for i in range(body + 1, n):
            total = total + x[i]
        for lane in range(width):
            total = total + acc[lane]
    else:
        total = acc[0]
        for lane in range(1, width):
            total = total + acc[lane]
    return total + 0


def in_range_loop(target, n) -> bool:  # noqa: ANN001
    """Whether every value of ``target`` is in ``[0, n)``."""
    for i in range(target.shape[0]):
        t = target[i]
        if t < 0 or t >= n:
            return False
    return True


def pick_rows_loop(target, value, out) -> bool:  # noqa: ANN001
    """``out[i, target[i]] = value`` for every row of the zeroed ``out`` (``nll_loss``'s
    gradient); False at a target that is not a class, before anything is written."""
    if not in_range_loop(target, out.shape[1]):
        return False
    for i in range(target.shape[0]):
        out[i, target[i]] = value
    return True


def sleef_expf(d, c, pow2):  # noqa: ANN001, ANN201
    """SLEEF's vector ``expf`` of one float32 (``transcendental.sleef_expf_u10``, element by
    element, with its bits): ``c`` holds its constants (``1/ln 2``, ``ln 2`` in two parts,
    the six polynomial coefficients, then infinity), ``pow2`` the floats ``2**-75`` to
    ``2**75``. The rounding to an integer adds and takes away ``1.5 * 2**23`` (exact for
    ``|x| < 2**22``), each fused multiply-add is a float64 product and sum rounded to
    float32 (``_fma32``), and ``ldexpf`` is two products by powers of two, the first
    exact, so the second rounds once, as ``ldexpf`` does."""
    if d != d:
        return d
    if d < -104:
        return 0
    if d > 100:
        return c[9]
    magic = 12582912.0
    t = d * c[0]
    t = (t + magic) - magic
    q = int(t)
    w = t
    w = w * -c[1] + d
    s = w
    w = t
    w = w * -c[2] + s
    s = w
    u = c[3]
    for k in range(4, 9):
        w = u
        w = w * s + c[k]
        u = w
    ss = s * s
    w = ss
    w = w * u + s
    v = w
    one = 1.0
    u = one + v
    half = (q + 150) // 2 - 75
    u = u * pow2[half + 75]
    return u * pow2[q - half + 75]


def vec_row_sum(e, i, lanes, acc):  # noqa: ANN001, ANN201
    """Row ``i`` of ``e`` summed as ``transcendental.vec_reduce_sum`` sums it: in order
    below ``lanes`` elements, else lane by lane, a register at a time with the tail in
    the first lanes (element ``j`` into lane ``j % lanes``), then folded in halves."""
    n = e.shape[1]
    if n < lanes:
        total = e[i, 0]
        for j in range(1, n):
            total = total + e[i, j]
        return total
    for j in range(lanes):
        acc[j] = e[i, j]
    lane = 0
    for j in range(lanes, n):
        acc[lane] = acc[lane] + e[i, j]
        lane += 1
        if lane == lanes:
            lane = 0
    width = lanes
    while width > 1:
        width = width // 2
        for j in range(width):
            acc[j] = acc[j] + acc[j + width]
    return acc[0]


def softmax_rows_loop(x, out, c, pow2, lanes, acc) -> None:  # noqa: ANN001
    """``transcendental.softmax_lastdim_f32`` of the rows of ``x``: ``exp(x - max)`` into
    ``out``, each row's sum, then ``out`` times the sum's reciprocal."""
    one = 1.0
    for i in range(x.shape[0]):
        mx = row_max(x, i)
        for j in range(x.shape[1]):
            out[i, j] = sleef_expf(x[i, j] - mx, c, pow2)
        inverse = one / vec_row_sum(out, i, lanes, acc)
        for j in range(x.shape[1]):
            out[i, j] = out[i, j] * inverse


def log_softmax_sums_loop(x, shifted, e, sums, c, pow2, lanes, acc) -> None:  # noqa: ANN001
    """The first pass of ``transcendental.log_softmax_lastdim_f32``: ``x - max`` into
    ``shifted`` and each row's sum of its ``exp`` into ``sums`` (``e`` is scratch)."""
    for i in range(x.shape[0]):
        mx = row_max(x, i)
        for j in range(x.shape[1]):
            v = x[i, j] - mx
            shifted[i, j] = v
            e[i, j] = sleef_expf(v, c, pow2)
        sums[i] = vec_row_sum(e, i, lanes, acc)


def softmax_backward_rows_loop(g, y, out, lanes, acc) -> None:  # noqa: ANN001
    """``transcendental.softmax_backward_lastdim_f32``: ``(g - sum(g * y)) * y`` by rows."""
    for i in range(g.shape[0]):
        for j in range(g.shape[1]):
            out[i, j] = g[i, j] * y[i, j]
        total = vec_row_sum(out, i, lanes, acc)
        for j in range(g.shape[1]):
            out[i, j] = (g[i, j] - total) * y[i, j]


def log_softmax_backward_rows_loop(g, y, out, c, pow2, lanes, acc) -> None:  # noqa: ANN001
    """``transcendental.log_softmax_backward_lastdim_f32``: ``g - exp(y) * sum(g)`` by
    rows, the product and difference in float64, rounded once."""
    for i in range(g.shape[0]):
        total = vec_row_sum(g, i, lanes, acc)
        for j in range(g.shape[1]):
            w = sleef_expf(y[i, j], c, pow2)
            w = w * total
            w = g[i, j] - w
            out[i, j] = w


# The typed entry points, one per dtype (Python calls a fused loop only through them).
def relu_f32(src, dst) -> None:  # noqa: ANN001
    relu_loop(src, dst)


def relu_f64(src, dst) -> None:  # noqa: ANN001
    relu_loop(src, dst)


def threshold_backward_f32(grad, src, dst, threshold) -> None:  # noqa: ANN001
    threshold_backward_loop(grad, src, dst, threshold)


def threshold_backward_f64(grad, src, dst, threshold) -> None:  # noqa: ANN001
    threshold_backward_loop(grad, src, dst, threshold)


def one_level_f32(x, step, n_chunks, acc, out) -> None:  # noqa: ANN001
    one_level_loop(x, step, n_chunks, acc, out)


def one_level_f64(x, step, n_chunks, acc, out) -> None:  # noqa: ANN001
    one_level_loop(x, step, n_chunks, acc, out)


def quad_rows_f32(x, quads, step, n_chunks, acc, part, out) -> None:  # noqa: ANN001
    quad_rows_loop(x, quads, step, n_chunks, acc, part, out)


def quad_rows_f64(x, quads, step, n_chunks, acc, part, out) -> None:  # noqa: ANN001
    quad_rows_loop(x, quads, step, n_chunks, acc, part, out)


def nll_reduce_f32(x, target, weight, weighted, ignore_index, power, sums) -> int:  # noqa: ANN001
    return nll_reduce_loop(x, target, weight, weighted, ignore_index, power, sums)


def nll_reduce_f64(x, target, weight, weighted, ignore_index, power, sums) -> int:  # noqa: ANN001
    return nll_reduce_loop(x, target, weight, weighted, ignore_index, power, sums)


def in_range_i64(target, n) -> bool:  # noqa: ANN001
    return in_range_loop(target, n)


def pick_rows_f32(target, value, out) -> bool:  # noqa: ANN001
    return pick_rows_loop(target, value, out)


def pick_rows_f64(target, value, out) -> bool:  # noqa: ANN001
    return pick_rows_loop(target, value, out)


#: What the small sums' entry points hand their loop as its lanes: compiled, each
#: declares a C array of this name (``cpu_loops.pxd``), not allocated per call.
scratch = None


def small_sum_f32(x, lanes):  # noqa: ANN001, ANN201
    return small_sum_loop(x, lanes, scratch)


def small_sum_f64(x, lanes):  # noqa: ANN001, ANN201
    return small_sum_loop(x, lanes, scratch)


def row_max_f64(x, out) -> None:  # noqa: ANN001
    row_max_loop(x, out)


def sub_row_f64(a, c, out) -> None:  # noqa: ANN001
    sub_row_loop(a, c, out)


def row_sums_f64(x, sums) -> None:  # noqa: ANN001
    row_sums_loop(x, sums)


def sub_rows_f64(a, b, c, out) -> None:  # noqa: ANN001
    sub_rows_loop(a, b, c, out)


def softmax_rows_f32(x, out, c, pow2, lanes, acc) -> None:  # noqa: ANN001
    softmax_rows_loop(x, out, c, pow2, lanes, acc)


def log_softmax_sums_f32(x, shifted, e, sums, c, pow2, lanes, acc) -> None:  # noqa: ANN001
    log_softmax_sums_loop(x, shifted, e, sums, c, pow2, lanes, acc)


def softmax_backward_rows_f32(g, y, out, lanes, acc) -> None:  # noqa: ANN001
    softmax_backward_rows_loop(g, y, out, lanes, acc)


def log_softmax_backward_rows_f32(g, y, out, c, pow2, lanes, acc) -> None:  # noqa: ANN001
    log_softmax_backward_rows_loop(g, y, out, c, pow2, lanes, acc)


_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_I64 = np.dtype(np.int64)


def _takes(*arrays: object) -> bool:
    """Whether the loops take these arrays: compiled, every one a C-contiguous NumPy array
    of the first one's dtype, float32 or float64.  (A loop, not ``all()`` over a
    generator: this runs in every entry point, and a generator costs more than the test.)"""
    if not COMPILED:
        return False
    first = arrays[0]
    if type(first) is not np.ndarray:
        return False
    dt = first.dtype  # type: ignore[attr-defined]
    if dt is not _F32 and dt is not _F64:
        return False
    for a in arrays:
        if type(a) is not np.ndarray or a.dtype is not dt or not a.flags.c_contiguous:  # type: ignore[attr-defined]
            return False
    return True


def relu(a: np.ndarray) -> np.ndarray | None:
    """``relu`` of ``a`` in one pass, or None where the loop does not apply."""
    if not _takes(a):
        return None
    out = np.empty_like(a)
    if a.dtype is _F32:
        relu_f32(a.reshape(-1), out.reshape(-1))
    else:
        relu_f64(a.reshape(-1), out.reshape(-1))
    return out


def threshold_backward(grad: np.ndarray, a: np.ndarray, threshold: float) -> np.ndarray | None:
    """``threshold_backward`` of equal-shaped arrays in one pass, or None."""
    exact = type(threshold) is float or (type(threshold) is int and abs(threshold) < 2**53)
    if not (exact and _takes(grad, a) and grad.shape == a.shape):
        return None
    out = np.empty_like(grad)
    if a.dtype is _F32:
        threshold_backward_f32(grad.reshape(-1), a.reshape(-1), out.reshape(-1), threshold)
    else:
        threshold_backward_f64(grad.reshape(-1), a.reshape(-1), out.reshape(-1), threshold)
    return out


def one_level(x: np.ndarray, step: int, n_chunks: int) -> np.ndarray | None:
    """``cascade_sum._one_level`` of a 2-D ``x`` whose rows hold ``n_chunks`` chunks of
    ``step`` rows and maybe some left over; or None."""
    if not (_takes(x) and x.ndim == 2 and step > 0 and n_chunks >= 0):
        return None
    if x.shape[0] == 0 or x.shape[0] < step * n_chunks:
        return None
    out = np.empty(x.shape[1], x.dtype)
    acc = np.empty(x.shape[1], x.dtype)
    if x.dtype is _F32:
        one_level_f32(x, step, n_chunks, acc, out)
    else:
        one_level_f64(x, step, n_chunks, acc, out)
    return out


def small_sum(x: np.ndarray, lanes: int) -> np.generic | None:
    """``cascade_sum._small`` of a 1-D ``x`` of fewer than ``8 * lanes`` items, as a scalar
    of its dtype; or None."""
    if not (_takes(x) and x.ndim == 1 and 0 < x.shape[0] < 8 * lanes and 0 < lanes <= 64):
        return None
    if x.dtype is _F32:
        return np.float32(small_sum_f32(x, lanes))
    return np.float64(small_sum_f64(x, lanes))


def quad_rows(x: np.ndarray, step: int, n_chunks: int) -> np.ndarray | None:
    """``cascade_sum._few_rows`` of a 2-D ``x`` of at least four rows, read four at a time:
    ``one_level`` of its ``m // 4`` quads (of ``step`` and ``n_chunks``), then each column
    added up with the rows left over; or None."""
    if not (_takes(x) and x.ndim == 2 and step > 0 and n_chunks >= 0):
        return None
    m, n = x.shape
    if m < 4 or m // 4 < step * n_chunks:
        return None
    quads = x[: m // 4 * 4].reshape(m // 4, 4 * n)
    out = np.empty(n, x.dtype)
    acc = np.empty(4 * n, x.dtype)
    part = np.empty(4 * n, x.dtype)
    if x.dtype is _F32:
        quad_rows_f32(x, quads, step, n_chunks, acc, part, out)
    else:
        quad_rows_f64(x, quads, step, n_chunks, acc, part, out)
    return out


def nll_reduce(
    x: np.ndarray, target: np.ndarray, weight: np.ndarray | None, ignore_index: int, power: int
) -> tuple[Any, Any] | None:
    """``(loss, total_weight)`` as ATen's ``nll_loss`` sums them (``engine.ops.nll_cascade``,
    which gives ``power``) for a 2-D ``x``, an int64 ``target`` of one class per row and an
    optional ``weight``; or None."""
    weighted = weight is not None
    if not (_takes(x, weight) if weighted else _takes(x)) or x.ndim != 2:
        return None
    if not (
        type(target) is np.ndarray
        and target.dtype is _I64
        and target.shape == (x.shape[0],)
        and target.flags.c_contiguous
        and type(ignore_index) is int
        and -(2**63) <= ignore_index < 2**63
    ):
        return None
    sums = np.empty(16, x.dtype)
    w = weight if weighted else sums  # (never read without a weight)
    if x.dtype is _F32:
        ignored = nll_reduce_f32(x, target, w, weighted, ignore_index, power, sums)
    else:
        ignored = nll_reduce_f64(x, target, w, weighted, ignore_index, power, sums)
    if ignored < 0:
        return None
    return sums[0], (sums[8] if weighted else x.dtype.type(x.shape[0] - ignored))


def _rows(x: np.ndarray) -> np.ndarray | None:
    """``x`` as rows over its last dim (a view), when the row loops take it; or None.
    (No negative index here: this module is compiled without wraparound.)"""
    if not (_takes(x) and x.ndim):
        return None
    n = x.shape[x.ndim - 1]
    if not n:
        return None
    return x.reshape(x.size // n, n) if x.ndim != 2 else x


def log_softmax_rows(x: np.ndarray) -> np.ndarray | None:
    """``log_softmax`` of float64 over the last dim with the bits of its NumPy expression:
    the shift by each row's max and the last subtraction here, NumPy's own ``exp`` and
    ``log`` (a loop could not give their bits), each row's sum in NumPy's pairwise order;
    or None.  (float32 rounds as ATen's kernel instead: ``transcendental``.)"""
    rows = _rows(x)
    if rows is None or rows.dtype is not _F64:
        return None
    out = np.empty_like(rows)
    e = np.empty_like(rows)
    per_row = np.empty(rows.shape[0], rows.dtype)
    row_max_f64(rows, per_row)
    sub_row_f64(rows, per_row, out)
    np.exp(out, out=e)
    row_sums_f64(e, per_row)
    np.log(per_row, out=per_row)
    sub_row_f64(out, per_row, out)
    return out.reshape(x.shape)


def log_softmax_backward_rows(g: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """``g - exp(y) * g.sum(-1, keepdims=True)`` (``log_softmax``'s backward over the last
    dim) on float64 with the bits of that NumPy expression; or None."""
    rows = _rows(y)
    if rows is None or rows.dtype is not _F64 or g.shape != y.shape or not _takes(g, y):
        return None
    grows = g.reshape(rows.shape)
    out = np.exp(y)  # owns its memory (see above)
    e = _rows(out)
    sums = np.empty(rows.shape[0], rows.dtype)
    row_sums_f64(grows, sums)
    sub_rows_f64(grows, e, sums, e)
    return out


def pick_rows(
    target: np.ndarray, value: float, n_classes: int, dtype: np.dtype
) -> np.ndarray | None:
    """A new ``(len(target), n_classes)`` array of ``dtype``: zeros, but ``value`` at each
    row's class in the 1-D int64 ``target``; or None (a target that is not a class too).
    ``value`` is a Python float, converted to the dtype once."""
    if not (
        COMPILED
        and (dtype is _F32 or dtype is _F64)
        and type(target) is np.ndarray
        and target.dtype is _I64
        and target.ndim == 1
        and target.flags.c_contiguous
    ):
        return None
    out = np.zeros((target.shape[0], n_classes), dtype)
    if dtype is _F32:
        done = pick_rows_f32(target, value, out)
    else:
        done = pick_rows_f64(target, value, out)
    return out if done else None


def classes_in_range(target: np.ndarray, n_classes: int) -> bool | None:
    """Whether every class in a 1-D int64 ``target`` is in ``[0, n_classes)``; or None."""
    if not (
        COMPILED
        and type(target) is np.ndarray
        and target.dtype is _I64
        and target.ndim == 1
        and target.flags.c_contiguous
    ):
        return None
    return in_range_i64(target, n_classes)


def _rows_f32(*arrays: np.ndarray) -> tuple[np.ndarray, ...] | None:
    """Equal-shaped float32 arrays as rows over their last dim, when the loops take them."""
    first = arrays[0]
    if not (COMPILED and first.dtype is _F32 and first.ndim and first.size):
        return None
    rows = []
    for a in arrays:
        if a.shape != first.shape:
            return None
        r = _rows(a)
        if r is None:
            return None
        rows.append(r)
    return tuple(rows)


def softmax_f32(x: np.ndarray, consts: np.ndarray, pow2: np.ndarray, lanes: int) -> Any:
    """``transcendental.softmax_lastdim_f32`` of a C-contiguous float32 ``x`` in one pass
    per row (``consts`` and ``pow2``: ``sleef_expf``'s tables); or None."""
    taken = _rows_f32(x)
    if taken is None:
        return None
    (rows,) = taken
    out = np.empty_like(rows)
    softmax_rows_f32(rows, out, consts, pow2, lanes, np.empty(lanes, _F32))
    return out.reshape(x.shape)


def log_softmax_sums_f32_rows(
    x: np.ndarray, consts: np.ndarray, pow2: np.ndarray, lanes: int
) -> tuple[np.ndarray, np.ndarray] | None:
    """``x - max`` over the last dim and each row's sum of its SLEEF ``exp`` (the first
    pass of ``transcendental.log_softmax_lastdim_f32``); or None."""
    taken = _rows_f32(x)
    if taken is None:
        return None
    (rows,) = taken
    shifted = np.empty_like(rows)
    sums = np.empty(rows.shape[0], _F32)
    log_softmax_sums_f32(
        rows, shifted, np.empty_like(rows), sums, consts, pow2, lanes, np.empty(lanes, _F32)
    )
    return shifted.reshape(x.shape), sums.reshape(x.shape[: x.ndim - 1])


def softmax_backward_f32(g: np.ndarray, y: np.ndarray, lanes: int) -> Any:
    """``transcendental.softmax_backward_lastdim_f32`` in one pass per row; or None."""
    taken = _rows_f32(g, y)
    if taken is None or y.dtype is not _F32:
        return None
    grows, yrows = taken
    out = np.empty_like(g)  # owns its memory (see above)
    softmax_backward_rows_f32(grows, yrows, _rows(out), lanes, np.empty(lanes, _F32))
    return out


def log_softmax_backward_f32(
    g: np.ndarray, y: np.ndarray, consts: np.ndarray, pow2: np.ndarray, lanes: int
) -> Any:
    """``transcendental.log_softmax_backward_lastdim_f32`` in one pass per row; or None."""
    taken = _rows_f32(g, y)
    if taken is None or y.dtype is not _F32:
        return None
    grows, yrows = taken
    out = np.empty_like(g)  # owns its memory (see above)
    rows = _rows(out)
    log_softmax_backward_rows_f32(grows, yrows, rows, consts, pow2, lanes, np.empty(lanes, _F32))
    return out
