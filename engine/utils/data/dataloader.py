"""``DataLoader``: batches of samples, in order or shuffled, collated into tensors.

Runs in the calling process (``num_workers`` is accepted and must be 0: the studio
runs programs in its own worker and needs no second pool).  Starting an iteration
draws one number from the global generator, as PyTorch's loader does for its base
seed, so random numbers drawn after a loop match PyTorch's.
"""

from __future__ import annotations

import collections.abc
from collections.abc import Callable, Iterator
from typing import Any

import engine
from engine.tensor import Tensor
from engine.utils.data.dataset import IterableDataset
from engine.utils.data.sampler import BatchSampler, RandomSampler, SequentialSampler


def default_collate(batch: list[Any]) -> Any:
    """Stack tensors, turn numbers into tensors, and recurse into tuples, lists and dicts."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return engine.stack(batch, 0)
    if isinstance(elem, bool):
        return engine.tensor(batch)
    if isinstance(elem, float):
        return engine.tensor(batch, dtype=engine.float64)
    if isinstance(elem, int):
        return engine.tensor(batch)
    if isinstance(elem, str | bytes):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(list(s)) for s in zip(*batch)]
        return columns  # a list for tuples too, as PyTorch keeps for backward compatibility
    if type(elem).__module__ == "numpy":
        return engine.tensor(__import__("numpy").asarray(batch))
    raise TypeError(
        "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        f"found {type(elem)}"
    )


class DataLoader:
    def __init__(
        self,
        dataset: Any,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Any = None,
        batch_sampler: Any = None,
        num_workers: int = 0,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Any = None,
        generator: Any = None,
        **kwargs: Any,
    ) -> None:
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable "
                "multiprocessing."
            )
        if num_workers > 0:
            raise ValueError("num_workers > 0 is not supported: data loads in this process")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None and (
            batch_size != 1 or shuffle or sampler is not None or drop_last
        ):
            raise ValueError(
                "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                "sampler, and drop_last"
            )
        self.dataset = dataset
        self.num_workers = num_workers
        self.drop_last = drop_last
        self.generator = generator
        self._iterable = isinstance(dataset, IterableDataset)
        if sampler is None and not self._iterable:
            sampler = (
                RandomSampler(dataset, generator=generator)
                if shuffle
                else SequentialSampler(dataset)
            )
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.collate_fn = collate_fn or (
            default_collate if batch_size is not None or batch_sampler is not None else _convert
        )

    def __iter__(self) -> Iterator[Any]:
        engine.empty((), dtype=engine.int64).random_(generator=self.generator)
        if self._iterable:
            yield from self._iterate_stream()
            return
        if self.batch_sampler is not None:
            for indices in self.batch_sampler:
                yield self.collate_fn([self.dataset[i] for i in indices])
        else:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])

    def _iterate_stream(self) -> Iterator[Any]:
        if self.batch_size is None:
            for item in self.dataset:
                yield self.collate_fn(item)
            return
        batch: list[Any] = []
        for item in self.dataset:
            batch.append(item)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)


def _convert(item: Any) -> Any:
    """``default_convert``: an unbatched sample's NumPy arrays become tensors; tuples
    become lists (PyTorch's backwards compatibility), namedtuples and mappings keep
    their type."""
    import numpy as np

    if isinstance(item, np.ndarray) and item.dtype.kind not in "SaUO":
        return engine.as_tensor(item)
    if isinstance(item, dict):
        return {k: _convert(v) for k, v in item.items()}
    if isinstance(item, tuple) and hasattr(item, "_fields"):
        return type(item)(*(_convert(v) for v in item))
    if isinstance(item, tuple):
        return [_convert(v) for v in item]
    if isinstance(item, list):
        return [_convert(v) for v in item]
    return item
