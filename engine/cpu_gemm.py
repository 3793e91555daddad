"""Matrix products by the engine's own kernels (``cpu_gemm.h``), for the two big products
of a linear layer, where they beat NumPy's BLAS on this kind of CPU (x86 with AVX2 and
FMA, which OpenBLAS may run with kernels slower here than its AVX2 ones):

- ``linear``, ``input @ weight.t() + bias`` (and ``matmul`` of ``a @ b.t()``): a
  dot-product kernel that writes the C-contiguous result PyTorch returns, with its bias,
  where NumPy's fast orientation needs a transposed copy; 10-15 % faster than OpenBLAS
  for a batch through a layer of a few hundred inputs.
- ``matmul`` of ``g.t() @ x``, a weight's gradient over a batch: an outer-product kernel
  that writes each output once (OpenBLAS first zeroes it), 5-7 % faster.

Both are compiled with the compiled core and run on one thread.  Each entry point answers
None, and its caller keeps NumPy, where they are not compiled or the CPU lacks AVX2/FMA,
outside the shapes where they were measured faster (the limits below: an inner dim of at
least ``MIN_K`` and a weight within ``MAX_WEIGHT_BYTES``, which stays in the second-level
cache; at most ``MAX_TN_K`` rows of a batch and ``MIN_TN_OUT`` outputs), and for a
product that NumPy's OpenBLAS would split between threads: above OpenBLAS's own one-thread
bound, unless it reports a single thread.  Their bits are their own (``cpu_gemm.h`` gives
each one's order of additions), as MKL's, which PyTorch uses, are MKL's own.
"""

from __future__ import annotations

import numpy as np

COMPILED: bool = not __file__.endswith(".py")

#: Shortest inner dim taken.
MIN_K = 256
#: Largest weight taken, in bytes.
MAX_WEIGHT_BYTES = 1 << 20
#: The weight gradient's kernel: longest inner dim (a batch) and fewest outputs taken.
MAX_TN_K = 128
MIN_TN_OUT = 1 << 15
#: ``SMP_THRESHOLD_MIN * GEMM_MULTITHREAD_THRESHOLD`` in OpenBLAS's ``interface/gemm.c``:
#: a product of at most this many multiply-adds runs on one thread.
ONE_THREAD_MACS = 65536 * 4

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
#: [whether the kernel runs here], settled on first use
_READY: list[bool] = []


def linear(a: np.ndarray, w: np.ndarray, bias: np.ndarray) -> np.ndarray | None:
    """``a @ w.T + bias`` as a new C-contiguous ``(m, n)`` array, for C-contiguous ``a``
    ``(m, k)`` and ``w`` ``(n, k)`` and a 1-D ``bias`` of ``n`` values, all one float
    dtype; or None (see the module's docstring)."""
    if not COMPILED:
        return None
    dt = a.dtype
    if (
        (dt is not _F32 and dt is not _F64)
        or type(a) is not np.ndarray
        or type(w) is not np.ndarray
        or type(bias) is not np.ndarray
        or w.dtype is not dt
        or bias.dtype is not dt
        or a.ndim != 2
        or w.ndim != 2
        or bias.ndim != 1
        or not a.flags.c_contiguous
        or not w.flags.c_contiguous
        or not bias.flags.c_contiguous
    ):
        return None
    m, k = a.shape
    n = w.shape[0]
    if w.shape[1] != k or bias.shape[0] != n or m == 0 or n == 0 or k < MIN_K:
        return None
    if n * k * dt.itemsize > MAX_WEIGHT_BYTES or not _runs(m, n, k):
        return None
    out = np.empty((m, n), dt)
    if dt is _F32:
        linear_f32(a, w, bias, out)  # noqa: F821 - defined by cpu_gemm.pxd
    else:
        linear_f64(a, w, bias, out)  # noqa: F821 - defined by cpu_gemm.pxd
    return out


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """``a @ b`` of two 2-D NumPy arrays of one float dtype, by a kernel of ``cpu_gemm.h``,
    for the two layouts of a linear layer: ``x @ w.t()`` (``a`` C-contiguous, ``b`` a
    transposed C-contiguous array: ``linear``'s kernel, without a bias) and its weight's
    gradient ``g.t() @ x`` (float32, ``a`` transposed, ``b`` C-contiguous, an inner dim of
    at most ``MAX_TN_K``, a batch, and at least ``MIN_TN_OUT`` outputs); or None."""
    if not COMPILED or type(a) is not np.ndarray or type(b) is not np.ndarray:
        return None
    dt = a.dtype
    if (dt is not _F32 and dt is not _F64) or b.dtype is not dt or a.ndim != 2 or b.ndim != 2:
        return None
    m, k = a.shape
    n = b.shape[1]
    if b.shape[0] != k or m == 0 or n == 0 or k == 0:
        return None
    if a.flags.f_contiguous and b.flags.c_contiguous and dt is _F32:
        if k > MAX_TN_K or m * n < MIN_TN_OUT or not _runs(m, n, k):
            return None
        out = np.empty((m, n), dt)
        if tn_f32(a.T, b, out) != 0:  # noqa: F821 - defined by cpu_gemm.pxd
            return None  # (no memory for the packed columns: NumPy's BLAS then)
        return out
    if a.flags.c_contiguous and b.flags.f_contiguous:
        if k < MIN_K or n * k * dt.itemsize > MAX_WEIGHT_BYTES or not _runs(m, n, k):
            return None
        out = np.empty((m, n), dt)
        if dt is _F32:
            nt_f32(a, b.T, out)  # noqa: F821 - defined by cpu_gemm.pxd
        else:
            nt_f64(a, b.T, out)  # noqa: F821 - defined by cpu_gemm.pxd
        return out
    return None


def _runs(m: int, n: int, k: int) -> bool:
    """Whether a kernel runs here for an ``(m, k) @ (k, n)`` product: compiled, on an
    AVX2/FMA CPU, and not a product NumPy's OpenBLAS would split between threads."""
    if not _READY:
        _READY.append(_settle())
    if not _READY[0]:
        return False
    return m * n * k <= ONE_THREAD_MACS or gemm_blas_threads() == 1  # noqa: F821 - .pxd


def blas_threads() -> int:
    """How many threads NumPy's OpenBLAS would give a large product now; -1 where that
    is unknown (not compiled, no AVX2/FMA, or another BLAS)."""
    if not COMPILED:
        return -1
    if not _READY:
        _READY.append(_settle())
    return gemm_blas_threads() if _READY[0] else -1  # noqa: F821 - declared by cpu_gemm.pxd


def _settle() -> bool:
    """Whether the kernels run on this CPU; if so, tell them where NumPy's OpenBLAS says
    how many threads it uses."""
    if not gemm_available():  # noqa: F821 - declared by cpu_gemm.pxd
        return False
    address = blas_threads_address()
    if address:
        gemm_set_blas_threads_query(address)  # noqa: F821 - declared by cpu_gemm.pxd
    return True


#: the names OpenBLAS builds export its thread count under (NumPy's wheels prefix theirs)
_THREADS_SYMBOLS = (
    "scipy_openblas_get_num_threads64_",
    "scipy_openblas_get_num_threads",
    "openblas_get_num_threads64_",
    "openblas_get_num_threads",
)


def blas_threads_address() -> int:
    """The address of ``openblas_get_num_threads`` in the OpenBLAS this process has loaded
    (NumPy's), found as threadpoolctl finds it: by the library's path among the process's
    mappings; 0 where there is none (another BLAS, or not Linux)."""
    import ctypes
    import os

    try:
        with open("/proc/self/maps") as maps:
            paths = {
                line.split(maxsplit=5)[-1].strip()
                for line in maps
                if "openblas" in line.rpartition("/")[2].lower()
            }
    except OSError:
        return 0
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        except OSError:
            continue
        for name in _THREADS_SYMBOLS:
            fn = getattr(lib, name, None)
            if fn is not None:
                return ctypes.cast(fn, ctypes.c_void_p).value or 0
    return 0
