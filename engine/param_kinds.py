"""Kinds of scalar parameters, each defined once: its check, its conversions, its editor.

A parameter is stored in documents and files as plain JSON data (a dtype is its
name, a shape a list of ints).  Its kind says how such a value is checked (a
clear one-line ``ValueError`` otherwise), turned into what a function takes
(``to_python``) and into PyTorch source (``to_source``), read back from what an
engine default or a user's program holds (``to_json``), and which editor a tool
offers for it (an editor *name*; the tool maps names to widgets).  Declarations
in the engine use these kinds; a tool may add kinds of its own with ``kind``.
"""

from __future__ import annotations

import ast
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DTYPES = (
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "bool",
)
DTYPE_ALIASES = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "long": "int64",
    "int": "int32",
    "short": "int16",
}
MAX_DATA_ELEMENTS = 1_000_000


def _identity(value: Any, backend: Any = None) -> Any:
    return value


def _parse_literal(text: str) -> Any:
    """What the user typed as a Python literal ("" is None); lists for tuples."""
    if not text:
        return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        if text in ("inf", "-inf", "nan"):
            return float(text)
        raise ValueError(
            f"{text!r} is not a Python literal (a number, a list like [2, 3], ...)"
        ) from None
    return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True)
class ParamKind:
    """One kind of parameter value."""

    name: str
    #: The normalised JSON value, or ``ValueError`` saying what is wrong; receives the
    #: parameter's declared choices.
    check: Callable[[Any, tuple[str, ...]], Any]
    #: The value a new node starts with where the function has no default.
    initial: Any = None
    #: The name of the editor a tool offers ("line", "check", "choice", "table", "code").
    editor: str = "line"
    #: Empty input means None.
    optional: bool = False
    #: JSON value -> what the function takes; ``backend`` is ``engine`` or ``torch``.
    to_python: Callable[[Any, Any], Any] = _identity
    #: JSON value -> PyTorch source text.
    to_source: Callable[[Any], str] = repr
    #: Text typed by a user -> JSON value (then checked).
    from_text: Callable[[str], Any] = _parse_literal
    #: JSON value -> the text an editor shows, that ``from_text`` reads back (None: the
    #: value as a Python literal).
    to_text: Callable[[Any], str] | None = None
    #: (label, value) pairs for a "choice" editor, from the declared choices.
    options: Callable[[tuple[str, ...]], list[tuple[str, Any]]] | None = None
    #: Shown in an empty one-line editor.
    placeholder: str = ""

    def validate(self, value: Any, choices: tuple[str, ...] = ()) -> Any:
        return self.check(value, choices)

    def editor_name(self, choices: tuple[str, ...] = ()) -> str:
        """The editor for a parameter of this kind: a choice needs something to choose."""
        if self.editor == "choice" and not (self.options and self.options(choices)):
            return "line"
        return self.editor


def _is_number(value: Any) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and not (isinstance(value, float) and not math.isfinite(value))
    )


#: The numbers JSON cannot write, kept in documents and files as these names.
NON_FINITE = ("inf", "-inf", "nan")


def _python_number(value: Any) -> Any:
    """A NumPy scalar as the Python number it holds (``np.int64(2)`` is ``2``, and
    ``np.float64(0.5)``, a ``float`` subclass, is ``0.5``): PyTorch takes either, and a
    document holds JSON, written back as Python source."""
    if isinstance(value, bool) or type(value) in (int, float):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return value


def check_number(value: Any, choices: tuple[str, ...] = ()) -> int | float | str:
    """A finite number, or the name of a non-finite one: ``masked_fill(mask,
    float("-inf"))`` is in every attention mask, and JSON has no infinity, so
    ``-inf`` is held as the text ``"-inf"`` (``number_python`` turns it back)."""
    value = _python_number(value)
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else "inf" if value > 0 else "-inf"
    if isinstance(value, str) and value in NON_FINITE:
        return value
    if not _is_number(value):
        raise ValueError(f"expected a number, got {value!r}")
    return value


def number_python(value: Any, backend: Any = None) -> Any:
    """A number parameter as a function takes it (``"-inf"`` is ``float("-inf")``)."""
    return float(value) if isinstance(value, str) else value


def number_source(value: Any) -> str:
    """A number parameter as PyTorch source (``"-inf"`` is ``float('-inf')``)."""
    return f"float({value!r})" if isinstance(value, str) else repr(value)


def check_int(value: Any, choices: tuple[str, ...] = ()) -> int:
    value = _python_number(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"expected an integer, got {value!r}")
    return value


def _float(value: Any, choices: tuple[str, ...] = ()) -> float | str:
    number = check_number(value)
    return number if isinstance(number, str) else float(number)


def check_bool(value: Any, choices: tuple[str, ...] = ()) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


def optional(check: Callable[[Any, tuple[str, ...]], Any]) -> Callable[..., Any]:
    """``check``, letting None through."""
    return lambda value, choices=(): None if value is None else check(value, choices)


def _dims(value: Any, choices: tuple[str, ...] = ()) -> int | list[int] | None:
    if value is None:
        return None
    if isinstance(value, list | tuple):
        return [check_int(v) for v in value]
    return check_int(value)


def _ints(value: Any, choices: tuple[str, ...] = ()) -> int | list[int]:
    """One int for every spatial dim, or one each (``stride=(1, 2)``, as ``nn.Conv2d``
    keeps it)."""
    if isinstance(value, list | tuple):
        if not value:
            raise ValueError("expected an integer or a list of integers, got []")
        return [check_int(v) for v in value]
    return check_int(value)


def _sizes(value: Any, choices: tuple[str, ...] = ()) -> int | list[int | None]:
    """An int for every spatial dim, or one each where None keeps the input's size
    (``adaptive_avg_pool2d(x, (None, 7))``)."""
    if isinstance(value, list | tuple):
        if not value:
            raise ValueError("expected an integer or a list of integers or None, got []")
        return [None if v is None else check_int(v) for v in value]
    return check_int(value)


def _dim_list(value: Any, choices: tuple[str, ...] = ()) -> list[int]:
    dims = _dims(value)
    if dims is None:
        raise ValueError("expected a dim or a list of dims, got None")
    return [dims] if isinstance(dims, int) else dims


def check_shape(value: Any, choices: tuple[str, ...] = ()) -> list[int]:
    """A list of sizes, of any product: a shape costs nothing to hold, and what a step
    makes of it is bounded by the tool's memory budget, which the user sets."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list | tuple):
        raise ValueError(f"expected a shape such as [2, 3], got {value!r}")
    dims = [check_int(v) for v in value]
    if any(d < -1 for d in dims):
        raise ValueError(f"a shape holds sizes >= 0 (or -1), got {value!r}")
    return dims


def _dtype(value: Any, choices: tuple[str, ...] = ()) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        name = value.removeprefix("torch.")
        name = DTYPE_ALIASES.get(name, name)
        if name in DTYPES:
            return name
    raise ValueError(f"expected a dtype ({', '.join(DTYPES)}), got {value!r}")


def check_data(value: Any, choices: tuple[str, ...] = ()) -> Any:
    """A number, a bool or a rectangular nested list of them (what ``torch.tensor`` takes);
    a non-finite number is held by its name, as a number parameter's is."""
    count = 0

    def walk(v: Any, depth: int) -> tuple[int, ...]:
        nonlocal count
        if depth > 16:
            raise ValueError("data is nested too deeply")
        if isinstance(v, bool | int | float) or (isinstance(v, str) and v in NON_FINITE):
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
    if isinstance(value, float) and not math.isfinite(value):
        return check_number(value)
    return value


def data_python(value: Any, backend: Any = None) -> Any:
    """Literal tensor data as ``torch.tensor`` takes it (``"-inf"`` is ``float("-inf")``)."""
    if isinstance(value, list):
        return [data_python(v) for v in value]
    return float(value) if isinstance(value, str) else value


def check_choice(value: Any, choices: tuple[str, ...] = ()) -> str:
    if not isinstance(value, str) or (choices and value not in choices):
        allowed = ", ".join(repr(c) for c in choices) if choices else "a text"
        raise ValueError(f"expected one of {allowed}, got {value!r}")
    return value


def _tuple(value: Any, backend: Any = None) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _tuple_source(value: Any) -> str:
    if isinstance(value, list):
        return "(" + ", ".join(map(str, value)) + ("," if len(value) == 1 else "") + ")"
    return repr(value)


def data_source(value: Any) -> str:
    """Literal tensor data as PyTorch source (``"-inf"`` as ``float('-inf')``)."""
    if isinstance(value, list):
        return "[" + ", ".join(data_source(v) for v in value) + "]"
    return number_source(value)


def _shape_text(text: str) -> Any:
    """``2, 3`` or ``4`` typed for a shape reads as ``[2, 3]`` / ``[4]``."""
    return _parse_literal(f"[{text}]" if text and not text.startswith(("[", "(")) else text)


def _dims_text(text: str) -> Any:
    """``0, 1`` typed for dims reads as ``[0, 1]``; ``0`` stays one dim."""
    bare = text and not text.startswith(("[", "(")) and "," in text
    return _parse_literal(f"[{text}]" if bare else text)


def _raw_text(text: str) -> str:
    return text


def _dtype_python(value: Any, backend: Any) -> Any:
    return None if value is None else getattr(backend, value)


def _dtype_source(value: Any) -> str:
    return "None" if value is None else f"torch.{value}"


def _dtype_options(choices: tuple[str, ...]) -> list[tuple[str, Any]]:
    return [("default", None)] + [(f"torch.{d}", d) for d in DTYPES]


def _choice_options(choices: tuple[str, ...]) -> list[tuple[str, Any]]:
    return [(c, c) for c in choices]


def _none_source(to_source: Callable[[Any], str]) -> Callable[[Any], str]:
    return lambda value: "None" if value is None else to_source(value)


#: Every kind, by name.  The engine's declarations use these; tools add their own.
PARAM_KINDS: dict[str, ParamKind] = {}


def kind(k: ParamKind) -> ParamKind:
    """Add a kind to the table (each name once)."""
    if k.name in PARAM_KINDS:
        raise ValueError(f"parameter kind {k.name!r} defined twice")
    PARAM_KINDS[k.name] = k
    return k


kind(  # int or float ("inf", "-inf", "nan" for the ones JSON cannot write)
    ParamKind("number", check_number, 1.0, to_python=number_python, to_source=number_source)
)
kind(ParamKind("int", check_int, 0))
kind(ParamKind("float", _float, 1.0, to_python=number_python, to_source=number_source))
kind(ParamKind("bool", check_bool, False, editor="check"))
kind(ParamKind("dim", check_int, 0))  # one dimension index (may be negative)
kind(  # a dim that may be left out: ``F.softmax(x)``'s deprecated implicit choice
    ParamKind("optional_dim", optional(check_int), optional=True)
)
kind(  # None, an int, or a list of ints
    ParamKind(
        "dims",
        _dims,
        0,
        optional=True,
        to_python=_tuple,
        to_source=_none_source(_tuple_source),
        from_text=_dims_text,
    )
)
kind(  # dims kept as a list: ``torch.flip(x, dims)`` takes no bare int (``x.flip(0)`` does)
    ParamKind(
        "dim_list",
        _dim_list,
        [0],
        to_python=_tuple,
        to_source=_tuple_source,
        from_text=_dims_text,
    )
)
kind(  # an int or one per spatial dim: a convolution's stride, padding, dilation
    ParamKind("ints", _ints, 1, to_python=_tuple, to_source=_tuple_source, from_text=_dims_text)
)
kind(  # an output size: an int or one per spatial dim, None keeping the input's
    ParamKind("sizes", _sizes, 1, to_python=_tuple, to_source=_tuple_source, from_text=_dims_text)
)
kind(  # sizes (-1 where PyTorch allows it)
    ParamKind(
        "shape",
        check_shape,
        [2, 3],
        to_python=_tuple,
        to_source=_tuple_source,
        from_text=_shape_text,
        placeholder="e.g. [2, 3]",
    )
)
kind(  # a number or nested lists of numbers: ``tensor``'s literal
    ParamKind(
        "data",
        check_data,
        [1.0, 2.0, 3.0],
        editor="table",
        to_python=data_python,
        to_source=data_source,
    )
)
kind(
    ParamKind(
        "dtype",
        _dtype,
        "float32",
        editor="choice",
        to_python=_dtype_python,
        to_source=_dtype_source,
        options=_dtype_options,
    )
)
kind(  # a fixed choice among the param's ``choices`` (free text without them)
    ParamKind(
        "str",
        check_choice,
        editor="choice",
        from_text=_raw_text,
        options=_choice_options,
    )
)
kind(  # None, True or False: ``std``'s ``unbiased``, ``backward``'s ``retain_graph``
    ParamKind(
        "optional_bool",
        optional(check_bool),
        editor="choice",
        optional=True,
        options=lambda choices: [("default (None)", None), ("True", True), ("False", False)],
    )
)
kind(  # None or one of the param's ``choices``: ``div``'s ``rounding_mode``
    ParamKind(
        "optional_str",
        optional(check_choice),
        editor="choice",
        optional=True,
        options=lambda choices: [("default (None)", None), *_choice_options(choices)],
    )
)
kind(
    ParamKind(
        "optional_number",
        optional(check_number),
        optional=True,
        to_python=number_python,
        to_source=number_source,
    )
)


def to_json_value(value: Any) -> Any:
    """An engine default (tuple, dtype object, ...) as plain JSON data."""
    if isinstance(value, tuple | list):
        return [to_json_value(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    name = str(value).removeprefix("torch.").removeprefix("engine.")
    return DTYPE_ALIASES.get(name, name)
