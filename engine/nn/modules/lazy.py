"""Lazy layers (``LazyLinear``, ``LazyConv1d/2d``, ``LazyBatchNorm1d/2d``): the input size
is left out and read from the first batch, as d2l builds every network.

As in PyTorch, the parameters are ``UninitializedParameter`` until the first call, whose
forward pre-hook materializes them with the input's size, initialises them as the eager
layer does (so the random stream is drawn at the first call, not at construction), removes
itself and turns the module into its eager class (``LazyLinear`` prints as ``Linear`` after).
"""

from __future__ import annotations

from typing import Any

from engine import dtypes
from engine.creation import tensor
from engine.grad_mode import no_grad
from engine.nn.modules.conv import Conv1d, Conv2d
from engine.nn.modules.linear import Linear
from engine.nn.modules.normalization import BatchNorm1d, BatchNorm2d
from engine.nn.parameter import UninitializedBuffer, UninitializedParameter
from engine.tensor import Tensor


class LazyModuleMixin:
    """The first-call machinery shared by the lazy layers."""

    cls_to_become: type | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(  # type: ignore[attr-defined]
            self._infer_parameters
        )

    def has_uninitialized_params(self) -> bool:
        held = [*self._parameters.values(), *self._buffers.values()]  # type: ignore[attr-defined]
        return any(isinstance(t, UninitializedParameter | UninitializedBuffer) for t in held)

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError

    def _infer_parameters(self, module: Any, args: tuple[Any, ...]) -> None:
        module.initialize_parameters(*args)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")  # type: ignore[attr-defined]
        module._initialize_hook.remove()
        del module._initialize_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become


class LazyLinear(LazyModuleMixin, Linear):
    """``Linear`` whose ``in_features`` is the last dimension of its first input."""

    cls_to_become = Linear

    def __init__(
        self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor) -> None:  # noqa: A002
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvMixin(LazyModuleMixin):
    """``ConvNd`` whose ``in_channels`` is the channel dimension of its first input."""

    def __init__(
        self,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()  # type: ignore[misc]

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:  # noqa: A002
        if self.has_uninitialized_params():
            spatial = self._spatial  # type: ignore[attr-defined]
            self.in_channels = input.shape[0 if input.ndim == spatial + 1 else 1]
            if self.in_channels % self.groups != 0:  # type: ignore[attr-defined]
                raise ValueError("in_channels must be divisible by groups")
            with no_grad():
                shape = (self.out_channels, self.in_channels // self.groups)  # type: ignore[attr-defined]
                self.weight.materialize((*shape, *self.kernel_size))  # type: ignore[attr-defined]
                if self.bias is not None:  # type: ignore[attr-defined]
                    self.bias.materialize((self.out_channels,))  # type: ignore[attr-defined]
                self.reset_parameters()


class LazyConv1d(_LazyConvMixin, Conv1d):
    cls_to_become = Conv1d


class LazyConv2d(_LazyConvMixin, Conv2d):
    cls_to_become = Conv2d


class _LazyNormMixin(LazyModuleMixin):
    """``BatchNormNd`` whose ``num_features`` is the channel dimension of its first input."""

    def __init__(
        self,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(0, eps, momentum, False, False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=dtypes.int64, device=device)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()  # type: ignore[misc]

    def initialize_parameters(self, input: Tensor) -> None:  # noqa: A002
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))  # type: ignore[attr-defined]
                self.bias.materialize((self.num_features,))  # type: ignore[attr-defined]
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))  # type: ignore[attr-defined]
                self.running_var.materialize((self.num_features,))  # type: ignore[attr-defined]
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormMixin, BatchNorm1d):
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormMixin, BatchNorm2d):
    cls_to_become = BatchNorm2d


__all__ = [
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyLinear",
    "LazyModuleMixin",
]
