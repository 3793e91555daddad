"""Forward-mode AD: dual levels, tangents through every declared op, custom Functions.

The op matrix checks each declared op's tangent against its backward by the dot-product
identity ``<u, J v> = <J^T u, v>`` in float64; the rest against analytic values and, where
PyTorch is installed, against PyTorch live.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import engine
import engine.autograd.forward_ad as fwAD
from engine.ops.core import OpDef, Sample, apply_op
from tests.engine_tests.test_op_matrix import DIFFERENTIABLE, build


@pytest.mark.parametrize(("op", "sample"), DIFFERENTIABLE)
def test_tangent_is_jacobian_times_v(op: OpDef, sample: Sample) -> None:
    inputs, params = build(op, sample, "cpu")
    rng = np.random.default_rng(3)
    vs = [engine.tensor(rng.standard_normal(tuple(x.shape))) for x in inputs]
    with fwAD.dual_level():
        duals = [fwAD.make_dual(x.detach(), v) for x, v in zip(inputs, vs, strict=True)]
        out = apply_op(op, tuple(duals), params)
        outs = out if isinstance(out, tuple) else (out,)
        jvs = [fwAD.unpack_dual(o).tangent for o in outs]
    out = apply_op(op, tuple(inputs), params)
    outs = out if isinstance(out, tuple) else (out,)
    picked = [i for i, o in enumerate(outs) if o.dtype.is_floating_point and o.requires_grad]
    us = [engine.tensor(rng.standard_normal(tuple(outs[i].shape))) for i in picked]
    gs = engine.autograd.grad(
        [outs[i] for i in picked], inputs, us, allow_unused=True, materialize_grads=True
    )
    lhs = sum(float((u * jvs[i]).sum()) for u, i in zip(us, picked, strict=True))
    rhs = sum(float((g * v).sum()) for g, v in zip(gs, vs, strict=True))
    assert np.isclose(lhs, rhs, rtol=1e-6, atol=1e-8)


def test_analytic_tangents() -> None:
    x = engine.tensor([0.5, 1.0, 2.0], dtype=engine.float64)
    v = engine.tensor([1.0, -2.0, 0.5], dtype=engine.float64)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, v)
        assert np.allclose(fwAD.unpack_dual(d.sin()).tangent.numpy(), (x.cos() * v).numpy())
        assert np.allclose(fwAD.unpack_dual((d * d).sum()).tangent.item(), (2 * x * v).sum().item())
        w = engine.ones(2, 3, dtype=engine.float64)
        lin = fwAD.unpack_dual(engine.nn.functional.linear(d, w)).tangent
        assert lin.tolist() == [-0.5, -0.5]
        mse = fwAD.unpack_dual(
            engine.nn.functional.mse_loss(d, engine.zeros(3, dtype=engine.float64))
        )
        assert np.isclose(mse.tangent.item(), (2 * x * v).mean().item())
        y = d.clone()
        y.mul_(3)
        assert fwAD.unpack_dual(y).tangent.tolist() == [3.0, -6.0, 1.5]
        z = x.clone()
        z.add_(d)
        assert fwAD.unpack_dual(z).tangent.tolist() == v.tolist()
        assert fwAD.unpack_dual(d.argmax()).tangent is None
        assert fwAD.unpack_dual(d > 0).tangent is None
        assert fwAD.unpack_dual(d.detach()).tangent is None
        assert fwAD.unpack_dual(x).tangent is None
    assert fwAD.unpack_dual(d).tangent is None  # the level closed


def test_make_dual_facts_and_errors() -> None:
    x = engine.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fwAD.make_dual(x, x)
    with fwAD.dual_level() as level:
        assert level == 0
        d = fwAD.make_dual(x, engine.ones(2))
        assert not d.requires_grad and d.grad_fn is None and d._base is x
        unpacked = fwAD.unpack_dual(d)
        assert type(unpacked).__name__ == "UnpackedDualTensor"
        assert unpacked._fields == ("primal", "tangent")
        assert repr(d) == "tensor([1., 2.], tangent=tensor([1., 1.]))"
        leaf = x.clone().requires_grad_()
        assert fwAD.make_dual(leaf, engine.ones(2)).grad_fn.name() == "ViewBackward0"
        with pytest.raises(RuntimeError, match=r"Tensor is of size \[2\] while the given"):
            fwAD.make_dual(x, engine.ones(3))
        with pytest.raises(ValueError, match="Expected primal to be floating point"):
            fwAD.make_dual(engine.arange(2), engine.ones(2))
        with pytest.raises(
            RuntimeError, match="already has a forward gradient at the same level 0"
        ):
            fwAD.make_dual(d, engine.ones(2))
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwAD.enter_dual_level()
    with pytest.raises(RuntimeError, match=r"Dual level must be a positive number\."):
        fwAD.exit_dual_level()
    assert fwAD.enter_dual_level() == 0
    fwAD.exit_dual_level()


class _Exp(engine.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_forward(x)
        return x.exp()

    @staticmethod
    def jvp(ctx: Any, t: Any) -> Any:
        (x,) = ctx.saved_tensors
        return t * x.exp()


class _Mul(engine.autograd.Function):
    @staticmethod
    def forward(x: Any, y: Any) -> Any:
        return x * y

    @staticmethod
    def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
        ctx.save_for_forward(*inputs)
        ctx.save_for_backward(*inputs)

    @staticmethod
    def jvp(ctx: Any, tx: Any, ty: Any) -> Any:
        x, y = ctx.saved_tensors
        return tx * y + x * ty

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        x, y = ctx.saved_tensors
        return g * y, g * x


class _NoJvp(engine.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return x * 2


def test_custom_function_jvp() -> None:
    x = engine.tensor([0.5, 1.0])
    y = engine.tensor([2.0, 3.0])
    with fwAD.dual_level():
        d = fwAD.make_dual(x, engine.tensor([1.0, 2.0]))
        exp_t = fwAD.unpack_dual(_Exp.apply(d)).tangent
        assert np.allclose(exp_t.numpy(), (x.exp() * engine.tensor([1.0, 2.0])).numpy())
        assert fwAD.unpack_dual(exp_t).tangent is None
        assert fwAD.unpack_dual(_Mul.apply(d, y)).tangent.tolist() == [2.0, 6.0]
        with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
            _NoJvp.apply(d)
    leaf = x.clone().requires_grad_()
    _Mul.apply(leaf, y).sum().backward()
    assert leaf.grad.tolist() == [2.0, 3.0]


def test_jacobian_forward_mode() -> None:
    x = engine.tensor([0.5, 1.0, 2.0], dtype=engine.float64)
    jac = engine.autograd.functional.jacobian(
        lambda x: x.sin(), x, strategy="forward-mode", vectorize=True
    )
    assert np.allclose(jac.numpy(), np.diag(np.cos(x.numpy())))
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        engine.autograd.functional.jacobian(lambda x: x.sin(), x, strategy="forward-mode")


@pytest.mark.torch
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_messages_and_reprs_match_torch() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import torch
        import torch.autograd.forward_ad as tfw

    def run(lib: Any, fw: Any) -> list[str]:
        seen = []
        x = lib.tensor([1.0, 2.0, 3.0])
        for call in (lambda: fw.make_dual(x, x), fw.exit_dual_level):
            try:
                call()
            except Exception as e:
                seen.append(f"{type(e).__name__}: {e}")
        with fw.dual_level():
            d = fw.make_dual(x, lib.ones(3))
            seen.append(repr(d))
            seen.append(repr(fw.unpack_dual(d * 2.0)))
            seen.append(repr(fw.unpack_dual(lib.nn.functional.softmax(d, 0))))
            seen.append(repr(fw.make_dual(x.requires_grad_(), lib.ones(3))))
            for call in (
                lambda: fw.make_dual(x, lib.ones(2)),
                lambda: fw.make_dual(d, lib.ones(3)),
                lambda: fw.make_dual(lib.arange(3), lib.arange(3)),
                fw.enter_dual_level,
            ):
                try:
                    call()
                except Exception as e:
                    seen.append(f"{type(e).__name__}: {e}")
        return [s.split(" object at")[0] for s in seen]

    assert run(engine, fwAD) == run(torch, tfw)


def test_op_without_double_backward_falls_back_to_rows() -> None:
    """``eigh``'s backward runs on arrays (no double backward): its tangent comes from one
    plain vjp per output element; an eigenvalue moves by ``vᵀ dA v``."""
    a = engine.tensor([[2.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 1.0]], dtype=engine.float64)
    da = engine.tensor([[1.0, 0.5, 0.0], [0.5, -1.0, 0.0], [0.0, 0.0, 2.0]], dtype=engine.float64)
    with fwAD.dual_level():
        values, vectors = engine.linalg.eigh(fwAD.make_dual(a, da))
        tangent = fwAD.unpack_dual(values).tangent
    v = vectors.numpy()
    assert np.allclose(tangent.numpy(), np.diag(v.T @ da.numpy() @ v))


_LAYER_CASES = {
    "conv2d": ("F.conv2d(d, torch.ones(3, 2, 3, 3, dtype=d.dtype) * 0.1, padding=1)", (2, 2, 5, 5)),
    "batch_norm": ("F.batch_norm(d, None, None, training=True)", (2, 2, 5, 5)),
    "max_pool2d": ("F.max_pool2d(d, 2)", (2, 2, 4, 4)),
    "layer_norm": ("F.layer_norm(d, (5,))", (3, 5)),
    "cross_entropy": ("F.cross_entropy(d, torch.tensor([1, 0, 4]))", (3, 5)),
    "activations": ("F.gelu(d) + F.silu(d) + F.elu(d) + F.softplus(d) + d.tanh()", (3, 5)),
    "softmax": ("F.log_softmax(d, 1) + F.softmax(d, 0)", (3, 5)),
    "index_cat": ("torch.cat([d[:, 1:3], d[torch.tensor([0, 2]), :2]]) * d[0, 0]", (3, 5)),
    "reductions": ("d.norm() + d.std() + d.var(1).sum() + d.logsumexp(1).sum()", (3, 5)),
    "matmul": ("d @ d.transpose(-1, -2) + torch.einsum('bij,bkj->bik', d, d)", (2, 3, 3)),
    "sort_cumsum": ("d.cumsum(1) + d.sort(1).values + d.max(1, keepdim=True).values", (3, 4)),
    "setitem": (
        "torch.zeros(2, 3, 4, dtype=d.dtype).index_put((torch.tensor([0]),), d[:1]) + 0",
        (2, 3, 4),
    ),
}


@pytest.mark.torch
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("name", sorted(_LAYER_CASES))
def test_layer_tangents_match_torch(name: str) -> None:
    import torch

    expr, shape = _LAYER_CASES[name]
    rng = np.random.default_rng(5)
    x, v = rng.standard_normal(shape), rng.standard_normal(shape)
    tangents = []
    for lib, fw in ((engine, fwAD), (torch, torch.autograd.forward_ad)):
        with fw.dual_level():
            d = fw.make_dual(lib.tensor(x, dtype=lib.float64), lib.tensor(v, dtype=lib.float64))
            out = eval(expr, {"torch": lib, "F": lib.nn.functional, "d": d})
            tangents.append(np.asarray(fw.unpack_dual(out).tangent.tolist()))
    assert np.allclose(tangents[0], tangents[1], rtol=1e-10, atol=1e-12)
