"""``engine.cpu_loops``: each loop gives exactly the bits of the NumPy expression its caller
uses otherwise, so compiled and pure-Python runs agree; the entry points decline what the
loops do not take.  The loops' Python source is checked too (called directly, as pure
Python), since it is what Cython compiles."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from engine import cascade_sum, compiled_core, cpu_loops, transcendental

SPECIAL = [-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf, -1e-30, 1e-30, -2.5, 3.0]
DTYPES = [np.float32, np.float64]


def _data(dtype: type, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    flat = a.reshape(-1)
    flat[: len(SPECIAL)] = SPECIAL[: flat.size]
    return a


def _relu_expr(a: np.ndarray) -> np.ndarray:
    return np.where(a < 0, a.dtype.type(0), a)


def _threshold_expr(g: np.ndarray, a: np.ndarray, threshold: float) -> np.ndarray:
    return np.where(a <= threshold, g.dtype.type(0), g)


def _pure_source() -> object:
    """``cpu_loops.py`` run as plain Python under another name (compiled, its loops are C
    functions that Python cannot call)."""
    path = compiled_core.source_path("engine.cpu_loops")
    spec = importlib.util.spec_from_file_location("cpu_loops_source", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("dtype", DTYPES)
def test_the_loops_source_gives_the_expressions_bits(dtype: type) -> None:
    source = _pure_source()
    assert not source.COMPILED and source.relu(np.ones(2, dtype)) is None
    a, g = _data(dtype, (13,)), _data(dtype, (13,), seed=1)
    out = np.full_like(a, 7)
    source.relu_loop(a, out)
    assert out.tobytes() == _relu_expr(a).tobytes()
    source.threshold_backward_loop(g, a, out, 0.5)
    assert out.tobytes() == _threshold_expr(g, a, 0.5).tobytes()
    x = _data(dtype, (11, 3))
    total, acc = np.empty(3, dtype), np.empty(3, dtype)
    x[:, 0] = -0.0
    source.one_level_loop(x, 4, 2, acc, total)
    assert total.tobytes() == _one_level_expr(x, 4, 2).tobytes()
    part, acc = np.empty(12, dtype), np.empty(12, dtype)
    source.quad_rows_loop(x, x[:8].reshape(2, 12), 1, 2, acc, part, total)
    assert total.tobytes() == _quad_rows_expr(x, 1, 2).tobytes()
    rows = _data(dtype, (5, 140), seed=4)
    maxima, sums = np.empty(5, dtype), np.empty(5, dtype)
    source.row_max_loop(rows, maxima)
    assert maxima.tobytes() == np.maximum.reduce(rows, axis=1).tobytes()
    rows = np.abs(rows)  # (NumPy's pairwise order differs from in-order only without NaN)
    rows[0] = -0.0
    source.row_sums_loop(rows, sums)
    assert sums.tobytes() == np.add.reduce(rows, axis=1).tobytes()
    shifted = np.empty_like(rows)
    source.sub_row_loop(rows, sums, shifted)
    assert shifted.tobytes() == (rows - sums[:, None]).tobytes()
    source.sub_rows_loop(rows, rows, sums, shifted)
    assert shifted.tobytes() == (rows - rows * sums[:, None]).tobytes()
    classes = np.array([0, 4, 2], np.int64)
    assert source.in_range_loop(classes, 5) and not source.in_range_loop(classes, 4)
    for n in (3, 8, 21, 39):
        v = _data(dtype, (n,), seed=n)
        got = source.small_sum_loop(v, 8, np.empty(8, dtype))
        assert _same_bits(dtype(got), cascade_sum._small(v[None, :], 8)[0])


def _same_bits(got: np.generic, want: np.generic) -> bool:
    """The same bits, where a NaN is any NaN: which of two NaNs an addition keeps (their
    sign) is the compiler's choice of operand order, and PyTorch promises neither."""
    return got.tobytes() == want.tobytes() or bool(np.isnan(got) and np.isnan(want))


def _one_level_expr(x: np.ndarray, step: int, n_chunks: int) -> np.ndarray:
    """``cascade_sum._one_level``'s NumPy expression: chunk sums, their sum, the rest."""
    body, zero = step * n_chunks, x.dtype.type(0)
    tail = None if body == x.shape[0] else np.add.reduce(x[body:], axis=0) + zero
    if n_chunks == 0:
        return tail
    chunks = np.add.reduce(x[:body].reshape(n_chunks, step, -1), axis=1)
    total = np.add.reduce(chunks, axis=0)
    return total + zero if tail is None else tail + total


def _quad_rows_expr(x: np.ndarray, step: int, n_chunks: int) -> np.ndarray:
    m, n = x.shape
    part = _one_level_expr(x[: m // 4 * 4].reshape(m // 4, 4 * n), step, n_chunks).reshape(4, n)
    total = part[0]
    for i in range(m // 4 * 4, m):
        total = total + x[i]
    return ((total + part[1]) + part[2]) + part[3]


@pytest.mark.skipif(not cpu_loops.COMPILED, reason="the loops run only compiled")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("shape", "step", "n_chunks"),
    [
        ((64, 256), 16, 4),
        ((70, 3), 16, 4),
        ((1, 5), 1, 1),
        ((33, 8), 8, 4),
        ((16, 1), 16, 1),
        ((15, 4), 16, 0),  # no whole chunk: the leftover rows only
        ((1, 6), 16, 0),
        ((17, 32), 16, 1),  # one row left over
    ],
)
def test_compiled_one_level_matches(
    dtype: type, shape: tuple[int, int], step: int, n_chunks: int
) -> None:
    x = _data(dtype, shape)
    x[:, 0] = -0.0  # negative zeros: NumPy's sums start at ``0``, so they give ``0.0``
    x[-1, -1] = -0.0
    out = cpu_loops.one_level(x, step, n_chunks)
    assert out is not None
    assert out.tobytes() == _one_level_expr(x, step, n_chunks).tobytes()


@pytest.mark.skipif(not cpu_loops.COMPILED, reason="the loops run only compiled")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("shape", "step", "n_chunks"),
    [((64, 10), 16, 1), ((67, 10), 16, 1), ((4, 3), 16, 0), ((7, 1), 16, 0), ((250, 7), 16, 3)],
)
def test_compiled_quad_rows_matches(
    dtype: type, shape: tuple[int, int], step: int, n_chunks: int
) -> None:
    x = _data(dtype, shape)
    x[:, 0] = -0.0
    x[-1, -1] = np.nan if shape[0] % 2 else np.inf
    out = cpu_loops.quad_rows(x, step, n_chunks)
    assert out is not None
    assert out.tobytes() == _quad_rows_expr(x, step, n_chunks).tobytes()


@pytest.mark.skipif(not cpu_loops.COMPILED, reason="the loops run only compiled")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lanes", [4, 8, 16])
def test_compiled_small_sum_matches(dtype: type, lanes: int) -> None:
    """Every length below eight vectors, with specials, negative zeros and magnitudes
    that make the order matter, against ``cascade_sum._small``'s NumPy expression."""
    for n in range(1, 8 * lanes):
        for seed, fill in ((n, None), (n + 100, -0.0), (n + 200, "wide")):
            v = _data(dtype, (n,), seed=seed)
            if fill == -0.0:
                v[:] = -0.0
            elif fill == "wide":
                v *= dtype(10.0) ** (np.arange(n, dtype=dtype) % dtype(30))
            got = cpu_loops.small_sum(v, lanes)
            assert got is not None and got.dtype == v.dtype
            with np.errstate(all="ignore"):  # inf - inf, as the engine's sums run
                want = cascade_sum._small(v[None, :], lanes)[0]
            assert _same_bits(got, want), (n, fill)


@pytest.mark.skipif(not cpu_loops.COMPILED, reason="the loops run only compiled")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (1,), (7,), (64, 257), (3, 0, 2)])
def test_compiled_elementwise_loops_match(dtype: type, shape: tuple[int, ...]) -> None:
    a, g = _data(dtype, shape), _data(dtype, shape, seed=1)
    r = cpu_loops.relu(a)
    assert r is not None and r.shape == a.shape and r.dtype == a.dtype
    assert r.tobytes() == _relu_expr(a).tobytes()
    for threshold in (0, 0.5, -1, 1e-40, 0.1):
        t = cpu_loops.threshold_backward(g, a, threshold)
        assert t is not None
        assert t.tobytes() == _threshold_expr(g, a, threshold).tobytes()


def _log_softmax_expr(a: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        s = a - np.maximum.reduce(a, axis=-1, keepdims=True)
        return s - np.log(np.add.reduce(np.exp(s), axis=-1, keepdims=True))


def _log_softmax_backward_expr(g: np.ndarray, y: np.ndarray) -> np.ndarray:
    return g - np.exp(y) * np.add.reduce(g, axis=-1, keepdims=True)


#: Rows of every length class of NumPy's pairwise sum: in order (< 8), eight partial sums
#: (to 128, with and without a remainder), halves cut at a multiple of 8 (and twice).
ROW_SHAPES = [(1,), (5,), (64, 10), (3, 1), (2, 3, 8), (7, 129), (4, 300), (600, 17), (2, 1031)]


@pytest.mark.skipif(not cpu_loops.COMPILED, reason="the loops run only compiled")
@pytest.mark.parametrize("dtype", [np.float64])  # float32 rounds as ATen's kernel instead
@pytest.mark.parametrize("shape", ROW_SHAPES)
@pytest.mark.parametrize("scale", [1.0, 40.0, 1e4])
def test_compiled_log_softmax_rows_match(dtype: type, shape: tuple[int, ...], scale: float) -> None:
    a = np.random.default_rng(5).standard_normal(shape).astype(dtype) * dtype(scale)
    if a.size > 8:  # a NaN row, an infinite one and negative zeros
        a.reshape(-1)[[1, -2, 3]] = [np.nan, -np.inf, -0.0]
    y = cpu_loops.log_softmax_rows(a)
    want = _log_softmax_expr(a)
    assert y is not None and y.shape == a.shape and y.tobytes() == want.tobytes()
    g = np.random.default_rng(6).standard_normal(shape).astype(dtype) * dtype(scale)
    with np.errstate(all="ignore"):
        back = cpu_loops.log_softmax_backward_rows(g, want)
        assert back is not None
        assert back.tobytes() == _log_softmax_backward_expr(g, want).tobytes()


def _numpy_expressions(monkeypatch: pytest.MonkeyPatch, fn: object, *args: np.ndarray) -> object:
    """``fn`` (a ``transcendental`` function) on its NumPy expressions: the loops declined."""
    with monkeypatch.context() as m:
        m.setattr(cpu_loops, "COMPILED", False)
        return fn(*args)


@pytest.mark.skipif(not cpu_loops.COMPILED, reason="the loops run only compiled")
@pytest.mark.parametrize("shape", [*ROW_SHAPES, (3, 7), (4, 8), (2, 16), (5, 33), (2, 3, 40)])
@pytest.mark.parametrize("scale", [1.0, 40.0, 1e4])
@pytest.mark.parametrize("lanes", [8, 16])
def test_compiled_float32_softmax_rows_match(
    monkeypatch: pytest.MonkeyPatch, shape: tuple[int, ...], scale: float, lanes: int
) -> None:
    """The float32 softmax and log_softmax loops, forward and backward, give the bits of
    ``transcendental``'s NumPy expressions (SLEEF's exp, ``vec::reduce_all``'s order) for
    both register widths, NaN, infinities and SLEEF's underflow and overflow included."""
    monkeypatch.setattr(transcendental, "vector_lanes", lambda: lanes)
    rng = np.random.default_rng(7)
    a = (rng.standard_normal(shape) * scale).astype(np.float32)
    if a.size > 8:
        a.reshape(-1)[[1, -2, 3]] = [np.nan, -np.inf, -0.0]
    g = rng.standard_normal(shape).astype(np.float32)
    with np.errstate(all="ignore"):
        for fn, args in [
            (transcendental.softmax_lastdim_f32, (a,)),
            (transcendental.log_softmax_lastdim_f32, (a,)),
            (transcendental.softmax_backward_lastdim_f32, (g, a)),
            (transcendental.log_softmax_backward_lastdim_f32, (g, a)),
        ]:
            got = fn(*args)
            want = _numpy_expressions(monkeypatch, fn, *args)
            assert got.shape == want.shape and got.tobytes() == want.tobytes(), fn.__name__


@pytest.mark.skipif(not cpu_loops.COMPILED, reason="the loops run only compiled")
def test_compiled_sleef_exp_matches_over_its_range() -> None:
    """``cpu_loops.sleef_expf`` against ``sleef_expf_u10`` over SLEEF's whole range, read
    through log_softmax's backward: with the gradient row ``[1, 0]`` (its sum 1) the
    second column is ``0 - exp(y) * 1``, exactly ``-exp(y)`` (and ``+0`` where it is 0)."""
    y = np.concatenate(
        [
            np.random.default_rng(8).uniform(-110, 105, 50_000),
            [0, -0.0, 1e-30, 88.72, 88.73, -87.33, -103.97, -104, -104.01, 100, 100.01],
        ]
    ).astype(np.float32)
    g = np.zeros((y.size, 2), np.float32)
    g[:, 0] = 1
    rows = np.stack([np.zeros_like(y), y], axis=1)
    with np.errstate(all="ignore"):
        got = transcendental.log_softmax_backward_lastdim_f32(g, rows)
        want = (0.0 - transcendental.sleef_expf_u10(y).astype(np.float64)).astype(np.float32)
    assert got[:, 1].tobytes() == want.tobytes()


def test_what_the_entry_points_decline() -> None:
    f32 = np.ones((4, 4), np.float32)
    f64 = f32.astype(np.float64)
    declined = [
        cpu_loops.relu(f32.T[::2]),  # not C-contiguous
        cpu_loops.relu(np.ones(4, np.float16)),
        cpu_loops.relu(np.ones(4, np.int64)),
        cpu_loops.threshold_backward(f32, f32.reshape(16), 0),  # shapes differ
        cpu_loops.threshold_backward(f32, f32.astype(np.float64), 0),  # dtypes differ
        cpu_loops.threshold_backward(f32, f32, 2**60),  # not exact as a float
        cpu_loops.threshold_backward(f32, f32, True),
        cpu_loops.one_level(f32, 4, 2),  # fewer rows than the chunks cover
        cpu_loops.one_level(f32.reshape(16), 4, 1),
        cpu_loops.one_level(np.ones((0, 3), np.float32), 4, 0),
        cpu_loops.quad_rows(f32[:3], 1, 0),  # not one quad of rows
        cpu_loops.quad_rows(f32, 1, 2),  # one quad: fewer than the chunks cover
        cpu_loops.log_softmax_rows(np.ones((3, 0))),  # empty rows
        cpu_loops.log_softmax_rows(np.ones(())),
        cpu_loops.log_softmax_rows(f64.T[::2]),
        cpu_loops.log_softmax_rows(f32),  # float32: ATen's rounding, in transcendental
        cpu_loops.log_softmax_backward_rows(f64, f64.reshape(2, 8)),  # shapes differ
        cpu_loops.log_softmax_backward_rows(f64.T.copy().T, f64),  # a transposed gradient
        cpu_loops.classes_in_range(np.arange(4, dtype=np.int32), 5),  # not int64
        cpu_loops.classes_in_range(np.arange(8)[::2], 9),
        cpu_loops.classes_in_range(np.arange(4).reshape(2, 2), 5),
    ]
    assert declined == [None] * len(declined)
    if not cpu_loops.COMPILED:
        assert cpu_loops.relu(f32) is None


@pytest.mark.skipif(not cpu_loops.COMPILED, reason="the loops run only compiled")
def test_read_only_inputs_are_taken() -> None:
    """A broadcast gradient or a constant is read-only: the loops only read their inputs."""
    a = _data(np.float32, (4, 4))
    a.flags.writeable = False
    assert cpu_loops.relu(a).tobytes() == _relu_expr(a).tobytes()
    assert cpu_loops.threshold_backward(a, a, 0).tobytes() == _threshold_expr(a, a, 0).tobytes()
    assert cpu_loops.one_level(a, 2, 2).tobytes() == _one_level_expr(a, 2, 2).tobytes()
    assert cpu_loops.quad_rows(a, 1, 1).tobytes() == _quad_rows_expr(a, 1, 1).tobytes()


@pytest.mark.skipif(not cpu_loops.COMPILED, reason="the loops run only compiled")
def test_compiled_classes_in_range() -> None:
    t = np.array([0, 3, 9, 2], np.int64)
    assert cpu_loops.classes_in_range(t, 10) is True
    assert cpu_loops.classes_in_range(t, 9) is False
    assert cpu_loops.classes_in_range(np.array([0, -1], np.int64), 5) is False
    assert cpu_loops.classes_in_range(np.array([-100, 2], np.int64), 5) is False  # ignored too
    assert cpu_loops.classes_in_range(np.zeros(0, np.int64), 1) is True
