"""Parameter kinds: what values a node parameter may hold, as plain JSON data.

Parameters are stored in the document and in files as JSON values (a dtype is its
name, a shape a list of ints), so one checker per kind serves the editor, the file
loader and the PyTorch importer alike.
"""

from __future__ import annotations

import keyword
import math
from collections.abc import Callable
from typing import Any

from gradstudio.document.index_key import check_key

DTYPES = ("float32", "float64", "float16", "int64", "int32", "int16", "bool")
DTYPE_ALIASES = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "long": "int64",
    "int": "int32",
    "short": "int16",
}
DEVICE_CHOICES = ("default", "cpu", "cuda")
MAX_DATA_ELEMENTS = 1_000_000


def _is_number(value: Any) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and not (isinstance(value, float) and not math.isfinite(value))
    )


def _number(value: Any) -> int | float:
    if not _is_number(value):
        raise ValueError(f"expected a number, got {value!r}")
    return value


def _int(value: Any) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"expected an integer, got {value!r}")
    return value


def _float(value: Any) -> float:
    return float(_number(value))


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


def _optional(check: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else check(value)


def _dims(value: Any) -> int | list[int] | None:
    if value is None:
        return None
    if isinstance(value, list | tuple):
        return [_int(v) for v in value]
    return _int(value)


def _shape(value: Any) -> list[int]:
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list | tuple):
        raise ValueError(f"expected a shape such as [2, 3], got {value!r}")
    dims = [_int(v) for v in value]
    if any(d < -1 for d in dims):
        raise ValueError(f"a shape holds sizes >= 0 (or -1), got {value!r}")
    if math.prod(max(d, 1) for d in dims) > MAX_DATA_ELEMENTS:
        raise ValueError(f"shape {dims} is too large for a teaching studio")
    return dims


def _dtype(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        name = value.removeprefix("torch.")
        name = DTYPE_ALIASES.get(name, name)
        if name in DTYPES:
            return name
    raise ValueError(f"expected a dtype ({', '.join(DTYPES)}), got {value!r}")


def _data(value: Any) -> Any:
    """A number, a bool or a rectangular nested list of them (what ``torch.tensor`` takes)."""
    count = 0

    def walk(v: Any, depth: int) -> tuple[int, ...]:
        nonlocal count
        if depth > 16:
            raise ValueError("data is nested too deeply")
        if isinstance(v, bool) or _is_number(v):
            count += 1
            if count > MAX_DATA_ELEMENTS:
                raise ValueError("data has too many elements")
            return ()
        if isinstance(v, list | tuple):
            shapes = {walk(item, depth + 1) for item in v}
            if len(shapes) > 1:
                raise ValueError("data is not rectangular: rows differ in length")
            return (len(v), *(shapes.pop() if shapes else ()))
        raise ValueError(f"data holds numbers and lists only, got {v!r}")

    walk(value, 0)
    return _plain(value)


def _plain(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _str_choice(choices: tuple[str, ...]) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if not isinstance(value, str) or (choices and value not in choices):
            allowed = ", ".join(repr(c) for c in choices) if choices else "a text"
            raise ValueError(f"expected one of {allowed}, got {value!r}")
        return value

    return check


def _code(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError("expected Python source text")
    return value


def _identifier(value: Any) -> str:
    if not isinstance(value, str) or not value.isidentifier() or keyword.iskeyword(value):
        raise ValueError(f"expected a Python name, got {value!r}")
    return value


def _args(value: Any) -> list[dict[str, Any]]:
    """A custom Function's call arguments: ``{"input": k}`` or ``{"value": literal}``."""
    if not isinstance(value, list | tuple):
        raise ValueError("expected a list of arguments")
    out: list[dict[str, Any]] = []
    for item in value:
        if isinstance(item, dict) and set(item) == {"input"}:
            index = _int(item["input"])
            if index < 0:
                raise ValueError("argument input indices are >= 0")
            out.append({"input": index})
        elif isinstance(item, dict) and set(item) == {"value"}:
            v = item["value"]
            out.append({"value": None if v is None else _data(v)})
        else:
            raise ValueError(f"an argument is {{'input': k}} or {{'value': literal}}, got {item!r}")
    return out


def checker(kind: str, choices: tuple[str, ...] = ()) -> Callable[[Any], Any]:
    """The checker for ``kind``: returns the normalised value or raises ``ValueError``."""
    simple: dict[str, Callable[[Any], Any]] = {
        "number": _number,
        "int": _int,
        "float": _float,
        "bool": _bool,
        "optional_bool": _optional(_bool),
        "dim": _int,
        "dims": _dims,
        "shape": _shape,
        "optional_shape": _optional(_shape),
        "dtype": _dtype,
        "optional_number": _optional(_number),
        "data": _data,
        "optional_data": _optional(_data),
        "code": _code,
        "identifier": _identifier,
        "args": _args,
        "index": check_key,
    }
    if kind in simple:
        return simple[kind]
    if kind == "str":
        return _str_choice(choices)
    if kind == "device":
        return _str_choice(choices or DEVICE_CHOICES)
    raise ValueError(f"unknown parameter kind {kind!r}")


def to_json_value(value: Any) -> Any:
    """An engine default (tuple, dtype object, ...) as plain JSON data."""
    if isinstance(value, tuple | list):
        return [to_json_value(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    name = str(value).removeprefix("torch.").removeprefix("engine.")
    return DTYPE_ALIASES.get(name, name)
