"""The deprecated ``size_average``/``reduce`` loss arguments, as ``torch.nn._reduction``
reads them: each left ``None`` counts as true; both true mean ``'mean'``, ``reduce``
alone ``'sum'``, no ``reduce`` ``'none'``; and passing either warns, naming the
``reduction`` to use instead (a loss module warns once, when it is built)."""

from __future__ import annotations

import warnings
from typing import Any

from engine import warn_site

_DEPRECATED = "size_average and reduce args will be deprecated, please use reduction='{}' instead."


def legacy_get_string(size_average: Any, reduce: Any, emit_warning: bool = True) -> str:
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(
            _DEPRECATED.format(ret), UserWarning, stacklevel=warn_site.stacklevel(3, __file__)
        )
    return ret


_ELEMENTWISE_MEAN = (
    "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead."
)


#: ``reduction``'s old spellings, for the declarations' ``Param.aliases``.
REDUCTION_ALIASES = (("elementwise_mean", "mean"),)


def reduction_name(reduction: str) -> str:
    """``torch.nn._reduction.get_enum``'s reading of ``reduction``, as a name: the old
    ``'elementwise_mean'`` is ``'mean'`` with a warning, anything unknown a ValueError."""
    if reduction == "elementwise_mean":
        warnings.warn(_ELEMENTWISE_MEAN, UserWarning, stacklevel=warn_site.stacklevel(3, __file__))
        return "mean"
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def loss_reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    """A loss function's reduction: the legacy arguments' when either is given (as
    PyTorch's losses read them), else ``reduction`` itself, checked."""
    if size_average is not None or reduce is not None:
        return legacy_get_string(size_average, reduce)
    return reduction_name(reduction)


def legacy_reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    """``reduction``, unless the deprecated ``size_average``/``reduce`` pair is given:
    then PyTorch's mapping of it, with its warning."""
    if size_average is None and reduce is None:
        return reduction
    return legacy_get_string(size_average, reduce)
