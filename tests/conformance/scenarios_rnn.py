"""Conformance scenarios for the recurrent layers and ``nn.utils.rnn``.

The weights come from PyTorch's own seeded initialisation (``torch.manual_seed(0)`` then
the layer; its parameters are recorded with their gradients), so the values also check
that the engine draws them in PyTorch's order; the graphs check ATen's CPU composition
(and the fused ``MkldnnRnnLayerBackward0`` of a float32 LSTM).
"""

from __future__ import annotations

from tests.conformance.scenarios import _add

_GRADS = """
params = list(m.parameters())
"""


def _layer(name: str, ctor: str, body: str) -> None:
    _add(name, "torch.manual_seed(0)\nm = " + ctor + "\n" + body.strip() + "\n" + _GRADS)


_layer(
    "rnn_tanh_default",
    "torch.nn.RNN(3, 4)",
    """
x = torch.randn(5, 2, 3, requires_grad=True)
out, h_n = m(x)
(out.sum() + h_n.pow(2).sum()).backward()
names = [n for n, _ in m.named_parameters()]
shapes = [list(p.shape) for p in m.parameters()]
""",
)

_layer(
    "rnn_relu_two_layers_bidirectional_batch_first_h0",
    "torch.nn.RNN(3, 4, num_layers=2, nonlinearity='relu', bidirectional=True, batch_first=True)",
    """
x = torch.randn(2, 5, 3, requires_grad=True)
h0 = torch.randn(4, 2, 4, requires_grad=True)
out, h_n = m(x, h0)
(out.sum() + h_n.sum()).backward()
""",
)

_layer(
    "rnn_without_bias_unbatched",
    "torch.nn.RNN(3, 4, bias=False)",
    """
x = torch.randn(5, 3, requires_grad=True)
h0 = torch.randn(1, 4)
out, h_n = m(x, h0)
out.sum().backward()
keys = list(m.state_dict().keys())
""",
)

_layer(
    "gru_default",
    "torch.nn.GRU(3, 4)",
    """
x = torch.randn(4, 2, 3, requires_grad=True)
out, h_n = m(x)
(out.sum() + h_n.sum()).backward()
""",
)

_layer(
    "gru_two_layers_bidirectional_h0",
    "torch.nn.GRU(3, 4, num_layers=2, bidirectional=True)",
    """
x = torch.randn(4, 2, 3, requires_grad=True)
h0 = torch.randn(4, 2, 4, requires_grad=True)
out, h_n = m(x, h0)
(out.pow(2).sum() + h_n.sum()).backward()
""",
)

_layer(
    "gru_batch_first_without_bias",
    "torch.nn.GRU(3, 4, bias=False, batch_first=True)",
    """
x = torch.randn(2, 4, 3)
out, h_n = m(x)
out.sum().backward()
""",
)

_layer(
    "lstm_default_mkldnn",
    "torch.nn.LSTM(3, 4)",
    """
x = torch.randn(5, 2, 3, requires_grad=True)
out, (h_n, c_n) = m(x)
(out.sum() + h_n.sum() + c_n.pow(2).sum()).backward()
""",
)

_layer(
    "lstm_two_layers_bidirectional_batch_first_states",
    "torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True)",
    """
x = torch.randn(2, 5, 3, requires_grad=True)
h0 = torch.randn(4, 2, 4, requires_grad=True)
c0 = torch.randn(4, 2, 4, requires_grad=True)
out, (h_n, c_n) = m(x, (h0, c0))
(out.sum() + h_n.sum() + c_n.sum()).backward()
""",
)

_layer(
    "lstm_without_bias_unbatched",
    "torch.nn.LSTM(3, 4, bias=False)",
    """
x = torch.randn(5, 3, requires_grad=True)
out, (h_n, c_n) = m(x)
(out.sum() + c_n.sum()).backward()
""",
)

_layer(
    "lstm_float64_two_layers_composite",
    "torch.nn.LSTM(3, 4, num_layers=2).double()",
    """
x = torch.randn(3, 2, 3, dtype=torch.float64, requires_grad=True)
out, (h_n, c_n) = m(x)
(out.sum() + h_n.sum() + c_n.sum()).backward()
""",
)

_layer(
    "lstm_projection_float64",
    "torch.nn.LSTM(3, 5, proj_size=2, bidirectional=True, batch_first=True, dtype=torch.float64)",
    """
x = torch.randn(2, 3, 3, dtype=torch.float64, requires_grad=True)
out, (h_n, c_n) = m(x)
(out.sum() + h_n.sum() + c_n.sum()).backward()
shown = repr(m)
shapes = [list(p.shape) for p in m.parameters()]
""",
)

_layer(
    "lstm_dropout_between_layers_training",
    "torch.nn.LSTM(3, 4, num_layers=3, dropout=0.5)",
    """
x = torch.randn(4, 2, 3)
out, (h_n, c_n) = m(x)
(out.sum() + h_n.sum()).backward()
m.eval()
out_eval, _ = m(x)
""",
)

_layer(
    "gru_dropout_between_layers_training",
    "torch.nn.GRU(3, 4, num_layers=2, dropout=0.3)",
    """
x = torch.randn(4, 2, 3, requires_grad=True)
out, h_n = m(x)
out.sum().backward()
""",
)

_add(
    "rnn_dropout_with_one_layer_warns",
    """
    m = torch.nn.GRU(3, 4, dropout=0.2)
    shown = repr(m)
    """,
)

_add(
    "rnn_repr_and_parameter_facts",
    """
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(10, 20, num_layers=2, batch_first=True)
    shown = [repr(lstm), repr(torch.nn.RNN(3, 4, nonlinearity="relu", bidirectional=True)),
             repr(torch.nn.GRU(3, 4, bias=False, dropout=0.5, num_layers=2)),
             repr(torch.nn.RNNCell(3, 4, nonlinearity="relu")), repr(torch.nn.LSTMCell(3, 4)),
             repr(torch.nn.GRUCell(3, 4, bias=False))]
    keys = list(lstm.state_dict().keys())
    all_shapes = [[list(p.shape) for p in layer] for layer in lstm.all_weights]
    flat = [list(p.shape) for p in lstm._flat_weights]
    w = lstm.weight_hh_l1
    first = lstm.weight_ih_l0[:2, :3]
    """,
)

_add(
    "rnn_cells_batched_and_unbatched",
    """
    torch.manual_seed(0)
    rnn = torch.nn.RNNCell(3, 4)
    relu = torch.nn.RNNCell(3, 4, nonlinearity="relu")
    lstm = torch.nn.LSTMCell(3, 4)
    gru = torch.nn.GRUCell(3, 4)
    x = torch.randn(2, 3, requires_grad=True)
    v = torch.randn(3, requires_grad=True)
    h = torch.randn(2, 4, requires_grad=True)
    a = rnn(x, h)
    b = relu(v)
    hy, cy = lstm(x, (h, h * 0.5))
    hv, cv = lstm(v)
    g = gru(x, h)
    gv = gru(v, h[0])
    (a.sum() + b.sum() + hy.sum() + cy.sum() + hv.sum() + cv.sum() + g.sum() + gv.sum()).backward()
    params = [p for cell in (rnn, relu, lstm, gru) for p in cell.parameters()]
    """,
)

_add(
    "rnn_cells_without_bias",
    """
    torch.manual_seed(0)
    cells = [torch.nn.RNNCell(2, 3, bias=False), torch.nn.LSTMCell(2, 3, bias=False),
             torch.nn.GRUCell(2, 3, bias=False)]
    x = torch.randn(4, 2)
    a = cells[0](x)
    b, c = cells[1](x)
    d = cells[2](x)
    (a.sum() + b.sum() + c.sum() + d.sum()).backward()
    params = [p for cell in cells for p in cell.parameters()]
    """,
)

_add(
    "pack_padded_and_pad_packed",
    """
    R = torch.nn.utils.rnn
    torch.manual_seed(0)
    x = torch.randn(4, 3, 2, requires_grad=True)
    p = R.pack_padded_sequence(x, [4, 2, 1])
    data, batch_sizes = p.data, p.batch_sizes
    none = [p.sorted_indices is None, p.unsorted_indices is None, type(p).__name__]
    padded, lengths = R.pad_packed_sequence(p)
    padded.pow(2).sum().backward()
    """,
)

_add(
    "pack_unsorted_batch_first_total_length",
    """
    R = torch.nn.utils.rnn
    torch.manual_seed(0)
    x = torch.randn(3, 4, 2, requires_grad=True)
    p = R.pack_padded_sequence(x, torch.tensor([1, 4, 2]), batch_first=True, enforce_sorted=False)
    data, batch_sizes, si, ui = p
    padded, lengths = R.pad_packed_sequence(p, batch_first=True, padding_value=-1.0, total_length=6)
    (padded * padded).sum().backward()
    """,
)

_add(
    "pad_sequence_sides_and_pack_sequence",
    """
    R = torch.nn.utils.rnn
    torch.manual_seed(0)
    a = torch.randn(3, 2, requires_grad=True)
    b = torch.randn(1, 2, requires_grad=True)
    right = R.pad_sequence([a, b])
    left = R.pad_sequence([a, b], batch_first=True, padding_value=2.0, padding_side="left")
    (right.sum() + (left * left).sum()).backward()
    packed = R.pack_sequence([b, a], enforce_sorted=False)
    pdata = packed.data
    back = R.unpack_sequence(packed)
    """,
)

_add(
    "packing_errors",
    """
    R = torch.nn.utils.rnn
    x = torch.zeros(3, 2, 1)
    errors = []
    for lengths in ([2, 3], [3, 0], [3, 2, 1]):
        try:
            R.pack_padded_sequence(x, lengths)
        except RuntimeError as e:
            errors.append(str(e))
    try:
        R.pad_packed_sequence(R.pack_padded_sequence(x, [3, 2]), total_length=2)
    except ValueError as e:
        errors.append(str(e))
    """,
)

_layer(
    "gru_packed_bidirectional_two_layers",
    "torch.nn.GRU(3, 4, num_layers=2, bidirectional=True)",
    """
seqs = [torch.randn(n, 3) for n in (2, 4, 1)]
packed = torch.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)
out, h_n = m(packed)
data = out.data
(data.sum() + h_n.sum()).backward()
""",
)

_layer(
    "lstm_packed_bidirectional",
    "torch.nn.LSTM(3, 4, bidirectional=True)",
    """
seqs = [torch.randn(n, 3) for n in (4, 2, 1)]
packed = torch.nn.utils.rnn.pack_sequence(seqs)
out, (h_n, c_n) = m(packed)
data = out.data
(data.sum() + h_n.sum() + c_n.sum()).backward()
""",
)

_layer(
    "rnn_packed_with_h0",
    "torch.nn.RNN(3, 4)",
    """
x = torch.randn(4, 3, 3, requires_grad=True)
packed = torch.nn.utils.rnn.pack_padded_sequence(x, [4, 2, 2])
h0 = torch.randn(1, 3, 4, requires_grad=True)
out, h_n = m(packed, h0)
padded, lengths = torch.nn.utils.rnn.pad_packed_sequence(out)
(padded.sum() + h_n.sum()).backward()
""",
)

_add(
    "rnn_shape_errors",
    """
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(3, 4)
    calls = [
        lambda: torch.nn.RNN(3, 4)(torch.randn(2, 1, 3), torch.randn(1, 3, 4)),
        lambda: torch.nn.RNN(3, 20)(torch.randn(2, 3, 3), torch.randn(2, 3, 20)),
        lambda: torch.nn.LSTM(3, 4)(torch.randn(2, 1, 5)),
        lambda: lstm(torch.randn(2, 1, 3), (torch.zeros(1, 1, 4), torch.zeros(1, 2, 4))),
        lambda: lstm(torch.randn(2, 1, 3), (torch.zeros(1, 1, 4), torch.zeros(1, 4))),
        lambda: torch.nn.GRU(3, 4)(torch.randn(2, 1, 3, 4)),
        lambda: torch.nn.RNN(3, 4)(torch.randn(2)),
        lambda: torch.nn.GRU(3, 4)(torch.randn(2, 3), torch.randn(1, 1, 4)),
        lambda: torch.nn.RNN(3, 4)(torch.randn(2, 1, 3, dtype=torch.float64)),
        lambda: torch.nn.RNNCell(3, 4)(torch.randn(2, 5)),
        lambda: torch.nn.RNNCell(3, 4)(torch.randn(2, 3), torch.randn(3, 4)),
        lambda: torch.nn.LSTMCell(3, 4)(torch.randn(2, 3), (torch.randn(2, 4), torch.randn(2, 5))),
        lambda: torch.nn.GRUCell(3, 4)(torch.randn(2, 2, 3)),
        lambda: torch.nn.RNN(3, 4, nonlinearity="gelu"),
        lambda: torch.nn.GRU(3, 4, proj_size=2),
        lambda: torch.nn.LSTM(3, 4, proj_size=4),
        lambda: torch.nn.LSTM(3, 4, dropout=1.5),
    ]
    errors = []
    for call in calls:
        try:
            call()
        except (RuntimeError, ValueError, TypeError) as e:
            errors.append(f"{type(e).__name__}: {e}")
    """,
)

_layer(
    "lstm_double_backward_through_fused_node",
    "torch.nn.LSTM(2, 3, num_layers=2, bidirectional=True)",
    """
x = torch.randn(3, 2, 2, requires_grad=True)
out, (h_n, c_n) = m(x)
gx, gw, gb = torch.autograd.grad(
    (out * out).sum() + h_n.sum() + c_n.sum(), [x, m.weight_ih_l0, m.bias_ih_l0], create_graph=True
)
(gx.pow(2).sum() + gw.sum() + gb.sum()).backward()
""",
)

_layer(
    "lstm_double_backward_without_bias_cell_state_only",
    "torch.nn.LSTM(2, 3, bias=False)",
    """
x = torch.randn(3, 1, 2, requires_grad=True)
out, (h_n, c_n) = m(x)
gx, gw = torch.autograd.grad(c_n.sum(), [x, m.weight_hh_l0], create_graph=True)
(gx.pow(2).sum() + gw.pow(2).sum()).backward()
""",
)

_layer(
    "lstm_packed_unsorted_states_dropout",
    "torch.nn.LSTM(3, 4, num_layers=2, dropout=0.4, bidirectional=True)",
    """
seqs = [torch.randn(n, 3) for n in (2, 4, 3)]
packed = torch.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)
h0 = torch.randn(4, 3, 4, requires_grad=True)
c0 = torch.randn(4, 3, 4, requires_grad=True)
out, (h_n, c_n) = m(packed, (h0, c0))
data = out.data
(data.sum() + h_n.sum() + c_n.sum()).backward()
""",
)

_layer(
    "gru_packed_batch_first_unsorted_h0",
    "torch.nn.GRU(3, 4, batch_first=True)",
    """
x = torch.randn(3, 4, 3)
lengths = torch.tensor([2, 4, 1])
packed = torch.nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
h0 = torch.randn(1, 3, 4, requires_grad=True)
out, h_n = m(packed, h0)
padded, out_lengths = torch.nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
(padded.sum() + h_n.sum()).backward()
""",
)
