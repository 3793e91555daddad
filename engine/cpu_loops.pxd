# C types for cpu_loops.py (Cython's augmenting .pxd): the loops over contiguous float
# buffers, fused over float32/float64, and one typed entry point per dtype for Python.
cimport cython
from cython cimport floating

@cython.locals(i=Py_ssize_t, v=floating)
cdef void relu_loop(floating[::1] src, floating[::1] dst) noexcept

@cython.locals(i=Py_ssize_t, g=floating)
cdef void threshold_backward_loop(floating[::1] grad, floating[::1] src, floating[::1] dst, floating threshold) noexcept

@cython.locals(m=Py_ssize_t, n=Py_ssize_t, i=Py_ssize_t, j=Py_ssize_t, ii=Py_ssize_t, jj=Py_ssize_t, ie=Py_ssize_t, je=Py_ssize_t)
cdef void transpose_add_loop(floating[:, ::1] p, floating[::1] bias, floating[:, ::1] out) noexcept

@cython.locals(n=Py_ssize_t, c=Py_ssize_t, r0=Py_ssize_t, r=Py_ssize_t, j=Py_ssize_t)
cdef void chunk_total_loop(floating[:, ::1] x, floating[::1] acc, floating[::1] out, Py_ssize_t step, Py_ssize_t n_chunks) noexcept

cpdef void relu_f32(float[::1] src, float[::1] dst) noexcept
cpdef void relu_f64(double[::1] src, double[::1] dst) noexcept
cpdef void threshold_backward_f32(float[::1] grad, float[::1] src, float[::1] dst, float threshold) noexcept
cpdef void threshold_backward_f64(double[::1] grad, double[::1] src, double[::1] dst, double threshold) noexcept
cpdef void transpose_add_f32(float[:, ::1] p, float[::1] bias, float[:, ::1] out) noexcept
cpdef void transpose_add_f64(double[:, ::1] p, double[::1] bias, double[:, ::1] out) noexcept
cpdef void chunk_total_f32(float[:, ::1] x, float[::1] acc, float[::1] out, Py_ssize_t step, Py_ssize_t n_chunks) noexcept
cpdef void chunk_total_f64(double[:, ::1] x, double[::1] acc, double[::1] out, Py_ssize_t step, Py_ssize_t n_chunks) noexcept
