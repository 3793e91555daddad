"""``torch.return_types``: the named pairs ``max``, ``min``, ``sort``, ``topk`` return.

They are tuples with ``values`` and ``indices`` attributes and print as PyTorch's do,
``torch.return_types.max(\\nvalues=...,\\nindices=...)``.
"""

from __future__ import annotations

from typing import Any


class _ValuesIndices(tuple):
    __slots__ = ()
    _name = "return_type"

    def __new__(cls, values: Any, indices: Any) -> _ValuesIndices:
        return super().__new__(cls, (values, indices))

    @property
    def values(self) -> Any:
        return self[0]

    @property
    def indices(self) -> Any:
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"

    __str__ = __repr__


def _make(name: str) -> type[_ValuesIndices]:
    cls = type(name, (_ValuesIndices,), {"__slots__": (), "_name": name})
    cls.__module__ = "torch.return_types"
    return cls


max = _make("max")  # noqa: A001
min = _make("min")  # noqa: A001
sort = _make("sort")
topk = _make("topk")
kthvalue = _make("kthvalue")
mode = _make("mode")
median = _make("median")
cummax = _make("cummax")
cummin = _make("cummin")


class histogram(tuple):  # noqa: N801  (PyTorch's name)
    """``torch.histogram``'s pair: ``hist`` (counts or densities) and ``bin_edges``."""

    __slots__ = ()

    def __new__(cls, hist: Any, bin_edges: Any) -> histogram:
        return super().__new__(cls, (hist, bin_edges))

    @property
    def hist(self) -> Any:
        return self[0]

    @property
    def bin_edges(self) -> Any:
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.histogram(\nhist={self[0]!r},\nbin_edges={self[1]!r})"

    __str__ = __repr__


histogram.__module__ = "torch.return_types"
