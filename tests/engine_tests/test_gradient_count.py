"""A backward formula gives one gradient per input of its op, neither fewer nor more: a
formula that breaks this is a bug in the engine, reported as such with the op's name,
never a gradient silently dropped or given to the wrong input."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine
from engine.ops.core import OpDef, apply_op

#: Wrong counts for a two-input op: one gradient, three.
_WRONG: dict[str, Any] = {
    "one": lambda ctx, g: g,
    "one_in_a_tuple": lambda ctx, g: (g,),
    "three": lambda ctx, g: (g, g, g),
}


def _mul(backward: Any, **kw: Any) -> OpDef:
    """``a * b`` with ``backward`` as its formula; not declared, so no op list sees it."""
    return OpDef(
        "wrong_mul", "WrongMulBackward0", ("self", "other"), lambda xp, a, b: a * b, backward, **kw
    )


@pytest.mark.parametrize("formula", list(_WRONG), ids=list(_WRONG))
@pytest.mark.parametrize("create_graph", [False, True])
def test_a_formula_giving_the_wrong_count_names_the_op(formula: str, create_graph: bool) -> None:
    x = engine.ones(3, requires_grad=True)
    y = engine.ones(3, requires_grad=True)
    out = apply_op(_mul(_WRONG[formula]), (x, y))
    count = 1 if formula.startswith("one") else 3
    message = (
        rf"internal error in the engine: the backward formula of wrong_mul "
        rf"\(WrongMulBackward0\) returned {count} gradients? for 2 inputs"
    )
    with pytest.raises(RuntimeError, match=message):
        out.sum().backward(create_graph=create_graph)


def test_the_general_path_checks_the_count_too() -> None:
    """A float64 tensor times a float32 one promotes: ``apply_op``'s general path."""
    x = engine.ones(3, dtype=engine.float64, requires_grad=True)
    y = engine.ones(3, requires_grad=True)
    out = apply_op(_mul(_WRONG["one"]), (x, y))
    with pytest.raises(RuntimeError, match="returned 1 gradient for 2 inputs"):
        out.sum().backward()


def test_a_one_input_op_giving_two_gradients_is_caught() -> None:
    op = OpDef(
        "wrong_neg", "WrongNegBackward0", ("self",), lambda xp, a: -a, lambda ctx, g: (-g, g)
    )
    x = engine.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"wrong_neg .*returned 2 gradients for 1 input$"):
        apply_op(op, (x,)).sum().backward()


def test_the_right_count_still_gives_each_input_its_gradient() -> None:
    """The same op with a correct formula: the check lets it through unchanged."""
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    y = engine.tensor([3.0, 4.0], requires_grad=True)
    op = _mul(
        lambda ctx, g: (g * ctx.saved["other"], g * ctx.saved["self"]),
        save={"self": None, "other": None},
    )
    apply_op(op, (x, y)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 4.0])
    np.testing.assert_array_equal(y.grad.numpy(), [1.0, 2.0])
