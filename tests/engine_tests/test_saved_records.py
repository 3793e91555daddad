"""Nodes' compact records (edges as node and output-number tuples, saved values as one
flat record tuple, outputs saved before they have a version counter) against PyTorch:
the same ``next_functions``, saved values, version counters and in-place errors on
every path by which a saved output can change."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine
from engine.autograd.graph import NRS

torch = pytest.importorskip("torch")


def _outcome(T: Any, change: Callable[[Any, Any, Any], Any]) -> str:
    """``exp`` saves its output; ``change`` may alter it; then backward, or its error."""
    x = T.tensor([0.5, 1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = y.sum() * 1.0
    z = change(T, x, y) or z
    try:
        z.backward()
    except RuntimeError as exc:
        return "error: " + str(exc).replace("torch.", "").replace("engine.", "")
    return f"grad {np.round(x.grad.detach().numpy(), 5).tolist()} version {y._version}"


def _add(T: Any, x: Any, y: Any) -> None:
    y.add_(1)


def _through_view(T: Any, x: Any, y: Any) -> None:
    y[0:2].mul_(2)


def _view_twice(T: Any, x: Any, y: Any) -> None:
    v = y.view(3)
    v.add_(1)
    v.add_(1)


def _through_detach(T: Any, x: Any, y: Any) -> None:
    y.detach().add_(1)


def _after_detach_(T: Any, x: Any, y: Any) -> None:
    y.detach_()
    y.add_(1)


def _saved_as_input_too(T: Any, x: Any, y: Any) -> None:
    _ = y * x  # the multiplication gives ``y`` its counter before the change
    y.add_(1)


def _under_no_grad(T: Any, x: Any, y: Any) -> None:
    with T.no_grad():
        y.mul_(3)


def _unchanged(T: Any, x: Any, y: Any) -> None:
    return None


@pytest.mark.parametrize(
    "change",
    [
        _add,
        _through_view,
        _view_twice,
        _through_detach,
        _after_detach_,
        _saved_as_input_too,
        _under_no_grad,
        _unchanged,
    ],
)
def test_saved_output_changed_in_place_as_pytorch(change: Callable[..., Any]) -> None:
    assert _outcome(engine, change) == _outcome(torch, change)


def test_saved_output_version_starts_at_zero() -> None:
    for T in (engine, torch):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x.tanh()
        assert y._version == 0
        assert y.grad_fn._saved_result._version == 0


def test_next_functions_and_saved_values_as_pytorch() -> None:
    def facts(T: Any) -> list[Any]:
        x = T.tensor([1.0, 2.0], requires_grad=True)
        w = T.tensor([3.0, 4.0], requires_grad=True)
        _, b = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True).unbind(0)
        y = (x * w + b * 2.0).tanh()
        out = []
        stack = [y.grad_fn]
        while stack:
            fn = stack.pop()
            nexts = fn.next_functions
            out.append((fn.name(), [(None if n is None else n.name(), i) for n, i in nexts]))
            stack.extend(n for n, _ in nexts if n is not None and hasattr(n, "next_functions"))
        mul = y.grad_fn.next_functions[0][0].next_functions[0][0]
        out.append(mul._saved_self.tolist())
        out.append(mul._saved_other.tolist())
        out.append(y.grad_fn._saved_result.tolist())
        return out

    assert facts(engine) == facts(torch)


def test_next_functions_are_the_input_nodes() -> None:
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    z = y * x
    (fy, ny), (fx, nx) = z.grad_fn.next_functions
    assert fy is y.grad_fn and ny == 0
    assert fx is z.grad_fn.next_functions[1][0] and fx.variable is x and nx == 0
    assert y.grad_fn.next_functions[0][0] is fx  # one AccumulateGrad per leaf


def test_saved_values_released_after_backward() -> None:
    for T in (engine, torch):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        y = x.exp()
        y.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            _ = y.grad_fn._saved_result


def test_usual_output_numbers_are_shared() -> None:
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    assert (x * x).grad_fn._nrs is NRS[2]
    assert x.exp().grad_fn._nrs is NRS[1]


_COUNT_OBJECTS = """
import gc
import numpy as np
import engine
x = engine.tensor(np.ones(4, np.float32), requires_grad=True)
keep = [engine.tanh(x * 1.5) for _ in range(10)]
gc.collect()
gc.collect()
before = len(gc.get_objects())
keep += [engine.tanh(x * 1.5) for _ in range(200)]
gc.collect()
gc.collect()
print((len(gc.get_objects()) - before) / 200)
"""


def test_a_wide_graph_leaves_few_objects_for_the_collector() -> None:
    """A branch ``tanh(x * s)``: its output, two nodes and their two edge tuples; no
    dict, saved-tensor object, edge pair or version counter (the records' point).

    A node's records are plain tuples of untracked values inside its ``_saved`` tuple,
    which the collector stops tracking once it has seen them: the record in one pass,
    the tuple holding it in the next (a pass reaches the outer one first).  Counted after
    two passes, as a long-lived graph stands after its first collections, in an
    interpreter of its own: a test worker that has run others holds objects whose
    collection would land inside the count."""
    out = subprocess.run(
        [sys.executable, "-c", _COUNT_OBJECTS], capture_output=True, text=True, check=True
    )
    assert float(out.stdout) <= 5.1
