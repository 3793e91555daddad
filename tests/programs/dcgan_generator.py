"""PyTorch's DCGAN example, scaled down: a generator of transposed convolutions (latent
1x1 -> 4x4 -> 8x8 -> 16x16), a conv discriminator, DCGAN's weight init, two GAN steps."""

import torch
import torch.nn as nn

torch.manual_seed(0)
nz, ngf, ndf, nc = 8, 8, 4, 3


netG_layers = [
    nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),
    nn.BatchNorm2d(ngf * 2),
    nn.ReLU(True),
    nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False),
    nn.BatchNorm2d(ngf),
    nn.ReLU(True),
    nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False),
    nn.Tanh(),
]
netD_layers = [
    nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
    nn.LeakyReLU(0.2, inplace=True),
    nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
    nn.BatchNorm2d(ndf * 2),
    nn.LeakyReLU(0.2, inplace=True),
    nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
    nn.Sigmoid(),
    nn.Flatten(0),
]


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


netG = nn.Sequential(*netG_layers)
print(netG)
print([tuple(p.shape) for p in netG.parameters()])
w0, w3 = netG[0].weight, netG[3].weight
print(f"default init: {w0.sum().item():.6f} {w3.std().item():.6f}")
netG.apply(weights_init)
netD = nn.Sequential(*netD_layers).apply(weights_init)
criterion = nn.BCELoss()
optD, optG = (torch.optim.Adam(n.parameters(), lr=2e-4, betas=(0.5, 0.999)) for n in (netD, netG))
real = torch.rand(4, nc, 16, 16) * 2 - 1
fixed_noise = torch.randn(4, nz, 1, 1)
for step in range(2):
    netD.zero_grad()
    label = torch.full((4,), 1.0, dtype=torch.float)
    out = netD(real)
    errD_real = criterion(out, label)
    errD_real.backward()
    fake = netG(torch.randn(4, nz, 1, 1))
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
    err_d, d_x = (errD_real + errD_fake).item(), out.mean().item()
    print(f"[{step}] Loss_D: {err_d:.4f} Loss_G: {errG.item():.4f} D(G(z)): {d_x:.4f}")
print(fake.shape, fake.grad_fn, fake.grad_fn.next_functions[0][0])
conv_node = netG[0](fixed_noise).grad_fn
print(conv_node, [type(f).__name__ for f, _ in conv_node.next_functions])
print(netG[6].weight.grad.abs().sum().item() > 0, netG[0].weight.grad.shape)
with torch.no_grad():
    sample = netG(fixed_noise)
print(sample.shape, f"{sample.abs().mean().item():.4f}")
up = nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1)
print(up(torch.ones(1, 3, 5, 5), output_size=[10, 10]).shape)
