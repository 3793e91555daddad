"""``inference_mode``: ``no_grad`` whose results are *inference tensors*.

Tensors made inside the block answer ``is_inference()`` with True; outside it they
cannot be saved for backward nor changed in place, with PyTorch's messages.  To
keep ordinary code free of any check, entering the mode swaps in constructors that
mark what they make, and leaving restores the plain ones.  The depth of the mode
(``grad_mode.INFERENCE``, ``is_inference_mode_enabled``) and its two messages live
below the graph, since saving a tensor for backward asks them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from engine import grad_mode
from engine.grad_mode import INFERENCE
from engine.ops import core
from engine.tensor import Tensor

F = TypeVar("F", bound=Callable[..., Any])

_plain_new = core._new
_plain_wrap = Tensor.__dict__["_wrap"]


def _marking_new(cls: type) -> Any:
    obj = _plain_new(cls)
    if cls is Tensor or issubclass(cls, Tensor):
        obj._inference = True
    return obj


@classmethod  # type: ignore[misc]
def _marking_wrap(cls: type, arr: Any, grad_fn: Any = None, output_nr: int = 0) -> Tensor:
    t = _plain_wrap.__func__(cls, arr, grad_fn, output_nr)
    t._inference = True
    return t


class inference_mode:  # noqa: N801  (PyTorch's name)
    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)
        self._prev_grad: list[bool] = []

    def __new__(cls, mode: Any = True) -> Any:
        if callable(mode) and not isinstance(mode, bool):
            return cls(True)(mode)  # ``@torch.inference_mode`` without parentheses
        return super().__new__(cls)

    def __enter__(self) -> None:
        self._prev_grad.append(grad_mode.STATE.enabled)
        if not self.mode:
            return
        grad_mode.STATE.enabled = False
        INFERENCE.depth += 1
        core._new = _marking_new
        Tensor._wrap = _marking_wrap  # type: ignore[method-assign]

    def __exit__(self, *exc: object) -> None:
        grad_mode.STATE.enabled = self._prev_grad.pop()
        if not self.mode:
            return
        INFERENCE.depth -= 1
        if INFERENCE.depth == 0:
            core._new = _plain_new
            Tensor._wrap = _plain_wrap  # type: ignore[method-assign]

    def __call__(self, fn: F) -> F:
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(mode):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def clone(self) -> inference_mode:
        return inference_mode(self.mode)
