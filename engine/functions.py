"""The ``engine.<name>`` functions, gathered from the op modules.

``Tensor`` resolves its operators and methods here, so an op declared in
``engine/ops`` needs no second mention anywhere.
"""

from engine.ops.convert import (
    add_,
    clamp_,
    copy_,
    div_,
    exp_,
    fill_,
    mul_,
    neg_,
    relu_,
    sigmoid_,
    sub_,
    tanh_,
    zero_,
)
from engine.ops.index import narrow, select
from engine.ops.linalg import addmm, bmm, dot, matmul, mm, mv
from engine.ops.nn import cross_entropy, linear, log_softmax, mse_loss, nll_loss, softmax
from engine.ops.pointwise import (
    abs,
    add,
    clamp,
    cos,
    div,
    eq,
    exp,
    ge,
    gt,
    le,
    log,
    logical_and,
    logical_not,
    logical_or,
    lt,
    maximum,
    minimum,
    mul,
    ne,
    neg,
    pow,
    reciprocal,
    relu,
    rsub,
    sigmoid,
    sign,
    sin,
    sqrt,
    sub,
    tanh,
    where,
)
from engine.ops.reduce import argmax, max, mean, min, sum
from engine.ops.shape import (
    alias,
    cat,
    clone,
    contiguous,
    expand,
    flatten,
    permute,
    reshape,
    squeeze,
    stack,
    t,
    transpose,
    unsafe_view,
    unsqueeze,
    view,
)

__all__ = [
    "abs",
    "add",
    "add_",
    "addmm",
    "alias",
    "argmax",
    "bmm",
    "cat",
    "clamp",
    "clamp_",
    "clone",
    "contiguous",
    "copy_",
    "cos",
    "cross_entropy",
    "div",
    "div_",
    "dot",
    "eq",
    "exp",
    "exp_",
    "expand",
    "fill_",
    "flatten",
    "ge",
    "gt",
    "le",
    "linear",
    "log",
    "log_softmax",
    "logical_and",
    "logical_not",
    "logical_or",
    "lt",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "mm",
    "mse_loss",
    "mul",
    "mul_",
    "mv",
    "narrow",
    "ne",
    "neg",
    "neg_",
    "nll_loss",
    "permute",
    "pow",
    "reciprocal",
    "relu",
    "relu_",
    "reshape",
    "rsub",
    "select",
    "sigmoid",
    "sigmoid_",
    "sign",
    "sin",
    "softmax",
    "sqrt",
    "squeeze",
    "stack",
    "sub",
    "sub_",
    "sum",
    "t",
    "tanh",
    "tanh_",
    "transpose",
    "unsafe_view",
    "unsqueeze",
    "view",
    "where",
    "zero_",
]

from engine import ops as _ops
from engine.catalog import FUNCTIONS as _FUNCTIONS
from engine.ops.logic import allclose, equal
from engine.ops.norms import vector_norm  # noqa: F401
from engine.ops.select import argsort

__all__ += ["allclose", "argsort", "equal"]


def _declared_elsewhere() -> list[str]:
    """Public ``torch.*`` functions of op modules not imported by name above."""
    added = []
    for sig in _FUNCTIONS.values():
        if sig.namespace == "torch" and sig.name not in globals():
            globals()[sig.name] = sig.fn
            added.append(sig.name)
    return added


__all__ += _declared_elsewhere()
del _ops
