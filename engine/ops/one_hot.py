"""``F.one_hot``: class indices to int64 rows; not differentiable, so no op declaration."""

from __future__ import annotations

from typing import Any

from engine.backend import array_module
from engine.catalog import Example, Param, public
from engine.tensor import Tensor


@public(
    "one_hot",
    ("tensor",),
    (Param("num_classes", "int", 3),),
    namespace="torch.nn.functional",
    category="indexing",
    doc="each class index as a row of zeros with a 1 at the index (int64)",
    method=False,
    differentiable=False,
    example=Example(values={"tensor": "index"}),
)
def one_hot(tensor: Any, num_classes: int = -1) -> Any:
    """Like PyTorch: int64 indices only, classes inferred from the largest when ``-1``."""

    if tensor.dtype.name != "int64":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    a = tensor._data
    xp = array_module(a)
    if num_classes == -1:
        if a.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(a.max()) + 1
    if a.size and int(a.min()) < 0:
        raise RuntimeError("Class values must be non-negative.")
    if a.size and int(a.max()) >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = Tensor._wrap((a[..., None] == xp.arange(num_classes)).astype("int64"))
    if a.size:
        out._vc = [2]  # PyTorch fills zeros, then scatters the ones: two writes
    return out
