"""``repr(tensor)`` the way PyTorch prints it (``tensor([1., 2.], requires_grad=True)``).

Learners compare printed output with blog posts, so the number format
(integer-valued floats as ``2.``, four decimals, scientific notation when the
range is wide) and the suffixes follow ``torch/_tensor_str.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes
from engine.backend import to_numpy

THRESHOLD = 1000
EDGE = 3
LINEWIDTH = 80


class _Formatter:
    def __init__(self, arr: np.ndarray) -> None:
        self.floating = arr.dtype.kind == "f"
        self.int_mode = True
        self.sci = False
        if not self.floating:
            vals = [str(v) for v in arr.reshape(-1).tolist()]
            self.width = max((len(v) for v in vals), default=1)
            return
        finite = arr[np.isfinite(arr)].astype(np.float64)
        nonzero = np.abs(finite[finite != 0])
        if finite.size and np.any(finite != np.ceil(finite)):
            self.int_mode = False
        if nonzero.size:
            mx, mn = float(nonzero.max()), float(nonzero.min())
            if self.int_mode:
                self.sci = mx > 1.0e8
            else:
                self.sci = mx / mn > 1000.0 or mx > 1.0e8 or mn < 1.0e-4
        vals = [self._fmt(float(v)) for v in arr.reshape(-1).tolist()]
        self.width = max((len(v) for v in vals), default=1)

    def _fmt(self, v: float) -> str:
        if not self.floating:
            return str(v)
        if np.isnan(v):
            return "nan"
        if np.isinf(v):
            return "inf" if v > 0 else "-inf"
        if self.sci:
            return f"{v:.4e}"
        if self.int_mode:
            return f"{v:.0f}."
        return f"{v:.4f}"

    def format(self, v: Any) -> str:
        return self._fmt(v).rjust(self.width)


def _scalar_str(v: Any, fmt: _Formatter) -> str:
    return fmt.format(v)


def _body(arr: np.ndarray, fmt: _Formatter, indent: int, summarize: bool) -> str:
    if arr.ndim == 0:
        return _scalar_str(arr.item(), fmt)
    if arr.ndim == 1:
        items: list[str]
        if summarize and arr.shape[0] > 2 * EDGE:
            items = [fmt.format(v) for v in arr[:EDGE].tolist()] + ["..."]
            items += [fmt.format(v) for v in arr[-EDGE:].tolist()]
        else:
            items = [fmt.format(v) for v in arr.tolist()]
        per_line = max(1, (LINEWIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    n = arr.shape[0]
    if summarize and n > 2 * EDGE:
        parts = [_body(arr[i], fmt, indent + 1, summarize) for i in range(EDGE)]
        parts.append("...")
        parts += [_body(arr[i], fmt, indent + 1, summarize) for i in range(n - EDGE, n)]
    else:
        parts = [_body(arr[i], fmt, indent + 1, summarize) for i in range(n)]
    sep = "," + "\n" * (arr.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def tensor_repr(t: Any) -> str:
    arr = to_numpy(t._data)
    suffixes: list[str] = []
    if t.is_cuda:
        suffixes.append("device='cuda:0'")
    if (arr.size == 0 and arr.ndim != 1) or (False):
        body = "[]"
        suffixes.insert(0, f"size=({', '.join(map(str, arr.shape))}{',' if arr.ndim == 1 else ''})")
    elif arr.size == 0:
        body = "[]"
    else:
        summarize = arr.size > THRESHOLD
        shown = arr
        if summarize:
            shown = _summarized(arr)
        fmt = _Formatter(shown if shown.dtype != np.float16 else shown.astype(np.float32))
        body = _body(arr, fmt, len("tensor("), summarize)
    dt = t.dtype
    if dt not in (dtypes.DEFAULT_FLOAT, dtypes.int64, dtypes.bool_) or (
        arr.size == 0 and dt is not dtypes.DEFAULT_FLOAT
    ):
        suffixes.append(f"dtype={dt!r}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes("tensor(" + body, suffixes, len("tensor("))


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


def _summarized(arr: np.ndarray) -> np.ndarray:
    if arr.ndim == 0:
        return arr
    if arr.shape[0] > 2 * EDGE:
        arr = np.concatenate([arr[:EDGE], arr[-EDGE:]])
    return np.stack([_summarized(a) for a in arr]) if arr.ndim > 1 else arr
