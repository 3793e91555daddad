# C types for cpu_loops.py (Cython's augmenting .pxd): the loops over contiguous float
# buffers (what is only read is const: a read-only array is taken too), fused over
# float32/float64, and one typed entry point per dtype for Python.
cimport cython
from cython cimport floating

@cython.locals(i=Py_ssize_t, v=floating)
cdef void relu_loop(const floating[::1] src, floating[::1] dst) noexcept

@cython.locals(i=Py_ssize_t, g=floating)
cdef void threshold_backward_loop(const floating[::1] grad, const floating[::1] src, floating[::1] dst, floating threshold) noexcept

@cython.locals(m=Py_ssize_t, n=Py_ssize_t, i=Py_ssize_t, j=Py_ssize_t, ii=Py_ssize_t, jj=Py_ssize_t, ie=Py_ssize_t, je=Py_ssize_t)

@cython.locals(n=Py_ssize_t, c=Py_ssize_t, r0=Py_ssize_t, r=Py_ssize_t, j=Py_ssize_t)
cdef void chunk_total_loop(const floating[:, ::1] x, floating[::1] acc, floating[::1] out, Py_ssize_t step, Py_ssize_t n_chunks) noexcept

@cython.locals(size=Py_ssize_t, n=Py_ssize_t, body=Py_ssize_t, r=Py_ssize_t, j=Py_ssize_t)
cdef void one_level_loop(const floating[:, ::1] x, Py_ssize_t step, Py_ssize_t n_chunks, floating[::1] acc, floating[::1] out) noexcept

@cython.locals(m=Py_ssize_t, n=Py_ssize_t, i=Py_ssize_t, j=Py_ssize_t, total=floating)
cdef void quad_rows_loop(const floating[:, ::1] x, const floating[:, ::1] quads, Py_ssize_t step, Py_ssize_t n_chunks, floating[::1] acc, floating[::1] part, floating[::1] out) noexcept

@cython.locals(n_classes=Py_ssize_t, mask=Py_ssize_t, j=Py_ssize_t, b=Py_ssize_t, t=cython.longlong, ignored=Py_ssize_t, wv=floating, loss=floating, total=floating)
cdef Py_ssize_t nll_reduce_loop(const floating[:, ::1] x, const long long[::1] target, const floating[::1] weight, bint weighted, long long ignore_index, Py_ssize_t power, floating[::1] sums) noexcept

@cython.locals(j=Py_ssize_t, v=floating, mx=floating)
cdef floating row_max(const floating[:, ::1] x, Py_ssize_t i) noexcept

@cython.locals(i=Py_ssize_t)
cdef void row_max_loop(const floating[:, ::1] x, floating[::1] out) noexcept

@cython.locals(i=Py_ssize_t, j=Py_ssize_t, ci=floating)
cdef void sub_row_loop(const floating[:, ::1] a, const floating[::1] c, floating[:, ::1] out) noexcept

@cython.locals(j=Py_ssize_t, end=Py_ssize_t, half=Py_ssize_t, res=floating, r0=floating, r1=floating, r2=floating, r3=floating, r4=floating, r5=floating, r6=floating, r7=floating)
cdef floating pairwise_loop(const floating[:, ::1] x, Py_ssize_t i, Py_ssize_t start, Py_ssize_t n) noexcept

@cython.locals(i=Py_ssize_t, zero=floating)
cdef void row_sums_loop(const floating[:, ::1] x, floating[::1] sums) noexcept

@cython.locals(i=Py_ssize_t, j=Py_ssize_t, ci=floating, bc=floating)
cdef void sub_rows_loop(const floating[:, ::1] a, const floating[:, ::1] b, const floating[::1] c, floating[:, ::1] out) noexcept

@cython.locals(n=Py_ssize_t, v=Py_ssize_t, width=Py_ssize_t, lane=Py_ssize_t, k=Py_ssize_t, body=Py_ssize_t, i=Py_ssize_t, total=floating)
cdef floating small_sum_loop(const floating[::1] x, Py_ssize_t lanes, floating* acc) noexcept

@cython.locals(i=Py_ssize_t, t=cython.longlong)
cdef bint in_range_loop(const long long[::1] target, long long n) noexcept

@cython.locals(i=Py_ssize_t)
cdef bint pick_rows_loop(const long long[::1] target, floating value, floating[:, ::1] out) noexcept

@cython.locals(magic=float, t=float, q=int, half=int, w=double, s=float, u=float, ss=float, v=float, one=float, k=Py_ssize_t)
cdef float sleef_expf(float d, const float[::1] c, const float[::1] pow2) noexcept

@cython.locals(n=Py_ssize_t, j=Py_ssize_t, lane=Py_ssize_t, width=Py_ssize_t, total=float)
cdef float vec_row_sum(const float[:, ::1] e, Py_ssize_t i, Py_ssize_t lanes, float[::1] acc) noexcept

@cython.locals(i=Py_ssize_t, j=Py_ssize_t, mx=float, one=float, inverse=float)
cdef void softmax_rows_loop(const float[:, ::1] x, float[:, ::1] out, const float[::1] c, const float[::1] pow2, Py_ssize_t lanes, float[::1] acc) noexcept

@cython.locals(i=Py_ssize_t, j=Py_ssize_t, v=float, mx=float)
cdef void log_softmax_sums_loop(const float[:, ::1] x, float[:, ::1] shifted, float[:, ::1] e, float[::1] sums, const float[::1] c, const float[::1] pow2, Py_ssize_t lanes, float[::1] acc) noexcept

@cython.locals(i=Py_ssize_t, j=Py_ssize_t, total=float)
cdef void softmax_backward_rows_loop(const float[:, ::1] g, const float[:, ::1] y, float[:, ::1] out, Py_ssize_t lanes, float[::1] acc) noexcept

@cython.locals(i=Py_ssize_t, j=Py_ssize_t, total=float, w=double)
cdef void log_softmax_backward_rows_loop(const float[:, ::1] g, const float[:, ::1] y, float[:, ::1] out, const float[::1] c, const float[::1] pow2, Py_ssize_t lanes, float[::1] acc) noexcept

cpdef void relu_f32(const float[::1] src, float[::1] dst) noexcept
cpdef void relu_f64(const double[::1] src, double[::1] dst) noexcept
cpdef void threshold_backward_f32(const float[::1] grad, const float[::1] src, float[::1] dst, float threshold) noexcept
cpdef void threshold_backward_f64(const double[::1] grad, const double[::1] src, double[::1] dst, double threshold) noexcept
cpdef void one_level_f32(const float[:, ::1] x, Py_ssize_t step, Py_ssize_t n_chunks, float[::1] acc, float[::1] out) noexcept
cpdef void one_level_f64(const double[:, ::1] x, Py_ssize_t step, Py_ssize_t n_chunks, double[::1] acc, double[::1] out) noexcept
cpdef void quad_rows_f32(const float[:, ::1] x, const float[:, ::1] quads, Py_ssize_t step, Py_ssize_t n_chunks, float[::1] acc, float[::1] part, float[::1] out) noexcept
cpdef void quad_rows_f64(const double[:, ::1] x, const double[:, ::1] quads, Py_ssize_t step, Py_ssize_t n_chunks, double[::1] acc, double[::1] part, double[::1] out) noexcept
cpdef Py_ssize_t nll_reduce_f32(const float[:, ::1] x, const long long[::1] target, const float[::1] weight, bint weighted, long long ignore_index, Py_ssize_t power, float[::1] sums) noexcept
cpdef Py_ssize_t nll_reduce_f64(const double[:, ::1] x, const long long[::1] target, const double[::1] weight, bint weighted, long long ignore_index, Py_ssize_t power, double[::1] sums) noexcept
cpdef void row_max_f64(const double[:, ::1] x, double[::1] out) noexcept
cpdef void sub_row_f64(const double[:, ::1] a, const double[::1] c, double[:, ::1] out) noexcept
cpdef void row_sums_f64(const double[:, ::1] x, double[::1] sums) noexcept
cpdef void sub_rows_f64(const double[:, ::1] a, const double[:, ::1] b, const double[::1] c, double[:, ::1] out) noexcept
cpdef bint in_range_i64(const long long[::1] target, long long n) noexcept
cpdef bint pick_rows_f32(const long long[::1] target, float value, float[:, ::1] out) noexcept
cpdef bint pick_rows_f64(const long long[::1] target, double value, double[:, ::1] out) noexcept
@cython.locals(scratch=float[64])
cpdef float small_sum_f32(const float[::1] x, Py_ssize_t lanes) noexcept
@cython.locals(scratch=double[64])
cpdef double small_sum_f64(const double[::1] x, Py_ssize_t lanes) noexcept
cpdef void softmax_rows_f32(const float[:, ::1] x, float[:, ::1] out, const float[::1] c, const float[::1] pow2, Py_ssize_t lanes, float[::1] acc) noexcept
cpdef void log_softmax_sums_f32(const float[:, ::1] x, float[:, ::1] shifted, float[:, ::1] e, float[::1] sums, const float[::1] c, const float[::1] pow2, Py_ssize_t lanes, float[::1] acc) noexcept
cpdef void softmax_backward_rows_f32(const float[:, ::1] g, const float[:, ::1] y, float[:, ::1] out, Py_ssize_t lanes, float[::1] acc) noexcept
cpdef void log_softmax_backward_rows_f32(const float[:, ::1] g, const float[:, ::1] y, float[:, ::1] out, const float[::1] c, const float[::1] pow2, Py_ssize_t lanes, float[::1] acc) noexcept
