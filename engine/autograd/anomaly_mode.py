"""Anomaly detection: where did the failing backward node come from?

As in PyTorch, the switch is process-wide.  While it is on, every node created
remembers the Python stack of the forward call that made it (its
``metadata["traceback_"]``, and under ``create_graph`` the backward node that
was running as ``metadata["parent_"]``); when a node fails in backward, that
stack is printed as a warning before the error propagates, and with
``check_nan`` a node whose gradient holds a NaN is itself an error.
"""

from __future__ import annotations

import os
import threading
import traceback
import warnings
from typing import TYPE_CHECKING, Any

from engine.backend import array_module

if TYPE_CHECKING:
    from engine.autograd.graph import Node

__all__ = ["detect_anomaly", "set_detect_anomaly"]

ENABLED_WARNING = (
    "Anomaly Detection has been enabled. This mode will increase the runtime "
    "and should only be enabled for debugging."
)

_ENGINE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class _AnomalyMode:
    """PyTorch's ``AnomalyMode``: one global switch, not per thread."""

    enabled = False
    check_nan = True


ANOMALY = _AnomalyMode()


class _Evaluating(threading.local):
    """The backward node running now on this thread (the parent of nodes it creates)."""

    node: Node | None = None


EVALUATING = _Evaluating()


def is_anomaly_enabled() -> bool:
    return ANOMALY.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return ANOMALY.check_nan


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """``torch.set_anomaly_enabled``: the switch itself, without a warning."""
    ANOMALY.enabled = bool(enabled)
    ANOMALY.check_nan = bool(check_nan)


class detect_anomaly:  # noqa: N801  (PyTorch's name)
    """Anomaly detection inside the ``with`` block; warns when made, as PyTorch does."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn(ENABLED_WARNING, UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:  # noqa: N801  (PyTorch's name)
    """Switch anomaly detection now; used in a ``with``, the old state returns on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args: object) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


def format_stack() -> list[str]:
    """The caller's stack as ``traceback.format_stack`` gives it, without the engine's
    own frames: PyTorch's ops are C++, so its stack ends in the learner's line."""
    frames = [f for f in traceback.extract_stack() if not f.filename.startswith(_ENGINE_DIR)]
    return traceback.format_list(frames)


def store_stack(node: Node) -> None:
    """Called for each node created while anomaly detection is on."""
    meta = node.metadata
    meta["traceback_"] = format_stack()
    parent = EVALUATING.node
    if parent is not None:
        meta["parent_"] = parent


def _format(stack: list[str] | None, name: str, is_parent: bool) -> str:
    if stack is None:
        return (
            f"Error detected in {name}. No forward pass information available. Enable detect "
            "anomaly during forward pass for more information."
        )
    text = "".join(stack)
    if not is_parent:
        return f"Error detected in {name}. Traceback of forward call that caused the error:\n{text}"
    return (
        f"Previous calculation was induced by {name}. Traceback of forward call that induced "
        f"the previous calculation:\n{text}"
    )


def node_stack_messages(node: Node) -> list[str]:
    """PyTorch's ``PyAnomalyMetadata::print_stack``: the node's forward stack, then
    one message per parent (the backward node whose ``create_graph`` run made it)."""
    meta = node.metadata
    messages = [_format(meta.get("traceback_"), node.name(), False)]
    parent: Any = meta.get("parent_")
    while parent is not None:
        pmeta = parent.metadata
        messages.append("\n\n" + _format(pmeta.get("traceback_"), parent.name(), True))
        parent = pmeta.get("parent_")
    return messages


def print_stack(node: Node) -> None:
    """The warnings PyTorch gives when ``node`` raised during backward."""
    for message in node_stack_messages(node):
        warnings.warn(message, UserWarning, stacklevel=2)


def check_nan(node: Node, outs: list[Any], tensor_mode: bool) -> None:
    """``check_nan``: a gradient with a NaN is an error of the node that returned it."""

    for i, g in enumerate(outs):
        if g is None:
            continue
        arr = g._data if tensor_mode else g
        if arr.dtype.kind in "fc" and bool(array_module(arr).isnan(arr).any()):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
