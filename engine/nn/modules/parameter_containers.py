"""``ParameterList`` and ``ParameterDict``: parameters registered under their index (or
key), so ``named_parameters`` and ``state_dict`` call them ``scales.0`` or ``extra.bias``;
a plain tensor put in becomes a ``Parameter``.  They print as PyTorch 2.13 prints them
(the list with dtypes, the dict with legacy type names, both through ``extra_repr``)."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from engine.nn.modules.module import Module
from engine.nn.parameter import Parameter
from engine.tensor import Tensor


def _as_parameter(value: Any) -> Any:
    return (
        Parameter(value)
        if isinstance(value, Tensor) and not isinstance(value, Parameter)
        else value
    )


def _line(key: Any, p: Any, type_name: str) -> str:
    if isinstance(p, Tensor):
        size = "x".join(str(s) for s in p.size())
        device = f" ({p.device})" if p.is_cuda else ""
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        return f"  ({key}): {kind} containing: [{type_name} of size {size}{device}]"
    return f"  ({key}): Object of type: {type(p).__name__}"


class ParameterList(Module):
    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def _abs_index(self, idx: Any) -> str:
        i = operator.index(idx)
        if not -len(self) <= i < len(self):
            raise IndexError(f"index {i} is out of range")
        return str(i + len(self) if i < 0 else i)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            out = type(self)()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, self._abs_index(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        setattr(self, self._abs_index(idx), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> ParameterList:
        return self.extend(parameters)

    def append(self, value: Any) -> ParameterList:
        new = len(self)
        self._size += 1
        self[new] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_line(k, p, str(getattr(p, "dtype", ""))) for k, p in enumerate(self))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _attr(key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError(
                "Index given to ParameterDict cannot be used as a key as it is not a string "
                f"(type is '{type(key).__name__}'). Open an issue on github if you need "
                "non-string keys."
            )
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        setattr(self, self._attr(key), _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def keys(self) -> Any:
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        return (self[k] for k in self._keys)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default  # noqa: SIM401

    def pop(self, key: str) -> Any:
        value = self[key]
        del self[key]
        return value

    def update(self, parameters: Any) -> None:
        """An ``OrderedDict`` or ``ParameterDict`` in its order, another mapping sorted by
        key (as PyTorch does), or an iterable of pairs."""
        if isinstance(parameters, OrderedDict | ParameterDict):
            for key, value in parameters.items():
                self[key] = value
        elif isinstance(parameters, Mapping):
            for key, value in sorted(parameters.items()):
                self[key] = value
        else:
            for key, value in parameters:
                self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(
            _line(k, p, p.type() if isinstance(p, Tensor) else "") for k, p in self.items()
        )

    def __call__(self, input: Any) -> Any:  # noqa: A002
        raise RuntimeError("ParameterDict should not be called.")
