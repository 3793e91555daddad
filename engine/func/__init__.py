"""``torch.func``: composable function transforms (``grad``, ``vmap``, ``jacrev``...)."""

from engine.func.batch_norm import replace_all_batch_norm_modules_
from engine.func.eager import (
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    linearize,
    vjp,
)
from engine.func.functional_call import functional_call, stack_module_state
from engine.func.vmap import vmap

#: The transforms over a Python function, each run on tensors of the transform's own
#: making (batched views, tangents); the rest of the namespace takes modules.
TRANSFORMS: tuple[str, ...] = (
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "vjp",
    "vmap",
)

__all__ = [
    "TRANSFORMS",
    *TRANSFORMS,
    "functional_call",
    "replace_all_batch_norm_modules_",
    "stack_module_state",
]
