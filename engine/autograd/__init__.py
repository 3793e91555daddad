"""``engine.autograd``: backward, grad, custom Functions and the graph types."""

# isort: off
# The package holds two layers: the graph's nodes (below Tensor, which the ops import)
# and the tools built on the ops (backward, grad, gradcheck, jacobians).  The lower ones
# load first, then the ops they serve, then the tools, each importing what it uses.
from engine.autograd import anomaly_mode, dual_state, graph, saved_attributes, transform_state
from engine.autograd import saved_tensor
import engine.ops

# isort: on
from engine.autograd import forward_ad, functional
from engine.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from engine.autograd.function import Function, FunctionCtx, once_differentiable
from engine.autograd.functional import backward, grad
from engine.autograd.gradcheck import gradcheck
from engine.autograd.gradgradcheck import gradgradcheck
from engine.autograd.variable import Variable
from engine.grad_mode import enable_grad, no_grad, set_grad_enabled

__all__ = [
    "Function",
    "FunctionCtx",
    "Variable",
    "anomaly_mode",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "forward_ad",
    "functional",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "no_grad",
    "once_differentiable",
    "set_detect_anomaly",
    "set_grad_enabled",
]
