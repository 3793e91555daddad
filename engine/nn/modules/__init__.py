"""The layers of ``engine.nn``, one module per family as in PyTorch."""

from engine.nn.modules.activation import (
    ELU,
    GELU,
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
from engine.nn.modules.conv import Conv1d, Conv2d
from engine.nn.modules.dropout import Dropout, Dropout1d, Dropout2d
from engine.nn.modules.group_rms_norm import GroupNorm, RMSNorm
from engine.nn.modules.instancenorm import InstanceNorm1d, InstanceNorm2d
from engine.nn.modules.linear import Flatten, Identity, Linear, Unflatten
from engine.nn.modules.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)
from engine.nn.modules.module import Module
from engine.nn.modules.normalization import BatchNorm1d, BatchNorm2d, Embedding, LayerNorm
from engine.nn.modules.parameter_containers import ParameterDict, ParameterList
from engine.nn.modules.pooling import (
    AdaptiveAvgPool2d,
    AvgPool1d,
    AvgPool2d,
    MaxPool1d,
    MaxPool2d,
)
from engine.nn.modules.upsampling import (
    PixelShuffle,
    PixelUnshuffle,
    Upsample,
    UpsamplingBilinear2d,
    UpsamplingNearest2d,
)

__all__ = [
    "ELU",
    "GELU",
    "AdaptiveAvgPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "Conv1d",
    "Conv2d",
    "CrossEntropyLoss",
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Embedding",
    "Flatten",
    "GroupNorm",
    "Hardtanh",
    "HuberLoss",
    "Identity",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "KLDivLoss",
    "L1Loss",
    "LayerNorm",
    "LeakyReLU",
    "Linear",
    "LogSigmoid",
    "LogSoftmax",
    "MSELoss",
    "MaxPool1d",
    "MaxPool2d",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "ParameterDict",
    "ParameterList",
    "PixelShuffle",
    "PixelUnshuffle",
    "RMSNorm",
    "ReLU",
    "ReLU6",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "SmoothL1Loss",
    "Softmax",
    "Softplus",
    "Tanh",
    "Unflatten",
    "Upsample",
    "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
]
