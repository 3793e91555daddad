"""A small CNN forward/backward on random data: conv, pool, batchnorm, dropout in eval."""

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(42)


class SmallCNN(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(4, 8, 3)
        self.dropout = nn.Dropout(0.25)
        self.fc = nn.Linear(8 * 2 * 2, num_classes)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = F.relu(self.conv2(x))
        x = torch.flatten(x, 1)
        return self.fc(self.dropout(x))


model = SmallCNN()
print(model)
images = torch.randn(2, 1, 8, 8)
labels = torch.tensor([0, 2])
model.eval()
logits = model(images)
print(logits.shape, logits.grad_fn)
loss = F.cross_entropy(logits, labels)
print(f"loss: {loss.item():.4f}")
loss.backward()
print(model.conv1.weight.grad.shape, model.fc.bias.grad)
print(f"conv2 grad norm {model.conv2.weight.grad.norm():.4f}")
print(model.bn1.running_mean, model.bn1.num_batches_tracked)
model.train()
out = model(images)
print(model.bn1.running_var)
print(out.argmax(dim=1), out.softmax(-1).sum(1))
print(sum(p.numel() for p in model.parameters() if p.requires_grad))
print(F.avg_pool2d(images, 4).squeeze())
