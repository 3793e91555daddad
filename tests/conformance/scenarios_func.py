"""Conformance scenarios for function transforms (``torch.func``) and forward-mode AD
(``torch.autograd.forward_ad``): values, shapes, dtypes, flags and error messages."""

from __future__ import annotations

from tests.conformance.scenarios import _add

_X = """
from torch.func import grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian, vmap
x = torch.tensor([0.5, -1.0, 2.0])
"""

_add(
    "func_grad_plain_and_requiring",
    _X
    + """
g = grad(lambda x: (x ** 3).sum())(x)
xr = x.clone().requires_grad_()
gr = grad(lambda x: (x ** 3).sum())(xr)
gr.sum().backward()
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
gw = grad(lambda x: (x * w).sum())(x)
gv, v = grad_and_value(lambda x: x.exp().sum())(x)
ga, aux = grad(lambda x: ((x ** 2).sum(), x * 2), has_aux=True)(x)
""",
    # the engine differentiates a grad-requiring input through a view of it (one more node)
    ignore_graph=("gr",),
)

_add(
    "func_grad_argnums_and_pytrees",
    _X
    + """
gx, gy = grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(x, x * 2)
gd = grad(lambda d: (d["a"] * d["b"]).sum())({"a": x, "b": x + 1})
ga = gd["a"]
gneg = grad(lambda a, b: (a * b).sum(), argnums=-1)(x, x * 3)
gg = grad(grad(lambda t: t.sin() * t))(torch.tensor(0.7))
""",
)

_add(
    "func_grad_non_scalar_error",
    _X + "g = grad(lambda x: x ** 2)(x)\n",
)

_add(
    "func_grad_bad_argnum_error",
    _X + "g = grad(lambda x: x.sum(), argnums=1)(x)\n",
)

_add(
    "func_grad_int_input_error",
    _X + "g = grad(lambda x: x.sum())(torch.arange(3))\n",
)

_add(
    "func_vjp_jvp",
    _X
    + """
out, vjp_fn = vjp(lambda x: x.sin() * 2, x)
(pulled,) = vjp_fn(torch.tensor([1.0, 0.5, -1.0]))
value, pushed = jvp(lambda x: x.exp() * x, (x,), (torch.tensor([1.0, 2.0, 3.0]),))
hv = jvp(grad(lambda x: x.sin().sum()), (x,), (torch.ones(3),))[1]
out2, vjp2, aux = vjp(lambda x: (x * 3, x.sum()), x, has_aux=True)
""",
)

_add(
    "func_jvp_primals_not_tuple_error",
    _X + "r = jvp(lambda x: x.sin(), x, x)\n",
)

_add(
    "func_jacobians_hessian",
    _X
    + """
jr = jacrev(lambda x: x.sin())(x)
jf = jacfwd(lambda x: x.sin())(x)
w = torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 0.0]])
jw, jx = jacrev(lambda w, x: (w @ x).tanh(), argnums=(0, 1))(w, x)
h = hessian(lambda x: (x ** 3).sum() + x.prod())(x)
xr = x.clone().requires_grad_()
jrr = jacrev(lambda x: x.sin())(xr)
""",
    # PyTorch's rows come from one batched vjp (split), the engine's from a vjp per row (stack)
    ignore_graph=("jrr",),
)

_add(
    "func_vmap_in_out_dims",
    _X
    + """
a = torch.arange(24.0).reshape(2, 3, 4)
s1 = vmap(lambda t: t.sum(0), in_dims=1)(a)
s2 = vmap(lambda t: t * 2, in_dims=-1)(a[0])
s3 = vmap(lambda t: t, out_dims=1)(a)
s4 = vmap(lambda t, y: t * y, in_dims=(0, None))(a[0], torch.ones(4))
s5 = vmap(vmap(lambda t, y: t @ y), in_dims=(0, None))(a, torch.ones(3, 4))
s6 = vmap(lambda d: d["p"] + d["q"], in_dims=({"p": 0, "q": 1},))({"p": a[0], "q": a[1].t()})
s7, s8 = vmap(lambda t: (t, t.sum()), out_dims=(1, 0))(a[0])
s9 = vmap(lambda t: t.sum())(torch.ones(0, 3))
s10 = vmap(grad(lambda t: (t ** 2).sum()))(a[0])
s11 = vmap(torch.dot)(a[0], a[1])
""",
)

_add(
    "func_vmap_size_mismatch_error",
    _X + "r = vmap(lambda a, b: a + b)(x, torch.ones(4))\n",
)

_add(
    "func_vmap_in_dims_structure_error",
    _X + "r = vmap(lambda a, b: a + b, in_dims=(0,))(x, x)\n",
)

_add(
    "func_vmap_in_dim_range_error",
    _X + "r = vmap(lambda a: a, in_dims=1)(x)\n",
)

_add(
    "func_vmap_non_tensor_output_error",
    _X + "r = vmap(lambda a: 1)(x)\n",
)

_add(
    "func_vmap_randomness_error",
    _X + "r = vmap(lambda a: a + torch.rand(()))(x)\n",
)

_add(
    "func_functional_call_and_stacked_state",
    """
from torch.func import functional_call, stack_module_state, vmap
lin = torch.nn.Linear(3, 2)
x = torch.tensor([1.0, -1.0, 2.0])
y = functional_call(lin, {"weight": torch.ones(2, 3), "bias": torch.zeros(2)}, (x,))
y2 = functional_call(lin, ({"weight": torch.ones(2, 3) * 2}, {"bias": torch.ones(2)}), x)
models = [torch.nn.Linear(3, 2) for _ in range(3)]
with torch.no_grad():
    for i, m in enumerate(models):
        m.weight.fill_(i)
        m.bias.fill_(-i)
params, buffers = stack_module_state(models)
pw = params["weight"]
outs = vmap(lambda p, b, t: functional_call(models[0], (p, b), (t,)), in_dims=(0, 0, None))(
    params, buffers, x
)
""",
    # vmap runs the function per slice and stacks: the values are PyTorch's, the graph is not
    ignore_graph=("outs",),
)

_add(
    "func_functional_call_strict_error",
    """
from torch.func import functional_call
lin = torch.nn.Linear(3, 2)
y = functional_call(lin, {"weight": torch.ones(2, 3), "foo": torch.zeros(2)}, torch.ones(3),
                    strict=True)
""",
)

_FW = """
import torch.autograd.forward_ad as fwAD
x = torch.tensor([0.5, -1.0, 2.0])
v = torch.tensor([1.0, 2.0, -0.5])
"""

_add(
    "fwad_tangents_through_ops",
    _FW
    + """
with fwAD.dual_level():
    d = fwAD.make_dual(x, v)
    shown = repr(d)
    t_sin = fwAD.unpack_dual(d.sin()).tangent
    # (values only: PyTorch's tangents of these are written in place, at version 1)
    t_mm = fwAD.unpack_dual(torch.nn.functional.linear(d, torch.ones(2, 3))).tangent.tolist()
    t_soft = fwAD.unpack_dual(torch.softmax(d, 0)).tangent
    t_mse = fwAD.unpack_dual(torch.nn.functional.mse_loss(d, torch.zeros(3))).tangent.tolist()
    t_view = fwAD.unpack_dual(d.view(3, 1).t()).tangent
    c = d.clone()
    c.mul_(3)
    t_inplace = fwAD.unpack_dual(c).tangent.tolist()
    p, t = fwAD.unpack_dual(d.tanh().sum())
    none_int = [fwAD.unpack_dual(d.argmax()).tangent is None]
    none_detached = [fwAD.unpack_dual(d.detach()).tangent is None]
after = [fwAD.unpack_dual(d).tangent is None]
""",
)

_add(
    "fwad_make_dual_outside_level_error",
    _FW + "d = fwAD.make_dual(x, v)\n",
)

_add(
    "fwad_make_dual_size_error",
    _FW + "with fwAD.dual_level():\n    d = fwAD.make_dual(x, torch.ones(2))\n",
)

_add(
    "fwad_nested_level_error",
    _FW + "with fwAD.dual_level():\n    fwAD.enter_dual_level()\n",
)

_add(
    "fwad_custom_function_jvp",
    _FW
    + """
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_forward(t)
        return t.exp()

    @staticmethod
    def jvp(ctx, tangent):
        (t,) = ctx.saved_tensors
        return tangent * t.exp()


class Mul(torch.autograd.Function):
    @staticmethod
    def forward(a, b):
        return a * b

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_forward(*inputs)

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = ctx.saved_tensors
        return ta * b + a * tb


with fwAD.dual_level():
    d = fwAD.make_dual(x, v)
    te = fwAD.unpack_dual(Exp.apply(d)).tangent
    tm = fwAD.unpack_dual(Mul.apply(d, x)).tangent
""",
)

_add(
    "fwad_custom_function_without_jvp_error",
    _FW
    + """
class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


with fwAD.dual_level():
    y = Twice.apply(fwAD.make_dual(x, v))
""",
)

_add(
    "fwad_functional_jacobian_forward_mode",
    _FW
    + """
j = torch.autograd.functional.jacobian(lambda t: t.sin() * 2, x, strategy="forward-mode",
                                       vectorize=True)
""",
)

_add(
    "fwad_inplace_through_views",
    _FW
    + """
with fwAD.dual_level():
    d = fwAD.make_dual(x.clone(), v)
    d2 = d.clone()
    d2[0] = 5.0
    t2 = fwAD.unpack_dual(d2).tangent.tolist()
    d3 = d.clone()
    d3[1:].mul_(2)
    t3 = fwAD.unpack_dual(d3).tangent.tolist()
    d4 = d.clone()
    d4[torch.tensor([0, 2])] = torch.zeros(2)
    t4 = fwAD.unpack_dual(d4).tangent.tolist()
    m = torch.zeros(2, 3)
    m[0] = d
    m[1] = d * 2
    tm = fwAD.unpack_dual(m).tangent.tolist()
    z = torch.zeros(3)
    z += d
    tz = fwAD.unpack_dual(z).tangent.tolist()
""",
)

_FUNCTIONS = """
from torch.func import grad, vmap, jacrev, jacfwd, jvp
x = torch.tensor([1.0, 2.0])


class Old(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t ** 2

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return 2 * t * g


class New(torch.autograd.Function):
    @staticmethod
    def forward(t):
        return t ** 2

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return 2 * t * g


class Batched(New):
    generate_vmap_rule = True
"""

_add(
    "func_custom_function_setup_context_style",
    _FUNCTIONS
    + """
g = grad(lambda t: New.apply(t).sum())(x)
j = jacrev(New.apply)(x)
per = vmap(grad(lambda t: Batched.apply(t)))(x)
b = vmap(Batched.apply)(x)
plain = Old.apply(x)
""",
)

_add(
    "func_custom_function_old_style_error",
    _FUNCTIONS + "g = grad(lambda t: Old.apply(t).sum())(x)\n",
)

_add(
    "func_custom_function_no_vmap_rule_error",
    _FUNCTIONS + "b = vmap(New.apply)(x)\n",
)

_add(
    "func_custom_function_no_jvp_error",
    _FUNCTIONS + "r = jvp(New.apply, (x,), (x,))\n",
)

_add(
    "func_vmap_randomness_modes",
    """
from torch.func import vmap
torch.manual_seed(0)
dropped = vmap(lambda t: F.dropout(t, 0.5), randomness="different")(torch.ones(3, 4))
different = vmap(lambda t: t + torch.rand(4), randomness="different")(torch.zeros(3, 4))
same = vmap(lambda t: t + torch.rand(4), randomness="same")(torch.zeros(3, 4))
after = torch.rand(2)
""",
)
