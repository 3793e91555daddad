"""Each differentiable op of the op matrix as a PyTorch call, and the graph its
first-order gradients build under ``create_graph=True``.

An op's program uses the shapes and value kind (positive, distinct, in (0, 1)) of
its first op-matrix sample, names its tensors ``a``, ``b``, ``c`` (all requiring
grad) and is the expression of ``out`` (a tensor or a tuple of them), or
statements that bind it.  ``record`` runs it with
``torch`` bound to PyTorch or the engine, takes ``autograd.grad(out, inputs, v,
create_graph=True)`` and describes the ``grad_fn`` tree of every gradient:
node names, the input number of each edge, and which leaf an ``AccumulateGrad``
feeds, down to ``DEPTH`` levels.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.ops.core import OPS, Sample

DEPTH = 8

#: op name -> the call, in PyTorch's public API, that makes the op's node.
PROGRAMS: dict[str, str] = {
    "leaky_relu": "F.leaky_relu(a, 0.1)",
    "leaky_relu_": "F.leaky_relu(a * 1, 0.1, inplace=True)",
    "rrelu_with_noise": "F.rrelu(a)",
    "elu": "F.elu(a)",
    "elu_": "F.elu(a * 1, inplace=True)",
    "softplus": "F.softplus(a)",
    "silu": "F.silu(a)",
    "hardtanh": "F.hardtanh(a)",
    "log_sigmoid": "F.logsigmoid(a)",
    "celu": "F.celu(a, 1.0)",
    "celu_": "F.celu(a * 1, 2.0, inplace=True)",
    "hardswish": "F.hardswish(a)",
    "hardsigmoid": "F.hardsigmoid(a)",
    "hardshrink": "F.hardshrink(a, 0.2)",
    "softshrink": "F.softshrink(a, 0.2)",
    "threshold": "F.threshold(a, 0.1, 2.0)",
    "threshold_": "F.threshold(a * 1, 0.1, 2.0, inplace=True)",
    "mish": "F.mish(a)",
    "_prelu_kernel": "F.prelu(a, b)",
    "glu": "F.glu(a, -1)",
    "glu#1": "F.glu(a, 0)",
    "convolution": "F.conv2d(a, b, c, stride=1, padding=1)",
    "add": "a + b",
    "sub": "a - b",
    "rsub": "2.0 - a",
    "mul": "a * b",
    "mul_scalar": "a * 2.5",
    "div": "a / b",
    "reciprocal": "a.reciprocal()",
    "neg": "-a",
    "pow": "a ** 2",
    "pow_tensor": "a ** b",
    "pow_scalar_base": "2.0 ** a",
    "exp": "a.exp()",
    "log": "a.log()",
    "sqrt": "a.sqrt()",
    "abs": "a.abs()",
    "sin": "a.sin()",
    "cos": "a.cos()",
    "tanh": "a.tanh()",
    "sigmoid": "a.sigmoid()",
    "relu": "a.relu()",
    "sign": "a.sign()",
    "clamp": "a.clamp(-0.5, 0.5)",
    "clamp_tensor": "a.clamp(b, c)",
    "maximum": "torch.maximum(a, b)",
    "minimum": "torch.minimum(a, b)",
    "where": "torch.where(mask, a, b)",
    "_to_copy": "a.to(torch.float32)",
    "select": "a.select(1, 2)",
    "slice": "a[1:4:2]",
    "index": "a[torch.tensor([0, 2, 2])]",
    "index_put_": "out = a.clone(); out[torch.tensor([0, 2])] = b",
    "index_put_accumulate": "a.index_put((torch.tensor([0, 2, 0]),), b, accumulate=True)",
    "mm": "a.mm(b)",
    "mv": "a.mv(b)",
    "dot": "a.dot(b)",
    "bmm": "a.bmm(b)",
    "addmm": "torch.addmm(a, b, c)",
    "sum": "a.sum()",
    "sum_dim": "a.sum(1)",
    "mean": "a.mean()",
    "mean_dim": "a.mean(0)",
    "max": "a.max()",
    "min": "a.min()",
    "max_dim": "a.max(1).values",
    "min_dim": "a.min(0, keepdim=True).values",
    "binary_cross_entropy": "F.binary_cross_entropy(a, b)",
    "binary_cross_entropy_with_logits": "F.binary_cross_entropy_with_logits(a, b)",
    "smooth_l1_loss": "F.smooth_l1_loss(a, b)",
    "huber_loss": "F.huber_loss(a, b)",
    "tan": "a.tan()",
    "asin": "a.asin()",
    "acos": "a.acos()",
    "atan": "a.atan()",
    "sinh": "a.sinh()",
    "cosh": "a.cosh()",
    "log2": "a.log2()",
    "log10": "a.log10()",
    "log1p": "a.log1p()",
    "expm1": "a.expm1()",
    "rsqrt": "a.rsqrt()",
    "floor": "a.floor()",
    "ceil": "a.ceil()",
    "trunc": "a.trunc()",
    "frac": "a.frac()",
    "round": "a.round()",
    "round_decimals": "a.round(decimals=1)",
    "atan2": "torch.atan2(a, b)",
    "remainder": "a.remainder(0.7)",
    "remainder_tensor": "a.remainder(b)",
    "fmod": "a.fmod(0.7)",
    "fmod_tensor": "a.fmod(b)",
    "softmax": "a.softmax(1)",
    "log_softmax": "a.log_softmax(1)",
    "mse_loss": "F.mse_loss(a, b)",
    "nll_loss": "F.nll_loss(a, torch.tensor([1, 0, 3]))",
    "nll_loss2d": "F.nll_loss(a, torch.tensor([[[0, 2], [1, 0]], [[2, 2], [0, 1]]]))",
    "roll": "a.roll((1, -1), (0, 1))",
    "constant_pad_nd": "F.pad(a, (1, 2, -1, 1), value=0.5)",
    "adaptive_avg_pool2d": "F.adaptive_avg_pool2d(a, (2, 3))",
    "layer_norm": "F.layer_norm(a, (4,), b, c)",
    "batch_norm": "F.batch_norm(a, None, None, b, c, training=True)",
    "embedding": "F.embedding(torch.tensor([[0, 4, 2], [1, 1, 3]]), a)",
    "linalg_vector_norm": "torch.linalg.vector_norm(a)",
    "max_pool2d": "F.max_pool2d(a, 2, 2, ceil_mode=True)",
    "avg_pool2d": "F.avg_pool2d(a, 2, 2, padding=1, ceil_mode=True, count_include_pad=False)",
    "repeat": "a.repeat(2, 1)",
    "tril": "a.tril()",
    "triu": "a.triu()",
    "t": "a.t()",
    "transpose": "a.transpose(0, 2)",
    "permute": "a.permute(2, 0, 1)",
    "view": "a.view(3, 2)",
    "_unsafe_view": "a.t().reshape(6)",
    "squeeze": "a.squeeze()",
    "squeeze_dim": "a.squeeze(1)",
    "squeeze_dims": "a.squeeze((0, 2))",
    "unsqueeze": "a.unsqueeze(1)",
    "unsqueeze_": "(a * 1).unsqueeze_(1)",
    "erf": "torch.erf(a)",
    "erfc": "torch.erfc(a)",
    "lerp": "torch.lerp(a, b, 0.3)",
    "lerp_tensor": "torch.lerp(a, b, c)",
    "rot90": "torch.rot90(a, 1, (0, 1))",
    "masked_select": "a.masked_select(a > 0)",
    "median": "a.median()",
    "median_dim": "a.median(1)[0]",
    "kthvalue": "a.kthvalue(1, 1)[0]",
    "mode": "a.mode(1)[0]",
    "cummax": "a.cummax(1)[0]",
    "cummin": "a.cummin(1)[0]",
    "squeeze_all_": "(a * 1).squeeze_()",
    "t_": "(a * 1).t_()",
    "transpose_": "(a * 1).transpose_(0, 2)",
    "expand": "a.expand(3, 4)",
    "clone": "a.clone()",
    "cat": "torch.cat([a, b], 0)",
    "stack": "torch.stack([a, b], 1)",
    "masked_fill": "a.masked_fill(mask, 0.5)",
    "masked_fill_tensor": "a.masked_fill(mask, b)",
    "index_select_op": "a.index_select(0, torch.tensor([2, 0, 0, 1]))",
    "scatter_src": "a.scatter(1, torch.tensor([[2, 0], [1, 2]]), b)",
    "scatter_value": "a.scatter(1, torch.tensor([[2, 0], [1, 2]]), 0.5)",
    "scatter_add": "a.scatter_add(1, torch.tensor([[2, 0], [1, 2]]), b)",
    "index_add": "a.index_add(0, torch.tensor([2, 0, 0, 1]), b)",
    "sort": "a.sort(1).values",
    "topk": "a.topk(2, 1).values",
    "split": "a.split(2, 0)",
    "split_with_sizes": "a.split([1, 2], 1)",
    "unbind": "a.unbind(1)",
    "prod": "a.prod()",
    "prod_dim": "a.prod(1)",
    "amax": "a.amax(1)",
    "amin": "a.amin(1)",
    "logsumexp": "a.logsumexp(1)",
    "var": "a.var()",
    "std": "a.std()",
    "cumsum": "a.cumsum(1)",
    "flip": "a.flip((0, 1))",
    "cumprod": "a.cumprod(1)",
    "rsub_tensor": "torch.rsub(a, b)",
    "diagonal": "a.diagonal()",
    "unfold": "a.unfold(0, 3, 2)",
    "fmax": "torch.fmax(a, b)",
    "fmin": "torch.fmin(a, b)",
    "put": "a.put(torch.tensor([0, 5, 3, 0]), b, accumulate=True)",
    "clamp_min": "a.clamp_min(0.0)",
    "clamp_max": "a.clamp_max(0.0)",
    "trace": "torch.trace(a)",
    "diag_embed": "torch.diag(a)",
    "diagonal_copy": "torch.diag(a)",
    "gelu": "F.gelu(a)",
    "linalg_solve": "torch.linalg.solve(a, b)",
    "linalg_inv": "torch.linalg.inv(a)",
}

#: Further op-matrix samples (``op#k`` is sample ``k``) where a formula branches on them.
PROGRAMS.update(
    {
        "softplus#1": "F.softplus(a, beta=2.0, threshold=1.0)",
        "convolution#1": "F.conv1d(a, b, c, stride=2, dilation=2, groups=2)",
        "add#1": "a + b",
        "add#2": "a + b",
        "add#3": "torch.add(a, b, alpha=2.0)",
        "sub#1": "a - b",
        "mul#1": "a * b",
        "mul#2": "a * b",
        "div#1": "a / b",
        "reciprocal#1": "a.reciprocal()",
        "pow#1": "a ** 0.5",
        "exp#1": "a.exp()",
        "log#1": "a.log()",
        "sqrt#1": "a.sqrt()",
        "sin#1": "a.sin()",
        "cos#1": "a.cos()",
        "tanh#1": "a.tanh()",
        "sigmoid#1": "a.sigmoid()",
        "clamp#1": "a.clamp(min=0.0)",
        "maximum#1": "torch.maximum(a, b)",
        "addmm#1": "torch.addmm(a, b, c)",
        "sum_dim#1": "a.sum((0, 2), keepdim=True)",
        "tan#1": "a.tan()",
        "atan#1": "a.atan()",
        "log2#1": "a.log2()",
        "log1p#1": "a.log1p()",
        "expm1#1": "a.expm1()",
        "rsqrt#1": "a.rsqrt()",
        "mse_loss#1": "F.mse_loss(a, b, reduction='sum')",
        "layer_norm#1": "F.layer_norm(a, (3, 4), b, c)",
        "batch_norm#1": "F.batch_norm(a, None, None, b, c, training=True)",
        "linalg_vector_norm#1": "torch.linalg.vector_norm(a, 1)",
        "linalg_vector_norm#2": "torch.linalg.vector_norm(a, 3, dim=1)",
        "linalg_vector_norm#3": "torch.linalg.vector_norm(a, float('inf'))",
        "linalg_vector_norm#4": "torch.linalg.vector_norm(a, dim=0, keepdim=True)",
        "max_pool2d#1": "F.max_pool2d(a, 3, (2, 1), padding=1)",
        "avg_pool2d#1": "F.avg_pool2d(a, 3, 2, padding=1)",
        "repeat#1": "a.repeat(2, 2)",
        "tril#1": "a.tril(1)",
        "expand#1": "a.expand(2, 3)",
        "var#1": "a.var(1, correction=0)",
        "std#1": "a.std(1)",
    }
)

#: The ops of ``test_breadth``: special functions, fused updates, reductions, in-place
#: views, products, order statistics, matrix functions and placements.
PROGRAMS.update(
    {
        "erf": "a.erf()",
        "erfc": "a.erfc()",
        "erfinv": "a.erfinv()",
        "lgamma": "a.lgamma()",
        "digamma": "a.digamma()",
        "polygamma": "torch.polygamma(1, a)",
        "exp2": "a.exp2()",
        "sinc": "a.sinc()",
        "deg2rad": "a.deg2rad()",
        "rad2deg": "a.rad2deg()",
        "logit_eps": "a.logit()",
        "logit_eps#1": "a.logit(0.2)",
        "nan_to_num": "a.nan_to_num()",
        "xlogy": "torch.xlogy(a, b)",
        "xlogy_scalar_self": "torch.xlogy(2.0, a)",
        "xlogy_scalar_other": "a.xlogy(2.0)",
        "logaddexp": "torch.logaddexp(a, b)",
        "hypot": "torch.hypot(a, b)",
        "copysign": "torch.copysign(a, b)",
        "copysign_scalar": "a.copysign(-1.0)",
        "lerp": "a.lerp(b, 0.3)",
        "lerp_tensor": "a.lerp(b, c)",
        "addcmul": "a.addcmul(b, c)",
        "addcdiv": "a.addcdiv(b, c)",
        "nansum": "a.nansum()",
        "var_mean": "torch.var_mean(a)",
        "std_mean": "torch.std_mean(a)",
        "median": "a.median()",
        "nanmedian": "a.nanmedian()",
        "median_dim": "a.median(1).values",
        "nanmedian_dim": "a.nanmedian(0, keepdim=True).values",
        "aminmax": "tuple(a.aminmax())",
        "masked_select": "a.masked_select(mask)",
        "take": "a.take(torch.tensor([0, 5, 3, 3]))",
        "t_": "(a * 1).t_()",
        "transpose_": "(a * 1).transpose_(0, 2)",
        "squeeze_all_": "(a * 1).squeeze_()",
        "squeeze_dims_": "(a * 1).squeeze_((0, 2))",
        "unsqueeze_": "(a * 1).unsqueeze_(1)",
        "addmv": "torch.addmv(a, b, c)",
        "addr": "torch.addr(a, b, c)",
        "baddbmm": "torch.baddbmm(a, b, c)",
        "addbmm": "torch.addbmm(a, b, c)",
        "dist": "torch.dist(a, b)",
        "linalg_cross": "torch.linalg.cross(a, b, dim=1)",
        "diag_embed_dims": "torch.diag_embed(a, 0, 1, 2)",
        "rot90": "a.rot90(1, (0, 1))",
        "kthvalue": "a.kthvalue(2, 1).values",
        "mode": "a.mode(1).values",
        "cummax": "a.cummax(1).values",
        "cummin": "a.cummin(0).values",
        "logcumsumexp": "a.logcumsumexp(1)",
        "linalg_det": "torch.linalg.det(a)",
        "linalg_slogdet": "torch.linalg.slogdet(a).logabsdet",
        "linalg_cholesky": "torch.linalg.cholesky(a)",
        "cdist": "torch.cdist(a, b)",
        "_euclidean_dist": "torch.cdist(a, b, compute_mode='use_mm_for_euclid_dist')",
        "linalg_svd": "tuple(torch.linalg.svd(a, full_matrices=False))",
        "linalg_pinv": "torch.linalg.pinv(a)",
        "linalg_lstsq": "torch.linalg.lstsq(a, b).solution",
        "linalg_qr": "tuple(torch.linalg.qr(a))",
        "index_fill": "a.index_fill(0, torch.tensor([2, 0]), 1.5)",
        "index_fill_tensor": "a.index_fill(1, torch.tensor([1]), b)",
        "index_copy": "a.index_copy(0, torch.tensor([2, 0]), b)",
        "masked_scatter": "a.masked_scatter(mask, b)",
    }
)

#: Differentiable ops with no program of their own, and why.
NOT_PROGRAMS: dict[str, str] = {
    "tanh_backward": "internal: the node of tanh's gradient, covered inside tanh's tree",
    "sigmoid_backward": "internal: the node of sigmoid's gradient, covered inside sigmoid's tree",
    "threshold_backward": "internal: the node of relu's gradient, covered inside relu's tree",
    "add_scalar": "internal: ATen's Tensor + Scalar (AddBackward1), inside tan's tree and others",
    "sgn": "internal: inside abs's tree",
    "div_mode": "internal: div with a rounding mode, inside remainder's and fmod's trees",
    "sub_scalar": "internal: ATen's Tensor - Scalar (SubBackward1), inside pow's tree",
    "leaky_relu_backward": "internal: the node of leaky_relu's gradient, inside its tree",
    "rrelu_with_noise_backward": "internal: the node of rrelu's gradient, inside its tree",
    "elu_backward": "internal: the node of elu's gradient, inside its tree",
    "elu_result_backward": "internal: the node of an in-place elu's gradient, inside elu_'s tree",
    "softplus_backward": "internal: the node of softplus's gradient, inside its tree",
    "masked_scatter_zero": "internal: the node of masked_select's gradient, inside its tree",
    "hardtanh_backward": "internal: the node of hardtanh's gradient, inside its tree",
    "log_sigmoid_backward": "internal: the node of logsigmoid's gradient, inside its tree",
    "softmax_backward_data": "internal: the node of softmax's gradient, inside its tree",
    "log_softmax_backward_data": "internal: the node of log_softmax's gradient, inside its tree",
    "mse_loss_backward": "internal: the node of mse_loss's gradient, inside its tree",
    "smooth_l1_loss_backward": "internal: the node of smooth_l1_loss's gradient, inside its tree",
    "huber_loss_backward": "internal: the node of huber_loss's gradient, inside its tree",
    "div_scalar": "internal: ATen's Tensor / Scalar (DivBackward1), inside losses' trees",
    "embedding_dense_backward": "internal: the node of embedding's gradient",
    "logit": "internal: inside binary_cross_entropy's tree (the engine has no torch.logit)",
    "binary_cross_entropy_backward": "internal: the node of binary_cross_entropy's gradient",
    "diagonal_backward": "internal: the node of diagonal's gradient, inside its tree",
    "unfold_backward": "internal: the node of unfold's gradient, inside its tree",
    "gelu_backward": "internal: the node of gelu's gradient, inside its tree",
    "hardswish_backward": "internal: the node of hardswish's gradient, inside its tree",
    "hardshrink_backward": "internal: the node of hardshrink's gradient, inside its tree",
    "softshrink_backward": "internal: the node of softshrink's gradient, inside its tree",
    "prelu_kernel_backward": "internal: the node of prelu's gradients, inside its tree",
    "glu_backward": "internal: the node of glu's gradient, inside its tree",
    "cholesky": "torch.cholesky warns (deprecated); its formula is linalg_cholesky's program",
}


def _values(shape: tuple[int, ...], sample: Sample, rng: np.random.Generator) -> np.ndarray:
    """The op matrix's value kinds (see ``tests/engine_tests/test_op_matrix.py``)."""
    if sample.positive:
        return rng.uniform(0.5, 2.0, size=shape)
    if sample.unit:
        return rng.uniform(0.1, 0.9, size=shape)
    if sample.distinct:
        n = int(np.prod(shape)) if shape else 1
        vals = rng.permutation(n).astype(np.float64) / n - 0.45 + 0.01 * rng.random(n)
        return vals.reshape(shape)
    return rng.standard_normal(shape)


def _describe(node: Any, leaves: list[Any], depth: int) -> Any:
    if node is None:
        return None
    name = node.name().rsplit("::", 1)[-1]
    if name == "AccumulateGrad":
        var = node.variable
        return f"AccumulateGrad({next(k for k, t in enumerate(leaves) if t is var)})"
    if depth == 0:
        return name + "..."
    return [name, [[_describe(n, leaves, depth - 1), nr] for n, nr in node.next_functions]]


def record(torch: Any, name: str) -> list[Any]:
    """The ``grad_fn`` tree of each first-order gradient of op ``name``'s program."""
    op_name, _, index = name.partition("#")
    sample = OPS[op_name].samples[int(index or 0)]
    rng = np.random.default_rng(11)
    shapes = [tuple(s) for s in sample.inputs]
    inputs = [
        torch.tensor(_values(s, sample, rng).tolist(), dtype=torch.float64, requires_grad=True)
        for s in shapes
    ]
    scope: dict[str, Any] = {"torch": torch, "F": torch.nn.functional}
    scope.update(zip("abc", inputs, strict=False))
    scope["mask"] = torch.tensor((rng.random(shapes[0]) > 0.5).tolist())
    source = PROGRAMS[name]
    if source.startswith("out = "):
        exec(source, scope)
        out = scope["out"]
    else:
        out = eval(source, scope)
    outs = [o for o in (out if isinstance(out, tuple) else (out,)) if o.requires_grad]
    vs = [torch.tensor(rng.standard_normal(tuple(o.shape)).tolist(), dtype=o.dtype) for o in outs]
    grads = torch.autograd.grad(outs, inputs, vs, create_graph=True, allow_unused=True)
    return [
        None if g is None else _describe(g.grad_fn, inputs, DEPTH) if g.requires_grad else "const"
        for g in grads
    ]


#: Attention: the CPU flash kernel (its backward a ``NotImplemented`` node under
#: ``create_graph``) and ``_safe_softmax`` inside the math composite (3-D inputs).
PROGRAMS.update(
    {
        "scaled_dot_product_flash_attention_for_cpu": "F.scaled_dot_product_attention(a, b, c)",
        "safe_softmax": "F.scaled_dot_product_attention(a[None], a[None], a[None])",
    }
)


#: Normalisation and resampling layers (group norm, interpolate, pixel shuffle).
PROGRAMS.update(
    {
        "native_group_norm": "F.group_norm(a, 2, b, c)",
        "native_group_norm#1": "F.group_norm(a, 3, b, c)",
        "upsample_nearest1d": "F.interpolate(a, size=(7,))",
        "upsample_nearest2d": "F.interpolate(a, size=(7, 5))",
        "upsample_linear1d": "F.interpolate(a, size=(7,), mode='linear')",
        "upsample_bilinear2d": "F.interpolate(a, size=(7, 5), mode='bilinear')",
        "pixel_shuffle": "F.pixel_shuffle(a, 2)",
        "pixel_unshuffle": "F.pixel_unshuffle(a, 2)",
        "depth_avg_pool3d": "F.local_response_norm(a.view(2, 5, 2, 3), 3)",
        "im2col": "F.unfold(a, 2, padding=(1, 0), stride=(1, 2))",
        "col2im": "F.fold(a, (3, 4), 2, padding=(1, 0), stride=(1, 2))",
        "reflection_pad1d": "F.pad(a, (2, 1), mode='reflect')",
        "reflection_pad2d": "F.pad(a, (2, 1, 1, 2), mode='reflect')",
        "reflection_pad3d": "F.pad(a, (2, 1, 1, 2, 0, 1), mode='reflect')",
        "replication_pad1d": "F.pad(a, (2, 1), mode='replicate')",
        "replication_pad2d": "F.pad(a, (2, 1, 1, 2), mode='replicate')",
        "replication_pad3d": "F.pad(a, (2, 1, 1, 2, 0, 1), mode='replicate')",
    }
)
NOT_PROGRAMS["unsafe_split"] = (
    "internal: the gates of a recurrent cell, inside LSTM's and GRU's trees"
)
NOT_PROGRAMS["mkldnn_rnn_layer"] = (
    "a float32 LSTM's fused node: its second-order graph is the conformance scenario "
    "lstm_double_backward_through_fused_node (scenarios_rnn)"
)
NOT_PROGRAMS["_pack_padded_sequence"] = "internal: inside pack_padded_sequence's tree"
NOT_PROGRAMS["depth_avg_pool3d_backward"] = "internal: the node of depth_avg_pool3d's gradient"
NOT_PROGRAMS.update(
    {
        f"upsample_{kind}_backward": f"internal: the node of upsample_{kind}'s gradient"
        for kind in ("nearest1d", "nearest2d", "linear1d", "bilinear2d")
    }
    | {
        f"{kind}_pad{d}d_backward": f"internal: the node of {kind}_pad{d}d's gradient"
        for kind in ("reflection", "replication")
        for d in (1, 2, 3)
    }
)
