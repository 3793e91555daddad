"""The pointwise losses of ``F`` with PyTorch's bits, found by differential testing:
reductions summed in ATen's cascade, empty inputs, ``smooth_l1_loss(beta=0)`` as
``l1_loss``, the ``weight`` of mse/l1/Huber, broadcast targets, ``kl_div`` with a target
that requires grad, and BCE's float ``EPSILON``.  PyTorch 2.13's answers are written out
(as ``float.hex``); a live oracle covers the same calls with random inputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import engine

F = engine.nn.functional


def _data(n: int, dt: type = np.float32) -> np.ndarray:
    """Values of many magnitudes, so that the order of the additions shows in the bits."""
    i = np.arange(n)
    return (((i * 0.37) % 1.9 - 0.8) * 10.0 ** ((i % 7) - 3)).astype(dt)


def _hex(t: engine.Tensor) -> list[str]:
    return [float(v).hex() for v in np.asarray(t.detach().numpy(), np.float64).reshape(-1)]


def _pair(lib: object, scale: float = 1.0) -> tuple:
    x = lib.tensor(_data(40) * np.float32(scale))
    y = lib.tensor(_data(40)[::-1] * np.float32(scale))
    return x, y


def _call(lib: object, name: str, reduction: str) -> object:
    f = lib.nn.functional
    if name == "mse":
        return f.mse_loss(*_pair(lib), reduction=reduction)
    if name == "smooth":
        return f.smooth_l1_loss(*_pair(lib, 1000.0), reduction=reduction, beta=0.5)
    if name == "huber":
        return f.huber_loss(*_pair(lib, 1000.0), reduction=reduction, delta=2.0)
    x, y = _pair(lib)
    return f.binary_cross_entropy_with_logits(x, (y.abs() * 100).clamp(0, 1), reduction=reduction)


#: (loss, reduction): PyTorch 2.13's float32 loss; NumPy's pairwise sum differs in the
#: last bits (mse mean was 0x1.d02cf8p+15 before).
REDUCED = [
    (("mse", "mean"), "0x1.d02cfa0000000p+15"),
    (("mse", "sum"), "0x1.221c1c0000000p+21"),
    (("smooth", "mean"), "0x1.af0cca0000000p+16"),
    (("smooth", "sum"), "0x1.0d67fe0000000p+22"),
    (("huber", "mean"), "0x1.af0c0a0000000p+17"),
    (("huber", "sum"), "0x1.0d67860000000p+23"),
    (("bcel", "mean"), "0x1.6bef3e0000000p+4"),
    (("bcel", "sum"), "0x1.c6eb0e0000000p+9"),
]


@pytest.mark.parametrize(("case", "expected"), REDUCED, ids=["-".join(c) for c, _ in REDUCED])
def test_reduced_losses_are_summed_as_aten_sums_them(case: tuple, expected: str) -> None:
    assert _hex(_call(engine, *case)) == [expected]


@pytest.mark.parametrize(
    ("name", "grad_fn"),
    [
        ("mse_loss", "MseLossBackward0"),
        ("smooth_l1_loss", "SmoothL1LossBackward0"),
        ("huber_loss", "HuberLossBackward0"),
        ("l1_loss", "MeanBackward0"),
    ],
)
def test_an_empty_mean_is_nan_with_an_empty_gradient(name: str, grad_fn: str) -> None:
    a = engine.zeros(0, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss = getattr(F, name)(a, engine.zeros(0))
        loss.backward()
    assert np.isnan(loss.item())
    assert tuple(a.grad.shape) == (0,)
    assert type(loss.grad_fn).__name__ == grad_fn


def test_smooth_l1_with_beta_zero_is_l1_loss() -> None:
    a = engine.tensor([1.0, 2.0, -3.0], requires_grad=True)
    b = engine.tensor([1.0, 0.0, -3.0], requires_grad=True)
    loss = F.smooth_l1_loss(a, b, beta=0.0)
    loss.backward()
    assert type(loss.grad_fn).__name__ == "MeanBackward0"
    assert _hex(loss) == ["0x1.5555560000000p-1"]
    assert _hex(a.grad) == ["0x0.0p+0", "0x1.5555560000000p-2", "0x0.0p+0"]
    assert _hex(b.grad) == ["-0x0.0p+0", "-0x1.5555560000000p-2", "-0x0.0p+0"]
    with pytest.raises(RuntimeError, match=r"^smooth_l1_loss does not support negative values"):
        F.smooth_l1_loss(a, b, beta=-1.0)


#: (loss, reduction): grad_fn, loss and input gradient of the summed loss, PyTorch 2.13.
WEIGHTED = {
    ("mse_loss", "mean"): (
        "DivBackward0",
        ["0x1.8e739c0000000p+0"],
        [
            "0x1.0842100000000p-3",
            "-0x1.0842100000000p+0",
            "0x1.0842100000000p-2",
            "0x1.0842100000000p-5",
            "0x1.8c63180000000p-2",
            "-0x1.0842100000000p-2",
        ],
    ),
    ("mse_loss", "none"): (
        "MulBackward0",
        [
            "0x1.0000000000000p-2",
            "0x1.0000000000000p+3",
            "0x1.0000000000000p+1",
            "0x1.0000000000000p-4",
            "0x1.8000000000000p-1",
            "0x1.0000000000000p+0",
        ],
        [
            "0x1.0000000000000p+0",
            "-0x1.0000000000000p+3",
            "0x1.0000000000000p+1",
            "0x1.0000000000000p-2",
            "0x1.8000000000000p+1",
            "-0x1.0000000000000p+1",
        ],
    ),
    ("l1_loss", "mean"): (
        "DivBackward0",
        ["0x1.0c63180000000p+0"],
        [
            "0x1.0842100000000p-3",
            "-0x1.0842100000000p-2",
            "0x1.0842100000000p-4",
            "0x1.0842100000000p-5",
            "0x1.8c63180000000p-2",
            "-0x1.0842100000000p-3",
        ],
    ),
    ("l1_loss", "sum"): (
        "SumBackward0",
        ["0x1.0400000000000p+3"],
        [
            "0x1.0000000000000p+0",
            "-0x1.0000000000000p+1",
            "0x1.0000000000000p-1",
            "0x1.0000000000000p-2",
            "0x1.8000000000000p+1",
            "-0x1.0000000000000p+0",
        ],
    ),
    ("huber_loss", "mean"): (
        "MeanBackward0",
        ["0x1.9800000000000p-1"],
        [
            "0x1.5555560000000p-4",
            "-0x1.5555560000000p-2",
            "0x1.5555560000000p-4",
            "0x1.5555560000000p-6",
            "0x1.0000000000000p-2",
            "-0x1.5555560000000p-3",
        ],
    ),
    ("huber_loss", "sum"): (
        "SumBackward0",
        ["0x1.3200000000000p+2"],
        [
            "0x1.0000000000000p-1",
            "-0x1.0000000000000p+1",
            "0x1.0000000000000p-1",
            "0x1.0000000000000p-3",
            "0x1.8000000000000p+0",
            "-0x1.0000000000000p+0",
        ],
    ),
}


def _weighted_inputs(lib: object) -> tuple:
    a = lib.tensor([[0.5, -1.0, 3.0], [2.0, 0.25, -0.5]], requires_grad=True)
    t = lib.tensor([[0.0, 1.0, 1.0], [1.5, -0.25, 0.5]])
    w = lib.tensor([[1.0, 2.0, 0.5], [0.25, 3.0, 1.0]])
    return a, t, w


@pytest.mark.parametrize("case", list(WEIGHTED), ids=["-".join(c) for c in WEIGHTED])
def test_weighted_losses_compose_as_functional_does(case: tuple) -> None:
    """``huber_loss(weight=...)`` used to ignore the weight; mse and l1 had no ``weight``."""
    name, reduction = case
    a, t, w = _weighted_inputs(engine)
    loss = getattr(F, name)(a, t, reduction=reduction, weight=w)
    loss.sum().backward()
    grad_fn, value, grad = WEIGHTED[case]
    assert type(loss.grad_fn).__name__ == grad_fn
    assert _hex(loss) == value
    assert _hex(a.grad) == grad


def test_a_weight_of_another_size_is_refused() -> None:
    a, t, w = _weighted_inputs(engine)
    with pytest.raises(ValueError, match=r"^Weights and input must have the same size\.$"):
        F.mse_loss(a, t, weight=w[0])


@pytest.mark.parametrize("name", ["l1_loss", "smooth_l1_loss", "huber_loss"])
def test_a_smaller_target_is_broadcast_after_a_warning(name: str) -> None:
    a = engine.tensor([[1.0, 2.0], [0.5, -1.0]], requires_grad=True)
    with pytest.warns(UserWarning, match=r"^Using a target size \(torch.Size\(\[2\]\)\)") as rec:
        loss = getattr(F, name)(a, engine.tensor([0.25, 1.5]))
    assert rec[0].filename == __file__
    loss.backward()
    expected = {
        "l1_loss": (["0x1.0000000000000p+0"], ["0x1.0000000000000p-2"] * 3),
        "smooth_l1_loss": (
            ["0x1.3800000000000p-1"],
            ["0x1.8000000000000p-3", "0x1.0000000000000p-3", "0x1.0000000000000p-4"],
        ),
    }
    value, grad = expected.get(name, expected["smooth_l1_loss"])
    assert _hex(loss) == value
    assert _hex(a.grad)[:3] == grad
    assert _hex(a.grad)[3] == "-0x1.0000000000000p-2"


def test_kl_div_differentiates_a_probability_target() -> None:
    """It raised NotImplementedError; PyTorch composes ``xlogy(t, t) - t * input``."""
    x = engine.tensor([-1.0, -0.5, -2.0], dtype=engine.float64, requires_grad=True)
    q = engine.tensor([0.25, 0.0, 0.75], dtype=engine.float64, requires_grad=True)
    loss = F.kl_div(x, q, reduction="sum")
    loss.backward()
    assert type(loss.grad_fn).__name__ == "SumBackward0"
    assert type(loss.grad_fn.next_functions[0][0]).__name__ == "SubBackward0"
    assert _hex(loss) == ["0x1.300acdd078859p+0"]
    assert _hex(x.grad) == ["-0x1.0000000000000p-2", "-0x0.0p+0", "-0x1.8000000000000p-1"]
    assert _hex(q.grad) == ["0x1.3a37a020b8c22p-1", "nan", "0x1.5b2d3bdd9648ep+1"]


def test_bce_backward_floors_at_the_float_epsilon() -> None:
    """ATen's ``EPSILON`` is a float: a float64 input at 0 or 1 is divided by
    ``float(1e-12)`` widened, not by the double ``1e-12``."""
    p = engine.tensor([0.0, 1e-30, 1.0, 0.5], dtype=engine.float64, requires_grad=True)
    t = engine.tensor([0.25, 0.5, 0.75, 1.0], dtype=engine.float64)
    F.binary_cross_entropy(p, t, reduction="sum").backward()
    assert _hex(p.grad) == [
        "-0x1.d1a94a3f379b1p+37",
        "-0x1.d1a94a3f379b1p+38",
        "0x1.d1a94a3f379b1p+37",
        "-0x1.0000000000000p+1",
    ]


# -- the live oracle ------------------------------------------------------------------------
def _torch() -> object:
    return pytest.importorskip("torch", reason="PyTorch is not installed (the live oracle)")


def _run(lib: object, name: str, args: list[np.ndarray], kw: dict) -> tuple:
    tensors = [lib.tensor(a, requires_grad=i < 2) for i, a in enumerate(args)]
    loss = getattr(lib.nn.functional, name)(
        *tensors[:2], **kw, **dict(zip(("weight",), tensors[2:]))
    )
    g = np.linspace(-1.5, 2.0, loss.numel()).reshape(tuple(loss.shape)).astype(args[0].dtype)
    loss.backward(lib.tensor(g))
    return (
        type(loss.grad_fn).__name__,
        loss.detach().numpy().tobytes(),
        tensors[0].grad.numpy().tobytes(),
        tensors[1].grad.numpy().tobytes(),
    )


@pytest.mark.torch
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(
    ("name", "kw"),
    [
        ("mse_loss", {}),
        ("l1_loss", {}),
        ("smooth_l1_loss", {"beta": 0.5}),
        ("smooth_l1_loss", {"beta": 0.0}),
        ("huber_loss", {"delta": 2.0}),
        ("mse_loss", {"weighted": True}),
        ("huber_loss", {"weighted": True}),
    ],
)
def test_pointwise_losses_agree_with_torch(name: str, kw: dict, reduction: str, dt: type) -> None:
    torch = _torch()
    rng = np.random.default_rng(7)
    kw = dict(kw)
    args = [rng.standard_normal((4, 5, 6)).astype(dt) * 3 for _ in range(2)]
    args[1][0, 0, :3] = args[0][0, 0, :3]  # ties: the gradient's zero and its sign
    if kw.pop("weighted", False):
        args.append(rng.uniform(0.1, 2.0, (4, 5, 6)).astype(dt))
    kw["reduction"] = reduction
    assert _run(engine, name, args, kw) == _run(torch, name, args, kw)
