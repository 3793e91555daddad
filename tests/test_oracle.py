"""Tests of the oracle itself, with a toy module: no engine and no torch needed.

The oracle must never crash on an incomplete module under test, must produce
JSON-serialisable facts, and ``compare`` must name each difference readably.
"""

from __future__ import annotations

import json
import types
import warnings
from typing import Any

from tests.oracle import compare, execute, messages_agree, run_program


class _Node:
    def __init__(self, name: str, nxt: tuple[tuple[Any, int], ...] = ()) -> None:
        self._name = name
        self.next_functions = nxt

    def name(self) -> str:
        return self._name


class _Tensor:
    """A toy tensor: enough attributes for some facts, deliberately not all."""

    def __init__(self, values: list[float], grad_fn: _Node | None = None) -> None:
        self.values = values
        self.grad_fn = grad_fn
        self.shape = (len(values),)
        self.dtype = "toy.float32"
        self.requires_grad = grad_fn is not None
        self.is_leaf = grad_fn is None

    def tolist(self) -> list[float]:
        return list(self.values)

    def detach(self) -> _Tensor:
        return _Tensor(self.values)

    @property
    def grad(self) -> None:
        if not self.is_leaf:
            warnings.warn("non-leaf grad", UserWarning, stacklevel=2)
        return None


def _toy_module(node_name: str = "MulBackward0") -> types.ModuleType:
    toy = types.ModuleType("toy")
    toy.Tensor = _Tensor  # type: ignore[attr-defined]

    def double(t: _Tensor) -> _Tensor:
        return _Tensor([2 * v for v in t.values], _Node(node_name, ((None, 0),)))

    toy.double = double  # type: ignore[attr-defined]
    toy.tensor = lambda values: _Tensor(values)  # type: ignore[attr-defined]
    return toy


SNIPPET = "a = torch.tensor([1.0, 2.0])\nb = torch.double(a)\nn = 3\n"


def test_missing_attributes_become_facts() -> None:
    facts = run_program(SNIPPET, _toy_module())
    b = facts["tensors"]["b"]
    assert b["value"] == [2.0, 4.0]
    assert b["grad_fn"] == "MulBackward0"
    assert b["next_functions"] == [None]
    assert b["_version"].startswith("<missing: AttributeError")
    assert b["grad_warnings"] == [{"category": "UserWarning", "message": "non-leaf grad"}]
    assert facts["values"]["n"] == {"kind": "int", "value": 3}
    json.dumps(facts)  # golden files store exactly this structure


def test_compare_names_the_difference() -> None:
    expected = run_program(SNIPPET, _toy_module("MulBackward0"))
    actual = run_program(SNIPPET, _toy_module("AddBackward0"))
    assert compare(expected, expected) == []
    assert "b.grad_fn: expected MulBackward0, got AddBackward0" in compare(expected, actual)


def test_exception_stops_the_snippet_but_facts_count() -> None:
    facts = run_program(SNIPPET + "raise RuntimeError('boom')\nc = 1\n", _toy_module())
    assert facts["exception"] == {"type": "RuntimeError", "message": "boom"}
    assert "b" in facts["tensors"] and "c" not in facts["values"]


def test_import_torch_maps_to_the_module_and_stdout_is_kept_apart() -> None:
    toy = _toy_module()
    result = execute("import torch\nprint('hi')\nsame = torch is __toy__\n", toy)
    assert result.exception == {"type": "NameError", "message": "name '__toy__' is not defined"}
    result = execute("import torch\nprint('hi')\nt = torch\n", toy)
    assert result.namespace["t"] is toy
    assert result.stdout == "hi\n"


def test_values_compare_with_tolerance() -> None:
    expected = run_program("a = torch.tensor([1.0])\n", _toy_module())
    actual = run_program("a = torch.tensor([1.0000001])\n", _toy_module())
    assert compare(expected, actual) == []
    far = run_program("a = torch.tensor([1.1])\n", _toy_module())
    assert compare(expected, far) == ["a.value: expected [1.0], got [1.1]"]


def test_messages_agree_to_the_last_bits_of_their_numbers_only() -> None:
    fast = "numerical:1.9585491364738026\nanalytical:{}\n"
    assert messages_agree(fast.format("2.937823704623985"), fast.format("2.9378237046239843"))
    assert not messages_agree(fast.format("2.937823704623985"), fast.format("2.9378237"))
    assert not messages_agree(fast.format("2.937823704623985"), fast.format("1.958558929161672"))
    assert not messages_agree("expected 3 got 2.5", "expected 4 got 2.5")
    assert not messages_agree("size 2.5 of x", "size 2.5 of y")
