"""Recording the program's calls: each op that involves a tensor runs quietly (what it
calls inside is not recorded) and becomes one event naming the catalogue function, its
arguments (tensors by key, everything else as values) and its line; the overloads
PyTorch gives one name are recorded as the catalogue declares them.

A part of ``Recorder``, over its tensor keys (``recorder_keys``).
"""

from __future__ import annotations

import sys
from typing import Any

from gradstudio.interchange.program_import.frames import untraced
from gradstudio.interchange.program_import.recorder_keys import RecorderKeys


def _plain(data: Any) -> bool:
    """Python numbers and bools in lists: what a literal's dtype is inferred from alike."""
    if isinstance(data, list | tuple):
        return all(_plain(d) for d in data)
    return isinstance(data, bool | int | float)


def _values(data: Any, tensor_type: type) -> Any:
    """Nested data with each tensor, NumPy array or scalar replaced by its values."""
    if isinstance(data, list | tuple):
        return [_values(d, tensor_type) for d in data]
    if isinstance(data, tensor_type):
        return data.detach().tolist()  # type: ignore[attr-defined]
    tolist = getattr(data, "tolist", None)
    return tolist() if callable(tolist) else data


def _device_type() -> type:
    from engine.backend import device

    return device


class RecorderCalls(RecorderKeys):
    """The recorder's call events (a part of ``Recorder``)."""

    def set_value(self, tensor: Any, line: int | None = None) -> None:
        """``tensor`` changed without a recorded op: a no-grad copy of its new values."""
        target = self.key(tensor)
        self.events.check_room(tensor.numel())
        self.depth += 1
        try:
            data = tensor.detach().tolist()
        finally:
            self.depth -= 1
        self.events.append(
            {
                "kind": "set_value",
                "target": target,
                "data": data,
                "out": self.fresh(tensor),
                "line": self.line() if line is None else line,
            }
        )

    def set_grad(self, tensor: Any, line: int | None = None) -> None:
        """``tensor.grad`` changed without a recorded backward (a closure's, inside a
        recorded step): a copy of it, set as ``x.grad = g``."""
        self.depth += 1
        try:
            grad = tensor.grad
            if grad is None:
                return
            self.events.check_room(grad.numel())
            data = grad.detach().tolist()
            dtype = str(grad.dtype).removeprefix("torch.")
        finally:
            self.depth -= 1
        self.events.append(
            {
                "kind": "set_grad",
                "target": self.key(tensor),
                "data": data,
                "dtype": dtype,
                "line": self.line() if line is None else line,
            }
        )

    def quiet(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run ``fn`` without recording what it calls, and without the line tracer
        (``untraced``)."""
        self.depth += 1
        tracer = untraced() if self.depth == 1 else None
        try:
            return fn(*args, **kwargs)
        finally:
            if tracer is not None:
                sys.settrace(tracer)
            self.depth -= 1

    def value(self, value: Any, tensor_type: type) -> Any:
        if isinstance(value, tensor_type):
            return {"tensor": self.key(value)}
        if isinstance(value, list | tuple):
            return [self.value(v, tensor_type) for v in value]
        if isinstance(value, bool | int | float | str) or value is None:
            return value
        if isinstance(value, _device_type()):  # ``torch.device("cpu")``: its name, "cpu"
            return str(value)
        item = getattr(value, "item", None)  # NumPy scalars become literal numbers
        if callable(item):
            return item()
        return repr(value)

    def result(self, result: Any, tensor_type: type) -> list[str | None]:
        outs = result if isinstance(result, tuple | list) else (result,)
        keys: list[str | None] = []
        for out in outs:
            if isinstance(out, tensor_type):
                keys.append(self.fresh(out))
            else:
                keys.append(None)
        return keys

    def call(self, qualname: str, fn: Any, args: tuple, kwargs: dict, tensor_type: type) -> Any:
        """One op the program called: run it quietly and record it, all of it without
        the line tracer (``untraced``): an op calls no code of the program's that
        records."""
        if self.depth:
            return fn(*args, **kwargs)
        tracer = untraced()
        try:
            if isinstance(kwargs.get("out"), tensor_type):
                return self.call_out(qualname, fn, args, kwargs, tensor_type)
            result = self.quiet(fn, *args, **kwargs)
            self.record(qualname, args, kwargs, result, tensor_type)
            return result
        finally:
            if tracer is not None:
                sys.settrace(tracer)

    def call_out(self, qualname: str, fn: Any, args: tuple, kwargs: dict, tensor_type: type) -> Any:
        """``torch.matmul(a, b, out=y)``: the plain call, then its result copied into ``y``
        outside autograd (what ``out=`` does: PyTorch refuses it where autograd would
        need the result), one version up. An ``out`` the call resizes is refused: a copy
        keeps its shape."""
        out = kwargs["out"]
        shape, target = tuple(out.shape), self.key(out)
        result = self.quiet(fn, *args, **kwargs)
        if tuple(out.shape) != shape:
            self.refuse(
                f"out= resized its tensor from {list(shape)} to {list(out.shape)}; "
                "GradStudio records out= as a copy into it, which keeps its shape"
            )
            return result
        plain = self.quiet(lambda: out.detach().clone())
        rest = {k: v for k, v in kwargs.items() if k != "out"}
        self.record(qualname, args, rest, plain, tensor_type)
        self.events.append(
            {
                "kind": "copy_out",
                "target": target,
                "src": self.keys[id(plain)],
                "out": self.fresh(out),
                "line": self.line(),
            }
        )
        return result

    def record(
        self, qualname: str, args: tuple, kwargs: dict, result: Any, tensor_type: type
    ) -> None:
        """One call event, if a tensor went in or came out."""
        if not any(isinstance(a, tensor_type) for a in (*args, *kwargs.values())) and not (
            isinstance(result, tensor_type)
        ):
            return
        if self.index_tuple(qualname, args, kwargs, result, tensor_type):
            return
        qualname, args, kwargs = self.overload(qualname, args, kwargs, result, tensor_type)
        event = {
            "kind": "call",
            "function": qualname,
            "args": [self.value(a, tensor_type) for a in args],
            "kwargs": {k: self.value(v, tensor_type) for k, v in kwargs.items()},
            "line": self.line(),
            "no_grad": not self.grad_enabled(),
        }
        event["out"] = self.result(result, tensor_type)
        self.events.append(event)

    def index_tuple(
        self, qualname: str, args: tuple, kwargs: dict, result: Any, tensor_type: type
    ) -> bool:
        """``torch.where(c)`` and ``c.nonzero(as_tuple=True)`` as ATen computes them,
        ``c.nonzero().unbind(1)``: two recorded calls, the index tensors taken apart."""
        where = qualname == "torch.where" and len(args) == 1 and not kwargs
        as_tuple = qualname == "torch.nonzero" and kwargs == {"as_tuple": True}
        if not (where or as_tuple) or not isinstance(result, tuple) or not args[0].ndim:
            return False
        from engine.ops.nonzero import nonzero

        rows = self.quiet(nonzero, args[0])
        self.record("torch.nonzero", args[:1], {}, rows, tensor_type)
        self.record("torch.unbind", (rows, 1), {}, result, tensor_type)
        return True

    def overload(
        self, qualname: str, args: tuple, kwargs: dict, result: Any, tensor_type: type
    ) -> tuple[str, tuple, dict]:
        """The call as the catalogue declares it, where PyTorch overloads one name:
        ``torch.max(a, b)`` is ``torch.maximum`` (``MaximumBackward0``), and
        ``torch.tensor([t0, t1])`` copies its tensors' values (no edge to them: the
        document's literal holds those values, in the dtype PyTorch chose, as for a
        NumPy array or scalar)."""
        if qualname == "torch.nonzero" and kwargs == {"as_tuple": False}:
            return qualname, args, {}
        if "keepdims" in kwargs or "_stacklevel" in kwargs:
            # NumPy's ``keepdims`` is PyTorch's ``keepdim``; ``_stacklevel`` (an old
            # ``F.log_softmax`` argument) only places a warning
            kwargs = {("keepdim" if k == "keepdims" else k): v for k, v in kwargs.items()}
            kwargs.pop("_stacklevel", None)
        binary = len(args) == 2 and isinstance(args[1], tensor_type)
        if qualname in ("torch.max", "torch.min") and binary:
            return qualname + "imum", args, kwargs
        if qualname == "torch.tensor" and args and not _plain(args[0]):
            self.depth += 1
            try:
                data = _values(args[0], tensor_type)
            finally:
                self.depth -= 1
            return qualname, (data, *args[1:]), {"dtype": result.dtype, **kwargs}
        return qualname, args, kwargs

    def grad_enabled(self) -> bool:
        import engine

        return bool(engine.is_grad_enabled())
