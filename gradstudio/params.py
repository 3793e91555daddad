"""The studio's own parameter kinds, added to the engine's one table of kinds.

Kinds that engine declarations use are defined in ``engine.param_kinds``; the
kinds only the studio's hand-made node types need (an index key, a custom
Function's source, a device choice, ...) are defined here, once, in the same
form.  Everything that checks, converts or edits a parameter looks its kind up
with ``param_kind``.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from typing import Any

from engine.param_kinds import (
    DTYPE_ALIASES,
    DTYPES,
    MAX_DATA_ELEMENTS,
    PARAM_KINDS,
    ParamKind,
    check_choice,
    check_data,
    check_int,
    check_shape,
    data_python,
    data_source,
    kind,
    number_python,
    optional,
    to_json_value,
)
from gradstudio.document.index_key import check_key
from gradstudio.function_args import args_text, check_args, parse_args_text

__all__ = [
    "DEVICE_CHOICES",
    "DTYPES",
    "DTYPE_ALIASES",
    "MAX_DATA_ELEMENTS",
    "checker",
    "data_python",
    "number_python",
    "param_kind",
    "to_json_value",
]

DEVICE_CHOICES = ("default", "cpu", "cuda")


def _code(value: Any, choices: tuple[str, ...] = ()) -> str:
    if not isinstance(value, str):
        raise ValueError("expected Python source text")
    return value


def _identifier(value: Any, choices: tuple[str, ...] = ()) -> str:
    if not isinstance(value, str) or not value.isidentifier() or keyword.iskeyword(value):
        raise ValueError(f"expected a Python name, got {value!r}")
    return value


def _args(value: Any, choices: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    return check_args(value)


def _device(value: Any, choices: tuple[str, ...] = ()) -> str:
    return check_choice(value, choices or DEVICE_CHOICES)


def _raw_text(text: str) -> str:
    return text


_shape = PARAM_KINDS["shape"]
_data = PARAM_KINDS["data"]

kind(
    ParamKind(
        "optional_shape",
        optional(check_shape),
        optional=True,
        to_python=_shape.to_python,
        to_source=lambda v: "None" if v is None else _shape.to_source(v),
        from_text=_shape.from_text,
    )
)
kind(
    ParamKind(
        "optional_data",
        optional(check_data),
        editor="table",
        optional=True,
        to_python=data_python,
        to_source=lambda v: "None" if v is None else data_source(v),
    )
)
kind(ParamKind("code", _code, "", editor="code", from_text=_raw_text))
kind(ParamKind("identifier", _identifier, "x", from_text=_raw_text))
kind(ParamKind("args", _args, [], from_text=parse_args_text, to_text=args_text))


#: The most outputs a node's ``outputs`` parameter may ask for.
MAX_OUTPUT_COUNT = 32


def _output_count(value: Any, choices: tuple[str, ...] = ()) -> int:
    count = check_int(value)
    if not 1 <= count <= MAX_OUTPUT_COUNT:
        raise ValueError(f"expected between 1 and {MAX_OUTPUT_COUNT} outputs, got {count}")
    return count


kind(ParamKind("output_count", _output_count, 1))


def _index(value: Any, choices: tuple[str, ...] = ()) -> Any:
    return check_key(value)


kind(ParamKind("index", _index, "0", from_text=_raw_text))
kind(
    ParamKind(
        "device",
        _device,
        "default",
        editor="choice",
        options=lambda choices: [(c, c) for c in (choices or DEVICE_CHOICES)],
    )
)


def param_kind(name: str) -> ParamKind:
    """The kind called ``name``, or ``ValueError``."""
    try:
        return PARAM_KINDS[name]
    except KeyError:
        raise ValueError(f"unknown parameter kind {name!r}") from None


def checker(name: str, choices: tuple[str, ...] = ()) -> Callable[[Any], Any]:
    """The check for ``name``: returns the normalised value or raises ``ValueError``."""
    k = param_kind(name)
    return lambda value: k.check(value, choices)
