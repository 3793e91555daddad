"""Every real program of ``tests/programs`` goes through Run to Import (``main.py import
--run``), its document is evaluated (``main.py run``), and each variable the program ends
with agrees with what PyTorch gave it: shape, dtype, ``requires_grad``, values and ``.grad``.

PyTorch's facts are goldens (``tests/gradstudio/corpus_goldens/NAME.json``, written by
``tools/gen_corpus_goldens.py`` under real torch), so the test runs without torch. A
program that runs on the engine but does not import fails the test, unless it is in
``LIMITS``: the few things a document cannot hold, each with the one line the import
refuses it with. A variable is found by its node's label (the last node named for it).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gradstudio.evaluation.evaluate import prepare
from gradstudio.interchange.program_import.runner import document_of, import_program, record
from gradstudio.interchange.pytorch_import import ImportProblem

HERE = Path(__file__).parent
PROGRAMS = HERE.parent / "programs"
GOLDENS = HERE / "corpus_goldens"

#: program -> the refusal it imports with: what a document cannot hold.
LIMITS = {
    "broadcasting_grads": "line 36: RuntimeError: The size of tensor a (2) must match",
    "custom_function_ctx": "returns several values; one tensor is supported",
    "custom_function_extra": "returns several values; one tensor is supported",
    "custom_function_more": "returns several values; one tensor is supported",
    "functional_jacobian": "torch.autograd.functional.jacobian cannot be imported",
    "autograd_grad_api": "torch.autograd.functional.jacobian cannot be imported",
    "plateau_and_matrices": "torch.autograd.functional.hessian cannot be imported",
    "hooks_tutorial": "module backward hooks are not recorded",
    "hooks_extra": "module backward hooks are not recorded",
    "higher_order_grads": "made by an operation GradStudio does not record (CopyBackwards)",
    "int_arith_tour": "remainder: input must be a tensor",
    "sort_search_tour": "sort() got an argument 'stable' GradStudio does not know",
}

#: program -> why its document does not yet agree with PyTorch (strict: each entry must
#: go once the cause is fixed).
DISAGREES: dict[str, str] = {
    "backward_errors_tour": "the document stops at its first error; the program catches "
    "each backward error and goes on",
    "grad_accumulation": "the document stops at the backward error the program catches, "
    "so its later steps (w.grad = None) do not run",
    "autograd_graph_hooks": "detect_anomaly(check_nan=True) makes backward raise on a NaN; "
    "a document does not hold anomaly mode and computes the NaN gradient",
    "inplace_errors": "the document does not raise PyTorch's 'modified by an inplace "
    "operation' error for exp's saved output that the program raises and catches",
    "clip_init": "clip_grad_norm_ scales .grad in place inside the engine; the document's "
    "gradients stay unclipped",
    "hooks_and_accum": "h.remove() is not recorded, so the document's hook still fires in "
    "the later backwards; clip_grad_norm_ as in clip_init",
    "module_freeze_dtype": "model.double() swaps each parameter's data for a float64 one; "
    "the document copies it into the float32 parameter",
    "gather_scatter": "v.index_put_(..., accumulate=True) is not in the catalogue, so the "
    "change it makes in place is not recorded",
    "grad_modes": "w (made in a function under a grad mode) differs; cause not found",
    "gradcheck_demo": "xs differs after gradcheck (run unrecorded); cause not found",
    "resnet_block": "feats differs; cause not found",
    "rnn_by_hand": "weights and loss differ after its hand-written training loop; cause "
    "not found (the loop's folding is a suspect)",
}

#: programs whose import and run take over 20 s (loops of hundreds of iterations)
HEAVY = {"custom_module", "poly_nn", "poly_optim", "mlp_dataloader_adam"}

RTOL = 1e-4
ATOL = 1e-5


def _programs() -> list[str]:
    return sorted(p.stem for p in PROGRAMS.glob("*.py"))


def _close(got: Any, want: Any) -> bool:
    a = np.asarray(_numbers(got), dtype=np.float64)
    b = np.asarray(_numbers(want), dtype=np.float64)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True))


def _numbers(value: Any) -> Any:
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    if isinstance(value, str):  # "inf", "-inf", "nan" as JSON cannot write them
        return float(value)
    return math.nan if value is None else value


def differences(program: str) -> list[str]:
    """What the imported document's variables hold that PyTorch's do not (empty: agree)."""
    golden = json.loads((GOLDENS / f"{program}.json").read_text(encoding="utf-8"))
    report = record(PROGRAMS / f"{program}.py")
    doc = document_of(PROGRAMS / f"{program}.py", report)
    result = prepare(doc).run()
    #: backward calls that raised in the program (which caught the error): the document
    #: raises each of them too, and only those
    raised = [e["raised"] for e in report["events"] if "raised" in e]
    problems = []
    for error in result.errors:
        text = f"{error.exc_type}: {error.message}"
        if text in raised:
            raised.remove(text)
        else:
            problems.append(f"step {error.step + 1}: {text}"[:200])
    problems += [f"the program raised, the document did not: {r}"[:200] for r in raised]
    last: dict[str, dict[str, Any]] = {}
    for node in result.to_json()["nodes"]:
        last[node["label"]] = node
    for name, want in sorted(golden["tensors"].items()):
        got = last.get(name)
        if got is None:
            continue  # never reached an op the document records (printed, then unused)
        for fact in ("shape", "dtype", "requires_grad"):
            if got.get(fact) != want[fact]:
                problems.append(f"{name}.{fact}: {got.get(fact)!r}, torch {want[fact]!r}")
        if want["value"] is not None and not _close(got.get("value"), want["value"]):
            problems.append(f"{name}: values differ from torch's")
        if want.get("grad_varies"):
            continue  # drawn before any manual_seed: PyTorch's differs from run to run
        if (want["grad"] is None) != (got.get("grad") is None) or (
            want["grad"] is not None and not _close(got["grad"], want["grad"])
        ):
            problems.append(f"{name}.grad differs from torch's")
    return problems


def _cases() -> list[Any]:
    cases = []
    for p in _programs():
        marks = [pytest.mark.slow] if p in HEAVY else []
        if p in DISAGREES:
            marks.append(pytest.mark.xfail(strict=True, reason=DISAGREES[p]))
        cases.append(pytest.param(p, marks=marks))
    return cases


@pytest.mark.parametrize("program", _cases())
def test_program_imports_runs_and_agrees_with_torch(program: str) -> None:
    if program in LIMITS:
        with pytest.raises(ImportProblem) as err:
            import_program(PROGRAMS / f"{program}.py")
        assert LIMITS[program] in str(err.value)
        return
    assert differences(program) == []


def test_every_program_has_a_golden_and_every_limit_a_program() -> None:
    names = set(_programs())
    assert {p.stem for p in GOLDENS.glob("*.json")} == names
    assert set(LIMITS) <= names and set(DISAGREES) <= names


if __name__ == "__main__":  # a tally: python tests/gradstudio/test_corpus_import.py [NAME...]
    import sys

    for name in sys.argv[1:] or _programs():
        start = time.monotonic()
        try:
            found = differences(name) if name not in LIMITS else ["(limit)"]
        except ImportProblem as exc:
            found = [f"ImportProblem: {exc}"]
        except Exception as exc:
            found = [f"{type(exc).__name__}: {exc}"]
        status = "ok" if not found else "; ".join(found)[:300]
        print(f"{name} ({time.monotonic() - start:.1f}s): {status}", flush=True)
