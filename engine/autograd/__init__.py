"""``engine.autograd``: backward, grad, custom Functions and the graph types."""

from engine.autograd import anomaly_mode, forward_ad, functional, graph
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
