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

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "replace_all_batch_norm_modules_",
    "stack_module_state",
    "vjp",
    "vmap",
]
