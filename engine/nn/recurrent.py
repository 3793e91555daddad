"""The recurrent layers' computation as ATen's CPU path runs it (``aten/src/ATen/native/RNN.cpp``).

Built from ordinary ops in ATen's order, so the graph is PyTorch's node for node: the
input of a layer projected at once (``linear``) and cut into steps (``unbind``, or
``narrow`` for packed data), each cell ``linear_hh(h) + step`` then its gates
(``unsafe_chunk``), the step outputs stacked (``cat`` for packed data), the final hidden
states stacked. A float32 LSTM over a padded (not packed) batch runs instead as PyTorch's
oneDNN path does: one fused ``mkldnn_rnn_layer`` node per layer and direction.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from engine import dtypes
from engine.creation import zeros
from engine.nn.dropout import dropout
from engine.ops.nn import linear
from engine.ops.recurrent import mkldnn_rnn_layer, unsafe_chunk
from engine.ops.shape import cat, stack

Params = Sequence[Any]  # w_ih, w_hh, b_ih, b_hh, w_hr: None where absent
Cell = Callable[[Any, Any, Params, bool], Any]


def _ih(x: Any, p: Params, pre: bool) -> Any:
    return x if pre else linear(x, p[0], p[2])


def rnn_tanh_cell(x: Any, h: Any, p: Params, pre: bool = False) -> Any:
    return (linear(h, p[1], p[3]) + _ih(x, p, pre)).tanh()


def rnn_relu_cell(x: Any, h: Any, p: Params, pre: bool = False) -> Any:
    return (linear(h, p[1], p[3]) + _ih(x, p, pre)).relu()


def lstm_cell(x: Any, hidden: tuple[Any, Any], p: Params, pre: bool = False) -> tuple[Any, Any]:
    h, c = hidden
    gates = linear(h, p[1], p[3]) + _ih(x, p, pre)
    i, f, g, o = unsafe_chunk(gates, 4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    cy = (f * c).add_(i * g)  # in place, as ATen: cy's version is 1
    hy = o * cy.tanh()
    if p[4] is not None:
        hy = hy.matmul(p[4].t())
    return hy, cy


def gru_cell(x: Any, h: Any, p: Params, pre: bool = False) -> Any:
    ig = unsafe_chunk(_ih(x, p, pre), 3, 1)
    hg = unsafe_chunk(linear(h, p[1], p[3]), 3, 1)
    reset = (hg[0] + ig[0]).sigmoid()
    update = (hg[1] + ig[1]).sigmoid()
    new = (ig[2] + hg[2] * reset).tanh()
    return (h - new).mul_(update).add_(new)  # in place, as ATen: version 2


CELLS: dict[str, Cell] = {
    "RNN_TANH": rnn_tanh_cell,
    "RNN_RELU": rnn_relu_cell,
    "LSTM": lstm_cell,
    "GRU": gru_cell,
}


def _output(hidden: Any) -> Any:
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _narrow(hidden: Any, start: int, length: int) -> Any:
    if isinstance(hidden, tuple):
        return tuple(t.narrow(0, start, length) for t in hidden)
    return hidden.narrow(0, start, length)


def _concat(hiddens: Sequence[Any]) -> Any:
    if isinstance(hiddens[0], tuple):
        return tuple(cat([h[k] for h in hiddens], 0) for k in range(len(hiddens[0])))
    return cat(list(hiddens), 0)


def full_layer(cell: Cell, x: Any, hidden: Any, p: Params, reverse: bool) -> tuple[Any, Any]:
    """``FullLayer`` / ``ReversedFullLayer`` on CPU: the steps of ``linear_ih(x).unbind(0)``."""
    steps = linear(x, p[0], p[2]).unbind(0)
    if not steps:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    outputs = []
    for step in reversed(steps) if reverse else steps:
        hidden = cell(step, hidden, p, True)
        outputs.append(_output(hidden))
    if reverse:
        outputs.reverse()
    return stack(outputs, 0), hidden


def packed_layer(
    cell: Cell, x: Any, hidden: Any, p: Params, reverse: bool, *, batch_sizes: list[int]
) -> tuple[Any, Any]:
    """``PackedLayer`` / ``ReversedPackedLayer``: steps narrowed out of the packed data;
    the hidden state shrinks (forward) or grows (reverse) with the batch size."""
    proj = linear(x, p[0], p[2])
    outputs = []
    if not reverse:
        finished = []
        offset, last = 0, batch_sizes[0]
        for size in batch_sizes:
            step = proj.narrow(0, offset, size)
            offset += size
            if last > size:
                finished.append(_narrow(hidden, size, last - size))
                hidden = _narrow(hidden, 0, size)
            last = size
            hidden = cell(step, hidden, p, True)
            outputs.append(_output(hidden))
        finished.append(hidden)
        finished.reverse()
        return cat(outputs, 0), _concat(finished)
    initial = hidden
    offset, last = proj.shape[0], batch_sizes[-1]
    hidden = _narrow(initial, 0, last)
    for size in reversed(batch_sizes):
        if size > last:
            hidden = _concat([hidden, _narrow(initial, last, size - last)])
        step = proj.narrow(0, offset - size, size)
        offset -= size
        last = size
        hidden = cell(step, hidden, p, True)
        outputs.append(_output(hidden))
    outputs.reverse()
    return cat(outputs, 0), hidden


def _layer_stack(
    layer: Callable[[Any, Any, Params, bool], tuple[Any, Any]],
    x: Any,
    hiddens: Sequence[Any],
    params: Sequence[Params],
    num_layers: int,
    p_drop: float,
    train: bool,
    bidirectional: bool,
    padded: bool,
) -> tuple[Any, list[Any]]:
    """``apply_layer_stack``: each layer (both directions, outputs concatenated on the
    last dimension: ATen names it ``dim() - 1`` for a padded batch, ``-1`` for packed
    data), then dropout between layers while training."""
    finals: list[Any] = []
    directions = 2 if bidirectional else 1
    for layer_index in range(num_layers):
        outs = []
        for d in range(directions):
            k = layer_index * directions + d
            out, final = layer(x, hiddens[k], params[k], d == 1)
            outs.append(out)
            finals.append(final)
        x = cat(outs, outs[0].ndim - 1 if padded else -1) if bidirectional else outs[0]
        if p_drop != 0 and train and layer_index < num_layers - 1:
            x = dropout(x, p_drop, True)
    return x, finals


def group_params(flat: Sequence[Any], has_biases: bool, has_proj: bool) -> list[Params]:
    """``gather_params``: (w_ih, w_hh, b_ih, b_hh, w_hr) per layer and direction."""
    size = 2 + 2 * has_biases + has_proj
    groups = []
    for k in range(0, len(flat), size):
        g = list(flat[k : k + size])
        b_ih, b_hh = (g[2], g[3]) if has_biases else (None, None)
        groups.append((g[0], g[1], b_ih, b_hh, g[-1] if has_proj else None))
    return groups


_PROJ_WARNED = [False]


def _use_mkldnn(input: Any, has_proj: bool) -> bool:  # noqa: A002
    """ATen's ``use_mkldnn`` for ``lstm`` (a float32 CPU input that is not empty); with
    projections PyTorch warns once per process and takes the composite path."""
    if input.device.type != "cpu" or input.dtype != dtypes.float32 or input.numel() == 0:
        return False
    if has_proj:
        if not _PROJ_WARNED[0]:
            _PROJ_WARNED[0] = True
            warnings.warn(
                "LSTM with projections is not supported with oneDNN. Using default implementation.",
                UserWarning,
                stacklevel=3,  # the layer's forward, where PyTorch calls _VF.lstm
            )
        return False
    return True


def _mkldnn_lstm(
    input: Any,  # noqa: A002
    hx: Any,
    cx: Any,
    params: Sequence[Params],
    num_layers: int,
    p_drop: float,
    train: bool,
    bidirectional: bool,
    batch_first: bool,
) -> tuple[Any, Any, Any]:
    x = (input.transpose(0, 1) if batch_first else input).contiguous()
    hx, cx = hx.contiguous(), cx.contiguous()
    directions = 2 if bidirectional else 1
    hys, cys = [], []
    for layer_index in range(num_layers):
        outs = []
        for d in range(directions):
            k = layer_index * directions + d
            w_ih, w_hh, b_ih, b_hh, _ = params[k]
            has_biases = b_ih is not None
            if not has_biases:
                b_ih = zeros(w_ih.shape, dtype=w_ih.dtype, device=w_ih.device)
                b_hh = zeros(w_hh.shape, dtype=w_hh.dtype, device=w_hh.device)
            out, hy, cy = mkldnn_rnn_layer(
                x,
                w_ih,
                w_hh,
                b_ih,
                b_hh,
                hx[k],
                cx[k],
                d == 1,
                [],
                2,
                hx.shape[-1],
                num_layers,
                has_biases,
                bidirectional,
                batch_first,
                train,
            )
            outs.append(out)
            hys.append(hy)
            cys.append(cy)
        x = cat(outs, -1) if bidirectional else outs[0]
        if p_drop != 0 and train and layer_index < num_layers - 1:
            x = dropout(x, p_drop, True)
    if batch_first:
        x = x.transpose(0, 1)
    return x, stack(hys, 0), stack(cys, 0)


def run(
    mode: str,
    input: Any,  # noqa: A002
    hx: Any,
    flat: Sequence[Any],
    has_biases: bool,
    num_layers: int,
    p_drop: float,
    train: bool,
    bidirectional: bool,
    batch_first: bool,
    batch_sizes: list[int] | None = None,
) -> tuple[Any, ...]:
    """``_VF.rnn_tanh`` / ``rnn_relu`` / ``gru`` / ``lstm``: (output, h_n) or
    (output, h_n, c_n); ``input`` is packed data when ``batch_sizes`` is given."""
    lstm = mode == "LSTM"
    has_proj = lstm and hx[0].shape[2] != hx[1].shape[2]
    params = group_params(flat, has_biases, has_proj)
    if lstm and batch_sizes is None and _use_mkldnn(input, has_proj):
        return _mkldnn_lstm(
            input, hx[0], hx[1], params, num_layers, p_drop, train, bidirectional, batch_first
        )
    cell = CELLS[mode]
    hiddens = list(zip(hx[0].unbind(0), hx[1].unbind(0))) if lstm else list(hx.unbind(0))
    if batch_sizes is None:
        layer = partial(full_layer, cell)
        x = input.transpose(0, 1) if batch_first else input
    else:
        layer = partial(packed_layer, cell, batch_sizes=batch_sizes)
        x = input
    out, finals = _layer_stack(
        layer, x, hiddens, params, num_layers, p_drop, train, bidirectional, batch_sizes is None
    )
    if batch_sizes is None and batch_first:
        # ATen transposes the LSTM's output anew, the others' in place
        out = out.transpose(0, 1) if lstm else out.transpose_(0, 1)
    if lstm:
        return out, stack([f[0] for f in finals], 0), stack([f[1] for f in finals], 0)
    return out, stack(finals, 0)
