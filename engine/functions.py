"""The ``engine.<name>`` functions, gathered from the op modules.

``Tensor`` resolves its operators and methods here, so an op declared in
``engine/ops`` needs no second mention anywhere.
"""

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
    "addmm",
    "alias",
    "argmax",
    "bmm",
    "cat",
    "clamp",
    "clone",
    "contiguous",
    "cos",
    "cross_entropy",
    "div",
    "dot",
    "eq",
    "exp",
    "expand",
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
    "mv",
    "narrow",
    "ne",
    "neg",
    "nll_loss",
    "permute",
    "pow",
    "reciprocal",
    "relu",
    "reshape",
    "rsub",
    "select",
    "sigmoid",
    "sign",
    "sin",
    "softmax",
    "sqrt",
    "squeeze",
    "stack",
    "sub",
    "sum",
    "t",
    "tanh",
    "transpose",
    "unsafe_view",
    "unsqueeze",
    "view",
    "where",
]

from dataclasses import replace as _replace

from engine import ops as _ops
from engine.catalog import FUNCTIONS as _FUNCTIONS
from engine.catalog import resolved as _resolved
from engine.ops.logic import allclose, equal
from engine.ops.norms import vector_norm  # noqa: F401
from engine.ops.select import argsort

__all__ += ["allclose", "argsort", "equal"]


def _declared_elsewhere() -> list[str]:
    """Public ``torch.*`` functions of op modules not imported by name above, and every
    in-place method (``add_``, ``zero_``): ``Tensor`` finds its methods here."""
    added = []
    for key, sig in _FUNCTIONS.items():
        if sig.mutates:
            fn = _resolved(sig.fn)
            _FUNCTIONS[key] = _replace(sig, fn=fn)
            globals()[sig.name] = fn
            added.append(sig.name)
        elif sig.namespace == "torch" and sig.name not in globals():
            globals()[sig.name] = sig.fn
            added.append(sig.name)
    return added


__all__ += _declared_elsewhere()
del _ops
