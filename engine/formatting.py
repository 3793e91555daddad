"""``repr(tensor)`` the way PyTorch prints it (``tensor([1., 2.], requires_grad=True)``).

Learners compare printed output with blog posts character for character, so this is
a port of ``torch/_tensor_str.py`` (default print options, real dtypes): the column
width is taken over the nonzero finite values only (``nan``/``inf`` and zeros do not
widen it), integer-valued floats print as ``2.``, scientific notation when the range
is wide, ``...`` summaries past 1000 elements and suffixes wrapped at 80 columns.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine import dtypes
from engine.autograd.dual_state import tangent_of
from engine.backend import to_numpy

PRECISION = 4
THRESHOLD: float = 1000
EDGE = 3
LINEWIDTH = 80
SCI_MODE: bool | None = None

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """``torch.set_printoptions``: a profile first, then each option given; ``sci_mode``
    is set every call (``None`` is automatic), as PyTorch sets it."""
    global PRECISION, THRESHOLD, EDGE, LINEWIDTH, SCI_MODE
    if profile is not None:
        chosen = _PROFILES[profile]
        PRECISION, THRESHOLD = chosen["precision"], chosen["threshold"]
        EDGE, LINEWIDTH = int(chosen["edgeitems"]), int(chosen["linewidth"])
    if precision is not None:
        PRECISION = precision
    if threshold is not None:
        THRESHOLD = threshold
    if edgeitems is not None:
        EDGE = edgeitems
    if linewidth is not None:
        LINEWIDTH = linewidth
    SCI_MODE = sci_mode


class _Formatter:
    """Chooses one width and notation for every element (``_Formatter`` in PyTorch)."""

    def __init__(self, arr: np.ndarray) -> None:
        self.floating = arr.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = arr.reshape(-1)
        if not self.floating:
            for value in flat.tolist():
                self.max_width = max(self.max_width, len(f"{value}"))
            return
        shown = flat[np.isfinite(flat) & (flat != 0)]
        if shown.size == 0:
            return
        magnitudes = np.abs(shown).astype(np.float64)
        smallest, largest = float(magnitudes.min()), float(magnitudes.max())
        values = shown.tolist()
        self.int_mode = all(v == math.ceil(v) for v in values)
        self.sci_mode = (
            largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
            if SCI_MODE is None
            else SCI_MODE
        )
        if self.sci_mode:
            texts = [f"{v:.{PRECISION}e}" for v in values]
        elif self.int_mode:
            texts = [f"{v:.0f}." for v in values]
        else:
            texts = [f"{v:.{PRECISION}f}" for v in values]
        self.max_width = max(len(t) for t in texts)

    def width(self) -> int:
        return self.max_width

    def format(self, value: Any) -> str:
        if self.floating:
            if self.sci_mode:
                text = f"{value:{self.max_width}.{PRECISION}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{PRECISION}f}"
        else:
            text = f"{value}"
        return (self.max_width - len(text)) * " " + text


def _vector_str(arr: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    element_length = fmt.width() + 2
    per_line = max(1, math.floor((LINEWIDTH - indent) / element_length))
    if summarize and arr.shape[0] > 2 * EDGE:
        data = [fmt.format(v) for v in arr[:EDGE].tolist()] + [" ..."]
        data += [fmt.format(v) for v in arr[-EDGE:].tolist()]
    else:
        data = [fmt.format(v) for v in arr.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _body(arr: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if arr.ndim == 0:
        return fmt.format(arr.item())
    if arr.ndim == 1:
        return _vector_str(arr, indent, summarize, fmt)
    n = arr.shape[0]
    if summarize and n > 2 * EDGE:
        rows = [*range(EDGE), None, *range(n - EDGE, n)]
    else:
        rows = list(range(n))
    slices = ["..." if i is None else _body(arr[i], indent + 1, summarize, fmt) for i in rows]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized(arr: np.ndarray) -> np.ndarray:
    """The elements a summary shows (``get_summarized_data``): they alone set the width."""
    if arr.ndim == 0:
        return arr
    if arr.ndim == 1:
        return np.concatenate([arr[:EDGE], arr[-EDGE:]]) if arr.shape[0] > 2 * EDGE else arr
    rows = [*range(EDGE), *range(arr.shape[0] - EDGE, arr.shape[0])]
    if arr.shape[0] <= 2 * EDGE:
        rows = list(range(arr.shape[0]))
    return np.stack([_summarized(arr[i]) for i in rows])


def tensor_str(arr: np.ndarray, indent: int) -> str:
    """The bracketed values of ``arr`` as PyTorch lays them out (``_tensor_str``)."""
    if arr.size == 0:
        return "[]"
    summarize = arr.size > THRESHOLD
    if arr.dtype == np.float16 or arr.dtype == dtypes.BF16_NP:
        arr = arr.astype(np.float32)  # as ``_tensor_str`` prints half and bfloat16
    fmt = _Formatter(_summarized(arr) if summarize else arr)
    return _body(arr, indent, summarize, fmt)


def tensor_repr(t: Any) -> str:
    arr = to_numpy(t._data)
    prefix = "tensor("
    indent = len(prefix)
    suffixes: list[str] = []
    if t.is_cuda:
        suffixes.append("device='cuda:0'")
    dt = t.dtype
    if arr.size == 0:
        if arr.ndim != 1:
            suffixes.append(f"size={tuple(arr.shape)}")
        if dt is not dtypes.DEFAULT_FLOAT:
            suffixes.append(f"dtype={dt!r}")
    elif dt not in (dtypes.DEFAULT_FLOAT, dtypes.int64, dtypes.bool_):
        suffixes.append(f"dtype={dt!r}")
    body = tensor_str(arr, indent)
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    tangent = tangent_of(t)
    if tangent is not None:
        suffixes.append(f"tangent={tensor_repr(tangent)}")
    return _add_suffixes(prefix + body, suffixes, indent)


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """Append ``, suffix`` items, each on a new indented line when it would run
    past the line width (``_add_suffixes`` in ``torch/_tensor_str.py``)."""
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    return "".join(parts) + ")"
