"""What ``print`` shows for modules, parameters and optimizers, as PyTorch prints it.

Each program prints under the engine; the expected text was printed by PyTorch 2.13
(and is re-checked against it live when torch is installed).
"""

from __future__ import annotations

import contextlib
import io
import textwrap
import warnings

import pytest

import engine

PROGRAMS = {
    "module_tree": (
        """
        nn = torch.nn
        print(nn.Sequential(
            nn.Linear(3, 2), nn.ReLU(), nn.Flatten(), nn.Softmax(dim=1), nn.MSELoss(),
            nn.CrossEntropyLoss(), nn.Identity(), nn.ModuleList([nn.Tanh()]),
            nn.ModuleDict({"a": nn.Sigmoid()}),
            nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU()]),
            nn.Linear(2, 1, bias=False), nn.ReLU(inplace=True), nn.LogSoftmax(dim=-1),
        ))
        """,
        """
        Sequential(
          (0): Linear(in_features=3, out_features=2, bias=True)
          (1): ReLU()
          (2): Flatten(start_dim=1, end_dim=-1)
          (3): Softmax(dim=1)
          (4): MSELoss()
          (5): CrossEntropyLoss()
          (6): Identity()
          (7): ModuleList(
            (0): Tanh()
          )
          (8): ModuleDict(
            (a): Sigmoid()
          )
          (9): ModuleList(
            (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)
            (3): ReLU()
          )
          (10): Linear(in_features=2, out_features=1, bias=False)
          (11): ReLU(inplace=True)
          (12): LogSoftmax(dim=-1)
        )
        """,
    ),
    "custom_module": (
        """
        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.hidden = torch.nn.Linear(4, 8)
                self.out = torch.nn.Linear(8, 1)

            def forward(self, x):
                return self.out(torch.relu(self.hidden(x)))

        net = Net()
        print(net)
        print([name for name, _ in net.named_parameters()])
        print(list(net.state_dict().keys()))
        print(net.load_state_dict(net.state_dict()))
        """,
        """
        Net(
          (hidden): Linear(in_features=4, out_features=8, bias=True)
          (out): Linear(in_features=8, out_features=1, bias=True)
        )
        ['hidden.weight', 'hidden.bias', 'out.weight', 'out.bias']
        ['hidden.weight', 'hidden.bias', 'out.weight', 'out.bias']
        <All keys matched successfully>
        """,
    ),
    "parameter": (
        """
        print(torch.nn.Parameter(torch.tensor([1.0, 2.0])))
        print(torch.nn.Parameter(torch.ones(2, 2, dtype=torch.float64)))
        """,
        """
        Parameter containing:
        tensor([1., 2.], requires_grad=True)
        Parameter containing:
        tensor([[1., 1.],
                [1., 1.]], dtype=torch.float64, requires_grad=True)
        """,
    ),
    "optimizers": (
        """
        p = torch.nn.Parameter(torch.ones(2))
        print(torch.optim.SGD([p], lr=0.1, momentum=0.9))
        print(torch.optim.Adam([p]))
        """,
        """
        SGD (
        Parameter Group 0
            dampening: 0
            differentiable: False
            foreach: None
            fused: None
            lr: 0.1
            maximize: False
            momentum: 0.9
            nesterov: False
            weight_decay: 0
        )
        Adam (
        Parameter Group 0
            amsgrad: False
            betas: (0.9, 0.999)
            capturable: False
            decoupled_weight_decay: False
            differentiable: False
            eps: 1e-08
            foreach: None
            fused: None
            lr: 0.001
            maximize: False
            weight_decay: 0
        )
        """,
    ),
}


def _run(source: str, torch_module: object) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(textwrap.dedent(source), {"torch": torch_module})
    return out.getvalue()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_engine_prints_what_pytorch_printed(name: str) -> None:
    source, expected = PROGRAMS[name]
    assert _run(source, engine) == textwrap.dedent(expected).lstrip("\n")


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_expected_text_is_what_pytorch_prints(name: str) -> None:
    torch = pytest.importorskip("torch")
    source, expected = PROGRAMS[name]
    assert _run(source, torch) == textwrap.dedent(expected).lstrip("\n")


def test_scheduler_before_optimizer_warns_like_pytorch() -> None:
    p = engine.nn.Parameter(engine.ones(1))
    opt = engine.optim.SGD([p], lr=0.1)
    sched = engine.optim.lr_scheduler.StepLR(opt, step_size=1)
    with pytest.warns(UserWarning, match=r"Detected call of `lr_scheduler.step\(\)` before"):
        sched.step()


def test_float_of_a_tensor_that_requires_grad_warns_outside_no_grad() -> None:
    """Once per process, as PyTorch's ``TORCH_WARN_ONCE`` (the mark is reset to test it)."""
    import importlib

    tensor = importlib.import_module("engine.tensor")  # ``engine.tensor`` is the function
    tensor._WARNED_SCALAR.clear()
    x = engine.ones((), requires_grad=True)
    with pytest.warns(UserWarning, match="Converting a tensor with requires_grad=True"):
        float(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(x) == 1.0
    tensor._WARNED_SCALAR.clear()
    with engine.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(x) == 1.0


def test_more_layers_print_like_pytorch() -> None:
    nn = engine.nn
    layers = [
        nn.LeakyReLU(0.2),
        nn.ELU(),
        nn.Softplus(),
        nn.SiLU(),
        nn.Hardtanh(),
        nn.ReLU6(),
        nn.LogSigmoid(),
        nn.L1Loss(),
        nn.SmoothL1Loss(),
        nn.HuberLoss(),
        nn.BCELoss(),
        nn.BCEWithLogitsLoss(),
    ]
    assert [repr(m) for m in layers] == [
        "LeakyReLU(negative_slope=0.2)",
        "ELU(alpha=1.0)",
        "Softplus(beta=1.0, threshold=20.0)",
        "SiLU()",
        "Hardtanh(min_val=-1.0, max_val=1.0)",
        "ReLU6()",
        "LogSigmoid()",
        "L1Loss()",
        "SmoothL1Loss()",
        "HuberLoss()",
        "BCELoss()",
        "BCEWithLogitsLoss()",
    ]


def test_cnn_layers_print_like_pytorch() -> None:
    nn = engine.nn
    layers = [
        nn.Conv2d(2, 4, 3),
        nn.Conv1d(2, 3, 2, stride=2, padding=1),
        nn.Conv2d(2, 4, (3, 2), padding="same", bias=False, groups=2),
        nn.MaxPool2d(2),
        nn.AvgPool2d(2),
        nn.MaxPool1d(3, 2),
        nn.AvgPool1d(2),
        nn.LayerNorm(5),
        nn.Embedding(10, 3, padding_idx=0),
        nn.BatchNorm1d(3),
        nn.BatchNorm2d(4, momentum=None),
    ]
    assert [repr(m) for m in layers] == [
        "Conv2d(2, 4, kernel_size=(3, 3), stride=(1, 1))",
        "Conv1d(2, 3, kernel_size=(2,), stride=(2,), padding=(1,))",
        "Conv2d(2, 4, kernel_size=(3, 2), stride=(1, 1), padding=same, groups=2, bias=False)",
        "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)",
        "AvgPool2d(kernel_size=2, stride=2, padding=0)",
        "MaxPool1d(kernel_size=3, stride=2, padding=0, dilation=1, ceil_mode=False)",
        "AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))",
        "LayerNorm((5,), eps=1e-05, elementwise_affine=True, bias=True)",
        "Embedding(10, 3, padding_idx=0)",
        "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)",
        "BatchNorm2d(4, eps=1e-05, momentum=None, affine=True, bias=True, "
        "track_running_stats=True)",
    ]
