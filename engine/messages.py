"""PyTorch's error and warning texts, verbatim, kept in one leaf module.

Learners paste these into search engines, so they must match PyTorch 2.13 word
for word; every module that raises one imports it from here.
"""

from __future__ import annotations

from collections.abc import Iterable

BACKWARD_TWICE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)
#: An inference tensor (``engine.inference_mode``) saved for backward, changed in place.
INFERENCE_SAVE_ERROR = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`."
)
INFERENCE_INPLACE_ERROR = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
#: ``mark_dirty`` on a leaf: the in-place op has already happened.
LEAF_DIRTY = "a leaf Variable that requires grad has been used in an in-place operation."
VIEW_LEAF_INPLACE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)
NOGRAD_VIEW_INPLACE = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace "
    "to be tracked)."
)
SCALAR_ONLY = "grad can be implicitly created only for scalar outputs"
NONLEAF_REQUIRES_GRAD = (
    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
    "variable in a subgraph that doesn't require differentiation use var_no_grad = "
    "var.detach()."
)


def fmt_shape(shape: Iterable[int]) -> str:
    """``[2, 3]``, the way PyTorch prints sizes inside messages (and in ``torch.Size``)."""
    return "[" + ", ".join(str(s) for s in shape) + "]"


NONLEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered "
    "internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)"
)
CREATE_GRAPH_CYCLE = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)"
)
SCALAR_OF_REQUIRES_GRAD = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)"
)


class _LinAlgError(RuntimeError):  # noqa: N818  (PyTorch's name)
    """``torch.linalg.LinAlgError`` (``torch._C._LinAlgError``): a linear-algebra routine
    that met a singular or otherwise unusable matrix.  A ``RuntimeError``, so code that
    catches either catches it, as under PyTorch."""


LinAlgError = _LinAlgError
