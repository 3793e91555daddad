"""``gradcheck``: analytic gradients against central finite differences (float64).

The op test matrix runs this for every declared op and sample, on every
device, so a wrong backward formula cannot hide behind a plausible value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine.autograd import forward_ad
from engine.autograd.functional import grad
from engine.backend import to_numpy, transfer
from engine.creation import tensor as make
from engine.tensor import Tensor


class GradcheckError(RuntimeError):
    """Raised when analytic and numerical Jacobians disagree."""


def _outputs(fn: Callable[..., Any], inputs: Sequence[Any]) -> list[Any]:
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
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Compare vector-Jacobian products for a random cotangent with finite differences;
    ``fast_mode``: PyTorch's one random projection per input and output pair
    (``engine.autograd.fast_gradcheck``).  ``raise_exception=False``: False instead of
    the ``GradcheckError``.  ``check_forward_ad``: also the forward-mode Jacobian (one dual
    pass per input element, PyTorch's slow mode), ``check_backward_ad=False``: only that,
    as the forward-AD tutorial checks a Function with a ``jvp`` and no ``backward``.
    PyTorch's other checks (undefined and batched gradients, gradient dtypes, masked
    inputs) are taken as it takes them and add nothing here: the engine's backward always
    materialises undefined gradients and has no batched (vmap) gradient of its own."""
    if not raise_exception:
        try:
            return gradcheck(
                fn,
                inputs,
                eps=eps,
                atol=atol,
                rtol=rtol,
                nondet_tol=nondet_tol,
                check_forward_ad=check_forward_ad,
                check_backward_ad=check_backward_ad,
                fast_mode=fast_mode,
            )
        except GradcheckError:
            return False
    if isinstance(inputs, Tensor):
        inputs = (inputs,)  # one tensor is one input, not a sequence of rows
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    for i in diff:
        if inputs[i].dtype.name != "float64":
            raise GradcheckError(
                f"gradcheck expects float64 inputs, input {i} is {inputs[i].dtype}"
            )
    if check_forward_ad:
        _check_forward(fn, inputs, diff, eps, atol, rtol)
    if not check_backward_ad:
        return True
    outs = _outputs(fn, inputs)
    if fast_mode:
        # a true cycle: fast_gradcheck builds on this module (GradcheckError, slow_jacobians)
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


def _check_forward(
    fn: Callable[..., Any],
    inputs: Sequence[Any],
    diff: list[int],
    eps: float,
    atol: float,
    rtol: float,
) -> None:
    """PyTorch's forward-mode check: each output's Jacobian by each differentiable input,
    column by column from one dual pass with a unit tangent, against finite differences."""
    outs = _outputs(fn, inputs)
    for i in diff:
        x = inputs[i]
        host = to_numpy(x._data)
        forward = [np.zeros((host.size, o.numel())) for o in outs]
        for j in range(host.size):
            unit = np.zeros(host.size)
            unit[j] = 1.0
            tangent = make(unit.reshape(host.shape), dtype=x.dtype, device=x.device)
            with forward_ad.dual_level():
                vals = list(inputs)
                vals[i] = forward_ad.make_dual(x.detach(), tangent)
                for k, o in enumerate(_outputs(fn, vals)):
                    t = forward_ad.unpack_dual(o).tangent
                    if t is not None:
                        forward[k][j] = to_numpy(t._data).reshape(-1)
        for k in range(len(outs)):
            n, _ = slow_jacobians(fn, inputs, i, k, eps, with_analytical=False)
            if not np.allclose(forward[k], to_numpy(n._data), atol=atol, rtol=rtol):
                a = make(forward[k], dtype=x.dtype)  # printed in PyTorch's form
                raise GradcheckError(
                    f"Jacobian computed with forward mode mismatch for output {k} with "
                    f"respect to input {i},\nnumerical:{n}\nanalytical:{a}\n"
                )


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
    fn: Callable[..., Any],
    inputs: Sequence[Any],
    i: int,
    o: int,
    eps: float,
    *,
    with_analytical: bool = True,
) -> tuple[Any, Any]:
    """The numerical (central differences, one input element at a time, perturbed in
    place as PyTorch perturbs ``input.data``) and analytical (one backward per output
    element) Jacobians of output ``o`` by input ``i``, each a row per input element and
    a column per output element, in the input's dtype (``with_analytical=False``: the
    numerical one only, the analytical left zero)."""
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
    for k in range(out.numel() if with_analytical else 0):
        unit = np.zeros(out.numel())
        unit[k] = 1.0
        cot = make(unit.reshape(tuple(out.shape)), dtype=out.dtype, device=out.device)
        (g,) = grad([out], [x], [cot], allow_unused=True, retain_graph=True)
        if g is not None:
            analytical[:, k] = to_numpy(g._data).reshape(-1)
    return make(numerical, dtype=x.dtype), make(analytical, dtype=x.dtype)
