"""``fmax``/``fmin``: the elementwise extremes that ignore NaN (NumPy's ``fmax``), with
ATen's gradients: on a tie ``self`` takes all of it, and where ``other`` is NaN ``self``
does (``FmaxBackward0``/``FminBackward0``, not ``maximum``'s halves)."""

from __future__ import annotations

from typing import Any

from engine.catalog import public
from engine.ops.core import Sample, apply_op, declare


def _nan_extreme_grads(ctx: Any, g: Any, wins: str) -> tuple[Any, Any]:
    """derivatives.yaml: ``self`` keeps ``grad`` where ``self >= other`` (``<=`` for fmin)
    or ``other`` is NaN, ``other`` keeps it everywhere else."""
    a, b, m = ctx.saved["self"], ctx.saved["other"], ctx.math
    to_self = m.logical_or(getattr(m, wins)(a, b), m.isnan(b))
    ga = g * to_self if ctx.needs[0] else None
    gb = g * m.logical_not(to_self) if ctx.needs[1] else None
    return ga, gb


FMAX = declare(
    "fmax",
    "FmaxBackward0",
    ("self", "other"),
    lambda xp, a, b: xp.fmax(a, b),
    lambda ctx, g: _nan_extreme_grads(ctx, g, "ge"),
    save={"self": None, "other": None},
    samples=(Sample(((2, 3), (2, 3)), distinct=True), Sample(((2, 3), (3,)), distinct=True)),
)
FMIN = declare(
    "fmin",
    "FminBackward0",
    ("self", "other"),
    lambda xp, a, b: xp.fmin(a, b),
    lambda ctx, g: _nan_extreme_grads(ctx, g, "le"),
    save={"self": None, "other": None},
    samples=(Sample(((2, 3), (2, 3)), distinct=True),),
)


@public("fmax", ("input", "other"), category="math", doc="elementwise maximum, NaN ignored")
def fmax(input: Any, other: Any) -> Any:  # noqa: A002
    return apply_op(FMAX, (input, other))


@public("fmin", ("input", "other"), category="math", doc="elementwise minimum, NaN ignored")
def fmin(input: Any, other: Any) -> Any:  # noqa: A002
    return apply_op(FMIN, (input, other))
