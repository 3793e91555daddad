"""``RNN``, ``LSTM``, ``GRU`` and their cells, as ``torch.nn`` has them: the same parameters
(names, shapes, order, seeded initialisation), checks and messages, shapes of results,
and the graph ATen's CPU path records (see ``engine.nn.recurrent``)."""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

from engine.creation import empty, zeros
from engine.nn import init
from engine.nn import recurrent as R
from engine.nn.modules.module import Module
from engine.nn.parameter import Parameter
from engine.nn.utils.rnn import PackedSequence
from engine.tensor import Tensor

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _check_int(name: str, value: Any) -> None:
    if not isinstance(value, int):
        raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")


class RNNBase(Module):
    """The parameters and checks the three recurrent layers share."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if (
            not isinstance(dropout, numbers.Number)
            or not 0 <= dropout <= 1  # type: ignore[operator]
            or isinstance(dropout, bool)
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of "
                "an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:  # type: ignore[operator]
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                "dropout expects num_layers greater than 1, but got "
                f"dropout={dropout} and num_layers={num_layers}",
                stacklevel=2,  # the layer's __init__, as PyTorch's
            )
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(
                f"batch_first should be of type bool, got: {type(batch_first).__name__}"
            )
        _check_int("input_size", input_size)
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        _check_int("hidden_size", hidden_size)
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        directions = 2 if bidirectional else 1
        kw = {"device": device, "dtype": dtype}
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                shapes = [(gate_size, layer_input), (gate_size, real_hidden)]
                kinds = ["weight_ih", "weight_hh"]
                if bias:
                    shapes += [(gate_size,), (gate_size,)]
                    kinds += ["bias_ih", "bias_hh"]
                if proj_size > 0:
                    shapes.append((proj_size, hidden_size))
                    kinds.append("weight_hr")
                suffix = "_reverse" if direction == 1 else ""
                names = [f"{k}_l{layer}{suffix}" for k in kinds]
                for name, shape in zip(names, shapes, strict=True):
                    setattr(self, name, Parameter(empty(shape, **kw)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list[Any]:
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op, as PyTorch's is off cuDNN."""

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input: Tensor, batch_sizes: Any) -> None:  # noqa: A002
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). "
                f"Convert input: input.to({w.dtype}), or convert model: model.to({input.dtype})"
            )
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(
                "input.size(-1) must be equal to input_size. Expected "
                f"{self.input_size}, got {input.size(-1)}"
            )

    def _mini_batch(self, input: Tensor, batch_sizes: Any) -> int:  # noqa: A002
        if batch_sizes is not None:
            return int(batch_sizes[0])
        return input.size(0) if self.batch_first else input.size(1)

    def get_expected_hidden_size(self, input: Tensor, batch_sizes: Any) -> tuple[int, int, int]:  # noqa: A002
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        directions = 2 if self.bidirectional else 1
        return (self.num_layers * directions, self._mini_batch(input, batch_sizes), size)

    def check_hidden_size(
        self,
        hx: Tensor,
        expected: tuple[int, int, int],
        msg: str = "Expected hidden size {}, got {}",
    ) -> None:
        if tuple(hx.size()) != expected:
            raise RuntimeError(msg.format(expected, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes: Any) -> None:  # noqa: A002
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Any, permutation: Any) -> Any:
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    def _zeros(self, input: Tensor, batch: int, size: int) -> Tensor:  # noqa: A002
        directions = 2 if self.bidirectional else 1
        shape = (self.num_layers * directions, batch, size)
        return zeros(shape, dtype=input.dtype, device=input.device)

    def _unpack(self, input: Any, hx: Any, name: str) -> tuple[Any, ...]:  # noqa: A002
        """(data, batch_sizes, sorted, unsorted, hx, is_batched, batch_dim) after
        PyTorch's own checks of the input's and hidden state's dimensions."""
        if isinstance(input, PackedSequence):
            data, batch_sizes, sorted_indices, unsorted_indices = input
            if hx is not None:
                hx = self.permute_hidden(hx, sorted_indices)
            sizes = [int(b) for b in batch_sizes.tolist()]
            return data, sizes, sorted_indices, unsorted_indices, hx, True, 1
        if input.dim() not in (2, 3):
            tail = " tensor instead" if name == "RNN" else " instead"
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D{tail}")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)  # noqa: A001
        return input, None, None, None, hx, is_batched, batch_dim

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _single(self, input: Any, hx: Any, name: str) -> tuple[Any, Tensor]:  # noqa: A002
        """The forward of ``RNN`` and ``GRU``: one hidden state."""
        orig = input
        input, sizes, sorted_i, unsorted_i, hx, is_batched, batch_dim = self._unpack(  # noqa: A001
            input, hx, name
        )
        if not isinstance(orig, PackedSequence) and hx is not None:
            if not is_batched:
                if hx.dim() != 2:
                    raise RuntimeError(
                        "For unbatched 2-D input, hx should also be 2-D but got "
                        f"{hx.dim()}-D tensor"
                    )
                hx = hx.unsqueeze(1)
            elif hx.dim() != 3:
                raise RuntimeError(
                    f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor"
                )
        if hx is None:
            hx = self._zeros(input, self._mini_batch(input, sizes), self.hidden_size)
        self.check_forward_args(input, hx, sizes)
        output, hidden = R.run(
            self.mode,
            input,
            hx,
            self._flat_weights,
            self.bias,
            self.num_layers,
            self.dropout,
            self.training,
            self.bidirectional,
            self.batch_first,
            sizes,
        )
        if isinstance(orig, PackedSequence):
            packed = PackedSequence(output, orig.batch_sizes, sorted_i, unsorted_i)
            return packed, self.permute_hidden(hidden, unsorted_i)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, hidden


class RNN(RNNBase):
    """Elman RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ``relu``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, Tensor]:  # noqa: A002
        return self._single(input, hx, "RNN")


class GRU(RNNBase):
    """Gated recurrent unit: reset, update and new gates per step."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, Tensor]:  # noqa: A002
        return self._single(input, hx, "GRU")


class LSTM(RNNBase):
    """Long short-term memory, with an optional projection of the hidden state."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor, batch_sizes: Any) -> tuple[int, int, int]:  # noqa: A002
        directions = 2 if self.bidirectional else 1
        return (
            self.num_layers * directions,
            self._mini_batch(input, batch_sizes),
            self.hidden_size,
        )

    def check_forward_args(self, input: Tensor, hidden: Any, batch_sizes: Any) -> None:  # type: ignore[override]  # noqa: A002
        self.check_input(input, batch_sizes)
        self.check_hidden_size(
            hidden[0],
            self.get_expected_hidden_size(input, batch_sizes),
            "Expected hidden[0] size {}, got {}",
        )
        self.check_hidden_size(
            hidden[1],
            self.get_expected_cell_size(input, batch_sizes),
            "Expected hidden[1] size {}, got {}",
        )

    def permute_hidden(self, hx: Any, permutation: Any) -> Any:
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    def forward(self, input: Any, hx: Any = None) -> tuple[Any, tuple[Tensor, Tensor]]:  # noqa: A002
        orig = input
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        packed = isinstance(orig, PackedSequence)
        input, sizes, sorted_i, unsorted_i, hx, is_batched, batch_dim = self._unpack(  # noqa: A001
            input, hx, "LSTM"
        )
        if hx is None:
            batch = self._mini_batch(input, sizes)
            hx = (
                self._zeros(input, batch, real_hidden),
                self._zeros(input, batch, self.hidden_size),
            )
            if not packed:
                self.check_forward_args(input, hx, sizes)
        elif not packed:
            if is_batched:
                if hx[0].dim() != 3 or hx[1].dim() != 3:
                    raise RuntimeError(
                        "For batched 3-D input, hx and cx should also be 3-D but got "
                        f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
                    )
            else:
                if hx[0].dim() != 2 or hx[1].dim() != 2:
                    raise RuntimeError(
                        "For unbatched 2-D input, hx and cx should also be 2-D but got "
                        f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
                    )
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
            self.check_forward_args(input, hx, sizes)
        output, hy, cy = R.run(
            "LSTM",
            input,
            hx,
            self._flat_weights,
            self.bias,
            self.num_layers,
            self.dropout,
            self.training,
            self.bidirectional,
            self.batch_first,
            sizes,
        )
        if packed:
            result = PackedSequence(output, orig.batch_sizes, sorted_i, unsorted_i)
            return result, self.permute_hidden((hy, cy), unsorted_i)
        if not is_batched:
            return output.squeeze(batch_dim), (hy.squeeze(1), cy.squeeze(1))
        return output, (hy, cy)


class RNNCellBase(Module):
    """The two weights (and biases) of one step, ``num_chunks`` gates tall."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _params(self) -> R.Params:
        return (self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh, None)

    def _batched(self, input: Tensor, name: str) -> Tensor:  # noqa: A002
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        return input if input.dim() == 2 else input.unsqueeze(0)

    def _check(self, input: Tensor, hiddens: tuple[Tensor, ...]) -> None:  # noqa: A002
        """ATen's ``check_rnn_cell_forward_input`` / ``_hidden``."""
        if input.size(1) != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.size(1)} expected {self.input_size}"
            )
        for k, h in enumerate(hiddens):
            if input.size(0) != h.size(0):
                raise RuntimeError(
                    f"Input batch size {input.size(0)} doesn't match hidden{k} batch size "
                    f"{h.size(0)}"
                )
            if h.size(1) != self.hidden_size:
                raise RuntimeError(
                    f"hidden{k} has inconsistent hidden_size: got {h.size(1)}, expected "
                    f"{self.hidden_size}"
                )

    def _zeros(self, input: Tensor) -> Tensor:  # noqa: A002
        return zeros((input.size(0), self.hidden_size), dtype=input.dtype, device=input.device)


class _SingleStateCell(RNNCellBase):
    _name = ""

    def _step(self, input: Tensor, hx: Tensor) -> Tensor:  # noqa: A002
        raise NotImplementedError

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:  # noqa: A002
        name = self._name
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        x = self._batched(input, name)
        if hx is None:
            h = self._zeros(x)
        else:
            h = hx if is_batched else hx.unsqueeze(0)
        self._check(x, (h,))
        ret = self._step(x, h)
        return ret if is_batched else ret.squeeze(0)


class RNNCell(_SingleStateCell):
    """One Elman step; ``nonlinearity`` is ``'tanh'`` or ``'relu'``."""

    _name = "RNNCell"

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def _step(self, input: Tensor, hx: Tensor) -> Tensor:  # noqa: A002
        if self.nonlinearity == "tanh":
            return R.rnn_tanh_cell(input, hx, self._params())
        if self.nonlinearity == "relu":
            return R.rnn_relu_cell(input, hx, self._params())
        raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")


class GRUCell(_SingleStateCell):
    """One GRU step."""

    _name = "GRUCell"

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def _step(self, input: Tensor, hx: Tensor) -> Tensor:  # noqa: A002
        return R.gru_cell(input, hx, self._params())


class LSTMCell(RNNCellBase):
    """One LSTM step: ``(h', c')`` from ``(h, c)``."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Tensor]:  # noqa: A002
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(
                        f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead"
                    )
        is_batched = input.dim() == 2
        x = self._batched(input, "LSTMCell")
        if hx is None:
            z = self._zeros(x)
            state = (z, z)
        else:
            state = (hx[0], hx[1]) if is_batched else (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        self._check(x, state)
        hy, cy = R.lstm_cell(x, state, self._params())
        if not is_batched:
            return hy.squeeze(0), cy.squeeze(0)
        return hy, cy
