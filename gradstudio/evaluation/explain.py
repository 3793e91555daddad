"""Plain-language explanations of the errors a learner meets in autograd.

One table maps a pattern of PyTorch's error text to what it means and how to fix
it; the evaluator attaches the first match to the node whose step failed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Explanation:
    title: str
    explanation: str
    fix: str


@dataclass(frozen=True)
class KnownError:
    pattern: re.Pattern[str]
    explanation: Explanation
    exc_type: str | None = None


def _known(
    pattern: str, title: str, explanation: str, fix: str, exc_type: str | None = None
) -> KnownError:
    return KnownError(
        re.compile(pattern, re.IGNORECASE | re.DOTALL),
        Explanation(title, explanation, fix),
        exc_type,
    )


KNOWN_ERRORS: tuple[KnownError, ...] = (
    _known(
        r"backward through the graph a second time",
        "Backward ran twice through the same graph",
        "The first backward freed the intermediate values (saved tensors) that this graph "
        "needs to compute gradients, so a second backward through it has nothing to work with.",
        "Pass retain_graph=True to the first backward (it keeps the saved tensors), or "
        "recompute the forward pass before calling backward again.",
    ),
    _known(
        r"grad can be implicitly created only for scalar outputs",
        "backward() needs a gradient for a non-scalar tensor",
        "backward() without arguments starts from a gradient of 1, which only makes sense "
        "for a tensor with a single element (a loss).",
        "Reduce the tensor to a scalar first (e.g. .sum() or .mean()), or pass gradient= "
        "a tensor of the same shape.",
    ),
    _known(
        r"does not require grad and does not have a grad_fn",
        "This tensor is not part of any autograd graph",
        "Nothing that produced this tensor required gradients, so autograd recorded no "
        "operations and there is nothing to differentiate.",
        "Create the inputs with requires_grad=True (or call .requires_grad_() on a leaf) "
        "before the operations, and check that no detach()/no_grad cut the graph.",
    ),
    _known(
        r"a leaf Variable that requires grad is being used in an in-place operation",
        "In-place change of a leaf that requires grad",
        "Autograd needs a leaf's original value, so PyTorch forbids changing a leaf that "
        "requires grad in place while gradients are being recorded.",
        "Do the update inside torch.no_grad() (as optimisers do), or use an out-of-place "
        "operation that makes a new tensor.",
    ),
    _known(
        r"view of a leaf Variable that requires grad",
        "In-place change of a view of a leaf",
        "The tensor is a view of a leaf that requires grad; changing it in place would "
        "change the leaf behind autograd's back.",
        "Work on a clone() of the view, or make the change inside torch.no_grad().",
    ),
    _known(
        r"modified by an inplace operation",
        "A value needed for backward was changed in place",
        "An operation saved this tensor to compute gradients later, and an in-place "
        "operation changed it afterwards (its _version moved on), so the gradient would be wrong.",
        "Use an out-of-place operation instead (x = x * 2 rather than x.mul_(2)), or clone() "
        "the tensor before changing it.",
    ),
    _known(
        r"only change requires_grad flags of leaf variables",
        "requires_grad can only be set on a leaf",
        "This tensor was produced by an operation, so whether it requires grad follows "
        "from its inputs and cannot be switched by hand.",
        "Set requires_grad on the leaf it comes from, or use .detach() to get a new leaf "
        "and call .requires_grad_() on that.",
    ),
    _known(
        r"(only Tensors of floating point|floating point and complex dtype)"
        r".*(require|requires) gradients?",
        "Integer tensors cannot require gradients",
        "Gradients are only defined for floating-point (and complex) tensors.",
        "Give the tensor a floating dtype (dtype=torch.float32), or write numbers with a "
        "decimal point (1.0 instead of 1).",
    ),
    _known(
        r"Expected all tensors to be on the same device",
        "Tensors on different devices",
        "An operation received tensors that live on different devices (CPU and GPU).",
        "Move them to one device first, e.g. with .to(device) on every input.",
    ),
    _known(
        r"(CUDA|cuda|GPU|CuPy|cupy)"
        r".*(not available|no .*device|cannot be used|not installed|unavailable)"
        r"|(not available|no .*GPU).*(CUDA|cuda)|Torch not compiled with CUDA",
        "No usable GPU",
        "The document asks for CUDA, but this machine has no usable GPU (or no CuPy).",
        "Switch the document's device to cpu (or run with --device cpu).",
    ),
    _known(
        r"cannot be multiplied|size mismatch|shapes? .* (?:cannot|can't) be|must match the size",
        "Shapes do not fit together",
        "The shapes of the inputs do not agree for this operation (matrix sizes, or "
        "broadcasting rules).",
        "Check the shape of each input in the inspector; transpose, reshape or unsqueeze "
        "one of them so the sizes line up.",
    ),
    _known(
        r"One of the differentiated Tensors appears to not have been used in the graph",
        "An input was not used to compute the output",
        "autograd.grad was asked for the gradient with respect to a tensor the outputs "
        "do not depend on.",
        "Remove that input, or pass allow_unused=True to get None for it.",
    ),
    _known(
        r"Mismatch in shape|grad_outputs? .* shape|must have the same shape",
        "The gradient has the wrong shape",
        "The gradient passed to backward (or grad_outputs) must have the shape of the tensor "
        "it belongs to.",
        "Make the gradient tensor the same shape as the output.",
    ),
    _known(
        r"returned an incorrect number of gradients",
        "backward returned the wrong number of gradients",
        "A custom Function's backward must return one gradient (or None) per argument of forward.",
        "Return a tuple with one entry per forward argument after ctx; use None for "
        "non-tensor arguments.",
    ),
    _known(
        r"Can't call numpy\(\) on Tensor that requires grad",
        "numpy() of a tensor that requires grad",
        "Converting to NumPy would leave autograd's graph behind silently.",
        "Call .detach().numpy() instead.",
    ),
    _known(
        r"'NoneType' object has no attribute",
        "Something is None here",
        "A value this step uses is None — most often .grad before any backward has run "
        "(or after it was set to None).",
        "Run backward before this step, or use the zero-grads node with set_to_none on.",
    ),
    _known(
        r"not trusted",
        "Custom code not run: the document is not trusted",
        "This document contains Python code (custom autograd.Function nodes). Code from a "
        "file you did not write could do anything on your computer, so GradStudio does not "
        "run it until you say you trust the file.",
        "Read the Function code; if you trust it, choose Trust document (or run "
        "`main.py trust FILE`), then evaluate again.",
        "NotTrustedError",
    ),
    _known(
        r"would allocate",
        "Over the memory budget",
        "This step's result, predicted from the shapes of its inputs and its parameters, "
        "does not fit in the memory budget beside what the steps before it hold, so it "
        "was not run.",
        "Use smaller shapes (check broadcasting, cat and expand sizes), or raise the "
        "budget: Run > Memory Budget in the studio, --memory-budget on the command line.",
        "MemoryBudgetError",
    ),
    _known(
        r"ran out of memory",
        "Out of memory",
        "The step asked for more memory than the evaluation may use, so it stopped; the "
        "studio and your document are unaffected.",
        "Use smaller shapes, or raise the memory budget (Run > Memory Budget, or "
        "--memory-budget on the command line).",
        "MemoryError",
    ),
    _known(
        r"the code raised (SystemExit|KeyboardInterrupt)",
        "The Function's code tried to stop the program",
        "SystemExit (sys.exit) and KeyboardInterrupt end a Python program; inside a "
        "Function's code they only end this step, and the studio keeps running.",
        "Raise an ordinary exception (e.g. ValueError) to report a problem, or remove "
        "the exit from the code.",
    ),
    _known(
        r"did not finish within",
        "The step took too long",
        "The evaluation was stopped after the time limit while this step was running "
        "(custom Function code stuck in a loop, or a very large computation).",
        "Check the step's code and sizes, or give the run more time (--timeout).",
        "EvaluationTimeout",
    ),
    _known(
        r"evaluation process",
        "The step ended the evaluation process",
        "The evaluation runs in a separate process; this step made it exit (for example "
        "os._exit() or a crash in native code), so the steps after it did not run.",
        "Check the step's code; the studio started a fresh evaluation process for the next run.",
        "ProcessExit",
    ),
    _known(
        r"is not connected|needs a value|out of range for a list|does not define a class",
        "The node is not set up completely",
        "This node is missing an input connection or a parameter it needs.",
        "Connect the named input (or fill in the parameter) in the inspector.",
        "NodeInputError",
    ),
)

GENERIC = Explanation(
    "PyTorch raised an error",
    "This step raised an error; the steps before it kept their results.",
    "Read the message above; check the inputs' shapes, dtypes and requires_grad in the inspector.",
)

WARNINGS: tuple[KnownError, ...] = (
    _known(
        r"\.grad attribute of a Tensor that is not a leaf",
        "Reading .grad of a non-leaf",
        "Only leaves get .grad after backward; this tensor is the result of an operation, "
        "so its .grad is None.",
        "Call .retain_grad() on it before backward, or read the gradient of the leaf instead.",
    ),
)


def explain(message: str, exc_type: str | None = None) -> Explanation:
    """The explanation for an error message (a generic one if no pattern matches)."""
    return _first(KNOWN_ERRORS, message, exc_type) or GENERIC


def explain_warning(message: str) -> Explanation | None:
    return _first(WARNINGS, message, None)


def _first(table: tuple[KnownError, ...], message: str, exc_type: str | None) -> Explanation | None:
    for known in table:
        if known.exc_type is not None and known.exc_type != exc_type:
            continue
        if known.pattern.search(message):
            return known.explanation
    return None
