"""Graphs whose backward execution is compared node by node with PyTorch.

Each program builds a graph with ``torch`` bound to PyTorch or the engine and returns
``(roots, kind, inputs)``: ``kind`` is ``"backward"`` or ``"grad"`` (``autograd.grad``
with respect to ``inputs``).  ``record`` registers a pre-hook on every node reachable
from the roots and returns, in execution order, each node's name and the shapes and
values of the gradients it received.  A program may append its own entries to ``log``
(a post-accumulate-grad hook does, to show when it runs among the nodes).
"""

from __future__ import annotations

from typing import Any

PROGRAMS: dict[str, str] = {
    "chain": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
roots = [((x * 2).exp().sum())]
""",
    "diamond": """
x = torch.tensor([0.5, -1.0], requires_grad=True)
a = x.sin(); b = x.cos()
roots = [(a * b + a).sum()]
""",
    "a_times_a": """
a = torch.tensor([3.0], requires_grad=True)
roots = [(a * a).sum()]
""",
    "a_plus_a": """
a = torch.tensor([3.0, 1.0], requires_grad=True)
roots = [(a + a).sum()]
""",
    "fan_out": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * 2
roots = [(h.exp() + h.sin() + h.tanh()).sum()]
""",
    "several_outputs": """
x = torch.tensor([1.0, -2.0], requires_grad=True)
y1 = (x * 3).sum(); y2 = (x ** 2).sum()
roots = [y1, y2]
""",
    "retain_grad": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * x; h.retain_grad()
roots = [(h * 3).sum()]
""",
    "broadcasting": """
a = torch.ones(3, 1, requires_grad=True)
b = torch.full((1, 4), 2.0, requires_grad=True)
roots = [(a * b + b).sum()]
""",
    "mlp_cross_entropy": """
w1 = torch.tensor([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]], requires_grad=True)
b1 = torch.tensor([0.01, 0.02, -0.03], requires_grad=True)
w2 = torch.tensor([[0.2, -0.1, 0.3], [0.4, 0.5, -0.6]], requires_grad=True)
x = torch.tensor([[1.0, 2.0], [-1.0, 0.5]])
h = torch.nn.functional.relu(torch.nn.functional.linear(x, w1, b1))
logits = torch.nn.functional.linear(h, w2)
roots = [torch.nn.functional.cross_entropy(logits, torch.tensor([0, 1]))]
""",
    "inplace_on_view": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 1
y[1:].mul_(5)
roots = [(y * y).sum()]
""",
    "hook_changes_gradient": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 3
h.register_hook(lambda g: g * 10)
roots = [(h * h).sum()]
""",
    "grad_unused_branch": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([0.5, 1.0], requires_grad=True)
roots = [(x * 3 + w.cos()).sum()]
kind = "grad"; inputs = [x]
""",
    "backward_inputs": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([0.5, 1.0], requires_grad=True)
roots = [(x * w + w.exp()).sum()]
kind = "backward"; inputs = [w]
""",
    "custom_function": """
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return 2 * t * g

x = torch.tensor([1.5, -2.0], requires_grad=True)
roots = [(Square.apply(x) * 2).sum()]
""",
    "double_backward": """
x = torch.tensor([1.5, -0.5], requires_grad=True)
(g,) = torch.autograd.grad((x ** 3).sum(), [x], create_graph=True)
roots = [(g * x).sum()]
""",
    "addmm_bias": """
w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
b = torch.tensor([0.1, -0.2], requires_grad=True)
x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5], [2.0, 1.0]])
roots = [torch.nn.functional.linear(x, w, b).tanh().sum()]
""",
    "double_backward_mul": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, -1.0], requires_grad=True)
(g,) = torch.autograd.grad((x * w * x).sum(), [x], create_graph=True)
roots = [(g * g).sum()]
""",
    "accumulate_grad_hook": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.grad_fn.next_functions[0][0].register_prehook(lambda gs: (gs[0] * 3,))
roots = [(y * y).sum()]
""",
    "grad_outputs_vector": """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([2.0], requires_grad=True)
roots = [(x * w).sum() + (x.exp() * 0).sum()]
kind = "grad"; inputs = [x, w]
""",
    "post_accumulate_grad_hook": """
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([0.5, -1.0], requires_grad=True)
def step(p):
    log.append(["post_accumulate", [[list(p.grad.shape), p.grad.tolist()]]])
    p.add_(p.grad, alpha=-0.1)
x.register_post_accumulate_grad_hook(step)
w.register_post_accumulate_grad_hook(step)
roots = [(x * w).sum() + (x.exp() * w).sum()]
""",
    "view_and_expand": """
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
v = x.t().reshape(4).unsqueeze(0).expand(3, 4)
roots = [(v * torch.arange(12.0).reshape(3, 4)).sum()]
""",
}


def _reachable(roots: list[Any]) -> list[Any]:
    seen: list[Any] = []
    stack = [r.grad_fn for r in roots if r.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or any(node is s for s in seen):
            continue
        seen.append(node)
        stack.extend(n for n, _ in node.next_functions)
    return seen


def record(torch: Any, source: str) -> list[list[Any]]:
    """Run a program's backward; each executed node's name and incoming gradients."""
    log: list[list[Any]] = []
    scope: dict[str, Any] = {"torch": torch, "kind": "backward", "inputs": None, "log": log}
    exec(source, scope)
    roots = scope["roots"]

    def pre(node: Any) -> Any:
        def hook(grads: tuple[Any, ...]) -> None:
            name = node.name().rsplit("::", 1)[-1]
            log.append(
                [name, [None if g is None else [list(g.shape), g.detach().tolist()] for g in grads]]
            )

        return hook

    for node in _reachable(roots):
        node.register_prehook(pre(node))
    if scope["kind"] == "grad":
        torch.autograd.grad(roots, scope["inputs"])
    else:
        torch.autograd.backward(roots, inputs=scope["inputs"])
    return log
