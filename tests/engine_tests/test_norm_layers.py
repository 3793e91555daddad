"""Normalisation and resampling layers against PyTorch's facts: group, instance and RMS
norm, ``interpolate``/``Upsample``, pixel (un)shuffle and the padding layers (values,
dtypes, ``grad_fn`` chains, gradients, running statistics and their versions, reprs and
error messages).

Every family runs under the engine and is compared with a golden copy recorded from
PyTorch 2.13 (always), and under PyTorch itself when it is installed; gradcheck in
float64 checks the analytic gradients.  ``python -m tests.engine_tests.test_norm_layers``
re-records the golden copy.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import engine
from tests.engine_tests.test_breadth import _close, _error, _facts_of, _plain

GOLDEN = Path(__file__).parent / "golden" / "norm_layers.json"


def _data(*shape: int, seed: int = 0) -> list[Any]:
    return np.random.default_rng(seed).standard_normal(shape).round(4).tolist()


def _x(T: Any, *shape: int, seed: int = 0, dtype: Any = None) -> Any:
    return T.tensor(_data(*shape, seed=seed), dtype=dtype or T.float32, requires_grad=True)


def _forward(r: Any) -> list[Any]:
    """A float32 result's facts without gradients (those of the float64 cases suffice:
    a float32 gradient's sums cancel too much for a relative comparison)."""
    return [str(r.dtype), r.tolist()]


def _group_norm(T: Any) -> list[Any]:
    F = T.nn.functional
    d = T.float64
    x, w, b = _x(T, 2, 4, 3, dtype=d), _x(T, 4, seed=1, dtype=d), _x(T, 4, seed=2, dtype=d)
    x4 = _x(T, 2, 6, 2, 2, seed=3, dtype=d)
    facts = [
        _forward(F.group_norm(_x(T, 2, 4, 3), 2, _x(T, 4, seed=1), _x(T, 4, seed=2))),
        _facts_of(T, F.group_norm(x, 2), [x]),
        _facts_of(T, F.group_norm(x, 2, w, b, eps=1e-3), [x, w, b]),
        _facts_of(T, F.group_norm(x4, 3, _x(T, 6, seed=4, dtype=d)), [x4]),
        _facts_of(T, F.group_norm(x, 4, w), [x, w]),
    ]
    facts.append(_error(lambda: F.group_norm(x, 3)))
    facts.append(_error(lambda: F.group_norm(x, 2, _x(T, 3))))
    facts.append(_error(lambda: F.group_norm(T.ones(2), 1)))
    facts.append(_error(lambda: F.group_norm(T.ones(1, 4), 4)))
    return facts


def _instance_norm(T: Any) -> list[Any]:
    F = T.nn.functional
    d = T.float64
    x, w, b = _x(T, 2, 3, 5, dtype=d), _x(T, 3, seed=1, dtype=d), _x(T, 3, seed=2, dtype=d)
    mean, var = T.zeros(3, dtype=d) + 0.5, T.ones(3, dtype=d) * 2
    facts = [
        _forward(F.instance_norm(_x(T, 2, 3, 5), weight=_x(T, 3, seed=1))),
        _facts_of(T, F.instance_norm(x), [x]),
        _facts_of(T, F.instance_norm(x, mean, var, w, b, momentum=0.3), [x, w, b]),
        [mean.tolist(), var.tolist(), mean._version, var._version],
        _facts_of(T, F.instance_norm(x, mean, var, w, b, use_input_stats=False), [x, w, b]),
        [mean._version, var._version],
    ]
    facts.append(_error(lambda: F.instance_norm(T.ones(2, 3, 1))))
    facts.append(_error(lambda: F.instance_norm(x, use_input_stats=False)))
    return facts


def _rms_norm(T: Any) -> list[Any]:
    F = T.nn.functional
    x, w = _x(T, 2, 3, 4), _x(T, 4, seed=1)
    x64 = _x(T, 2, 3, 4, dtype=T.float64)
    return [
        _facts_of(T, F.rms_norm(x, (4,)), [x]),
        _facts_of(T, F.rms_norm(x, [3, 4], eps=1e-3), [x]),
        _facts_of(T, F.rms_norm(x, (4,), w), [x, w]),
        _facts_of(T, F.rms_norm(x64, (4,)), [x64]),
        _error(lambda: F.rms_norm(x, (3,))),
        _error(lambda: F.rms_norm(x, (4,), _x(T, 3))),
    ]


def _interpolate(T: Any) -> list[Any]:
    F = T.nn.functional
    x3, x4 = _x(T, 1, 2, 5), _x(T, 1, 2, 3, 4, seed=1)
    calls: list[Callable[[], Any]] = [
        lambda: F.interpolate(x3, scale_factor=2),
        lambda: F.interpolate(x3, size=7),
        lambda: F.interpolate(x3, scale_factor=0.6),
        lambda: F.interpolate(x3, scale_factor=1.7, mode="linear"),
        lambda: F.interpolate(x3, size=8, mode="linear", align_corners=True),
        lambda: F.interpolate(x4, scale_factor=2),
        lambda: F.interpolate(x4, size=(5, 3)),
        lambda: F.interpolate(x4, scale_factor=(1.5, 0.75), mode="bilinear"),
        lambda: F.interpolate(x4, size=(4, 7), mode="bilinear", align_corners=True),
        lambda: F.interpolate(x4, scale_factor=2.5, mode="bilinear", recompute_scale_factor=True),
        lambda: F.interpolate(x4, size=(1, 1), mode="bilinear"),
        lambda: F.interpolate(x4, size=(2, 2), mode="area"),
    ]
    facts = [_facts_of(T, call(), [x3 if call().ndim == 3 else x4]) for call in calls]
    errors: list[Callable[[], Any]] = [
        lambda: F.interpolate(x4, scale_factor=2, align_corners=True),
        lambda: F.interpolate(x4, size=2, scale_factor=2),
        lambda: F.interpolate(x4),
        lambda: F.interpolate(x4, size=(2, 2, 2)),
        lambda: F.interpolate(x4, scale_factor=(2, 2, 2)),
        lambda: F.interpolate(x4, size=(2.0, 2)),
        lambda: F.interpolate(x4, size=2, recompute_scale_factor=True),
        lambda: F.interpolate(x3, scale_factor=2, mode="bilinear"),
        lambda: F.interpolate(x3, scale_factor=2, antialias=True),
        lambda: F.interpolate(T.ones(2, 2), scale_factor=2),
    ]
    return facts + [_error(e) for e in errors]


def _pixel_shuffle(T: Any) -> list[Any]:
    F = T.nn.functional
    x, y = _x(T, 1, 8, 2, 3), _x(T, 2, 2, 4, 6, seed=1)
    return [
        _facts_of(T, F.pixel_shuffle(x, 2), [x]),
        _facts_of(T, F.pixel_unshuffle(y, 2), [y]),
        _facts_of(T, T.nn.PixelShuffle(2)(F.pixel_unshuffle(y, 2)), [y]),
        _error(lambda: F.pixel_shuffle(x, 3)),
        _error(lambda: F.pixel_shuffle(x, 0)),
        _error(lambda: F.pixel_shuffle(T.ones(2, 4), 2)),
        _error(lambda: F.pixel_unshuffle(y, 4)),
        _error(lambda: F.pixel_unshuffle(_x(T, 1, 4, 6), 4)),
    ]


def _padding(T: Any) -> list[Any]:
    F, nn = T.nn.functional, T.nn
    x3, x4 = _x(T, 1, 2, 5), _x(T, 1, 2, 3, 4, seed=1)
    facts = [
        _facts_of(T, F.pad(x3, (2, 1), mode="reflect"), [x3]),
        _facts_of(T, F.pad(x3, (-1, 3), mode="replicate"), [x3]),
        _facts_of(T, F.pad(x4, (1, 2, 2, 0), mode="reflect"), [x4]),
        _facts_of(T, F.pad(x4, (3, 1, 1, 4), mode="replicate"), [x4]),
        _facts_of(T, F.pad(x4, (1, 1, 1, 1, 1, 0), mode="replicate"), [x4]),
        _facts_of(T, nn.ZeroPad2d(1)(x4), [x4]),
        _facts_of(T, nn.ConstantPad1d((1, 2), 3.5)(x3), [x3]),
        _facts_of(T, nn.ConstantPad2d(1, -1.0)(x4), [x4]),
        _facts_of(T, nn.ReflectionPad1d(3)(x3), [x3]),
        _facts_of(T, nn.ReflectionPad2d((1, 0, 2, 1))(x4), [x4]),
        _facts_of(T, nn.ReplicationPad1d((0, 2))(x3), [x3]),
        _facts_of(T, nn.ReplicationPad2d(2)(x4), [x4]),
    ]
    errors: list[Callable[[], Any]] = [
        lambda: F.pad(x3, (5, 1), mode="reflect"),
        lambda: F.pad(x4, (1, 1, 3, 1), mode="reflect"),
        lambda: F.pad(T.ones(3), (1, 1), mode="replicate"),
        lambda: F.pad(x3, (1, 1, 1, 1, 1, 1), mode="reflect"),
        lambda: F.pad(x3, (1, 1), mode="wrap"),
        lambda: F.pad(T.ones(1, 2, 0), (1, 1), mode="replicate"),
    ]
    return facts + [_error(e) for e in errors]


def _fold(T: Any) -> list[Any]:
    F, nn = T.nn.functional, T.nn
    x, c = _x(T, 2, 2, 3, 4), _x(T, 2, 8, 6, seed=1)
    facts = [
        _facts_of(T, F.unfold(x, 2), [x]),
        _facts_of(T, F.unfold(x, (2, 3), dilation=(2, 1), padding=1, stride=(1, 2)), [x]),
        _facts_of(T, nn.Unfold(3, padding=(0, 1), stride=2)(x[0]), [x]),
        _facts_of(T, F.fold(c, (3, 4), 2), [c]),
        _facts_of(T, nn.Fold((4, 5), (2, 2), padding=1, stride=(2, 3))(c), [c]),
        _facts_of(T, F.fold(c[0], (2, 7), 2), [c]),
        [repr(nn.Fold((4, 5), 2, padding=[1, 0])), repr(nn.Unfold((2, 3), 1, 0, 2))],
    ]
    errors: list[Callable[[], Any]] = [
        lambda: F.unfold(T.ones(3, 4), 2),
        lambda: F.unfold(x, 4),
        lambda: F.unfold(x, 0),
        lambda: F.unfold(x, 2, stride=0),
        lambda: F.unfold(x, 2, padding=-1),
        lambda: F.unfold(x, 2, dilation=0),
        lambda: F.unfold(T.ones(2, 3, 4, 5, 6), 2),
        lambda: F.fold(c, (3, 3), 3),
        lambda: F.fold(c, (3, 3), 2),
        lambda: F.fold(T.ones(8), (3, 3), 2),
    ]
    return facts + [_error(e) for e in errors]


def _local_response_norm(T: Any) -> list[Any]:
    F, nn = T.nn.functional, T.nn
    d = T.float64
    x3, x4 = _x(T, 2, 5, 4, dtype=d), _x(T, 1, 6, 3, 2, seed=1, dtype=d)
    x5 = _x(T, 1, 4, 2, 2, 2, seed=2, dtype=d)
    return [
        _forward(F.local_response_norm(_x(T, 1, 6, 3, 2, seed=1), 3)),
        _facts_of(T, F.local_response_norm(x3, 2), [x3]),
        _facts_of(T, F.local_response_norm(x3, 3, alpha=0.5, beta=0.5, k=2.0), [x3]),
        _facts_of(T, F.local_response_norm(x4, 4, alpha=0.3), [x4]),
        _facts_of(T, nn.LocalResponseNorm(3, 0.2)(x5), [x5]),
        repr(nn.LocalResponseNorm(3, 0.2)),
        _error(lambda: F.local_response_norm(T.ones(2, 3), 2)),
    ]


def _versions(m: Any) -> list[Any]:
    return [[n, t._version, t.tolist()] for n, t in [*m.named_parameters(), *m.named_buffers()]]


def _modules(T: Any) -> list[Any]:
    nn = T.nn
    mods = [
        nn.GroupNorm(2, 4),
        nn.GroupNorm(1, 3, eps=1e-3, affine=False),
        nn.GroupNorm(2, 4, bias=False),
        nn.RMSNorm(3),
        nn.RMSNorm([2, 3], eps=1e-5, elementwise_affine=False),
        nn.InstanceNorm1d(3),
        nn.InstanceNorm1d(3, affine=True, track_running_stats=True),
        nn.InstanceNorm2d(3, momentum=None, track_running_stats=True),
        nn.Upsample(scale_factor=2),
        nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True),
        nn.Upsample(scale_factor=(2, 3)),
        nn.UpsamplingNearest2d(scale_factor=2),
        nn.UpsamplingBilinear2d(size=5),
        nn.PixelShuffle(2),
        nn.PixelUnshuffle(3),
        nn.ZeroPad1d(2),
        nn.ZeroPad2d((1, 2, 3, 4)),
        nn.ConstantPad1d((1, 2), 3.5),
        nn.ConstantPad2d(2, 0.0),
        nn.ConstantPad3d(1, 1),
        nn.ReflectionPad1d(2),
        nn.ReflectionPad2d([1, 0, 1, 0]),
        nn.ReplicationPad1d(3),
        nn.ReplicationPad2d(1),
        nn.ReplicationPad3d(1),
    ]
    facts: list[Any] = [[repr(m), _versions(m)] for m in mods]
    inorm = nn.InstanceNorm1d(3, affine=True, track_running_stats=True, dtype=T.float64)
    x = _x(T, 2, 3, 4, dtype=T.float64)
    facts.append(_facts_of(T, inorm(x), [x]))
    facts.append(_versions(inorm))
    inorm.eval()
    facts.append(_facts_of(T, inorm(x), [x]))
    x2 = _x(T, 3, 4, seed=5, dtype=T.float64)
    facts.append(_facts_of(T, inorm(x2), [x2]))
    inorm2 = nn.InstanceNorm2d(3, momentum=None, track_running_stats=True)
    inorm2(_x(T, 2, 3, 2, 2))
    facts.append(_versions(inorm2))
    facts.append(_error(lambda: nn.GroupNorm(3, 4)))
    facts.append(_error(lambda: nn.InstanceNorm2d(3)(T.ones(3, 3))))
    facts.append(_error(lambda: nn.InstanceNorm1d(4, affine=True)(T.ones(2, 3, 4))))
    return facts


FACTS = {
    "group_norm": _group_norm,
    "instance_norm": _instance_norm,
    "rms_norm": _rms_norm,
    "interpolate": _interpolate,
    "pixel_shuffle": _pixel_shuffle,
    "padding": _padding,
    "modules": _modules,
    "fold": _fold,
    "local_response_norm": _local_response_norm,
}


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
    assert _close(_plain(FACTS[name](torch)), expected)


F = engine.nn.functional
GRADCHECKED: dict[str, Callable[..., Any]] = {
    "group_norm": lambda x, w: F.group_norm(x, 2, w, w * 2),
    "instance_norm": lambda x, w: F.instance_norm(x, weight=w, bias=w),
    "rms_norm": lambda x, w: F.rms_norm(x, (2, 3), x[0, 0], eps=1e-3),
    "nearest": lambda x, w: F.interpolate(x, scale_factor=1.7),
    "linear": lambda x, w: F.interpolate(x[0], size=5, mode="linear"),
    "bilinear": lambda x, w: F.interpolate(x, size=(5, 4), mode="bilinear"),
    "bilinear_corners": lambda x, w: F.interpolate(
        x, scale_factor=0.7, mode="bilinear", align_corners=True
    ),
    "pixel_shuffle": lambda x, w: F.pixel_shuffle(x, 2),
    "pixel_unshuffle": lambda x, w: F.pixel_unshuffle(x.reshape(2, 1, 4, 6), 2),
    "unfold": lambda x, w: F.unfold(x, (2, 2), dilation=(1, 2), padding=1, stride=(2, 1)),
    "fold": lambda x, w: F.fold(x.reshape(2, 4, 6), (2, 4), 2, padding=(1, 0), stride=(1, 2)),
    "local_response_norm": lambda x, w: F.local_response_norm(x, 3, alpha=0.5, k=1.5),
    "local_response_norm_3d": lambda x, w: F.local_response_norm(x[0], 2, alpha=0.5),
    "reflect": lambda x, w: F.pad(x, (2, 1, 1, 1), mode="reflect"),
    "replicate": lambda x, w: F.pad(x, (2, -1, 3, 1), mode="replicate"),
}


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck(name: str) -> None:
    rng = np.random.default_rng(3)
    x = engine.tensor(rng.standard_normal((2, 4, 2, 3)), dtype=engine.float64, requires_grad=True)
    w = engine.tensor(rng.standard_normal(4), dtype=engine.float64, requires_grad=True)
    assert engine.autograd.gradcheck(GRADCHECKED[name], (x, w))


def write_golden() -> None:
    """``python -m tests.engine_tests.test_norm_layers``: re-record from PyTorch."""
    import torch

    data = {name: _plain(fn(torch)) for name, fn in FACTS.items()}
    GOLDEN.write_text(json.dumps(data, indent=1) + "\n", "utf-8")


if __name__ == "__main__":
    write_golden()
