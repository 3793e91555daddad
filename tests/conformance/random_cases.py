"""Programs that draw random numbers, for the bit-exact comparison with PyTorch.

Each case takes the module under test (``torch`` or ``engine``) and returns the
tensors it drew, named.  ``tools/gen_golden.py`` runs them under PyTorch and
stores a digest of every tensor's bytes (plus its first values, readable) in
``random_golden.json``; ``tests/engine_tests/test_random.py`` replays them on the
engine and, where torch is installed, compares with it live.  A case runs calls
in sequence after one ``manual_seed`` so that the generator's state after each
call (words consumed, the cached normal) is checked too.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from typing import Any

import numpy as np

SEEDS = (0, 1, 42, 2**40 + 7)
SIZES = (1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 100, 1001)
BIG = 100_000

Case = Callable[[Any], dict[str, Any]]
CASES: dict[str, Case] = {}


def _case(name: str) -> Callable[[Case], Case]:
    def register(fn: Case) -> Case:
        CASES[name] = fn
        return fn

    return register


def _sizes_case(kind: str, dtype_name: str, seed: int) -> Case:
    def run(T: Any) -> dict[str, Any]:
        T.manual_seed(seed)
        fn = getattr(T, kind)
        dtype = getattr(T, dtype_name)
        return {f"{kind}({n})": fn(n, dtype=dtype) for n in (*SIZES, BIG)}

    return run


for _kind in ("rand", "randn"):
    for _dt in ("float32", "float64"):
        for _seed in SEEDS:
            CASES[f"{_kind}_{_dt}_seed{_seed}"] = _sizes_case(_kind, _dt, _seed)


@_case("normal_cache_and_interleaving")
def _interleaving(T: Any) -> dict[str, Any]:
    """Odd scalar-path normals leave a cached sample that the next normal uses."""
    T.manual_seed(3)
    out = {"randn(3)": T.randn(3), "randn(1)": T.randn(1), "rand(2)": T.rand(2)}
    out["randn(5) f64"] = T.randn(5, dtype=T.float64)
    out["randn(20)"] = T.randn(20)
    out["randn(1) again"] = T.randn(1)
    out["randn(2, 3)"] = T.randn(2, 3)
    T.manual_seed(3)
    out["randn(3) after reseed"] = T.randn(3)
    out["randn(3) more"] = T.randn(3)
    return out


@_case("fills_in_place")
def _fills(T: Any) -> dict[str, Any]:
    T.manual_seed(7)
    out = {}
    for dt in (T.float32, T.float64):
        name = str(dt).split(".")[-1]
        out[f"uniform_(-2, 3) {name}"] = T.empty(40, dtype=dt).uniform_(-2, 3)
        out[f"uniform_ small {name}"] = T.empty(5, dtype=dt).uniform_(-1 / 3, 0.1)
        out[f"normal_(0.5, 2) {name}"] = T.empty(37, dtype=dt).normal_(0.5, 2)
        out[f"normal_ small {name}"] = T.empty(9, dtype=dt).normal_(-1, 0.25)
        out[f"normal_ transposed {name}"] = T.empty(5, 4, dtype=dt).t().normal_()
        out[f"uniform_ transposed {name}"] = T.empty(3, 6, dtype=dt).t().uniform_()
        out[f"bernoulli_(0.3) {name}"] = T.empty(50, dtype=dt).bernoulli_(0.3)
    out["bernoulli_ int64"] = T.empty(20, dtype=T.int64).bernoulli_(0.5)
    out["random_(0, 7)"] = T.empty(12, dtype=T.int64).random_(0, 7)
    out["random_(5)"] = T.empty(6, dtype=T.int32).random_(5)
    for name in ("float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool"):
        out[f"random_() {name}"] = T.empty(7, dtype=getattr(T, name)).random_()
    probs = T.tensor([[0.1, 0.9, 0.5], [0.3, 0.2, 0.99]])
    out["bernoulli_(probs) transposed"] = T.empty(3, 2).t().bernoulli_(probs)
    out["bernoulli_(row f64)"] = T.empty(2, 3, dtype=T.float64).bernoulli_(probs.double()[0])
    out["rand_like"] = T.rand_like(T.zeros(2, 5))
    out["randn_like f64"] = T.randn_like(T.zeros(4, 5, dtype=T.float64))
    return out


@_case("integers")
def _integers(T: Any) -> dict[str, Any]:
    T.manual_seed(11)
    return {
        "randint(10, (5,))": T.randint(10, (5,)),
        "randint(-5, 5, (3, 4))": T.randint(-5, 5, (3, 4)),
        "randint(0, 2**28, (6,))": T.randint(0, 2**28, (6,)),
        "randint(3, 2**40, (6,))": T.randint(3, 2**40, (6,)),
        "randint float": T.randint(0, 100, (4,), dtype=T.float32),
        "randint_like": T.randint_like(T.zeros(2, 3), 4, 9),
        "randint_like(high=)": T.randint_like(T.zeros(4), high=3),
        "randint keywords": T.randint(low=2, high=9, size=(3,)),
        "randint(5, size=)": T.randint(5, size=(2, 2)),
        "rand(size=)": T.rand(size=(2, 2)),
        "randperm(1)": T.randperm(1),
        "randperm(10)": T.randperm(10),
        "randperm(1000)": T.randperm(1000),
        "randperm(100000)": T.randperm(BIG),
        "randn after": T.randn(4),
    }


@_case("bernoulli_probabilities")
def _bernoulli(T: Any) -> dict[str, Any]:
    T.manual_seed(5)
    p32 = T.tensor([i / 29 for i in range(30)])
    return {
        "bernoulli(p f32)": T.bernoulli(p32),
        "bernoulli(p f64)": T.bernoulli(p32.double()),
        "bernoulli(x, 0.25)": T.bernoulli(T.zeros(3, 4), 0.25),
    }


@_case("generators")
def _generators(T: Any) -> dict[str, Any]:
    g = T.Generator().manual_seed(123)
    T.manual_seed(0)
    return {
        "rand(g)": T.rand(2, 3, generator=g),
        "randn(g)": T.randn(17, generator=g),
        "default after": T.rand(2),
        "randint(g)": T.randint(0, 5, (4,), generator=g),
        "randperm(g)": T.randperm(6, generator=g),
        "uniform_(g)": T.empty(3).uniform_(0, 1, generator=g),
    }


@_case("dropout")
def _dropout(T: Any) -> dict[str, Any]:
    F = T.nn.functional
    T.manual_seed(2)
    x = T.ones(4, 8, requires_grad=True)
    y = F.dropout(x, 0.2)
    y.sum().backward()
    return {
        "dropout(0.2)": y.detach(),
        "x.grad": x.grad,
        "dropout f64 p=0.5": F.dropout(T.ones(33, dtype=T.float64), 0.5),
        "dropout eval": F.dropout(T.ones(3), 0.5, training=False),
        "next": T.rand(3),
    }


def linear_init(T: Any, fan_in: int, fan_out: int) -> tuple[Any, Any]:
    """``nn.Linear(fan_in, fan_out)``'s parameters: PyTorch's own layer where it
    exists, else ``reset_parameters``' calls in its order."""
    if hasattr(T.nn, "Linear"):
        layer = T.nn.Linear(fan_in, fan_out)
        return layer.weight.detach(), layer.bias.detach()
    weight, bias = T.empty(fan_out, fan_in), T.empty(fan_out)
    T.nn.init.kaiming_uniform_(weight, a=math.sqrt(5))
    bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
    T.nn.init.uniform_(bias, -bound, bound)
    return weight, bias


@_case("nn_init")
def _init(T: Any) -> dict[str, Any]:
    init = T.nn.init
    T.manual_seed(0)
    w1, b1 = linear_init(T, 3, 2)
    w2, b2 = linear_init(T, 20, 10)
    out = {"Linear(3, 2).weight": w1, "Linear(3, 2).bias": b1}
    out.update({"Linear(20, 10).weight": w2, "Linear(20, 10).bias": b2})
    out["xavier_uniform_"] = init.xavier_uniform_(T.empty(4, 6))
    out["xavier_normal_"] = init.xavier_normal_(T.empty(4, 6), gain=init.calculate_gain("tanh"))
    out["kaiming_uniform_ relu"] = init.kaiming_uniform_(T.empty(5, 3, 2), nonlinearity="relu")
    out["kaiming_normal_ fan_out"] = init.kaiming_normal_(T.empty(8, 4), mode="fan_out")
    out["normal_"] = init.normal_(T.empty(3, 3), 0.0, 0.02)
    out["uniform_"] = init.uniform_(T.empty(2, 2, dtype=T.float64), -0.1, 0.1)
    return out


@_case("nn_init_truncated_sparse_dirac")
def _init_more(T: Any) -> dict[str, Any]:
    """``trunc_normal_`` down both of PyTorch 2.13's paths (normal draws redrawn outside
    ``[a, b]``; uniform draws accepted against the density), ``sparse_`` (``randperm`` on
    the default generator per column) and ``dirac_``."""
    init = T.nn.init
    T.manual_seed(0)
    out = {"trunc_normal_ std 0.02": init.trunc_normal_(T.empty(50, 40), std=0.02)}
    out["trunc_normal_ narrow"] = init.trunc_normal_(T.empty(7, 9), 0.5, 1.0, -0.1, 0.2)
    out["trunc_normal_ tail"] = init.trunc_normal_(T.empty(33), 0.0, 1.0, 1.5, 4.0)
    out["trunc_normal_ redrawn"] = init.trunc_normal_(T.empty(64, 3), 0.0, 1.0, -1.0, 1.0)
    gen = T.Generator().manual_seed(5)
    out["trunc_normal_ generator"] = init.trunc_normal_(T.empty(3, 4), generator=gen)
    out["sparse_"] = init.sparse_(T.empty(6, 5), 0.4)
    out["dirac_ groups 2"] = init.dirac_(T.empty(4, 2, 3, 3), groups=2)
    return out


@_case("geometric_cauchy_log_normal_poisson")
def _more_fills(T: Any) -> dict[str, Any]:
    """``geometric_``, ``cauchy_``, ``log_normal_`` (its normals share the cached second
    draw with ``normal_``'s scalar path) and ``torch.poisson`` (both of its samplers: the
    product of uniforms below a rate of 10, Hörmann's rejection from 10 on)."""
    T.manual_seed(13)
    out = {}
    for dt in (T.float32, T.float64):
        name = str(dt).split(".")[-1]
        out[f"geometric_(0.3) {name}"] = T.empty(40, dtype=dt).geometric_(0.3)
        out[f"geometric_(1e-3) {name}"] = T.empty(20, dtype=dt).geometric_(1e-3)
        out[f"cauchy_(0.5, 2) {name}"] = T.empty(41, dtype=dt).cauchy_(0.5, 2.0)
        out[f"cauchy_ transposed {name}"] = T.empty(5, 3, dtype=dt).t().cauchy_()
        out[f"log_normal_(0.2, 0.7) {name}"] = T.empty(37, dtype=dt).log_normal_(0.2, 0.7)
        out[f"log_normal_ odd {name}"] = T.empty(3, dtype=dt).log_normal_()
        out[f"randn after {name}"] = T.randn(3, dtype=dt)
    out["geometric_ int64"] = T.empty(30, dtype=T.int64).geometric_(0.2)
    out["geometric_ int32"] = T.empty(7, dtype=T.int32).geometric_(0.9)
    rates = T.tensor([[0.0, 0.5, 3.0, 9.99], [10.0, 25.5, 100.0, 1e4]])
    out["poisson"] = T.poisson(rates)
    out["poisson float64 transposed"] = T.poisson(rates.double().t())
    out["poisson(37)"] = T.poisson(T.full((300,), 37.0))
    out["poisson(1.5)"] = T.poisson(T.full((300,), 1.5))
    gen = T.Generator().manual_seed(4)
    out["geometric_ generator"] = T.empty(4).geometric_(0.5, generator=gen)
    out["poisson generator"] = T.poisson(T.full((4,), 12.0), generator=gen)
    out["after"] = T.rand(4, dtype=T.float64)
    return out


@_case("rrelu")
def _rrelu(T: Any) -> dict[str, Any]:
    """``F.rrelu`` in training: a slope per non-positive element (a double between the
    bounds rounded to float for float tensors), its gradient the slopes; evaluation's
    mean slope; ``nn.RReLU`` and the in-place form."""
    F = T.nn.functional
    T.manual_seed(5)
    x = T.linspace(-3, 2, 37, requires_grad=True)
    y = F.rrelu(x, training=True)
    (y * T.arange(37.0)).sum().backward()
    xd = T.linspace(-3, 2, 21, dtype=T.float64)
    out = {"rrelu train": y.detach(), "x.grad": x.grad}
    out["rrelu(0.1, 0.9) float64"] = F.rrelu(xd, 0.1, 0.9, training=True)
    out["rrelu eval"] = F.rrelu(x.detach())
    out["rrelu_ in place"] = F.rrelu(x.detach().clone(), training=True, inplace=True)
    layer = T.nn.RReLU(0.1, 0.3)
    out["RReLU train"] = layer(x.detach())
    out["RReLU eval"] = layer.eval()(x.detach())
    out["after"] = T.rand(3)
    return out


@_case("nn_conv_transpose_init")
def _conv_transpose_init(T: Any) -> dict[str, Any]:
    """``ConvTranspose1d/2d/3d``'s parameters: Kaiming-uniform with fans read from the
    ``(in, out / groups, *kernel)`` weight, then the bias, as ``_ConvNd`` draws them."""
    T.manual_seed(0)
    layers = {
        "ConvTranspose2d(16, 3, 4, 2, 1, bias=False)": T.nn.ConvTranspose2d(
            16, 3, 4, 2, 1, bias=False
        ),
        "ConvTranspose2d(4, 6, (3, 2), groups=2)": T.nn.ConvTranspose2d(4, 6, (3, 2), groups=2),
        "ConvTranspose1d(5, 2, 3)": T.nn.ConvTranspose1d(5, 2, 3),
        "ConvTranspose3d(2, 4, 2)": T.nn.ConvTranspose3d(2, 4, 2),
    }
    out = {}
    for name, layer in layers.items():
        for pname, param in layer.named_parameters():
            out[f"{name}.{pname}"] = param.detach()
    out["after"] = T.rand(3)
    return out


def as_array(t: Any) -> np.ndarray:
    return np.ascontiguousarray(t.detach().numpy() if hasattr(t, "detach") else np.asarray(t))


def fingerprint(arr: np.ndarray) -> dict[str, Any]:
    """The exact identity of a tensor's values: dtype, shape, SHA-256 of its bytes,
    and its first values in hex (floats) or decimal (integers) for readable diffs."""
    head = arr.ravel()[:4]
    first = [float(v).hex() for v in head] if arr.dtype.kind == "f" else [int(v) for v in head]
    return {
        "dtype": str(arr.dtype),
        "shape": list(arr.shape),
        "sha256": hashlib.sha256(arr.tobytes()).hexdigest(),
        "first": first,
    }


def record(T: Any) -> dict[str, dict[str, Any]]:
    """Every case run under ``T``, fingerprinted."""
    return {
        name: {k: fingerprint(as_array(v)) for k, v in case(T).items()}
        for name, case in CASES.items()
    }


@_case("rng_state")
def _rng_state(T: Any) -> dict[str, Any]:
    """``get_rng_state`` bytes after seeding, draws, a cached normal and a whole
    block, and draws after ``set_rng_state`` (fresh and mid-block states)."""
    T.manual_seed(7)
    out = {"seeded": T.get_rng_state(), "rand(3)": T.rand(3)}
    after_rand = T.get_rng_state()
    out["randn(1)"] = T.randn(1)
    out["cached normal"] = T.get_rng_state()
    cached = out["cached normal"]
    out["rand(621)"] = T.rand(621)
    out["mid block"] = T.get_rng_state()
    T.set_rng_state(after_rand)
    out["randn(3) from restored"] = T.randn(3)
    T.set_rng_state(cached)
    out["randn(2) uses the cache"] = T.randn(2)
    T.manual_seed(7)
    out["rand(624)"] = T.rand(624)
    out["block end"] = T.get_rng_state()
    out["rand(2) after block"] = T.rand(2)
    T.set_rng_state(out["seeded"])
    out["rand(2) from seeded"] = T.rand(2)
    g = T.Generator()
    out["new generator"] = g.get_state()
    out["its seed"] = T.tensor([g.initial_seed()])
    return out
