"""``torch.autograd.functional``: ``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``hvp``
and ``vhp`` built on ``autograd.grad``, with PyTorch's conventions.

Inputs are re-wrapped before ``func`` runs (a detached leaf, or a differentiable
alias under ``create_graph``) so that only the arguments count as inputs; results are
detached unless ``create_graph``; a missing gradient is zeros unless ``strict``.
Forward-mode products use the double-backward trick, as PyTorch's reference does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.autograd import forward_ad
from engine.autograd.functional import grad
from engine.creation import zeros_like
from engine.grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from engine.ops.shape import stack
from engine.tensor import Tensor

Tensors = tuple[Any, ...]


def _as_tuple(value: Any, what: str, fn: str) -> tuple[bool, Tensors]:
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {what}"
            raise TypeError(
                f"The {what} given to {fn} must be either a Tensor or a tuple of Tensors but "
                f"the {where} has type {type(el)}."
            )
    return is_tuple, items


def _prepare(items: Tensors, create_graph: bool, need_graph: bool) -> Tensors:
    """New tensor objects for the inputs, so captured copies are not mistaken for them."""
    out = []
    for t in items:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(items: Any, create_graph: bool) -> Any:
    if isinstance(items, tuple) and items and isinstance(items[0], tuple):
        return tuple(_finish(i, create_graph) for i in items)
    return items if create_graph else tuple(t.detach() for t in items)


def _unpack(res: Any, is_tuple: Any) -> Any:
    if isinstance(is_tuple, tuple):
        outer, inner = is_tuple
        if not inner:
            res = tuple(r[0] for r in res)
        return res if outer else res[0]
    return res if is_tuple else res[0]


def _grad(
    outputs: Tensors,
    inputs: Tensors,
    grad_outputs: Tensors | None = None,
    create_graph: bool = False,
    retain_graph: bool | None = None,
) -> Tensors:
    """``autograd.grad`` that skips outputs that do not require grad (all None then)."""
    grad_outputs = grad_outputs or (None,) * len(outputs)
    keep = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not keep:
        return (None,) * len(inputs)
    return grad(
        [o for o, _ in keep],
        list(inputs),
        [g for _, g in keep],
        allow_unused=True,
        create_graph=create_graph,
        retain_graph=retain_graph,
    )


_STRICT_MISSING = {
    "back": "The output of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
    "grad_outputs when using the double backward trick to compute forward mode gradients. "
    "This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
    "{i} in the grad_jacobian. This is not allowed in strict mode as it prevents from using "
    "the double backward trick to replace forward mode AD.",
}


def _zeros_for_missing(
    grads: Tensors, refs: Tensors, strict: bool, create_graph: bool, stage: str
) -> Tensors:
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_STRICT_MISSING[stage].format(i=i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            kind = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(
                f"The {kind} of the user-provided function is independent of input {i}. "
                "This is not allowed in strict mode when create_graph=True."
            )
        out.append(g)
    return tuple(out)


def _check_outputs(outputs: Tensors, strict: bool) -> None:
    if not strict:
        return
    for i, o in enumerate(outputs):
        if not o.requires_grad:
            raise RuntimeError(
                f"Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."
            )


def _check_v(v: Tensors, other: Tensors, other_is_tuple: bool) -> None:
    if len(v) != len(other):
        if other_is_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if a.size() != b.size():
            prefix = f"Entry {i} in " if other_is_tuple else ""
            raise RuntimeError(
                f"{prefix}v has invalid size: should be {b.size()} but got {a.size()}."
            )


def _vector(
    v: Any, fn: str, against: Tensors, is_tuple: bool, create_graph: bool, *, of_input: bool
) -> Tensors | None:
    """The user's ``v`` checked against the outputs (or inputs) it multiplies; ``None``
    only where they are one single-element tensor."""
    if v is not None:
        vs = _prepare(_as_tuple(v, "v", fn)[1], create_graph, False)
        _check_v(vs, against, is_tuple)
        return vs
    if len(against) != 1 or against[0].nelement() != 1:
        raise _single_element_v(fn, of_input=of_input)
    return None


def _single_element_v(fn: str, of_input: bool) -> RuntimeError:
    if of_input:
        return RuntimeError(
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element."
        )
    return RuntimeError(
        "The vector v can only be None if the user-provided function returns a single Tensor "
        "with a single element."
    )


def vjp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "vjp")
        ins = _prepare(ins, create_graph, True)
        out_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function", "vjp")
        _check_outputs(outs, strict)
        vs = _vector(v, "vjp", outs, out_tuple, create_graph, of_input=False)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _zeros_for_missing(
            _grad(outs, ins, vs, create_graph), ins, strict, create_graph, "back"
        )
    return _unpack(_finish(outs, create_graph), out_tuple), _unpack(
        _finish(res, create_graph), in_tuple
    )


def jvp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "jvp")
        ins = _prepare(ins, create_graph, True)
        vs = _vector(v, "jvp", ins, in_tuple, create_graph, of_input=True)
        out_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function", "jvp")
        _check_outputs(outs, strict)
        dummies = tuple(zeros_like(o, requires_grad=True) for o in outs)
        grad_inputs = _grad(outs, ins, dummies, create_graph=True)
    with set_grad_enabled(True) if create_graph else _nothing():
        res = _zeros_for_missing(
            _grad(grad_inputs, dummies, vs, create_graph), outs, strict, create_graph, "back_trick"
        )
    return _unpack(_finish(outs, create_graph), out_tuple), _unpack(
        _finish(res, create_graph), out_tuple
    )


class _nothing:  # noqa: N801
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def jacobian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """One ``autograd.grad`` per output element (``vectorize`` gives the same numbers)."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
            'Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either set '
                '`create_graph=False` or `strategy="reverse-mode"`.'
            )
        return _jacobian_forward(func, inputs, strict, vectorize)
    if strict and vectorize:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
            "supported together. Please either set `strict=False` or `vectorize=False`."
        )
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", "jacobian")
        ins = _prepare(ins, create_graph, True)
        out_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function", "jacobian")
        _check_outputs(outs, strict)
        result = []
        for i, out in enumerate(outs):
            rows: list[list[Any]] = [[] for _ in ins]
            flat = out.reshape(-1)
            for j in range(out.nelement()):
                grads = _grad((flat[j],), ins, retain_graph=True, create_graph=create_graph)
                for k, (g, inp) in enumerate(zip(grads, ins)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of "
                                f"input {k}. This is not allowed in strict mode."
                            )
                        g = zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(
                            "The jacobian of the user-provided function is independent of "
                            f"input {i}. This is not allowed in strict mode when "
                            "create_graph=True."
                        )
                    rows[k].append(g)
            result.append(
                tuple(
                    stack(r, 0).view(*out.shape, *inp.shape)
                    if r
                    else zeros_like(inp).new_zeros(*out.shape, *inp.shape)
                    for r, inp in zip(rows, ins)
                )
            )
        return _unpack(_finish(tuple(result), create_graph), (out_tuple, in_tuple))


def _jacobian_forward(func: Callable[..., Any], inputs: Any, strict: bool, vectorize: bool) -> Any:
    """``strategy="forward-mode"``: one pass of dual tensors per input element, each giving a
    column of the Jacobian (PyTorch batches these passes with vmap; the numbers are the same)."""
    if strict:
        raise RuntimeError(
            "torch.autograd.functional.jacobian: `strict=True` and "
            '`strategy="forward-mode"` are not supported together (yet). Please either set '
            '`strict=False` or `strategy="reverse-mode"`.'
        )
    in_tuple, ins = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
            "only implemented for `vectorize=True`."
        )
    columns: list[list[list[Any]]] = []
    out_tuple = False
    primals: list[Any] = []
    for j, x in enumerate(ins):
        for k in range(x.numel()):
            with forward_ad.dual_level():
                duals = []
                for i, y in enumerate(ins):
                    tangent = y.new_zeros(y.shape)
                    if i == j:
                        tangent.view(-1)[k] = 1
                    duals.append(forward_ad.make_dual(y, tangent))
                out_tuple, outs = _as_tuple(func(*duals), "outputs", "jacobian")
                unpacked = [forward_ad.unpack_dual(o) for o in outs]
                primals = [u.primal for u in unpacked]
                if not columns:
                    columns = [[[] for _ in ins] for _ in outs]
                for i, u in enumerate(unpacked):
                    t = u.tangent if u.tangent is not None else u.primal.new_zeros(u.primal.shape)
                    columns[i][j].append(t)
    result = tuple(
        tuple(
            stack(columns[i][j], -1).reshape(*out.shape, *inp.shape)
            if columns[i][j]
            else out.new_zeros(*out.shape, *inp.shape)
            for j, inp in enumerate(ins)
        )
        for i, out in enumerate(primals)
    )
    return _unpack(result, (out_tuple, in_tuple))


def hessian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    in_tuple, ins = _as_tuple(inputs, "inputs", "hessian")

    def scalar(*args: Any) -> Any:
        out = func(*args)
        out_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_outputs(outs, strict)
        if out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        return out.squeeze()

    def gradient(*args: Any) -> Any:
        return jacobian(scalar, args, create_graph=True)

    res = jacobian(
        gradient, ins, create_graph=create_graph, strict=strict, strategy=outer_jacobian_strategy
    )
    return _unpack(res, (in_tuple, in_tuple))


def _second_order(
    name: str, func: Callable[..., Any], inputs: Any, v: Any, create_graph: bool, strict: bool
) -> tuple[Any, Any]:
    with enable_grad():
        in_tuple, ins = _as_tuple(inputs, "inputs", name)
        ins = _prepare(ins, create_graph, True)
        vs = _vector(v, name, ins, in_tuple, create_graph, of_input=True)
        out_tuple, outs = _as_tuple(func(*ins), "outputs of the user-provided function", name)
        _check_outputs(outs, strict)
        if out_tuple:
            raise RuntimeError(f"The function given to {name} should return a single Tensor")
        if outs[0].nelement() != 1:
            raise RuntimeError(
                f"The Tensor returned by the function given to {name} should contain a single "
                "element"
            )
        jac = _grad(outs, ins, create_graph=True)
        if name == "hvp":
            dummies = tuple(zeros_like(t, requires_grad=True) for t in ins)
            inner = _grad(jac, ins, dummies, create_graph=True)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        if name == "hvp":
            res = _zeros_for_missing(
                _grad(inner, dummies, vs, create_graph),
                ins,
                strict,
                create_graph,
                "double_back_trick",
            )
        else:
            res = _zeros_for_missing(
                _grad(jac, ins, vs, create_graph), ins, strict, create_graph, "double_back"
            )
    return _unpack(_finish(outs, create_graph), out_tuple), _unpack(
        _finish(res, create_graph), in_tuple
    )


def hvp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    return _second_order("hvp", func, inputs, v, create_graph, strict)


def vhp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    return _second_order("vhp", func, inputs, v, create_graph, strict)
