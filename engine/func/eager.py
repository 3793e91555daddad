"""``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd`` and ``hessian``.

Each is reverse-mode autograd at a fresh ``Level`` (see ``levels``).  ``jvp`` (and so
``jacfwd``) uses the double-vjp identity on the whole function: ``J^T u`` is linear in ``u``,
so differentiating ``<J^T u, v>`` in ``u`` gives ``J v``.  Because every step keeps its graph,
the transforms nest in any order (``jacfwd(jacrev(f))``, ``jvp(grad(f))``, ``vmap(grad(f))``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from engine import grad_mode
from engine.autograd.functional import grad as autograd_grad
from engine.autograd.transform_state import running
from engine.backend import array_module
from engine.func import pytree
from engine.func.levels import Level, vjp_of
from engine.func.vmap import check_randomness, randomness_mode
from engine.messages import fmt_shape
from engine.ops.shape import stack
from engine.tensor import Tensor

Argnums = int | tuple[int, ...]


def _wrap_argnum(argnum: Any, num_args: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _slice_argnums(args: tuple[Any, ...], argnums: Any, as_tuple: bool = True) -> Any:
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        i = _wrap_argnum(argnums, len(args))
        return (args[i],) if as_tuple else args[i]
    wrapped = tuple(_wrap_argnum(a, len(args)) for a in argnums)
    if not wrapped:
        raise RuntimeError("argnums must be non-empty")
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(args[i] for i in wrapped)


def _replace_argnums(args: tuple[Any, ...], argnums: Any, new: Any) -> tuple[Any, ...]:
    out = list(args)
    if isinstance(argnums, int):
        out[_wrap_argnum(argnums, len(args))] = new
    else:
        for a, v in zip(argnums, new, strict=True):
            out[_wrap_argnum(a, len(args))] = v
    return tuple(out)


def _check_float(x: Tensor) -> None:
    if not x.dtype.is_floating_point:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")


def _differentiable(level: Level, tree: Any, dual: bool = False) -> Any:
    """Every tensor of ``tree`` as this level's alias (``dual``: checked as forward mode's
    ``make_dual`` checks its primals)."""

    def make(x: Any) -> Any:
        if isinstance(x, Tensor):
            if dual and not x.dtype.is_floating_point:
                raise ValueError(
                    f"Expected primal to be floating point or complex, but got: {x.dtype}"
                )
            _check_float(x)
        return level.alias(x)

    return pytree.tree_map(make, tree)


def _outputs(output: Any, has_aux: bool, api: str) -> tuple[Any, list[Any], Any, Any]:
    """``f``'s result taken apart as PyTorch's transforms check it: the output without its
    aux, its flat tensors and tree spec, and the aux value (``has_aux``), with PyTorch's
    messages naming ``api``."""
    aux = None
    if has_aux:
        if not (isinstance(output, tuple) and len(output) == 2):
            raise RuntimeError(
                f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True"
            )
        output, aux = output
    flat_out, out_spec = pytree.flatten(output)
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(
                f"{api}: expected f(*primals) to return only tensors, got unsupported type "
                f"{type(o)}"
            )
    return output, flat_out, out_spec, aux


def grad_and_value(func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Any:
    """``func``'s gradient with respect to the arguments ``argnums``, and its value."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        level = Level()
        with grad_mode.enable_grad():
            diff = _slice_argnums(args, argnums, as_tuple=False)
            diff = _differentiable(level, diff)
            with running("grad"):
                output = func(*_replace_argnums(args, argnums, diff), **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError(
                        "grad_and_value(f)(*args): output of function f should be a tuple: "
                        "(output, aux) if has_aux is True"
                    )
                output, aux = output
            if not isinstance(output, Tensor):
                raise RuntimeError(
                    f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
                    f"{type(output)}"
                )
            if output.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
                    f"got tensor with {output.dim()} dims. Maybe you wanted to use the vjp or "
                    "jacrev APIs instead?"
                )
            flat, spec = pytree.flatten(diff)
            grads = pytree.unflatten(list(vjp_of([output], flat, None)), spec)
            grads = level.lower(grads)
            output = level.lower(output)
            if has_aux:
                return grads, (output, level.lower(aux))
            return grads, output

    return wrapper


def grad(func: Callable[..., Any], argnums: Argnums = 0, has_aux: bool = False) -> Any:
    """``func``'s gradient with respect to the arguments ``argnums`` (``func`` returns a
    0-dim tensor; with ``has_aux``, a pair ``(output, aux)`` and aux comes back too)."""
    both = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        grads, value = both(*args, **kwargs)
        if has_aux:
            return grads, value[1]
        return grads

    return wrapper


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> Any:
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` is the cotangents times the
    Jacobian, one gradient per primal."""
    level = Level()
    with grad_mode.enable_grad():
        diff = _differentiable(level, primals)
        with running("grad"):
            output = func(*diff)
        output, flat_out, out_spec, aux = _outputs(output, has_aux, "vjp(f, *primals)")
        for o in flat_out:
            if not o.dtype.is_floating_point:
                raise RuntimeError(
                    "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, "
                    f"got Tensor with dtype {o.dtype}"
                )
    flat_in, in_spec = pytree.flatten(diff)

    def vjp_fn(
        cotangents: Any, *, retain_graph: bool = True, create_graph: bool | None = None
    ) -> Any:
        flat_cot, cot_spec = pytree.flatten(cotangents)
        if cot_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure "
                f"of outputs to the function. cotangents: {cot_spec}, primal output: {out_spec}"
            )
        with grad_mode.enable_grad():
            grads = vjp_of(flat_out, flat_in, flat_cot)
        return level.lower(tuple(pytree.unflatten(list(grads), in_spec)))

    result = (level.lower(output), vjp_fn)
    return (*result, level.lower(aux)) if has_aux else result


_JVP = "jvp(f, primals, tangents)"


def jvp(
    func: Callable[..., Any],
    primals: Any,
    tangents: Any,
    *,
    strict: bool = False,
    has_aux: bool = False,
) -> Any:
    """``(func(*primals), J·tangents)`` (and aux): the Jacobian-vector product."""
    if not isinstance(primals, tuple):
        raise RuntimeError(
            f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals)."
        )
    flat_p, p_spec = pytree.flatten(primals)
    flat_t, t_spec = pytree.flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            f"{_JVP}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {p_spec} and tangents with structure {t_spec}"
        )
    for name, flat in (("primals", flat_p), ("tangents", flat_t)):
        if not flat:
            raise RuntimeError(f"{_JVP}: Expected {name} to contain at least one Tensor.")
        for x in flat:
            if not isinstance(x, Tensor):
                raise RuntimeError(
                    f"{_JVP}: Expected {name} to only contain Tensors, got {type(x)}"
                )
    for p, t in zip(flat_p, flat_t, strict=True):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                "original Tensor, this is not supported. Tensor is of size "
                f"{fmt_shape(p.shape)} while the given forward gradient is of size "
                f"{fmt_shape(t.shape)}."
            )
    level = Level()
    with grad_mode.enable_grad():
        leaves = _differentiable(level, flat_p, dual=True)
        with running("jvp"):
            output = func(*pytree.unflatten(leaves, p_spec))
        output, flat_out, out_spec, aux = _outputs(output, has_aux, _JVP)
        products = jvp_of(level, flat_out, leaves, [flat_t])[0]
    out = (level.lower(output), level.lower(pytree.unflatten(products, out_spec)))
    return (*out, level.lower(aux)) if has_aux else out


def linearize(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian at ``primals`` times
    ``tangents``, for as many tangents as wanted (the graph of ``func`` is kept)."""
    flat_p, p_spec = pytree.flatten(primals)
    level = Level()
    with grad_mode.enable_grad():
        leaves = _differentiable(level, flat_p, dual=True)
        with running("jvp"):
            output = func(*pytree.unflatten(leaves, p_spec))
    flat_out, out_spec = pytree.flatten(output)

    def jvp_fn(*tangents: Any) -> Any:
        flat_t, t_spec = pytree.flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(
                f"Expected the tangents {t_spec} to have the same argspec as the primals {p_spec}"
            )
        for i, (t, p) in enumerate(zip(flat_t, flat_p, strict=True)):
            for what, got, want in (
                ("shape", t.shape, p.shape),
                ("device", t.device, p.device),
                ("dtype", t.dtype, p.dtype),
            ):
                if got != want:
                    raise RuntimeError(
                        f"tangent:{i} with {what} {got} in flattened pytree doesn't match the "
                        f"{what} {want} of the corresponding primal."
                    )
        with grad_mode.enable_grad():
            products = jvp_of(level, flat_out, leaves, [flat_t])[0]
        return level.lower(pytree.unflatten(products, out_spec))

    return level.lower(output), jvp_fn


def jvp_of(
    level: Level, outputs: list[Tensor], inputs: list[Tensor], tangent_sets: list[list[Any]]
) -> list[list[Tensor]]:
    """``J·v`` for each list of input tangents ``v``, sharing one ``J^T u`` (graphs kept)."""
    seeds = [
        level.mark(Tensor._wrap(array_module(o._data).zeros_like(o._data)).requires_grad_())
        for o in outputs
    ]
    pulled = vjp_of(outputs, inputs, seeds)
    results = []
    for tangents in tangent_sets:
        total = None
        for g, v in zip(pulled, tangents, strict=True):
            if g.requires_grad:
                term = (g * v).sum()
                total = term if total is None else total + term
        if total is None:
            results.append(
                [Tensor._wrap(array_module(o._data).zeros_like(o._data)) for o in outputs]
            )
            continue
        grads = autograd_grad(total, seeds, create_graph=True, allow_unused=True)
        results.append(
            [
                Tensor._wrap(array_module(o._data).zeros_like(o._data)) if g is None else g
                for g, o in zip(grads, outputs, strict=True)
            ]
        )
    return results


def _basis(x: Tensor, k: int) -> Tensor:
    arr = array_module(x._data).zeros(x._data.shape, dtype=x._data.dtype)
    arr.reshape(-1)[k] = 1
    return Tensor._wrap(arr)


def jacrev(
    func: Callable[..., Any],
    argnums: Argnums = 0,
    *,
    has_aux: bool = False,
    chunk_size: int | None = None,
    _preallocate_and_copy: bool = False,
) -> Any:
    """The Jacobian of ``func`` in ``argnums`` by reverse mode, one vjp per output element:
    each block has shape ``output.shape + input.shape``."""
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")
    return _jacobian(func, argnums, has_aux, forward=False, name="jacrev", randomness=None)


def jacfwd(
    func: Callable[..., Any],
    argnums: Argnums = 0,
    has_aux: bool = False,
    *,
    randomness: str = "error",
) -> Any:
    """The Jacobian of ``func`` in ``argnums`` by forward mode, one jvp per input element."""
    return _jacobian(func, argnums, has_aux, forward=True, name="jacfwd", randomness=randomness)


def _jacobian(
    func: Callable[..., Any],
    argnums: Argnums,
    has_aux: bool,
    forward: bool,
    name: str,
    randomness: str | None,
) -> Any:
    """Both Jacobians; ``jacfwd``'s pass runs under its vmap's ``randomness`` mode."""

    @functools.wraps(func)
    def wrapper(*args: Any) -> Any:
        if randomness is None:
            return _jacobian_at(args)
        check_randomness(randomness)
        with randomness_mode(randomness):
            return _jacobian_at(args)

    def _jacobian_at(args: tuple[Any, ...]) -> Any:
        level = Level()
        with grad_mode.enable_grad():
            diff = _slice_argnums(args, argnums, as_tuple=False)
            diff = _differentiable(level, diff, dual=forward)
            flat_in, in_spec = pytree.flatten(diff)
            with running(*(("vmap", "jvp") if forward else ("grad",))):
                output = func(*_replace_argnums(args, argnums, diff))
            api = _JVP if forward else "vjp(f, *primals)"
            output, flat_out, out_spec, aux = _outputs(output, has_aux, api)
            blocks = (
                _blocks_forward(level, flat_out, flat_in) if forward else _blocks(flat_out, flat_in)
            )
        per_output = [level.lower(pytree.unflatten(row, in_spec)) for row in blocks]
        jac = pytree.unflatten(per_output, out_spec)
        if has_aux:
            return jac, level.lower(aux)
        return jac

    return wrapper


def _blocks(outputs: list[Tensor], inputs: list[Tensor]) -> list[list[Tensor]]:
    """``blocks[i][j]``: d outputs[i] / d inputs[j], row by row (one vjp per output element)."""
    result = []
    for o in outputs:
        rows: list[list[Tensor]] = [[] for _ in inputs]
        for k in range(o.numel()):
            grads = vjp_of([o], inputs, [_basis(o, k)])
            for j, g in enumerate(grads):
                rows[j].append(g)
        result.append([_assemble(rows[j], o, x, rows_first=True) for j, x in enumerate(inputs)])
    return result


def _blocks_forward(
    level: Level, outputs: list[Tensor], inputs: list[Tensor]
) -> list[list[Tensor]]:
    """``blocks[i][j]`` column by column: one jvp per element of each input."""
    columns: list[list[list[Tensor]]] = [[[] for _ in inputs] for _ in outputs]
    for j, x in enumerate(inputs):
        sets = []
        for k in range(x.numel()):
            sets.append([_basis(x, k) if i == j else _zeros(y) for i, y in enumerate(inputs)])
        for products in jvp_of(level, outputs, inputs, sets) if sets else []:
            for i, p in enumerate(products):
                columns[i][j].append(p)
    return [
        [_assemble(columns[i][j], o, x, rows_first=False) for j, x in enumerate(inputs)]
        for i, o in enumerate(outputs)
    ]


def _zeros(x: Tensor) -> Tensor:
    return Tensor._wrap(array_module(x._data).zeros_like(x._data))


def _assemble(parts: list[Tensor], out: Tensor, inp: Tensor, rows_first: bool) -> Tensor:
    """Stack rows (``d out[k] / d inp``) or columns (``d out / d inp[k]``) into one block of
    shape ``out.shape + inp.shape``."""
    shape = (*out.shape, *inp.shape)
    if not parts:
        return Tensor._wrap(array_module(out._data).zeros(shape, dtype=out._data.dtype))
    return stack(parts, dim=0 if rows_first else -1).view(shape)


def hessian(func: Callable[..., Any], argnums: Argnums = 0) -> Any:
    """The Hessian of a scalar ``func``: ``jacfwd(jacrev(func, argnums), argnums)``."""
    return jacfwd(jacrev(func, argnums), argnums)
