"""In-place errors: modified saved tensors, leaf views, in-place on a leaf."""

import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.sigmoid()
c = b * 2
b.mul_(2)
print(b._version)
try:
    c.sum().backward()
    print("ok:", a.grad)
except RuntimeError as err:
    print(err)
b2 = a.exp()
b2.add_(1)
try:
    b2.sum().backward()
except RuntimeError as err:
    print(err)
try:
    a.add_(1)
except RuntimeError as err:
    print(err)
try:
    a[0] = 5.0
except RuntimeError as err:
    print(err)
v = a.view(3)
try:
    v.mul_(2)
except RuntimeError as err:
    print(err)
with torch.no_grad():
    a.add_(1)
print(a, a._version)
y = a.clone()
y[1] = 0.0
print(y.grad_fn)
y.sum().backward()
print(a.grad)
q = torch.ones(2, 2, requires_grad=True) * 1
r = q[0]
r.add_(10)
print(q.grad_fn, r.grad_fn)
print(q)
