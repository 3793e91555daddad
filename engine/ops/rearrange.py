"""Rearranging values: ``repeat``, ``tril``/``triu`` and ``outer`` (composite in
PyTorch: a column view times a row, so its ``grad_fn`` is ``MulBackward0``)."""

from __future__ import annotations

from typing import Any

from engine.catalog import Example, Param, public
from engine.ops.core import Sample, apply_op, declare
from engine.ops.pointwise import mul
from engine.ops.shape import reshape


def _repeat_grad(ctx: Any, g: Any) -> Any:
    """Sum the tiles back: view each repeated dim as (repeats, size) and sum the repeats."""
    shape = tuple(ctx.shapes[0])
    repeats = ctx.params["repeats"]
    lead = len(repeats) - len(shape)
    if lead:
        g = ctx.math.sum_dim(g, dims=tuple(range(lead)), keepdim=False)
    split: list[int] = []
    for r, s in zip(repeats[lead:], shape):
        split += [r, s]
    g = ctx.math.reshape_copy(g, size=tuple(split)) if split else g
    return (
        ctx.math.sum_dim(g, dims=tuple(range(0, 2 * len(shape), 2)), keepdim=False) if shape else g
    )


REPEAT = declare(
    "repeat",
    "RepeatBackward0",
    ("self",),
    lambda xp, a, repeats: xp.tile(a, repeats),
    _repeat_grad,
    dtype="same",
    samples=(Sample(((2, 3),), {"repeats": (2, 1)}), Sample(((3,),), {"repeats": (2, 2)})),
)


@public(
    "repeat",
    ("input",),
    (Param("repeats", "shape", (2, 1)),),
    namespace="torch.Tensor",  # PyTorch has no torch.repeat
    category="shape",
    doc="tile the tensor along each dimension",
)
def repeat(input: Any, *repeats: Any) -> Any:  # noqa: A002
    if len(repeats) == 1 and not isinstance(repeats[0], int):
        repeats = tuple(repeats[0])
    if len(repeats) < input.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    return apply_op(REPEAT, (input,), {"repeats": tuple(int(r) for r in repeats)})


def _tri(name: str, grad_fn: str, fn: str) -> Any:
    op = declare(
        name,
        grad_fn,
        ("self",),
        lambda xp, a, diagonal=0: getattr(xp, fn)(a, k=diagonal),
        lambda ctx, g: getattr(ctx.math, name)(g, diagonal=ctx.params.get("diagonal", 0)),
        dtype="same",
        samples=(Sample(((3, 3),)), Sample(((2, 3),), {"diagonal": 1})),
    )

    def call(input: Any, diagonal: int = 0) -> Any:  # noqa: A002
        if input.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return apply_op(op, (input,), {"diagonal": diagonal})

    call.__name__ = call.__qualname__ = name
    doc = "lower" if name == "tril" else "upper"
    return public(
        name,
        ("input",),
        (Param("diagonal", "int"),),
        category="shape",
        doc=f"the {doc} triangle (other entries zero)",
    )(call)


tril = _tri("tril", "TrilBackward0", "tril")
triu = _tri("triu", "TriuBackward0", "triu")


@public(
    "outer",
    ("input", "vec2"),
    category="linalg",
    doc="outer product of two vectors",
    example=Example(inputs={"input": (2,), "vec2": (3,)}),
)
def outer(input: Any, vec2: Any) -> Any:  # noqa: A002

    if input.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(
            f"outer: Expected 1-D argument self, but got {input.ndim}-D"
            if input.ndim != 1
            else f"outer: Expected 1-D argument vec2, but got {vec2.ndim}-D"
        )
    return mul(reshape(input, (-1, 1)), vec2)
