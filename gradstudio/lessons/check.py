"""A learner's prediction checked against the engine's facts.

The answer is typed text (``5``, ``tensor([5.])``, ``None``, ``False``,
``AddBackward0``); it is read leniently, the way a person would write the fact, and
compared with what the evaluation recorded, never with an answer key in the lesson.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from gradstudio.evaluation.explain_grad import find_ref
from gradstudio.evaluation.explain_grad_rules import number as number_text
from gradstudio.evaluation.facts import TensorFacts
from gradstudio.evaluation.results import Evaluation

_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf", re.IGNORECASE)
_TRUE, _FALSE = {"true", "yes", "1"}, {"false", "no", "0"}


@dataclass(frozen=True)
class Verdict:
    correct: bool
    expected: str  # the engine's fact, as the learner would write it
    given: str


def fact_text(facts: TensorFacts | None, fact: str) -> str:
    if facts is None:
        return "None"
    if fact == "grad":
        return "None" if facts.grad is None else number_text(facts.grad.array)
    if fact == "grad_fn":
        return facts.grad_fn_name or "None"
    return str(bool(getattr(facts, fact)))


def _same(answer: str, facts: TensorFacts | None, fact: str) -> bool:
    said = answer.strip().strip("`").strip()
    low = said.lower()
    if facts is None:
        return low == "none"
    if fact == "grad":
        if facts.grad is None:
            return low == "none"
        numbers = [float(n) for n in _NUMBER.findall(said)]
        values = facts.grad.array.astype(np.float64).reshape(-1)
        return len(numbers) == values.size and bool(
            np.allclose(numbers, values, rtol=1e-4, atol=1e-6, equal_nan=True)
        )
    if fact == "grad_fn":
        name = re.sub(r"^<|\s+object.*$|>$", "", said).strip().lower()
        return name == (facts.grad_fn_name or "None").lower()
    truth = bool(getattr(facts, fact))
    return low in (_TRUE if truth else _FALSE)


def check_prediction(evaluation: Evaluation, node: str, fact: str, answer: str) -> Verdict:
    """Whether ``answer`` states ``node``'s ``fact`` at the end of ``evaluation``."""
    ref = find_ref(evaluation, node)
    facts = evaluation.final.facts(ref.node_id, ref.port, ref.index)
    return Verdict(_same(answer, facts, fact), fact_text(facts, fact), answer.strip())
