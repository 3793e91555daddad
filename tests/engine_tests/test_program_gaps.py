"""Idioms real programs use that the engine lacked, each checked against PyTorch's facts:
``//`` and ``div(rounding_mode=)``, bitwise ``& | ^ ~``, ``index_add``, ``movedim``,
``repeat_interleave``, ``where(cond)``, ``scatter``/``gather`` with a smaller index,
``cross_entropy`` with ``ignore_index=-100`` and with probabilities, ``kl_div``,
``as_tensor``, ``can_cast``, 0-d tensors through ``save``, and ``default_collate``."""

from __future__ import annotations

import io
import warnings
from typing import Any

import pytest

import engine


def _node(t: Any) -> str | None:
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def _chain(t: Any) -> list[str]:
    names, fn = [], t.grad_fn
    while fn is not None:
        names.append(type(fn).__name__)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names


def _arith(T: Any) -> list[Any]:
    i = T.tensor([7, -7, 6])
    x = T.tensor([1.5, -2.5, 3.0], requires_grad=True)
    facts: list[Any] = [(i // 2).tolist(), (i // 2.0).tolist(), (7 // T.tensor([2, -2])).tolist()]
    facts += [T.floor_divide(i, T.tensor([2, 4, 5])).tolist(), _node(x // 2), _node(2 // x)]
    with pytest.raises(RuntimeError) as err:
        (x // 2).sum().backward()
    facts.append(str(err.value))
    for mode in ("floor", "trunc"):
        y = T.div(x, 2, rounding_mode=mode)
        facts += [y.tolist(), _node(y), T.div(i, 4, rounding_mode=mode).tolist()]
    with pytest.raises(RuntimeError) as err:
        T.div(x, 2, rounding_mode="round")
    facts.append(str(err.value))
    j = T.tensor([6, 3, 1])
    b = T.tensor([True, False, True])
    facts += [(j & 3).tolist(), (j | 8).tolist(), (j ^ 1).tolist(), (~j).tolist()]
    facts += [(b ^ True).tolist(), (True & b).tolist(), (~b).tolist(), str((b & 1).dtype)]
    with pytest.raises(RuntimeError) as err:
        T.ones(2) & 1
    facts.append(str(err.value))
    with pytest.raises(TypeError) as terr:
        ~T.ones(2)
    facts.append(str(terr.value))
    facts += [T.can_cast(a, b) for a in (T.float32, T.int64, T.bool) for b in (T.int32, T.bool)]
    return facts


def _indexing(T: Any) -> list[Any]:
    x = T.arange(12.0).reshape(3, 4).requires_grad_()
    s = T.ones(2, 4, requires_grad=True)
    y = x.index_add(0, T.tensor([0, 0]), s, alpha=2)
    y.sum().backward()
    facts: list[Any] = [y.tolist(), _node(y), x.grad.tolist(), s.grad.tolist()]
    z = T.zeros(3, 5).scatter_(0, T.tensor([[0, 1, 2, 0]]), T.arange(1.0, 11.0).reshape(2, 5))
    facts += [z.tolist(), T.arange(20.0).reshape(4, 5).gather(1, T.tensor([[1], [0]])).tolist()]
    facts += [[t.tolist() for t in T.where(x > 8)], _chain(x.movedim(0, 1))]
    facts += [x.movedim((0, 1), (1, 0)).shape == (4, 3), T.movedim(x[None], 0, -1).shape[-1]]
    r = T.ones(2, 3, requires_grad=True).repeat_interleave(2, dim=1)
    facts += [tuple(r.shape), _chain(r), T.tensor([[1, 2], [3, 4]]).repeat_interleave(2).tolist()]
    facts += [T.repeat_interleave(T.tensor([1, 2]), T.tensor([1, 3])).tolist()]
    facts.append(T.repeat_interleave(T.tensor([2, 1])).tolist())
    a = T.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    inv = T.linalg.inv(a)
    (inv * T.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    facts += [inv.tolist(), _node(a.inverse()), [round(v, 6) for v in a.grad.reshape(-1).tolist()]]
    for bad in (T.tensor([[1.0, 2.0], [2.0, 4.0]]), T.ones(2, 3)):
        with pytest.raises(RuntimeError) as err:
            T.inverse(bad)
        facts.append(str(err.value))
    img = T.arange(70.0).reshape(1, 2, 5, 7).div(10).requires_grad_()
    for size in (1, (2, 3), (None, 2)):
        pooled = T.nn.functional.adaptive_avg_pool2d(img, size)
        facts += [pooled.reshape(-1).tolist(), _node(pooled)]
    (g,) = T.autograd.grad((pooled * pooled).sum(), img, create_graph=True)
    facts += [g[0, 0].tolist(), _node(g), repr(T.nn.AdaptiveAvgPool2d((None, 2)))]
    u = T.arange(12.0).reshape(2, 6).requires_grad_()
    facts += [tuple(u.unflatten(1, (3, -1)).shape), _node(u.unflatten(1, (2, 3)))]
    facts += [repr(T.nn.Unflatten(1, (2, 3))), tuple(T.nn.Unflatten(1, (3, 2))(u).shape)]
    with pytest.raises(RuntimeError) as err:
        u.unflatten(1, (4, 2))
    facts.append(str(err.value))
    gx, gy = T.meshgrid(u[0, :3], T.tensor([4.0, 5.0]), indexing="xy")
    facts += [gx.tolist(), gy.tolist(), _node(gx), gy.grad_fn]
    padded = T.nn.functional.pad(u, (1, -2, 1, 0), value=0.5)
    facts += [padded.tolist(), _node(padded)]
    for bad in ((1,), (-4, -4)):
        with pytest.raises(RuntimeError) as err:
            T.nn.functional.pad(u, bad)
        facts.append(str(err.value))
    acc = T.ones(3, requires_grad=True)
    put = T.zeros(5).index_put((T.tensor([0, 0, 2]),), acc, accumulate=True)
    put.sum().backward()
    facts += [put.tolist(), _node(put), acc.grad.tolist()]
    stacked = T.vstack([u[0], T.zeros(6)])
    facts += [stacked.tolist(), [type(f).__name__ for f, _ in stacked.grad_fn.next_functions[:1]]]
    facts += [T.hstack((T.tensor([1, 2]), T.tensor([3]))).tolist(), T.hstack([u, u]).shape[1]]
    rolled = x.roll((1, -1), (0, 1))
    facts += [rolled.tolist(), _node(rolled), x.roll(2).tolist()]
    return facts


def _losses(T: Any) -> list[Any]:
    F = T.nn.functional
    gen = T.Generator().manual_seed(0)
    logits = T.randn(4, 3, generator=gen).requires_grad_()
    ce = F.cross_entropy(logits, T.tensor([0, -100, 1, 2]))
    probs = T.softmax(T.randn(4, 3, generator=gen), 1)
    soft = F.cross_entropy(logits, probs, label_smoothing=0.1)
    facts: list[Any] = [round(ce.item(), 5), round(soft.item(), 5), _chain(soft)[:3]]
    facts.append([round(v, 5) for v in F.cross_entropy(logits, probs, reduction="none").tolist()])
    logp = F.log_softmax(logits, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for red in ("batchmean", "sum", "mean"):
            kl = F.kl_div(logp, probs, reduction=red)
            facts += [round(kl.item(), 5), _chain(kl)[:3]]
    kl = T.nn.KLDivLoss(reduction="batchmean", log_target=True)(logp, probs.log())
    kl.backward()
    facts += [round(kl.item(), 5), [round(v, 5) for v in logits.grad[0].tolist()]]
    pixels = T.randn(2, 3, 2, 2, generator=gen).requires_grad_()
    masks = T.tensor([[[0, 2], [1, 255]], [[2, 2], [0, 1]]])
    for red in ("mean", "none"):
        seg = F.cross_entropy(pixels, masks, ignore_index=255, reduction=red)
        facts += [[round(v, 5) for v in seg.reshape(-1).tolist()], _chain(seg)[:2]]
    seq = F.cross_entropy(pixels.reshape(2, 3, 4), masks.reshape(2, 4).clamp(max=2))
    seq.backward()
    facts += [
        round(seq.item(), 5),
        _chain(seq)[:3],
        [round(v, 5) for v in pixels.grad[0, 0, 0].tolist()],
    ]
    for bad in (masks[:, :1], masks[0]):
        with pytest.raises(RuntimeError) as err:
            F.cross_entropy(pixels, bad)
        facts.append(str(err.value))
    with warnings.catch_warnings(), pytest.raises(RuntimeError) as err:
        warnings.simplefilter("ignore")
        F.mse_loss(logits, T.zeros(4))
    facts.append(str(err.value))
    return facts


def _data(T: Any) -> list[Any]:
    buf = io.BytesIO()
    T.save({"step": T.tensor(3.0), "v": [T.tensor(2)]}, buf)
    buf.seek(0)
    loaded = T.load(buf)
    facts: list[Any] = [loaded["step"].shape == (), loaded["v"][0].ndim]
    batch = next(iter(T.utils.data.DataLoader([(1, 2.0), (3, 4.0)], batch_size=2)))
    facts += [type(batch).__name__, [t.tolist() for t in batch]]
    ds = T.utils.data.TensorDataset(T.arange(3))
    cat = T.utils.data.ConcatDataset([ds, ds])
    facts += [type(ds + ds).__name__, len(cat), cat.cumulative_sizes, cat[4][0].item()]
    w = T.nn.Parameter(T.ones(1))
    opt = T.optim.SGD([w], lr=0.1)
    sched = T.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=4)
    for _ in range(6):
        opt.step()
        sched.step()
        facts.append(sched.get_last_lr()[0])
    facts += [repr(T.finfo(T.float32)), T.finfo().eps, repr(T.iinfo(T.int32)), T.numel(T.ones(2))]
    facts += [T.tril_indices(3, 2, -1).tolist(), T.triu_indices(2, 3, offset=1).tolist()]
    weights = T.tensor([0.5, 1.0, 2.0])
    facts += [
        T.bincount(T.tensor([0, 1, 1]), weights=weights).tolist(),
        str(T.bincount(T.tensor([2])).dtype),
    ]
    facts += [
        T.count_nonzero(T.eye(3), dim=0).tolist(),
        T.tensor([[0, 1], [2, 3]]).count_nonzero(1).tolist(),
    ]
    arr = __import__("numpy").arange(3.0)
    t = T.as_tensor(arr)
    arr[0] = 9
    facts += [t.tolist(), T.as_tensor(t) is t, str(T.as_tensor([1, 2]).dtype)]
    facts += [T.ones(2).new_full((1, 2), 4.0).tolist(), str(T.ones(1).new_empty(2).dtype)]
    return facts


def test_unsupported_layers_say_so() -> None:
    assert not hasattr(engine.nn, "Conv3d")
    with pytest.raises(AttributeError, match=r"torch\.nn\.Conv3d \(these layers\) is not"):
        engine.nn.Conv3d()


FACTS = {"arith": _arith, "indexing": _indexing, "losses": _losses, "data": _data}


@pytest.mark.parametrize("name", FACTS)
def test_engine_runs_the_idiom(name: str) -> None:
    assert FACTS[name](engine)


@pytest.mark.parametrize("name", FACTS)
def test_idiom_matches_torch(name: str) -> None:
    torch = pytest.importorskip("torch")
    assert FACTS[name](engine) == FACTS[name](torch)


#: ``addmm``'s bias is expanded to the product's shape before anything is added, so a bias
#: that does not fit says what ``expand`` says (PyTorch 2.13's messages, written out).
ADDMM_BIAS = {
    ((3,), (2, 3), (4, 2)): "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x2)",
    ((3,), (2, 3), (3, 2)): "The expanded size of the tensor (2) must match the existing size "
    "(3) at non-singleton dimension 1.  Target sizes: [2, 2].  Tensor sizes: [3]",
    ((2, 3, 1), (2, 3), (3, 2)): "expand(torch.FloatTensor{[2, 3, 1]}, size=[2, 2]): the "
    "number of sizes provided (2) must be greater or equal to the number of dimensions in the "
    "tensor (3)",
    ((5, 1), (2, 3), (3, 2)): "The expanded size of the tensor (2) must match the existing size "
    "(5) at non-singleton dimension 0.  Target sizes: [2, 2].  Tensor sizes: [5, 1]",
    ((1,), (2, 3), (3, 2)): None,
}


@pytest.mark.parametrize("shapes", ADDMM_BIAS, ids=str)
def test_addmm_checks_its_bias_as_expand_does(shapes: tuple[tuple[int, ...], ...]) -> None:
    bias, mat1, mat2 = (engine.ones(*s) for s in shapes)
    message = ADDMM_BIAS[shapes]
    if message is None:
        assert engine.addmm(bias, mat1, mat2).shape == (mat1.shape[0], mat2.shape[1])
        return
    with pytest.raises(RuntimeError) as err:
        engine.addmm(bias, mat1, mat2)
    assert str(err.value) == message


@pytest.mark.torch
@pytest.mark.parametrize("shapes", ADDMM_BIAS, ids=str)
def test_the_addmm_messages_are_pytorchs(shapes: tuple[tuple[int, ...], ...]) -> None:
    torch = pytest.importorskip("torch")
    bias, mat1, mat2 = (torch.ones(*s) for s in shapes)
    message = ADDMM_BIAS[shapes]
    if message is None:
        torch.addmm(bias, mat1, mat2)
        return
    with pytest.raises(RuntimeError) as err:
        torch.addmm(bias, mat1, mat2)
    assert str(err.value) == message


def _graph(fn: Any, depth: int = 0) -> list[str]:
    if fn is None:
        return []
    out = ["  " * depth + type(fn).__name__]
    for f, _ in fn.next_functions:
        out += _graph(f, depth + 1)
    return out


#: ``F.linear`` as ATen's ``linear`` builds it (PyTorch 2.13's graphs, written out): a
#: contiguous N-d input is flattened before ``weight.t()``, a strided one goes through
#: ``matmul`` with the bias added in place.
LINEAR_GRAPHS = {
    (2, 5, 4): "ViewBackward0 AddmmBackward0 AccumulateGrad ViewBackward0 AccumulateGrad "
    "TBackward0 AccumulateGrad",
    (4,): "ViewBackward0 AddmmBackward0 AccumulateGrad ViewBackward0 AccumulateGrad TBackward0 "
    "AccumulateGrad",
    (5, 2, 4): "AddBackward0 UnsafeViewBackward0 MmBackward0 UnsafeViewBackward0 CloneBackward0 "
    "TransposeBackward0 AccumulateGrad TBackward0 AccumulateGrad AccumulateGrad",
}


@pytest.mark.parametrize("shape", LINEAR_GRAPHS, ids=str)
def test_linear_builds_atens_graph(shape: tuple[int, ...]) -> None:
    w = engine.ones(2, 4, requires_grad=True)
    b = engine.ones(2, requires_grad=True)
    x = engine.ones(*shape, requires_grad=True)
    if shape == (5, 2, 4):
        x = x.transpose(0, 1)  # not contiguous
    y = engine.nn.functional.linear(x, w, b)
    assert " ".join(n.strip() for n in _graph(y.grad_fn)) == LINEAR_GRAPHS[shape]


def test_linear_of_a_3d_input_runs_backward_in_atens_order() -> None:
    """The weight's ``TBackward0`` is newer than the input's view, so it runs first."""
    w = engine.ones(2, 4, requires_grad=True)
    y = engine.nn.functional.linear(engine.ones(2, 5, 4, requires_grad=True), w, engine.ones(2))
    order: list[str] = []

    def watch(fn: Any) -> None:
        if fn is not None:
            name = type(fn).__name__
            fn.register_prehook(lambda g, n=name: order.append(n))
            for f, _ in fn.next_functions:
                watch(f)

    watch(y.grad_fn)
    y.sum().backward()
    assert order == [
        "ViewBackward0",
        "AddmmBackward0",
        "TBackward0",
        "AccumulateGrad",
        "ViewBackward0",
        "AccumulateGrad",
    ]


def test_broadcast_to_as_a_method_takes_spread_sizes() -> None:
    x = engine.ones(1, 3, requires_grad=True)
    assert x.broadcast_to(2, -1).shape == (2, 3)
    assert type(x.broadcast_to(size=(2, 3)).grad_fn).__name__ == "ExpandBackward0"
    with pytest.raises(TypeError):
        engine.broadcast_to(x, 2, 3)


#: Arithmetic edge cases as PyTorch 2.13 computes them (written out): a float remainder
#: keeps ``fmod``'s signed zero, a Python int beyond an integer tensor's range wraps as
#: ATen casts a Scalar, and overflow gives ``inf`` without a warning.
ARITHMETIC = [
    ("torch.arange(-4., 4) % 3", [2.0, -0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0], "float32"),
    ("torch.arange(-4., 4) % -3", [-1.0, -0.0, -2.0, -1.0, 0.0, -2.0, -1.0, 0.0], "float32"),
    ("torch.tensor([5.5, -5.5, 0., -0.]) % 2", [1.5, 0.5, 0.0, -0.0], "float32"),
    ("torch.tensor([1., -1.]) % torch.tensor([0., 2.])", [float("nan"), 1.0], "float32"),
    ("torch.tensor([1, 2], dtype=torch.int8) * 200", [-56, -112], "int8"),
    ("torch.tensor([1, 2], dtype=torch.int8) + 300", [45, 46], "int8"),
    ("torch.tensor([1, 2], dtype=torch.uint8) * -1", [255, 254], "uint8"),
    ("torch.tensor([1, 2], dtype=torch.int32) * 2**33", [0, 0], "int32"),
    ("torch.tensor([1, 2], dtype=torch.int8).add_(200)", [-55, -54], "int8"),
    ("torch.tensor([65504.0], dtype=torch.float16) * 2", [float("inf")], "float16"),
    ("torch.tensor([1e40]).float()", [float("inf")], "float32"),
]


def _bits(values: list[Any]) -> list[tuple[bool, str]]:
    """Values told apart by sign too (``0.0`` from ``-0.0``); a NaN is a NaN."""
    import math

    return [
        (False, "nan")
        if isinstance(v, float) and math.isnan(v)
        else (math.copysign(1, v) < 0, repr(v))
        for v in values
    ]


@pytest.mark.parametrize(("line", "values", "dtype"), ARITHMETIC, ids=[a[0] for a in ARITHMETIC])
def test_arithmetic_edges_match_pytorch(line: str, values: list[Any], dtype: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = eval(line, {"torch": engine})
    assert str(r.dtype).rsplit(".", 1)[-1] == dtype
    assert _bits(r.tolist()) == _bits(values)


@pytest.mark.torch
@pytest.mark.parametrize(("line", "values", "dtype"), ARITHMETIC, ids=[a[0] for a in ARITHMETIC])
def test_the_written_arithmetic_is_pytorchs(line: str, values: list[Any], dtype: str) -> None:
    torch = pytest.importorskip("torch")
    r = eval(line, {"torch": torch})
    assert str(r.dtype).rsplit(".", 1)[-1] == dtype
    assert _bits(r.tolist()) == _bits(values)
