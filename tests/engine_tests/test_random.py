"""PyTorch's CPU random numbers, bit for bit: the engine against golden digests
recorded under PyTorch (``tools/gen_golden.py``) and, with torch installed,
against PyTorch live, value by value."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import engine
from engine.random import sampling
from engine.random.generator import Generator
from tests.conformance.random_cases import CASES, as_array, fingerprint

GOLDEN = Path(__file__).parents[1] / "conformance" / "random_golden.json"


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    if not GOLDEN.exists():
        pytest.fail(f"no {GOLDEN.name}: run tools/gen_golden.py")
    data: dict[str, Any] = json.loads(GOLDEN.read_text())
    return data


@pytest.mark.parametrize("name", sorted(CASES))
def test_engine_matches_the_golden_digests(name: str, golden: dict[str, Any]) -> None:
    expected = golden["cases"].get(name)
    assert expected is not None, f"{name} has no golden record: run tools/gen_golden.py"
    got = {k: fingerprint(as_array(v)) for k, v in CASES[name](engine).items()}
    assert sorted(got) == sorted(expected)
    wrong = {k: (got[k], expected[k]) for k in expected if got[k] != expected[k]}
    assert not wrong, f"values differ from PyTorch's in {sorted(wrong)}: {wrong}"


#: Cases that draw ``bernoulli_(p)`` with a number ``p`` (dropout included).
SCALAR_BERNOULLI = {"fills_in_place", "bernoulli_probabilities", "dropout"}


def _torch_uses_mkl_bernoulli(torch: Any) -> bool:
    """PyTorch takes MKL's own stream (VSL_BRNG_MCG31) for ``bernoulli_(p)`` on
    Intel CPUs; the engine follows the kernel every other CPU runs."""
    cpuinfo = Path("/proc/cpuinfo")
    intel = cpuinfo.exists() and "GenuineIntel" in cpuinfo.read_text()
    return intel and bool(torch.backends.mkl.is_available())


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_engine_matches_pytorch_live(name: str) -> None:
    import torch

    if name in SCALAR_BERNOULLI and _torch_uses_mkl_bernoulli(torch):
        pytest.skip("PyTorch draws bernoulli_(p) from MKL on this Intel CPU")
    ours, theirs = CASES[name](engine), CASES[name](torch)
    assert list(ours) == list(theirs)
    for key in theirs:
        a, b = as_array(ours[key]), as_array(theirs[key])
        assert a.dtype == b.dtype and a.shape == b.shape, key
        assert a.tobytes() == b.tobytes(), (
            f"{key}: {np.count_nonzero(a.ravel() != b.ravel())} of {a.size} values differ"
        )


def test_mt19937_stream_is_the_reference_one() -> None:
    """The first outputs of MT19937 seeded by init_genrand(5489) (the reference
    implementation's default) and the 10000th output of std::mt19937."""
    g = Generator().manual_seed(5489)
    words = g.random(10000)
    assert words[:3].tolist() == [3499211612, 581869302, 3890346734]
    assert int(words[-1]) == 4123659995


def test_manual_seed_resets_the_cached_normal_and_returns_the_generator() -> None:
    gen = engine.manual_seed(0)
    assert gen is engine.default_generator
    engine.randn(1)
    assert gen.next_double_normal_sample is not None
    engine.manual_seed(0)
    assert gen.next_double_normal_sample is None
    assert engine.initial_seed() == 0


def test_random_fills_record_history_and_refuse_leaves() -> None:
    x = engine.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.uniform_()
    y = (x * 1).normal_()
    assert y.grad_fn.name() == "NormalBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize(
    ("call", "error", "text"),
    [
        (lambda: engine.rand(2, dtype=engine.int64), NotImplementedError,
         "\"check_uniform_bounds\" not implemented for 'Long'"),
        (lambda: engine.randn(2, dtype=engine.int64), NotImplementedError,
         "\"normal_kernel_cpu\" not implemented for 'Long'"),
        (lambda: engine.randint(5, 5, (2,)), RuntimeError,
         "random_ expects 'from' to be less than 'to', but got from=5 >= to=5"),
        (lambda: engine.empty(3).uniform_(2, 1), RuntimeError,
         "uniform_ expects to return a [from, to) range, but found from=2 > to=1"),
        (lambda: engine.empty(3).normal_(0, -1), RuntimeError,
         "normal expects std >= 0.0, but found std -1"),
        (lambda: engine.empty(3).bernoulli_(1.5), RuntimeError,
         "bernoulli_ expects p to be in [0, 1], but got p=1.5"),
        (lambda: engine.randperm(-1), RuntimeError,
         "Trying to create tensor with negative dimension -1: [-1]"),
        (lambda: engine.nn.functional.dropout(engine.ones(2), 1.5), ValueError,
         "dropout probability has to be between 0 and 1, but got 1.5"),
        (lambda: engine.set_rng_state(engine.zeros(10, dtype=engine.uint8)), RuntimeError,
         "Expected a CPUGeneratorImplState of size 5056 but found the input RNG state size "
         "to be 10"),
        (lambda: engine.set_rng_state(engine.zeros(5056)), TypeError,
         "RNG state must be a torch.ByteTensor"),
        (lambda: engine.set_rng_state([1, 2]), TypeError,
         "expected a torch.ByteTensor, but got list"),
    ],
)  # fmt: skip
def test_bad_arguments_raise_pytorchs_errors(call: Any, error: type, text: str) -> None:
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == text


def test_a_failed_fill_draws_nothing() -> None:
    engine.manual_seed(9)
    with pytest.raises(RuntimeError):
        engine.ones(2, requires_grad=True).normal_()
    first = engine.rand(3).tolist()
    engine.manual_seed(9)
    assert engine.rand(3).tolist() == first


def test_large_draws_are_vectorised() -> None:
    gen = Generator().manual_seed(0)
    start = time.perf_counter()
    for dt in (np.float32, np.float64):
        sampling.normal(gen, 100_000, np.dtype(dt), 0.0, 1.0)
        sampling.uniform(gen, 100_000, np.dtype(dt), 0.0, 1.0)
    assert time.perf_counter() - start < 1.0
