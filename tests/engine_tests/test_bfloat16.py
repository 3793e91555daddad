"""bfloat16 and CPU autocast against PyTorch 2.13: dtype facts, casts, printing, op
values and gradients bit for bit, ``torch.autocast``'s policy and graph; goldens keep
the main facts checked where torch is not installed."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import engine
import engine.nn.functional as EF

BF16 = engine.bfloat16


def _torch() -> Any:
    return pytest.importorskip("torch")


def _bits(t: Any) -> list[float]:
    return t.float().flatten().tolist()


# -- goldens: no torch needed --------------------------------------------------
def test_golden_dtype_facts_and_printing() -> None:
    x = engine.tensor([1.0, 2.0], dtype=BF16)
    assert repr(x) == "tensor([1., 2.], dtype=torch.bfloat16)"
    assert repr(engine.tensor([1.5, 2.0], dtype=BF16)) == (
        "tensor([1.5000, 2.0000], dtype=torch.bfloat16)"
    )
    assert repr(engine.tensor(3.14159, dtype=BF16)) == "tensor(3.1406, dtype=torch.bfloat16)"
    assert engine.tensor(3.14159, dtype=BF16).item() == 3.140625
    assert repr(engine.finfo(BF16)) == (
        "finfo(resolution=0.01, min=-3.38953e+38, max=3.38953e+38, eps=0.0078125, "
        "smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=bfloat16)"
    )
    assert engine.promote_types(BF16, engine.float16) is engine.float32
    assert engine.promote_types(BF16, engine.int64) is BF16
    assert (x.element_size(), BF16.is_floating_point, x.type()) == (2, True, "torch.BFloat16Tensor")
    # a double rounds through float, as c10::BFloat16 is built from one
    assert engine.tensor(1.0 + 2**-8 + 2**-30, dtype=engine.float64).bfloat16().item() == 1.0
    assert repr(engine.tensor(1e40).bfloat16()) == "tensor(inf, dtype=torch.bfloat16)"


def test_golden_autocast_linear_graph() -> None:
    engine.manual_seed(0)
    lin = engine.nn.Linear(4, 3)
    x = engine.randn(2, 4)
    with engine.autocast(device_type="cpu", dtype=BF16):
        assert engine.is_autocast_enabled("cpu") and not engine.is_autocast_enabled()
        y = lin(x)
        loss = EF.cross_entropy(y, engine.tensor([0, 2]))
    assert not engine.is_autocast_enabled("cpu")
    assert (y.dtype, y.grad_fn.name(), loss.dtype) == (BF16, "AddmmBackward0", engine.float32)
    names = [fn.name() if fn else None for fn, _ in y.grad_fn.next_functions]
    assert names == ["ToCopyBackward0", None, "TBackward0"]
    loss.backward()
    assert lin.weight.grad.dtype is engine.float32


# -- against PyTorch ---------------------------------------------------------
def test_dtype_facts_match_torch() -> None:
    torch = _torch()
    for a, b in [("bfloat16", "float16"), ("bfloat16", "float32"), ("bfloat16", "float64")]:
        for first, second in ((a, b), (b, a)):
            got = engine.promote_types(getattr(engine, first), getattr(engine, second))
            assert repr(got) == repr(
                torch.promote_types(getattr(torch, first), getattr(torch, second))
            )
    for name in ("bfloat16", "float16", "float32", "float64"):
        assert repr(engine.finfo(getattr(engine, name))) == repr(torch.finfo(getattr(torch, name)))
    assert BF16.itemsize == torch.bfloat16.itemsize and BF16.is_signed


VALUES = [1.123456, 2.5, 1e-3, 300.7, -7.77, 1e10, 1.0 + 2**-8 + 2**-30, 3.0e38, 1e-40]


def test_creation_casts_item_tolist_and_repr_match_torch() -> None:
    torch = _torch()
    e = engine.tensor(VALUES, dtype=BF16)
    t = torch.tensor(VALUES, dtype=torch.bfloat16)
    assert e.tolist() == t.tolist()
    assert repr(e) == repr(t)
    e64 = engine.tensor(VALUES, dtype=engine.float64).bfloat16()
    t64 = torch.tensor(VALUES, dtype=torch.float64).bfloat16()
    assert e64.tolist() == t64.tolist()
    for rows in ([[0.5, 1.25], [3.0, -2.0]], [[1.1, 2.2, 3.3]], [0.0001, 12345.0]):
        assert repr(engine.tensor(rows, dtype=BF16)) == repr(
            torch.tensor(rows, dtype=torch.bfloat16)
        )
    assert (
        engine.tensor([2.5], dtype=BF16).item() == torch.tensor([2.5], dtype=torch.bfloat16).item()
    )
    assert repr(engine.arange(5, dtype=BF16)) == repr(torch.arange(5, dtype=torch.bfloat16))


def _pair(torch: Any, seed: int, *shape: int) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    data = (rng.standard_normal(shape) * 2).astype(np.float32)
    e = engine.tensor(data).bfloat16().requires_grad_()
    t = torch.tensor(data).bfloat16().requires_grad_()
    return e, t


OPS = {
    "matmul": lambda m, f, a, b: a @ b.t(),
    "linear": lambda m, f, a, b: f.linear(a, b),
    "sum": lambda m, f, a, b: a.sum(1),
    "mean": lambda m, f, a, b: a.mean(),
    "softmax": lambda m, f, a, b: f.softmax(a, -1),
    "log_softmax": lambda m, f, a, b: f.log_softmax(a, -1),
    "layer_norm": lambda m, f, a, b: f.layer_norm(a, (8,)),
    "gelu": lambda m, f, a, b: f.gelu(a),
    "exp_tanh_sigmoid": lambda m, f, a, b: a.exp() + a.tanh() * a.sigmoid(),
    "scalar_ops": lambda m, f, a, b: (a * 0.1 + 1) / 3,
    "var_cumsum": lambda m, f, a, b: a.var(1) + a.cumsum(1)[:, -1],
    "mse": lambda m, f, a, b: f.mse_loss(a, b[:4]),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_forward_values_and_grad_fn_match_torch(name: str) -> None:
    torch = _torch()
    ea, ta = _pair(torch, 1, 4, 8)
    eb, tb = _pair(torch, 2, 6, 8)
    fn = OPS[name]
    e = fn(engine, EF, ea, eb)
    t = fn(torch, torch.nn.functional, ta, tb)
    assert repr(e.dtype) == repr(t.dtype)
    assert e.grad_fn.name() == t.grad_fn.name()
    assert _bits(e) == _bits(t)


@pytest.mark.parametrize("name", ["matmul", "linear", "sum", "mean", "gelu", "scalar_ops", "mse"])
def test_gradients_in_bfloat16_match_torch(name: str) -> None:
    torch = _torch()
    ea, ta = _pair(torch, 3, 4, 8)
    eb, tb = _pair(torch, 4, 6, 8)
    OPS[name](engine, EF, ea, eb).sum().backward()
    OPS[name](torch, torch.nn.functional, ta, tb).sum().backward()
    assert ea.grad.dtype is BF16
    assert _bits(ea.grad) == _bits(ta.grad)
    if tb.grad is not None:
        assert _bits(eb.grad) == _bits(tb.grad)


def test_a_cast_to_bfloat16_is_a_to_copy_whose_grad_is_float32() -> None:
    torch = _torch()
    ew = engine.tensor([1.5, 2.0], requires_grad=True)
    tw = torch.tensor([1.5, 2.0], requires_grad=True)
    ey, ty = ew.bfloat16(), tw.bfloat16()
    assert repr(ey) == repr(ty)
    (ey * 3).sum().backward()
    (ty * 3).sum().backward()
    assert repr(ew.grad) == repr(tw.grad)


def test_module_to_bfloat16_keeps_integer_buffers() -> None:
    torch = _torch()
    for lib in (engine, torch):
        lib.manual_seed(0)
    em = engine.nn.Sequential(engine.nn.Linear(3, 2), engine.nn.BatchNorm1d(2)).to(BF16)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2)).to(torch.bfloat16)
    for (en, ep), (tn, tp) in zip(em.state_dict().items(), tm.state_dict().items(), strict=True):
        assert (en, repr(ep.dtype)) == (tn, repr(tp.dtype))
        assert ep.float().tolist() == tp.float().tolist()
    assert repr(em[0].weight) == repr(tm[0].weight)
    assert next(engine.nn.Linear(2, 2).bfloat16().parameters()).dtype is BF16


# -- autocast ----------------------------------------------------------------
def _autocast_program(lib: Any) -> list[str]:
    """What a program shows of autocast: dtypes per policy, the graph, the weight cache."""
    f = lib.nn.functional
    lib.manual_seed(0)
    lin = lib.nn.Linear(4, 3)
    x = lib.randn(2, 4)
    seen = [str(lib.is_autocast_enabled("cpu")), repr(lib.get_autocast_dtype("cpu"))]
    with lib.autocast(device_type="cpu", dtype=lib.bfloat16):
        seen.append(str(lib.is_autocast_enabled("cpu")))
        y = lin(x)
        y2 = lin(x)
        cast_w = y.grad_fn.next_functions[2][0].next_functions[0][0]
        seen.append(str(cast_w is y2.grad_fn.next_functions[2][0].next_functions[0][0]))
        loss = f.cross_entropy(y, lib.tensor([0, 2])) + f.mse_loss(y2, lib.zeros(2, 3))
        seen += [repr(y), repr(loss)]
        ls = loss.grad_fn.next_functions[0][0].next_functions[0][0]
        seen.append(ls.next_functions[0][0].name())
        seen += [
            repr((y * 2).dtype),
            repr((y + x[:, :3]).dtype),
            repr(lib.mm(x.double(), x.double().t()).dtype),
            repr(x.exp().dtype),
            repr((x @ x.t()).dtype),
            repr(f.conv2d(lib.ones(1, 1, 3, 3), lib.ones(1, 1, 2, 2)).dtype),
        ]
        cat = lib.cat([y, x[:, :3]])
        seen.append(repr(cat.dtype))
        seen.append(str([fn.name() if fn else None for fn, _ in cat.grad_fn.next_functions]))
        with lib.autocast("cpu", enabled=False):
            seen.append(repr(lin(x).dtype))
    loss.backward()
    seen += [repr(lin.weight.grad), repr(lin.bias.grad)]

    @lib.autocast("cpu")
    def product(a: Any) -> Any:
        return a @ a.t()

    seen += [repr(product(x).dtype), str(lib.is_autocast_enabled("cpu"))]
    with lib.amp.autocast("cpu", dtype=lib.float16):
        seen.append(repr((x @ x.t()).dtype))
    return seen


def test_autocast_matches_torch() -> None:
    torch = _torch()
    assert _autocast_program(engine) == _autocast_program(torch)


@pytest.mark.skipif(engine.cuda.is_available(), reason="the engine has a CUDA device here")
def test_cuda_autocast_without_a_device_warns_and_is_disabled() -> None:
    x = engine.ones(2, 2)
    with pytest.warns(UserWarning, match="CUDA is not available or torch_xla is imported"):
        region = engine.autocast(device_type="cuda")
    with region:
        assert not engine.is_autocast_enabled("cuda")
        assert (x @ x).dtype is engine.float32


def test_cpu_autocast_with_an_unsupported_dtype_warns_and_is_disabled() -> None:
    x = engine.ones(2, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with engine.autocast("cpu", dtype=engine.float32):
            assert (x @ x).dtype is engine.float32
    assert [str(w.message) for w in caught] == [
        "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
        "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently."
    ]


@pytest.mark.cuda
def test_bfloat16_on_the_engines_cuda_device_raises_naming_the_limit() -> None:
    if not engine.cuda.is_available():
        pytest.skip("no CUDA device (nor the CuPy simulator)")
    for make in (
        lambda: engine.ones(2, dtype=BF16).cuda(),
        lambda: engine.ones(2, device="cuda").to(BF16),
        lambda: engine.zeros(2, dtype=BF16, device="cuda"),
        lambda: engine.tensor([1.0], dtype=BF16, device="cuda"),
    ):
        with pytest.raises(
            RuntimeError, match="CuPy, which holds its CUDA tensors, has no bfloat16"
        ):
            make()


def test_a_warning_from_an_op_on_autocasts_lists_never_points_into_its_wrapper() -> None:
    """``mse_loss`` is on autocast's fp32 list, so its public function forwards through
    ``engine/amp.py``; PyTorch's dispatcher adds no frame there, and neither may the
    engine: ``size_average``'s warning points where ``stacklevel=2`` does in PyTorch (the
    line of ``F.mse_loss`` that reads the legacy arguments), or, in the compiled core
    whose functions have no frames, at the caller's line."""
    x = engine.ones(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        EF.mse_loss(x, x, size_average=False)
    [w] = caught
    defined = EF.mse_loss.__wrapped__.__code__.co_filename  # type: ignore[attr-defined]
    assert w.filename in (defined, __file__), w.filename
    assert not w.filename.endswith("amp.py")
