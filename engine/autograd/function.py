"""Custom ``autograd.Function``: the ctx *is* the node, as in PyTorch.

``Func.apply(...)`` runs ``forward`` without recording, then makes one node of
class ``FuncBackward`` whose edges lead to the tensor arguments.  Saved tensors
go through the same ``SavedTensor`` checks as built-in ops, so in-place changes
and a second backward fail with PyTorch's messages.
"""

from __future__ import annotations

from typing import Any, ClassVar

from engine import grad_mode
from engine.autograd.dual_state import DUAL, tangent_of
from engine.autograd.graph import Node, edge_of
from engine.autograd.saved_tensor import SavedTensor
from engine.autograd.transform_state import ACTIVE as TRANSFORMS
from engine.backend import xp_for
from engine.messages import BACKWARD_TWICE, LEAF_DIRTY
from engine.tensor import Tensor


class FunctionCtx:
    """What ``forward`` and ``backward`` receive as ``ctx``."""

    def save_for_backward(self, *tensors: Any) -> None:
        self._to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        self._to_save_forward = tensors

    def mark_dirty(self, *args: Any) -> None:
        self._dirty = args

    def mark_non_differentiable(self, *args: Any) -> None:
        self._non_diff = args

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = bool(value)

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        if self.__dict__.get("_in_jvp"):
            return tuple(self.__dict__.get("_to_save_forward", ()))
        saved = self.__dict__.get("_saved_list")
        if saved is None:
            pending = self.__dict__.get("_to_save")
            return tuple(pending) if pending is not None else ()
        if self.__dict__.get("_released"):
            raise RuntimeError(BACKWARD_TWICE)
        tm = self.__dict__.get("_tensor_mode", True)
        return tuple(None if s is None else s.unpack(self, tm) for s in saved)  # type: ignore[arg-type]

    @property
    def saved_variables(self) -> tuple[Any, ...]:
        return self.saved_tensors


class FunctionNode(FunctionCtx, Node):
    """Base of the generated ``<Name>Backward`` node classes (instances carry ctx state)."""

    _forward_cls: ClassVar[type[Function]]

    def __init__(self) -> None:
        Node.__init__(self)
        self.needs_input_grad: tuple[bool, ...] = ()
        self._materialize = True
        self._arg_is_tensor: tuple[bool, ...] = ()

    def apply(self, grads: tuple[Any, ...], tensor_mode: bool) -> tuple[Any, ...]:
        gs: list[Any] = []
        for g, meta in zip(grads, self._out_meta, strict=False):
            if g is None and self._materialize:
                g = xp_for(meta[2]).zeros(meta[0], dtype=meta[1])
                if tensor_mode:
                    g = Tensor._wrap(g)
            if g is not None and not tensor_mode:
                g = Tensor._wrap(g)
            gs.append(g)
        self._tensor_mode = True
        result = self._forward_cls.backward(self, *gs)
        if not isinstance(result, tuple):
            result = (result,)
        n_args = len(self._arg_is_tensor)
        if len(result) != n_args:
            if len(result) > n_args and all(r is None for r in result[n_args:]):
                result = result[:n_args]
            else:
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients "
                    f"(expected {n_args}, got {len(result)})"
                )
        out: list[Any] = []
        for i, (g, is_t) in enumerate(zip(result, self._arg_is_tensor, strict=True)):
            if not is_t:
                if g is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at "
                        f"position {i + 1}, but the corresponding forward input was not a Variable"
                    )
                continue
            if g is not None and not isinstance(g, Tensor):
                raise TypeError(
                    f"function {self.name()} returned a gradient of type {type(g).__name__} at "
                    f"position {i + 1}; expected a Tensor or None"
                )
            out.append(g if tensor_mode or g is None else g._data)
        return tuple(out)

    def release_variables(self) -> None:
        if self.__dict__.get("_saved_list") is not None:
            self._released = True
            for s in self._saved_list:
                if s is not None:
                    s.release()

    def saved_names(self) -> tuple[str, ...]:
        return ()

    def name(self) -> str:
        return type(self).__name__


class Function:
    """Subclass with static ``forward(ctx, ...)`` and ``backward(ctx, ...)``; call ``apply``."""

    _backward_cls: ClassVar[type[FunctionNode] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # PyTorch makes this class in torch.autograd.function, which its repr names
        cls._backward_cls = type(
            f"{cls.__name__}Backward",
            (FunctionNode,),
            {"_forward_cls": cls, "__module__": "torch.autograd.function"},
        )

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def vmap(info: Any, in_dims: Any, *args: Any) -> Any:
        raise NotImplementedError(
            "To use autograd.Function with vmap, you must either override the vmap staticmethod "
            "or set generate_vmap_rule=True."
        )

    @classmethod
    def _check_transforms(cls) -> None:
        """What PyTorch requires of a Function called under ``engine.func`` transforms."""
        if cls.setup_context is Function.setup_context:
            raise RuntimeError(
                "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
                "jacrev, ...), it must override the setup_context staticmethod. For more "
                "details, please see https://pytorch.org/docs/main/notes/extending.func.html"
            )
        if (
            "vmap" in TRANSFORMS
            and cls.vmap is Function.vmap
            and not getattr(cls, "generate_vmap_rule", False)
        ):
            raise RuntimeError(
                f"You tried to vmap over {cls.__name__}, but it does not have vmap support. "
                "Please override and implement the vmap staticmethod or set "
                "generate_vmap_rule=True. For more details, please see "
                "https://pytorch.org/docs/main/notes/extending.func.html"
            )
        if "jvp" in TRANSFORMS and cls.jvp is Function.jvp:
            raise NotImplementedError(
                "You must implement the jvp function for custom autograd.Function to use it "
                "with forward mode AD."
            )

    @classmethod
    def _run_forward(cls, ctx: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``forward(ctx, ...)``, or, where the class defines ``setup_context``, ``forward(...)``
        then ``setup_context(ctx, inputs, output)`` (PyTorch's two styles)."""
        if cls.setup_context is Function.setup_context:
            return cls.forward(ctx, *args, **kwargs)
        output = cls.forward(*args, **kwargs)
        cls.setup_context(ctx, args, output)
        return output

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        assert cls._backward_cls is not None
        if TRANSFORMS:
            cls._check_transforms()
        ctx = cls._backward_cls()
        is_t = tuple(isinstance(a, Tensor) for a in args)
        ctx._arg_is_tensor = is_t
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        tensors = [a for a in args if isinstance(a, Tensor)]
        record = grad_mode.STATE.enabled and any(t.requires_grad for t in tensors)
        dual = bool(DUAL) and DUAL[0].carries(args)
        with grad_mode.no_grad():
            if dual:
                carrier = DUAL.pop()
                try:
                    raw = cls._run_forward(ctx, args, kwargs)
                finally:
                    DUAL.append(carrier)
            else:
                raw = cls._run_forward(ctx, args, kwargs)
        single = not isinstance(raw, tuple)
        outs = [raw] if single else list(raw)
        dirty = {id(t) for t in ctx.__dict__.get("_dirty", ())}
        for t in ctx.__dict__.get("_dirty", ()):
            t._counter()[0] += 1  # PyTorch bumps a dirty input once more
        non_diff = {id(t) for t in ctx.__dict__.get("_non_diff", ())}
        if record:
            ctx.next_functions = tuple(edge_of(t) for t in tensors)
            input_ids = {id(t) for t in tensors}
            for i, o in enumerate(outs):
                if not isinstance(o, Tensor):
                    continue
                if id(o) in non_diff:
                    if id(o) not in input_ids:
                        o._requires_grad = False
                    ctx._out_meta.append((tuple(o.shape), o._data.dtype, o.device))
                    continue
                if id(o) in input_ids:
                    if id(o) in dirty:
                        if o.grad_fn is None and o._requires_grad:
                            raise RuntimeError(LEAF_DIRTY)
                    else:
                        o = outs[i] = o.detach()._view_alias_of(o)
                if o.grad_fn is not None:
                    o._counter()  # records of its old node keep watching its version
                o.grad_fn = ctx
                o._output_nr = i
                o._requires_grad = False
                ctx._out_meta.append((tuple(o.shape), o._data.dtype, o.device))
        to_save = ctx.__dict__.pop("_to_save", None)
        if to_save is not None:
            out_ids = {id(o) for o in outs if isinstance(o, Tensor)}
            ctx._saved_list = [
                None if s is None else SavedTensor(s, id(s) in out_ids and record) for s in to_save
            ]
        if dual:
            _carry_tangents(cls, ctx, args, outs)
        return outs[0] if single else tuple(outs)


def _carry_tangents(cls: type[Function], ctx: Any, args: tuple[Any, ...], outs: list[Any]) -> None:
    """Forward AD through a custom Function: its ``jvp`` maps the inputs' tangents (zeros for
    a tensor without one) to the outputs'."""

    tangents = []
    for a in args:
        if not isinstance(a, Tensor):
            tangents.append(None)
            continue
        t = tangent_of(a)
        tangents.append(
            t if t is not None or not a.dtype.is_floating_point else a.new_zeros(a.shape)
        )
    ctx._in_jvp = True
    carrier = DUAL.pop()
    try:
        with grad_mode.no_grad():
            result = cls.jvp(ctx, *tangents)
    finally:
        ctx._in_jvp = False
        DUAL.append(carrier)
    results = result if isinstance(result, tuple) else (result,)
    tensor_outs = [o for o in outs if isinstance(o, Tensor)]
    if len(results) != len(tensor_outs):
        raise RuntimeError(
            f"custom Function's jvp returned {len(results)} tangents for {len(tensor_outs)} outputs"
        )
    for o, t in zip(tensor_outs, results, strict=True):
        if t is not None and o.dtype.is_floating_point:
            o._fw = (carrier.token, t)


_TWICE = "trying to differentiate twice a function that was marked with @once_differentiable"


class _DelayedError(Function):
    """Passes tensors through; differentiating them raises (PyTorch's ``Error`` node)."""

    @staticmethod
    def forward(ctx: Any, *tensors: Any) -> Any:
        return tensors if len(tensors) > 1 else tensors[0]

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise RuntimeError(_TWICE)


_DelayedError._backward_cls.__name__ = "Error"  # type: ignore[union-attr]
_DelayedError._backward_cls.name = lambda self: "torch::autograd::Error"  # type: ignore[method-assign,union-attr]


def once_differentiable(fn: Any) -> Any:
    """``backward`` runs without recording, as PyTorch's decorator runs it; when a graph is
    being built (``create_graph``) its results lead to a node that raises if differentiated."""
    import functools

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.STATE.enabled:
            return outputs
        if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        fake = [v.detach().requires_grad_() if isinstance(v, Tensor) else v for v in outs]
        return _DelayedError.apply(*fake)

    return wrapper


__all__ = ["Function", "FunctionCtx", "FunctionNode", "Node", "once_differentiable"]
