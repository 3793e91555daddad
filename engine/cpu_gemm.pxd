# C declarations for cpu_gemm.py (Cython's augmenting .pxd): the kernels of cpu_gemm.h,
# and one typed call per dtype that hands them the arrays' buffers.
cimport cython

cdef extern from "cpu_gemm.h":
    int gemm_available() noexcept nogil
    int gemm_blas_threads() noexcept nogil
    void gemm_set_blas_threads_query(size_t address) noexcept nogil
    void gemm_nt_f32(const float *a, const float *b, const float *bias, float *out, Py_ssize_t m, Py_ssize_t n, Py_ssize_t k) noexcept nogil
    void gemm_nt_f64(const double *a, const double *b, const double *bias, double *out, Py_ssize_t m, Py_ssize_t n, Py_ssize_t k) noexcept nogil
    int gemm_tn_f32(const float *a, const float *b, float *out, Py_ssize_t m, Py_ssize_t n, Py_ssize_t k) noexcept nogil

cdef inline void linear_f32(const float[:, ::1] a, const float[:, ::1] w, const float[::1] bias, float[:, ::1] out) noexcept:
    gemm_nt_f32(&a[0, 0], &w[0, 0], &bias[0], &out[0, 0], a.shape[0], w.shape[0], a.shape[1])

cdef inline void linear_f64(const double[:, ::1] a, const double[:, ::1] w, const double[::1] bias, double[:, ::1] out) noexcept:
    gemm_nt_f64(&a[0, 0], &w[0, 0], &bias[0], &out[0, 0], a.shape[0], w.shape[0], a.shape[1])

cdef inline void nt_f32(const float[:, ::1] a, const float[:, ::1] w, float[:, ::1] out) noexcept:
    gemm_nt_f32(&a[0, 0], &w[0, 0], NULL, &out[0, 0], a.shape[0], w.shape[0], a.shape[1])

cdef inline void nt_f64(const double[:, ::1] a, const double[:, ::1] w, double[:, ::1] out) noexcept:
    gemm_nt_f64(&a[0, 0], &w[0, 0], NULL, &out[0, 0], a.shape[0], w.shape[0], a.shape[1])

cdef inline int tn_f32(const float[:, ::1] a, const float[:, ::1] b, float[:, ::1] out) noexcept:
    return gemm_tn_f32(&a[0, 0], &b[0, 0], &out[0, 0], a.shape[1], b.shape[1], a.shape[0])

@cython.locals(m=Py_ssize_t, k=Py_ssize_t, n=Py_ssize_t)
cpdef object linear(object a, object w, object bias)

@cython.locals(m=Py_ssize_t, k=Py_ssize_t, n=Py_ssize_t)
cpdef object matmul(object a, object b)

@cython.locals(m=Py_ssize_t, k=Py_ssize_t, n=Py_ssize_t)
cdef bint _runs(Py_ssize_t m, Py_ssize_t n, Py_ssize_t k)
