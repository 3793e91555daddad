"""Datasets and loaders as tutorials write them: custom Dataset, collate, samplers, splits."""

import torch
from torch.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    TensorDataset,
    WeightedRandomSampler,
    random_split,
)


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": torch.tensor([float(i)]), "y": i * i, "name": f"item{i}"}


ds = Squares(7)
print(len(ds), ds[3])
for batch in DataLoader(ds, batch_size=3):
    print(batch["x"].shape, batch["y"], batch["name"])
dl = DataLoader(ds, batch_size=3, drop_last=True)
print(len(dl), [b["y"].tolist() for b in dl])
g = torch.Generator().manual_seed(0)
print([b["y"].tolist() for b in DataLoader(ds, batch_size=4, shuffle=True, generator=g)])
torch.manual_seed(1)
print([b["y"].tolist() for b in DataLoader(ds, batch_size=4, shuffle=True)])
td = TensorDataset(torch.arange(10.0).reshape(5, 2), torch.tensor([0, 1, 0, 1, 1]))
print(td[1], len(td), td.tensors[1])
xs, ys = next(iter(DataLoader(td, batch_size=2)))
print(xs, ys)
tr, va = random_split(td, [3, 2], generator=torch.Generator().manual_seed(42))
print(len(tr), len(va), tr.indices, va.indices, type(tr).__name__)
a, b, c = random_split(range(10), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(1))
print(list(a), list(b), list(c))
sub = Subset(td, [4, 0])
print(sub[0], len(sub))
both = ConcatDataset([td, sub])
print(len(both), both[6], both.cumulative_sizes)
print(
    list(SequentialSampler(range(4))),
    list(RandomSampler(range(5), generator=torch.Generator().manual_seed(3))),
)
print(list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False)))
ws = WeightedRandomSampler(
    [0.1, 0.9, 0.0], num_samples=6, generator=torch.Generator().manual_seed(2)
)
print(list(ws))


def collate(items):
    xs = torch.stack([it[0] for it in items])
    return xs.sum(dim=1), torch.tensor([it[1] for it in items])


print(list(DataLoader(td, batch_size=2, collate_fn=collate)))
print(next(iter(DataLoader([(1, 2.0), (3, 4.0)], batch_size=2))))
print(
    next(iter(DataLoader([[1, 2], [3, 4]], batch_size=2))),
    next(iter(DataLoader(range(5), batch_size=5))),
)
print(next(iter(DataLoader(td, batch_size=None))))
loader = DataLoader(td, batch_size=2, sampler=[4, 3, 2])
print([y.tolist() for _, y in loader], loader.batch_size, len(loader), len(loader.dataset))
