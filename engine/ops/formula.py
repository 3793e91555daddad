"""A grad_fn's local rule as a formula: parsed, evaluated with numbers, and rendered.

An op declares ``formula={"self": "other", "other": "self"}``: for each input, the
derivative of the output with respect to it, written over the op's operand names
(its inputs, ``result``, its saved params such as ``alpha``).  A formula without
``grad`` is a local derivative, and the gradient that input receives is
``grad * formula`` brought to the input's shape; one that mentions ``grad`` is the
whole vector-Jacobian product (``grad @ mat2.T``).  The text is data, so the studio
shows it with the learner's labels and numbers, and a test evaluates it against the
backward it describes: one declaration, never a second copy in prose.
"""

from __future__ import annotations

import ast
import copy
import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from engine.ops.core import OPS

#: Params a formula may name that an op leaves unset when they have their default.
DEFAULTS: Mapping[str, float] = {"alpha": 1, "beta": 1}

_FUNCTIONS = {
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "numel": lambda a: np.asarray(a).size,
}
_BINARY = {
    ast.Add: np.add,
    ast.Sub: np.subtract,
    ast.Mult: np.multiply,
    ast.Div: np.true_divide,
    ast.Pow: np.power,
    ast.MatMult: np.matmul,
}
_COMPARE = {ast.Gt: np.greater, ast.GtE: np.greater_equal, ast.Lt: np.less, ast.LtE: np.less_equal}


class FormulaError(ValueError):
    """A formula outside the small language (names, numbers, + - * / ** @, .T, calls)."""


@functools.cache
def parse(text: str) -> ast.expr:
    """The formula's expression tree, checked to hold only what ``evaluate`` knows."""
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        raise FormulaError(f"formula {text!r}: {exc.msg}") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS):
                raise FormulaError(f"formula {text!r}: unknown function")
        elif isinstance(node, ast.Attribute) and node.attr != "T":
            raise FormulaError(f"formula {text!r}: only .T is allowed")
        elif isinstance(node, ast.Compare) and (
            len(node.ops) != 1 or type(node.ops[0]) not in _COMPARE
        ):
            raise FormulaError(f"formula {text!r}: one comparison of < <= > >=")
        elif not isinstance(
            node,
            ast.Name
            | ast.Constant
            | ast.BinOp
            | ast.UnaryOp
            | ast.Call
            | ast.Attribute
            | ast.Compare
            | ast.Load
            | ast.operator
            | ast.unaryop
            | ast.cmpop,
        ):
            raise FormulaError(f"formula {text!r}: {type(node).__name__} is not allowed")
        if isinstance(node, ast.BinOp) and type(node.op) not in _BINARY:
            raise FormulaError(f"formula {text!r}: operator not allowed")
    return tree


def names(text: str) -> frozenset[str]:
    """The operand names the formula reads (``grad`` among them for a full product)."""
    tree = parse(text)
    calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)}  # type: ignore[union-attr]
    return frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in calls)


def is_local(text: str) -> bool:
    """A local derivative (multiplied by the incoming gradient), not a whole product."""
    return "grad" not in names(text)


def evaluate(text: str, env: Mapping[str, Any]) -> np.ndarray:
    """The formula's value with ``env``'s numbers (arrays or Python numbers)."""
    values = {**DEFAULTS, **env}

    def ev(node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in values:
                raise FormulaError(f"formula {text!r}: no value for {node.id!r}")
            return values[node.id]
        if isinstance(node, ast.BinOp):
            return _BINARY[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp):
            operand = ev(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.Compare):
            test = _COMPARE[type(node.ops[0])](ev(node.left), ev(node.comparators[0]))
            return np.asarray(test, dtype=np.float64)
        if isinstance(node, ast.Attribute):
            return np.asarray(ev(node.value)).T
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        return _FUNCTIONS[node.func.id](*(ev(a) for a in node.args))

    return np.asarray(ev(parse(text)))


def to_shape(value: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``value`` as a gradient of an input of ``shape``: broadcast up (``sum``'s single
    gradient reaches every element), then summed over broadcast dims (as backward does)."""
    value = np.asarray(value)
    if value.shape == shape:
        return value
    try:
        return np.broadcast_to(value, shape).copy()
    except ValueError:
        pass
    extra = value.ndim - len(shape)
    value = value.sum(axis=tuple(range(extra))) if extra > 0 else value
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and value.shape[i] != 1)
    return value.sum(axis=axes, keepdims=True) if axes else value


def gradient(text: str, env: Mapping[str, Any], grad: Any, shape: tuple[int, ...]) -> np.ndarray:
    """The gradient an input of ``shape`` receives by this formula from ``grad``."""
    if is_local(text):
        return to_shape(np.asarray(grad) * evaluate(text, env), shape)
    return to_shape(evaluate(text, {**env, "grad": grad}), shape)


class _Relabel(ast.NodeTransformer):
    def __init__(self, labels: Mapping[str, str]) -> None:
        self.labels = labels

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.Name(self.labels.get(node.id, node.id), node.ctx)


def render(text: str, labels: Mapping[str, str]) -> str:
    """The formula with operand names replaced by the learner's labels (``other`` -> ``b``)."""
    tree = _Relabel(labels).visit(copy.deepcopy(parse(text)))  # the parsed tree is shared
    return ast.unparse(ast.fix_missing_locations(tree))


def rule_text(text: str, output: str, operand: str, labels: Mapping[str, str]) -> str:
    """``∂y/∂a = b`` for a local derivative, ``grad_w = grad @ x.T`` for a product."""
    body = render(text, labels)
    if is_local(text):
        return f"∂{output}/∂{operand} = {body}"
    return f"grad_{operand} = {body}"


def rules(grad_fn: str) -> tuple[tuple[str, ...], Mapping[str, str]] | None:
    """The declared op's input names and formulas for a ``grad_fn`` name, if declared."""
    for op in OPS.values():
        if op.grad_fn == grad_fn and op.formula:
            return op.inputs, op.formula
    return None
