"""A tiny ResNet: residual blocks with BatchNorm, a 1x1 shortcut, adaptive pooling, a train step."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, planes, 1, stride=stride, bias=False), nn.BatchNorm2d(planes)
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        return F.relu(out)


class TinyResNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4))
        self.layer1 = BasicBlock(4, 4)
        self.layer2 = BasicBlock(4, 8, stride=2)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8, num_classes)

    def forward(self, x):
        x = F.relu(self.stem(x))
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(self.pool(x), 1))


model = TinyResNet()
print(model.layer2)
print(model.pool, sum(p.numel() for p in model.parameters()))
x = torch.randn(4, 3, 8, 8)
y = torch.tensor([0, 1, 2, 3])
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
for step in range(3):
    opt.zero_grad()
    out = model(x)
    loss = F.cross_entropy(out, y)
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.4f}", out.argmax(1))
print(out.grad_fn, model.layer1.bn1.running_mean[:2], model.layer2.shortcut[1].num_batches_tracked)
model.eval()
with torch.no_grad():
    feats = model.pool(model.layer2(model.layer1(F.relu(model.stem(x)))))
print(feats.shape, feats.grad_fn, F.adaptive_avg_pool2d(x, (2, 3)).shape)
print(nn.AdaptiveAvgPool2d((None, 4))(x).shape, nn.AdaptiveAvgPool2d(3)(x[0]).shape)
