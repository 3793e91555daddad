"""Run to Import records the engine's composite layers as the ops they perform
(``nn.MultiheadAttention``, the Transformer layers, ``nn.GRU``/``RNN``/cells and a float64
``nn.LSTM``; a float32 ``nn.LSTM`` as the fused ``mkldnn_rnn_layer`` node per layer and
direction that PyTorch's CPU build records), takes a 0-d tensor as a slice bound and a
``range`` as an index, and refuses what a document cannot hold (``torch.func``, forward
AD) in one line at the program's line."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradstudio.document.model import Document
from gradstudio.interchange.program_import.runner import import_program
from gradstudio.interchange.pytorch_import import ImportProblem

RECURRENT = """\
import torch
import torch.nn as nn
torch.manual_seed(0)
lstm = nn.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True).double()
gru = nn.GRU(3, 4).double()
cell = nn.GRUCell(3, 4).double()
x = torch.randn(2, 5, 3, dtype=torch.float64)
out, (h, c) = lstm(x)
seq, hn = gru(x.transpose(0, 1))
hx = cell(x[:, 0])
loss = out.sum() + h.pow(2).sum() + hx.sum() + seq.mean()
loss.backward()
"""

ATTENTION = """\
import torch
import torch.nn as nn
torch.manual_seed(0)
mha = nn.MultiheadAttention(8, 2, batch_first=True)
layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True)
x = torch.randn(2, 5, 8, requires_grad=True)
mask = nn.Transformer.generate_square_subsequent_mask(5)
out, w = mha(x, x, x, attn_mask=mask)
y = layer(out)
y.pow(2).mean().backward()
"""

FUSED_LSTM = """\
import torch
import torch.nn as nn
torch.manual_seed(0)
lstm = nn.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True)
x = torch.randn(2, 5, 3, requires_grad=True)
out, (h, c) = lstm(x)
(out.sum() + h.pow(2).sum() + c.mean()).backward()
"""

INDEXING = """\
import torch
torch.manual_seed(0)
data = torch.arange(20.0, requires_grad=True)
s = torch.randint(0, 10, ())
piece = data[s : s + 4]
logits = torch.randn(3, 4, requires_grad=True)
picked = logits[range(3), torch.tensor([0, 2, 1])]
(piece.sum() + picked.sum()).backward()
"""


def _program(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "program.py"
    path.write_text(text)
    return path


def _kinds(doc: Document) -> set[str]:
    return {node.type_id for node in doc.nodes()}


def test_recurrent_layers_import_as_their_ops(tmp_path: Path) -> None:
    doc = import_program(_program(tmp_path, RECURRENT))
    kinds = _kinds(doc)
    assert "torch.unsafe_chunk" in kinds
    assert "torch.nn.functional.linear" in kinds


def test_a_float32_lstm_imports_as_one_fused_node_per_layer_and_direction(
    tmp_path: Path,
) -> None:
    doc = import_program(_program(tmp_path, FUSED_LSTM))
    fused = [n for n in doc.nodes() if n.type_id == "torch.mkldnn_rnn_layer"]
    assert len(fused) == 4
    assert [n.params["reverse"] for n in fused] == [False, True, False, True]


def test_attention_layers_import_as_their_ops(tmp_path: Path) -> None:
    doc = import_program(_program(tmp_path, ATTENTION))
    kinds = _kinds(doc)
    assert {"torch.baddbmm", "torch.nn.functional.relu"} <= kinds


def test_tensor_slice_bounds_and_ranges_import(tmp_path: Path) -> None:
    doc = import_program(_program(tmp_path, INDEXING))
    assert "torch.randint" not in _kinds(doc)  # the bound is its value, the draw a literal


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "import torch\nfrom torch.func import vmap\nx = torch.randn(3, 2)\n"
            "y = vmap(torch.sin)(x)\n",
            "line 4: torch.func.vmap cannot be imported",
        ),
        (
            "import torch\nimport torch.autograd.forward_ad as fwAD\nx = torch.randn(3)\n"
            "with fwAD.dual_level():\n    d = fwAD.make_dual(x, torch.ones(3))\n",
            "line 5: forward-mode AD (make_dual) cannot be imported",
        ),
    ],
)
def test_what_a_document_cannot_hold_is_refused_at_its_line(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(ImportProblem) as err:
        import_program(_program(tmp_path, text))
    assert str(err.value).startswith(message)


@pytest.mark.torch
@pytest.mark.parametrize("text", [RECURRENT, FUSED_LSTM, ATTENTION, INDEXING])
def test_imported_layers_verify_against_torch(text: str, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from gradstudio.cli import main

    doc = tmp_path / "doc.gstudio"
    assert main(["import", "--run", str(_program(tmp_path, text)), "-o", str(doc)]) == 0
    assert main(["verify", str(doc)]) == 0
