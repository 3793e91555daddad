"""``Conv1d``, ``Conv2d`` and the transposed ``ConvTranspose1d/2d/3d``: weights
``(out, in / groups, *kernel)`` (``(in, out / groups, *kernel)`` when transposed),
initialised as PyTorch's (Kaiming-uniform with a=sqrt(5), bias uniform in
±1/sqrt(fan_in), both fans read from the weight as it is laid out)."""

from __future__ import annotations

import math
from typing import Any

from engine.creation import empty
from engine.grad_mode import no_grad
from engine.nn import functional as F
from engine.nn import init
from engine.nn.modules.module import Module
from engine.nn.parameter import Parameter
from engine.tensor import Tensor


def _ntuple(value: Any, n: int) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, tuple | list) else (value,) * n


class _ConvNd(Module):
    _spatial = 2
    _transposed = False

    def __init__(
        self,
        in_channels: int,
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
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode != "zeros":
            raise NotImplementedError(f"padding_mode={padding_mode!r} is not supported")
        n = self._spatial
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation = _ntuple(dilation, n)
        self.output_padding = (0,) * n
        self.groups = groups
        self.padding_mode = padding_mode
        self.transposed = self._transposed
        first, second = (
            (in_channels, out_channels) if self.transposed else (out_channels, in_channels)
        )
        self.weight = Parameter(
            empty((first, second // groups, *self.kernel_size), device=device, dtype=dtype)
        )
        if bias:
            self.bias = Parameter(empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        with no_grad():
            init.kaiming_uniform_(self.weight, a=math.sqrt(5))
            if self.bias is not None:
                fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
                bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
        s += f"stride={self.stride}"
        padding = self.padding
        if isinstance(padding, str) or padding != (0,) * len(padding):
            s += f", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class Conv1d(_ConvNd):
    _spatial = 1

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.conv1d(
            input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
        )


class Conv2d(_ConvNd):
    _spatial = 2

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return F.conv2d(
            input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
        )


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(
                f'Only "zeros" padding mode is supported for {self.__class__.__name__}'
            )
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device,
            dtype,
        )
        self.output_padding = _ntuple(output_padding, self._spatial)

    def _output_padding(self, input: Tensor, output_size: Any) -> tuple[int, ...] | list[int]:
        """The ``output_padding`` that makes the output ``output_size`` (spatial, or with
        the batch and channel dims), checked against the sizes a stride allows."""
        if output_size is None:
            return self.output_padding
        n = self._spatial
        non_spatial = 2 if input.dim() == n + 2 else 1
        output_size = list(output_size)
        if len(output_size) == non_spatial + n:
            output_size = output_size[non_spatial:]
        if len(output_size) != n:
            raise ValueError(
                f"ConvTranspose{n}D: for {input.dim()}D input, output_size must have {n} "
                f"or {non_spatial + n} elements (got {len(output_size)})"
            )
        min_sizes = [
            (input.size(d + non_spatial) - 1) * self.stride[d]
            - 2 * self.padding[d]
            + self.dilation[d] * (self.kernel_size[d] - 1)
            + 1
            for d in range(n)
        ]
        max_sizes = [m + s - 1 for m, s in zip(min_sizes, self.stride)]
        for size, low, high in zip(output_size, min_sizes, max_sizes):
            if size < low or size > high:
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range "
                    f"from {min_sizes} to {max_sizes} (for an input of {input.size()[2:]})"
                )
        return [size - low for size, low in zip(output_size, min_sizes)]

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:  # noqa: A002
        fn = getattr(F, f"conv_transpose{self._spatial}d")
        return fn(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            self._output_padding(input, output_size),
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(_ConvTransposeNd):
    _spatial = 1


class ConvTranspose2d(_ConvTransposeNd):
    _spatial = 2


class ConvTranspose3d(_ConvTransposeNd):
    _spatial = 3
