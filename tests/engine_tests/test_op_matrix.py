"""The op test matrix, driven by the op declarations (like PyTorch's OpInfo).

Every declared op with samples is checked on every device: gradcheck in
float64 (analytic against finite differences), a float32 forward/backward that
keeps dtypes, second derivatives through ``create_graph`` where defined, and
the declared ``grad_fn`` name on the result.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine
from engine.ops.core import OPS, OpDef, Sample, all_samples, apply_op

CASES = [pytest.param(op, s, id=f"{op.name}-{i}") for i, (op, s) in enumerate(all_samples())]
DIFFERENTIABLE = [c for c in CASES if c.values[0].grad_fn is not None]


def _array(shape: Any, sample: Sample, rng: np.random.Generator) -> np.ndarray:
    if sample.positive:
        return rng.uniform(0.5, 2.0, size=shape)
    if sample.unit:
        return rng.uniform(0.1, 0.9, size=shape)
    if sample.zeros:  # every third element 0: slices with none, one and two zeros
        arr = rng.standard_normal(shape)
        arr.flat[::3] = 0.0
        return arr
    if sample.distinct:
        n = int(np.prod(shape)) if shape else 1
        vals = rng.permutation(n).astype(np.float64) / n - 0.45 + 0.01 * rng.random(n)
        return vals.reshape(shape)
    return rng.standard_normal(shape)


def build(
    op: OpDef, sample: Sample, device: str, dtype: Any = engine.float64
) -> tuple[list[Any], dict[str, Any]]:
    rng = np.random.default_rng(7)
    inputs = [
        engine.tensor(_array(s, sample, rng), dtype=dtype, device=device, requires_grad=True)
        for s in sample.inputs
    ]
    params = dict(sample.params)
    if "src_device" in params:  # ``_to_copy`` returns its gradient to where its input is
        params["src_device"] = engine.device(device)
    shape = tuple(sample.inputs[0])
    if params.get("condition") == "mask":
        params["condition"] = engine.tensor(rng.random(shape) > 0.5, device=device)._data
    if params.get("mask") == "mask_param":
        params["mask"] = engine.tensor(rng.random(shape) > 0.5, device=device)._data
    marker = params.get("index") if isinstance(params.get("index"), str) else None
    if marker == "index_param":
        size = shape[params.get("dim", 0)]
        params["index"] = engine.tensor(rng.integers(0, size, size=4), device=device)._data
    if marker == "scatter_index":  # rows of distinct positions along dim 1
        rows = [rng.permutation(shape[1])[:2] for _ in range(shape[0])]
        params["index"] = engine.tensor(np.array(rows), device=device)._data
    if params.get("indices") == "embedding_indices":
        params["indices"] = engine.tensor(
            rng.integers(0, shape[0], size=(2, 3)), device=device
        )._data
    if params.get("target") == "spatial_classes":  # (N, d1, ...) classes of dim 1
        params["target"] = engine.tensor(
            rng.integers(0, shape[1], size=(shape[0], *shape[2:])), device=device
        )._data
    elif params.get("target") == "classes":
        params["target"] = engine.tensor(
            rng.integers(0, shape[-1], size=shape[:-1]), device=device
        )._data
    return inputs, params


@pytest.mark.parametrize(("op", "sample"), DIFFERENTIABLE)
def test_gradcheck(op: OpDef, sample: Sample, device: str) -> None:
    inputs, params = build(op, sample, device)
    out = apply_op(op, tuple(inputs), params)
    first = out[0] if isinstance(out, tuple) else out
    assert first.grad_fn is not None
    assert first.grad_fn.name() == op.grad_fn
    assert engine.autograd.gradcheck(lambda *xs: apply_op(op, xs, params), inputs)


@pytest.mark.parametrize(("op", "sample"), DIFFERENTIABLE)
def test_float32_keeps_dtype(op: OpDef, sample: Sample, device: str) -> None:
    inputs, params = build(op, sample, device, engine.float32)
    out = apply_op(op, tuple(inputs), params)
    first = out[0] if isinstance(out, tuple) else out
    if "dtype" not in sample.params:
        assert first.dtype is engine.float32
    first.sum().backward()
    for x in inputs:
        assert x.grad is not None
        assert x.grad.dtype is engine.float32
        assert x.grad.shape == x.shape


SECOND_ORDER = [
    "mul",
    "div",
    "exp",
    "log",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "pow",
    "pow_tensor",
    "mm",
    "sum",
    "mean",
    "softmax",
    "log_softmax",
    "select",
    "index",
    "expand",
    "view",
    "sqrt",
    "reciprocal",
    "cumprod",
    "diagonal",
    "tan",
    "asin",
    "acos",
    "atan",
    "log2",
    "log10",
    "log1p",
    "expm1",
    "rsqrt",
    "atan2",
    "abs",
    "relu",
    "pow_scalar_base",
    "remainder_tensor",
    "fmod_tensor",
    "mv",
    "addmm",
    "add_scalar",
    "threshold_backward",
    "prod",
    "prod_dim",
    "var",
    "std",
    "linalg_vector_norm",
    "pow_tensor",
    "silu",
    "leaky_relu",
    "elu",
    "softplus",
    "hardtanh",
    "log_sigmoid",
    "leaky_relu_backward",
    "elu_backward",
    "softplus_backward",
    "hardtanh_backward",
    "log_sigmoid_backward",
    "mse_loss",
    "smooth_l1_loss",
    "huber_loss",
    "mse_loss_backward",
    "smooth_l1_loss_backward",
    "huber_loss_backward",
    "softmax_backward_data",
    "log_softmax_backward_data",
    "nll_loss",
    "binary_cross_entropy_with_logits",
    "div_scalar",
    "avg_pool2d",
    "embedding",
    "embedding_dense_backward",
    "binary_cross_entropy",
    "binary_cross_entropy_backward",
    "logit",
    "layer_norm",
    "batch_norm",
    "convolution",
]


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_second_derivative_matches_finite_differences(name: str) -> None:
    """d/dx of (d/dx f . v) via create_graph, checked with gradcheck itself."""
    op = OPS[name]
    sample = op.samples[0]
    inputs, params = build(op, sample, "cpu")
    v = engine.tensor(
        np.random.default_rng(3).standard_normal(tuple(apply_op(op, tuple(inputs), params).shape))
    )

    def first_grad(*xs: Any) -> Any:
        out = apply_op(op, xs, params)
        gs = engine.autograd.grad(out, xs, v, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    assert engine.autograd.gradcheck(first_grad, inputs)


THIRD_ORDER = [
    "convolution",
    "layer_norm",
    "batch_norm",
    "softmax",
    "log_softmax",
    "mse_loss",
    "binary_cross_entropy",
    "elu",
    "softplus",
    "log_sigmoid",
    "var",
    "linalg_vector_norm",
]


@pytest.mark.parametrize("name", THIRD_ORDER)
def test_third_derivative_matches_finite_differences(name: str) -> None:
    """The backward of a fused backward node (``…BackwardBackward0``) is itself
    differentiable: d/dx of the gradient of ``|first-order gradient|²``, by gradcheck."""
    op = OPS[name]
    sample = op.samples[0]
    inputs, params = build(op, sample, "cpu")
    v = engine.tensor(
        np.random.default_rng(5).standard_normal(tuple(apply_op(op, tuple(inputs), params).shape))
    )

    def second_grad(*xs: Any) -> Any:
        out = apply_op(op, xs, params)
        gs = engine.autograd.grad(out, xs, v, create_graph=True, allow_unused=True)
        total = sum((g * g).sum() for g in gs if g is not None)
        hs = engine.autograd.grad(total, xs, create_graph=True, allow_unused=True)
        return tuple(h for h in hs if h is not None)

    assert engine.autograd.gradcheck(second_grad, inputs)


def test_every_op_with_a_grad_fn_has_samples() -> None:
    internal = {
        "scatter_backward",
        "gather",
        "reshape_copy",
        "squeeze_dims",
        "alias",
        "squeeze_",
        "_reshape_alias",
        "index_backward",
        "index_select_backward",
        "index_put_zero",
        "masked_scatter_zero",
        "nll_loss_backward",
        "nll_loss2d_backward",
        "zero_",
        "fill_",
        "copy_",
        "sign",
        "uniform_",
        "normal_",
        "bernoulli_",
        "random_",
        "exponential_",
        "geometric_",
        "cauchy_",
        "log_normal_",
        "poisson",
        "bernoulli",  # torch.bernoulli(probs): sampled, its gradient zero (test_index_gaps)
        "bincount",  # weighted, ATen's ``NotImplemented`` node: backward refuses (scenarios)
        "rrelu_with_noise_",  # the in-place form of rrelu_with_noise (sampled)
        "max_pool2d_backward",
        "avg_pool2d_backward",
        "adaptive_avg_pool2d_backward",
        "convolution_backward",
        "layer_norm_backward",
        "batch_norm_backward",
        "floor_divide",  # ATen's ``NotImplemented`` node: backward refuses (test_program_gaps)
        "heaviside",  # the same (test_breadth)
        "hardsigmoid_backward",  # the same (test_more_activations)
        "hardsigmoid_backward_of_self",
        "hardsigmoid_backward_of_grad",
        "unique_consecutive",  # its node refuses backward, as PyTorch's (test_breadth)
        # ATen's ``NotImplemented`` node for the flash kernel's backward
        # (conformance: sdpa_double_backward_refused)
        "scaled_dot_product_flash_attention_for_cpu_backward",
        "linalg_eigh",  # reads one triangle: gradcheck needs symmetric input (test_breadth)
    }
    missing = [n for n, op in OPS.items() if op.grad_fn and not op.samples and n not in internal]
    assert missing == []
