"""The two ops of ATen's recurrent layers that are not ordinary ops.

``unsafe_split`` (``UnsafeSplitBackward0``): the pieces of a cell's gates, as ATen's
``unsafe_chunk`` cuts them; the values and gradient are ``split``'s.

``mkldnn_rnn_layer`` (``MkldnnRnnLayerBackward0``): one direction of one LSTM layer over a
whole sequence, the fused node PyTorch's CPU build records for a float32 LSTM. Its
outputs are the layer's output ``(T, B, H)`` and its last hidden and cell states
``(B, H)``; its backward is back-propagation through time over the saved inputs, which
it runs again to recover the gates: on arrays, or under ``create_graph`` from recorded
ops in the order of ATen's differentiable backward, so that the gradients have a graph.
"""

from __future__ import annotations

from typing import Any

from engine.backend import array_module
from engine.catalog import Example, Param, public
from engine.creation import ones, zeros, zeros_like
from engine.ops.core import ARRAY_MATH, Sample, apply_op, declare
from engine.ops.nn import linear
from engine.ops.pointwise import data_of
from engine.ops.shape import cat
from engine.ops.split import _split_fwd, _split_grad


def _unsafe_split_fwd(
    xp: Any, a: Any, dim: int, sizes: tuple[int, ...], split_size: int, output_nr: Any = None
) -> Any:
    return _split_fwd(xp, a, dim, sizes, output_nr)


UNSAFE_SPLIT = declare(
    "unsafe_split",
    "UnsafeSplitBackward0",
    ("self",),
    _unsafe_split_fwd,
    _split_grad,
    dtype="same",
    split=True,
    samples=(Sample(((2, 8),), {"dim": 1, "sizes": (2, 2, 2, 2), "split_size": 2}),),
)


@public(
    "unsafe_chunk",
    ("input",),
    (Param("chunks", "int", 4), Param("dim", "dim", 1)),
    outputs=("parts",),
    returns_list=True,
    category="shape",
    doc="equal pieces along dim, as the recurrent cells cut their gates (UnsafeSplitBackward0)",
    example=Example({"input": (2, 8)}, {"chunks": 4, "dim": 1}),
)
def unsafe_chunk(input: Any, chunks: int, dim: int = 0) -> tuple[Any, ...]:  # noqa: A002
    """``input.unsafe_chunk(chunks, dim)`` for a size that ``chunks`` divides."""
    dim = dim % input.ndim if input.ndim else 0
    step = input.shape[dim] // chunks
    params = {"dim": dim, "sizes": (step,) * chunks, "split_size": step}
    return apply_op(UNSAFE_SPLIT, (input,), params)


def _sigmoid(xp: Any, a: Any) -> Any:
    """The logistic function through ``tanh``: no overflow for large negative inputs."""
    return 0.5 + 0.5 * xp.tanh(0.5 * a)


def _steps(xp: Any, x: Any, w_ih: Any, w_hh: Any, b: Any, h: Any, c: Any, reverse: bool) -> Any:
    """Run the layer; per step (in the order run): the time index, the gates after their
    nonlinearities, the states before, and the cell state after."""
    hsize = w_hh.shape[1]
    proj = x @ w_ih.T + b
    order = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    record = []
    for t in order:
        gates = proj[t] + h @ w_hh.T
        i = _sigmoid(xp, gates[:, :hsize])
        f = _sigmoid(xp, gates[:, hsize : 2 * hsize])
        g = xp.tanh(gates[:, 2 * hsize : 3 * hsize])
        o = _sigmoid(xp, gates[:, 3 * hsize :])
        c_new = f * c + i * g
        record.append((t, i, f, g, o, h, c, c_new))
        h = o * xp.tanh(c_new)
        c = c_new
    return record, h, c


def _bias(xp: Any, w0: Any, w2: Any, w3: Any, has_biases: bool) -> Any:
    """Without biases ATen passes zeros shaped as the weights, which the layer ignores."""
    return w2 + w3 if has_biases else xp.zeros(w0.shape[0], dtype=w0.dtype)


def _layer_fwd(
    xp: Any,
    x: Any,
    w0: Any,
    w1: Any,
    w2: Any,
    w3: Any,
    hx: Any,
    cx: Any,
    reverse: bool,
    has_biases: bool,
    **saved: Any,
) -> Any:
    record, h, c = _steps(xp, x, w0, w1, _bias(xp, w0, w2, w3, has_biases), hx, cx, reverse)
    y = xp.empty((x.shape[0], *hx.shape), dtype=x.dtype)
    for t, *_, o, _h, _c, c_new in record:
        y[t] = o * xp.tanh(c_new)
    return y, h, c


def _differentiable_grad(ctx: Any, g_y: Any, g_hy: Any, g_cy: Any) -> tuple[Any, ...]:
    """ATen's ``mkldnn_rnn_layer_differentiable_backward`` (``create_graph``): the gates
    recomputed and the gradients formed from recorded ops, so they have a graph."""
    s, reverse = ctx.saved, ctx.params["reverse"]
    x, w0, w1, hx, cx = s["input"], s["weight0"], s["weight1"], s["hx_"], s["cx_"]
    steps, hsize = x.shape[0], hx.shape[-1]
    if ctx.params["has_biases"]:
        b_ih, b_hh = s["weight2"], s["weight3"]
    else:
        b_ih = b_hh = zeros(4 * hsize, dtype=w0.dtype, device=w0.device)
    gates: list[Any] = [None] * steps
    states = [(hx, cx)]
    h, cell = hx, cx
    for seq in range(1, steps + 1):
        t = steps - seq if reverse else seq - 1
        gate = linear(x[t], w0, b_ih).add_(linear(h, w1, b_hh))
        i, f, g, o = unsafe_chunk(gate, 4, 1)
        i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
        gates[t] = (i, f, g, o)
        cell = (f * cell).add(i * g)
        h = o * cell.tanh()
        states.append((h, cell))
    g_y = zeros((steps, *hx.shape), dtype=x.dtype, device=x.device) if g_y is None else g_y
    g_hy = zeros_like(hx) if g_hy is None else g_hy.contiguous()
    g_cy = zeros_like(cx) if g_cy is None else g_cy.contiguous()
    g_y = g_y.contiguous()
    # C++'s ``1 - t`` fills a tensor with 1 and subtracts: SubBackward0, not RsubBackward1
    one = ones((), dtype=x.dtype, device=x.device)
    dxs: list[Any] = [None] * steps
    dwx = dwh = db = dprev_h = dprev_c = None
    for seq in range(steps - 1, -1, -1):
        t = steps - seq - 1 if reverse else seq
        i, f, g, o = gates[t]
        cy = states[seq + 1][1]
        h_prev, c_prev = states[seq]
        dh = g_y[t].add(g_hy)
        d1 = g_cy.add(dh * o * (one - cy.tanh() * cy.tanh()))
        dgp, dip, dprev_c, dfp = d1 * i, d1 * g, d1 * f, d1 * c_prev
        dop = dh * cy.tanh()
        da = cat(
            [dip * i * (one - i), dfp * f * (one - f), dgp * (one - g * g), dop * o * (one - o)], 1
        )
        db_step = da.sum(0)
        dxs[t] = da.matmul(w0).unsqueeze(0)
        dprev_h = da.matmul(w1)
        dwx_step = da.transpose(0, 1).matmul(x[t])
        dwh_step = da.transpose(0, 1).matmul(h_prev)
        if seq == steps - 1:
            db, dwx, dwh = db_step, dwx_step, dwh_step
        else:
            db += db_step
            dwx += dwx_step
            dwh += dwh_step
        g_hy, g_cy = dprev_h, dprev_c
    biases = (db, db) if ctx.params["has_biases"] else (None, None)
    return (cat(dxs, 0), dwx, dwh, *biases, dprev_h, dprev_c)


def _layer_grad(ctx: Any, g_y: Any, g_hy: Any = None, g_cy: Any = None) -> Any:
    if ctx.math is not ARRAY_MATH:
        return _differentiable_grad(ctx, g_y, g_hy, g_cy)
    s = {k: data_of(ctx, v) for k, v in ctx.saved.items()}
    x, w_ih, w_hh, hx = s["input"], s["weight0"], s["weight1"], s["hx_"]
    xp = array_module(x)
    b = _bias(xp, w_ih, s["weight2"], s["weight3"], ctx.params["has_biases"])
    record, _, _ = _steps(xp, x, w_ih, w_hh, b, hx, s["cx_"], ctx.params["reverse"])
    g_y, g_hy, g_cy = (None if g is None else data_of(ctx, g) for g in (g_y, g_hy, g_cy))
    dh = xp.zeros_like(hx) if g_hy is None else g_hy
    dc = xp.zeros_like(hx) if g_cy is None else g_cy
    dx = xp.zeros_like(x)
    dw_ih, dw_hh, db = xp.zeros_like(w_ih), xp.zeros_like(w_hh), xp.zeros_like(b)
    for t, i, f, g, o, h_prev, c_prev, c_new in reversed(record):
        if g_y is not None:
            dh = dh + g_y[t]
        tc = xp.tanh(c_new)
        dc = dc + dh * o * (1 - tc * tc)
        dgates = xp.concatenate(
            (
                dc * g * i * (1 - i),
                dc * c_prev * f * (1 - f),
                dc * i * (1 - g * g),
                dh * tc * o * (1 - o),
            ),
            axis=1,
        )
        dw_ih += dgates.T @ x[t]
        dw_hh += dgates.T @ h_prev
        db += dgates.sum(0)
        dx[t] = dgates @ w_ih
        dh = dgates @ w_hh
        dc = dc * f
    biases = (db, db.copy()) if ctx.params["has_biases"] else (None, None)
    return (dx, dw_ih, dw_hh, *biases, dh, dc)


MKLDNN_RNN_LAYER = declare(
    "mkldnn_rnn_layer",
    "MkldnnRnnLayerBackward0",
    ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_"),
    _layer_fwd,
    _layer_grad,
    dtype="same",
    outputs=3,
    every_output=True,
    save={k: None for k in ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_")},
    samples=(
        Sample(
            ((3, 2, 2), (8, 2), (8, 2), (8,), (8,), (2, 2), (2, 2)),
            {"reverse": False, "has_biases": True},
        ),
        Sample(
            ((2, 1, 3), (8, 3), (8, 2), (8,), (8,), (1, 2), (1, 2)),
            {"reverse": True, "has_biases": True},
        ),
    ),
)


@public(
    "mkldnn_rnn_layer",
    ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_"),
    (
        Param("reverse", "bool", False),
        Param("batch_sizes", "shape", []),
        Param("mode", "int", 2),
        Param("hidden_size", "int", 2),
        Param("num_layers", "int", 1),
        Param("has_biases", "bool", True),
        Param("bidirectional", "bool", False),
        Param("batch_first", "bool", False),
        Param("train", "bool", True),
    ),
    outputs=("output", "hy", "cy"),
    category="layer",
    doc="one direction of one float32 LSTM layer over a sequence, the fused node "
    "PyTorch's CPU build records for nn.LSTM (MkldnnRnnLayerBackward0)",
    method=False,
    example=Example(
        {
            "input": (3, 2, 2),
            "weight0": (8, 2),
            "weight1": (8, 2),
            "weight2": (8,),
            "weight3": (8,),
            "hx_": (2, 2),
            "cx_": (2, 2),
        },
        {"hidden_size": 2},
    ),
)
def mkldnn_rnn_layer(
    input: Any,  # noqa: A002
    weight0: Any,
    weight1: Any,
    weight2: Any,
    weight3: Any,
    hx_: Any,
    cx_: Any,
    reverse: bool,
    batch_sizes: Any,
    mode: int,
    hidden_size: int,
    num_layers: int,
    has_biases: bool,
    bidirectional: bool,
    batch_first: bool,
    train: bool,
) -> tuple[Any, Any, Any]:
    """``torch.mkldnn_rnn_layer``, as ATen's schema takes it: one direction of one
    float32 LSTM layer as PyTorch's oneDNN path runs it; ``num_layers``,
    ``bidirectional``, ``batch_first`` and ``train`` are the whole LSTM's, which
    PyTorch's node saves.  PyTorch returns a fourth tensor, oneDNN's workspace, whose
    bytes are its own; the engine returns the output and the last states."""
    params = {
        "reverse": reverse,
        "has_biases": has_biases,
        "batch_sizes": tuple(batch_sizes),
        "mode": mode,
        "hidden_size": hidden_size,
        "num_layers": num_layers,
        "bidirectional": bidirectional,
        "batch_first": batch_first,
        "train": train,
    }
    out, hy, cy = apply_op(
        MKLDNN_RNN_LAYER, (input, weight0, weight1, weight2, weight3, hx_, cx_), params
    )
    return out, hy, cy


def _pack_fwd(xp: Any, a: Any, lengths: tuple[int, ...], batch_first: bool) -> Any:
    if batch_first:
        a = xp.swapaxes(a, 0, 1)
    steps = [a[t, : sum(1 for n in lengths if n > t)] for t in range(lengths[0])]
    return xp.concatenate(steps, axis=0)  # a new C-contiguous array


def _pack_grad(ctx: Any, g: Any) -> Any:
    """``_pack_padded_sequence_backward``: each step's rows back into a zero input."""
    lengths, batch_first = ctx.params["lengths"], ctx.params["batch_first"]
    data = data_of(ctx, g)
    xp = array_module(data)
    shape = ctx.shapes[0]
    seq_shape = (shape[1], shape[0], *shape[2:]) if batch_first else tuple(shape)
    out = xp.zeros(seq_shape, dtype=data.dtype)
    offset = 0
    for t in range(lengths[0]):
        n = sum(1 for k in lengths if k > t)
        out[t, :n] = data[offset : offset + n]
        offset += n
    if batch_first:
        out = xp.swapaxes(out, 0, 1).copy()  # C order, in NumPy and CuPy alike
    return out if ctx.math is ARRAY_MATH else type(g)._wrap(out)


PACK_PADDED = declare(
    "_pack_padded_sequence",
    "PackPaddedSequenceBackward0",
    ("input",),
    _pack_fwd,
    _pack_grad,
    dtype="same",
    samples=(
        Sample(((3, 2, 2),), {"lengths": (3, 2), "batch_first": False}),
        Sample(((2, 3, 1),), {"lengths": (3, 1), "batch_first": True}),
    ),
)


def pack_padded(input: Any, lengths: tuple[int, ...], batch_first: bool) -> Any:  # noqa: A002
    """The packed data of ``input`` (rows of each time step, longest sequences first)."""
    return apply_op(PACK_PADDED, (input,), {"lengths": lengths, "batch_first": batch_first})
