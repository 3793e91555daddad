"""Gaps a fourth held-out census of public learner programs found (rasbt/deeplearning-models,
Coderx7/A-Quick-and-Simple-Pytorch-Tutorial, aladdinpersson/Machine-Learning-Collection, ...),
each pinned by what PyTorch 2.13 gives: the expected values written out so the suite runs
without torch, and a live comparison marked ``torch``."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import engine

COPY_TEXT = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
    "or sourceTensor.detach().clone().requires_grad_(True), rather than "
    "torch.tensor(sourceTensor)."
)
GET_LR_TEXT = "To get the last learning rate computed by the scheduler, please use `get_last_lr()`."


def _caught(call: Any) -> list[tuple[str, str, str, int]]:
    """(category, message, file, line) of each warning ``call`` raises, where it points."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    return [(w.category.__name__, str(w.message), w.filename, w.lineno) for w in seen]


def _copy_construct(lib: Any) -> list[tuple[str, str, str, int]]:
    """``torch.tensor(torch.zeros(n))`` inside a model's ``__init__``, as rasbt's
    cnn-weight-sharing notebook builds a bias: the warning points at the caller's line,
    not into the engine's ``out=`` wrapper."""
    return _caught(lambda: lib.nn.Parameter(lib.tensor(lib.zeros(3), dtype=lib.float32)))


def test_tensor_of_a_tensor_warns_at_the_callers_line() -> None:
    line = _copy_construct.__code__.co_firstlineno + 4
    assert _copy_construct(engine) == [("UserWarning", COPY_TEXT, __file__, line)]


def _inplace_mismatch(lib: Any) -> list[str]:
    """``output += x`` of shapes that cannot broadcast (Coderx7's ResBlock adds a 6-channel
    input to its 12-channel output): PyTorch's RuntimeError, not NumPy's ValueError; an
    output that would have to grow keeps its own message."""
    out = []
    calls = (
        lambda: lib.zeros(2, 12, 3).add_(lib.zeros(2, 6, 3)),
        lambda: lib.zeros(2, 6, 3).mul_(lib.zeros(2, 12, 3)),
        lambda: lib.zeros(2, 12, 3, requires_grad=True).clone().sub_(lib.ones(6, 1)),
        lambda: lib.zeros(2, 1, 3).add_(lib.zeros(2, 12, 3)),
    )
    for call in calls:
        try:
            call()
        except Exception as exc:  # the type and words are what is compared
            out.append(f"{type(exc).__name__}: {exc}")
    return out


def test_inplace_op_of_unbroadcastable_shapes_raises_pytorchs_error() -> None:
    assert _inplace_mismatch(engine) == [
        "RuntimeError: The size of tensor a (12) must match the size of tensor b (6) at "
        "non-singleton dimension 1",
        "RuntimeError: The size of tensor a (6) must match the size of tensor b (12) at "
        "non-singleton dimension 1",
        "RuntimeError: The size of tensor a (12) must match the size of tensor b (6) at "
        "non-singleton dimension 1",
        "RuntimeError: output with shape [2, 1, 3] doesn't match the broadcast shape [2, 12, 3]",
    ]


def _get_lr(lib: Any) -> list[Any]:
    """``scheduler.get_lr()`` called by the user, as Coderx7's training loop prints it: a
    built-in scheduler warns (every one of them) and, at a milestone, gives the next rate."""
    opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=0.1)
    sched = lib.optim.lr_scheduler.MultiStepLR(opt, milestones=[1], gamma=0.5)
    out: list[Any] = []
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out.append(sched.get_lr())
        opt.step()
        sched.step()
        out.append(sched.get_last_lr())
        out.append(sched.get_lr())
        steps = [
            lib.optim.lr_scheduler.StepLR(opt, 2),
            lib.optim.lr_scheduler.ExponentialLR(opt, 0.9),
            lib.optim.lr_scheduler.CosineAnnealingLR(opt, 5),
            lib.optim.lr_scheduler.LambdaLR(opt, lambda e: 1.0),
            lib.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1),
            lib.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=4),
        ]
        for s in steps:
            s.get_lr()
    out.append([(w.category.__name__, str(w.message)) for w in seen])
    return out


def test_get_lr_outside_step_warns_as_pytorch() -> None:
    rates = _get_lr(engine)
    assert rates[:3] == [[0.1], [0.05], [0.025]]
    assert rates[3] == [("UserWarning", GET_LR_TEXT)] * 8


def _target_size(lib: Any) -> list[tuple[str, int]]:
    """A loss given a target of another size (Coderx7's sine RNN feeds MSELoss a (20, 1)
    output and a (1, 20, 1) label): PyTorch's ``F`` warns with ``stacklevel=2``, so called
    by a layer the warning points into the layer's own file, called directly at the caller.
    Returned as (file name, whether it is this file's line) to compare across libraries."""
    x, y = lib.zeros(3, 1), lib.zeros(1, 3)
    f = lib.nn.functional
    calls = (
        lambda: lib.nn.MSELoss()(x, y),
        lambda: f.mse_loss(x, y),
        lambda: lib.nn.L1Loss()(x, y),
        lambda: f.smooth_l1_loss(x, y),
        lambda: lib.nn.HuberLoss()(x, y),
    )
    out = []
    for call in calls:
        for _, _, file, _line in _caught(call):
            out.append((file.rsplit("/", 1)[-1], int(file == __file__)))
    return out


def test_loss_target_size_warning_points_where_pytorchs_does() -> None:
    assert _target_size(engine) == [
        ("loss.py", 0),
        ("test_heldout4_gaps.py", 1),
        ("loss.py", 0),
        ("test_heldout4_gaps.py", 1),
        ("loss.py", 0),
    ]


def _new_factories(lib: Any) -> list[Any]:
    """``t.new_ones(size=(2, 2))``, ``t.new_full(size=..., fill_value=...)`` as Coderx7's
    tensor tutorial writes them, with ``device=`` and ``requires_grad=`` as PyTorch takes
    them: dtype and device from ``t`` unless given."""
    t = lib.rand(2, 2, dtype=lib.float16)
    made = [
        t.new_ones(size=(2, 2)),
        t.new_full(size=(2, 2), fill_value=0.3),
        t.new_zeros(size=[1, 3], dtype=lib.int64),
        t.new_zeros(2, 3, requires_grad=True),
        t.new_ones(3, device="cpu"),
        t.new_empty(size=(0, 2)),
        t.new_full([2], 7, dtype=lib.int32),
        t.new_tensor([1, 2], device="cpu"),
    ]
    out: list[Any] = [(x.tolist(), str(x.dtype), x.requires_grad) for x in made]
    try:
        t.new_ones(2, size=(2,))
    except TypeError as exc:
        out.append(type(exc).__name__)
    return out


def test_new_factories_take_size_as_a_keyword() -> None:
    assert _new_factories(engine) == [
        ([[1.0, 1.0], [1.0, 1.0]], "torch.float16", False),
        (
            [[0.300048828125, 0.300048828125], [0.300048828125, 0.300048828125]],
            "torch.float16",
            False,
        ),
        ([[0, 0, 0]], "torch.int64", False),
        ([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], "torch.float16", True),
        ([1.0, 1.0, 1.0], "torch.float16", False),
        ([], "torch.float16", False),
        ([7, 7], "torch.int32", False),
        ([1.0, 2.0], "torch.float16", False),
        "TypeError",
    ]


@pytest.mark.torch
def test_against_torch() -> None:
    torch = pytest.importorskip("torch")
    line = _copy_construct.__code__.co_firstlineno + 4
    assert _copy_construct(torch) == [("UserWarning", COPY_TEXT, __file__, line)]
    assert _inplace_mismatch(engine) == _inplace_mismatch(torch)
    assert _get_lr(engine) == _get_lr(torch)
    assert _target_size(engine) == _target_size(torch)
    assert _new_factories(engine) == _new_factories(torch)
