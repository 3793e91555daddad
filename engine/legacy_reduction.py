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
