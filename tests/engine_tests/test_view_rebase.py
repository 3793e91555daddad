"""A view whose base (or another view of it) is changed in place gets a new node the next
time it is read, ``AsStridedBackward0`` onto the base's current history, as PyTorch's
``VariableHooks::grad_fn`` makes it; so a gradient through the view passes through the
in-place op (``v = z[0]; z.mul_(2)`` gives ``v`` a gradient of 2, not 1).  An in-place op's
input that overlaps part of the written tensor is refused, as ATen refuses it.  PyTorch
2.13's answers are written out; the oracle test checks them against PyTorch."""

from __future__ import annotations

from typing import Any

import pytest

import engine


def _names(fn: Any) -> list[str]:
    if fn is None:
        return []
    out = [type(fn).__name__]
    for f, _ in fn.next_functions:
        out += _names(f)
    return out


def _facts(T: Any) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    w = T.ones(2, 3, requires_grad=True)
    v = w.view(6)
    with T.no_grad():
        w.mul_(2)
    facts["leaf view after no_grad write"] = _names(v.grad_fn)

    z = w * 1
    v = z[0]
    z.mul_(2)
    facts["view after base mul_"] = _names(v.grad_fn)
    v.sum().backward()
    facts["its gradient"] = w.grad.tolist()

    w.grad = None
    y = w * 1
    a, b = y[0], y[1]
    a.mul_(3)
    facts["other view after a view's mul_"] = _names(b.grad_fn)
    (a.sum() + b.sum()).backward()
    facts["their gradient"] = w.grad.tolist()

    y = w * 1
    v = y.t()[1:]
    y.add_(5)
    y.mul_(2)
    facts["view of a view after two writes"] = _names(v.grad_fn)

    y = w * 1
    p, _ = y.split(1, 0)
    y.mul_(2)
    try:
        p.grad_fn
    except RuntimeError as e:
        facts["split output after base write"] = str(e)

    t = T.ones(3)
    u = t[0:2]
    t.add_(1)
    facts["view of a tensor without grad"] = (u.grad_fn, u.requires_grad)

    y = w * 2
    y.mul_(y)
    try:
        y.sum().backward()
    except RuntimeError as e:
        facts["x.mul_(x) saved x before the write"] = str(e).split(" Hint")[0]

    for base_grad in (False, True):
        seen: list[Any] = []
        w2 = T.tensor([1.0, 2.0], requires_grad=True)
        t = T.zeros(3, 2, requires_grad=True) * 1 if base_grad else T.zeros(3, 2)
        t[1] = w2 * 2
        t.grad_fn.register_hook(lambda gi, go, seen=seen: seen.extend(gi))
        (t * T.arange(6.0).reshape(3, 2)).sum().backward()
        facts[f"CopySlices' gradients, base requires grad {base_grad}"] = [
            None if g is None else g.tolist() for g in seen
        ]

    x = T.ones(3, 3)
    for line in ("x.add_(x.t())", "x.mul_(x[0])", "x[1:].add_(x[:-1])", "x.copy_(x.t())"):
        try:
            eval(line, {"x": x})
        except RuntimeError as e:
            facts[line] = str(e)
    for line in ("x.add_(x)", "x[0].add_(x[1])", "x[:, 0].mul_(x[0])", "x.copy_(x)"):
        eval(line, {"x": x})
        facts[line] = "ok"
    return facts


OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer "
    "to a single memory location. Please clone() the tensor before performing the operation."
)
EXPECTED: dict[str, Any] = {
    "leaf view after no_grad write": ["AsStridedBackward0", "AccumulateGrad"],
    "view after base mul_": [
        "AsStridedBackward0",
        "MulBackward0",
        "MulBackward0",
        "AccumulateGrad",
    ],
    "its gradient": [[2.0, 2.0, 2.0], [0.0, 0.0, 0.0]],
    "other view after a view's mul_": [
        "AsStridedBackward0",
        "CopySlices",
        "MulBackward0",
        "AccumulateGrad",
    ],
    "their gradient": [[3.0, 3.0, 3.0], [1.0, 1.0, 1.0]],
    "view of a view after two writes": [
        "AsStridedBackward0",
        "MulBackward0",
        "AddBackward0",
        "MulBackward0",
        "AccumulateGrad",
    ],
    "split output after base write": (
        "Output 0 of Split is a view and its base or another view of its base has been "
        "modified inplace. This view is the output of a function that returns multiple views. "
        "Such functions do not allow the output views to be modified inplace. You should "
        "replace the inplace operation by an out-of-place one."
    ),
    "view of a tensor without grad": (None, False),
    "x.mul_(x) saved x before the write": (
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.FloatTensor [2, 3]], which is output 0 of Mul, is at version 1; "
        "expected version 0 instead."
    ),
    # PyTorch computes no gradient for the base's edge where the base needs none
    "CopySlices' gradients, base requires grad False": [None, [2.0, 3.0]],
    "CopySlices' gradients, base requires grad True": [
        [[0.0, 1.0], [0.0, 0.0], [4.0, 5.0]],
        [2.0, 3.0],
    ],
    "x.add_(x.t())": OVERLAP,
    "x.mul_(x[0])": OVERLAP,
    "x[1:].add_(x[:-1])": OVERLAP,
    "x.copy_(x.t())": OVERLAP,
    "x.add_(x)": "ok",
    "x[0].add_(x[1])": "ok",
    "x[:, 0].mul_(x[0])": "ok",
    "x.copy_(x)": "ok",
}


@pytest.mark.parametrize("fact", EXPECTED)
def test_the_engine_answers_as_pytorch(fact: str) -> None:
    assert _facts(engine)[fact] == EXPECTED[fact]


@pytest.mark.torch
@pytest.mark.parametrize("fact", EXPECTED)
def test_the_written_answers_are_pytorchs(fact: str) -> None:
    torch = pytest.importorskip("torch")
    assert _facts(torch)[fact] == EXPECTED[fact]
