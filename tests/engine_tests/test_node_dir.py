"""``dir(grad_fn)`` as a learner filters it for ``_saved``: every saved tensor PyTorch's
node class has an attribute for is listed (``_saved_self`` of ``x * 2.0`` reads None), and
none of the engine's own records (``_saved``, ``_fns``, the formula's ``m``/``p``/``s``).
PyTorch's listings are written out below, so the test holds without it; the oracle test
checks them against PyTorch.  The scalar attributes PyTorch also lists (``_saved_alpha``,
``_saved_dim``, ``*_sym_sizes``) are not recorded by the engine: the test asks for a subset."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import engine

CASES: dict[str, Callable[[Any, Any, Any], Any]] = {
    "x * 2.0": lambda T, x, w: x * 2.0,
    "x * w": lambda T, x, w: x * w,
    "x / w": lambda T, x, w: x / w,
    "x.exp()": lambda T, x, w: x.exp(),
    "x.sigmoid()": lambda T, x, w: x.sigmoid(),
    "x.tanh()": lambda T, x, w: x.tanh(),
    "x.relu()": lambda T, x, w: x.relu(),
    "x ** 2": lambda T, x, w: x**2,
    "x.sum()": lambda T, x, w: x.sum(),
    "x @ w": lambda T, x, w: x @ w,
    "x.mm(m)": lambda T, x, w: x.reshape(1, 3).mm(w.reshape(3, 1)),
    "linear": lambda T, x, w: T.nn.functional.linear(x.reshape(1, 3), w.reshape(1, 3), w[:1]),
    "log_softmax": lambda T, x, w: T.nn.functional.log_softmax(x, 0),
    "softmax": lambda T, x, w: x.softmax(0),
    "x.log()": lambda T, x, w: x.log(),
    "x.sqrt()": lambda T, x, w: x.sqrt(),
    "x.max(0)": lambda T, x, w: x.max(0)[0],
    "mse_loss": lambda T, x, w: T.nn.functional.mse_loss(x, w),
    "x + w": lambda T, x, w: x + w,
    "cross_entropy": lambda T, x, w: T.nn.functional.cross_entropy(x.reshape(1, 3), T.tensor([2])),
}
#: PyTorch 2.13: each ``_saved_*`` name in ``dir(grad_fn)`` and what it reads as.
TORCH: dict[str, dict[str, str]] = {
    "x * 2.0": {"_saved_other": "tensor", "_saved_self": "None"},
    "x * w": {"_saved_other": "tensor", "_saved_self": "None"},
    "x / w": {"_saved_other": "tensor", "_saved_self": "None"},
    "x.exp()": {"_saved_result": "tensor"},
    "x.sigmoid()": {"_saved_result": "tensor"},
    "x.tanh()": {"_saved_result": "tensor"},
    "x.relu()": {"_saved_result": "tensor"},
    "x ** 2": {"_saved_exponent": "int", "_saved_self": "tensor"},
    "x.sum()": {"_saved_self_sym_sizes": "tuple"},
    "x @ w": {"_saved_self": "None", "_saved_tensor": "tensor"},
    "x.mm(m)": {
        "_saved_mat2": "tensor",
        "_saved_mat2_sym_sizes": "tuple",
        "_saved_mat2_sym_strides": "tuple",
        "_saved_self": "None",
        "_saved_self_sym_sizes": "tuple",
        "_saved_self_sym_strides": "tuple",
    },
    "linear": {
        "_saved_alpha": "int",
        "_saved_beta": "int",
        "_saved_mat1": "None",
        "_saved_mat1_sym_sizes": "tuple",
        "_saved_mat1_sym_strides": "tuple",
        "_saved_mat2": "tensor",
        "_saved_mat2_sym_sizes": "tuple",
        "_saved_mat2_sym_strides": "tuple",
    },
    "log_softmax": {"_saved_dim": "int", "_saved_result": "tensor"},
    "softmax": {"_saved_dim": "int", "_saved_result": "tensor"},
    "x.log()": {"_saved_self": "tensor"},
    "x.sqrt()": {"_saved_result": "tensor"},
    "x.max(0)": {
        "_saved_dim": "int",
        "_saved_indices": "tensor",
        "_saved_keepdim": "bool",
        "_saved_self_sym_sizes": "tuple",
    },
    "mse_loss": {"_saved_reduction": "int", "_saved_self": "tensor", "_saved_target": "tensor"},
    "x + w": {"_saved_alpha": "int"},
    "cross_entropy": {
        "_saved_ignore_index": "int",
        "_saved_reduction": "int",
        "_saved_self": "tensor",
        "_saved_target": "tensor",
        "_saved_total_weight": "tensor",
        "_saved_weight": "None",
    },
}
#: What the engine does not record yet, each a scalar PyTorch saves beside the tensors.
SCALARS = ("int", "bool", "tuple")


def _listing(T: Any, case: str) -> dict[str, str]:
    x = T.tensor([1.5, 2.5, 3.5], requires_grad=True)
    w = T.tensor([0.5, 1.0, 2.0])
    fn = CASES[case](T, x, w).grad_fn
    kinds = {}
    for name in sorted(n for n in dir(fn) if n.startswith("_saved_")):
        v = getattr(fn, name)
        kinds[name] = "None" if v is None else "tensor" if isinstance(v, T.Tensor) else "other"
    return kinds


@pytest.mark.parametrize("case", CASES)
def test_every_saved_tensor_is_listed_and_reads_as_pytorch_says(case: str) -> None:
    expected = {n: k for n, k in TORCH[case].items() if k not in SCALARS}
    if case == "cross_entropy":  # the mean's divisor: computed in backward, not saved
        del expected["_saved_total_weight"]
    assert _listing(engine, case) == expected


@pytest.mark.parametrize("case", ["x * w", "x.exp()", "x.sum()", "linear"])
def test_the_engines_own_records_stay_out_of_dir(case: str) -> None:
    x = engine.tensor([1.5, 2.5, 3.5], requires_grad=True)
    fn = CASES[case](engine, x, engine.tensor([0.5, 1.0, 2.0])).grad_fn
    for node in (fn, *(f for f, _ in fn.next_functions if f is not None)):
        private = [
            n for n in dir(node) if n.startswith("_") and not n.startswith(("__", "_saved_"))
        ]
        assert private == []
        assert not {"m", "p", "s", "shapes", "apply", "saved_names"} & set(dir(node))
        assert {"name", "next_functions", "register_hook", "metadata"} <= set(dir(node))


def test_a_custom_functions_node_keeps_its_ctx_api() -> None:
    class Double(engine.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

    fn = Double.apply(engine.ones(2, requires_grad=True)).grad_fn
    assert {"saved_tensors", "needs_input_grad", "mark_dirty", "_forward_cls"} <= set(dir(fn))
    assert "_materialize" not in dir(fn)


@pytest.mark.torch
@pytest.mark.parametrize("case", CASES)
def test_the_written_listing_is_pytorchs(case: str) -> None:
    torch = pytest.importorskip("torch")
    x = torch.tensor([1.5, 2.5, 3.5], requires_grad=True)
    fn = CASES[case](torch, x, torch.tensor([0.5, 1.0, 2.0])).grad_fn
    kinds = {}
    for name in sorted(n for n in dir(fn) if n.startswith("_saved_")):
        v = getattr(fn, name)
        kinds[name] = (
            "None" if v is None else "tensor" if isinstance(v, torch.Tensor) else type(v).__name__
        )
    assert kinds == TORCH[case]
