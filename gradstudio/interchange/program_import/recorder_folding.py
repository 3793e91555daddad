"""What a loop fold needs from the recording: a snapshot of each tensor made inside an
iteration that may fold, who reads each snapshot, the ``.grad`` of every leaf as an
iteration begins, and the events with long loops folded (``loop_folding``).

A part of ``Recorder``; snapshots no fold can need are dropped as the program runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gradstudio.interchange.program_import.loop_folding import consumed, fold
from gradstudio.interchange.program_import.recorder_state import GradState, RecorderState


def tensor_names(scope: dict[str, Any]) -> dict[int, str]:
    """Names for tensors: the program's variables, ``model.fc1.weight`` for parameters
    and buffers, ``model.fc1.weight.momentum_buffer`` for an optimizer's state."""
    import engine
    from engine.nn.modules.module import Module
    from engine.optim.optimizer import Optimizer

    names: dict[int, str] = {}
    for name, value in scope.items():
        if isinstance(value, Module):
            for sub, param in value.named_parameters():
                names.setdefault(id(param), f"{name}.{sub}")
            for sub, buffer in value.named_buffers():
                names.setdefault(id(buffer), f"{name}.{sub}")
        elif isinstance(value, engine.Tensor):
            names.setdefault(id(value), name)
    for value in scope.values():
        if isinstance(value, Optimizer):
            for tensor, state in value.state.items():
                owner = names.get(id(tensor))
                for field, item in state.items():
                    if owner is not None and isinstance(item, engine.Tensor):
                        names.setdefault(id(item), f"{owner}.{field}")
    return names


class _Lazy(dict):
    """Snapshots whose data becomes JSON lists only when a fold needs them."""

    def __init__(self, states: dict[str, dict[str, Any]]) -> None:
        super().__init__(states)

    def get(self, key: str, default: Any = None) -> Any:
        state = super().get(key, default)
        if state is not None and "data" not in state:
            state["data"] = state["array"].tolist()
        return state


class RecorderFolding(RecorderState):
    """The recorder's snapshots for loop folds (a part of ``Recorder``)."""

    def read(self, event: dict[str, Any], folding: tuple[str, ...]) -> None:
        """Note who reads each snapshot: one read where no iteration folds keeps it."""
        if event["kind"] == "frame":
            return
        reads = self.reads[id(event)] = tuple(consumed(event))
        if not self.snapshots:
            return
        for key in reads:
            state = self.snapshots.get(key)
            if state is not None and not state["kept"]:
                if folding:
                    state["readers"].add(folding)
                else:
                    state["kept"] = True

    def prune(self, folded: set[str]) -> None:
        """Drop the snapshots no fold can need: keys that no later event can read, made
        and read only in iterations now known to fold (``folded``: frames whose loop
        went on to a later iteration), so their values never enter the document."""
        waiting: list[str] = []
        for key in self.retired:
            state = self.snapshots.get(key)
            if state is None:
                continue
            chains = [state["maker"], *state["readers"]]
            if not state["kept"] and all(folded.intersection(c) for c in chains):
                del self.snapshots[key]
            else:
                waiting.append(key)
        self.retired = waiting
        for instance, grad_state in list(self.grad_states.items()):
            if folded.intersection(grad_state.chain):  # a loop run inside a folded iteration
                del self.grad_states[instance]

    def snapshot_grads(self, frame: str, instance: str, chain: tuple[str, ...]) -> None:
        """The ``.grad`` of every recorded leaf as iteration ``frame`` of loop run
        ``instance`` begins: if it is the run's last, the iterations before it fold,
        and what their backward passes left in ``.grad`` is set again from these."""
        grads: dict[int, dict[str, Any]] = {}
        self.depth += 1
        try:
            for serial in list(self.leaf_serials):
                ref = self.refs.get(serial)
                tensor = None if ref is None else ref()
                if tensor is None:
                    self.leaf_serials.discard(serial)
                    continue
                grad = tensor.grad
                if grad is None:
                    continue
                data = getattr(grad, "_data", None)
                array = data.copy() if type(data) is np.ndarray else grad.detach().numpy()
                grads[serial] = {
                    "array": np.array(array, copy=True),
                    "dtype": str(grad.dtype).removeprefix("torch."),
                    "history": grad.grad_fn is not None,
                }
        finally:
            self.depth -= 1
        self.grad_states[instance] = GradState(frame, chain, grads)

    def snapshot(self, key: str, tensor: Any, serial: int, maker: tuple[str, ...]) -> None:
        """What ``tensor`` holds now, in case its loop iteration is folded later."""
        data = getattr(tensor, "_data", None)
        if type(data) is np.ndarray:
            data = data.copy()  # the storage's values, without an engine call
        else:
            self.depth += 1
            try:
                data = tensor.detach().cpu().numpy(force=True).copy()
            finally:
                self.depth -= 1
        self.snapshots[key] = {
            "array": data,
            "dtype": str(tensor.dtype).removeprefix("torch."),
            "requires_grad": bool(tensor.requires_grad),
            "history": tensor.grad_fn is not None,
            "serial": serial,
            "maker": maker,
            "readers": set(),
            "kept": False,
        }

    def folded(self, events: list[dict[str, Any]], scope: dict[str, Any]) -> list[dict[str, Any]]:
        """``events`` with long loops folded, the literals named after what they hold."""
        names = {self.owner.get(oid): name for oid, name in tensor_names(scope).items()}
        for state in self.snapshots.values():
            state["name"] = names.get(state["serial"])
        return fold(
            events, _Lazy(self.snapshots), self.keep, self.leaves, self.reads, self.grad_states
        )
