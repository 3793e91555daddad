"""The ``engine.<name>`` functions, filled from the engine's table of declarations.

``Tensor`` resolves its operators and methods here, so an op declared in
``engine/ops`` needs no second mention anywhere: every public ``torch.*``
function and every in-place method (``add_``, ``zero_``) comes from
``engine.catalog.FUNCTIONS``.  Imported by name below are only the helpers the
engine itself calls this way that PyTorch keeps elsewhere (``F.softmax``,
``Tensor.view``) or that have no node of their own.
"""

from dataclasses import replace as _replace

from engine import ops as _ops
from engine.catalog import FUNCTIONS as _FUNCTIONS
from engine.catalog import resolved as _resolved
from engine.counting import count_nonzero
from engine.numpy_names import REDUCTIONS as _NUMPY_REDUCTIONS
from engine.numpy_names import accept_numpy_names as _accept_numpy_names
from engine.ops.broadcast import broadcast_shapes, broadcast_tensors, broadcast_to
from engine.ops.composites import (
    atleast_1d,
    atleast_2d,
    cosine_similarity,
    diff,
    hstack,
    meshgrid,
    repeat_interleave,
    tile,
    unflatten,
    unique,
    vstack,
)
from engine.ops.index import index_put, index_put_
from engine.ops.logic import allclose, equal
from engine.ops.nn import cross_entropy, linear, mse_loss, nll_loss
from engine.ops.nonzero import argwhere, nonzero
from engine.ops.norms import vector_norm  # noqa: F401
from engine.ops.pointwise import logical_and, logical_not, logical_or
from engine.ops.reduce import argmax, argmin
from engine.ops.select import argsort
from engine.ops.shape import alias, contiguous, expand, unsafe_view, view
from engine.ops.softmax_dim import log_softmax, softmax
from engine.out_arg import with_out

__all__ = [
    "alias",
    "allclose",
    "argmax",
    "argmin",
    "argsort",
    "argwhere",
    "atleast_1d",
    "atleast_2d",
    "broadcast_shapes",
    "broadcast_tensors",
    "broadcast_to",
    "contiguous",
    "cosine_similarity",
    "count_nonzero",
    "cross_entropy",
    "diff",
    "equal",
    "expand",
    "hstack",
    "index_put",
    "index_put_",
    "linear",
    "log_softmax",
    "logical_and",
    "logical_not",
    "logical_or",
    "meshgrid",
    "mse_loss",
    "nll_loss",
    "nonzero",
    "repeat_interleave",
    "softmax",
    "tile",
    "unflatten",
    "unique",
    "unsafe_view",
    "view",
    "vstack",
]


def _from_the_table() -> list[str]:
    """Every public ``torch.*`` function and every in-place method, by name and by each
    alias (``clip`` is ``clamp``: the same node, ``ClampBackward1``)."""
    added = []
    for key, sig in _FUNCTIONS.items():
        if sig.mutates:
            fn = _resolved(sig.fn)
            _FUNCTIONS[key] = _replace(sig, fn=fn)
        elif sig.namespace == "torch":
            fn = with_out(sig.name, sig.fn)
        else:
            continue
        for name in (sig.name, *sig.aliases):
            globals()[name] = fn
            added.append(name)
    return added


__all__ += _from_the_table()
for _name in _NUMPY_REDUCTIONS:
    if _name in globals():
        globals()[_name] = _accept_numpy_names(globals()[_name])
del _ops
