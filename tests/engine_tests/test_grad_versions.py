"""``.grad._version`` as PyTorch shows it: a first gradient nobody else holds is stolen
(its version kept), a shared one is copied (version 1), and every in-place add into a
gradient buffer counts.  The counts are per array, keyed by address, so an array freed
during backward must not lend its count to a new one that reuses the address (found on
CI: ``mha.in_proj_bias.grad`` showed version 2 where PyTorch shows 0)."""

from __future__ import annotations

import weakref

import numpy as np
import pytest

import engine
from engine.autograd.engine_run import _bumped

#: What PyTorch 2.13 reports for each program's ``x.grad._version`` (``x`` is 4×3).
PROGRAMS = {
    "three uses, two in-place adds": ("(x * 1 + x * 2 + x * 3).sum().backward()", 2),
    "x + x, one gradient expanded twice": ("(x + x).sum().backward()", 0),
    "sum's expanded gradient is copied": ("x.sum().backward()", 1),
    "a second backward adds in place": ("(x * 2).sum().backward(); (x * 2).sum().backward()", 1),
    # sum_to's result is a view of its keepdim sum: the first add into it is not in place
    "a broadcast bias, once": ("(torch.ones(2, 4, 3) + x).sum().backward()", 0),
    "a broadcast bias, twice": (
        "sum((torch.ones(2, 4, 3) * k + x).sum() for k in (1, 2)).backward()",
        0,
    ),
    "a broadcast bias, four times": (
        "sum((torch.ones(2, 4, 3) * k + x).sum() for k in range(4)).backward()",
        2,
    ),
    # backward formulas that write into a fresh tensor in place
    "index": ("(x[torch.tensor([0, 2, 2])] * 2).sum().backward()", 1),
    "mask": ("(x[x > 0] * 2).sum().backward()", 1),
    "gather": ("(x.gather(1, torch.tensor([[0], [1], [2], [0]])) * 2).sum().backward()", 1),
    "index_select": ("(x.index_select(0, torch.tensor([1, 1])) * 2).sum().backward()", 1),
    "take": ("(x.take(torch.tensor([0, 5])) * 2).sum().backward()", 1),
    "masked_select": ("(x.masked_select(x > 0) * 2).sum().backward()", 1),
    "max()": ("(x.max() * 2).backward()", 1),
    "median()": ("(x.median() * 2).backward()", 1),
    "maximum": ("(torch.maximum(x, torch.zeros(4, 3)) * 2).sum().backward()", 1),
    "flattened index, through a view": (
        "(x.reshape(-1)[torch.tensor([1, 1])] * 2).sum().backward()",
        1,
    ),
    "max(dim)": ("(x.max(1).values * 2).sum().backward()", 2),
    "sort": ("(x.sort(1).values * 2).sum().backward()", 2),
    "topk": ("(x.topk(2, 1).values * 2).sum().backward()", 2),
    "kthvalue": ("(x.kthvalue(2, 1).values * 2).sum().backward()", 2),
    "cummax": ("(x.cummax(1).values * 2).sum().backward()", 2),
    "trace": ("(x.trace() * 2).backward()", 2),
    # formulas whose result is a fresh contiguous tensor, stolen as it is
    "flip": ("(x.flip(0) * 2).sum().backward()", 0),
    "cumsum": ("(x.cumsum(0) * 2).sum().backward()", 0),
    "embedding": (
        "(torch.nn.functional.embedding(torch.tensor([1, 1]), x) * 2).sum().backward()",
        0,
    ),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_grad_version_is_pytorchs(name: str) -> None:
    code, want = PROGRAMS[name]
    x = engine.randn(4, 3, requires_grad=True)
    exec(code, {"x": x, "torch": engine})
    assert x.grad._version == want


@pytest.mark.torch
@pytest.mark.parametrize("name", PROGRAMS)
def test_recorded_versions_are_what_torch_reports(name: str) -> None:
    torch = pytest.importorskip("torch")
    code, want = PROGRAMS[name]
    x = torch.randn(4, 3, requires_grad=True)
    exec(code, {"x": x, "torch": torch})
    assert x.grad._version == want


#: A gradient that reaches a leaf's input buffer first, then another adds to it: PyTorch
#: adds in place (version 1) into a first one it alone holds that is no view, and never into
#: the second (only a sparse first one would be).  The engine decides from refcounts, and
#: both builds must decide alike: the compiled loops and their NumPy fallbacks return
#: arrays that own their memory, and the interpreted refcount of the second gradient (held
#: by the caller and the callee) once read as "ours alone".  In both dtypes: float64 takes
#: other loops.
FIRST_IN_BUFFER = {
    "an expanded gradient, then a fresh one": ("(x * 2).sum() + x.clone().sum()", 0),
    "relu's, then a product's": ("(x * 2 + x.relu() * 3).sum()", 1),
    "relu's, then one passed through": ("(x.clone() * 2 + x.relu() * 3).sum()", 1),
    "softmax's, then a product's": ("(x * 3 + x.softmax(1) * 2).sum()", 1),
    "log_softmax's, then a product's": ("(x * 3 + x.log_softmax(1) * 2).sum()", 1),
    "log_softmax's through a view": (
        "(x * 3).sum() + (x.reshape(2, 2, 3).log_softmax(-1) * 2).sum()",
        0,
    ),
    "nll_loss's, then a product's": (
        "(x * 3).sum() + torch.nn.functional.nll_loss(x, torch.tensor([0, 1, 2, 0]))",
        1,
    ),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", FIRST_IN_BUFFER)
def test_a_buffer_adds_in_place_as_pytorch_does(name: str, dtype: str) -> None:
    code, want = FIRST_IN_BUFFER[name]
    x = engine.randn(4, 3, dtype=getattr(engine, dtype), requires_grad=True)
    eval(code, {"x": x, "torch": engine}).backward()
    assert x.grad._version == want


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", FIRST_IN_BUFFER)
def test_buffer_versions_are_what_torch_reports(name: str, dtype: str) -> None:
    torch = pytest.importorskip("torch")
    code, want = FIRST_IN_BUFFER[name]
    x = torch.randn(4, 3, dtype=getattr(torch, dtype), requires_grad=True)
    eval(code, {"x": x, "torch": torch}).backward()
    assert x.grad._version == want


def test_flip_is_a_copy_as_in_pytorch() -> None:
    """Writing into ``x.flip(0)`` leaves ``x`` alone (NumPy's flip alone would alias it)."""
    x = engine.arange(4.0)
    y = x.flip(0)
    y[0] = 100.0
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0] and y.is_contiguous()


def test_a_count_left_at_a_reused_address_is_not_read() -> None:
    """The entry names the array it counted; a different array at that id counts 0."""
    counted, newcomer = np.zeros(3), np.zeros(3)
    bumps = {id(newcomer): (2, weakref.ref(counted))}
    assert _bumped(bumps, newcomer) == 0
    bumps = {id(counted): (2, weakref.ref(counted))}
    assert _bumped(bumps, counted) == 2
