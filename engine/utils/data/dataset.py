"""Datasets: anything indexable with a length, and tensors sliced along their first dim."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any

from engine.creation import randperm
from engine.tensor import Tensor


class Dataset:
    """Map-style dataset: subclasses define ``__getitem__`` (and usually ``__len__``)."""

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset) -> Dataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """Iterable-style dataset: subclasses define ``__iter__``."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")


class TensorDataset(Dataset):
    """Sample ``i`` is ``tuple(t[i] for t in tensors)``; all share the first dimension."""

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Datasets one after another; ``a + b`` makes one, as in PyTorch."""

    def __init__(self, datasets: Any) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes = list(
            itertools.accumulate(len(d) for d in self.datasets)  # type: ignore[arg-type]
        )

    def __len__(self) -> int:
        return sum(len(d) for d in self.datasets)  # type: ignore[arg-type]

    def __getitem__(self, idx: int) -> Any:
        if idx < 0:
            idx += len(self)
        for d in self.datasets:
            n = len(d)  # type: ignore[arg-type]
            if idx < n:
                return d[idx]
            idx -= n
        raise IndexError("index out of range")


def random_split(dataset: Dataset, lengths: Sequence[float], generator: Any = None) -> list[Subset]:
    """Subsets from one ``randperm`` of the whole, lengths or fractions, as PyTorch splits."""
    import math
    import warnings

    n = len(dataset)  # type: ignore[arg-type]
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(math.floor(n * frac))
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        for i, size in enumerate(sizes):
            if size == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.",
                    stacklevel=2,
                )
        lengths = sizes
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm(int(sum(lengths)), generator=generator).tolist()
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, indices[offset : offset + int(length)]))
        offset += int(length)
    return out
