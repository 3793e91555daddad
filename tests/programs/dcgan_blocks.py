"""DCGAN-style blocks without transposed convs: generator MLP, conv discriminator, one GAN step."""

import torch
import torch.nn as nn

torch.manual_seed(0)
nz = 8


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Linear(nz, 32, bias=False),
            nn.BatchNorm1d(32),
            nn.ReLU(True),
            nn.Linear(32, 64),
            nn.Tanh(),
        )

    def forward(self, z):
        return self.main(z).view(-1, 1, 8, 8)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(1, 4, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(4, 8, 4, 2, 1, bias=False),
            nn.BatchNorm2d(8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Flatten(),
            nn.Linear(8 * 2 * 2, 1),
            nn.Sigmoid(),
        )

    def forward(self, x):
        return self.main(x).view(-1, 1).squeeze(1)


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


netG, netD = Generator().apply(weights_init), Discriminator().apply(weights_init)
print(netD)
criterion = nn.BCELoss()
optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
real = torch.rand(4, 1, 8, 8) * 2 - 1
for step in range(2):
    netD.zero_grad()
    label = torch.full((4,), 1.0, dtype=torch.float)
    out = netD(real)
    errD_real = criterion(out, label)
    errD_real.backward()
    fake = netG(torch.randn(4, nz))
    label.fill_(0.0)
    out = netD(fake.detach())
    errD_fake = criterion(out, label)
    errD_fake.backward()
    optD.step()
    netG.zero_grad()
    label.fill_(1.0)
    errG = criterion(netD(fake), label)
    errG.backward()
    optG.step()
    d_x = out.mean().item()
    err_d = (errD_real + errD_fake).item()
    print(f"[{step}] Loss_D: {err_d:.4f} Loss_G: {errG.item():.4f} D(G(z)): {d_x:.4f}")
print(fake.shape, fake.grad_fn, out.grad_fn)
print(netD.main[3].running_mean, netD.main[3].num_batches_tracked)
