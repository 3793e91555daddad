"""Every program of ``tests/programs`` prints on CUDA what it prints on the CPU.

Learner programs move their model and data to ``cuda`` when it is there, so every engine
path they reach (layers, losses, optimizers, init, sampling, printing, ``.item()``,
serialization, ``torch.func``) must run on device arrays with CuPy's API only.  Each
program runs twice in a child process (``tests/test_programs.run``): as it is, on the CPU
(the child sees no GPU, so ``torch.cuda.is_available()`` is False), then on the simulator
or the GPU with ``torch.set_default_device("cuda")``, so each factory call without a
device makes a CUDA tensor, as in PyTorch.  The two outputs must be the same text once
the device is blanked (``device='cuda:0'`` suffixes, ``cuda:0`` for ``cpu``), with the
numeric rule of the golden comparison for programs that train (long numbers
``GEMM_REL_TOL`` apart, short ones and all text exact): the CPU kernels reproduce
PyTorch's CPU rounding (its vectorised ``tanh``, its summation order), CUDA's are CuPy's,
and training carries their last bits on.

Marked ``cuda``: it runs on a GPU, and on every machine under the CuPy simulator
(``make test`` runs the ``cuda`` tests with ``--cupy-sim``), where a NumPy function handed a
device array fails as it fails under CuPy.
"""

from __future__ import annotations

import re

import pytest

from tests.test_programs import GEMM_REL_TOL, NAMES, differences, run

pytestmark = pytest.mark.cuda

_NUMPY = "calls .numpy() on a CUDA tensor, a TypeError in PyTorch"
_FROM_NUMPY = "feeds torch.from_numpy's tensors (always on the CPU) to a model made on CUDA"

#: Programs whose CUDA run leaves the CPU run's text at a line, as PyTorch's would: the
#: start of that line on CUDA, and why.  What they printed before it must be the same.
DIVERGES_ON_CUDA = {
    "backward_errors_tour": (
        "RuntimeError: one of the variables needed",
        "the message names torch.cuda.FloatTensor, and the program cuts it at 200 characters",
    ),
    "common_errors": ("numpy after detach: TypeError", _NUMPY + " (caught)"),
    "creation_random": ("raised: TypeError", _NUMPY),
    "dtype_promotion": ("raised: TypeError", _NUMPY),
    "higher_order_grads": ("raised: TypeError", _NUMPY),
    "tensor_basics": ("raised: TypeError", _NUMPY),
    "real_gk_bilstm_attention": ("raised: TypeError", _NUMPY),
    "real_gk_seq2seq_attention": ("raised: TypeError", _NUMPY),
    "real_ex_time_sequence": ("raised: RuntimeError", _FROM_NUMPY),
    "real_mz_dynamic_rnn": ("raised: RuntimeError", _FROM_NUMPY),
    "real_mz_gan": ("raised: RuntimeError", _FROM_NUMPY),
    "real_mz_rnn_regressor": ("raised: RuntimeError", _FROM_NUMPY),
    "real_yj_linear_regression": ("raised: RuntimeError", _FROM_NUMPY),
    "real_mz_batch_train": ("raised: TypeError", _NUMPY),
    "real_mz_classification": ("raised: TypeError", _NUMPY),
    "real_mz_dropout": ("raised: TypeError", _NUMPY),
    "real_mz_optimizers": ("raised: TypeError", _NUMPY),
    "real_mz_regression": ("raised: TypeError", _NUMPY),
    "real_mz_variable": ("raised: TypeError", _NUMPY),
    "real_rb_attention_scores": (
        "Sum: tensor(1.0000)",
        "a softmax's sum is 1 on the CPU (ATen's order of additions) and an ulp below 1 on "
        "CUDA (CuPy's), which prints with four decimals",
    ),
    "gru_packed_classifier": (
        "raised: RuntimeError",
        "hands pack_padded_sequence lengths made by torch.tensor, on CUDA: PyTorch wants "
        "them on the CPU",
    ),
    "leaf_retain_detach": ("raised: TypeError", _NUMPY),
    "legendre_function": (
        "Result: y = 0.000",
        "fits sin(x), which CUDA rounds other than PyTorch's CPU kernel: two coefficients "
        "that stay within 1e-4 of zero end with the other sign",
    ),
}

#: Programs of ``DIVERGES_ON_CUDA`` whose divergence depends on the host: the CuPy
#: simulator's float32 ``sin`` is NumPy's, whose SIMD loop NumPy picks by the CPU
#: (AVX-512 or AVX2), so on some hosts the CUDA run prints the CPU run's text throughout.
MAY_AGREE = frozenset({"legendre_function"})

#: Programs whose numbers differ beyond ``GEMM_REL_TOL``, and why (strict expected failures).
DIFFERENT_ON_CUDA = {
    "real_ex_regression": "trains until the loss is under a threshold, so the float32 sums' "
    "order (CPU: ATen's, CUDA: CuPy's) changes how many batches it takes",
    "real_jj_nn": "draws its data on the CPU (device='cpu') and its weights on the default "
    "device: CUDA's generator is a stream of its own, as in PyTorch, so the weights differ",
    "real_fn_jacobians_hessians": "asserts torch.allclose of two Jacobians with entries near "
    "1e-7 (tanh saturated): CUDA's tanh rounds other than PyTorch's CPU one, by an ulp of "
    "the pre-activation, which allclose's default atol=1e-8 does not forgive",
}

#: Programs whose two runs take 2 s of CPU or more (training loops of the census corpus),
#: marked ``slow``: ``make test``'s simulator pass leaves them out (``-m "cuda and not
#: slow"``); a GPU run of the suite, or ``pytest --cupy-sim -m cuda``, runs them.
HEAVY = frozenset(
    f"real_{n}"
    for n in (
        "ex_regression",
        "ex_time_sequence",
        "gk_bilstm",
        "gk_nnlm",
        "gk_seq2seq",
        "gk_seq2seq_attention",
        "gk_textcnn",
        "gk_textlstm",
        "gk_textrnn",
        "jj_autograd",
        "jj_dynamic_net",
        "jj_module",
        "jj_nn",
        "jj_optim",
        "jj_tensor",
        "kp_bigram",
        "kp_makemore_mlp",
        "sp_char_rnn_classification",
    )
)

_DEVICE_SUFFIX = re.compile(r",\s*device='cuda:0'| \(cuda:0\)(?=\])")
_WRAPPED_SUFFIX = re.compile(r",\n\s+(?=[a-z_]+=)")


def on_cpu_terms(text: str) -> str:
    """A CUDA run's output as the CPU run would print it: device suffixes gone, other
    device names spelled ``cpu``.  Suffixes that the device's pushed onto a line of their
    own (PyTorch wraps them at 80 columns) join their line again, in both outputs."""
    text = _DEVICE_SUFFIX.sub("", text)
    text = text.replace("device(type='cuda', index=0)", "device(type='cpu')")
    text = text.replace("torch.cuda.", "torch.").replace("cuda:0", "cpu")
    return _WRAPPED_SUFFIX.sub(", ", text)


def _param(name: str) -> object:
    marks = []
    if name in DIFFERENT_ON_CUDA:
        marks.append(pytest.mark.xfail(strict=True, reason=DIFFERENT_ON_CUDA[name]))
    if name in HEAVY:
        marks.append(pytest.mark.slow)
    return pytest.param(name, marks=marks)


@pytest.mark.parametrize("name", [_param(n) for n in NAMES])
def test_program_prints_on_cuda_what_it_prints_on_cpu(name: str) -> None:
    cpu = _WRAPPED_SUFFIX.sub(", ", run(name, "engine"))
    cuda = on_cpu_terms(run(name, "engine", default_device="cuda"))
    if name in DIVERGES_ON_CUDA:
        start, why = DIVERGES_ON_CUDA[name]
        lines = cuda.splitlines(keepends=True)
        at = next((i for i, line in enumerate(lines) if line.startswith(start)), None)
        if at is None and name in MAY_AGREE:
            at = len(lines)
        assert at is not None, f"{name}.py should print a line {start!r}... on CUDA ({why})"
        cpu, cuda = "".join(cpu.splitlines(keepends=True)[:at]), "".join(lines[:at])
    problems = differences(cuda, cpu, GEMM_REL_TOL)
    assert not problems, f"{name}.py prints on CUDA other than on the CPU:\n" + "\n".join(
        p.replace("engine:", "cuda:").replace("torch: ", "cpu:  ") for p in problems
    )


def test_device_text_is_the_only_thing_blanked() -> None:
    assert on_cpu_terms("tensor([1., 2.], device='cuda:0', requires_grad=True)") == (
        "tensor([1., 2.], requires_grad=True)"
    )
    wrapped = "tensor([[1.0000, 2.0000, 3.0000, 4.0000]], device='cuda:0',\n       grad_fn=<A>)"
    assert on_cpu_terms(wrapped) == "tensor([[1.0000, 2.0000, 3.0000, 4.0000]], grad_fn=<A>)"
    assert on_cpu_terms("[torch.float32 of size 2 (cuda:0)]") == "[torch.float32 of size 2]"
    assert on_cpu_terms("cuda:0 device(type='cuda', index=0)") == "cpu device(type='cpu')"
    assert on_cpu_terms("tensor([1.])") == "tensor([1.])"
    assert on_cpu_terms("tensor([[1.],\n        [2.]])") == "tensor([[1.],\n        [2.]])"
