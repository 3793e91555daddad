"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``.

The flag is thread-local, as in PyTorch, because GradStudio evaluates graphs
on a worker thread while the UI thread may create tensors of its own.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class _State(threading.local):
    enabled = True


STATE = _State()


def is_grad_enabled() -> bool:
    return STATE.enabled


class _InferenceState(threading.local):
    depth = 0


#: How deep the thread is in ``inference_mode`` blocks (``engine.inference_mode`` enters
#: and leaves them); here, below the graph, because saving a tensor for backward and an
#: in-place change ask it.
INFERENCE = _InferenceState()


def is_inference_mode_enabled() -> bool:
    return INFERENCE.depth > 0


class _GradModeContext:
    """Context manager that is also a decorator, like PyTorch's."""

    _target: bool = True

    def __init__(self) -> None:
        self._prev: list[bool] = []

    def __enter__(self) -> None:
        self._prev.append(STATE.enabled)
        STATE.enabled = self._target

    def __exit__(self, *exc: object) -> None:
        STATE.enabled = self._prev.pop()

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with type(self)():
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def clone(self) -> _GradModeContext:
        return type(self)()


class no_grad(_GradModeContext):  # noqa: N801
    _target = False

    def __new__(cls, orig_func: Any = None) -> Any:
        if orig_func is not None and callable(orig_func):
            return cls()(orig_func)  # ``@torch.no_grad`` without parentheses
        return super().__new__(cls)

    def __init__(self, orig_func: Any = None) -> None:
        super().__init__()


class enable_grad(_GradModeContext):  # noqa: N801
    _target = True

    def __new__(cls, orig_func: Any = None) -> Any:
        if orig_func is not None and callable(orig_func):
            return cls()(orig_func)
        return super().__new__(cls)

    def __init__(self, orig_func: Any = None) -> None:
        super().__init__()


class set_grad_enabled(_GradModeContext):  # noqa: N801
    """Sets the mode at construction (so it works as a plain call, too)."""

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self._target = bool(mode)
        self._prev.append(STATE.enabled)
        STATE.enabled = self._target

    def __enter__(self) -> None:
        pass

    def __call__(self, fn: F) -> F:
        STATE.enabled = self._prev.pop()
        mode = self._target

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    def clone(self) -> set_grad_enabled:
        return set_grad_enabled(self._target)
