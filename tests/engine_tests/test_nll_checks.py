"""``nll_loss`` and ``cross_entropy`` refuse mismatched targets with PyTorch's errors, in
PyTorch's order of checks, and agree with it on the shapes they accept (live oracle)."""

from __future__ import annotations

import numpy as np
import pytest

import engine

torch = pytest.importorskip("torch", reason="PyTorch is not installed (the live oracle)")

pytestmark = pytest.mark.torch

CASES = [
    ((5,), (2,)),
    ((5,), (0,)),
    ((5,), (1,)),
    ((5,), ()),
    ((5,), (1, 1)),
    ((3, 5), ()),
    ((1, 5), ()),
    ((3, 5), (3,)),
    ((3, 5), (2,)),
    ((3, 5), (3, 1)),
    ((0, 5), (0,)),
]


def _run(T: object, fn: str, inp: tuple[int, ...], tgt: tuple[int, ...]) -> tuple[str, object]:
    x = np.linspace(-1.0, 1.0, int(np.prod(inp)), dtype=np.float32).reshape(inp)
    t = (np.arange(int(np.prod(tgt))) % inp[-1]).reshape(tgt)
    try:
        out = getattr(T.nn.functional, fn)(T.tensor(x), T.tensor(t))
    except Exception as exc:  # the error itself is compared
        return type(exc).__name__, str(exc)
    return "ok", np.asarray(out.numpy())


@pytest.mark.parametrize("fn", ["nll_loss", "cross_entropy"])
@pytest.mark.parametrize(("inp", "tgt"), CASES)
def test_target_shapes_checked_as_torch(
    fn: str, inp: tuple[int, ...], tgt: tuple[int, ...]
) -> None:
    with np.errstate(all="raise"):  # an empty batch's NaN comes without a warning
        (kind, got), (want_kind, want) = _run(engine, fn, inp, tgt), _run(torch, fn, inp, tgt)
    assert kind == want_kind
    if kind != "ok":
        assert got == want
    elif np.isnan(want):  # the empty batch's mean: a positive NaN, as PyTorch fills it
        assert got.tobytes() == want.tobytes()
    else:  # the batch's sum may differ in the last bit (PyTorch's own cascade)
        np.testing.assert_allclose(got, want, rtol=1e-6)
