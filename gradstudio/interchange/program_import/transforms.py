"""Refusing the function transforms at the program's own line (runs in the child).

``torch.func`` (``vmap``, ``grad``, ``jacrev``...) and forward-mode AD
(``forward_ad.make_dual``) run the program's Python function on tensors of their own
making (batched views, tangents carried beside each value), which no document node
stands for.  Left unwrapped, the import would fail later at some op inside the function
with "made by an operation GradStudio does not record"; wrapped here, it fails at the
transform's line, saying why.  What the transform computes still runs, unrecorded, so
the program goes on as under PyTorch.
"""

from __future__ import annotations

from typing import Any

from gradstudio.interchange.program_import.recorder import Recorder


def _quietly(recorder: Recorder, fn: Any) -> Any:
    """``fn`` run unrecorded; a function it returns (``vmap(f)``, ``vjp``'s ``vjp_fn``)
    runs unrecorded too."""

    def quiet(*args: Any, **kwargs: Any) -> Any:
        result = recorder.quiet(fn, *args, **kwargs)
        if callable(result) and not isinstance(result, type):
            return _quietly(recorder, result)
        if isinstance(result, tuple) and any(callable(r) for r in result):
            return tuple(_quietly(recorder, r) if callable(r) else r for r in result)
        return result

    quiet.__name__ = getattr(fn, "__name__", "transformed")
    quiet.__doc__ = getattr(fn, "__doc__", None)
    return quiet


def _refusing(recorder: Recorder, fn: Any, name: str, why: str) -> Any:
    inner = _quietly(recorder, fn)

    def refused(*args: Any, **kwargs: Any) -> Any:
        if not recorder.depth:
            recorder.refuse(f"{name} cannot be imported: {why}")
        return inner(*args, **kwargs)

    refused.__name__ = getattr(fn, "__name__", name)
    refused.__doc__ = getattr(fn, "__doc__", None)
    return refused


def install_transforms(recorder: Recorder) -> None:
    """Wrap ``torch.func``'s transforms (``torch.vmap`` too), ``stack_module_state``
    (stacked parameters are for ``vmap``) and ``make_dual``."""
    import engine
    import engine.autograd.forward_ad as forward_ad
    import engine.func as func

    why = "it runs a Python function on tensors of its own making, which a document cannot hold"
    for name in func.TRANSFORMS:
        fn = getattr(func, name)
        wrapped = _refusing(recorder, fn, f"torch.func.{name}", why)
        setattr(func, name, wrapped)
        if getattr(engine, name, None) is fn:
            setattr(engine, name, wrapped)
    func.stack_module_state = _refusing(
        recorder,
        func.stack_module_state,
        "torch.func.stack_module_state",
        "it stacks modules' parameters for vmap, which a document cannot hold",
    )
    forward_ad.make_dual = _refusing(
        recorder,
        forward_ad.make_dual,
        "forward-mode AD (make_dual)",
        "a dual tensor carries its tangent beside its value, which a document cannot hold",
    )
