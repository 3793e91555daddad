"""Floating-point sums in the order PyTorch's CPU kernel adds (``cascade_sum`` in
``aten/src/ATen/native/cpu/SumKernel.cpp``), so printed losses agree to the last digit.

PyTorch neither adds left to right nor pairwise as NumPy does: each row is read as
SIMD vectors (``VEC_BYTES`` wide), four vectors at a time (instruction-level
parallelism), and every accumulator lane runs a four-level cascade (``multi_row_sum``):
chunks of ``2**level_power`` values are summed in order, chunk sums in groups of the
same size, and so on.  A column reduction instead gives each column its own cascade.
Above ``GRAIN`` elements PyTorch splits the work between threads, which changes the
order again; that split is reproduced for ``num_threads()`` threads.

Here every sequential sum is an ``np.add.accumulate`` (never pairwise) over arrays laid
out as ``(batch, steps, lanes)``, so the whole cascade is a handful of NumPy calls.
Only C-contiguous float32/float64 NumPy arrays reduced over all dims or one dim are
handled; ``reduce_sum`` returns None for anything else and the caller keeps NumPy.
"""

from __future__ import annotations

import math
import os
from functools import cache

import numpy as np

from engine import cpu_loops

#: ``at::internal::GRAIN_SIZE``: below it a reduction runs on one thread.
GRAIN = 32768
#: ``TensorIteratorReduce``: adjacent output columns are split between threads in
#: multiples of this many bytes.
COLUMN_BYTES = 128


def vec_bytes() -> int:
    """Width of the ``Vectorized`` accumulators in PyTorch's sum kernel: 32 bytes (8
    floats).  The AVX2, generic and NEON builds all hold 8 floats, and PyTorch 2.13
    runs this kernel at that width on AVX-512 machines too (checked against torch on
    one: the AVX-512 width gives different sums from 8 elements on)."""
    return 32


@cache
def num_threads() -> int:
    """PyTorch's intra-op thread count as it starts: the CPUs this process may use,
    or fewer when ``OMP_NUM_THREADS`` says so."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    env = os.environ.get("OMP_NUM_THREADS", "")
    return min(cpus, int(env)) if env.isdigit() and int(env) > 0 else cpus


def _ceil_log2(x: int) -> int:
    """``utils::CeilLog2``: 1 up to 2, then ``ceil(log2(x))``."""
    return 1 if x <= 2 else (x - 1).bit_length()


def _seq(x: np.ndarray, axis: int) -> np.ndarray:
    """``0 + x[0] + x[1] + ...`` along ``axis``, strictly in order.  When items after
    ``axis`` leave at least two values per step, ``np.add.reduce`` adds whole slices one
    after another (NumPy sums pairwise only along its innermost loop), which is the
    same order at a fraction of the cost; otherwise an ``add.accumulate``, which NumPy
    never reorders.  The trailing ``+ 0`` turns a ``-0.0`` into ``0.0`` as the
    cascade's zero start does."""
    k = x.shape[axis]
    if k == 0 or x.size == 0:
        return np.zeros(x.shape[:axis] + x.shape[axis + 1 :], x.dtype)
    zero = x.dtype.type(0)
    if k == 1:
        return x.take(0, axis=axis) + zero
    if x.size // (k * math.prod(x.shape[:axis])) >= 2:
        return np.add.reduce(x, axis=axis) + zero
    return np.add.accumulate(x, axis=axis).take(-1, axis=axis) + zero


def _multi_row(x: np.ndarray) -> np.ndarray:
    """``multi_row_sum``: ``x`` is ``(batch, size, lanes)``; each lane's cascade."""
    b, size, lanes = x.shape
    step, n_chunks = _level(size)
    tail = _seq(x[:, n_chunks * step :], 1)
    if n_chunks == 0:
        return tail
    chunks = _seq(x[:, : n_chunks * step].reshape(b, n_chunks, step, lanes), 2)
    g1 = n_chunks // step
    if g1 == 0:  # one level: the two upper accumulators stay zero
        return tail + _seq(chunks, 1)
    level1 = _seq(chunks[:, : g1 * step].reshape(b, g1, step, lanes), 2)
    acc1 = _seq(chunks[:, g1 * step :], 1)
    g2 = g1 // step
    level2 = _seq(level1[:, : g2 * step].reshape(b, g2, step, lanes), 2)
    acc2 = _seq(level1[:, g2 * step :], 1)
    acc3 = _seq(level2, 1)
    return ((tail + acc1) + acc2) + acc3


def _row_sum(x: np.ndarray) -> np.ndarray:
    """``row_sum``: ``x`` is ``(batch, size, width)`` items (a scalar or a vector each),
    read four items at a time; returns ``(batch, width)``."""
    b, size, width = x.shape
    quads = size // 4
    part = _multi_row(x[:, : quads * 4].reshape(b, quads, 4 * width)).reshape(b, 4, width)
    total = part[:, 0]
    for i in range(quads * 4, size):
        total = total + x[:, i]
    return ((total + part[:, 1]) + part[:, 2]) + part[:, 3]


def _inner(x: np.ndarray) -> np.ndarray:
    """Rows reduced along their contiguous last axis: ``x`` is ``(batch, n)``."""
    b, n = x.shape
    lanes = vec_bytes() // x.itemsize
    if n < 8 * lanes:
        return _small(x, lanes)
    v = n // lanes
    vec = _row_sum(x[:, : v * lanes].reshape(b, v, lanes))
    return _seq(np.concatenate([x[:, v * lanes :], vec], axis=1), 1)


def _outer(x: np.ndarray) -> np.ndarray:
    """Columns reduced along a strided axis: ``x`` is ``(batch, m, n)``; full blocks
    of ``4 * lanes`` columns (``4`` when fewer than ``lanes``) get one cascade each,
    the other columns ``row_sum``'s four interleaved ones."""
    n = x.shape[2]
    lanes = vec_bytes() // x.itemsize
    block = 4 * lanes if n >= lanes else 4
    split = n // block * block
    if split == n:
        return _multi_row(x)
    if split == 0:
        return _row_sum(x)
    return np.concatenate([_multi_row(x[:, :, :split]), _row_sum(x[:, :, split:])], axis=1)


def _few_rows(x: np.ndarray) -> np.ndarray | None:
    """``_outer`` for one ``(m, n)`` block whose cascade has a single level (fewer than
    ``step ** 2`` rows, as a linear layer's bias gradient over a batch): the same
    additions as the general path in one compiled loop, or else four NumPy calls rather
    than a dozen, since ``np.add.reduce`` over a non-innermost axis adds whole rows in
    order.  None when the columns mix full blocks and leftovers (the general path
    handles those)."""
    m, n = x.shape
    lanes = vec_bytes() // x.itemsize
    block = 4 * lanes if n >= lanes else 4
    if n % block == 0:
        return _one_level(x)
    if n >= block:
        return None
    quads = m // 4
    if quads == 0:
        return None
    step, n_chunks = _level(quads)
    if n_chunks >= step:
        return None
    fused = cpu_loops.quad_rows(x, step, n_chunks)
    if fused is not None:
        return fused
    part = _one_level(x[: quads * 4].reshape(quads, 4 * n))
    if part is None:
        return None
    part = part.reshape(4, n)
    total = part[0]
    for i in range(quads * 4, m):
        total = total + x[i]
    return ((total + part[1]) + part[2]) + part[3]


def _level(size: int) -> tuple[int, int]:
    """``multi_row_sum``'s chunk length for ``size`` rows, and how many whole chunks."""
    step = 1 << max(4, _ceil_log2(size) // 4)
    return step, size // step


def _one_level(x: np.ndarray) -> np.ndarray | None:
    """``_multi_row`` of one ``(size, lanes)`` block with fewer than ``step ** 2``
    rows: in-order chunk sums of ``step`` rows, their in-order sum, plus the leftover
    rows' sum (the ``+ 0`` of the cascade's zero start kept where it can matter)."""
    size, lanes = x.shape
    step, n_chunks = _level(size)
    if n_chunks >= step or lanes < 2:
        return None
    fused = cpu_loops.one_level(x, step, n_chunks)
    if fused is not None:
        return fused
    zero = x.dtype.type(0)
    body = n_chunks * step
    if body == size:
        tail = None
    elif body == size - 1:
        tail = x[body] + zero
    else:
        tail = np.add.reduce(x[body:], axis=0) + zero
    if n_chunks == 0:
        return tail
    chunks = np.add.reduce(x[:body].reshape(n_chunks, step, lanes), axis=1)
    total = np.add.reduce(chunks, axis=0)
    return total + zero if tail is None else tail + total


def _chunks(n: int, grain: int, threads: int) -> list[tuple[int, int]]:
    """``at::parallel_for``'s split of ``[0, n)`` between OpenMP threads."""
    if n < grain or threads == 1:
        return [(0, n)]
    used = min(threads, -(-n // grain))
    size = -(-n // used)
    return [(t * size, min(n, (t + 1) * size)) for t in range(used) if t * size < n]


def _small(x: np.ndarray, lanes: int) -> np.ndarray:
    """The whole cascade for rows of fewer than eight items (vectors, or scalars below
    one vector): one level, so it is a plain running sum of the items in the order
    ``row_sum`` visits them (``0, 4, 5, 6, 1, 2, 3``), then of the leftover scalars
    and the lanes.  A few NumPy calls instead of the general path's dozens; ``x`` is
    ``(batch, n)``."""
    b, n = x.shape
    v = n if n < lanes else n // lanes
    items = x[:, :, None] if n < lanes else x[:, : v * lanes].reshape(b, v, lanes)
    order = [0, *range(4, v), 1, 2, 3] if v >= 4 else list(range(v))
    vec = np.add.accumulate(items[:, order], axis=1)[:, -1]
    if n >= lanes:
        vec = np.add.accumulate(np.concatenate([x[:, v * lanes :], vec], axis=1), axis=1)
        vec = vec[:, -1:]
    return vec[:, 0] + x.dtype.type(0)


def _full(flat: np.ndarray) -> np.ndarray:
    lanes = vec_bytes() // flat.itemsize
    if flat.size < 8 * lanes:
        fused = cpu_loops.small_sum(flat, lanes)
        return fused if fused is not None else _small(flat[None, :], lanes)[0]
    threads = num_threads()
    if flat.size < GRAIN or threads == 1:
        return _inner(flat[None, :])[0]
    # ``two_pass_reduction``: one partial per thread slot, then a sum of the slots
    slots = np.zeros(threads, flat.dtype)
    for t, (lo, hi) in enumerate(_chunks(flat.size, GRAIN, threads)):
        slots[t] = _inner(flat[None, lo:hi])[0]
    return _inner(slots[None, :])[0]


def _columns(x: np.ndarray) -> np.ndarray:
    """``parallel_dim_reduction`` splits the outermost kept dim that has at least one
    element per thread (``find_split_dim``); only a split of the columns themselves,
    rounded down to 128-byte boundaries, changes which columns share a cascade."""
    b, n = x.shape[0], x.shape[2]
    threads = num_threads()
    if x.size < GRAIN or threads == 1:
        if b == 1:
            few = _few_rows(x[0])
            if few is not None:
                return few[None]
        return _outer(x)
    if b > 1 and (b >= threads or (n < threads and b >= n)):
        return _outer(x)
    per = COLUMN_BYTES // x.itemsize
    parts = []
    for lo, hi in _chunks(n, 1, threads):
        lo -= lo % per
        if hi != n:
            hi -= hi % per
        if lo < hi:
            parts.append(_outer(x[:, :, lo:hi]))
    return np.concatenate(parts, axis=1)


def rows_sum(a: np.ndarray) -> np.ndarray | None:
    """``reduce_sum(a, (0,), False)`` for a C-contiguous ``(m, n)`` float array with at
    least two rows and columns, without the general dispatch: the bias gradient of a
    linear layer, summed on every backward.  None where ``reduce_sum`` is needed."""
    if (
        type(a) is not np.ndarray
        or a.ndim != 2
        or a.dtype.kind != "f"
        or a.dtype.itemsize < 4
        or a.shape[0] < 2
        or a.shape[1] < 2
        or not a.flags.c_contiguous
        or (a.size >= GRAIN and num_threads() != 1)
    ):
        return None
    return _few_rows(a)


def _summable(a: np.ndarray) -> bool:
    """Whether ``reduce_sum`` takes ``a``: a non-empty C-contiguous NumPy float array of
    at least single precision."""
    return (
        type(a) is np.ndarray
        and a.dtype.kind == "f"
        and a.dtype.itemsize >= 4
        and a.flags.c_contiguous
        and a.size != 0
    )


def _is_full(a: np.ndarray, dims: tuple[int, ...] | None) -> bool:
    """Whether summing over ``dims`` sums every element: all dims, or one dim holding
    every element (``(n, 1).sum(0)``), which PyTorch reduces as a whole."""
    return dims is None or set(dims) == set(range(a.ndim)) or a.size in (1, a.shape[dims[0]])


def _full_shape(a: np.ndarray, dims: tuple[int, ...] | None, keepdim: bool) -> tuple[int, ...]:
    if keepdim:
        return (1,) * a.ndim
    if dims is None:
        return ()
    return tuple(s for i, s in enumerate(a.shape) if i not in dims)


def small_total(a: np.ndarray, dims: tuple[int, ...] | None, keepdim: bool) -> np.ndarray | None:
    """``reduce_sum`` of a whole array of fewer than eight vectors by the compiled loop,
    which raises no floating-point flag (so its caller need not silence NumPy's warnings,
    as its NumPy paths need); None otherwise.  (The loop's entry point checks the dtype,
    the layout and the length.)"""
    if type(a) is not np.ndarray or a.size < 2 or not (dims is None or _is_full(a, dims)):
        return None
    if a.ndim == 1:
        flat = a
    elif a.flags.c_contiguous:
        flat = a.reshape(-1)
    else:
        return None
    total = cpu_loops.small_sum(flat, vec_bytes() // flat.itemsize)
    if total is None:
        return None
    out = np.asarray(total)
    return out if dims is None and not keepdim else out.reshape(_full_shape(a, dims, keepdim))


def reduce_sum(a: np.ndarray, dims: tuple[int, ...] | None, keepdim: bool) -> np.ndarray | None:
    """PyTorch's CPU sum of ``a`` over ``dims`` (None: all), or None when not covered."""
    if not _summable(a):
        return None
    if _is_full(a, dims):
        out = _full(a.reshape(-1)) if a.size > 1 else a.reshape(()) + a.dtype.type(0)
        return np.asarray(out, a.dtype).reshape(_full_shape(a, dims, keepdim))
    if dims is None or len(dims) != 1:
        return None
    d = dims[0]
    before = math.prod(a.shape[:d])
    size = a.shape[d]
    after = math.prod(a.shape[d + 1 :])
    if size == 1:
        out = a + a.dtype.type(0)
    elif after == 1:
        out = _inner(a.reshape(before, size))
    else:
        out = _columns(a.reshape(before, size, after))
    shape = list(a.shape)
    if keepdim:
        shape[d] = 1
    else:
        del shape[d]
    return np.ascontiguousarray(out).reshape(shape)
