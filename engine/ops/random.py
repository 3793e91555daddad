"""The in-place random fills (``uniform_``, ``normal_``, ``bernoulli_``,
``random_``) and ``torch.bernoulli``, drawing from PyTorch's CPU generator.

Each fill draws its values first (after the leaf check, which PyTorch makes
before its kernel touches the generator), in the tensor's memory order as
``TensorIterator`` visits it, then writes them in place like ``fill_``: a tensor
with history gets ``UniformBackward0`` and kin, whose gradient is zero.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes
from engine.ops.core import apply_inplace, check_inplace, declare
from engine.random import default_generator, sampling
from engine.random.generator import Generator


def _written(xp: Any, a: Any, values: Any) -> Any:
    return xp.asarray(values).astype(a.dtype, copy=False)


def _zero_grad(c: Any, g: Any) -> Any:
    return g * 0


UNIFORM = declare("uniform_", "UniformBackward0", ("self",), _written, _zero_grad, dtype="same")
NORMAL = declare("normal_", "NormalBackward0", ("self",), _written, _zero_grad, dtype="same")
BERNOULLI = declare(
    "bernoulli_", "BernoulliBackward2", ("self",), _written, _zero_grad, dtype="same"
)
RANDOM = declare("random_", "RandomBackward0", ("self",), _written, _zero_grad, dtype="same")


def _num(x: float) -> str:
    """A number as PyTorch's C++ messages print it (``ostream`` default: %g)."""
    return f"{x:g}"


def generator_of(generator: Generator | None) -> Generator:
    return default_generator if generator is None else generator


def in_memory_order(shape: tuple[int, ...], strides: tuple[int, ...], flat: np.ndarray) -> Any:
    """``flat`` laid out so that filling the array walks its memory in order, as a
    nullary ``TensorIterator`` does (a transposed view is filled column by column)."""
    order = sorted(range(len(shape)), key=lambda i: -abs(strides[i]))
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
    gen = generator_of(generator)
    return _fill(UNIFORM, t, lambda n: sampling.uniform(gen, n, t.dtype.np, from_, to))


def normal_(t: Any, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Any:
    """``Tensor.normal_(mean=0, std=1)``; a non-contiguous tensor takes the scalar path."""
    if not t.dtype.is_floating_point:
        raise _not_implemented("normal_kernel_cpu", t)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    gen = generator_of(generator)
    contiguous = t.is_contiguous()
    return _fill(NORMAL, t, lambda n: sampling.normal(gen, n, t.dtype.np, mean, std, contiguous))


def bernoulli_(t: Any, p: float = 0.5, *, generator: Any = None) -> Any:
    """``Tensor.bernoulli_(p)`` with a number ``p`` (ones with probability ``p``)."""
    from engine.tensor import Tensor

    if isinstance(p, Tensor):
        raise TypeError("bernoulli_(): only a number p is supported by the engine")
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
    gen = generator_of(generator)
    return _fill(BERNOULLI, t, lambda n: sampling.bernoulli(gen, n, p))


def random_(t: Any, from_: int = 0, to: int | None = None, *, generator: Any = None) -> Any:
    """``Tensor.random_(from, to)`` (``random_(to)`` draws from ``[0, to)``)."""
    if to is None:
        if from_ == 0:
            raise TypeError("random_(): the engine needs an upper bound (random_(to))")
        from_, to = 0, from_
    if from_ >= to:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}"
        )
    gen = generator_of(generator)
    return _fill(RANDOM, t, lambda n: sampling.randint(gen, n, int(from_), int(to)))


def bernoulli(input: Any, p: Any = None, *, generator: Any = None) -> Any:  # noqa: A002
    """``torch.bernoulli(probs)``: each element one with its own probability.

    Float32 probabilities compare with a 24-bit uniform, float64 ones with a
    53-bit uniform (``bernoulli_distribution<float|double>`` per element).
    """
    from engine.creation import empty_like

    if p is not None:
        return bernoulli_(empty_like(input), p, generator=generator)
    probs = np.asarray(input.numpy(force=True))
    if probs.size and not ((probs >= 0) & (probs <= 1)).all():
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    gen = generator_of(generator)
    unit_dtype = np.float64 if input.dtype is dtypes.float64 else np.float32
    out = empty_like(input)

    def draw(n: int) -> np.ndarray:
        u = sampling.unit(gen, n, np.dtype(unit_dtype))
        return u < np.ravel(probs).astype(unit_dtype)

    return _fill(BERNOULLI, out, draw)
