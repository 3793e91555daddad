"""A tiny transformer-encoder sequence classifier: embeddings, learned positions, a
padding mask, mean pooling over real tokens, a few Adam steps, then evaluation."""

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self, vocab=12, d=16, heads=2, classes=3, max_len=6):
        super().__init__()
        self.emb = nn.Embedding(vocab, d, padding_idx=0)
        self.pos = nn.Parameter(torch.zeros(1, max_len, d))
        layer = nn.TransformerEncoderLayer(
            d, heads, dim_feedforward=32, dropout=0.1, batch_first=True, norm_first=True
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        print("warnings:", [str(w.message) for w in caught])
        self.head = nn.Linear(d, classes)

    def forward(self, tokens):
        pad = tokens == 0
        h = self.emb(tokens) + self.pos[:, : tokens.size(1)]
        h = self.encoder(h, src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).float()
        return self.head((h * keep).sum(1) / keep.sum(1))


model = Classifier()
print(model.encoder.layers[0].self_attn)
print(sum(p.numel() for p in model.parameters()), model.encoder.use_nested_tensor)
tokens = torch.tensor(
    [[3, 5, 7, 2, 0, 0], [4, 4, 9, 1, 6, 0], [8, 2, 0, 0, 0, 0], [5, 11, 10, 3, 3, 7]]
)
labels = torch.tensor([0, 1, 2, 1])
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(4):
    opt.zero_grad()
    logits = model(tokens)
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
print(logits.grad_fn, loss.grad_fn)
attn = model.encoder.layers[0].self_attn
print(attn.in_proj_weight.grad.shape, attn.out_proj.bias.grad.abs().sum() > 0)
print(model.emb.weight.grad[0].abs().sum())
model.eval()
with torch.no_grad():
    probs = model(tokens).softmax(-1)
print(probs.argmax(-1), torch.allclose(probs.sum(-1), torch.ones(4)))
print(model(tokens).grad_fn is not None)
