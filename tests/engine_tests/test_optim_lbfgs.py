"""``optim.LBFGS``: PyTorch's rule ported op for op (closure calls, state, line search).

Its arithmetic is the engine's tensor ops (``dot``, ``add_`` with a tensor ``alpha``),
so its values are as close to PyTorch's as those ops are: ``dot`` of float32 vectors
may round its sum differently from PyTorch's BLAS (one ulp), and L-BFGS carries that
on. The oracle test therefore asks for the same closure calls, state keys, counters
and versions, and values within a few float32/float64 ulps, on runs short enough not
to amplify them; the tests without PyTorch check the minimizer against NumPy's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine

LBFGS_STATE_KEYS = [
    "func_evals",
    "n_iter",
    "al",
    "d",
    "t",
    "old_dirs",
    "old_stps",
    "ro",
    "H_diag",
    "prev_flat_grad",
    "prev_loss",
]


def _least_squares(line_search_fn: str | None) -> tuple[Any, np.ndarray, int]:
    rng = np.random.default_rng(4)
    a = rng.standard_normal((12, 3))
    b = rng.standard_normal(12)
    A, B = engine.tensor(a), engine.tensor(b)  # noqa: N806
    w = engine.zeros(3, dtype=engine.float64, requires_grad=True)
    opt = engine.optim.LBFGS([w], line_search_fn=line_search_fn, max_iter=50)
    calls = [0]

    def closure() -> Any:
        calls[0] += 1
        opt.zero_grad()
        loss = ((A @ w - B) ** 2).sum()
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    return opt, w.detach().numpy() - np.linalg.lstsq(a, b, rcond=None)[0], calls[0]


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_minimizes_least_squares_to_numpys_solution(line_search_fn: str | None) -> None:
    opt, error, calls = _least_squares(line_search_fn)
    assert np.max(np.abs(error)) < 1e-5  # stopped by tolerance_change on the loss
    state = opt.state[opt.param_groups[0]["params"][0]]
    assert list(state) == LBFGS_STATE_KEYS
    assert state["func_evals"] == calls and isinstance(state["n_iter"], int)
    assert len(state["old_dirs"]) == len(state["old_stps"]) == len(state["ro"]) <= 100


def test_options_and_errors() -> None:
    w = engine.zeros(2, requires_grad=True)
    opt = engine.optim.LBFGS([w], max_iter=8)
    group = {k: v for k, v in opt.param_groups[0].items() if k != "params"}
    assert group == {
        "lr": 1,
        "max_iter": 8,
        "max_eval": 10,
        "tolerance_grad": 1e-7,
        "tolerance_change": 1e-9,
        "history_size": 100,
        "line_search_fn": None,
    }
    with pytest.raises(ValueError, match=r"^Invalid learning rate: -1$"):
        engine.optim.LBFGS([w], lr=-1)
    v = engine.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match=r"^LBFGS doesn't support per-parameter options"):
        engine.optim.LBFGS([{"params": [w]}, {"params": [v], "lr": 0.1}])
    bad = engine.optim.LBFGS([w], line_search_fn="armijo")

    def closure() -> Any:
        bad.zero_grad()
        loss = ((w - 1) ** 2).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match=r"^only 'strong_wolfe' is supported$"):
        bad.step(closure)


#: short runs (see the module docstring): two steps of a few iterations each
ORACLE_CONFIGS = [
    {"max_iter": 4, "lr": 0.1},
    {"max_iter": 5, "history_size": 2},
    {"max_iter": 4, "line_search_fn": "strong_wolfe"},
    {"max_iter": 4, "history_size": 2, "line_search_fn": "strong_wolfe"},
]


def _rosenbrock(T: Any, dtype: type, options: dict[str, Any]) -> list[Any]:
    x = T.tensor(np.array([-1.2, 1.0, -0.5, 0.8], dtype), requires_grad=True)
    y = T.tensor(np.array([0.3, -0.7], dtype), requires_grad=True)
    opt = T.optim.LBFGS([x, y], **options)
    losses: list[float] = []

    def closure() -> Any:
        opt.zero_grad()
        v = T.cat([x, y])
        loss = (100 * (v[1:] - v[:-1] ** 2) ** 2 + (1 - v[:-1]) ** 2).sum()
        loss.backward()
        losses.append(loss.item())
        return loss

    for _ in range(2):
        opt.step(closure)
    state = opt.state[x]
    facts = [list(state), state["func_evals"], state["n_iter"], x._version, y._version]
    facts += [len(state["old_dirs"]), type(state["t"]).__name__, type(state["H_diag"]).__name__]
    values = [x.detach().numpy(), y.detach().numpy(), np.array(losses), state["d"].numpy()]
    return [facts, *values]


@pytest.mark.torch
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("options", ORACLE_CONFIGS, ids=lambda o: "-".join(map(str, o.values())))
def test_lbfgs_follows_torch(options: dict[str, Any], dtype: type) -> None:
    torch = pytest.importorskip("torch")
    ref = _rosenbrock(torch, dtype, options)
    got = _rosenbrock(engine, dtype, options)
    assert got[0] == ref[0]
    rtol = 1e-4 if dtype is np.float32 else 1e-12
    for r, g in zip(ref[1:], got[1:], strict=True):
        np.testing.assert_allclose(g, r, rtol=rtol, atol=rtol * float(np.max(np.abs(r))))
