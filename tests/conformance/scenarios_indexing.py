"""Conformance scenarios for what learners' programs index with and count with: Python
ranges, lists and tuples as indices (read and assigned, with their graphs), values with
extra leading ones, histograms and bin counts, fast gradcheck, float-step ranges, the
legacy ``size_average``/``reduce`` loss arguments and seeded ``torch.Generator`` draws."""

from __future__ import annotations

from tests.conformance.scenarios import _add

_X = "x = torch.arange(12.0).reshape(3, 4).requires_grad_()\n"

_add("index_range_and_list", _X + "y = x[range(3), [0, 1, 2]]\ny.sum().backward()\n")
_add(
    "index_range_and_tensor_logits",
    _X + "t = torch.tensor([1, 0, 3])\ny = x[range(3), t]\n(-y).mean().backward()\n",
)
_add("index_list_then_slice", _X + "y = x[[0, 2], 1:]\ny.sum().backward()\n")
_add("index_two_lists", _X + "y = x[[0, 1], [1, 2]]\ny.sum().backward()\n")
_add(
    "index_tuple_vs_list",
    """
    x = torch.arange(12.0).reshape(3, 4)
    a = x[(0, 1)]
    b = x[[0, 1]]
    c = x[(0, [1, 2])]
    d = x[([0, 1],)]
    """,
)
_add(
    "index_nested_list_warns",
    """
    x = torch.arange(12.0).reshape(3, 4)
    y = x[[[0, 1], [2, 0]]]
    z = x[torch.tensor([[0, 1], [2, 0]])]
    """,
)
_add(
    "index_list_of_bools",
    """
    x = torch.arange(12.0).reshape(3, 4)
    a = x[[True, False, True]]
    b = x[:, [True, False, True, False]]
    c = x[[True, False, True], [0, 3]]
    """,
)
_add(
    "index_list_mixing_tensors_and_ints",
    """
    x = torch.arange(12.0).reshape(3, 4)
    a = x[[torch.tensor(0), 2]]
    b = x[[torch.tensor([0, 1]), 2]]
    c = x[[1, [0, 1]]]
    """,
)
_add(
    "index_ranges_and_odd_lists",
    """
    x = torch.arange(12.0).reshape(3, 4)
    a = x[range(1, 3)]
    b = x[:, range(0, 4, 2)]
    c = x[[]]
    d = x[[0.5, 1]]
    e = x[[1, -1]]
    f = x[[0, 1, 2] * 11]
    """,
)
_add("index_list_out_of_range", "x = torch.arange(12.0).reshape(3, 4)\ny = x[[0, 5]]\n")
_add(
    "index_lists_not_broadcastable",
    "x = torch.arange(12.0).reshape(3, 4)\ny = x[[1, 2], [0, 1, 2]]\n",
)
_add(
    "index_3d_lists_and_slices",
    """
    x = torch.arange(24.0).reshape(2, 3, 4).requires_grad_()
    a = x[:, [0, 2], [1, 3]]
    b = x[[0, 1], :, [1, 3]]
    c = x[..., [0, 1]]
    (a.sum() + b.sum() + c.sum()).backward()
    """,
)
_add(
    "setitem_value_with_leading_ones",
    """
    t = torch.zeros(2, 3)
    t[0] = torch.ones(1, 1, 3)
    u = torch.zeros(2, 3)
    u[:, 1] = torch.ones(1, 2)
    u[1] = 7
    """,
)
_add("setitem_value_too_many_dims", "t = torch.zeros(2, 3)\nt[0] = torch.ones(2, 1, 3)\n")
_add("setitem_value_wrong_shape", "t = torch.zeros(2, 3)\nt[0] = torch.ones(2, 3)\n")
_add(
    "setitem_index_value_wrong_shape",
    "t = torch.zeros(3, 3)\nt[[0, 1]] = torch.ones(3, 3)\n",
)
_add(
    "setitem_leading_ones_graph",
    """
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    t = torch.zeros(2, 3)
    t[0] = x.reshape(1, 1, 3)
    u = torch.zeros(2, 3)
    u[0] = x[:1]
    u[1] = x.sum()
    (t.sum() + u.sum()).backward()
    """,
)
_add(
    "setitem_list_index_graph",
    """
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    t = torch.zeros(3, 3)
    t[[0, 1]] = x.reshape(1, 1, 3)
    t[[2]] = x.sum()
    t.sum().backward()
    """,
)
_add(
    "setitem_range_index",
    """
    t = torch.zeros(3, 3)
    t[range(3), [0, 1, 2]] = 5.0
    u = torch.zeros(4)
    u[[0, 0, 1]] = torch.tensor([1.0, 2.0, 3.0])
    w = torch.zeros(2, 3)
    w[1, [0, 2]] = torch.tensor([1.0, 2.0])
    w[[True, False]] = 3.0
    """,
)
_add(
    "setitem_slice_then_list_copyslices",
    """
    w = torch.ones(3, 3, requires_grad=True)
    t = w * 1
    t[range(3), range(3)] = 0.0
    t[[0, 2], 1:] = torch.tensor([[5.0, 6.0]])
    t.sum().backward()
    """,
)
_add(
    "setitem_requires_grad_value_paths",
    """
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = torch.zeros(2, 3)
    a[...] = x
    b = torch.zeros(2, 3)
    b[:] = x
    c = torch.zeros(2, 3)
    c[None] = x
    d = torch.zeros(2, 3)
    d[:, [0, 2]] = x[:2].reshape(1, 2)
    (a.sum() + b.sum() + c.sum() + d.sum()).backward()
    """,
)
_add(
    "setitem_augmented_range_index",
    """
    x = torch.arange(12.0).reshape(3, 4).requires_grad_()
    y = x * 2
    y[range(3), [0, 1, 2]] += 1
    y.sum().backward()
    z = torch.arange(12.0).reshape(3, 4)
    z[range(3), torch.tensor([0, 3, 1])] -= 100
    """,
)
