"""``SavedTensor``: a tensor saved for backward, checked against in-place changes when
backward unpacks it.

It sits just above ``Tensor`` (a saved output unpacks into a new ``Tensor`` on its
node) and below the ops, which save their inputs and outputs through it; the graph's
nodes, below ``Tensor``, hold it without knowing its type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.autograd.graph import SAVED_HOOKS, Node, modified_message
from engine.grad_mode import is_inference_mode_enabled
from engine.messages import BACKWARD_TWICE, INFERENCE_SAVE_ERROR
from engine.tensor import Tensor


class SavedTensor:
    """A tensor saved for backward, checked against in-place changes on unpack."""

    __slots__ = (
        "data",
        "is_output",
        "output_nr",
        "packed",
        "tensor",
        "unpack_hook",
        "vc",
        "version",
    )

    def __init__(self, t: Tensor, is_output: bool) -> None:
        if t._inference and not is_inference_mode_enabled():
            raise RuntimeError(INFERENCE_SAVE_ERROR)
        self.data = t._data
        vc = t._counter()
        self.vc = vc
        self.version = vc[0]
        self.is_output = is_output
        self.output_nr = t._output_nr
        self.tensor: Tensor | None = None if is_output else t
        self.unpack_hook: Callable[[Any], Any] | None = None
        hooks = SAVED_HOOKS.stack
        if hooks:
            pack, self.unpack_hook = hooks[-1]
            self.packed = pack(t)
            self.tensor = None

    def unpack(self, node: Node, tensor_mode: bool) -> Any:
        if self.data is None:
            raise RuntimeError(BACKWARD_TWICE)
        if self.unpack_hook is not None:
            return self._unpack_hooked(tensor_mode)
        if self.vc[0] != self.version:
            raise RuntimeError(self._modified_message(node))
        if not tensor_mode:
            return self.data
        if self.is_output:
            return Tensor._wrap(self.data, node, self.output_nr)
        return self.tensor

    def _modified_message(self, node: Node) -> str:
        return modified_message(
            node, self.data, self.vc[0], self.version, self.output_nr, self.is_output, self.tensor
        )

    def _unpack_hooked(self, tensor_mode: bool) -> Any:
        assert self.unpack_hook is not None
        value = self.unpack_hook(self.packed)
        if not isinstance(value, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(value).__name__}"
            )
        return value if tensor_mode else value._data

    def release(self) -> None:
        self.data = None
        self.tensor = None
        if self.unpack_hook is not None:
            self.packed = None
