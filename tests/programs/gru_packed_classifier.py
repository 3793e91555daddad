"""Classify variable-length sequences with a bidirectional GRU over packed batches:
pad_sequence, pack_padded_sequence (unsorted), the final hidden states of both
directions into a linear head, a few SGD steps; then the padded outputs unpacked."""

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(1)
lengths = torch.tensor([5, 3, 6, 2, 4, 6])
seqs = [torch.randn(int(n), 3) + (i % 2) for i, n in enumerate(lengths)]
labels = torch.tensor([i % 2 for i in range(len(seqs))])
padded = pad_sequence(seqs, batch_first=True)
print(padded.shape, padded[3, 2:].abs().sum().item())


class Classifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.gru = nn.GRU(3, 5, batch_first=True, bidirectional=True)
        self.head = nn.Linear(10, 2)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, h_n = self.gru(packed)
        feats = torch.cat([h_n[0], h_n[1]], dim=1)
        return self.head(feats), out


model = Classifier()
print(model)
opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
for epoch in range(8):
    logits, out = model(padded, lengths)
    loss = loss_fn(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    acc = (logits.argmax(1) == labels).float().mean().item()
    print(epoch, f"{loss.item():.4f}", f"{acc:.2f}")
print(type(out).__name__, out.data.shape, out.batch_sizes.tolist())
print(out.sorted_indices.tolist(), out.unsorted_indices.tolist())
print(logits.grad_fn, out.data.grad_fn)
unpacked, lens = pad_packed_sequence(out, batch_first=True)
print(unpacked.shape, lens.tolist(), unpacked[3, 2:].abs().sum().item())
print(model.gru.weight_hh_l0_reverse.grad.norm().item() > 0)

cell = nn.GRUCell(3, 5)
h = torch.zeros(5)
for t in range(seqs[0].shape[0]):
    h = cell(seqs[0][t], h)
print(h.shape, h.grad_fn)
