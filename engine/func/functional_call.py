"""``functional_call``: a module run with other tensors in place of its parameters and
buffers (the tensors go straight into its tables, as PyTorch swaps them), and
``stack_module_state``, which stacks the state of like modules for ``vmap``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from engine.ops.shape import stack
from engine.tensor import Tensor


def functional_call(
    module: Any,
    parameter_and_buffer_dicts: Any,
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """``module(*args, **kwargs)`` with the named tensors standing in for its own."""
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        merged = {}
        for d in parameter_and_buffer_dicts:
            repeated = [k for k in d if k in merged]
            if repeated:
                raise ValueError(
                    f"{repeated} appeared in multiple dictionaries; behavior of functional call "
                    "is ambiguous"
                )
            merged.update(d)
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but "
            f"got {type(parameter_and_buffer_dicts)}"
        )
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _swapped(module, merged, tie_weights, strict):
        return module(*args, **kwargs)


def _tied_names(module: Any) -> dict[str, list[str]]:
    """For each tensor reachable under several names, every name it goes by."""
    by_id: dict[int, list[str]] = {}
    for name, t in module.named_parameters(remove_duplicate=False):
        by_id.setdefault(id(t), []).append(name)
    for name, t in module.named_buffers(remove_duplicate=False):
        by_id.setdefault(id(t), []).append(name)
    return {n: names for names in by_id.values() if len(names) > 1 for n in names}


@contextmanager
def _swapped(
    module: Any, tensors: dict[str, Any], tie_weights: bool, strict: bool
) -> Iterator[None]:
    if strict:
        expected = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        expected |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        unexpected = [k for k in tensors if k not in expected]
        missing = [k for k in sorted(expected) if k not in tensors]
        if tie_weights:
            tied = _tied_names(module)
            missing = [k for k in missing if not any(o in tensors for o in tied.get(k, ()))]
        if unexpected or missing:
            lines = [f"Error(s) in reparametrizing for {type(module).__name__}:"]
            if unexpected:
                lines.append(f"\tUnexpected key(s): {', '.join(repr(k) for k in unexpected)}.")
            if missing:
                lines.append(f"\tMissing key(s): {', '.join(repr(k) for k in missing)}.")
            raise RuntimeError("\n".join(lines))
    todo = dict(tensors)
    if tie_weights:
        tied = _tied_names(module)
        for name, value in list(tensors.items()):
            for other in tied.get(name, ()):
                if other in tensors and tensors[other] is not value:
                    raise ValueError(
                        f"functional_call got multiple values for keys {sorted(tied[name])}, "
                        "which are tied. Consider using tie_weights=False"
                    )
                todo.setdefault(other, value)
    saved: list[tuple[dict[str, Any], str, Any, bool]] = []
    try:
        for name, value in todo.items():
            owner, leaf = _owner(module, name)
            table = _table(owner, leaf)
            if table is None:
                had = leaf in owner.__dict__
                saved.append((owner.__dict__, leaf, owner.__dict__.get(leaf), had))
                owner.__dict__[leaf] = value
            else:
                saved.append((table, leaf, table[leaf], True))
                table[leaf] = value
        yield
    finally:
        for table, leaf, old, had in reversed(saved):
            if had:
                table[leaf] = old
            else:
                table.pop(leaf, None)


def _owner(module: Any, name: str) -> tuple[Any, str]:
    *path, leaf = name.split(".")
    owner = module
    for part in path:
        owner = getattr(owner, part)
    return owner, leaf


def _table(owner: Any, leaf: str) -> dict[str, Any] | None:
    for table in (owner._parameters, owner._buffers):
        if leaf in table:
            return table
    return None


def stack_module_state(models: Any) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """Each parameter and buffer of ``models`` stacked along a new first dimension; stacked
    parameters are new leaves that require grad where the originals did."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError(
            "stack_module_state: Expected all models to have the same training/eval mode."
        )
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = [dict(m.named_parameters()) for m in models]
    buffers = [dict(m.named_buffers()) for m in models]
    return (
        {k: _stacked_leaf([p[k] for p in params], k) for k in params[0]},
        {k: _stacked_leaf([b[k] for b in buffers], k) for k in buffers[0]},
    )


def _stacked_leaf(tensors: list[Tensor], name: str) -> Tensor:
    wanted = [t.requires_grad for t in tensors]
    if any(wanted) and not all(wanted):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    if all(wanted):
        result = result.detach().requires_grad_()
    return result
