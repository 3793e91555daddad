"""Functions and methods real programs call that the engine lacked, each checked against
PyTorch's facts: values, dtypes, ``grad_fn`` chains, gradients and errors.

Every idiom runs under the engine and is compared with a golden copy recorded from
PyTorch 2.13 (always), and under PyTorch itself when it is installed; gradcheck in
float64 checks each differentiable function's analytic gradient against finite
differences.  ``python -m tests.engine_tests.test_breadth`` re-records the golden copy.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import engine

GOLDEN = Path(__file__).parent / "golden" / "breadth.json"


def _chain(t: Any) -> list[str]:
    names, fn = [], t.grad_fn
    while fn is not None:
        names.append(type(fn).__name__)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names


def _error(call: Callable[[], Any]) -> list[str] | None:
    try:
        call()
    except Exception as exc:
        return [type(exc).__name__, str(exc)]
    return None


def _values(T: Any, g: Any) -> Any:
    """A gradient's values; PyTorch's ``sgn`` returns a ``ZeroTensor``, which has none."""
    if getattr(g, "_is_zerotensor", lambda: False)():
        return T.zeros(g.shape).tolist()
    return g.tolist()


def _facts_of(T: Any, r: Any, wrt: list[Any]) -> list[Any]:
    """Chain, dtype, values and the gradients of ``sum(r * weights)`` for one result."""
    weights = T.arange(1.0, r.numel() + 1.0, dtype=r.dtype).reshape(r.shape)
    facts: list[Any] = [_chain(r), str(r.dtype), r.tolist()]
    if r.requires_grad:
        grads = T.autograd.grad((r * weights).sum(), wrt, allow_unused=True)
        facts.append([None if g is None else _values(T, g) for g in grads])
    return facts


def _elementwise(T: Any) -> list[Any]:
    x = T.tensor([[0.3, -0.5, 0.8], [1.5, -2.0, 0.25]], requires_grad=True)
    y = T.tensor([[0.2, 0.7, -0.4], [1.0, 0.5, -1.5]], requires_grad=True)
    p = T.tensor([[0.2, 0.7, 0.9], [0.05, 0.5, 0.35]], requires_grad=True)
    calls = [
        lambda: T.erf(x),
        lambda: x.erfc(),
        lambda: T.erfinv(p),
        lambda: T.lgamma(x),
        lambda: T.digamma(p),
        lambda: T.polygamma(1, p),
        lambda: T.exp2(x),
        lambda: x.sinc(),
        lambda: T.deg2rad(x),
        lambda: T.rad2deg(x),
        lambda: T.logit(p),
        lambda: T.logit(p, eps=0.1),
        lambda: T.xlogy(x, p),
        lambda: T.xlogy(2.0, p),
        lambda: x.xlogy(3.0),
        lambda: T.logaddexp(x, y),
        lambda: T.hypot(x, y),
        lambda: T.copysign(x, y),
        lambda: x.copysign(-1.0),
        lambda: T.nan_to_num(T.log(x)),
        lambda: T.nan_to_num(T.log(x), nan=0.5, neginf=-9.0),
        lambda: T.sgn(x),
        lambda: T.true_divide(x, y),
        lambda: T.absolute(x),
        lambda: x.negative(),
        lambda: T.float_power(x, 2),
        lambda: T.float_power(2, x),
        lambda: T.lerp(x, y, 0.3),
        lambda: x.lerp(y, p),
        lambda: T.addcmul(x, y, p, value=-0.5),
        lambda: x.addcdiv(y, p, value=0.1),
    ]
    facts: list[Any] = [_facts_of(T, f(), [x, y, p]) for f in calls]
    facts += [T.positive(x) is x, T.signbit(T.tensor([-0.0, 1.0, -2.0])).tolist()]
    facts.append(T.heaviside(T.tensor([-1.0, 0.0, 2.0]), T.tensor([0.5])).tolist())
    facts.append(str(T.erf(T.tensor([1, 2])).dtype))
    facts.append(T.lgamma(T.tensor([0.0, -1.0, 0.5])).tolist())
    facts.append(T.erfinv(T.tensor([-1.0, 1.0, 0.0])).tolist())
    facts.append(_error(lambda: T.positive(T.tensor([True]))))
    facts.append(_error(lambda: T.heaviside(x, T.tensor([0.5])).sum().backward()))
    facts.append(_error(lambda: T.addcdiv(x, T.tensor([1]), T.tensor([2]))))
    return facts


def _optimiser(T: Any) -> list[Any]:
    """A hand-written Adam step and an exponential moving average, in place."""
    T.manual_seed(0)
    w = T.tensor([0.5, -1.0, 2.0], requires_grad=True)
    m, v, ema = T.zeros(3), T.zeros(3), w.detach().clone()
    for _ in range(3):
        loss = ((w - 1.0) ** 2).sum()
        loss.backward()
        with T.no_grad():
            m.mul_(0.9).add_(w.grad, alpha=0.1)
            v.mul_(0.999).addcmul_(w.grad, w.grad, value=0.001)
            w.addcdiv_(m, v.sqrt().add_(1e-8), value=-0.1)
            ema.lerp_(w, 0.5)
        w.grad = None
    lerp_t = T.zeros(3).lerp_(T.ones(3), T.tensor([0.1, 0.6, 1.0]))
    return [w.tolist(), m.tolist(), v.tolist(), ema.tolist(), lerp_t.tolist()]


def _selection(T: Any) -> list[Any]:
    x = T.tensor([[0.3, -0.5, 0.8], [1.5, -2.0, 0.25]], requires_grad=True)
    calls = [
        lambda: T.masked_select(x, x > 0.2),
        lambda: x.masked_select(T.tensor([True, False, True])),
        lambda: T.take(x, T.tensor([[0, 5], [5, -1]])),
        lambda: T.take_along_dim(x, T.tensor([[0], [2]]), 1),
        lambda: T.take_along_dim(x, T.tensor([5, 0])),
        lambda: x.take_along_dim(x.argsort(dim=1), dim=1),
        lambda: T.fliplr(x),
        lambda: x.flipud(),
        lambda: T.tensor_split(x, 2, dim=1)[1],
        lambda: x.tensor_split([1])[0],
        lambda: T.hsplit(x, 3)[2],
        lambda: T.vsplit(x, [1])[1],
        lambda: T.msort(x),
    ]
    facts: list[Any] = [_facts_of(T, f(), [x]) for f in calls]
    facts.append([t.tolist() for t in T.tensor_split(T.arange(7), 3)])
    facts.append([t.tolist() for t in T.tensor_split(T.arange(7), [1, 5, -1, 20])])
    facts.append([t.tolist() for t in T.dsplit(T.arange(8).reshape(1, 2, 4), 2)])
    facts.append(_error(lambda: T.hsplit(T.ones(3), 2)))
    facts.append(_error(lambda: T.vsplit(T.ones(3), 2)))
    facts.append(_error(lambda: T.fliplr(T.ones(3))))
    facts.append(_error(lambda: T.take(x, T.tensor([6]))))
    facts.append(_error(lambda: T.masked_select(x, T.tensor([1, 0, 1]))))
    facts.append(_error(lambda: T.take_along_dim(x, T.tensor([[0]], dtype=T.int32), 1)))
    return facts


def _reductions(T: Any) -> list[Any]:
    z = T.tensor([[0.3, -0.5, 0.8, 0.1], [1.5, -2.0, 0.0, 1.5]], requires_grad=True)
    nan = float("nan")
    n = T.tensor([[0.3, nan, 0.8, 0.1], [1.5, -2.0, 0.0, 1.5]], requires_grad=True)
    facts: list[Any] = []
    for source, call in [
        (n, lambda: (T.nansum(n),)),
        (n, lambda: (n.nansum(1),)),
        (n, lambda: (T.nanmean(n),)),
        (n, lambda: (n.nanmean(dim=1, keepdim=True),)),
        (z, lambda: T.std_mean(z)),
        (z, lambda: T.var_mean(z, 1)),
        (z, lambda: T.std_mean(z, dim=0, keepdim=True)),
        (z, lambda: T.var_mean(z, 1, correction=0)),
        (z, lambda: (T.median(z),)),
        (z, lambda: T.median(z, 1)),
        (z, lambda: z.median(0, keepdim=True)),
        (n, lambda: T.median(n, 1)),
        (n, lambda: (T.nanmedian(n),)),
        (n, lambda: T.nanmedian(n, 1)),
        (z, lambda: T.aminmax(z)),
        (z, lambda: T.aminmax(z, dim=1)),
    ]:
        results = call()
        floats = [r for r in results if r.dtype.is_floating_point]
        loss = sum((r * (k + 2)).sum() for k, r in enumerate(floats))
        (grad,) = T.autograd.grad(loss, source)
        facts.append(
            [
                type(results).__name__,
                [_chain(r) for r in results],
                [r.tolist() for r in results],
                grad.tolist(),
            ]
        )
    mean_only = T.std_mean(z)[1]
    facts.append(T.autograd.grad(mean_only, z)[0].tolist())
    facts += [repr(T.aminmax(T.tensor([1, 3]))), repr(T.median(T.tensor([1.0, 3.0]), 0))]
    facts.append(str(T.nansum(T.tensor([1, 2])).dtype))
    facts.append(_error(lambda: T.nanmean(T.tensor([1, 2]))))
    return facts


def _inplace_views(T: Any) -> list[Any]:
    a = T.ones(2, 1, 3, requires_grad=True)
    facts: list[Any] = []
    for call in [
        "squeeze_()",
        "squeeze_(1)",
        "squeeze_((1,))",
        "unsqueeze_(0)",
        "transpose_(0, 2)",
        "swapaxes_(0, 2)",
        "t_()",
        "cumsum_(2)",
        "square_()",
        "tril_()",
        "triu_(1)",
        "erf_()",
        "nan_to_num_()",
    ]:
        b = a * T.arange(6.0).reshape(2, 1, 3)
        if call == "t_()" or call.startswith("tri"):
            b = b.squeeze(1)
        version = b._version
        r = eval(f"b.{call}")
        weights = T.arange(float(r.numel())).reshape(r.shape)
        (g,) = T.autograd.grad((r * weights).sum(), a)
        facts.append([r is b, list(r.shape), _chain(r), b._version - version, g.tolist()])
    d = a * 1
    e = d[0]
    e.unsqueeze_(0)
    facts.append([_chain(e), e._base is d, list(e.shape)])
    e.mul_(2)
    facts.append([_chain(e)[:1], d.tolist()])
    facts.append(_error(lambda: a.t_()))
    with T.no_grad():
        a.squeeze_()
    facts.append([list(a.shape), a.is_leaf, a.requires_grad])
    m = T.tensor([0.0, 2.0, -1.0])
    m.logical_not_()
    facts.append([m.tolist(), m._version])
    return facts


def _products(T: Any) -> list[Any]:
    gen = T.Generator().manual_seed(0)

    def leaf(*shape: int) -> Any:
        return T.randn(*shape, generator=gen, dtype=T.float64).requires_grad_()

    a, m, v, w = leaf(2), leaf(2, 3), leaf(3), leaf(2, 3)
    b1, b2, s3 = leaf(2, 2, 3), leaf(2, 3, 4), leaf(2, 2, 4)
    bb1, bb2, s2, u, q = leaf(3, 2, 3), leaf(3, 3, 4), leaf(2, 4), leaf(2, 3), leaf(2, 3)
    leaves = [a, m, v, w, b1, b2, s3, bb1, bb2, s2, u, q]
    calls = [
        lambda: T.addmv(a, m, v),
        lambda: T.addmv(a, m, v, beta=0.5, alpha=2),
        lambda: T.addr(w, a, v),
        lambda: w.addr(a, v, alpha=-1),
        lambda: T.baddbmm(s3, b1, b2),
        lambda: T.baddbmm(s3[0, 0], b1, b2, beta=0.5, alpha=0.25),
        lambda: T.addbmm(s2, bb1, bb2),
        lambda: s2.addbmm(bb1, bb2, beta=2),
        lambda: T.dist(u, q),
        lambda: T.dist(u, q, 1),
        lambda: T.dist(u, q[0], 3),
        lambda: T.dist(u, q, float("inf")),
        lambda: T.cross(u, q, dim=1),
        lambda: T.linalg.cross(u, q),
        lambda: T.kron(u, q),
        lambda: T.kron(a, u),
        lambda: T.diag_embed(u),
        lambda: T.diag_embed(u, 1, 0, 2),
        lambda: T.rot90(u),
        lambda: T.rot90(b1, -1, (2, 0)),
        lambda: u.rot90(2),
    ]
    return [_facts_of(T, f(), leaves) for f in calls]


def _ordering(T: Any) -> list[Any]:
    nan = float("nan")
    x = T.tensor([[3.0, 1, 3, 1], [2, 2, 5, 5]], requires_grad=True)
    y = T.tensor([[0.3, -1.0, 2.0, 0.5], [1.0, nan, 0.0, 4.0]], requires_grad=True)
    facts: list[Any] = []
    for source, call in [
        (x, lambda: T.kthvalue(x, 2)),
        (x, lambda: x.kthvalue(1, 0, True)),
        (x, lambda: T.mode(x)),
        (x, lambda: T.mode(x, 0)),
        (x, lambda: x.mode(1, keepdim=True)),
        (y, lambda: T.cummax(y, 1)),
        (y, lambda: y.cummin(0)),
        (x, lambda: T.cummax(x, 1)),
        (x, lambda: (T.logcumsumexp(x, 1),)),
        (x, lambda: (x.logcumsumexp(0),)),
    ]:
        results = call()
        floats = [r for r in results if r.dtype.is_floating_point]
        loss = sum((r * T.arange(1.0, r.numel() + 1).reshape(r.shape)).sum() for r in floats)
        (grad,) = T.autograd.grad(loss, source)
        facts.append(
            [
                type(results).__name__,
                [_chain(r) for r in results],
                [r.tolist() for r in results],
                grad.tolist(),
            ]
        )
    ties = T.tensor([[2.0, 2, 5, 5, 2, 0], [1, 1, 1, 0, 0, nan]])
    facts += [[t.tolist() for t in T.kthvalue(ties, k)] for k in (1, 2, 3, 4)]
    seq = T.tensor([1, 3, 5, 7])
    facts.append(T.searchsorted(seq, T.tensor([[3, 6], [9, 0]])).tolist())
    facts.append(T.searchsorted(seq, 3, right=True).tolist())
    facts.append(T.searchsorted(seq, T.tensor([3, 5]), side="right").tolist())
    facts.append(str(T.searchsorted(seq, T.tensor([3]), out_int32=True).dtype))
    facts.append(T.searchsorted(T.tensor([[1, 3, 5], [2, 4, 6]]), T.tensor([[3], [3]])).tolist())
    facts.append(T.bucketize(T.tensor([1, 5, 9, 0]), T.tensor([1, 5, 9]), right=True).tolist())
    facts.append(T.bucketize(T.tensor([1.5, 5, 9, 0]), T.tensor([1, 5, 9])).tolist())
    runs = T.unique_consecutive(
        T.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True, return_counts=True
    )
    facts.append([t.tolist() for t in runs])
    facts.append(T.unique_consecutive(T.tensor([[1, 1], [1, 1], [2, 3]]), dim=0).tolist())
    runs = T.unique_consecutive(x, return_counts=True)
    facts.append([_chain(runs[0]), runs[0].tolist(), runs[1].requires_grad])
    facts.append(_error(lambda: runs[0].sum().backward()))
    facts.append(T.histc(T.tensor([1.0, 2, 1]), bins=4, min=0, max=3).tolist())
    facts.append(T.histc(T.tensor([1.0, 2, 1, 1.5]), bins=5).tolist())
    h = T.histc(x, 3)
    facts.append([h.tolist(), h.requires_grad, str(h.dtype)])
    facts.append(T.tensor([0, 1, 1, 3]).bincount().tolist())
    facts.append(T.tensor([0, 1, 1]).bincount(T.tensor([0.5, 1.0, 2.0]), minlength=4).tolist())
    facts.append(repr(T.kthvalue(T.tensor([3.0, 1.0]), 1)))
    return facts


def _linalg(T: Any) -> list[Any]:
    a = T.tensor([[2.0, 1, 0.5], [1, 3, 0.2], [0.5, 0.2, 1.5]], requires_grad=True)
    n = T.tensor([[1.0, 2], [3, -4]], requires_grad=True)
    s = T.tensor([[1.0, 2], [2, 4]], requires_grad=True)
    b = T.tensor([[0.5, -1, 2], [1, 0.3, -0.7]], requires_grad=True)
    c = T.tensor([[0.1, 0.9, -2], [0.4, 0.3, 0.7], [1.0, 1, 1], [0, 0, 0.5]], requires_grad=True)
    leaves = [a, n, s, b, c]
    calls = [
        lambda: T.det(a),
        lambda: T.linalg.det(n),
        lambda: s.det(),
        lambda: T.linalg.slogdet(n)[1],
        lambda: T.slogdet(a)[1],
        lambda: T.logdet(a),
        lambda: T.linalg.cholesky(a),
        lambda: T.linalg.cholesky(a, upper=True),
        lambda: T.linalg.matrix_norm(b),
        lambda: T.linalg.matrix_norm(a, 1),
        lambda: T.linalg.matrix_norm(b, float("inf")),
        lambda: T.linalg.matrix_norm(b, -1, keepdim=True),
        lambda: T.linalg.vecdot(b, b),
        lambda: T.linalg.multi_dot([a, b.t(), b]),
        lambda: T.linalg.multi_dot([b[0], a, b.t()]),
        lambda: T.linalg.matrix_power(a, 3),
        lambda: T.matrix_power(a, 5),
        lambda: a.matrix_power(0),
        lambda: T.linalg.matrix_power(n, -1),
        lambda: T.cdist(b, c),
        lambda: T.cdist(b, c, p=1),
        lambda: T.cdist(b, c, p=3),
        lambda: T.cdist(b, c, p=float("inf")),
        lambda: T.cdist(b[None], c[None], p=0),
        lambda: T.cdist(T.cat([c] * 7), b),
    ]
    facts: list[Any] = [_facts_of(T, f(), leaves) for f in calls]
    sym = T.tensor([[2.0, 1, 0.5], [1, 3, 0.2], [0.5, 0.2, 1.5]], requires_grad=True)
    for pair in (T.linalg.eigh(sym), T.linalg.eigh(c[:3], UPLO="U")):
        loss = sum((t * T.arange(1.0, t.numel() + 1).reshape(t.shape)).sum() for t in pair)
        grads = T.autograd.grad(loss, [sym, c], allow_unused=True)
        facts.append(
            [
                type(pair).__name__,
                [_chain(t) for t in pair],
                pair[0].tolist(),
                [None if g is None else g.tolist() for g in grads],
            ]
        )
    facts.append(_facts_of(T, T.linalg.eigvalsh(sym), [sym]))
    for source, triple in (
        (c, T.linalg.svd(c[:, :2], full_matrices=False)),
        (sym, T.linalg.svd(sym)),
    ):
        loss = sum((t * T.arange(1.0, t.numel() + 1).reshape(t.shape)).sum() for t in triple)
        (g,) = T.autograd.grad(loss, source)
        facts.append(
            [type(triple).__name__, [_chain(t) for t in triple], triple[1].tolist(), g.tolist()]
        )
    facts.append(_facts_of(T, T.linalg.svdvals(b), [b]))
    facts += [_facts_of(T, T.linalg.pinv(b), [b]), _facts_of(T, b.t().pinverse(), [b])]
    for pair in (T.linalg.qr(c[:, :2]), T.linalg.qr(sym)):
        loss = sum((t * T.arange(1.0, t.numel() + 1).reshape(t.shape)).sum() for t in pair)
        grads = T.autograd.grad(loss, [sym, c], allow_unused=True)
        facts.append(
            [
                type(pair).__name__,
                [_chain(t) for t in pair],
                [t.tolist() for t in pair],
                [None if g is None else g.tolist() for g in grads],
            ]
        )
    fit = T.linalg.lstsq(b.t(), c[:3, :2])
    facts.append([type(fit).__name__, [_chain(t) for t in fit], fit.rank.tolist()])
    facts.append(_facts_of(T, fit.solution, [b, c]))
    facts.append(_facts_of(T, T.linalg.lstsq(b.t(), c[:3, 0]).solution, [b, c]))
    facts.append(T.linalg.slogdet(n).sign.tolist())
    facts.append(repr(T.slogdet(T.eye(2))))
    rank = T.linalg.matrix_rank(a)
    facts.append([T.linalg.matrix_rank(s).item(), rank.item(), str(rank.dtype)])
    facts.append(_error(lambda: T.linalg.cholesky(n)))
    facts.append(_error(lambda: T.det(b)))
    facts.append(_error(lambda: T.det(T.ones(2, 2, dtype=T.long))))
    return facts


def _placement(T: Any) -> list[Any]:
    a = T.ones(3, 4, requires_grad=True)
    s = T.full((3, 2), 5.0, requires_grad=True)
    src = T.arange(12.0).requires_grad_()
    v = T.tensor(2.0, requires_grad=True)
    w = T.arange(12.0).reshape(3, 4)
    calls = [
        lambda: (a * 1).index_fill_(1, T.tensor([0, 2]), -1.0),
        lambda: T.index_fill(a, 0, T.tensor([1]), v),
        lambda: (a * 1).index_copy_(1, T.tensor([3, 0]), s),
        lambda: a.index_copy(1, T.tensor([1]), s[:, :1]),
        lambda: (a * 1).masked_scatter_(T.tensor([True, False, True, False]), src),
        lambda: T.masked_scatter(a, w > 5, src),
        lambda: (a * 1).fill_diagonal_(3.0),
    ]
    facts: list[Any] = []
    for call in calls:
        r = call()
        grads = T.autograd.grad((r * w).sum(), [a, s, src, v], allow_unused=True)
        facts.append([_chain(r), r.tolist(), [None if g is None else g.tolist() for g in grads]])
    for rows, wrap in ((3, False), (7, True), (7, False)):
        c = T.zeros(rows, 2)
        c.fill_diagonal_(1.5, wrap=wrap)
        facts.append(c.tolist())
    return facts


def _quantiles(T: Any) -> list[Any]:
    nan = float("nan")
    x = T.tensor([[0.3, -1.0, 2.0, 0.5, 1.1], [1.0, 4.0, 0.0, -2.0, 0.7]], requires_grad=True)
    y = T.tensor([[0.3, nan, 2.0, 0.5], [1.0, 4.0, 0.0, -2.0]], requires_grad=True)
    calls = [
        (x, lambda: T.quantile(x, 0.3)),
        (x, lambda: x.quantile(0.25, dim=1)),
        (x, lambda: T.quantile(x, T.tensor([0.1, 0.5, 0.9]), dim=0, keepdim=True)),
        (x, lambda: T.quantile(x, 0.4, 1, interpolation="lower")),
        (x, lambda: T.quantile(x, 0.4, 1, interpolation="higher")),
        (x, lambda: T.quantile(x, 0.45, 1, interpolation="nearest")),
        (x, lambda: T.quantile(x, 0.4, 1, interpolation="midpoint")),
        (x, lambda: T.quantile(x, 0.5, keepdim=True)),
        (y, lambda: T.quantile(y, 0.5, 1)),
        (y, lambda: T.nanquantile(y, 0.5, 1)),
        (y, lambda: y.nanquantile(T.tensor([0.2, 0.8]))),
    ]
    facts: list[Any] = [_facts_of(T, call(), [source]) for source, call in calls]
    facts.append(_error(lambda: T.quantile(x, 1.5)))
    facts.append(_error(lambda: T.quantile(x, T.tensor([0.5, 2.0]))))
    facts.append(_error(lambda: T.quantile(T.tensor([1, 2]), 0.5)))
    facts.append(_error(lambda: T.quantile(x, 0.5, interpolation="x")))
    return facts


def _attributes(T: Any) -> list[Any]:
    x = T.arange(12.0).reshape(3, 4)
    facts: list[Any] = [x[1:, 2:].storage_offset(), x.t().storage_offset(), x[2].nbytes]
    facts += [x.itemsize, str(x.byte().dtype), str(x.char().dtype), str(x.short().dtype)]
    facts += [x.is_signed(), T.ones(1, dtype=T.uint8).is_signed()]
    facts += [T.ones(1, dtype=T.bool).is_signed(), x.ndimension(), x.is_complex()]
    facts += [T.ones(2, dtype=T.int16).nbytes, T.tensor([300.0, -1.0]).byte().tolist()]
    facts.append(_error(lambda: T.nn.Parameter(T.ones(2, dtype=T.long))))
    facts.append(T.nn.Parameter(T.ones(2, dtype=T.long), requires_grad=False).requires_grad)
    return facts


FACTS = {
    "elementwise": _elementwise,
    "optimiser": _optimiser,
    "selection": _selection,
    "reductions": _reductions,
    "inplace_views": _inplace_views,
    "products": _products,
    "ordering": _ordering,
    "linalg": _linalg,
    "placement": _placement,
    "quantiles": _quantiles,
    "attributes": _attributes,
}


#: The tolerance of a value: ``rel_tol`` of its scale, and ``abs_tol`` near zero.
REL_TOL, ABS_TOL = 1e-5, 1e-6


def _numbers(v: Any) -> list[float] | None:
    """The floats of a tensor's values (nested lists of numbers), or None for other facts."""
    if isinstance(v, float):
        return [v]
    if isinstance(v, int) and not isinstance(v, bool):
        return []
    if isinstance(v, list):
        out: list[float] = []
        for x in v:
            inner = _numbers(x)
            if inner is None:
                return None
            out += inner
        return out
    return None


def _close(a: Any, b: Any, per_tensor: bool = False, scale: float = 0.0) -> bool:
    """Facts equal, floats within ``REL_TOL`` of their own size.  ``per_tensor``
    (``_close_to_pytorch``): a tensor's values within ``REL_TOL`` of the tensor's largest,
    so a value that cancels to near zero may differ by the last bit of the values it was
    computed from."""
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return False
        if per_tensor and not scale:
            numbers = _numbers(a)
            if numbers is not None and _numbers(b) is not None:
                scale = max((abs(x) for x in numbers if not math.isnan(x)), default=0.0)
        return all(_close(x, y, per_tensor, scale) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        size = max(scale, abs(a), abs(b))
        return abs(a - b) <= max(REL_TOL * size, ABS_TOL) or a == b
    return a == b


def _close_to_pytorch(a: Any, b: Any) -> bool:
    """``_close``, each tensor's values at the tolerance of the tensor's scale: PyTorch's
    linear algebra is MKL's and its LAPACK's on an Intel CPU, other libraries elsewhere,
    and the golden was recorded on one host."""
    return _close(a, b, per_tensor=True)


def _plain(v: Any) -> Any:
    """Facts as JSON holds them (tuples as lists)."""
    return json.loads(json.dumps(v))


def test_per_tensor_tolerance_is_narrow() -> None:
    """A near-zero value may be a last bit of its tensor's scale off, and nothing more."""
    big = [[16.0, 8.0], [0.0, 2.0]]
    assert _close_to_pytorch([["MmBackward0"], big], [["MmBackward0"], [[16.0, 8.0], [4e-6, 2.0]]])
    assert not _close(big, [[16.0, 8.0], [4e-6, 2.0]])
    assert not _close_to_pytorch(big, [[16.0, 8.0], [1e-3, 2.0]])
    assert not _close_to_pytorch(big, [[16.0, 8.001], [0.0, 2.0]])
    assert not _close_to_pytorch([["A"], big], [["B"], big])
    assert not _close_to_pytorch([1, 2], [1, 3])


@pytest.mark.parametrize("name", FACTS)
def test_engine_matches_the_golden(name: str) -> None:
    expected = json.loads(GOLDEN.read_text("utf-8"))[name]
    actual = _plain(FACTS[name](engine))
    assert _close(actual, expected), f"{name}:\n{actual}\n!=\n{expected}"


@pytest.mark.torch
@pytest.mark.parametrize("name", FACTS)
def test_golden_is_what_pytorch_says(name: str) -> None:
    torch = pytest.importorskip("torch")
    expected = json.loads(GOLDEN.read_text("utf-8"))[name]
    assert _close_to_pytorch(_plain(FACTS[name](torch)), expected)


GRADCHECKED: dict[str, Callable[..., Any]] = {
    "erf": lambda x, y, p: engine.erf(x),
    "erfinv": lambda x, y, p: engine.erfinv(p),
    "lgamma": lambda x, y, p: engine.lgamma(x),
    "digamma": lambda x, y, p: engine.digamma(p),
    "polygamma": lambda x, y, p: engine.polygamma(2, p),
    "exp2": lambda x, y, p: engine.exp2(x),
    "sinc": lambda x, y, p: engine.sinc(x),
    "logit": lambda x, y, p: engine.logit(p, 0.1),
    "xlogy": lambda x, y, p: engine.xlogy(x, p),
    "logaddexp": lambda x, y, p: engine.logaddexp(x, y),
    "hypot": lambda x, y, p: engine.hypot(x, y),
    "copysign": lambda x, y, p: engine.copysign(x, y),
    "float_power": lambda x, y, p: engine.float_power(p, x),
    "lerp": lambda x, y, p: engine.lerp(x, y, p),
    "addcmul": lambda x, y, p: engine.addcmul(x, y, p, value=0.5),
    "addcdiv": lambda x, y, p: engine.addcdiv(x, y, p, value=0.5),
    "masked_select": lambda x, y, p: engine.masked_select(x, p > 0.5),
    "take": lambda x, y, p: engine.take(x, engine.tensor([0, 3, 3])),
    "take_along_dim": lambda x, y, p: engine.take_along_dim(x, engine.tensor([[1, 1]]), 1),
    "nansum": lambda x, y, p: engine.nansum(x, 1),
    "nanmean": lambda x, y, p: engine.nanmean(x, 0),
    "std_mean": lambda x, y, p: engine.std_mean(x, 1),
    "var_mean": lambda x, y, p: engine.var_mean(x),
    "median": lambda x, y, p: engine.median(x, 1)[0],
    "aminmax": lambda x, y, p: engine.aminmax(x, dim=0),
    "addmv": lambda x, y, p: engine.addmv(x[0, :2], y, p[1], beta=0.5, alpha=2),
    "addr": lambda x, y, p: engine.addr(x, y[0, :2], p[1]),
    "baddbmm": lambda x, y, p: engine.baddbmm(x[0, :2], y[None], p.t()[None], alpha=0.5),
    "addbmm": lambda x, y, p: engine.addbmm(x[:, :2], y[None], p.t()[None]),
    "dist": lambda x, y, p: engine.dist(x, y, 3),
    "cross": lambda x, y, p: engine.linalg.cross(x, y),
    "kron": lambda x, y, p: engine.kron(x, y[0]),
    "diag_embed": lambda x, y, p: engine.diag_embed(x, -1, 0, 2),
    "rot90": lambda x, y, p: engine.rot90(x, 3),
    "kthvalue": lambda x, y, p: engine.kthvalue(x, 2, 1)[0],
    "mode": lambda x, y, p: engine.mode(x, 0)[0],
    "cummax": lambda x, y, p: engine.cummax(x, 1)[0],
    "cummin": lambda x, y, p: engine.cummin(y, 0)[0],
    "logcumsumexp": lambda x, y, p: engine.logcumsumexp(y, 1),
    "det": lambda x, y, p: engine.det(y[:, :2] @ p[:, :2].t() + x[:, :2] @ x[:, :2].t()),
    "slogdet": lambda x, y, p: engine.linalg.slogdet(x[:, :2] + p[:, 1:])[1],
    "cholesky": lambda x, y, p: engine.linalg.cholesky(x @ x.t() + engine.eye(2)),
    "cdist": lambda x, y, p: engine.cdist(x, y, p=3),
    "euclidean_dist": lambda x, y, p: engine.cdist(engine.cat([x] * 13), y),
    "matrix_norm": lambda x, y, p: engine.linalg.matrix_norm(x, 1),
    "index_fill": lambda x, y, p: engine.index_fill(x, 1, engine.tensor([0, 2]), y[0, 0]),
    "index_copy": lambda x, y, p: engine.index_copy(x, 1, engine.tensor([2, 0]), y[:, :2]),
    "masked_scatter": lambda x, y, p: engine.masked_scatter(x, p > 0.5, y),
    "eigh": lambda x, y, p: engine.linalg.eigh(x @ x.t() + y[:, :2] @ y[:, :2].t()),
    "svd": lambda x, y, p: engine.linalg.svd(x.t(), full_matrices=False)[:2],
    "svdvals": lambda x, y, p: engine.linalg.svdvals(x),
    "pinv": lambda x, y, p: engine.linalg.pinv(x),
    "lstsq": lambda x, y, p: engine.linalg.lstsq(x.t(), y.t()).solution,
    "qr": lambda x, y, p: engine.linalg.qr(x.t()),
    "quantile": lambda x, y, p: engine.quantile(x, engine.tensor([0.3, 0.8]), dim=0),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name: str) -> None:
    rng = np.random.default_rng(3)

    def make(values: Any) -> Any:
        return engine.tensor(values, dtype=engine.float64, requires_grad=True)

    x = make(rng.permutation(6).reshape(2, 3) / 6 - 0.4 + 0.01 * rng.random((2, 3)))
    y = make(rng.standard_normal((2, 3)))
    p = make(rng.uniform(0.2, 0.8, (2, 3)))
    assert engine.autograd.gradcheck(GRADCHECKED[name], (x, y, p))


def write_golden() -> None:
    """``python -m tests.engine_tests.test_breadth``: re-record from PyTorch."""
    import torch

    data = {name: _plain(fn(torch)) for name, fn in FACTS.items()}
    GOLDEN.write_text(json.dumps(data, indent=1) + "\n", "utf-8")


if __name__ == "__main__":
    write_golden()
