"""``engine.func``: transforms against analytic values (float64), against the backward
(``jvp`` equals ``J·v``), and against PyTorch live for values, flags and messages."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine
from engine.func import (
    functional_call,
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    stack_module_state,
    vjp,
    vmap,
)

F64 = engine.float64


def _x() -> Any:
    return engine.tensor([0.5, -1.0, 2.0], dtype=F64)


def test_grad_values_and_flags() -> None:
    x = _x()
    g = grad(lambda x: (x**3).sum())(x)
    assert np.allclose(g.numpy(), 3 * x.numpy() ** 2)
    assert not g.requires_grad and g.grad_fn is None
    leaf = x.clone().requires_grad_()
    g = grad(lambda x: (x**3).sum())(leaf)
    assert g.grad_fn is not None
    (second,) = engine.autograd.grad(g.sum(), leaf)
    assert np.allclose(second.numpy(), 6 * x.numpy())
    w = x.clone().requires_grad_()
    assert grad(lambda x: (x * w).sum())(x).grad_fn is not None
    _, value = grad_and_value(lambda x: (x**2).sum())(x)
    assert value.item() == pytest.approx(5.25) and value.grad_fn is None
    gx, gy = grad(lambda x, y: (x * y).sum(), argnums=(0, 1))(x, 2 * x)
    assert np.allclose(gx.numpy(), 2 * x.numpy()) and np.allclose(gy.numpy(), x.numpy())
    tree = grad(lambda d: (d["a"] * d["b"]).sum())({"a": x, "b": x + 1})
    assert sorted(tree) == ["a", "b"]
    g, aux = grad(lambda x: ((x**2).sum(), x.mean()), has_aux=True)(x)
    assert aux.grad_fn is None and aux.item() == pytest.approx(x.mean().item())


def test_nested_grad_is_second_derivative() -> None:
    x = engine.tensor(0.7, dtype=F64)
    d2 = grad(grad(lambda x: x.sin() * x))(x)
    assert d2.item() == pytest.approx(2 * np.cos(0.7) - 0.7 * np.sin(0.7))


@pytest.mark.parametrize(
    ("call", "kind", "text"),
    [
        (
            lambda x: grad(lambda x: x**2)(x),
            RuntimeError,
            "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
            "with 1 dims. Maybe you wanted to use the vjp or jacrev APIs instead?",
        ),
        (
            lambda x: grad(lambda x: x.sum(), argnums=1)(x),
            RuntimeError,
            "Got argnum=1, but only 1 positional inputs",
        ),
        (
            lambda x: grad(lambda x: x.sum(), argnums=())(x),
            RuntimeError,
            "argnums must be non-empty",
        ),
        (
            lambda x: grad(lambda x: x.sum(), argnums=1.5)(x),
            RuntimeError,
            "argnums must be int or Tuple[int, ...], got: <class 'float'>",
        ),
        (
            lambda x: grad(lambda x: x.sum())(3.0),
            ValueError,
            "Thing passed to transform API must be Tensor, got <class 'float'>",
        ),
        (
            lambda x: vmap(lambda a, b: a + b)(x, engine.ones(4)),
            ValueError,
            "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
            "[3, 4] for the mapped dimension",
        ),
        (
            lambda x: vmap(lambda a: a, in_dims=1)(x),
            ValueError,
            "vmap(<lambda>, in_dims=1, ...)(<inputs>): Got in_dim=1 for some input, but that "
            "input is a Tensor of dimensionality 1 so expected in_dim to satisfy -1 <= in_dim < 1.",
        ),
        (
            lambda x: vmap(lambda a: 1)(x),
            ValueError,
            "vmap(<lambda>, ...): `<lambda>` must only return Tensors, got type <class 'int'>. "
            "Did you mean to set out_dims= to None for output?",
        ),
        (
            lambda x: vmap(lambda a: a + engine.rand(()))(x),
            RuntimeError,
            "vmap: called random operation while in randomness error mode. Please either use the "
            "'same' or 'different' randomness flags on vmap or perform the randomness operation "
            "out of vmap",
        ),
        (
            lambda x: jvp(lambda x: x.sin(), x, x),
            RuntimeError,
            "jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid "
            "to call f(*primals).",
        ),
    ],
)
def test_errors(call: Callable[[Any], Any], kind: type, text: str) -> None:
    with pytest.raises(kind) as info:
        call(_x())
    assert str(info.value) == text


def test_vjp_and_jvp_against_the_backward() -> None:
    x = _x()
    v = engine.tensor([1.0, 2.0, -0.5], dtype=F64)

    def f(x: Any) -> Any:
        return engine.stack([x.sin().sum(), (x * x).prod(), x.exp()[0]])

    out, vjp_fn = vjp(f, x)
    u = engine.tensor([0.3, -1.0, 2.0], dtype=F64)
    (pulled,) = vjp_fn(u)
    leaf = x.clone().requires_grad_()
    (expected,) = engine.autograd.grad(f(leaf), leaf, u)
    assert np.allclose(pulled.numpy(), expected.numpy()) and pulled.grad_fn is None
    value, pushed = jvp(f, (x,), (v,))
    jac = engine.autograd.functional.jacobian(f, x)
    assert np.allclose(pushed.numpy(), jac.numpy() @ v.numpy())
    assert np.allclose(value.numpy(), out.numpy()) and pushed.grad_fn is None
    hv = jvp(grad(lambda x: x.sin().sum()), (x,), (v,))[1]
    assert np.allclose(hv.numpy(), -np.sin(x.numpy()) * v.numpy())


def test_jacobians_and_hessian() -> None:
    x = _x()
    jr = jacrev(lambda x: x.sin())(x)
    jf = jacfwd(lambda x: x.sin())(x)
    assert np.allclose(jr.numpy(), np.diag(np.cos(x.numpy())))
    assert np.allclose(jf.numpy(), jr.numpy())
    w = engine.ones(2, 3, dtype=F64)
    ja, jb = jacrev(lambda a, b: a @ b, argnums=(0, 1))(w, x)
    assert tuple(ja.shape) == (2, 2, 3) and tuple(jb.shape) == (2, 3)
    h = hessian(lambda x: (x**3).sum())(x)
    assert np.allclose(h.numpy(), np.diag(6 * x.numpy()))
    assert jacrev(lambda x: x.sin())(x.clone().requires_grad_()).grad_fn.name() == "ViewBackward0"


def test_vmap_dims_and_nesting() -> None:
    a = engine.arange(24, dtype=F64).reshape(2, 3, 4)
    assert tuple(vmap(lambda x: x.sum(0), in_dims=1)(a).shape) == (3, 4)
    assert tuple(vmap(lambda x: x * 2, in_dims=-1)(a[0]).shape) == (4, 3)
    assert tuple(vmap(lambda x: x, out_dims=1)(a).shape) == (3, 2, 4)
    b = engine.ones(3, 4, dtype=F64)
    mm = vmap(vmap(lambda x, y: x @ y), in_dims=(0, None))(a, b)
    assert np.allclose(mm.numpy(), (a.numpy() * b.numpy()).sum(-1))
    d = vmap(lambda d: d["a"] + d["b"], in_dims=({"a": 0, "b": 1},))(
        {"a": a[:, 0], "b": a[:, 1].t()}
    )
    assert np.allclose(d.numpy(), a[:, 0].numpy() + a[:, 1].numpy())
    first, total = vmap(lambda x: (x, x.sum()), out_dims=(1, 0))(a[0])
    assert tuple(first.shape) == (4, 3) and tuple(total.shape) == (3,)
    assert vmap(lambda x: (x, 1), out_dims=(0, None))(a[0])[1] == 1
    assert tuple(vmap(lambda x: x, chunk_size=1)(a).shape) == (2, 3, 4)
    assert tuple(vmap(lambda x: x.sum())(engine.ones(0, 3)).shape) == (0,)
    per_sample = vmap(grad(lambda x: (x**2).sum()))(a)
    assert np.allclose(per_sample.numpy(), 2 * a.numpy()) and not per_sample.requires_grad


def test_vmap_randomness_modes() -> None:
    engine.manual_seed(0)
    same = vmap(lambda x: x + engine.rand(2), randomness="same")(engine.zeros(3, 2))
    assert np.allclose(same.numpy(), same.numpy()[:1])
    different = vmap(lambda x: x + engine.rand(2), randomness="different")(engine.zeros(3, 2))
    assert not np.allclose(different.numpy(), different.numpy()[:1])
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        vmap(lambda x: x, randomness="maybe")


def test_functional_call_and_stacked_state() -> None:
    model = engine.nn.Linear(3, 2)
    x = engine.ones(3)
    out = functional_call(model, {"weight": engine.ones(2, 3), "bias": engine.zeros(2)}, (x,))
    assert out.tolist() == [3.0, 3.0]
    assert isinstance(model.weight, engine.nn.Parameter)  # put back afterwards
    out = functional_call(model, ({"weight": engine.ones(2, 3)}, {"bias": engine.ones(2)}), x)
    assert out.tolist() == [4.0, 4.0]
    with pytest.raises(RuntimeError) as info:
        functional_call(
            model, {"weight": engine.ones(2, 3), "foo": engine.zeros(2)}, x, strict=True
        )
    assert str(info.value) == (
        "Error(s) in reparametrizing for Linear:\n\tUnexpected key(s): 'foo'.\n"
        "\tMissing key(s): 'bias'."
    )
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        functional_call(model, ({"weight": x}, {"weight": x}), x)
    models = [engine.nn.Linear(3, 2) for _ in range(4)]
    params, buffers = stack_module_state(models)
    assert tuple(params["weight"].shape) == (4, 2, 3) and params["weight"].is_leaf
    assert params["weight"].requires_grad and buffers == {}
    outs = vmap(lambda p, b, x: functional_call(models[0], (p, b), (x,)), in_dims=(0, 0, None))(
        params, buffers, x
    )
    for i, m in enumerate(models):
        assert np.allclose(outs[i].detach().numpy(), m(x).detach().numpy())


PROBES = r"""
x = torch.tensor([0.5, -1.0, 2.0])
xr = x.clone().requires_grad_()
def show(v):
    print(repr(v).split(" object at")[0])
def attempt(f):
    try:
        show(f())
    except Exception as e:
        print(type(e).__name__, str(e))
show(func.grad(lambda x: (x ** 2).sum())(x))
show(func.grad(lambda x: (x ** 3).sum())(xr))
show(func.grad_and_value(lambda x: x.exp().sum())(x))
show(func.vjp(lambda x: x.sin(), x)[1](torch.ones(3)))
show(func.jvp(lambda x: x * x, (x,), (torch.ones(3),)))
show(func.jacrev(lambda x: x.sin())(x))
show(func.jacfwd(lambda x: x.sin(), randomness="same")(x))
show(func.hessian(lambda x: (x ** 3).sum())(x))
show(func.vmap(lambda x, y: x * y, in_dims=(0, None))(torch.ones(2, 3), x))
show(func.vmap(torch.dot)(torch.ones(2, 3), torch.ones(2, 3)))
attempt(lambda: func.grad(lambda x: x.sum(), has_aux=True)(x))
attempt(lambda: func.grad(lambda x: 3.0)(x))
attempt(lambda: func.grad(lambda x: x.sum())(torch.arange(3)))
attempt(lambda: func.vmap(lambda x, y: x + y, in_dims=(0,))(x, x))
attempt(lambda: func.vmap(lambda x: x, in_dims=None)(x))
attempt(lambda: func.vmap(lambda x: x, out_dims=(0, 1))(x))
attempt(lambda: func.vmap(lambda x: x)(5))
attempt(lambda: func.vmap(lambda x: x)())
attempt(lambda: func.vmap(lambda x: x, chunk_size=0))
attempt(lambda: func.vjp(lambda x: x.sin(), x)[1](torch.ones(2)))
attempt(lambda: func.jvp(lambda x: x.sin(), (x,), (torch.ones(2),)))
attempt(lambda: func.jacrev(lambda x: x, chunk_size=0))
attempt(lambda: func.stack_module_state([]))
attempt(lambda: func.jacrev(lambda x: x, has_aux=True)(x))
attempt(lambda: func.jacfwd(lambda x: x, has_aux=True)(x))
attempt(lambda: func.jacrev(lambda x: 3)(x))
attempt(lambda: func.jacfwd(lambda x: x * torch.rand(3))(x))
attempt(lambda: func.jacfwd(lambda x: x, randomness="x")(x))
attempt(lambda: func.jacfwd(lambda x: x)(torch.arange(3)))
attempt(lambda: func.jacrev(lambda x: (x * 2, x.sum()), has_aux=True)(x))
attempt(lambda: func.jacfwd(lambda x: (x * 2, {"s": x.sum()}), has_aux=True)(x))
attempt(lambda: func.vjp(lambda x: x.long(), x))
attempt(lambda: func.jvp(lambda x: 3, (x,), (x,)))
out, jvp_fn = func.linearize(torch.sin, x)
show(out)
show(jvp_fn(torch.tensor([1.0, 2.0, 3.0])))
attempt(lambda: jvp_fn(torch.ones(2)))
attempt(lambda: jvp_fn(torch.ones(3), torch.ones(3)))
bn = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
func.replace_all_batch_norm_modules_(bn)
print(bn[1].running_mean, bn[1].track_running_stats, bn)
"""


def _run_probes(lib: str) -> str:
    import contextlib
    import io

    buf = io.StringIO()
    module = importlib.import_module(lib)
    func = importlib.import_module(f"{lib}.func")
    with contextlib.redirect_stdout(buf):
        exec(PROBES, {"torch": module, "func": func})
    return buf.getvalue()


@pytest.mark.torch
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::UserWarning")  # PyTorch's linearize traces with fx
def test_probes_print_what_torch_prints() -> None:
    assert _run_probes("engine") == _run_probes("torch")


def test_torch_func_imports_as_a_submodule() -> None:
    from gradstudio.interchange.program_import.torch_alias import alias_torch

    saved = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    try:
        for k in saved:
            del sys.modules[k]
        alias_torch()
        exec(
            "import torch\nimport torch.func\nfrom torch.func import grad, vmap\n"
            "import torch.autograd.forward_ad as fwAD\n"
            "assert torch.func.grad is grad and torch.vmap is vmap\n"
            "assert fwAD.make_dual is torch.autograd.forward_ad.make_dual\n",
            {},
        )
        assert sys.modules["torch.func"] is engine.func
    finally:  # the alias and its finder go: later tests must see the real torch (or none)
        sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != "_Alias"]
        for k in [k for k in sys.modules if k == "torch" or k.startswith("torch.")]:
            del sys.modules[k]
        sys.modules.update(saved)
