"""Adadelta, Adamax, NAdam, RAdam, Rprop and ASGD step as PyTorch 2.13 steps them.

``golden/optim_rules.json`` holds what PyTorch gave (``python -m
tests.engine_tests.test_optim_rules`` re-records it): parameter and state values as
exact hex floats after a few steps, state dtypes, version counters, ``param_groups``,
a ``state_dict`` round trip and constructor error messages, in float32 and float64.
The engine must give the same bits, versions and text, except where an update takes a
square root (Adadelta, NAdam, RAdam): PyTorch's CPU ``sqrt`` is MKL-VML here and not
correctly rounded, so those values may differ by a few units of the array's last place.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import engine

GOLDEN = Path(__file__).parent / "golden" / "optim_rules.json"

SHAPES = [(3, 4), (5,), ()]

#: name -> (optimizer, options, steps); steps enough for RAdam to rectify (rho_t > 5)
CASES: dict[str, tuple[str, dict[str, Any], int]] = {
    "adadelta": ("Adadelta", {}, 3),
    "adadelta_wd_max": (
        "Adadelta",
        {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1, "maximize": True},
        3,
    ),
    "adamax": ("Adamax", {}, 3),
    "adamax_wd_max": (
        "Adamax",
        {"lr": 0.01, "betas": (0.8, 0.9), "weight_decay": 0.1, "maximize": True},
        3,
    ),
    "nadam": ("NAdam", {"lr": 0.01}, 3),
    "nadam_wd": ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "momentum_decay": 0.01}, 3),
    "nadam_decoupled_max": (
        "NAdam",
        {"weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True},
        3,
    ),
    "radam": ("RAdam", {"lr": 0.01}, 3),
    "radam_rectified": ("RAdam", {"lr": 0.01, "betas": (0.9, 0.8), "weight_decay": 0.1}, 10),
    "radam_decoupled_max": (
        "RAdam",
        {
            "betas": (0.5, 0.8),
            "weight_decay": 0.1,
            "decoupled_weight_decay": True,
            "maximize": True,
        },
        10,
    ),
    "rprop": ("Rprop", {}, 4),
    "rprop_etas_max": (
        "Rprop",
        {"lr": 0.1, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2), "maximize": True},
        4,
    ),
    "asgd": ("ASGD", {}, 3),
    "asgd_averaging": ("ASGD", {"lr": 0.1, "lambd": 0.01, "t0": 1, "weight_decay": 0.1}, 4),
    "asgd_max": ("ASGD", {"maximize": True, "t0": 0, "alpha": 0.5}, 3),
}

#: Optimizers whose update takes a square root (see the module docstring).
SQRT_BASED = {"Adadelta", "NAdam", "RAdam"}

#: (optimizer, invalid options) whose constructor error message must be PyTorch's
INVALID: list[tuple[str, dict[str, Any]]] = [
    ("Adadelta", {"lr": -1.0}),
    ("Adadelta", {"rho": 1.5}),
    ("Adadelta", {"eps": -1.0}),
    ("Adadelta", {"weight_decay": -0.1}),
    ("Adamax", {"betas": (1.0, 0.9)}),
    ("Adamax", {"betas": (0.9, -0.1)}),
    ("Adamax", {"eps": -1e-8}),
    ("NAdam", {"momentum_decay": -1.0}),
    ("NAdam", {"betas": (0.9, 1.0)}),
    ("NAdam", {"weight_decay": -1.0}),
    ("RAdam", {"lr": -0.5}),
    ("RAdam", {"betas": (-0.1, 0.9)}),
    ("Rprop", {"etas": (1.0, 1.2)}),
    ("Rprop", {"etas": (0.5, 0.9)}),
    ("Rprop", {"lr": -1.0}),
    ("ASGD", {"weight_decay": -1.0}),
    ("ASGD", {"lr": -0.01}),
]


def _hex(values: Any) -> list[str]:
    return [float(v).hex() for v in np.asarray(values, dtype=np.float64).reshape(-1)]


def _params(T: Any, dtype: str, device: str) -> tuple[list[Any], np.random.Generator]:
    rng = np.random.default_rng(11)
    np_dtype = np.dtype(dtype)
    params = [
        T.tensor(rng.standard_normal(s).astype(np_dtype), device=device, requires_grad=True)
        for s in SHAPES
    ]
    return params, rng


def _grads(T: Any, params: list[Any], rng: np.random.Generator) -> None:
    for p in params:
        values = rng.standard_normal(tuple(p.shape)).astype(_numpy(p).dtype)
        p.grad = T.tensor(values, device=p.device)


def _numpy(t: Any) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy())


def _state_facts(opt: Any, params: list[Any]) -> list[dict[str, Any]]:
    out = []
    for p in params:
        entry = {}
        for key, value in opt.state[p].items():
            entry[key] = [str(value.dtype).rsplit(".", 1)[-1], value._version, _hex(_numpy(value))]
        out.append(entry)
    return out


def _groups(opt: Any) -> list[dict[str, Any]]:
    return json.loads(json.dumps(opt.state_dict()["param_groups"]))


def facts(T: Any, case: str, dtype: str, device: str = "cpu") -> dict[str, Any]:
    """Parameters, state, versions and groups after the case's steps, and after a
    ``state_dict``/``load_state_dict`` round trip into a fresh optimizer midway."""
    name, options, steps = CASES[case]
    make = getattr(T.optim, name)
    params, rng = _params(T, dtype, device)
    opt = make(params, **options)
    for _ in range(steps):
        _grads(T, params, rng)
        opt.step()
    out: dict[str, Any] = {
        "params": [_hex(_numpy(p)) for p in params],
        "versions": [p._version for p in params],
        "state": _state_facts(opt, params),
        "groups": _groups(opt),
    }
    params, rng = _params(T, dtype, device)
    opt = make(params, **options)
    for step in range(steps):
        _grads(T, params, rng)
        opt.step()
        if step == 0:
            saved = opt.state_dict()
            opt = make(params, **options)
            opt.load_state_dict(saved)
    out["reloaded_params"] = [_hex(_numpy(p)) for p in params]
    out["devices"] = [{k: str(v.device) for k, v in opt.state[p].items()} for p in params]
    out["reloaded_state"] = _state_facts(opt, params)
    return out


def error_facts(T: Any) -> list[str]:
    p = T.zeros(2, requires_grad=True)
    messages = []
    for name, options in INVALID:
        try:
            getattr(T.optim, name)([p], **options)
        except ValueError as e:
            messages.append(f"{name}: {e}")
        else:
            messages.append(f"{name}: accepted")
    return messages


def _all_facts(T: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        f"{case}/{dtype}": facts(T, case, dtype)
        for case in CASES
        for dtype in ("float32", "float64")
    }
    data["errors"] = error_facts(T)
    return data


def _values_close(got: list[str], want: list[str], dtype: str, exact: bool) -> bool:
    """Equal bits; or, for a square-root-based rule, within 8 units of the last place
    of the array's largest magnitude (differences seen: at most about 2)."""
    a = np.array([float.fromhex(v) for v in got])
    b = np.array([float.fromhex(v) for v in want])
    if exact or a.size == 0:
        return got == want
    scale = float(np.max(np.abs(b))) or math.ulp(0.0)
    tolerance = 8 * float(np.finfo(np.dtype(dtype)).eps) * scale
    return bool(np.all(np.abs(a - b) <= tolerance))


def assert_facts_match(got: dict[str, Any], want: dict[str, Any], case: str, dtype: str) -> None:
    exact = CASES[case][0] not in SQRT_BASED
    assert got["devices"] == want["devices"]
    assert got["versions"] == want["versions"]
    assert got["groups"] == want["groups"]
    for params_key, state_key in (("params", "state"), ("reloaded_params", "reloaded_state")):
        for g, w in zip(got[params_key], want[params_key], strict=True):
            assert _values_close(g, w, dtype, exact), (params_key, g, w)
        for g_state, w_state in zip(got[state_key], want[state_key], strict=True):
            assert list(g_state) == list(w_state)
            for key, (g_dtype, g_version, g_values) in g_state.items():
                w_dtype, w_version, w_values = w_state[key]
                assert (key, g_dtype, g_version) == (key, w_dtype, w_version)
                exact_here = exact or key in ("step", "mu_product")
                assert _values_close(g_values, w_values, dtype, exact_here), (
                    key,
                    g_values,
                    w_values,
                )


def _golden() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(GOLDEN.read_text("utf-8"))
    return data


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES)
def test_steps_match_the_golden(case: str, dtype: str) -> None:
    assert_facts_match(facts(engine, case, dtype), _golden()[f"{case}/{dtype}"], case, dtype)


def test_constructor_errors_match_the_golden() -> None:
    assert error_facts(engine) == _golden()["errors"]


def test_mnist_example_names_exist() -> None:
    """PyTorch's MNIST example: ``optim.Adadelta(model.parameters(), lr=args.lr)``."""
    w = engine.zeros(3, requires_grad=True)
    opt = engine.optim.Adadelta([w], lr=1.0)
    sched = engine.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.7)
    (w - 1).pow(2).sum().backward()
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] == 0.7
    assert w.detach().numpy().tolist() != [0.0, 0.0, 0.0]


@pytest.mark.cuda
@pytest.mark.parametrize("case", CASES)
def test_steps_on_cuda_match_the_golden(case: str) -> None:
    """On a CUDA device the same values; state on PyTorch's devices after
    ``load_state_dict`` (step counters stay on the CPU, except ASGD's, made on the
    parameter's device; NAdam's ``mu_product``, made on the CPU, is moved there as a new
    tensor, as ``Tensor.to`` makes one)."""
    got = facts(engine, case, "float32", "cuda")
    want = dict(_golden()[f"{case}/float32"])
    on_cpu = ("step",) if CASES[case][0] != "ASGD" else ()
    want["devices"] = [{k: "cpu" if k in on_cpu else "cuda:0" for k in d} for d in want["devices"]]
    if CASES[case][0] == "NAdam":  # the moved mu_product is a new tensor: one write fewer
        want["reloaded_state"] = [
            {k: [v[0], v[1] - (k == "mu_product"), v[2]] for k, v in d.items()}
            for d in want["reloaded_state"]
        ]
    assert_facts_match(got, want, case, "float32")


@pytest.mark.torch
def test_golden_is_what_pytorch_says() -> None:
    torch = pytest.importorskip("torch")
    golden = _golden()
    now = _all_facts(torch)
    assert now["errors"] == golden["errors"]
    for key, want in golden.items():
        if key != "errors":
            case, dtype = key.split("/")
            assert_facts_match(now[key], want, case, dtype)


def write_golden() -> None:
    """``python -m tests.engine_tests.test_optim_rules``: re-record from PyTorch."""
    import torch

    GOLDEN.write_text(json.dumps(_all_facts(torch), indent=1) + "\n", "utf-8")


if __name__ == "__main__":
    write_golden()
