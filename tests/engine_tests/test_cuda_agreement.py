"""Every op sample agrees between CPU and CUDA: forward values, gradients, flags, devices.

Marked ``cuda``: it runs on a GPU, and on every machine under the CuPy simulator
(``make test`` runs the ``cuda`` tests a second time with ``--cupy-sim``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from engine.ops.core import OpDef, Sample, apply_op
from tests.engine_tests.test_op_matrix import CASES, build

pytestmark = pytest.mark.cuda


def _run(op: OpDef, sample: Sample, device: str) -> tuple[list[Any], list[Any]]:
    inputs, params = build(op, sample, device)
    out = apply_op(op, tuple(inputs), params)
    outs = list(out) if isinstance(out, tuple) else [out]
    first = outs[0]
    if first.grad_fn is not None:
        first.sum().backward()
    return inputs, outs


def _host(t: Any) -> np.ndarray:
    return t.detach().cpu().numpy()


@pytest.mark.parametrize(("op", "sample"), CASES)
def test_op_sample_agrees_between_cpu_and_cuda(op: OpDef, sample: Sample) -> None:
    cpu_in, cpu_out = _run(op, sample, "cpu")
    gpu_in, gpu_out = _run(op, sample, "cuda")
    moved = sample.params.get("device")  # ``_to_copy`` names its target device
    for c, g in zip(cpu_out, gpu_out, strict=True):
        assert str(g.device) == (str(moved) if moved is not None else "cuda:0")
        assert type(g._data).__module__.startswith("numpy" if moved is not None else "cupy")
        assert (g.dtype, tuple(g.shape), g.requires_grad, g.is_leaf) == (
            c.dtype,
            tuple(c.shape),
            c.requires_grad,
            c.is_leaf,
        )
        assert (g.grad_fn and g.grad_fn.name()) == (c.grad_fn and c.grad_fn.name())
        np.testing.assert_allclose(_host(g), _host(c), rtol=1e-12, atol=1e-12)
    for c, g in zip(cpu_in, gpu_in, strict=True):
        assert (g.grad is None) == (c.grad is None)
        if c.grad is not None:
            assert str(g.grad.device) == "cuda:0"
            assert g.grad.dtype is c.grad.dtype
            np.testing.assert_allclose(_host(g.grad), _host(c.grad), rtol=1e-12, atol=1e-12)
