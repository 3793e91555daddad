"""``engine.nn.functional`` (``F``): re-exported from the op declarations."""

from engine.nn.dropout import dropout
from engine.ops.nn import (
    cross_entropy,
    linear,
    log_softmax,
    mse_loss,
    nll_loss,
    relu,
    sigmoid,
    softmax,
    tanh,
)

__all__ = [
    "cross_entropy",
    "dropout",
    "linear",
    "log_softmax",
    "mse_loss",
    "nll_loss",
    "relu",
    "sigmoid",
    "softmax",
    "tanh",
]
