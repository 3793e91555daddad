"""One declaration per public function: the registration reads the Python signature and
refuses a declaration that repeats or contradicts it."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.catalog import FUNCTIONS, REQUIRED, Param, Port, public


def test_a_repeated_python_default_is_refused() -> None:
    with pytest.raises(ValueError, match="alpha=1 is already the Python default"):

        @public("twice", ("input",), (Param("alpha", "number", 1),), namespace="test")
        def twice(input: Any, *, alpha: Any = 1) -> Any:  # noqa: A002
            return input

    assert "test.twice" not in FUNCTIONS


def test_a_declared_name_the_function_lacks_is_refused() -> None:
    def f(input: Any, dim: Any = None) -> Any:  # noqa: A002
        return input

    with pytest.raises(ValueError, match="'dims' is declared but f\\(\\) has no such argument"):
        public("f", ("input",), (Param("dims", "dims"),), namespace="test")(f)


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown parameter kind 'colour'"):
        public("g", ("input",), (Param("c", "colour"),), namespace="test")


def test_defaults_positions_and_varargs_come_from_the_signature() -> None:
    add = FUNCTIONS["torch.add"]
    (alpha,) = add.params
    assert (alpha.default, alpha.position, alpha.required) == (1, None, False)
    assert [p.position for p in add.inputs] == [0, 1]
    zeros = FUNCTIONS["torch.zeros"]
    size = zeros.params[0]
    assert size.varargs and size.default is REQUIRED and size.initial == (2, 3)
    assert zeros.takes_device
    einsum = FUNCTIONS["torch.einsum"]
    assert einsum.inputs[0].varargs and einsum.params[0].position == 0
    assert FUNCTIONS["torch.randint"].params[1].required  # ``always``
    # a new softmax node states its dim; a call may leave it out (PyTorch's implicit dim)
    dim = FUNCTIONS["torch.nn.functional.softmax"].params[0]
    assert (dim.initial, dim.default, dim.required) == (-1, None, False)


def test_the_inplace_flag_generates_the_method_with_the_same_argument_handling() -> None:
    sig = FUNCTIONS["torch.Tensor.clamp_"]
    assert sig.mutates and FUNCTIONS["torch.clamp"].inplace == "clamp_"
    assert engine.Tensor.clamp_ is not None and engine.clamp_ is sig.fn
    x = engine.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * 1
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
        y.clamp_()  # clamp's own check, as PyTorch's clamp_ shares it
    y.clamp_(min=engine.tensor([0.0, 0.0, 0.0]))  # and its tensor-bound overload
    assert (y.grad_fn.name(), y._version) == ("ClampBackward0", 1)


def test_ports_read_optional_python_arguments() -> None:
    bn = FUNCTIONS["torch.nn.functional.batch_norm"]
    running_mean = next(p for p in bn.inputs if p.name == "running_mean")
    assert running_mean.optional and running_mean.default is REQUIRED  # passed as None
    assert isinstance(bn.inputs[0], Port)


def test_an_inplace_flag_needs_a_function_that_calls_apply_op() -> None:
    def twice(input: Any) -> Any:  # noqa: A002
        return input * 2

    with pytest.raises(ValueError, match="twice_: twice\\(\\) must call apply_op"):
        public("twice", ("input",), namespace="test", inplace=True)(twice)
    assert "test.twice" not in FUNCTIONS
