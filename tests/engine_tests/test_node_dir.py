"""``dir(grad_fn)`` as a learner filters it for ``_saved``: each name the engine lists is
one PyTorch's node lists, and reads back as PyTorch's does (a tensor of the same shape, or
the same number, tuple, bool or None); none of the engine's own records (``_saved``,
``_fns``, the formula's ``math``/``params``/``saved``) shows.  PyTorch's answers are written out in
``golden/saved_attributes.json`` (made by running these lines under PyTorch 2.13), so the
test holds without it; the oracle test checks them against PyTorch.  Which names PyTorch's
classes have comes from ``engine/autograd/saved_attributes.py``
(``tools/gen_saved_attributes.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import engine

GOLDEN = Path(__file__).parent / "golden" / "saved_attributes.json"
EXPRESSIONS = [
    "x.sum(0)",
    "x.sum(1,keepdim=True)",
    "x.mean()",
    "x.mean(0)",
    "x.max(1)[0]",
    "x.min(0)[0]",
    "x.amax(1)",
    "x.view(6)",
    "x.reshape(3,2)",
    "x.expand(2,2,3)",
    "x.permute(1,0)",
    "x.transpose(0,1)",
    "x[1]",
    "x[:,1:]",
    "torch.cat([x,w])",
    "torch.stack([x,x])",
    "x.unsqueeze(0)",
    "x.squeeze()",
    "x.clamp(0,1)",
    "x.clamp(min=0)",
    "x.pow(3)",
    "torch.pow(2,x)",
    "x.add(w,alpha=2)",
    "x.sub(w)",
    "x.softmax(1)",
    "F.log_softmax(x,0)",
    "F.leaky_relu(x,0.1)",
    "F.elu(x)",
    "F.hardtanh(x)",
    "F.gelu(x)",
    "F.mse_loss(x,w,reduction='sum')",
    "F.l1_loss(x,w)",
    "F.binary_cross_entropy(x.sigmoid(),w.clamp(0,1))",
    "F.nll_loss(x,torch.tensor([0,2]))",
    "F.conv2d(img,kern,padding=1)",
    "F.max_pool2d(img,2)",
    "F.avg_pool2d(img,2)",
    "F.embedding(torch.tensor([1,0]),x)",
    "F.layer_norm(x,(3,))",
    "x.gather(1,torch.tensor([[0],[2]]))",
    "torch.where(x>0,x,w)",
    "x.repeat(2,1)",
    "x.flip(0)",
    "x.roll(1,1)",
    "x.cumsum(1)",
    "x.prod()",
    "x.norm()",
    "x.std()",
    "x.var(1)",
    "x.topk(2)[0]",
    "x.sort(1)[0]",
    "x@w.t()",
    "torch.bmm(x.unsqueeze(0),w.t().unsqueeze(0))",
    "x.abs()",
    "x.exp()",
    "x.sigmoid()",
    "x.tanh()",
    "F.silu(x)",
    "F.softplus(x)",
    "x.div(w)",
    "x/2",
    "x.masked_fill(x>0,0.)",
    "x.index_select(1,torch.tensor([0,2]))",
    "x.narrow(1,0,2)",
    "x.split(1,1)[0]",
    "x.chunk(3,1)[1]",
    "x.t()",
    "x.flatten()",
    "x.unflatten(1,(3,1))",
    "x.logsumexp(1)",
    "x.sum(dim=(0,1))",
    "F.dropout(x,0.0)",
    "F.cross_entropy(x,torch.tensor([0,2]),label_smoothing=0.1)",
]
#: Tensors PyTorch saves that every listing must show, for the most common nodes.
REQUIRED = {
    "x.exp()": {"result"},
    "x.pow(3)": {"self"},
    "x.div(w)": {"self", "other"},
    "x/2": {"self", "other"},
    "x@w.t()": {"self", "mat2", "self_sym_sizes", "mat2_sym_sizes"},
    "F.log_softmax(x,0)": {"result"},
    "F.nll_loss(x,torch.tensor([0,2]))": {"self", "target", "weight", "reduction"},
    "x.sum(0)": {"self_sym_sizes", "keepdim"},
    "x.max(1)[0]": {"indices", "self_sym_sizes", "keepdim"},
}


def _answers(T: Any, expr: str) -> tuple[str, dict[str, Any]]:
    """The node's class name and each ``_saved_*`` it lists, as plain JSON values."""
    T.manual_seed(0)
    x = T.tensor([[1.5, -2.5, 3.5], [0.5, 1.0, -2.0]], requires_grad=True)
    w = T.tensor([[0.5, 1.0, 2.0], [1.5, -1.0, 0.25]])
    img = T.arange(32.0).reshape(1, 2, 4, 4).requires_grad_()
    kern = T.ones(3, 2, 2, 2) / 8
    scope = {"torch": T, "F": T.nn.functional, "x": x, "w": w, "img": img, "kern": kern}
    fn = eval(expr, scope).grad_fn
    saved = {}
    for name in sorted(n for n in dir(fn) if n.startswith("_saved_")):
        v = getattr(fn, name)
        if isinstance(v, T.Tensor):
            v = f"T{tuple(v.shape)}"
        saved[name[len("_saved_") :]] = json.loads(json.dumps(v))
    return type(fn).__name__, saved


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_each_listed_saved_value_is_pytorchs(expr: str, golden: dict[str, Any]) -> None:
    name, saved = _answers(engine, expr)
    assert name == golden[expr]["grad_fn"]
    expected = golden[expr]["saved"]
    assert {n: expected.get(n, "<not PyTorch's>") for n in saved} == saved
    assert REQUIRED.get(expr, set()) <= set(saved)


@pytest.mark.parametrize("expr", ["x.div(w)", "x.exp()", "x.sum(0)", "x@w.t()"])
def test_the_engines_own_records_stay_out_of_dir(expr: str) -> None:
    x = engine.tensor([[1.5, -2.5, 3.5], [0.5, 1.0, -2.0]], requires_grad=True)
    w = engine.tensor([[0.5, 1.0, 2.0], [1.5, -1.0, 0.25]])
    fn = eval(expr, {"x": x, "w": w}).grad_fn
    for node in (fn, *(f for f, _ in fn.next_functions if f is not None)):
        private = [
            n for n in dir(node) if n.startswith("_") and not n.startswith(("__", "_saved_"))
        ]
        assert private == []
        assert not {"math", "params", "saved", "shapes", "apply", "saved_names"} & set(dir(node))
        assert {"name", "next_functions", "register_hook", "metadata"} <= set(dir(node))


def test_an_index_nodes_raw_key_is_not_pytorchs_saved_indices() -> None:
    x = engine.randn(4, requires_grad=True)
    fn = x[engine.tensor([0, 2])].grad_fn
    assert [n for n in dir(fn) if n.startswith("_saved_")] == ["_saved_self_sym_sizes"]
    assert fn._saved_self_sym_sizes == (4,)
    with pytest.raises(AttributeError, match="_saved_key"):
        fn._saved_key


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
@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_the_written_answers_are_pytorchs(expr: str, golden: dict[str, Any]) -> None:
    torch = pytest.importorskip("torch")
    name, saved = _answers(torch, expr)
    assert {"grad_fn": name, "saved": saved} == golden[expr]


@pytest.mark.torch
def test_the_table_of_pytorchs_saved_names_is_current() -> None:
    pytest.importorskip("torch")
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    tool = root / "tools" / "gen_saved_attributes.py"
    assert subprocess.run([sys.executable, str(tool), "--check"], cwd=root).returncode == 0
