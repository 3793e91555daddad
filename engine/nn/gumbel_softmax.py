"""``F.gumbel_softmax`` as ``torch.nn.functional`` composes it: Gumbel noise drawn with
``exponential_`` (the same draws from the same generator), a softmax, and for ``hard``
the straight-through one-hot ``y_hard - y_soft.detach() + y_soft``."""

from __future__ import annotations

import warnings
from typing import Any

from engine import warn_site
from engine.catalog import Example, Param, public


@public(
    "gumbel_softmax",
    ("logits",),
    (
        Param("tau", "float"),
        Param("hard", "bool"),
        Param("eps", "float"),
        Param("dim", "int"),
    ),
    namespace="torch.nn.functional",
    category="activation",
    doc="a sample of the Gumbel-softmax distribution (one-hot in the forward when hard)",
    method=False,
    example=Example(inputs={"logits": (2, 3)}),
)
def gumbel_softmax(
    logits: Any, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Any:
    if eps != 1e-10:
        warnings.warn(
            "`eps` parameter is deprecated and has no effect.",
            stacklevel=warn_site.stacklevel(2, __file__),
        )
    gumbels = -logits.new_empty(logits.shape).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = logits.new_zeros(logits.shape).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
