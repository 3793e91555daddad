"""Run to Import folds the loops that carry state, keeps names, records SGD as its ops.

PyTorch's 2000-step polynomial tutorials (tests/gradstudio/programs/poly_2000_*.py,
small synthetic data as they use) import as small documents whose run agrees with
PyTorch variable by variable; a program recording more than a document holds is
refused in one line; editing ``lr`` in the document changes the run and the script.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest

from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.fileformat import save_document
from gradstudio.interchange.program_import.runner import import_program
from gradstudio.interchange.pytorch_export import export_script
from gradstudio.interchange.pytorch_import import ImportProblem
from gradstudio.interchange.trust import TrustStore

PROGRAMS = Path(__file__).parent / "programs"

#: each tutorial and the names its run is compared on
TUTORIALS = {
    "poly_2000_tensors.py": ("a", "b", "c", "d", "y_pred", "grad_a", "grad_d"),
    "poly_2000_autograd.py": ("a", "b", "c", "d", "y_pred", "loss"),
    "poly_2000_function.py": ("a", "b", "c", "d", "y_pred", "loss"),
    "poly_2000_nn.py": ("weight", "bias", "y_pred", "loss"),
    "poly_2000_optim.py": ("weight", "bias", "y_pred", "loss"),
    "poly_2000_module.py": ("a", "b", "c", "d", "y_pred", "loss"),
}


def _rows(doc: object) -> dict[str, object]:
    result = evaluate(doc)  # type: ignore[arg-type]
    assert not result.errors, result.errors
    return {label: facts for label, _, facts in result.rows() if facts is not None}


@pytest.mark.parametrize("program", sorted(TUTORIALS))
def test_a_2000_step_tutorial_folds_into_a_small_document(program: str, tmp_path: Path) -> None:
    doc = import_program(PROGRAMS / program)
    (fold,) = [g for g in doc.groups.values() if "iterations" in g.meta]
    assert fold.meta["iterations"] == "1996" and fold.collapsed
    path = tmp_path / "doc.gstudio"
    save_document(doc, path, TrustStore(tmp_path / "trust.json"))
    assert path.stat().st_size < 1024**2
    assert len(doc) < 200


@pytest.mark.torch
@pytest.mark.parametrize("program", sorted(TUTORIALS))
def test_a_2000_step_tutorial_runs_as_pytorch_ran_it(program: str) -> None:
    pytest.importorskip("torch")
    scope = runpy.run_path(str(PROGRAMS / program))
    facts = _rows(import_program(PROGRAMS / program))
    for name in TUTORIALS[program]:
        fact, tensor = facts[name], scope[name]
        # 2000 float32 steps: the last bits of a sum differ, and grow a little
        np.testing.assert_allclose(
            fact.array, tensor.detach().numpy(), rtol=2e-4, atol=1e-5, err_msg=name
        )
        assert fact.requires_grad == tensor.requires_grad, name
        expected = None if tensor.grad_fn is None else type(tensor.grad_fn).__name__
        assert (None if fact.grad_fn is None else fact.grad_fn.name) == expected, name
        grad = tensor.grad if tensor.is_leaf else None
        assert (fact.grad is None) == (grad is None), name
        if grad is not None:
            # a converged parameter's gradient is a sum of 2000 terms that nearly cancel
            np.testing.assert_allclose(
                fact.grad.array, grad.numpy(), rtol=2e-4, atol=1e-2, err_msg=name
            )


#: recorded from PyTorch 2.13 running poly_2000_optim.py
GOLDEN_OPTIM = {"weight": [0.84410226, 0.00252367, -0.09153266], "bias": [-0.01462855]}


def test_the_optim_tutorial_agrees_with_golden() -> None:
    facts = _rows(import_program(PROGRAMS / "poly_2000_optim.py"))
    for name, values in GOLDEN_OPTIM.items():
        np.testing.assert_allclose(facts[name].array.ravel(), values, atol=1e-4, err_msg=name)


def test_parameters_keep_their_names_across_iterations() -> None:
    doc = import_program(PROGRAMS / "poly_2000_optim.py")
    updates = [n for n in doc.nodes() if n.type_id == "Tensor.add_"]
    assert updates and {n.label.rsplit("_", 1)[0] for n in updates} <= {
        "model.0.weight",
        "model.0.bias",
        "weight",
        "bias",
    }
    grads = {n.label.rsplit("_", 1)[0] for n in doc.nodes() if n.type_id == "Tensor.grad"}
    assert grads == {"model.0.weight.grad", "model.0.bias.grad"}
    bad = [
        n.label
        for n in doc.nodes()
        if n.label.startswith(("step", "None", "t"))
        and (n.label.rstrip("_0123456789") in ("step", "None", "t"))
    ]
    assert not bad


def test_momentum_state_is_named_for_its_parameter_and_folds() -> None:
    doc = import_program(PROGRAMS / "poly_2000_module.py")
    (fold,) = [g for g in doc.groups.values() if "iterations" in g.meta]
    carried = {doc.node(n).label.rsplit("_", 1)[0] for n in fold.members}
    assert {"model.a", "model.a.momentum_buffer", "model.d.momentum_buffer"} <= carried


def test_sgd_step_reads_lr_and_editing_it_changes_the_run_and_the_script() -> None:
    doc = import_program(PROGRAMS / "poly_2000_optim.py")
    before = _rows(doc)["weight"].array.copy()
    updates = [n for n in doc.nodes() if n.type_id == "Tensor.add_"]
    assert {n.params["alpha"] for n in updates} == {-1e-6}  # p.add_(p.grad, alpha=-lr)
    for node in updates:
        (grad,) = doc.inputs_of(node.id, "other")  # p.grad as a node, not its values
        assert doc.node(grad.src).type_id == "Tensor.grad"
        doc.set_param(node.id, "alpha", -1e-4)
    after = _rows(doc)["weight"].array
    assert not np.allclose(before, after)
    assert "alpha=-0.0001" in export_script(doc, facts=False)


def test_nested_loops_that_both_fold_import(tmp_path: Path) -> None:
    """Two runs of an inner loop fold beside each other (once an internal KeyError)."""
    program = tmp_path / "nested.py"
    program.write_text(
        "import torch\n"
        "w = torch.ones(3, requires_grad=True)\n"
        "for epoch in range(2):\n"
        "    for step in range(6):\n"
        "        loss = (w * 2).sum()\n"
        "        loss.backward()\n"
        "        with torch.no_grad():\n"
        "            w -= 0.1 * w.grad\n"
        "        w.grad = None\n",
        "utf-8",
    )
    doc = import_program(program)
    folds = [g for g in doc.groups.values() if "iterations" in g.meta]
    assert [g.meta["iterations"] for g in folds] == ["2", "2"]
    np.testing.assert_allclose(_rows(doc)["w"].array, [1 - 12 * 0.2] * 3, rtol=1e-6)


def test_a_program_recording_more_than_a_document_holds_is_refused_in_one_line(
    tmp_path: Path,
) -> None:
    program = tmp_path / "huge.py"
    program.write_text(
        "import torch\nx = torch.ones(1)\nys = [x + i for i in range(20001)]\n", "utf-8"
    )
    with pytest.raises(ImportProblem) as err:
        import_program(program)
    message = str(err.value)
    assert "\n" not in message and "operations" in message and "a document holds" in message


def test_a_program_whose_data_is_more_than_a_document_holds_is_refused(tmp_path: Path) -> None:
    program = tmp_path / "big_data.py"
    program.write_text("import torch\nx = torch.randn(3000, 2000) * 2\n", "utf-8")
    with pytest.raises(ImportProblem, match="numbers; a document holds") as err:
        import_program(program)
    assert "\n" not in str(err.value)


def test_running_out_of_memory_outside_a_step_is_an_error_not_an_internal_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from gradstudio import cli

    def too_large(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr(cli, "load_document", too_large)
    assert cli.main(["run", "big.gstudio"]) == 2
    err = capsys.readouterr().err
    assert err == "gradstudio: error: big.gstudio: out of memory: the document is too large\n"


LBFGS_PROGRAM = (
    "import torch\n"
    "torch.manual_seed(0)\n"
    "x = torch.linspace(-1, 1, 16).unsqueeze(1)\n"
    "y = 3 * x - 1\n"
    "model = torch.nn.Linear(1, 1)\n"
    "opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=5)\n"
    "for step in range(2):\n"
    "    def closure():\n"
    "        opt.zero_grad()\n"
    "        loss = ((model(x) - y) ** 2).mean()\n"
    "        loss.backward()\n"
    "        return loss\n"
    "    opt.step(closure)\n"
    "weight, bias = model.weight, model.bias\n"
    "pred = model(x)\n"
)


def test_a_step_that_runs_a_closure_is_what_it_did_not_its_inner_ops(tmp_path: Path) -> None:
    """LBFGS overrides ``step``; its line search and history are PyTorch's code, and the
    closure's passes run inside it.  Once recorded op by op (thousands of LBFGS's own
    ``dot``/``add_`` and a backward of an unrecorded loss, refused), the step is now a
    copy of the values it wrote, as any closure step is, with the ``.grad`` its closure
    left, and the document agrees."""
    program = tmp_path / "lbfgs.py"
    program.write_text(LBFGS_PROGRAM, "utf-8")
    doc = import_program(program)
    assert not any(n.type_id == "torch.dot" for n in doc.nodes())
    facts = _rows(doc)
    torch = pytest.importorskip("torch")
    scope = runpy.run_path(str(program))
    assert isinstance(scope["weight"], torch.Tensor)
    for name in ("weight", "bias", "pred"):
        np.testing.assert_allclose(
            facts[name].array, scope[name].detach().numpy(), rtol=1e-5, atol=1e-6
        )
    for name in ("weight", "bias"):  # the closure's last backward left them
        np.testing.assert_allclose(
            facts[name].grad.array, scope[name].grad.numpy(), rtol=1e-4, atol=1e-6
        )


GAN_PROGRAM = (
    "import torch\n"
    "torch.manual_seed(0)\n"
    "g = torch.nn.Linear(2, 2)\n"
    "d = torch.nn.Linear(2, 1)\n"
    "opt_g = torch.optim.SGD(g.parameters(), lr=0.1)\n"
    "opt_d = torch.optim.SGD(d.parameters(), lr=0.1, momentum=0.9)\n"
    "x = torch.randn(4, 2)\n"
    "for step in range(7):\n"
    "    fake = g(x)\n"
    "    g_loss = d(fake).mean()\n"
    "    opt_g.zero_grad()\n"
    "    g_loss.backward()\n"
    "    opt_g.step()\n"
    "    d_w_grad = d.weight.grad.clone()\n"
    "    d_loss = d(x).mean() - d(fake.detach()).mean()\n"
    "    opt_d.zero_grad()\n"
    "    d_loss.backward()\n"
    "    opt_d.step()\n"
    "d_w, g_w = d.weight, g.weight\n"
)


def test_a_loop_whose_backward_adds_to_gradients_left_before_it_folds_carrying_them(
    tmp_path: Path,
) -> None:
    """A GAN's generator step runs backward through the discriminator, adding to the
    gradients its previous step left (cleared only before the discriminator's own
    backward).  The loop once stayed unfolded (MorvanZhou's 151-step GAN then passed the
    10,000 operations a document holds); the card now sets those ``.grad`` again."""
    program = tmp_path / "gan.py"
    program.write_text(GAN_PROGRAM, "utf-8")
    doc = import_program(program)
    (fold,) = [g for g in doc.groups.values() if "iterations" in g.meta]
    kinds = [doc.node(n).type_id for n in fold.members]
    assert kinds.count("gradstudio.set_grad") == 2  # d.weight's and d.bias's
    facts = _rows(doc)
    pytest.importorskip("torch")
    scope = runpy.run_path(str(program))
    for name in ("d_w", "g_w", "d_w_grad"):
        np.testing.assert_allclose(
            facts[name].array, scope[name].detach().numpy(), rtol=1e-5, atol=1e-6
        )
    np.testing.assert_allclose(facts["d_w"].grad.array, scope["d_w"].grad.numpy(), rtol=1e-5)
