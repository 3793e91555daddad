"""``torch.nn.utils.rnn``: variable-length batches packed for the recurrent layers and
padded back, with ATen's checks, messages and graph (``PackPaddedSequenceBackward0`` for
packing; ``CopySlices`` into a padded tensor for padding)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any, NamedTuple

from engine import dtypes
from engine.creation import arange, empty, empty_like, tensor
from engine.ops.recurrent import pack_padded
from engine.ops.select import sort
from engine.tensor import Tensor

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpack_sequence",
    "unpad_sequence",
]


class PackedSequence_(NamedTuple):  # noqa: N801  (PyTorch's name)
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(PackedSequence_):
    """The steps of a batch of sequences, longest first: ``data`` holds step 0 of every
    sequence, then step 1 of those still running, and so on (``batch_sizes`` per step)."""

    def __new__(
        cls,
        data: Any,
        batch_sizes: Tensor | None = None,
        sorted_indices: Tensor | None = None,
        unsorted_indices: Tensor | None = None,
    ) -> PackedSequence:
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never "
                "be created manually. They should be instantiated by functions like "
                "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence"
            )
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self

        def move(t: Tensor | None) -> Tensor | None:
            return None if t is None else t.to(data.device)

        return type(self)(
            data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices)
        )

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def cuda(self, device: Any = None) -> PackedSequence:
        return self.to("cuda" if device is None else device)

    def double(self) -> PackedSequence:
        return self.to(dtype=dtypes.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=dtypes.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=dtypes.float16)

    def long(self) -> PackedSequence:
        return self.to(dtype=dtypes.int64)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda


def _filled(shape: tuple[int, ...], value: float, like: Tensor) -> Tensor:
    """ATen's own ``at::full`` (``empty`` then ``fill_``): the result's version is 1."""
    return empty(shape, dtype=like.dtype, device=like.device).fill_(value)


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    if permutation is None:
        return None
    out = empty_like(permutation)
    positions = arange(0, permutation.numel(), device=permutation.device)
    return out.scatter_(0, permutation, positions)


def pack_padded_sequence(
    input: Tensor,  # noqa: A002
    lengths: Any,
    batch_first: bool = False,
    enforce_sorted: bool = True,
) -> PackedSequence:
    """Pack a padded ``(T, B, *)`` (or ``(B, T, *)``) batch given each sequence's length."""
    if isinstance(lengths, Tensor):
        lengths = lengths.to(dtype=dtypes.int64)
    else:
        lengths = tensor(list(lengths), dtype=dtypes.int64, device="cpu")
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)  # noqa: A001
    if lengths.ndim != 1 or lengths.device.type != "cpu":
        raise RuntimeError(
            "'lengths' argument should be a 1D CPU int64 tensor, but got "
            f"{lengths.ndim}D {lengths.device} {lengths.dtype.scalar_name} tensor"
        )
    sizes = [int(n) for n in lengths.tolist()]
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    batch = input.shape[0 if batch_first else 1]
    if len(sizes) != batch:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(sizes)} "
            f"(batch_size={batch})"
        )
    if sizes[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in "
            "'lengths' that is <= 0"
        )
    if any(a < b for a, b in itertools.pairwise(sizes)):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
            "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
            "pack_sequence to sidestep this requirement if you do not need ONNX exportability."
        )
    data = pack_padded(input, tuple(sizes), batch_first)
    steps = [sum(1 for n in sizes if n > t) for t in range(sizes[0])]
    batch_sizes = tensor(steps, dtype=dtypes.int64, device="cpu")
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """The padded batch and the lengths back from a ``PackedSequence`` (ATen's
    ``_pad_packed_sequence``: runs of equal batch size copied into a filled tensor)."""
    sizes = [int(n) for n in sequence.batch_sizes.tolist()]
    max_len = len(sizes)
    if total_length is not None:
        if total_length < max_len:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{max_len}"
            )
        max_len = total_length
    data = sequence.data
    rest = tuple(data.shape[1:])
    out = _filled((max_len, sizes[0], *rest), padding_value, data)
    lengths = [0] * sizes[0]
    offset, prev_size, prev_i = 0, sizes[0], 0
    for i in range(len(sizes) + 1):
        size = sizes[i] if i < len(sizes) else 0
        if size != prev_size:
            n = prev_size * (i - prev_i)
            piece = data[offset : offset + n].view(i - prev_i, prev_size, *rest)
            out[prev_i:i, :prev_size].copy_(piece)
            offset += n
            prev_i = i
        for k in range(size, prev_size):
            lengths[k] = i
        prev_size = size
    if batch_first:
        out = out.transpose(0, 1)
    lengths_t = tensor(lengths, dtype=dtypes.int64, device="cpu")
    if sequence.unsorted_indices is not None:
        order = sequence.unsorted_indices
        return out.index_select(0 if batch_first else 1, order), lengths_t[order.cpu()]
    return out, lengths_t


def pad_sequence(
    sequences: Any,
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack sequences of different lengths, padding each to the longest."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(
            "pad_sequence: Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)}"
        )
    seqs = tuple(sequences)
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    max_len = max(s.size(0) for s in seqs)
    trailing = tuple(seqs[0].shape[1:])
    dims = (len(seqs), max_len) if batch_first else (max_len, len(seqs))
    first = seqs[0]
    out = _filled((*dims, *trailing), padding_value, first)
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    for i, seq in enumerate(seqs):
        n = seq.size(0)
        start = max_len - n if padding_side == "left" else 0
        if batch_first:
            out.select(0, i).narrow(0, start, n).copy_(seq)
        else:
            out.narrow(0, start, n).select(1, i).copy_(seq)
    return out


def unpad_sequence(
    padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False
) -> list[Tensor]:
    """The sequences of a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    idx = arange(padded_sequences.shape[1], device=lengths.device)
    rows = padded_sequences.unbind(0)  # as iterating a tensor does in PyTorch
    return [seq[idx < length] for seq, length in zip(rows, lengths, strict=True)]


def pack_sequence(sequences: list[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """``pack_padded_sequence(pad_sequence(sequences), lengths)``."""
    lengths = tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences a ``PackedSequence`` was made from."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
