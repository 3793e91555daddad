"""``F.kl_div`` as ``torch.nn.functional`` and ATen compose it: pointwise terms, then the
reduction (``batchmean`` is a sum divided by the batch size in Python, ``DivBackward0``)."""

from __future__ import annotations

import warnings
from typing import Any

from engine import warn_site
from engine.catalog import Example, Param, public
from engine.legacy_reduction import legacy_reduction
from engine.ops.special import xlogy

_MEAN_WARNING = (
    "reduction: 'mean' divides the total loss by both the batch size and the support size."
    "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
    "'mean' will be changed to behave the same as 'batchmean' in the next major release."
)


@public(
    "kl_div",
    ("input", "target"),
    (
        Param("reduction", "str", choices=("mean", "batchmean", "sum", "none")),
        Param("log_target", "bool"),
    ),
    namespace="torch.nn.functional",
    category="loss",
    doc="Kullback-Leibler divergence of target from input (log-probabilities)",
    method=False,
    example=Example(params={"reduction": "batchmean"}, values={"target": "probability"}),
)
def kl_div(
    input: Any,  # noqa: A002
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Any:
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, reduction)
    if reduction == "mean":
        warnings.warn(_MEAN_WARNING, stacklevel=warn_site.stacklevel(2, __file__))
    if reduction not in ("mean", "sum", "none", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_target:
        output = target.exp() * (target - input)
    else:
        output = xlogy(target, target) - target * input
    if reduction == "none":
        return output
    if reduction == "mean":
        return output.mean()
    reduced = output.sum()
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced
