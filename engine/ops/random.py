"""The in-place random fills (``uniform_``, ``normal_``, ``bernoulli_``, ``random_``,
``exponential_``, ``geometric_``, ``cauchy_``, ``log_normal_``), ``torch.bernoulli``
and ``torch.poisson``, drawing from PyTorch's CPU generator.

Each fill draws its values first (after the leaf check, which PyTorch makes
before its kernel touches the generator), in the tensor's memory order as
``TensorIterator`` visits it, then writes them in place like ``fill_``: a tensor
with history gets ``UniformBackward0`` and kin, whose gradient is zero.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes
from engine.backend import to_numpy
from engine.catalog import Example, Param, Port, public
from engine.creation import empty, empty_like, tensor
from engine.ops.core import apply_inplace, apply_op, check_inplace, declare
from engine.random import sampling
from engine.random.generator import generator_of
from engine.tensor import Tensor


def _written(xp: Any, a: Any, values: Any) -> Any:
    return xp.asarray(values).astype(a.dtype, copy=False)


def _zero_grad(ctx: Any, g: Any) -> Any:
    return g * 0


UNIFORM = declare("uniform_", "UniformBackward0", ("self",), _written, _zero_grad, dtype="same")
NORMAL = declare("normal_", "NormalBackward0", ("self",), _written, _zero_grad, dtype="same")
BERNOULLI = declare(
    "bernoulli_", "BernoulliBackward2", ("self",), _written, _zero_grad, dtype="same"
)
BERNOULLI_PROBS = declare(
    "bernoulli", "BernoulliBackward0", ("self",), _written, _zero_grad, dtype="same"
)
RANDOM = declare("random_", "RandomBackward0", ("self",), _written, _zero_grad, dtype="same")
EXPONENTIAL = declare(
    "exponential_", "ExponentialBackward0", ("self",), _written, _zero_grad, dtype="same"
)

GEOMETRIC = declare(
    "geometric_", "GeometricBackward0", ("self",), _written, _zero_grad, dtype="same"
)
CAUCHY = declare("cauchy_", "CauchyBackward0", ("self",), _written, _zero_grad, dtype="same")
LOG_NORMAL = declare(
    "log_normal_", "LogNormalBackward0", ("self",), _written, _zero_grad, dtype="same"
)
POISSON = declare("poisson", "PoissonBackward0", ("self",), _written, _zero_grad, dtype="same")


def _num(x: float) -> str:
    """A number as PyTorch's C++ messages print it (``ostream`` default: %g)."""
    return f"{x:g}"


def _memory_order(strides: tuple[int, ...]) -> list[int]:
    """The axes from the slowest to the fastest in memory."""
    return sorted(range(len(strides)), key=lambda i: -abs(strides[i]))


def in_memory_order(shape: tuple[int, ...], strides: tuple[int, ...], flat: np.ndarray) -> Any:
    """``flat`` laid out so that filling the array walks its memory in order, as a
    nullary ``TensorIterator`` does (a transposed view is filled column by column)."""
    order = _memory_order(strides)
    block = flat.reshape(tuple(shape[i] for i in order))
    return np.transpose(block, np.argsort(order))


def _fill(op: Any, t: Any, draw: Any) -> Any:
    check_inplace(t)
    n = t.numel()
    data = t._data
    flat = draw(n)
    values = in_memory_order(tuple(data.shape), tuple(data.strides), flat)
    return apply_inplace(op, (t,), {"values": values})


def _not_implemented(kernel: str, t: Any) -> NotImplementedError:
    return NotImplementedError(f"\"{kernel}\" not implemented for '{t.dtype.scalar_name}'")


def uniform_(t: Any, from_: float = 0.0, to: float = 1.0, *, generator: Any = None) -> Any:
    """``Tensor.uniform_(from=0, to=1)``."""
    if not t.dtype.is_floating_point:
        raise _not_implemented("check_uniform_bounds", t)
    if from_ > to:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={_num(from_)} > "
            f"to={_num(to)}"
        )
    gen = generator_of(generator, t.is_cuda)
    return _fill(UNIFORM, t, lambda n: sampling.uniform(gen, n, t.dtype.np, from_, to))


def normal_(t: Any, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Any:
    """``Tensor.normal_(mean=0, std=1)``; a non-contiguous tensor takes the scalar path."""
    if not t.dtype.is_floating_point:
        raise _not_implemented("normal_kernel_cpu", t)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    gen = generator_of(generator, t.is_cuda)
    contiguous = t.is_contiguous()
    return _fill(NORMAL, t, lambda n: sampling.normal(gen, n, t.dtype.np, mean, std, contiguous))


def bernoulli_(t: Any, p: Any = 0.5, *, generator: Any = None) -> Any:
    """``Tensor.bernoulli_(p)``: ones with probability ``p``, a number or a tensor
    of probabilities broadcast to ``t`` (``bernoulli_tensor_cpu``: float64
    probabilities compare with a 53-bit uniform, others with a 24-bit float one)."""
    gen = generator_of(generator, t.is_cuda)
    if not isinstance(p, Tensor):
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
        return _fill(BERNOULLI, t, lambda n: sampling.bernoulli(gen, n, p))
    probs = np.asarray(p.numpy(force=True))
    if probs.size and not ((probs >= 0) & (probs <= 1)).all():
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    unit_dtype = np.dtype(np.float64 if p.dtype is dtypes.float64 else np.float32)
    data = t._data
    order = _memory_order(tuple(data.strides))
    walked = np.transpose(np.broadcast_to(probs, data.shape), order).ravel().astype(unit_dtype)
    return _fill(BERNOULLI, t, lambda n: sampling.unit(gen, n, unit_dtype) < walked)


def random_(t: Any, from_: int = 0, to: int | None = None, *, generator: Any = None) -> Any:
    """``Tensor.random_([from,] to)`` draws from ``[from, to)``; ``random_()`` from
    ``[0, 2**mantissa]`` for floats and ``[0, max]`` for integers."""
    gen = generator_of(generator, t.is_cuda)
    if to is None and from_ == 0:
        return _fill(RANDOM, t, lambda n: sampling.random_full(gen, n, t.dtype.np))
    if to is None:
        from_, to = 0, from_
    if from_ >= to:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}"
        )
    return _fill(RANDOM, t, lambda n: sampling.randint(gen, n, int(from_), int(to)))


def exponential_(t: Any, lambd: float = 1.0, *, generator: Any = None) -> Any:
    """``Tensor.exponential_(lambd=1)``."""
    if not t.dtype.is_floating_point:
        raise _not_implemented("exponential_cpu", t)
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    gen = generator_of(generator, t.is_cuda)
    return _fill(EXPONENTIAL, t, lambda n: sampling.exponential(gen, n, lambd))


def geometric_(t: Any, p: float, *, generator: Any = None) -> Any:
    """``Tensor.geometric_(p)``: trials up to the first success; any dtype but bool."""
    if t.dtype is dtypes.bool_:
        raise _not_implemented("geometric_cpu", t)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    gen = generator_of(generator, t.is_cuda)
    return _fill(GEOMETRIC, t, lambda n: sampling.geometric(gen, n, p))


def cauchy_(t: Any, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Any:
    """``Tensor.cauchy_(median=0, sigma=1)``."""
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_num(sigma)}")
    if not t.dtype.is_floating_point:
        raise RuntimeError(
            "Cauchy distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {t.dtype.cpp_name}"
        )
    gen = generator_of(generator, t.is_cuda)
    return _fill(CAUCHY, t, lambda n: sampling.cauchy(gen, n, median, sigma))


def log_normal_(t: Any, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Any:
    """``Tensor.log_normal_(mean=1, std=2)``: ``exp`` of normal draws."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    if not t.dtype.is_floating_point:
        raise _not_implemented("log_normal_cpu", t)
    gen = generator_of(generator, t.is_cuda)
    return _fill(LOG_NORMAL, t, lambda n: sampling.log_normal(gen, n, mean, std))


@public(
    "poisson",
    ("input",),
    category="creation",
    doc="a count drawn from each element's Poisson rate",
    method=False,
    example=Example(values={"input": "positive"}, deterministic=False),
)
def poisson(input: Any, generator: Any = None) -> Any:  # noqa: A002
    """``torch.poisson(rates)``: a count drawn per rate (``PoissonBackward0``, whose
    gradient is zero), in the rates' dtype."""
    if not input.dtype.is_floating_point:
        raise _not_implemented("poisson_cpu", input)
    rates = np.asarray(input.numpy(force=True))
    if rates.size and not (rates >= 0).all():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    gen = generator_of(generator, input.is_cuda)
    values = sampling.poisson(gen, rates).reshape(rates.shape)
    return apply_op(POISSON, (input,), {"values": values})


@public(
    "multinomial",
    ("input",),
    (Param("num_samples", "int", 2), Param("replacement", "bool")),
    category="creation",
    doc="int64 indices drawn by each row's weights",
    differentiable=False,
    example=Example(values={"input": "probability"}, deterministic=False),
)
def multinomial(
    input: Any,  # noqa: A002
    num_samples: int,
    replacement: bool = False,
    *,
    generator: Any = None,
) -> Any:
    """``torch.multinomial``: indices drawn by the rows' weights.  One sample, or any
    number without replacement, is ATen's fast path: ``topk(p / q)`` (``argmax`` for one)
    with ``q`` exponential draws shaped like ``input``; more with replacement search
    the normalised running sum for uniform draws."""
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        kind = input.dtype.scalar_name
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: {kind}"
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_categories = input.shape[-1]
    if not replacement and num_samples > n_categories:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    probs = np.asarray(input.numpy(force=True))
    if (probs < 0).any() or not np.isfinite(probs).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (probs.reshape(-1, n_categories).sum(axis=1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    gen = generator_of(generator, input.is_cuda)
    if not replacement or num_samples == 1:
        with_q = empty_like(input, requires_grad=False)
        q = to_numpy(exponential_(with_q, generator=gen)._data)
        keys = (probs / q).astype(q.dtype)
        order = np.argsort(-keys, axis=-1, kind="stable")[..., :num_samples]
        return tensor(order.astype(np.int64), device=input.device)
    drawn = sampling.multinomial_with_replacement(gen, probs, num_samples)
    return tensor(drawn, device=input.device)


@public(
    "bernoulli",
    ("input",),
    (Param("p", "optional_number"),),
    category="creation",
    doc="1 with each element's probability (or p), else 0",
    # probabilities that need no grad: the sample stays one a tool can compare
    example=Example(params={"p": 0.5}, values={"input": "constant"}, deterministic=False),
)
def bernoulli(input: Any, p: Any = None, *, generator: Any = None) -> Any:  # noqa: A002
    """``torch.bernoulli(probs)`` (each element one with its own probability) or
    ``torch.bernoulli(input, p)`` (shaped like ``input``, probability ``p``)."""
    if p is not None:
        out = bernoulli_(empty_like(input), p, generator=generator)
        out._vc = None  # a new tensor: the fill is not a visible write (version 0)
        return out
    # drawn into a scratch tensor: the result is a new tensor (version 0), whose node
    # (BernoulliBackward0, zero gradient) links it to the probabilities
    drawn = bernoulli_(empty_like(input).detach(), input.detach(), generator=generator)
    return apply_op(BERNOULLI_PROBS, (input,), {"values": drawn._data})


@public(
    "normal",
    ("mean", Port("std", scalar_ok=True)),
    category="creation",
    doc="a normal draw per element with its mean and std",
    method=False,
    # no grad: PyTorch's result then has a ``NormalBackward`` node the engine lacks
    example=Example(values={"mean": "constant", "std": "positive"}, deterministic=False),
)
def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Any = None, **kw: Any) -> Any:
    """``torch.normal``: ATen's order of draws, ``normal_(0, 1)`` (or ``(0, std)`` for a
    number std with a tensor mean, ``(mean, std)`` for two numbers) then ``* std + mean``."""
    import numpy as np

    mean_t, std_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_t and not std_t:
        if size is None:
            raise TypeError("normal() missing 1 required positional argument: 'size'")
        requires_grad = kw.pop("requires_grad", False)
        out = normal_(empty(*tuple(size), **kw), mean, std, generator=generator)
        out._vc = None  # a new tensor: the fill is not a visible write
        return out.requires_grad_(requires_grad)
    if std_t and bool((std._data < 0).any()):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    shapes = [tuple(t.shape) for t in (mean, std) if isinstance(t, Tensor)]
    like = mean if mean_t else std
    out = empty(*np.broadcast_shapes(*shapes), dtype=like.dtype, device=like.device)
    if mean_t and not std_t:
        normal_(out, 0.0, std, generator=generator)
    else:
        normal_(out, 0.0, 1.0, generator=generator)
        out._data *= std._data
    out._data += mean._data if mean_t else mean
    out._vc = None
    return out
