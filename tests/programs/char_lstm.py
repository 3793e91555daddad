"""A character-level LSTM language model: embed, LSTM, linear head, a few Adam steps on a
repeating text, then greedy sampling with the hidden state carried between steps."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
text = "hello world, hello learner. " * 4
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text])
print(len(chars), "characters", data.shape)


class CharModel(nn.Module):
    def __init__(self, vocab: int, hidden: int = 16) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, 8)
        self.lstm = nn.LSTM(8, hidden, num_layers=2, batch_first=True, dropout=0.1)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, idx, state=None):
        out, state = self.lstm(self.embed(idx), state)
        return self.head(out), state


model = CharModel(len(chars))
print(model)
print([(n, tuple(p.shape)) for n, p in model.lstm.named_parameters()][:4])
opt = torch.optim.Adam(model.parameters(), lr=0.02)
seq = 12
for step in range(6):
    starts = torch.randint(0, len(data) - seq - 1, (4,))
    x = torch.stack([data[s : s + seq] for s in starts])
    y = torch.stack([data[s + 1 : s + seq + 1] for s in starts])
    logits, (h, c) = model(x)
    loss = F.cross_entropy(logits.reshape(-1, len(chars)), y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    print(step, f"{loss.item():.4f}", f"{norm.item():.4f}", tuple(h.shape), tuple(c.shape))
print(logits.grad_fn, h.grad_fn, c.grad_fn)
print(model.lstm.weight_ih_l0.grad.abs().sum().item() > 0)

model.eval()
with torch.no_grad():
    idx = torch.tensor([[stoi["h"]]])
    state, out = None, "h"
    for _ in range(20):
        logits, state = model(idx, state)
        idx = logits[:, -1].argmax(-1, keepdim=True)
        out += chars[idx.item()]
print(repr(out))
print(state[0][:, 0, :4])
