"""Import by running: programs come in as documents that agree with what they computed."""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest

from gradstudio.cli import main
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.program_import import runner
from gradstudio.interchange.program_import.runner import import_program
from gradstudio.interchange.pytorch_import import ImportProblem

PROGRAMS = Path(__file__).parent / "programs"


def _facts(program: str) -> dict[str, object]:
    result = evaluate(import_program(PROGRAMS / program))
    assert not result.errors
    return {label: facts for label, _, facts in result.rows() if facts is not None}


def test_labels_are_the_programs_variable_names() -> None:
    facts = _facts("autograd_tutorial.py")
    assert {"x", "y", "w", "b", "z", "loss"} <= set(facts)
    assert facts["w"].grad is not None and facts["w"].grad.shape == (5, 3)
    assert facts["loss"].grad_fn.name == "BinaryCrossEntropyWithLogitsBackward0"


@pytest.mark.torch
def test_helpers_loops_numpy_and_math_agree_with_torch() -> None:
    pytest.importorskip("torch")
    scope = runpy.run_path(str(PROGRAMS / "helpers_and_loop.py"))
    facts = _facts("helpers_and_loop.py")
    for name in ("x", "w"):
        np.testing.assert_allclose(facts[name].grad.array, scope[name].grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(facts["total"].array, scope["total"].detach().numpy(), rtol=1e-6)
    assert facts["total"].grad_fn.name == type(scope["total"].grad_fn).__name__


def test_helpers_loops_numpy_and_math_agree_with_golden() -> None:
    facts = _facts("helpers_and_loop.py")
    # recorded from PyTorch 2.13 running the program
    np.testing.assert_allclose(float(facts["total"].array), 17.010055541992188, rtol=1e-6)


def test_a_failing_program_names_its_line() -> None:
    with pytest.raises(ImportProblem) as info:
        import_program(PROGRAMS / "fails.py")
    assert info.value.lineno == 4
    assert "RuntimeError" in str(info.value)


def test_a_program_that_loops_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "CPU_SECONDS", 2)
    with pytest.raises(ImportProblem, match="stopped"):
        import_program(PROGRAMS / "loops_forever.py")


def test_cli_import_run_writes_a_document(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "doc.gstudio"
    assert main(["import", "--run", str(PROGRAMS / "autograd_tutorial.py"), "-o", str(out)]) == 0
    assert out.exists()
    assert main(["import", "--run", str(PROGRAMS / "fails.py"), "-o", str(out)]) == 2
    assert "line 4" in capsys.readouterr().err


@pytest.mark.torch
def test_polynomial_tutorial_in_place_updates_agree_with_torch() -> None:
    pytest.importorskip("torch")
    scope = runpy.run_path(str(PROGRAMS / "polynomial.py"))
    facts = _facts("polynomial.py")
    for name in "abcd":
        np.testing.assert_allclose(
            facts[name].array, scope[name].detach().numpy(), rtol=1e-5, atol=1e-9
        )
        assert facts[name].version == scope[name]._version
        assert facts[name].grad is None and scope[name].grad is None
    np.testing.assert_allclose(facts["loss"].array, scope["loss"].detach().numpy(), rtol=1e-5)


def test_polynomial_tutorial_agrees_with_golden() -> None:
    facts = _facts("polynomial.py")
    # recorded from PyTorch 2.13 running the program
    golden = [4.3213371249406496e-13, 0.006198460701853037, -2.0503999539900342e-11]
    for name, value in zip("abc", golden, strict=True):
        np.testing.assert_allclose(float(facts[name].array), value, rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(float(facts["loss"].array), 79.52086639404297, rtol=1e-5)


@pytest.mark.torch
def test_module_trained_with_sgd_agrees_with_torch() -> None:
    pytest.importorskip("torch")
    scope = runpy.run_path(str(PROGRAMS / "module_sgd.py"))
    facts = _facts("module_sgd.py")
    np.testing.assert_allclose(facts["weight"].array, scope["weight"].detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(facts["weight"].grad.array, scope["weight"].grad.numpy(), atol=1e-7)
    np.testing.assert_allclose(facts["loss"].array, scope["loss"].detach().numpy(), rtol=1e-5)
    assert facts["loss"].grad_fn.name == type(scope["loss"].grad_fn).__name__


def test_module_trained_with_sgd_agrees_with_golden() -> None:
    facts = _facts("module_sgd.py")
    # recorded from PyTorch 2.13 running the program
    golden = [-0.004322517663240433, 0.3097158372402191, -0.4751853346824646]
    np.testing.assert_allclose(facts["weight"].array[0], golden, rtol=1e-5)
    np.testing.assert_allclose(float(facts["loss"].array), 0.8460661172866821, rtol=1e-5)


def test_a_program_that_exhausts_memory_names_its_line() -> None:
    with pytest.raises(ImportProblem, match="MemoryError") as info:
        import_program(PROGRAMS / "memory_bomb.py")
    assert info.value.lineno == 4
