"""The layers of ``engine.nn``, one module per family as in PyTorch."""

from engine.nn.modules.activation import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from engine.nn.modules.container import ModuleDict, ModuleList, Sequential
from engine.nn.modules.linear import Flatten, Identity, Linear
from engine.nn.modules.loss import CrossEntropyLoss, MSELoss, NLLLoss
from engine.nn.modules.module import Module

__all__ = [
    "CrossEntropyLoss",
    "Flatten",
    "Identity",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Tanh",
]
