"""Activations with PyTorch's bits where ATen's kernels fix them, found by differential
testing: ``elu`` keeps ``-0.0``, ``softplus``'s
backward is ``g * z / (z + 1)``, ``gelu`` runs ATen's kernel in the input's precision
(a large negative input gives ``-0.0``).  PyTorch 2.13's answers are written out; a live
oracle checks float64, where no float32 transcendental rounding is involved."""

from __future__ import annotations

import numpy as np
import pytest

import engine

F = engine.nn.functional


def _hex(t: engine.Tensor) -> list[str]:
    return [float(v).hex() for v in np.asarray(t.detach().numpy(), np.float64).reshape(-1)]


def test_elu_keeps_negative_zero() -> None:
    """``expm1(-0.0)`` is ``-0.0``; the engine clamped with ``minimum(x, 0)``, which gave
    ``+0.0``."""
    x = engine.tensor([-0.0, 0.0, 2.0], requires_grad=True)
    y = F.elu(x)
    y.backward(engine.ones(3))
    assert _hex(y) == ["-0x0.0p+0", "0x0.0p+0", "0x1.0000000000000p+1"]
    assert _hex(x.grad) == ["0x1.0000000000000p+0"] * 3


#: (beta, threshold): the float64 gradient PyTorch 2.13 gives for ``_SOFTPLUS_X``/``_G``.
_SOFTPLUS_X = [-3.7, -0.25, 0.0, 0.6, 1.9, 7.5]
_SOFTPLUS_G = [0.3, -1.1, 0.7, 1.3, -0.45, 2.2]
SOFTPLUS = {
    (1.0, 20.0): "0x1.da5b4661b2c7ep-8 -0x1.ed2a156c826adp-2 0x1.6666666666666p-2 "
    "0x1.adbfb3cf35a04p-1 -0x1.90d894709f0a0p-2 0x1.1971c01ad0d40p+1",
    (2.0, 5.0): "0x1.805501f51e41ep-13 -0x1.a94305efc04f6p-2 0x1.6666666666666p-2 "
    "0x1.ff87b45d5d20bp-1 -0x1.c2b7948b482c7p-2 0x1.199999999999ap+1",
    (0.5, 20.0): "0x1.4debd5d70aa80p-5 -0x1.0805db86117ecp-1 0x1.6666666666666p-2 "
    "0x1.7e59541428a81p-1 -0x1.4c4a352f436abp-2 0x1.13212bac0ea36p+1",
}


@pytest.mark.parametrize("params", list(SOFTPLUS), ids=[str(p) for p in SOFTPLUS])
def test_softplus_backward_is_atens_kernel(params: tuple) -> None:
    beta, threshold = params
    v = engine.tensor(_SOFTPLUS_X, dtype=engine.float64, requires_grad=True)
    F.softplus(v, beta=beta, threshold=threshold).backward(
        engine.tensor(_SOFTPLUS_G, dtype=engine.float64)
    )
    assert _hex(v.grad) == SOFTPLUS[params].split()


def test_gelu_of_a_large_negative_float32_is_negative_zero() -> None:
    """Computed in float64 and rounded at the end, these were tiny negative numbers."""
    w = engine.tensor([-7.0, -6.0, -10.0, 0.75, -1.25, 3.0])
    assert _hex(F.gelu(w))[:3] == ["-0x0.0p+0"] * 3
    tanh = F.gelu(w, approximate="tanh")
    assert _hex(tanh) == [
        "-0x0.0p+0",
        "-0x0.0p+0",
        "-0x0.0p+0",
        "0x1.28f0980000000p-1",
        "-0x1.0eebdc0000000p-3",
        "0x1.7f88d00000000p+1",
    ]


def test_gelu_tanh_backward_of_a_large_negative_float32_is_zero() -> None:
    w = engine.tensor([-7.0, -6.0, -10.0], requires_grad=True)
    F.gelu(w, approximate="tanh").backward(engine.ones(3))
    assert _hex(w.grad) == ["0x0.0p+0"] * 3


# -- the live oracle ------------------------------------------------------------------------
def _run(lib: object, name: str, kw: dict, x: np.ndarray, g: np.ndarray) -> tuple:
    a = lib.tensor(x, requires_grad=True)
    out = getattr(lib.nn.functional, name)(a, **kw)
    out.backward(lib.tensor(g))
    return type(out.grad_fn).__name__, out.detach().numpy(), a.grad.numpy()


@pytest.mark.torch
@pytest.mark.parametrize(
    ("name", "kw"),
    [
        ("softplus", {}),
        ("softplus", {"beta": 2.0, "threshold": 5.0}),
        ("softplus", {"beta": 0.5}),
        ("elu", {"alpha": 0.5}),
        ("leaky_relu", {"negative_slope": 0.2}),
        ("hardtanh", {"min_val": -2.0, "max_val": 0.5}),
        ("relu", {}),
        ("silu", {}),
        ("logsigmoid", {}),
    ],
)
def test_float64_activations_agree_with_torch(name: str, kw: dict) -> None:
    """Signs of zeros and NaN exactly; values within the ulps by which float64
    ``exp``/``log1p``/``tanh`` of the C library and of SLEEF may differ."""
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (the live oracle)")
    rng = np.random.default_rng(11)
    x = rng.standard_normal(64) * 4
    x[:7] = [0.0, -0.0, 1e-300, -1e-300, 30.0, -30.0, np.nan]
    g = rng.standard_normal(64)
    ours, theirs = _run(engine, name, kw, x, g), _run(torch, name, kw, x, g)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1:], theirs[1:], strict=True):
        assert np.array_equal(np.isnan(a), np.isnan(b))
        assert np.array_equal(np.signbit(a[a == 0]), np.signbit(b[a == 0]))
        np.testing.assert_array_max_ulp(a[~np.isnan(a)], b[~np.isnan(b)], maxulp=16)
