"""Gaps a fifth held-out census of public learner programs found (hunkim/PyTorchZeroToAll,
L1aoXingyu/code-of-learn-deep-learning-with-pytorch, pytorch/tutorials,
bentrevett/pytorch-seq2seq), each pinned by what PyTorch 2.13 gives: expected values written
out where they do not depend on the host, and a live comparison against torch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine
from engine import transcendental

#: ``torch.sigmoid(torch.linspace(-9, 9, 40))``'s float32 bits under PyTorch 2.13: 32
#: elements through the vector lambda (two AVX-512 steps or four AVX2 ones) and 8 scalar.
SIGMOID_BITS = [
    0x3901637B, 0x394D4304, 0x39A2CE77, 0x3A011FB5, 0x3A4CCC26, 0x3AA261EE, 0x3B00B7AB,
    0x3B4BFA16, 0x3BA182D9, 0x3BFF8040, 0x3C49C14E, 0x3C9EE55B, 0x3CF9413E, 0x3D4241A2,
    0x3D95ECC3, 0x3DE410C3, 0x3E29D296, 0x3E758ACA, 0x3EAAC320, 0x3EE29789, 0x3F0EB43C,
    0x3F2A9E71, 0x3F429D4D, 0x3F558B5B, 0x3F637DE8, 0x3F6D4268, 0x3F73DBE6, 0x3F7835F5,
    0x3F7B08D5, 0x3F7CD8FC, 0x3F7E0100, 0x3F7EBCFA, 0x3F7F3405, 0x3F7F7F49, 0x3F7FAED0,
    0x3F7FCCCC, 0x3F7FDFB8, 0x3F7FEBA6, 0x3F7FF32D, 0x3F7FF7EA,
]  # fmt: skip


def test_sigmoid_rounds_as_pytorchs_cpu_kernel() -> None:
    """An LSTM's gates (the PyTorch tutorial's LSTM tagger, hunkim's pack_pad lesson) go
    through ``sigmoid``: NumPy's float32 exp put a sixth of its values an ulp off."""
    x = engine.linspace(-9, 9, 40)
    got = engine.sigmoid(x).numpy().view(np.uint32).tolist()
    assert got == SIGMOID_BITS


def test_sleef_exp_is_not_the_correctly_rounded_exp() -> None:
    """The vector lambda's exp differs from libm's on some inputs (why the split matters)."""
    x = np.linspace(-20, 20, 4001, dtype=np.float32)
    sleef = transcendental.sleef_expf_u10(x)
    exact = np.exp(x.astype(np.float64)).astype(np.float32)
    ulps = np.abs(sleef.view(np.int32) - exact.view(np.int32))
    assert ulps.max() == 1 and 0 < (ulps == 1).sum() < 800


def _layouts(lib: Any) -> list[Any]:
    """Inputs whose elements split differently between the vector and scalar lambdas."""
    lib.manual_seed(0)
    base = lib.randn(7, 50, 9) * 3
    return [lib.randn(n) * 3 for n in (1, 15, 16, 31, 32, 33, 77, 1000, 40000)] + [
        base,
        base.transpose(0, 2),
        base[:, 3:40],
        base[:, :, 2:7],
        base[::2],
        lib.randn(3, 20)[:, 5:10],
        lib.randn(2, 1, 70),
    ]


def test_sigmoid_matches_torch_bit_for_bit_on_every_layout() -> None:
    """Dense inputs in memory order (split between threads above ``GRAIN``), views by
    their innermost contiguous runs, as ATen's TensorIterator walks them."""
    torch = pytest.importorskip("torch")
    for t in _layouts(torch):
        view = engine.from_numpy(t.numpy())  # NumPy's view keeps the tensor's strides
        assert view.stride() == t.stride()
        got = engine.sigmoid(view).numpy()
        assert np.array_equal(got, torch.sigmoid(t).numpy()), (tuple(t.shape), t.stride())


def test_lstm_gates_match_torch_with_a_small_hidden_size() -> None:
    """Hidden size 5: every gate element takes the scalar lambda, and the products are
    small enough that no sgemm order shows (hunkim's 13_4_pack_pad.py)."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    g = torch.randn(11, 3, 20)
    want = torch.sigmoid(g.chunk(4, 2)[1]).numpy()
    got = engine.sigmoid(engine.from_numpy(g.numpy()).chunk(4, 2)[1]).numpy()
    assert np.array_equal(got, want)


class _Exp:
    """The forward-AD tutorial's ``Fn``: a ``jvp`` and no ``backward``; ``scale`` spoils it."""

    @staticmethod
    def make(lib: Any, scale: float) -> Any:
        class Fn(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, foo: Any) -> Any:
                result = lib.exp(foo)
                ctx.result = result
                return result

            @staticmethod
            def jvp(ctx: Any, g: Any) -> Any:
                return g * ctx.result * scale

        return Fn


def _forward_gradcheck(lib: Any, scale: float) -> list[str]:
    out = []
    p = lib.tensor([0.5, -1.25], dtype=lib.float64, requires_grad=True)
    fn = _Exp.make(lib, scale).apply
    kwargs = dict(
        check_forward_ad=True,
        check_backward_ad=False,
        check_undefined_grad=False,
        check_batched_grad=False,
    )
    try:
        out.append(str(lib.autograd.gradcheck(fn, (p,), **kwargs)))
    except Exception as exc:  # the type and words are what is compared
        out.append(f"{type(exc).__name__}: {exc}")
    out.append(str(lib.autograd.gradcheck(fn, (p,), raise_exception=False, **kwargs)))
    out.append(str(lib.autograd.gradcheck(lib.sin, (p,), check_forward_ad=True)))
    return out


def test_gradcheck_checks_forward_mode() -> None:
    """``gradcheck(..., check_forward_ad=True, check_backward_ad=False, ...)`` as the
    forward-AD tutorial checks its custom Function: PyTorch's keywords, its verdict, and
    its message for a wrong ``jvp``."""
    assert _forward_gradcheck(engine, 1.0) == ["True", "True", "True"]
    wrong = _forward_gradcheck(engine, 1.01)
    assert wrong[0].startswith(
        "GradcheckError: Jacobian computed with forward mode mismatch for output 0 with "
        "respect to input 0,\nnumerical:tensor([[1.6487, 0.0000],"
    )
    assert wrong[1:] == ["False", "True"]


@pytest.mark.filterwarnings(
    "ignore::DeprecationWarning"
)  # torch's make_dual loads its jit decompositions
def test_gradcheck_forward_mode_as_torch() -> None:
    torch = pytest.importorskip("torch")
    for scale in (1.0, 1.01):
        assert _forward_gradcheck(engine, scale) == _forward_gradcheck(torch, scale)


def _gumbel(lib: Any) -> tuple[list[str], list[Any]]:
    """``F.gumbel_softmax``, soft and hard (a VAE with discrete latents samples so): the
    same draws from the seeded generator, the straight-through graph, its gradient."""
    lib.manual_seed(0)
    x = lib.randn(2, 4, requires_grad=True)
    hard = lib.nn.functional.gumbel_softmax(x, tau=0.5, hard=True)
    soft = lib.nn.functional.gumbel_softmax(x, tau=2.0, dim=0)
    (hard * lib.arange(4.0)).sum().backward()
    names = [type(t.grad_fn).__name__ for t in (hard, soft)]
    return names, [t.detach().tolist() for t in (hard, soft, x.grad)]


def test_gumbel_softmax_is_pytorchs() -> None:
    """Values to float32's last bits (a softmax along dim 0 may round one element an
    ulp away, as any of the engine's softmaxes off the last dim)."""
    torch = pytest.importorskip("torch")
    (names, got), (want_names, want) = _gumbel(engine), _gumbel(torch)
    assert names == want_names == ["AddBackward0", "SoftmaxBackward0"]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)


#: ``torch.softmax`` and ``torch.log_softmax`` of ``torch.linspace(-6, 6, 35).reshape(5, 7)``
#: over the last dim, their float32 bits under PyTorch 2.13: rows shorter than a register,
#: so the same on every host (their sums run element after element).
SOFTMAX_BITS = [
    0x3D2015AC, 0x3D63D70C, 0x3DA222ED, 0x3DE6C29E, 0x3E2436E4, 0x3E69B7C3, 0x3EA651B2,
    0x3D2015AC, 0x3D63D710, 0x3DA222ED, 0x3DE6C29E, 0x3E2436E7, 0x3E69B7C2, 0x3EA651B2,
    0x3D2015B0, 0x3D63D714, 0x3DA222EE, 0x3DE6C29F, 0x3E2436E6, 0x3E69B7C0, 0x3EA651B1,
    0x3D2015AC, 0x3D63D70F, 0x3DA222EA, 0x3DE6C29E, 0x3E2436E4, 0x3E69B7C0, 0x3EA651B2,
    0x3D2015AC, 0x3D63D70C, 0x3DA222ED, 0x3DE6C29E, 0x3E2436E4, 0x3E69B7C3, 0x3EA651B2,
]  # fmt: skip

LOG_SOFTMAX_BITS = [
    0xC04F7DF8, 0xC038E762, 0xC02250CA, 0xC00BBA34, 0xBFEA473B, 0xBFBD1A0B, 0xBF8FECDF,
    0xC04F7DF8, 0xC038E761, 0xC02250CA, 0xC00BBA34, 0xBFEA473A, 0xBFBD1A0D, 0xBF8FECE0,
    0xC04F7DF6, 0xC038E760, 0xC02250C9, 0xC00BBA34, 0xBFEA473A, 0xBFBD1A0D, 0xBF8FECE0,
    0xC04F7DF8, 0xC038E761, 0xC02250CA, 0xC00BBA34, 0xBFEA473B, 0xBFBD1A0D, 0xBF8FECDF,
    0xC04F7DF8, 0xC038E762, 0xC02250CA, 0xC00BBA34, 0xBFEA473B, 0xBFBD1A0B, 0xBF8FECDF,
]  # fmt: skip


def test_softmax_and_log_softmax_round_as_atens_last_dim_kernels() -> None:
    """ATen's ``_vec_softmax_lastdim`` and ``_vec_log_softmax_lastdim``: SLEEF's exp, the
    row sums in ``vec::reduce_all``'s order (NumPy's exp and pairwise sum put half of the
    softmax values an ulp off), then the reciprocal's product, or the log's difference."""
    x = engine.linspace(-6, 6, 35).reshape(5, 7)
    assert engine.softmax(x, -1).numpy().view(np.uint32).ravel().tolist() == SOFTMAX_BITS
    assert engine.log_softmax(x, -1).numpy().view(np.uint32).ravel().tolist() == LOG_SOFTMAX_BITS


@pytest.mark.parametrize("shape", [(64, 10), (8, 100), (4, 1000), (16, 33), (2, 3, 5, 17)])
def test_softmaxes_and_their_gradients_are_pytorchs_bits(shape: tuple[int, ...]) -> None:
    """Rows longer than a register too, whose sums go lane by lane then fold in halves
    (16 lanes with AVX-512, 8 with AVX2: the engine reads the host as PyTorch does).
    ``log_softmax``'s log is the correctly rounded one where ATen's is SLEEF's: within
    an ulp, so its values are compared to one ulp and its gradient from PyTorch's output."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    x, g = torch.randn(*shape) * 3, torch.randn(*shape)
    mine = engine.tensor(x.numpy(), requires_grad=True)
    theirs = x.clone().requires_grad_()
    (engine.softmax(mine, -1) * engine.tensor(g.numpy())).sum().backward()
    (torch.softmax(theirs, -1) * g).sum().backward()
    assert np.array_equal(engine.softmax(mine, -1).detach().numpy(), torch.softmax(x, -1).numpy())
    assert np.array_equal(mine.grad.numpy(), theirs.grad.numpy())
    want = torch.log_softmax(x, -1).numpy()
    got = engine.log_softmax(engine.tensor(x.numpy()), -1).numpy()
    assert np.abs(got.view(np.int32) - want.view(np.int32)).max() <= 1
    y = torch.log_softmax(theirs, -1)
    (want_grad,) = torch.autograd.grad(y, theirs, g)
    got_grad = transcendental.log_softmax_backward_lastdim_f32(g.numpy(), y.detach().numpy())
    assert np.array_equal(got_grad, want_grad.numpy())


def test_binary_cross_entropy_takes_correctly_rounded_logs() -> None:
    """ATen's float32 ``binary_cross_entropy`` is a scalar loop over ``std::log`` and
    ``std::log1p`` (rasbt's machine-learning-book ch13 trains its XOR net with
    ``nn.BCELoss``): NumPy's float32 loops put 17.5 % of the values an ulp from
    PyTorch's; correctly rounded logs leave 4 % (glibc's ``log1pf`` is not always the
    correctly rounded value)."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    p, t = torch.rand(100000) * 0.98 + 0.01, (torch.rand(100000) > 0.5).float()
    want = torch.nn.functional.binary_cross_entropy(p, t, reduction="none").numpy()
    got = engine.nn.functional.binary_cross_entropy(
        engine.tensor(p.numpy()), engine.tensor(t.numpy()), reduction="none"
    ).numpy()
    assert (got != want).mean() < 0.05
    assert np.abs(got.view(np.int32) - want.view(np.int32)).max() <= 1


#: What PyTorch 2.13 raises for an array in the other byte order (``tensor_numpy.cpp``).
BYTE_ORDER = (
    "given numpy array has byte order different from the native byte order. Conversion "
    "between byte orders is currently not supported."
)


@pytest.mark.parametrize("make", ["from_numpy", "tensor", "as_tensor"])
@pytest.mark.parametrize("dtype", [">f2", ">f4", ">f8", ">i8"])
def test_an_array_in_the_other_byte_order_is_refused_as_pytorch_refuses_it(
    make: str, dtype: str
) -> None:
    """A big-endian array (read from a file written elsewhere) is refused with PyTorch's
    ValueError, not a KeyError from the engine's dtype table."""
    with pytest.raises(ValueError) as err:
        getattr(engine, make)(np.ones(3, dtype=dtype))
    assert str(err.value) == BYTE_ORDER


@pytest.mark.torch
def test_the_byte_order_message_is_pytorchs() -> None:
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError) as err:
        torch.tensor(np.ones(3, dtype=">f4"))
    assert str(err.value) == BYTE_ORDER
