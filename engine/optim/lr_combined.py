"""Schedulers made of schedulers: ``SequentialLR`` (one after another at milestones, the
usual warm-up then decay) and ``ChainedScheduler`` (all of them at every step)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from engine.optim import lr_scheduler as _base
from engine.optim.lr_scheduler import LRScheduler
from engine.optim.optimizer import Optimizer


def _check(owner: str, optimizer: Optimizer, schedulers: Sequence[Any]) -> None:
    for i, sched in enumerate(schedulers):
        if not hasattr(sched, "optimizer"):
            raise TypeError(f"{owner} at index {i} should have `optimizer` as its attribute.")
        if isinstance(sched, _base.ReduceLROnPlateau):
            raise ValueError(
                f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires "
                "additional kwargs to be specified when calling `step`, but got one at index "
                f"{i} in the given schedulers sequence."
            )
        if optimizer != sched.optimizer:
            raise ValueError(
                f"{owner} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {type(sched).__name__} at index {i} has {sched.optimizer}, which "
                f"is different from {type(optimizer).__name__}."
            )


class _Composite(LRScheduler):
    """State of the parts nested under ``_schedulers``, as PyTorch saves it."""

    _schedulers: list[Any]

    def state_dict(self) -> dict[str, Any]:
        skip = ("optimizer", "_schedulers")
        state = {k: v for k, v in self.__dict__.items() if k not in skip}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        parts = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = parts
        for sched, part in zip(self._schedulers, parts):
            sched.load_state_dict(part)


class SequentialLR(_Composite):
    """``schedulers[i]`` drives the rate from ``milestones[i - 1]`` on; each new one
    restarts from the initial rates."""

    def __init__(
        self,
        optimizer: Optimizer,
        schedulers: list[Any],
        milestones: list[int],
        last_epoch: int = -1,
    ) -> None:
        name = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{name} expects at least one scheduler, but got no scheduler.")
        _check(name, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                "than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self._undo(self)
        idx = bisect_right(milestones, 0)
        schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def _undo(self, sched: Any) -> None:
        """Take back the step each part took when it was made."""
        if hasattr(sched, "_schedulers"):
            for part in sched._schedulers:
                self._undo(part)
        elif hasattr(sched, "last_epoch"):
            sched.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        sched = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            sched._update_lr(0)
        else:
            sched.step()
        self._last_lr = sched.get_last_lr()


class ChainedScheduler(_Composite):
    """Every part steps at each step, each on the rate the previous one left."""

    def __init__(self, schedulers: Sequence[Any], optimizer: Optimizer | None = None) -> None:
        name = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(
                f"{name} expects at least one scheduler to be chained, but got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        _check(name, optimizer, schedulers)
        self._schedulers = list(schedulers)
        self.optimizer = optimizer
        self._last_lr = [g["lr"] for g in self._schedulers[-1].optimizer.param_groups]

    def step(self) -> None:  # type: ignore[override]
        for sched in self._schedulers:
            sched.step()
        self._last_lr = [g["lr"] for g in self._schedulers[-1].optimizer.param_groups]
