"""PyTorch snippets shared by several tests (import, evaluation, round trip, the studio)."""

#: Seed 001: ``y = (w + x) * (w + 1)``; after backward ``w.grad == 5``.
SEED_001 = """\
import torch
w = torch.tensor([1.], requires_grad=True)
x = torch.tensor([2.], requires_grad=True)
a = torch.add(w, x)
b = torch.add(w, 1)
y = torch.mul(a, b)
y.backward()
"""

#: Indexing in every form the index node takes, ``.T``, ``view``, ``rsub`` and ``*_like``.
INDEXING = """\
import torch
x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
a = x.view(4)
b = 2 - a
c = torch.zeros_like(x)
d = x[0]
e = x.T
f = x[:, 1]
g = x[x > 2]          # bool-mask indexing (the mask comes from another node)
h = x[torch.tensor([1, 0])]
s = b.sum() + d.sum() + e.sum() + f.sum() + g.sum() + h.sum()
s.backward()
"""


def marker_snippet(marker: object) -> str:
    """A snippet whose custom Function, when its code runs, creates the file ``marker``:
    the trust tests' proof that code did (or did not) run."""
    return f"""\
import torch
from torch.autograd import Function
class Mark(Function):
    @staticmethod
    def forward(ctx, x):
        open({str(marker)!r}, "w").close()
        return x * 1
    @staticmethod
    def backward(ctx, g):
        return g
x = torch.tensor([1.], requires_grad=True)
y = Mark.apply(x)
"""


#: The numbers JSON cannot write, as parameters (an attention mask's ``-inf``, a clamp's
#: open end, a number standing in for a tensor, a value written at an index) and as data.
NON_FINITE = """\
import torch
import torch.nn.functional as F
x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
m = torch.tensor([[False, True], [False, False]])
s = x.masked_fill(m, float("-inf"))
p = F.softmax(s, dim=1)
c = torch.clamp(x, min=float("-inf"), max=3.0)
z = torch.tensor([1.0, float("inf"), float("nan")])
y = x * 1
y[0, 0] = float("inf")
q = torch.maximum(y, z[:2])
a = torch.add(x, float("-inf"))
t = (p * c).sum()
t.backward()
"""

#: Keyword arguments the catalogue declares once for palette, file, import and export:
#: ``div``'s ``rounding_mode``, ``round``'s ``decimals``, ``std``/``var``'s ``unbiased``
#: and ``correction``.
CATALOGUE_KEYWORDS = """\
import torch
x = torch.tensor([[1.25, -2.5, 3.75], [-4.125, 5.5, -6.875]], requires_grad=True)
f = torch.div(x, 2, rounding_mode="floor")
t = x.div(1.5, rounding_mode="trunc")
r = x.round(decimals=1)
s = x.std(0, unbiased=False)
v = torch.var(x, 1, keepdim=True, correction=0)
u = x.std(unbiased=True)
w = x.var(dim=1)
total = f.sum() + t.sum() + r.sum() + s.sum() + v.sum() + u + w.sum()
total.backward()
"""

#: The 8-bit integer dtypes: literals, creation, conversion, wrap-around, promotion.
SMALL_INTS = """\
import torch
a = torch.tensor([7, 250], dtype=torch.uint8)
b = torch.tensor([-3, 100], dtype=torch.int8)
c = a + 10
d = b * 2
e = a.to(torch.int8)
f = torch.zeros(2, dtype=torch.uint8)
g = a + b
h = torch.ones(2, dtype=torch.int8).to(torch.float32)
"""

#: ``adaptive_avg_pool2d``'s output size: one int, a pair, None keeping the input's size.
ADAPTIVE_SIZES = """\
import torch
import torch.nn.functional as F
x = torch.arange(60.0).reshape(1, 3, 4, 5).requires_grad_()
a = F.adaptive_avg_pool2d(x, (None, 2))
b = F.adaptive_avg_pool2d(x, [3, None])
c = F.adaptive_avg_pool2d(x, 2)
s = a.sum() + b.sum() + c.sum()
s.backward()
"""
