"""Datasets and loaders: a custom Dataset, TensorDataset, random_split, DataLoader options."""

import torch
from torch.utils.data import DataLoader, Dataset, Subset, TensorDataset, random_split

torch.manual_seed(0)


class Squares(Dataset):
    def __init__(self, n):
        self.x = torch.arange(n, dtype=torch.float32)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"x": self.x[i], "y": self.x[i] ** 2, "id": i}


ds = Squares(10)
print(len(ds), ds[3])
loader = DataLoader(ds, batch_size=4)
for batch in loader:
    print(batch["x"], batch["y"].dtype, batch["id"])
print(len(loader), len(DataLoader(ds, batch_size=4, drop_last=True)))
g = torch.Generator().manual_seed(42)
train, val = random_split(ds, [7, 3], generator=g)
print(type(train).__name__, len(train), len(val), sorted(train.indices), sorted(val.indices))
a, b, c = random_split(range(10), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(0))
print(len(a), len(b), len(c), list(c))
X = torch.randn(6, 2)
Y = torch.tensor([0, 1, 0, 1, 1, 0])
td = TensorDataset(X, Y)
print(len(td), td[0][1], [t.shape for t in td[1:3]])
torch.manual_seed(0)
for xb, yb in DataLoader(td, batch_size=4, shuffle=True):
    print(xb.shape, yb)
g = torch.Generator()
g.manual_seed(1)
print([yb.tolist() for _, yb in DataLoader(td, batch_size=2, shuffle=True, generator=g)])
sub = Subset(td, [5, 0])
print(len(sub), sub[0][1])


def collate(batch):
    xs, ys = zip(*batch)
    return torch.stack(xs).sum(1), torch.tensor(ys)


print(next(iter(DataLoader(td, batch_size=3, collate_fn=collate))))
print(next(iter(DataLoader([(1, 2.0), (3, 4.0)], batch_size=2))))
print(next(iter(DataLoader([torch.ones(2), torch.zeros(2)], batch_size=2))))
print(next(iter(DataLoader([[1, 2], [3, 4]], batch_size=2))))
concat = td + td
concat = torch.utils.data.ConcatDataset([td, Subset(td, [1])])
print(type(concat).__name__, len(concat), concat[6][1], concat.cumulative_sizes)
try:
    random_split(ds, [5, 4])
except ValueError as e:
    print("ValueError:", e)
