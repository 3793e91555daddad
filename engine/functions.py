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
    "abs", "add", "add_", "addmm", "alias", "argmax", "bmm", "cat", "clamp", "clamp_", "clone",
    "contiguous", "copy_", "cos", "cross_entropy", "div", "div_", "dot", "eq", "exp", "exp_",
    "expand", "fill_", "flatten", "ge", "gt", "le", "linear", "log", "log_softmax", "logical_and",
    "logical_not", "logical_or", "lt", "matmul", "max", "maximum", "mean", "min", "minimum", "mm",
    "mse_loss", "mul", "mul_", "mv", "ne", "neg", "neg_", "nll_loss", "permute", "pow",
    "reciprocal", "relu", "relu_", "reshape", "rsub", "sigmoid", "sigmoid_", "sign", "sin",
    "softmax", "sqrt", "squeeze", "stack", "sub", "sub_", "sum", "t", "tanh", "tanh_",
    "transpose", "unsafe_view", "unsqueeze", "view", "where", "zero_",
]
