"""The bundled examples: one per seed snippet, plus a small MLP training step.

Each example is written as the PyTorch code a learner would type and turned into a
document by the importer, so the examples also exercise the import path.  Run
``python -m gradstudio.interchange.examples`` to regenerate ``resources/examples/*.gstudio``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from gradstudio.document.model import Document
from gradstudio.interchange.fileformat import EXTENSION, dumps
from gradstudio.interchange.pytorch_import import import_snippet
from gradstudio.locations import EXAMPLES_DIR


@dataclass(frozen=True)
class ShippedExample:
    name: str
    title: str
    description: str
    code: str


EXAMPLES: tuple[ShippedExample, ...] = (
    ShippedExample(
        "000_is_leaf",
        "is_leaf: which tensors are leaves",
        "The is_leaf cases of the PyTorch docs, on the CPU: where the docs move a tensor "
        "with .cuda(), this example changes its dtype with .to(torch.float64) — the same "
        "kind of copy op (ToCopyBackward0). A tensor made by an operation from a tensor "
        "that requires grad is not a leaf; one that requires no grad is always a leaf.",
        """\
import torch

a = torch.rand(10, requires_grad=True)
b = torch.rand(10, requires_grad=True).to(torch.float64)
c = torch.rand(10, requires_grad=True) + 2
d = torch.rand(10).to(torch.float64)
e = torch.rand(10).to(torch.float64).requires_grad_()
f = torch.rand(10, requires_grad=True, dtype=torch.float64)
""",
    ),
    ShippedExample(
        "001_leaf_grad",
        "Leaves get .grad: w.grad == 5",
        "y = (w + x) * (w + 1). After y.backward() only the leaves w and x have .grad; "
        "a, b and y are non-leaves made by operations (AddBackward0, MulBackward0).",
        """\
import torch

w = torch.tensor([1.], requires_grad=True)
x = torch.tensor([2.], requires_grad=True)
a = torch.add(w, x)
b = torch.add(w, 1)
y = torch.mul(a, b)
y.backward()
""",
    ),
    ShippedExample(
        "002_detach_data_clone",
        "detach, .data and clone",
        "b.data and b.detach() share b's storage: zeroing b_detach zeroes b too (watch "
        "_version), yet the first backward still gives a.grad == 2 — MulBackward0 did not "
        "save b. Zeroing b itself in place rebases its history (ZeroBackward0), so after "
        "a.grad.zero_() the second backward gives a.grad == 0. clone() is a copy that keeps "
        "its own CloneBackward0 and b's old value.",
        """\
import torch

a = torch.tensor(1, requires_grad=True, dtype=torch.float32)
b = a * 2
b_data = b.data
b_detach = b.detach()
b_clone = b.clone()
b_detach.zero_()
b.backward(retain_graph=True)
b.zero_()
a.grad.zero_()
b.backward()
""",
    ),
    ShippedExample(
        "003_linear_addmm",
        "grad_fn of linear: AddmmBackward0",
        "F.linear with a bias on a 2-D input is one fused op: its grad_fn is AddmmBackward0, "
        "whose next functions reach the bias, the input and the transposed weight (TBackward0).",
        """\
import torch
import torch.nn.functional as F

x = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
weight = torch.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], requires_grad=True)
bias = torch.tensor([0.5, -0.5], requires_grad=True)
out = F.linear(x, weight, bias)
loss = out.sum()
loss.backward()
""",
    ),
    ShippedExample(
        "004_custom_function",
        "A custom autograd.Function with save_for_backward",
        "Func saves x, y and its output for backward and stores the plain number z on ctx. "
        "Its grad_fn is FuncBackward; a.grad == 10 and b.grad == 9. The code runs only "
        "once you trust this document.",
        """\
import torch
from torch.autograd import Function


class Func(Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, y: torch.Tensor, z: int):
        w = x * y * z
        out = x * y + y * z + w
        ctx.save_for_backward(x, y, out)
        ctx.z = z  # z is not a tensor
        ctx.w = w  # w is neither input nor output
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x, y, out = ctx.saved_tensors
        z = ctx.z
        gx = grad_out * (y + y * z)
        gy = grad_out * (x + z + x * z)
        gz = None
        return gx, gy, gz


a = torch.tensor(1., requires_grad=True, dtype=torch.double)
b = torch.tensor(2., requires_grad=True, dtype=torch.double)
c = 4
d = Func.apply(a, b, c)
d.backward()
""",
    ),
    ShippedExample(
        "005_mlp_training_step",
        "One training step of a small MLP",
        "A 2-layer perceptron on a batch of four points: forward, cross-entropy loss, "
        "backward, then a plain SGD update inside torch.no_grad() and zeroing the grads.",
        """\
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.tensor([[0., 0.], [0., 1.], [1., 0.], [1., 1.]])
target = torch.tensor([0, 1, 1, 0])
w1 = torch.tensor([[0.5, -0.4], [0.3, 0.8], [-0.6, 0.2]], requires_grad=True)
b1 = torch.tensor([0.1, -0.1, 0.05], requires_grad=True)
w2 = torch.tensor([[0.7, -0.5, 0.2], [-0.3, 0.6, 0.4]], requires_grad=True)
b2 = torch.tensor([0.0, 0.1], requires_grad=True)
h = F.relu(F.linear(x, w1, b1))
logits = F.linear(h, w2, b2)
loss = F.cross_entropy(logits, target)
loss.backward()
with torch.no_grad():
    w1 -= 0.1 * w1.grad
    b1 -= 0.1 * b1.grad
    w2 -= 0.1 * w2.grad
    b2 -= 0.1 * b2.grad
w1.grad = None
b1.grad = None
w2.grad = None
b2.grad = None
""",
    ),
    ShippedExample(
        "006_clone_accumulates",
        "Gradients accumulate: 2 then 4",
        "b and its clone both lead back to a, so two backward calls add their gradients "
        "into a.grad: after the first it is 2, after the second 4.",
        """\
import torch

a = torch.tensor(1, requires_grad=True, dtype=torch.float32)
b = a * 2
b_clone = b.clone()
b.backward(retain_graph=True)
b_clone.backward()
""",
    ),
)


def build(example: ShippedExample) -> Document:
    doc = import_snippet(example.code, f"<example {example.name}>", trusted=True)
    doc.set_meta("title", example.title)
    doc.set_meta("description", example.description)
    return doc


def main(argv: list[str] | None = None) -> int:
    """Regenerate the example files (``--check`` only reports stale ones)."""
    check = "--check" in (argv or sys.argv[1:])
    stale = []
    EXAMPLES_DIR.mkdir(parents=True, exist_ok=True)
    for example in EXAMPLES:
        path = EXAMPLES_DIR / f"{example.name}{EXTENSION}"
        text = dumps(build(example))
        if not path.exists() or path.read_text("utf-8") != text:
            stale.append(path.name)
            if not check:
                path.write_text(text, "utf-8")
    print(("stale: " if check else "written: ") + (", ".join(stale) or "none"))
    return 1 if check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
