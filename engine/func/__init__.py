"""``torch.func``: composable function transforms (``grad``, ``vmap``, ``jacrev``...)."""

from engine.func.eager import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp
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
    "stack_module_state",
    "vjp",
    "vmap",
]
