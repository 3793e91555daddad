"""With ``create_graph=True`` every op's backward formula builds PyTorch's graph: the
same nodes, with the same names and edges, under each first-order gradient.

Checked against a golden copy recorded from PyTorch (always) and against PyTorch
itself (live, when it is installed).  Where the engine's graph is its own, the op
goes in ``KNOWN_DIFFERENCES`` with the reason; those cases are strict xfails, so a
fix shows up as a failure until the entry is removed.  The trees compare names and
edges per gradient: where PyTorch's node has one output per gradient (convolution,
layer and batch norm), the engine's gradients are separate nodes of that name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import engine
from engine.ops.core import OPS
from tests.engine_tests.second_order_programs import NOT_PROGRAMS, PROGRAMS, record

GOLDEN = Path(__file__).parent / "golden" / "second_order_graphs.json"

#: op -> why the engine's second-order graph is not PyTorch's yet.
KNOWN_DIFFERENCES: dict[str, str] = {
    "aminmax": "the engine shares the gradient among ties with its own mask and count nodes",
    "std_mean": "var_backward and mean_backward compose with the engine's own expand/mean nodes",
    "var_mean": "var_backward and mean_backward compose with the engine's own expand/mean nodes",
    "cdist": "ATen's gradient is one _cdist_backward node; the engine composes pairwise ops",
    "linalg_det": "the engine's gradient goes through linalg_inv, ATen's through lu_solve",
    "linalg_slogdet": "the engine's gradient goes through linalg_inv, ATen's through lu_solve",
    "linalg_cholesky": "the engine inverts L (linalg_inv), ATen solves triangular systems",
    "linalg_qr": "the engine computes the gradient on arrays: a constant under create_graph",
    "linalg_svd": "the engine computes the gradient on arrays: a constant under create_graph",
    "depth_avg_pool3d": (
        "local_response_norm's views: the engine's gradient of a view is ReshapeCopyBackward0, "
        "ATen's reshape of a contiguous gradient a view (ViewBackward0)"
    ),
    "native_group_norm": (
        "ATen's formula reads mean and rstd from the forward node (its outputs 1 and 2) "
        "with sum/unsqueeze nodes; the engine recomputes them with mean/rsqrt nodes"
    ),
    "native_group_norm#1": (
        "ATen's formula reads mean and rstd from the forward node (its outputs 1 and 2) "
        "with sum/unsqueeze nodes; the engine recomputes them with mean/rsqrt nodes"
    ),
    "safe_softmax": (
        "reached through SDPA's matmul: the engine's gradient of matmul's reshaped views is "
        "ReshapeCopyBackward0, ATen's reshape of a contiguous gradient a view (ViewBackward0)"
    ),
    "_prelu_kernel": "ATen's _prelu_kernel_backward is one node with two outputs; the engine's "
    "are two nodes, so the weight gradient's sum_to sees output 0, not 1",
}


def _golden() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(GOLDEN.read_text("utf-8"))
    return data


def _cases() -> list[Any]:
    return [
        pytest.param(
            name,
            marks=pytest.mark.xfail(strict=True, reason=KNOWN_DIFFERENCES[name])
            if name in KNOWN_DIFFERENCES
            else (),
        )
        for name in sorted(PROGRAMS)
    ]


@pytest.mark.parametrize("name", _cases())
def test_engine_builds_pytorchs_second_order_graph(name: str) -> None:
    assert record(engine, name) == _golden()[name]


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_golden_is_what_pytorch_builds(name: str) -> None:
    torch = pytest.importorskip("torch")
    assert record(torch, name) == _golden()[name]


def test_every_differentiable_op_has_a_program() -> None:
    ops = {name for name, op in OPS.items() if op.grad_fn and op.samples}
    assert ops - set(PROGRAMS) - set(NOT_PROGRAMS) == set()
    assert set(KNOWN_DIFFERENCES) <= set(PROGRAMS)
    assert set(PROGRAMS) <= set(_golden())


def write_golden() -> None:
    """``python -m tests.engine_tests.test_second_order_graphs``: re-record from PyTorch."""
    import torch

    data = {name: record(torch, name) for name in sorted(PROGRAMS)}
    GOLDEN.write_text(json.dumps(data, indent=1) + "\n", "utf-8")


if __name__ == "__main__":
    write_golden()
