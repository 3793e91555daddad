"""``torch.autograd.forward_ad``: dual tensors whose tangents ride along every op.

A tangent is kept on the tensor with the token of the level it was made at, so closing the
level forgets every tangent at once.  While a level is open the dispatcher hands each op whose
inputs carry tangents to ``_Carrier``, which runs the op and then derives the output's tangent
from the op's one declared backward by the double-vjp identity: the backward is linear in its
incoming gradient ``u``, so ``d/du <J^T u, v> = J v``.  Every declared op therefore has its
JVP without a second formula, and composites (losses, layers) get theirs op by op.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from engine import grad_mode
from engine.autograd.dual_state import DUAL, tangent_of
from engine.autograd.functional import grad as autograd_grad
from engine.backend import array_module
from engine.messages import fmt_shape
from engine.ops import core
from engine.tensor import Tensor

__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]

NO_LEVEL = (
    "Trying to create a dual Tensor for forward AD but no level exists, make sure to "
    "enter_dual_level() first."
)


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: the primal view and its tangent (or None)."""

    primal: Any
    tangent: Any


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


class _Carrier:
    """The open level: its token, and how an op's tangent is computed."""

    def __init__(self) -> None:
        self.token = object()

    def carries(self, inputs: Any) -> bool:
        token = self.token
        for x in inputs:
            if type(x) in (list, tuple):
                if self.carries(x):
                    return True
                continue
            fw = getattr(x, "_fw", None)
            if fw is not None and fw[0] is token:
                return True
        return False

    def apply(self, op: core.OpDef, inputs: tuple[Any, ...], params: dict[str, Any] | None) -> Any:
        params = core._EMPTY if params is None else params
        DUAL.pop()  # the primal op itself, as any other call
        try:
            out = core.apply_op(op, inputs, params)
        finally:
            DUAL.append(self)
        outs = out if isinstance(out, tuple) else (out,)
        tangents = self._tangents(op, inputs, params, outs)
        for o, t in zip(outs, tangents, strict=False):
            if t is not None:
                o._fw = (self.token, t)
        return out

    def apply_inplace(
        self, op: core.OpDef, inputs: tuple[Any, ...], params: dict[str, Any] | None
    ) -> Any:
        target = inputs[0]
        tangent = None
        if target.dtype.is_floating_point:
            tangent = self._tangents(op, inputs, params or {}, (target,))[0]
        DUAL.pop()
        try:
            result = core.apply_inplace(op, inputs, params)
        finally:
            DUAL.append(self)
        if tangent is not None:
            tangent = tangent.to(target.dtype)
            target._fw = (self.token, tangent)
            self._into_base(target, tangent)
        return result

    def _into_base(self, view: Any, tangent: Any) -> None:
        """An in-place op on a view also changes its base: write the view's new tangent
        into (a copy of) the base's, zeros where the base had none."""
        base, chain = view._base, view._view_chain
        if base is None or chain is None or not base.dtype.is_floating_point:
            return
        old = tangent_of(base)
        data = (
            old._data.copy() if old is not None else array_module(base._data).zeros_like(base._data)
        )
        window = core._replay(chain, data)
        if not array_module(data).shares_memory(window, data):
            return
        window[...] = tangent._data
        base._fw = (self.token, Tensor._wrap(data))

    def _tangents(
        self, op: core.OpDef, inputs: tuple[Any, ...], params: dict[str, Any], outs: tuple[Any, ...]
    ) -> list[Any]:
        """The outputs' tangents, J·v, by differentiating the backward in its gradient."""
        floating = [_is_tensor(o) and o.dtype.is_floating_point for o in outs]
        if not any(floating) or op.grad_fn is None or op.backward is None:
            return [None] * len(outs)
        leaves: list[Any] = []
        tangents: list[Any] = []
        fresh = _plain(inputs, leaves, tangents, self.token)
        with grad_mode.enable_grad():
            again = core.apply_op(op, fresh, params)
            again_outs = again if isinstance(again, tuple) else (again,)
            picked = [i for i, o in enumerate(again_outs) if floating[i] and o.requires_grad]
            result: list[Any] = [None] * len(outs)
            if not picked:
                return result
            chosen = [again_outs[i] for i in picked]
            try:
                jv = _double_vjp(chosen, leaves, tangents)
            except Exception:  # a backward without a double backward (eigh's)
                jv = None
            if jv is None:
                jv = _by_rows(chosen, leaves, tangents)
        for i, t in zip(picked, jv, strict=True):
            result[i] = t.detach().to(outs[i].dtype)
        return result


def _double_vjp(outs: list[Any], leaves: list[Any], tangents: list[Any]) -> list[Any] | None:
    """J·v as the gradient in ``u`` of <J^T u, v>; None where the backward was not traced
    in ``u`` (a formula that is not differentiable in its incoming gradient)."""
    seeds = [_ones(o).requires_grad_() for o in outs]
    vjps = autograd_grad(outs, leaves, seeds, create_graph=True, allow_unused=True)
    total = None
    for g, v in zip(vjps, tangents, strict=True):
        if g is None:
            continue
        if not g.requires_grad:
            return None
        term = (g * v).sum()
        total = term if total is None else total + term
    if total is None:
        return [_zeros(o) for o in outs]
    return list(autograd_grad(total, seeds, allow_unused=True, materialize_grads=True))


def _by_rows(outs: list[Any], leaves: list[Any], tangents: list[Any]) -> list[Any]:
    """J·v one output element at a time, each row of J by a plain vjp (the slow fallback)."""
    result = []
    for o in outs:
        flat = array_module(o._data).zeros(o._data.size, dtype=o._data.dtype)
        for k in range(o._data.size):
            seed = array_module(o._data).zeros(o._data.shape, dtype=o._data.dtype)
            seed.reshape(-1)[k] = 1
            rows = autograd_grad(
                o, leaves, Tensor._wrap(seed), retain_graph=True, allow_unused=True
            )
            flat[k] = sum(
                float((r * v).sum()) for r, v in zip(rows, tangents, strict=True) if r is not None
            )
        result.append(Tensor._wrap(flat.reshape(o._data.shape)))
    return result


def _ones(t: Any) -> Any:
    """A seed for the double vjp: its value is irrelevant (the backward is linear in it), so
    it is positive and uneven, away from a formula's special cases at 0 and at all-ones."""
    xp = array_module(t._data)
    return Tensor._wrap(
        (1 + xp.arange(t._data.size, dtype=t._data.dtype) % 3 / 4).reshape(t._data.shape)
    )


def _zeros(t: Any) -> Any:
    return Tensor._wrap(array_module(t._data).zeros_like(t._data))


def _plain(x: Any, leaves: list[Any], tangents: list[Any], token: object) -> Any:
    """``x`` with every tensor replaced by a fresh one on the same data and no history; those
    that carry a tangent become leaves that require grad (collected with their tangents)."""
    if type(x) in (list, tuple):
        return type(x)(_plain(e, leaves, tangents, token) for e in x)
    if not _is_tensor(x):
        return x
    y = Tensor._wrap(x._data)
    fw = getattr(x, "_fw", None)
    if fw is not None and fw[0] is token and x.dtype.is_floating_point:
        y.requires_grad_()
        leaves.append(y)
        tangents.append(fw[1])
    return y


_LEVELS: list[_Carrier] = []


def enter_dual_level() -> int:
    """Open the (one) forward-AD level; PyTorch supports no nesting."""
    if _LEVELS:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    carrier = _Carrier()
    _LEVELS.append(carrier)
    DUAL.append(carrier)
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the level: every tangent made in it is forgotten."""
    current = len(_LEVELS) - 1
    if level is None:
        level = current
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != current:
        raise RuntimeError(
            "Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported."
        )
    _LEVELS.pop()
    DUAL.clear()


@contextmanager
def dual_level() -> Iterator[int]:
    """``with dual_level():`` — dual tensors made inside lose their tangents on leaving."""
    level = enter_dual_level()
    try:
        yield level
    finally:
        exit_dual_level(level=level)


def _level(level: int | None) -> int:
    return len(_LEVELS) - 1 if level is None else level


def make_dual(tensor: Any, tangent: Any, *, level: int | None = None) -> Any:
    """A view of ``tensor`` that carries ``tangent`` at ``level``."""
    level = _level(level)
    if level < 0:
        raise RuntimeError(NO_LEVEL)
    if not tensor.dtype.is_floating_point:
        raise ValueError(
            f"Expected primal to be floating point or complex, but got: {tensor.dtype}"
        )
    if not tangent.dtype.is_floating_point:
        raise ValueError(
            f"Expected tangent to be floating point or complex, but got: {tangent.dtype}"
        )
    if tangent_of(tensor) is not None:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at the "
            f"same level {level} is not supported."
        )
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            "original Tensor, this is not supported. Tensor is of size "
            f"{fmt_shape(tensor.shape)} while the given forward gradient is of size "
            f"{fmt_shape(tangent.shape)}."
        )
    if tangent.device != tensor.device:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different device than that of the "
            "original Tensor, this is not supported."
        )
    dual = tensor.view_as(tensor)
    dual._fw = (_LEVELS[level].token, tangent)
    return dual


def unpack_dual(tensor: Any, *, level: int | None = None) -> UnpackedDualTensor:
    """The primal (a view without the tangent) and the tangent at ``level``."""
    level = _level(level)
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    tangent = tangent_of(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor.view_as(tensor), None)
    DUAL.pop()
    try:
        primal = tensor.view_as(tensor)
    finally:
        DUAL.append(_LEVELS[level])
    return UnpackedDualTensor(primal, tangent)
