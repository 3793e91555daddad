"""Engine paths that learner programs reach on CUDA, each run on a device array.

Found by ``test_programs_on_cuda``; each case is the smallest call that failed on the
CuPy simulator (a NumPy operand handed to a device kernel, a host-only tensor made on the
default device).  Marked ``cuda``: on a GPU, and under ``--cupy-sim`` everywhere.
"""

from __future__ import annotations

import pytest

import engine
from engine.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

pytestmark = pytest.mark.cuda


@pytest.fixture
def cuda_default() -> object:
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
    assert (str(padded.device), str(lengths.device), lengths.tolist()) == ("cuda:0", "cpu", [2, 4, 1])


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
