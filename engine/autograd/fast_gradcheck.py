"""``gradcheck(..., fast_mode=True)``: PyTorch's check of one random projection.

Instead of whole Jacobians it compares two numbers per (input, output) pair,
``v^T J u`` computed analytically (one vector-Jacobian product with ``v``, dotted with
``u``) and numerically (a central difference along ``u``, dotted with ``v``), for unit
vectors drawn from a fresh ``Generator`` (PyTorch's default seed, so the same ``u`` and
``v`` as PyTorch: every input's ``u`` first, then every output's ``v``).  The tolerance
``atol`` scales by ``sum(u) * sum(v)``.  On a mismatch the message gives both numbers,
then the slow-mode Jacobians for that pair, as PyTorch's does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.autograd.functional import grad
from engine.autograd.gradcheck import GradcheckError, slow_jacobians
from engine.creation import rand, zeros
from engine.random import Generator
from engine.tensor import Tensor

FAST_FAIL_SLOW_OK = """
Fast gradcheck failed but element-wise differences are small. This means that the
test might've passed in slow_mode!

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck:

If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `fast_mode=False` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_fast_mode=False`
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_fast_mode=False`
""".strip()


def _unit_vector(numel: int, dtype: Any, generator: Any) -> Tensor:
    vec = rand(numel, generator=generator).to(dtype)
    return vec / vec.norm()


def _all_outputs(fn: Callable[..., Any], inputs: Sequence[Any]) -> list[Any]:
    out = fn(*inputs)
    return list(out) if isinstance(out, tuple | list) else [out]


def _directional(
    fn: Callable[..., Any], inputs: Sequence[Any], x: Tensor, u: Tensor, eps: float
) -> list[Tensor]:
    """``(f(x + eps u) - f(x - eps u)) / (2 eps)`` for every floating output, flattened,
    with ``x`` perturbed in place through its data as PyTorch's ``entry.copy_`` is."""
    orig = x._data.copy()
    delta = (u.detach().reshape(tuple(x.shape)) * eps)._data
    sides = []
    for shifted in (orig - delta, orig + delta):
        x._data[...] = shifted
        sides.append([o.clone() for o in _all_outputs(fn, inputs)])
    x._data[...] = orig
    return [
        ((b - a) / (2 * eps)).detach().reshape(-1)
        for a, b in zip(sides[0], sides[1], strict=True)
        if isinstance(a, Tensor) and (a.dtype.is_floating_point or a.dtype.is_complex)
    ]


def fast_gradcheck(
    fn: Callable[..., Any],
    inputs: Sequence[Any],
    outputs: list[Tensor],
    *,
    eps: float,
    atol: float,
    rtol: float,
    nondet_tol: float,
) -> bool:
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    g = Generator()
    all_u = [_unit_vector(inputs[i].numel(), inputs[i].dtype, g) for i in diff]
    all_v = [_unit_vector(o.numel(), o.dtype, g) for o in outputs]
    numerical = [
        [(v * ju).sum() for v, ju in zip(all_v, _directional(fn, inputs, inputs[i], u, eps))]
        for i, u in zip(diff, all_u, strict=True)
    ]
    analytical = []
    for out, v in zip(outputs, all_v, strict=True):
        rows = []
        for _ in range(2):  # twice: a backward must give the same result again
            grads = grad(
                [out],
                [inputs[i] for i in diff],
                [v.reshape(tuple(out.shape))],
                retain_graph=True,
                allow_unused=True,
            )
            rows.append(
                [
                    zeros(inputs[i].numel(), dtype=inputs[i].dtype) if gr is None else gr.clone()
                    for i, gr in zip(diff, grads, strict=True)
                ]
            )
        for k, (first, again) in enumerate(zip(rows[0], rows[1], strict=True)):
            if tuple(first.shape) not in ((inputs[diff[k]].numel(),), tuple(inputs[diff[k]].shape)):
                raise GradcheckError("Analytical gradient has incorrect size")
            if first.dtype is not inputs[diff[k]].dtype:
                raise GradcheckError("Gradient has dtype mismatch")
            if first.numel() and float((first - again).abs().max()) > nondet_tol:
                raise GradcheckError(
                    "Backward is not reentrant, i.e., running backward with same input and "
                    "grad_output multiple times gives different values, although analytical "
                    f"gradient matches numerical gradient.The tolerance for nondeterminism was "
                    f"{nondet_tol}."
                )
        analytical.append([vj.reshape(-1).dot(u) for vj, u in zip(rows[0], all_u, strict=True)])
    for i, per_output in enumerate(numerical):
        for j, n in enumerate(per_output):
            a = analytical[j][i]
            scaled = atol * float(all_u[i].sum()) * float(all_v[j].sum())
            if not bool((a - n).abs() <= scaled + rtol * n.abs()):
                raise GradcheckError(
                    f"Jacobian mismatch for output {j:d} with respect to input {i:d},\n"
                    f"numerical:{n}\nanalytical:{a}\n"
                    + _slow_mode_report(fn, inputs, diff[i], j, eps, atol, rtol)
                )
    return True


def _slow_mode_report(
    fn: Callable[..., Any],
    inputs: Sequence[Any],
    input_idx: int,
    output_idx: int,
    eps: float,
    atol: float,
    rtol: float,
) -> str:
    numerical, analytical = slow_jacobians(fn, inputs, input_idx, output_idx, eps)
    max_diff = (numerical - analytical).abs().max()
    close = bool(((analytical - numerical).abs() <= atol + rtol * numerical.abs()).all())
    msg = (
        "\nThe above quantities relating the numerical and analytical jacobians are computed \n"
        "in fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background \n"
        "about fast mode. Below, we recompute numerical and analytical jacobians in slow mode:\n\n"
        f"Numerical:\n {numerical}\n"
        f"Analytical:\n{analytical}\n\n"
        f"The max per-element difference (slow mode) is: {max_diff}.\n"
    )
    return msg + FAST_FAIL_SLOW_OK if close else msg
