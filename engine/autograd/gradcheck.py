"""``gradcheck``: analytic gradients against central finite differences (float64).

The op test matrix runs this for every declared op and sample, on every
device, so a wrong backward formula cannot hide behind a plausible value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine.backend import to_numpy, transfer


class GradcheckError(RuntimeError):
    """Raised when analytic and numerical Jacobians disagree."""


def _outputs(fn: Callable[..., Any], inputs: Sequence[Any]) -> list[Any]:
    from engine.tensor import Tensor

    out = fn(*inputs)
    outs = list(out) if isinstance(out, tuple | list) else [out]
    return [o for o in outs if isinstance(o, Tensor) and o.dtype.is_floating_point]


def gradcheck(
    fn: Callable[..., Any],
    inputs: Sequence[Any] | Any,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    fast_mode: bool = False,
) -> bool:
    """Compare vector-Jacobian products for a random cotangent with finite differences;
    ``fast_mode``: PyTorch's one random projection per input and output pair
    (``engine.autograd.fast_gradcheck``).  ``raise_exception=False``: False instead of
    the ``GradcheckError``."""
    if not raise_exception:
        try:
            return gradcheck(
                fn,
                inputs,
                eps=eps,
                atol=atol,
                rtol=rtol,
                nondet_tol=nondet_tol,
                fast_mode=fast_mode,
            )
        except GradcheckError:
            return False
    from engine.autograd.functional import grad
    from engine.tensor import Tensor

    if isinstance(inputs, Tensor):
        inputs = (inputs,)  # one tensor is one input, not a sequence of rows
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    for i in diff:
        if inputs[i].dtype.name != "float64":
            raise GradcheckError(
                f"gradcheck expects float64 inputs, input {i} is {inputs[i].dtype}"
            )
    outs = _outputs(fn, inputs)
    if fast_mode:
        from engine.autograd.fast_gradcheck import fast_gradcheck

        diff_outs = [o for o in outs if o.requires_grad]
        return fast_gradcheck(
            fn, inputs, diff_outs, eps=eps, atol=atol, rtol=rtol, nondet_tol=nondet_tol
        )
    rng = np.random.default_rng(0)
    cots = [rng.standard_normal(tuple(o.shape)) for o in outs]

    def scalar(vals: Sequence[Any]) -> float:
        os_ = _outputs(fn, vals)
        return float(
            sum(
                (to_numpy(o._data).astype(np.float64) * c).sum()
                for o, c in zip(os_, cots, strict=True)
            )
        )

    targets = [o for o in outs if o.requires_grad]
    if not targets:
        return True
    from engine.creation import tensor as make

    grads_out = [
        make(c, dtype=o.dtype, device=o.device)
        for o, c in zip(outs, cots, strict=True)
        if o.requires_grad
    ]
    analytic = grad(
        targets, [inputs[i] for i in diff], grads_out, allow_unused=True, retain_graph=True
    )
    for k, i in enumerate(diff):
        x = inputs[i]
        host = to_numpy(x._data)
        num = np.zeros(host.shape)
        flat = host.reshape(-1)
        for j in range(flat.size):
            orig = flat[j]
            vals = list(inputs)
            for sign, store in ((1, "p"), (-1, "m")):
                pert = host.copy().reshape(-1)
                pert[j] = orig + sign * eps
                arr = pert.reshape(host.shape)
                t = Tensor._wrap(transfer(arr, x.device))
                t._requires_grad = True
                vals[i] = t
                if store == "p":
                    fp = scalar(vals)
                else:
                    fm = scalar(vals)
            num.reshape(-1)[j] = (fp - fm) / (2 * eps)
        a = np.zeros(host.shape) if analytic[k] is None else to_numpy(analytic[k]._data)
        if not np.allclose(a, num, atol=atol, rtol=rtol):
            raise GradcheckError(_mismatch(fn, inputs, diff, eps, atol, rtol))
    return True


def _mismatch(
    fn: Callable[..., Any],
    inputs: Sequence[Any],
    diff: list[int],
    eps: float,
    atol: float,
    rtol: float,
) -> str:
    """PyTorch's message for the first (output, input) pair whose full Jacobians disagree.

    The check itself uses one random cotangent; naming the pair needs the Jacobians in
    PyTorch's layout (a row per input element, a column per output element).
    """
    outs = _outputs(fn, inputs)
    for o in range(len(outs)):
        for i in diff:
            n, a = slow_jacobians(fn, inputs, i, o, eps)
            if not np.allclose(to_numpy(a._data), to_numpy(n._data), atol=atol, rtol=rtol):
                return (
                    f"Jacobian mismatch for output {o} with respect to input {i},\n"
                    f"numerical:{n}\nanalytical:{a}\n"
                )
    return "Jacobian mismatch for a random vector-Jacobian product"


def slow_jacobians(
    fn: Callable[..., Any], inputs: Sequence[Any], i: int, o: int, eps: float
) -> tuple[Any, Any]:
    """The numerical (central differences, one input element at a time, perturbed in
    place as PyTorch perturbs ``input.data``) and analytical (one backward per output
    element) Jacobians of output ``o`` by input ``i``, each a row per input element and
    a column per output element, in the input's dtype."""
    from engine.autograd.functional import grad
    from engine.creation import tensor as make

    out = _outputs(fn, inputs)[o]
    x = inputs[i]
    orig = x._data.copy()
    host = to_numpy(orig)
    numerical = np.zeros((host.size, out.numel()))
    analytical = np.zeros((host.size, out.numel()))
    for j in range(host.size):
        sides = []
        for sign in (1, -1):
            pert = host.copy().reshape(-1)
            pert[j] += sign * eps
            x._data[...] = transfer(pert.reshape(host.shape), x.device)
            sides.append(to_numpy(_outputs(fn, inputs)[o]._data).astype(np.float64))
        numerical[j] = ((sides[0] - sides[1]) / (2 * eps)).reshape(-1)
    x._data[...] = orig
    for k in range(out.numel()):
        unit = np.zeros(out.numel())
        unit[k] = 1.0
        cot = make(unit.reshape(tuple(out.shape)), dtype=out.dtype, device=out.device)
        (g,) = grad([out], [x], [cot], allow_unused=True, retain_graph=True)
        if g is not None:
            analytical[:, k] = to_numpy(g._data).reshape(-1)
    return make(numerical, dtype=x.dtype), make(analytical, dtype=x.dtype)
