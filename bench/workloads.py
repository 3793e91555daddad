"""The benchmark workloads, each written once.

Every workload has two builders over the same seeded NumPy data:

- ``make(T)`` for a torch-like module ``T`` (``engine`` or ``torch``: the same code runs on
  both, since the engine mirrors PyTorch's API), returning a ``step`` closure that does one
  forward + backward (and, for the MLP, the SGD update);
- ``make_numpy()``, raw NumPy doing the same arithmetic with the backward written by hand
  (no autograd), returning a ``step`` closure too.

A ``step`` returns its outputs (the loss, then the gradients) so that ``check.py`` can compare
the contenders; the timing loop ignores them. Inputs are created in NumPy from a fixed seed
and passed through ``T.tensor(array)``, so every contender sees identical data.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Step = Callable[[], Sequence[Any]]
SEED = 1234
F32 = np.float32


@dataclass(frozen=True)
class Target:
    """A pass/fail target: ``engine / baseline <= ratio`` (``baseline``: torch or numpy)."""

    baseline: str
    ratio: float


@dataclass(frozen=True)
class Workload:
    """One benchmark: its builders, how it is measured, and its target."""

    name: str
    title: str
    make: Callable[..., Step]
    make_numpy: Callable[..., Step]
    target: Target
    kind: str = "time"  # "time" (seconds per step) or "memory" (peak bytes of one step)
    repeats: int = 20  # timed steps per process
    warmup: int = 2  # untimed steps per process before timing
    rounds: int = 4  # processes per contender, interleaved round-robin
    per_step: int = 1  # divide a step's time by this for the reported figure (ops per step)
    unit: str = "ms"  # "ms", "us" or "MiB": the unit of the reported figure
    check_kwargs: dict[str, Any] = field(default_factory=dict)  # smaller size for check.py


def _rng(offset: int = 0) -> np.random.Generator:
    return np.random.default_rng(SEED + offset)


# --------------------------------------------------------------------------- per-op overhead
CHAIN_OPS = 1000  # four ops per unrolled iteration: mul, add, tanh, sub


def _chain_data() -> tuple[np.ndarray, np.ndarray]:
    rng = _rng(1)
    return rng.standard_normal(16).astype(F32), (0.01 * rng.standard_normal(16)).astype(F32)


def make_chain(T: Any, ops: int = CHAIN_OPS) -> Step:
    """A chain of ``ops`` elementwise ops on a 16-element tensor, then ``sum().backward()``."""
    x_np, c_np = _chain_data()
    x = T.tensor(x_np, requires_grad=True)
    c = T.tensor(c_np)

    def step() -> Sequence[Any]:
        x.grad = None
        h = x
        for _ in range(ops // 4):
            h = h * 1.0001
            h = h + c
            h = T.tanh(h)
            h = h - 0.001
        loss = h.sum()
        loss.backward()
        return [loss, x.grad]

    return step


def make_chain_numpy(ops: int = CHAIN_OPS) -> Step:
    """The chain in NumPy: forward keeping the tanh outputs, then the backward by hand."""
    x, c = _chain_data()

    def step() -> Sequence[Any]:
        saved = []
        h = x
        for _ in range(ops // 4):
            h = h * F32(1.0001)
            h = h + c
            h = np.tanh(h)
            saved.append(h)
            h = h - F32(0.001)
        loss = h.sum()
        g = np.ones_like(h)
        for y in reversed(saved):  # sub and add pass the gradient through unchanged
            g = g * (1 - y * y)
            g = g * F32(1.0001)
        return [loss, g]

    return step


# --------------------------------------------------------------------------- MLP training step
MLP_SIZES = (784, 256, 256, 10)
MLP_BATCH = 64
MLP_LR = 0.01


def _mlp_data() -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    rng = _rng(2)
    x = rng.standard_normal((MLP_BATCH, MLP_SIZES[0])).astype(F32)
    y = rng.integers(0, MLP_SIZES[-1], MLP_BATCH).astype(np.int64)
    params = []
    for n_in, n_out in itertools.pairwise(MLP_SIZES):
        params.append((rng.standard_normal((n_out, n_in)) * np.sqrt(2.0 / n_in)).astype(F32))
        params.append((0.01 * rng.standard_normal(n_out)).astype(F32))
    return x, y, params


def make_mlp(T: Any) -> Step:
    """One SGD step of a 784-256-256-10 ReLU MLP, batch 64, cross-entropy loss."""
    F = T.nn.functional
    x_np, y_np, p_np = _mlp_data()
    x, y = T.tensor(x_np), T.tensor(y_np)
    params = [T.tensor(p, requires_grad=True) for p in p_np]
    w1, b1, w2, b2, w3, b3 = params

    def step() -> Sequence[Any]:
        for p in params:
            p.grad = None
        h = F.relu(F.linear(x, w1, b1))
        h = F.relu(F.linear(h, w2, b2))
        loss = F.cross_entropy(F.linear(h, w3, b3), y)
        loss.backward()
        with T.no_grad():
            for p in params:
                p -= MLP_LR * p.grad
        return [loss, *(p.grad for p in params)]

    return step


def make_mlp_numpy() -> Step:
    """The MLP step in NumPy: forward, log-softmax cross-entropy, backward and SGD by hand."""
    x, y, params = _mlp_data()
    w1, b1, w2, b2, w3, b3 = params
    rows = np.arange(MLP_BATCH)

    def step() -> Sequence[Any]:
        z1 = x @ w1.T + b1
        a1 = np.maximum(z1, 0)
        z2 = a1 @ w2.T + b2
        a2 = np.maximum(z2, 0)
        z3 = a2 @ w3.T + b3
        shifted = z3 - z3.max(axis=1, keepdims=True)
        logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        loss = -logp[rows, y].mean()
        g3 = np.exp(logp)
        g3[rows, y] -= 1
        g3 /= MLP_BATCH
        gw3, gb3 = g3.T @ a2, g3.sum(axis=0)
        g2 = (g3 @ w3) * (z2 > 0)
        gw2, gb2 = g2.T @ a1, g2.sum(axis=0)
        g1 = (g2 @ w2) * (z1 > 0)
        gw1, gb1 = g1.T @ x, g1.sum(axis=0)
        grads = [gw1, gb1, gw2, gb2, gw3, gb3]
        for p, g in zip(params, grads):
            p -= MLP_LR * g
        return [loss, *grads]

    return step


# --------------------------------------------------------------------------- matmul chain
MATMUL_N = 1024
MATMUL_CHAIN = 4


def _matmul_data() -> tuple[np.ndarray, list[np.ndarray]]:
    rng = _rng(3)
    x = rng.standard_normal((MATMUL_N, MATMUL_N), dtype=F32)
    scale = F32(1 / np.sqrt(MATMUL_N))
    ws = [rng.standard_normal((MATMUL_N, MATMUL_N), dtype=F32) * scale for _ in range(4)]
    return x, ws


def make_matmul(T: Any) -> Step:
    """``x @ W1 @ W2 @ W3 @ W4`` on 1024×1024 float32, ``sum().backward()`` into the four W."""
    x_np, w_np = _matmul_data()
    x = T.tensor(x_np)
    ws = [T.tensor(w, requires_grad=True) for w in w_np]

    def step() -> Sequence[Any]:
        for w in ws:
            w.grad = None
        h = x
        for w in ws:
            h = h @ w
        loss = h.sum()
        loss.backward()
        return [loss, *(w.grad for w in ws)]

    return step


def make_matmul_numpy() -> Step:
    """The matmul chain in NumPy: 4 forward matmuls, 7 backward ones (no grad for x)."""
    x, ws = _matmul_data()

    def step() -> Sequence[Any]:
        hs = [x]
        for w in ws:
            hs.append(hs[-1] @ w)
        loss = hs[-1].sum()
        g = np.ones_like(hs[-1])
        grads: list[np.ndarray] = [g] * len(ws)
        for i in reversed(range(len(ws))):
            grads[i] = hs[i].T @ g
            if i:
                g = g @ ws[i].T
        return [loss, *grads]

    return step


# --------------------------------------------------------------------------- wide graph
WIDE_BRANCHES = 5000


def _wide_data() -> tuple[np.ndarray, list[np.ndarray]]:
    rng = _rng(4)
    x = rng.standard_normal(16).astype(F32)
    return x, [rng.uniform(0.5, 1.5, 16).astype(F32) for _ in range(WIDE_BRANCHES)]


def make_wide(T: Any) -> Step:
    """5,000 branches ``tanh(x * w_i).sum()``, each ``w_i`` a 16-element leaf of its own
    (as each layer of a real model has its weights), stacked, summed, backward."""
    x_np, w_np = _wide_data()
    x = T.tensor(x_np, requires_grad=True)
    ws = [T.tensor(w, requires_grad=True) for w in w_np]

    def step() -> Sequence[Any]:
        x.grad = None
        for w in ws:
            w.grad = None
        loss = T.stack([T.tanh(x * w).sum() for w in ws]).sum()
        loss.backward()
        return [loss, x.grad, *(w.grad for w in ws[:: WIDE_BRANCHES // 10])]

    return step


def make_wide_numpy() -> Step:
    """The wide graph in NumPy: every branch forward, then every branch's backward."""
    x, ws = _wide_data()

    def step() -> Sequence[Any]:
        ys = [np.tanh(x * w) for w in ws]
        loss = np.stack([y.sum() for y in ys]).sum()
        gx = np.zeros_like(x)
        gws = []
        for y, w in zip(ys, ws):
            local = 1 - y * y
            gx = gx + local * w
            gws.append(local * x)
        return [loss, gx, *gws[:: WIDE_BRANCHES // 10]]

    return step


# --------------------------------------------------------------------------- memory chain
MEM_LAYERS = 200
MEM_N = 512


def _memory_data(layers: int) -> tuple[np.ndarray, list[np.ndarray]]:
    rng = _rng(5)
    h = rng.standard_normal((MEM_N, MEM_N), dtype=F32)
    scale = F32(1 / np.sqrt(MEM_N))
    return h, [rng.standard_normal((MEM_N, MEM_N), dtype=F32) * scale for _ in range(layers)]


def make_memory(T: Any, layers: int = MEM_LAYERS) -> Step:
    """``h = tanh(h @ W)`` for ``layers`` 512×512 float32 layers, ``sum().backward()``."""
    h_np, w_np = _memory_data(layers)
    h0 = T.tensor(h_np)
    ws = [T.tensor(w, requires_grad=True) for w in w_np]
    del h_np, w_np

    def step() -> Sequence[Any]:
        for w in ws:
            w.grad = None
        h = h0
        for w in ws:
            h = T.tanh(h @ w)
        loss = h.sum()
        loss.backward()
        return [loss, *(w.grad for w in ws)]

    return step


def make_memory_numpy(layers: int = MEM_LAYERS) -> Step:
    """The tanh chain in NumPy, keeping each layer's output and freeing it once used back."""
    h0, ws = _memory_data(layers)

    def step() -> Sequence[Any]:
        hs = [h0]
        for w in ws:
            hs.append(np.tanh(hs[-1] @ w))
        loss = hs[-1].sum()
        g = np.ones_like(hs[-1])
        grads: list[np.ndarray] = [g] * len(ws)
        for i in reversed(range(len(ws))):
            y = hs.pop()
            g = g * (1 - y * y)
            del y
            grads[i] = hs[-1].T @ g
            g = g @ ws[i].T
        return [loss, *grads]

    return step


WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in (
        Workload(
            "per_op",
            "per-op overhead: 1,000-op elementwise chain, 16 elements, fwd+bwd",
            make_chain,
            make_chain_numpy,
            Target("torch", 1.0),
            repeats=30,
            warmup=3,
            per_step=CHAIN_OPS,
            unit="us",
        ),
        Workload(
            "mlp",
            "MLP 784-256-256-10 training step, batch 64, cross-entropy",
            make_mlp,
            make_mlp_numpy,
            Target("torch", 1.0),
            repeats=100,
            warmup=10,
        ),
        Workload(
            "matmul",
            "matmul chain of four 1024×1024, fwd+bwd",
            make_matmul,
            make_matmul_numpy,
            Target("numpy", 1.1),
            repeats=3,
            warmup=1,
            rounds=3,
        ),
        Workload(
            "wide",
            "wide graph: 5,000 branches, each with its own leaf, fwd+bwd",
            make_wide,
            make_wide_numpy,
            Target("torch", 1.0),
            repeats=4,
            warmup=1,
        ),
        Workload(
            "memory",
            "peak memory: 200-layer 512×512 tanh(h @ W) chain, fwd+bwd",
            make_memory,
            make_memory_numpy,
            Target("torch", 1.0),
            kind="memory",
            repeats=1,
            warmup=0,
            rounds=2,
            unit="MiB",
            check_kwargs={"layers": 20},
        ),
    )
}
