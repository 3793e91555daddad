"""Live differential tests: random programs run under PyTorch and ``engine`` must agree.

Hypothesis builds small programs (chains and DAGs of ops from a template list,
random shapes with broadcasting, random ``requires_grad``/``retain_grad``, a
backward of a sum at the end, sometimes a second backward) and renders them to
source; the oracle runs the source under both modules and every fact must match.
These need PyTorch installed and are skipped without it.  The golden files are
also re-checked against the installed PyTorch here, to catch stale goldens.
"""

from __future__ import annotations

import math
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch", reason="PyTorch is not installed (the live oracle)")

from tests.oracle import compare, run_program  # noqa: E402

pytestmark = pytest.mark.torch

RTOL = 1e-4
ATOL = 1e-5

Shape = tuple[int, ...]

#: Leaf shapes: small, and pairwise broadcastable in many combinations.
LEAF_SHAPES: list[Shape] = [(), (3,), (2, 3), (2, 1), (1, 3), (3, 3)]
#: Leaf values: a grid that includes ties and zeros (relu/abs/max at 0 and ties
#: have definite PyTorch gradients the engine must reproduce).
GRID = [-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0]


@dataclass
class Var:
    """A variable of the generated program, with what the generator knows of it."""

    name: str
    shape: Shape
    requires_grad: bool
    is_leaf: bool


@dataclass(frozen=True)
class Template:
    """An op: how many inputs, when it applies, its result shape, its source."""

    name: str
    arity: int
    result_shape: Callable[[list[Shape]], Shape | None]  # None: not applicable
    render: Callable[[list[str]], str]
    differentiable: bool = True


def _broadcast(shapes: list[Shape]) -> Shape | None:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


def _same(shapes: list[Shape]) -> Shape:
    return shapes[0]


def _at_least_1d(shapes: list[Shape]) -> Shape | None:
    return shapes[0] if len(shapes[0]) >= 1 else None


def _drop_last(shapes: list[Shape]) -> Shape | None:
    return shapes[0][:-1] if shapes[0] else None


def _keep_first_as_one(shapes: list[Shape]) -> Shape | None:
    s = shapes[0]
    return (1, *s[1:]) if s else None


def _transposed_2d(shapes: list[Shape]) -> Shape | None:
    s = shapes[0]
    return (s[1], s[0]) if len(s) == 2 else None


def _unsqueezed(shapes: list[Shape]) -> Shape | None:
    s = shapes[0]
    return (1, *s) if len(s) <= 2 else None


def _flat(shapes: list[Shape]) -> Shape:
    return (math.prod(shapes[0]),)


def _squeezed(shapes: list[Shape]) -> Shape:
    return tuple(d for d in shapes[0] if d != 1)


def _expanded(shapes: list[Shape]) -> Shape | None:
    s = shapes[0]
    if s in ((), (3,), (1, 3)):
        return (2, 3)
    if s == (2, 1):
        return (2, 3)
    return None


def _expand_src(args: list[str]) -> str:
    return f"{args[0]}.expand(2, 3)"


def _select0(shapes: list[Shape]) -> Shape | None:
    return shapes[0][1:] if shapes[0] else None


def _slice_last(shapes: list[Shape]) -> Shape | None:
    s = shapes[0]
    return (*s[:-1], 2) if s and s[-1] >= 2 else None


def _matmul(shapes: list[Shape]) -> Shape | None:
    a, b = shapes
    if not (1 <= len(a) <= 2 and 1 <= len(b) <= 2):
        return None
    if a[-1] != b[0]:
        return None
    return (*a[:-1], *b[1:])


def _mm(shapes: list[Shape]) -> Shape | None:
    a, b = shapes
    return (a[0], b[1]) if len(a) == 2 and len(b) == 2 and a[1] == b[0] else None


def _mv(shapes: list[Shape]) -> Shape | None:
    a, b = shapes
    return (a[0],) if len(a) == 2 and len(b) == 1 and a[1] == b[0] else None


def _cat0(shapes: list[Shape]) -> Shape | None:
    a, b = shapes
    if not a or len(a) != len(b) or a[1:] != b[1:]:
        return None
    return (a[0] + b[0], *a[1:])


def _stack(shapes: list[Shape]) -> Shape | None:
    a, b = shapes
    return (2, *a) if a == b else None


def _equal_to_scalar(shapes: list[Shape]) -> Shape | None:
    a, b = shapes
    return () if a == b else None


def _scalar(shapes: list[Shape]) -> Shape:
    return ()


TEMPLATES: list[Template] = [
    # binary, broadcasting
    Template("add", 2, _broadcast, lambda a: f"{a[0]} + {a[1]}"),
    Template("sub", 2, _broadcast, lambda a: f"{a[0]} - {a[1]}"),
    Template("mul", 2, _broadcast, lambda a: f"{a[0]} * {a[1]}"),
    Template("div", 2, _broadcast, lambda a: f"{a[0]} / ({a[1]}.abs() + 1)"),
    Template("maximum", 2, _broadcast, lambda a: f"torch.maximum({a[0]}, {a[1]})"),
    Template("minimum", 2, _broadcast, lambda a: f"torch.minimum({a[0]}, {a[1]})"),
    Template("where", 2, _broadcast, lambda a: f"torch.where({a[0]} > {a[1]}, {a[0]}, {a[1]})"),
    Template("pow_tt", 2, _broadcast, lambda a: f"({a[0]}.abs() + 1) ** torch.tanh({a[1]})"),
    Template("add_alpha", 2, _broadcast, lambda a: f"torch.add({a[0]}, {a[1]}, alpha=0.5)"),
    # with Python scalars
    Template("radd", 1, _same, lambda a: f"2 + {a[0]}"),
    Template("rsub", 1, _same, lambda a: f"1.5 - {a[0]}"),
    Template("mul_scalar", 1, _same, lambda a: f"{a[0]} * 3"),
    Template("rdiv", 1, _same, lambda a: f"2 / ({a[0]}.abs() + 1)"),
    Template("pow2", 1, _same, lambda a: f"{a[0]} ** 2"),
    Template("rpow", 1, _same, lambda a: f"2 ** torch.tanh({a[0]})"),
    Template("neg", 1, _same, lambda a: f"-{a[0]}"),
    # unary math
    Template("exp", 1, _same, lambda a: f"torch.exp({a[0]}.clamp(-3, 3))"),
    Template("log", 1, _same, lambda a: f"torch.log({a[0]}.abs() + 1)"),
    Template("sqrt", 1, _same, lambda a: f"({a[0]}.abs() + 0.5).sqrt()"),
    Template("abs", 1, _same, lambda a: f"{a[0]}.abs()"),
    Template("sin", 1, _same, lambda a: f"torch.sin({a[0]})"),
    Template("cos", 1, _same, lambda a: f"{a[0]}.cos()"),
    Template("tanh", 1, _same, lambda a: f"torch.tanh({a[0]})"),
    Template("sigmoid", 1, _same, lambda a: f"{a[0]}.sigmoid()"),
    Template("relu", 1, _same, lambda a: f"torch.relu({a[0]})"),
    Template("F_relu", 1, _same, lambda a: f"F.relu({a[0]})"),
    Template("clamp", 1, _same, lambda a: f"{a[0]}.clamp(-1, 1)"),
    Template("clamp_min", 1, _same, lambda a: f"torch.clamp({a[0]}, min=0.5)"),
    Template("clone", 1, _same, lambda a: f"{a[0]}.clone()"),
    Template("softmax", 1, _at_least_1d, lambda a: f"F.softmax({a[0]}, dim=-1)"),
    Template("log_softmax", 1, _at_least_1d, lambda a: f"F.log_softmax({a[0]}, dim=-1)"),
    # reductions
    Template("sum", 1, _scalar, lambda a: f"{a[0]}.sum()"),
    Template("mean", 1, _scalar, lambda a: f"{a[0]}.mean()"),
    Template("sum_dim", 1, _drop_last, lambda a: f"{a[0]}.sum(-1)"),
    Template("mean_keep", 1, _keep_first_as_one, lambda a: f"{a[0]}.mean(0, keepdim=True)"),
    Template("max_all", 1, _scalar, lambda a: f"{a[0]}.max()"),
    Template("max_dim", 1, _drop_last, lambda a: f"{a[0]}.max(dim=-1).values"),
    Template("min_dim", 1, _drop_last, lambda a: f"torch.min({a[0]}, -1)[0]"),
    # shape ops
    Template("t", 1, _transposed_2d, lambda a: f"{a[0]}.t()"),
    Template("transpose", 1, _transposed_2d, lambda a: f"{a[0]}.transpose(0, 1)"),
    Template("unsqueeze", 1, _unsqueezed, lambda a: f"{a[0]}.unsqueeze(0)"),
    Template("reshape", 1, _flat, lambda a: f"{a[0]}.reshape(-1)"),
    Template("flatten", 1, _flat, lambda a: f"{a[0]}.flatten()"),
    Template("squeeze", 1, _squeezed, lambda a: f"{a[0]}.squeeze()"),
    Template("expand", 1, _expanded, _expand_src),
    Template("select", 1, _select0, lambda a: f"{a[0]}[0]"),
    Template("slice", 1, _slice_last, lambda a: f"{a[0]}[..., :2]"),
    Template("none_index", 1, _unsqueezed, lambda a: f"{a[0]}[None]"),
    Template("T", 1, _transposed_2d, lambda a: f"{a[0]}.T"),
    Template("permute", 1, _transposed_2d, lambda a: f"{a[0]}.permute(1, 0)"),
    # view() of a transposed tensor raises; both must raise the same error
    Template("view", 1, _flat, lambda a: f"{a[0]}.view(-1)"),
    Template("double", 1, _same, lambda a: f"{a[0]}.double()"),
    Template("contiguous_t", 1, _transposed_2d, lambda a: f"{a[0]}.t().contiguous()"),
    # combining
    Template("matmul", 2, _matmul, lambda a: f"{a[0]} @ {a[1]}"),
    Template("mm", 2, _mm, lambda a: f"torch.mm({a[0]}, {a[1]})"),
    Template("mv", 2, _mv, lambda a: f"{a[0]}.mv({a[1]})"),
    Template("linear", 2, _mm, lambda a: f"F.linear({a[0]}, {a[1]}.t())"),
    Template("cat", 2, _cat0, lambda a: f"torch.cat([{a[0]}, {a[1]}])"),
    Template("stack", 2, _stack, lambda a: f"torch.stack([{a[0]}, {a[1]}])"),
    Template("mse", 2, _equal_to_scalar, lambda a: f"F.mse_loss({a[0]}, {a[1]})"),
    # no gradient
    Template("detach", 1, _same, lambda a: f"{a[0]}.detach()", differentiable=False),
]


def _render_values(shape: Shape, values: list[float]) -> str:
    array = np.array(values[: math.prod(shape)], dtype=float).reshape(shape)
    return repr(array.tolist())


@st.composite
def programs(draw: st.DrawFn) -> str:
    """A random program; its last statements run one or two backward passes."""
    lines: list[str] = []
    variables: list[Var] = []

    n_leaves = draw(st.integers(2, 4))
    for i in range(n_leaves):
        shape = draw(st.sampled_from(LEAF_SHAPES))
        values = draw(st.lists(st.sampled_from(GRID), min_size=9, max_size=9))
        requires_grad = i == 0 or draw(st.booleans())
        dtype = ", dtype=torch.float64" if draw(st.integers(0, 9)) == 0 else ""
        name = f"x{i}"
        lines.append(
            f"{name} = torch.tensor({_render_values(shape, values)}{dtype}, "
            f"requires_grad={requires_grad})"
        )
        variables.append(Var(name, shape, requires_grad, True))

    n_ops = draw(st.integers(1, 7))
    for k in range(n_ops):
        template = draw(st.sampled_from(TEMPLATES))
        # prefer recent variables so chains get deep, but allow any (DAGs)
        args = [
            draw(st.sampled_from(variables[-3:] if draw(st.booleans()) else variables))
            for _ in range(template.arity)
        ]
        shape = template.result_shape([v.shape for v in args])
        if shape is None:
            continue
        requires_grad = template.differentiable and any(v.requires_grad for v in args)
        name = f"v{k}"
        expr = template.render([v.name for v in args])
        mode = draw(st.integers(0, 19))
        if mode == 0:  # computed without grad
            lines.append(f"with torch.no_grad():\n    {name} = {expr}")
            requires_grad = False
        elif mode == 1 and shape == args[0].shape:  # in-place on a fresh copy
            lines.append(f"{name} = {args[0].name} * 1")
            lines.append(f"{name}.mul_({expr})")
        else:
            lines.append(f"{name} = {expr}")
        var = Var(name, shape, requires_grad, not requires_grad)
        variables.append(var)
        if requires_grad and draw(st.integers(0, 3)) == 0:
            lines.append(f"{name}.retain_grad()")

    with_grad = [v for v in variables if v.requires_grad]
    picked = [with_grad[-1]]
    if len(with_grad) > 1 and draw(st.booleans()):
        picked.append(draw(st.sampled_from(with_grad[:-1])))
    lines.append("loss = " + " + ".join(f"{v.name}.sum()" for v in picked))

    endings = ["once", "once", "retain_twice", "twice", "grad"]
    if any(v.is_leaf and v.shape == () for v in variables):
        # PyTorch quirk not to be copied: 0-dim leaves whose grads are views of
        # one stride-0 buffer (``stack([x1, x2]).sum()``) alias their ``.grad``, so
        # a second, accumulating backward double-counts
        endings = ["once", "grad"]
    ending = draw(st.sampled_from(endings))
    if ending == "once":
        lines.append("loss.backward()")
    elif ending == "retain_twice":
        lines.append("loss.backward(retain_graph=True)")
        lines.append("loss.backward()")
    elif ending == "twice":
        lines.append("loss.backward()")
        lines.append("loss.backward()")
    else:
        leaves = [v.name for v in variables if v.is_leaf and v.requires_grad]
        lines.append(f"grads = torch.autograd.grad(loss, [{', '.join(leaves)}], allow_unused=True)")
    return "\n".join(lines) + "\n"


def _differences(source: str) -> list[str]:
    import engine

    # the _version of autograd.grad results counts in-place ops inside PyTorch's
    # backward formulas (masked_fill_ in MaxBackward1, in-place accumulation);
    # the corpus checks it, random programs would only trip over it every time
    expected = run_program(source, torch, ignore_versions=("grads",))
    actual = run_program(source, engine, ignore_versions=("grads",))
    return compare(expected, actual, rtol=RTOL, atol=ATOL)


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(programs())
def test_random_programs_match_pytorch(source: str) -> None:
    diffs = _differences(source)
    assert not diffs, "engine differs from PyTorch:\n" + "\n".join(
        [*(f"  - {d}" for d in diffs), "", "program:", source]
    )


@pytest.mark.slow
def test_golden_files_match_installed_torch() -> None:
    """The stored facts are what the installed PyTorch produces (catches stale files).

    Runs ``tools/gen_golden.py --check`` in a subprocess: it gives every scenario a
    fresh process, as PyTorch emits some warnings only once per process.
    """
    tool = Path(__file__).parent.parent / "tools" / "gen_golden.py"
    result = subprocess.run(
        [sys.executable, str(tool), "--check"],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, (
        "golden files differ from the installed PyTorch; review and run "
        f"tools/gen_golden.py:\n{result.stdout}{result.stderr}"
    )
