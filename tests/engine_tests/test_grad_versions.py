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

#: What PyTorch 2.13 reports for each program's ``x.grad._version``.
PROGRAMS = {
    "three uses, two in-place adds": ("(x * 1 + x * 2 + x * 3).sum().backward()", 2),
    "x + x, one gradient expanded twice": ("(x + x).sum().backward()", 0),
    "sum's expanded gradient is copied": ("x.sum().backward()", 1),
    "a second backward adds in place": ("(x * 2).sum().backward(); (x * 2).sum().backward()", 1),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_grad_version_is_pytorchs(name: str) -> None:
    code, want = PROGRAMS[name]
    x = engine.randn(3, requires_grad=True)
    exec(code, {"x": x})
    assert x.grad._version == want


@pytest.mark.torch
@pytest.mark.parametrize("name", PROGRAMS)
def test_recorded_versions_are_what_torch_reports(name: str) -> None:
    torch = pytest.importorskip("torch")
    code, want = PROGRAMS[name]
    x = torch.randn(3, requires_grad=True)
    exec(code, {"x": x})
    assert x.grad._version == want


def test_a_count_left_at_a_reused_address_is_not_read() -> None:
    """The entry names the array it counted; a different array at that id counts 0."""
    counted, newcomer = np.zeros(3), np.zeros(3)
    bumps = {id(newcomer): (2, weakref.ref(counted))}
    assert _bumped(bumps, newcomer) == 0
    bumps = {id(counted): (2, weakref.ref(counted))}
    assert _bumped(bumps, counted) == 2
