"""``vmap``: ``func`` run once per slice of the mapped dimension, the results stacked.

For a pure function this is what PyTorch's batching rules compute; the checks on ``in_dims``
and ``out_dims`` and their messages are PyTorch's.  ``randomness='error'`` refuses any draw
from a generator inside the function, ``'same'`` replays the generator's state for every slice,
``'different'`` lets each slice draw afresh.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from engine.autograd.transform_state import running
from engine.func import pytree
from engine.ops.shape import stack
from engine.random.generator import DRAW_GUARDS, default_generator
from engine.tensor import Tensor

RANDOM_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the "
    "'same' or 'different' randomness flags on vmap or perform the randomness operation out "
    "of vmap"
)


def _name(func: Any) -> str:
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def vmap(
    func: Callable[..., Any],
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
) -> Callable[..., Any]:
    """``func`` mapped over dimension ``in_dims`` of its inputs, results stacked at
    ``out_dims``."""
    check_randomness(randomness)
    if chunk_size is not None and chunk_size < 1:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        _check_out_dims(out_dims, func)
        size, flat_dims, flat_args, spec = _batched_inputs(in_dims, args, func)
        results = []
        with randomness_mode(randomness):
            state = default_generator.get_state() if randomness == "same" else None
            for b in range(max(size, 1)):
                if state is not None:
                    default_generator.set_state(state)
                sliced = [
                    a if d is None else _slice(a, d, b, size)
                    for a, d in zip(flat_args, flat_dims, strict=True)
                ]
                with running("vmap"):
                    results.append(func(*pytree.unflatten(sliced, spec), **kwargs))
        return _stack_outputs(results, out_dims, func, size)

    return wrapped


def check_randomness(randomness: str) -> None:
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )


def _slice(a: Tensor, dim: int, b: int, size: int) -> Tensor:
    if size == 0:  # a stand-in slice, so the outputs' shapes are known
        shape = [n for i, n in enumerate(a.shape) if i != dim]
        return a.new_zeros(shape)
    return a.select(dim, b)


def _check_out_dims(out_dims: Any, func: Any) -> None:
    if isinstance(out_dims, int):
        return
    for x in pytree.flatten(out_dims)[0]:
        if x is not None and not isinstance(x, int):
            raise ValueError(
                f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, "
                "None or a python collection of ints representing where in the outputs the "
                "vmapped dimension should appear."
            )


def _batched_inputs(
    in_dims: Any, args: tuple[Any, ...], func: Any
) -> tuple[int, list[int | None], list[Any], pytree.Spec]:
    name = _name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
            "(potentially nested) tuple matching the structure of inputs, got: "
            f"{type(in_dims)}."
        )
    if not args:
        raise ValueError(
            f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you "
            "are trying to vmap over a function with no inputs. The latter is unsupported."
        )
    flat_args, spec = pytree.flatten(args)
    flat_dims = pytree.broadcast_prefix(in_dims, spec)
    if flat_dims is None:
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with "
            f"the structure of `inputs`. in_dims has structure {pytree.flatten(in_dims)[1]} but "
            f"inputs has structure {spec}."
        )
    for i, (arg, d) in enumerate(zip(flat_args, flat_dims, strict=True)):
        if d is not None and not isinstance(d, int):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input "
                "but in_dim must be either an integer dimension or None."
            )
        if isinstance(d, int) and not isinstance(arg, Tensor):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input "
                f"but the input is of type {type(arg)}. We cannot vmap over non-Tensor "
                "arguments, please use None as the respective in_dim"
            )
        if d is not None and (d < -arg.dim() or d >= arg.dim()):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some "
                f"input, but that input is a Tensor of dimensionality {arg.dim()} so expected "
                f"in_dim to satisfy -{arg.dim()} <= in_dim < {arg.dim()}."
            )
        if d is not None and d < 0:
            flat_dims[i] = d % arg.dim()
    sizes = [a.size(d) for a, d in zip(flat_args, flat_dims, strict=True) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension"
        )
    return sizes[0], flat_dims, flat_args, spec


def _stack_outputs(results: list[Any], out_dims: Any, func: Any, size: int) -> Any:
    name = _name(func)
    flat_first, spec = pytree.flatten(results[0])
    flats = [pytree.flatten(r)[0] for r in results]
    if isinstance(results[0], Tensor):
        if isinstance(out_dims, int) or out_dims is None:
            flat_dims: list[Any] | None = [out_dims]
        elif isinstance(out_dims, tuple) and len(out_dims) == 1:
            flat_dims = list(out_dims)
        else:
            flat_dims = None
    else:
        flat_dims = pytree.broadcast_prefix(out_dims, spec)
    if flat_dims is None:
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with "
            f"the structure of `outputs`. out_dims has structure {pytree.flatten(out_dims)[1]} "
            f"but outputs has structure {spec}."
        )
    outs = []
    for k, d in enumerate(flat_dims):
        first = flat_first[k]
        if d is None:
            outs.append(first)
            continue
        if not isinstance(first, Tensor):
            raise ValueError(
                f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                f"{type(first)}. Did you mean to set out_dims= to None for output?"
            )
        dim = d % (first.dim() + 1) if d < 0 else d
        stacked = stack([f[k] for f in flats], dim=dim)
        outs.append(stacked.narrow(dim, 0, 0) if size == 0 else stacked)
    return pytree.unflatten(outs, spec)


def _refuse_draw() -> None:
    raise RuntimeError(RANDOM_ERROR)


@contextmanager
def randomness_mode(mode: str) -> Iterator[None]:
    """While the function runs: under ``'error'`` every draw raises; the other modes let
    draws through (an enclosing ``'error'`` vmap still refuses them)."""
    DRAW_GUARDS.append(_refuse_draw if mode == "error" else None)
    try:
        yield
    finally:
        DRAW_GUARDS.pop()
