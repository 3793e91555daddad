"""Engine paths that learner programs reach on CUDA, each run on a device array.

Found by ``test_programs_on_cuda``; each case is the smallest call that failed on the
CuPy simulator (a NumPy operand handed to a device kernel, a host-only tensor made on the
default device).  Marked ``cuda``: on a GPU, and under ``--cupy-sim`` everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

import engine
import engine.nn.functional as F
from engine.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

pytestmark = pytest.mark.cuda


@pytest.fixture
def cuda_default() -> Iterator[None]:
    """``torch.set_default_device("cuda")`` for one test."""
    engine.set_default_device("cuda")
    yield
    engine.set_default_device(None)


def test_multinomial_of_cuda_weights_draws_as_on_the_cpu() -> None:
    draws = {}
    for dev in ("cpu", "cuda"):
        engine.manual_seed(0)
        w = engine.tensor([[1.0, 2.0, 3.0, 4.0], [4.0, 0.0, 1.0, 1.0]], device=dev)
        out = engine.multinomial(w, 2)
        assert str(out.device) == ("cuda:0" if dev == "cuda" else "cpu")
        draws[dev] = out.tolist()
    assert draws["cuda"] == draws["cpu"]


def test_packed_sequence_keeps_batch_sizes_and_lengths_on_the_cpu(cuda_default: object) -> None:
    x = engine.arange(12.0).reshape(3, 4, 1)
    packed = pack_padded_sequence(x, [2, 4, 1], batch_first=True, enforce_sorted=False)
    assert (str(packed.data.device), str(packed.batch_sizes.device)) == ("cuda:0", "cpu")
    assert packed.batch_sizes.tolist() == [3, 2, 1, 1]
    padded, lengths = pad_packed_sequence(packed, batch_first=True)
    assert (str(padded.device), str(lengths.device)) == ("cuda:0", "cpu")
    assert lengths.tolist() == [2, 4, 1]


def test_cuda_lengths_are_refused_as_pytorch_refuses_them() -> None:
    x = engine.ones(3, 2, device="cuda")
    with pytest.raises(RuntimeError) as info:
        pack_padded_sequence(x, engine.tensor([3, 1], device="cuda"))
    assert str(info.value) == (
        "'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 Long tensor"
    )


def test_nonzero_and_data_ptr_of_cuda_tensors() -> None:
    t = engine.tensor([[0, 3], [5, 0]], device="cuda")
    assert t.nonzero().tolist() == [[0, 1], [1, 0]]
    assert str(engine.argwhere(t).device) == "cuda:0"
    assert t[1].data_ptr() - t.data_ptr() == 2 * t.element_size()


def _wrapper_error(argument: str, method: str) -> str:
    return re.escape(
        f"Expected all tensors to be on the same device, but got {argument} is on cpu, "
        f"different from other tensors on cuda:0 (when checking argument in method "
        f"wrapper_CUDA_{method})"
    )


@pytest.mark.parametrize(
    ("call", "argument", "method"),
    [
        (lambda x, i: F.embedding(i, x), "index", "_index_select"),
        (lambda x, i: x.index_select(0, i), "index", "_index_select"),
        (lambda x, i: x.gather(1, i.reshape(3, 1)), "index", "gather"),
        (lambda x, i: F.cross_entropy(x, i), "target", "nll_loss_forward"),
        (lambda x, i: F.nll_loss(x, i.cuda(), weight=engine.ones(4)), "weight", "nll_loss_forward"),
        (
            lambda x, i: F.nll_loss(x.reshape(3, 4, 1), i.reshape(3, 1)),
            "target",
            "_nll_loss2d_forward",
        ),
        (
            lambda x, i: F.binary_cross_entropy(x.sigmoid(), x, weight=engine.ones(4)),
            "weight",
            "_binary_cross_entropy",
        ),
    ],
)
def test_a_host_index_or_target_of_a_cuda_op_is_pytorch_s_device_error(
    call: object, argument: str, method: str
) -> None:
    """Indices, targets and class weights ride as parameters, past the inputs' check: a
    host one must stop at the wrapper's check, not reach CuPy as a NumPy array."""
    x, i = engine.ones(3, 4, device="cuda"), engine.tensor([0, 1, 2])
    with pytest.raises(RuntimeError, match=_wrapper_error(argument, method)):
        call(x, i)  # type: ignore[operator]


def test_masked_fill_with_a_host_mask_is_pytorch_s_error() -> None:
    x = engine.ones(2, device="cuda")
    with pytest.raises(RuntimeError) as info:
        x.masked_fill(engine.tensor([True, False]), 0.0)
    assert str(info.value) == (
        "expected self and mask to be on the same device, but got mask on cpu and self on cuda:0"
    )


def test_max_over_a_dim_differentiates_twice_on_cuda_as_on_the_cpu() -> None:
    """``ValueSelectingReductionBackwardBackward0`` gathers with the kept index, which
    needs its dim back (``keepdim=False``) on the device as on the host."""
    grads = {}
    for dev in ("cpu", "cuda"):
        x = engine.tensor([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]], device=dev, requires_grad=True)
        v = engine.tensor([1.0, 2.0, 3.0], device=dev, requires_grad=True)
        (gx,) = engine.autograd.grad(x.max(0).values, x, grad_outputs=v, create_graph=True)
        (gx * engine.arange(6.0, device=dev).reshape(2, 3)).sum().backward()
        grads[dev] = v.grad.tolist()
    assert grads["cuda"] == grads["cpu"] == [3.0, 1.0, 5.0]


def test_eigvalsh_backward_and_matrix_rank_on_cuda() -> None:
    """``eigh``'s backward with only the eigenvalues' gradient brought that gradient to
    the host with ``numpy.asarray``; ``matrix_rank`` answered on the CPU."""
    grads = {}
    for dev in ("cpu", "cuda"):
        x = engine.tensor([[2.0, 1.0], [1.0, 3.0]], device=dev, requires_grad=True)
        engine.linalg.eigvalsh(x).pow(2).sum().backward()
        grads[dev] = x.grad.tolist()
        rank = engine.linalg.matrix_rank(x.detach())
        assert (str(rank.device), rank.item()) == (str(x.device), 2)
    assert grads["cuda"] == grads["cpu"]


def test_quantile_with_cuda_quantiles() -> None:
    """``q`` as a CUDA tensor (the default device's ``torch.tensor([...])``) is read on
    the host, not handed to ``numpy.asarray``."""
    x = engine.arange(5.0, device="cuda")
    out = engine.quantile(x, engine.tensor([0.25, 0.5], device="cuda"))
    assert (str(out.device), out.tolist()) == ("cuda:0", [1.0, 2.0])


def _lbfgs_steps(dev: str) -> list[float]:
    w = engine.tensor([1.0, -2.0, 3.0], device=dev, requires_grad=True)
    opt = engine.optim.LBFGS([w], lr=0.5)

    def closure() -> object:
        opt.zero_grad()
        loss = (w - 1).pow(2).sum() + w.pow(4).sum()
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    return w.tolist()


def test_lbfgs_steps_on_cuda_as_on_the_cpu() -> None:
    """LBFGS's first step size is a 0-d tensor, passed as ``add_``'s ``alpha``: a Number
    argument, read with ``item()`` (NumPy cannot convert a CUDA tensor)."""
    steps = {dev: _lbfgs_steps(dev) for dev in ("cpu", "cuda")}
    assert steps["cuda"] == steps["cpu"]
    x = engine.ones(2, device="cuda")
    assert x.add(x, alpha=engine.tensor(2.0, device="cuda")).tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match=r"^add_\(\): argument 'alpha' must be Number, not Tensor$"):
        x.add_(x, alpha=engine.tensor([2.0], device="cuda"))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "bool", "int64", "float16"])
def test_accumulating_ops_of_narrow_dtypes_on_cuda(dtype: str) -> None:
    """CuPy's ``add.at`` has no atomic for bool or 8/16-bit integers: accumulated wider,
    cast back (wrapping as PyTorch wraps; ``or`` for bool)."""
    dt = getattr(engine, dtype)

    def run(dev: str) -> list[object]:
        base = engine.full((3,), 127 if dt is engine.int8 else 1, dtype=dt, device=dev)
        i = engine.tensor([0, 0, 2], device=dev)
        ones = engine.ones(3, dtype=dt, device=dev)
        return [
            base.index_put((i,), ones, accumulate=True).tolist(),
            base.index_add(0, i, ones).tolist(),
            base.scatter_add(0, i, ones).tolist(),
        ]

    assert run("cuda") == run("cpu")
