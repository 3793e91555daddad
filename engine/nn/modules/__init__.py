"""The layers of ``engine.nn``, one module per family as in PyTorch."""

from engine.nn.modules.activation import (
    ELU,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)
from engine.nn.modules.container import ModuleDict, ModuleList, Sequential
from engine.nn.modules.linear import Flatten, Identity, Linear
from engine.nn.modules.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from engine.nn.modules.module import Module

__all__ = [
    "ELU",
    "BCELoss",
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "Flatten",
    "Hardtanh",
    "HuberLoss",
    "Identity",
    "L1Loss",
    "LeakyReLU",
    "Linear",
    "LogSigmoid",
    "LogSoftmax",
    "MSELoss",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "ReLU",
    "ReLU6",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "SmoothL1Loss",
    "Softmax",
    "Softplus",
    "Tanh",
]
