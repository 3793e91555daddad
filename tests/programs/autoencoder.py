"""A small autoencoder: Flatten/Unflatten, Sigmoid output, BCE reconstruction, latent codes."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(3)
encoder = nn.Sequential(nn.Flatten(), nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 2))
decoder = nn.Sequential(
    nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 16), nn.Sigmoid(), nn.Unflatten(1, (1, 4, 4))
)
print(encoder, decoder, sep="\n")
images = (torch.rand(6, 1, 4, 4) > 0.5).float()
opt = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()), lr=0.01)
for epoch in range(5):
    z = encoder(images)
    recon = decoder(z)
    loss = F.binary_cross_entropy(recon, images, reduction="sum") / images.size(0)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(epoch, f"{loss.item():.4f}", recon.shape)
print(recon.grad_fn, z.grad_fn, z.shape)
with torch.no_grad():
    codes = encoder(images)
    print(codes.mean(0), codes.std(0))
    grid = torch.stack(
        torch.meshgrid(torch.linspace(-1, 1, 2), torch.linspace(-1, 1, 2), indexing="ij"), -1
    )
    samples = decoder(grid.reshape(-1, 2))
print(grid.shape, samples.shape, samples.min() >= 0, samples.max() <= 1)
print((recon > 0.5).float().eq(images).float().mean())
x = torch.arange(24.0).reshape(2, 12)
print(
    x.unflatten(1, (3, 4)).shape,
    x.unflatten(-1, (2, -1)).shape,
    torch.flatten(x.view(2, 3, 4), 1).shape,
)
print(nn.Unflatten(1, torch.Size([2, 6]))(x).shape, nn.Flatten(0)(x).shape)
