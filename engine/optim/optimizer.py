"""``optim.Optimizer``: parameter groups, per-parameter state, ``zero_grad`` and ``step``.

The update rules are PyTorch's single-tensor implementations (the CPU default), done
on the storage arrays in the order and precision of PyTorch's kernels: Python scalars
are rounded to the parameter's dtype, ``addcmul``/``addcdiv`` compute ``value * t1``
first.  Each parameter's version counter advances once per step, as one in-place op
on it does in PyTorch.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from engine.grad_mode import enable_grad, no_grad
from engine.tensor import Tensor


class _RequiredParameter:
    def __repr__(self) -> str:
        return "<required parameter>"


required: Any = _RequiredParameter()


def _params_type_error(params: Any) -> TypeError:
    name = (
        f"torch.{params.dtype.scalar_name}Tensor"
        if isinstance(params, Tensor)
        else type(params).__name__
    )
    return TypeError(
        "params argument given to the optimizer should be an iterable of Tensors or dicts, "
        f"but got {name}"
    )


def _cast_state(p: Tensor, key: str, value: Any) -> Any:
    """A loaded state value as PyTorch keeps it: ``step`` untouched, other tensors moved to
    the parameter's device and, for a floating parameter, cast to its dtype (so a float64
    parameter's ``mu_product`` or ``eta`` becomes float64, as in PyTorch)."""
    if not isinstance(value, Tensor) or key == "step":
        return value
    if p.is_floating_point():
        return value.to(dtype=p.dtype, device=p.device)
    return value.to(p.device)


def check_adam_family(lr: float, eps: float, betas: tuple[float, float], wd: float) -> None:
    """The hyperparameter checks Adam, AdamW, Adamax, NAdam and RAdam share, in PyTorch's
    order and words."""
    if not lr >= 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not eps >= 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not wd >= 0.0:
        raise ValueError(f"Invalid weight_decay value: {wd}")


class Optimizer:
    """Base class: holds ``param_groups`` (dicts with ``params`` and options) and ``state``."""

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):
            raise _params_type_error(params)
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + type(param).__name__
                )
            if not param.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()

        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self._update(p, p.grad, group, self.state[p])
        return loss

    def _update(
        self, p: Tensor, grad: Tensor, group: dict[str, Any], state: dict[str, Any]
    ) -> None:
        """Apply one step of the rule to one parameter (under ``no_grad``)."""
        raise NotImplementedError

    def state_dict(self) -> dict[str, Any]:
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index.setdefault(id(p), len(index)) for p in group["params"]]
            groups.append(packed)
        state = {index[id(p)]: dict(s) for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        params = [p for g in self.param_groups for p in g["params"]]
        if sum(len(g["params"]) for g in groups) != len(params):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        by_index = dict(enumerate(params))
        self.state = defaultdict(dict)
        for key, value in state_dict["state"].items():
            p = by_index[int(key)]
            self.state[p] = {k: _cast_state(p, k, v) for k, v in value.items()}
        for mine, loaded in zip(self.param_groups, groups):
            mine.update({k: v for k, v in loaded.items() if k != "params"})

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def __getstate__(self) -> dict[str, Any]:
        return {
            "defaults": self.defaults,
            "state": self.state,
            "param_groups": self.param_groups,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
