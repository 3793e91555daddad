/* The engine's own matrix products for a linear layer (``engine.cpu_gemm``), on x86 with
 * AVX2 and FMA, checked at run time; elsewhere gemm_available() is 0 and the engine keeps
 * NumPy.  Both run single-threaded.
 *
 * gemm_nt: ``out = a @ b.T (+ bias)`` for row-major a (m, k) and b (n, k), k contiguous in
 * both: F.linear's ``input @ weight.t() + bias``.  Each output is one dot product
 * vectorised along k: eight (float) or four (double) lanes of fused multiply-adds in k
 * order, the lanes then added pairwise, ((0+1)+(2+3)) + ((4+5)+(6+7)) (doubles:
 * (0+1)+(2+3)), the k left over added in order, then the bias.  That order depends on k
 * alone, never on the tile an output falls in.  Four rows of a by three of b at a time
 * keep twelve sums in registers, so the loads of a row of b serve four rows of a with
 * nothing packed or transposed, and four sums are finished at once.
 *
 * gemm_tn: ``out = a.T @ b`` for row-major a (k, m) and b (k, n), a weight's gradient
 * (below).
 *
 * gemm_blas_threads() asks NumPy's OpenBLAS, through the address of its
 * ``openblas_get_num_threads`` given once by gemm_set_blas_threads_query, how many
 * threads a product of its own would use now: -1 when no such function was found. */
#ifndef ENGINE_CPU_GEMM_H
#define ENGINE_CPU_GEMM_H

#include <stddef.h>
#include <stdlib.h>

typedef int (*gemm_threads_query)(void);
static gemm_threads_query gemm_threads_fn = 0;

static void gemm_set_blas_threads_query(size_t address) {
    gemm_threads_fn = (gemm_threads_query)address;
}

static int gemm_blas_threads(void) { return gemm_threads_fn ? gemm_threads_fn() : -1; }

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define GEMM_TARGET __attribute__((target("avx2,fma")))

static int gemm_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

/* the rows of a taken per pass over b: about this many bytes, which stay in L2 */
#define GEMM_BLOCK_BYTES (256 * 1024)

/* The sums of four vectors' lanes, as one vector: ((0+1)+(2+3)) + ((4+5)+(6+7)) for floats,
 * (0+1) + (2+3) for doubles. */
GEMM_TARGET static inline __m128 gemm_sum4_f32(__m256 a, __m256 b, __m256 c, __m256 d) {
    __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(a, b), _mm256_hadd_ps(c, d));
    return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

GEMM_TARGET static inline __m256d gemm_sum4_f64(__m256d a, __m256d b, __m256d c, __m256d d) {
    __m256d h1 = _mm256_hadd_pd(a, b), h2 = _mm256_hadd_pd(c, d);
    return _mm256_add_pd(_mm256_permute2f128_pd(h1, h2, 0x20), _mm256_permute2f128_pd(h1, h2, 0x31));
}

/* One kernel per dtype: T the scalar, V its vector of L lanes, SUM4 and STORE4 four
 * vectors' sums and their store, SFMA the scalar fused multiply-add. */
#define GEMM_NT_DEFINE(SUF, T, V, L, LOAD, FMA, ZERO, SUM4, STORE4, SFMA)                      \
GEMM_TARGET static inline void gemm_tile43_##SUF(const T *a, ptrdiff_t k, const T *b, T *out,   \
                                                 ptrdiff_t ldo, const T *bias) {                \
    V c00 = ZERO(), c01 = ZERO(), c02 = ZERO(), c10 = ZERO(), c11 = ZERO(), c12 = ZERO();      \
    V c20 = ZERO(), c21 = ZERO(), c22 = ZERO(), c30 = ZERO(), c31 = ZERO(), c32 = ZERO();      \
    const T *a0 = a, *a1 = a + k, *a2 = a + 2 * k, *a3 = a + 3 * k;                            \
    const T *b0 = b, *b1 = b + k, *b2 = b + 2 * k;                                             \
    ptrdiff_t p = 0, pv = k - k % L;                                                           \
    for (; p < pv; p += L) {                                                                   \
        V v0 = LOAD(b0 + p), v1 = LOAD(b1 + p), v2 = LOAD(b2 + p), x = LOAD(a0 + p);           \
        c00 = FMA(x, v0, c00); c01 = FMA(x, v1, c01); c02 = FMA(x, v2, c02);                   \
        x = LOAD(a1 + p);                                                                      \
        c10 = FMA(x, v0, c10); c11 = FMA(x, v1, c11); c12 = FMA(x, v2, c12);                   \
        x = LOAD(a2 + p);                                                                      \
        c20 = FMA(x, v0, c20); c21 = FMA(x, v1, c21); c22 = FMA(x, v2, c22);                   \
        x = LOAD(a3 + p);                                                                      \
        c30 = FMA(x, v0, c30); c31 = FMA(x, v1, c31); c32 = FMA(x, v2, c32);                   \
    }                                                                                          \
    T s[3][4], r[4][3];                                                                        \
    STORE4(s[0], SUM4(c00, c10, c20, c30));                                                    \
    STORE4(s[1], SUM4(c01, c11, c21, c31));                                                    \
    STORE4(s[2], SUM4(c02, c12, c22, c32));                                                    \
    for (int i = 0; i < 4; i++)                                                                \
        for (int j = 0; j < 3; j++) r[i][j] = s[j][i];                                         \
    for (; p < k; p++)                                                                         \
        for (int i = 0; i < 4; i++)                                                            \
            for (int j = 0; j < 3; j++)                                                        \
                r[i][j] = SFMA(a[i * k + p], b[j * k + p], r[i][j]);                           \
    for (int i = 0; i < 4; i++)                                                                \
        for (int j = 0; j < 3; j++)                                                            \
            out[i * ldo + j] = bias ? r[i][j] + bias[j] : r[i][j];                             \
}                                                                                              \
                                                                                               \
GEMM_TARGET static inline void gemm_tile14_##SUF(const T *a, ptrdiff_t k, const T *b, T *out,   \
                                                 int nb, const T *bias) {                       \
    V c0 = ZERO(), c1 = ZERO(), c2 = ZERO(), c3 = ZERO();                                      \
    const T *b0 = b, *b1 = b + (nb > 1) * k, *b2 = b + (nb > 2) * 2 * k, *b3 = b + (nb > 3) * 3 * k; \
    ptrdiff_t p = 0, pv = k - k % L;                                                           \
    for (; p < pv; p += L) {                                                                   \
        V x = LOAD(a + p);                                                                     \
        c0 = FMA(x, LOAD(b0 + p), c0); c1 = FMA(x, LOAD(b1 + p), c1);                          \
        c2 = FMA(x, LOAD(b2 + p), c2); c3 = FMA(x, LOAD(b3 + p), c3);                          \
    }                                                                                          \
    T r[4];                                                                                    \
    STORE4(r, SUM4(c0, c1, c2, c3));                                                           \
    const T *bs[4] = {b0, b1, b2, b3};                                                         \
    for (int j = 0; j < nb; j++) {                                                             \
        for (ptrdiff_t q = p; q < k; q++) r[j] = SFMA(a[q], bs[j][q], r[j]);                   \
        out[j] = bias ? r[j] + bias[j] : r[j];                                                 \
    }                                                                                          \
}                                                                                              \
                                                                                               \
GEMM_TARGET static void gemm_nt_##SUF(const T *a, const T *b, const T *bias, T *out,            \
                                      ptrdiff_t m, ptrdiff_t n, ptrdiff_t k) {                  \
    ptrdiff_t rows = GEMM_BLOCK_BYTES / (ptrdiff_t)(k * sizeof(T));                            \
    rows = rows < 4 ? 4 : rows - rows % 4;                                                     \
    ptrdiff_t m4 = m - m % 4, n3 = n - n % 3;                                                  \
    for (ptrdiff_t i0 = 0; i0 < m4; i0 += rows) {                                              \
        ptrdiff_t i1 = i0 + rows < m4 ? i0 + rows : m4;                                        \
        for (ptrdiff_t j = 0; j < n3; j += 3)                                                  \
            for (ptrdiff_t i = i0; i < i1; i += 4)                                             \
                gemm_tile43_##SUF(a + i * k, k, b + j * k, out + i * n + j, n,                 \
                                  bias ? bias + j : 0);                                        \
        if (n3 < n)                                                                            \
            for (ptrdiff_t i = i0; i < i1; i++)                                                \
                gemm_tile14_##SUF(a + i * k, k, b + n3 * k, out + i * n + n3, (int)(n - n3),   \
                                  bias ? bias + n3 : 0);                                       \
    }                                                                                          \
    for (ptrdiff_t i = m4; i < m; i++)                                                         \
        for (ptrdiff_t j = 0; j < n; j += 4)                                                   \
            gemm_tile14_##SUF(a + i * k, k, b + j * k, out + i * n + j,                        \
                              (int)(n - j < 4 ? n - j : 4), bias ? bias + j : 0);              \
}

GEMM_NT_DEFINE(f32, float, __m256, 8, _mm256_loadu_ps, _mm256_fmadd_ps, _mm256_setzero_ps,
               gemm_sum4_f32, _mm_storeu_ps, __builtin_fmaf)
GEMM_NT_DEFINE(f64, double, __m256d, 4, _mm256_loadu_pd, _mm256_fmadd_pd, _mm256_setzero_pd,
               gemm_sum4_f64, _mm256_storeu_pd, __builtin_fma)

/* gemm_tn: out (m, n) = a.T @ b for row-major a (k, m) and b (k, n): the gradient of a
 * weight, x.T @ grad.  Each output is one chain of fused multiply-adds in k order, from 0;
 * six columns of a, packed once into tiles, by 2L columns of b at a time, twelve vector
 * sums in registers, stored straight into out (those past a block of k read back in and
 * carried on exactly).  Returns 0, or -1 when the packing buffer cannot be had. */
GEMM_TARGET static inline __m256i gemm_mask_f32(int count) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

GEMM_TARGET static inline __m256i gemm_mask_f64(int count) {
    return _mm256_cmpgt_epi64(_mm256_set1_epi64x(count), _mm256_setr_epi64x(0, 1, 2, 3));
}

#define GEMM_TN_KC 256

#define GEMM_TN_DEFINE(SUF, T, V, L, LOAD, STORE, MLOAD, MSTORE, BCAST, FMA, ZERO, MASK)         \
GEMM_TARGET static inline void gemm_tile62_##SUF(const T *pa, const T *b, ptrdiff_t ldb, T *c,  \
                                                 ptrdiff_t ldc, ptrdiff_t k, int mr, int nr,    \
                                                 int first) {                                   \
    V c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;                              \
    int full = nr == 2 * L;                                                                    \
    __m256i m0 = MASK(nr < L ? nr : L), m1 = MASK(nr > L ? nr - L : 0);                        \
    T *c1 = c + (mr > 1) * ldc, *c2 = c + (mr > 2) * 2 * ldc, *c3 = c + (mr > 3) * 3 * ldc;    \
    T *c4 = c + (mr > 4) * 4 * ldc, *c5 = c + (mr > 5) * 5 * ldc;                              \
    if (first) {                                                                               \
        c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = ZERO();        \
    } else {                                                                                   \
        c00 = MLOAD(c, m0); c01 = MLOAD(c + L, m1); c10 = MLOAD(c1, m0); c11 = MLOAD(c1 + L, m1); \
        c20 = MLOAD(c2, m0); c21 = MLOAD(c2 + L, m1); c30 = MLOAD(c3, m0); c31 = MLOAD(c3 + L, m1); \
        c40 = MLOAD(c4, m0); c41 = MLOAD(c4 + L, m1); c50 = MLOAD(c5, m0); c51 = MLOAD(c5 + L, m1); \
    }                                                                                          \
    for (ptrdiff_t p = 0; p < k; p++) {                                                        \
        V b0, b1, x;                                                                           \
        if (full) {                                                                            \
            b0 = LOAD(b + p * ldb); b1 = LOAD(b + p * ldb + L);                                \
        } else {                                                                               \
            b0 = MLOAD(b + p * ldb, m0); b1 = MLOAD(b + p * ldb + L, m1);                      \
        }                                                                                      \
        const T *q = pa + 6 * p;                                                               \
        x = BCAST(q); c00 = FMA(x, b0, c00); c01 = FMA(x, b1, c01);                            \
        x = BCAST(q + 1); c10 = FMA(x, b0, c10); c11 = FMA(x, b1, c11);                        \
        x = BCAST(q + 2); c20 = FMA(x, b0, c20); c21 = FMA(x, b1, c21);                        \
        x = BCAST(q + 3); c30 = FMA(x, b0, c30); c31 = FMA(x, b1, c31);                        \
        x = BCAST(q + 4); c40 = FMA(x, b0, c40); c41 = FMA(x, b1, c41);                        \
        x = BCAST(q + 5); c50 = FMA(x, b0, c50); c51 = FMA(x, b1, c51);                        \
    }                                                                                          \
    V row[6][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};    \
    for (int i = 0; i < mr; i++) {                                                             \
        if (full) {                                                                            \
            STORE(c + i * ldc, row[i][0]); STORE(c + i * ldc + L, row[i][1]);                  \
        } else {                                                                               \
            MSTORE(c + i * ldc, m0, row[i][0]); MSTORE(c + i * ldc + L, m1, row[i][1]);        \
        }                                                                                      \
    }                                                                                          \
}                                                                                              \
                                                                                               \
GEMM_TARGET static int gemm_tn_##SUF(const T *a, const T *b, T *out, ptrdiff_t m, ptrdiff_t n,  \
                                     ptrdiff_t k) {                                             \
    ptrdiff_t tiles = (m + 5) / 6;                                                             \
    T *packed = (T *)malloc(sizeof(T) * (size_t)(tiles * 6 * (k ? k : 1)));                    \
    if (!packed) return -1;                                                                    \
    for (ptrdiff_t t = 0; t < tiles; t++)                                                      \
        for (ptrdiff_t p = 0; p < k; p++)                                                      \
            for (int r = 0; r < 6; r++) {                                                      \
                ptrdiff_t i = t * 6 + r < m ? t * 6 + r : m - 1;                               \
                packed[(t * k + p) * 6 + r] = a[p * m + i];                                    \
            }                                                                                  \
    for (ptrdiff_t p0 = 0; p0 < k || p0 == 0; p0 += GEMM_TN_KC) {                              \
        ptrdiff_t kc = k - p0 < GEMM_TN_KC ? k - p0 : GEMM_TN_KC;                              \
        for (ptrdiff_t j = 0; j < n; j += 2 * L) {                                             \
            int nr = n - j < 2 * L ? (int)(n - j) : 2 * L;                                     \
            for (ptrdiff_t t = 0; t < tiles; t++) {                                            \
                int mr = m - t * 6 < 6 ? (int)(m - t * 6) : 6;                                 \
                gemm_tile62_##SUF(packed + (t * k + p0) * 6, b + p0 * n + j, n,                \
                                  out + t * 6 * n + j, n, kc, mr, nr, p0 == 0);                \
            }                                                                                  \
        }                                                                                      \
        if (k == 0) break;                                                                     \
    }                                                                                          \
    free(packed);                                                                              \
    return 0;                                                                                  \
}

GEMM_TN_DEFINE(f32, float, __m256, 8, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_maskload_ps,
               _mm256_maskstore_ps, _mm256_broadcast_ss, _mm256_fmadd_ps, _mm256_setzero_ps,
               gemm_mask_f32)
GEMM_TN_DEFINE(f64, double, __m256d, 4, _mm256_loadu_pd, _mm256_storeu_pd, _mm256_maskload_pd,
               _mm256_maskstore_pd, _mm256_broadcast_sd, _mm256_fmadd_pd, _mm256_setzero_pd,
               gemm_mask_f64)

#else /* not x86 with GCC or Clang: the caller keeps NumPy */

static int gemm_available(void) { return 0; }
static void gemm_nt_f32(const float *a, const float *b, const float *bias, float *out,
                        ptrdiff_t m, ptrdiff_t n, ptrdiff_t k) {}
static void gemm_nt_f64(const double *a, const double *b, const double *bias, double *out,
                        ptrdiff_t m, ptrdiff_t n, ptrdiff_t k) {}
static int gemm_tn_f32(const float *a, const float *b, float *out, ptrdiff_t m, ptrdiff_t n,
                       ptrdiff_t k) { return -1; }
static int gemm_tn_f64(const double *a, const double *b, double *out, ptrdiff_t m, ptrdiff_t n,
                       ptrdiff_t k) { return -1; }

#endif
#endif
