"""Evaluation with a timeline: run the steps in order, record what PyTorch would report.

``prepare`` copies what evaluation needs out of the document (on the UI thread);
``Plan.run`` executes it (on a worker thread, cancellable, with progress).  After
every step the facts of every tensor are known: a step records only what it
changed (its new outputs; for steps that may touch anything — in-place ops,
backward — every tensor is re-read and compared).  ``Evaluation.snapshot(step)``
answers from a per-tensor index of those changes (``history``), so a position's
facts cost a lookup per tensor asked, and ``changed_between`` tells a view which
tensors to re-read when the position moves.  That keeps a re-evaluation linear in
the number of nodes and a scrub proportional to what changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gradstudio.document.events import DocumentEvent, Unsubscribe
from gradstudio.evaluation.budget import DEFAULT_BUDGET
from gradstudio.evaluation.plan import prepare
from gradstudio.evaluation.results import Evaluation
from gradstudio.evaluation.runner import CancelCheck, Progress

if TYPE_CHECKING:
    from gradstudio.document.model import Document


def evaluate(
    doc: Document,
    device: str | None = None,
    cancel: CancelCheck | None = None,
    progress: Progress | None = None,
    backend: Any = None,
    memory_budget: int | None = DEFAULT_BUDGET,
) -> Evaluation:
    """Evaluate the whole document now, in this process (``worker.run_plan`` runs a plan
    in a separate process that can be stopped whatever the user's code does)."""
    return prepare(doc, device, memory_budget).run(cancel, progress, backend)


# ----------------------------------------------------------------------- the runner


class LiveEvaluation:
    """Keeps an evaluation of a document current: stale after any edit that matters."""

    def __init__(self, doc: Document, device: str | None = None, backend: Any = None) -> None:
        self.doc = doc
        self.device = device
        self.backend = backend
        self.result: Evaluation | None = None
        self.stale = True
        self._unsubscribe: Unsubscribe = doc.subscribe(self._changed)

    def _changed(self, event: DocumentEvent) -> None:
        if event.affects_evaluation:
            self.stale = True

    def refresh(self) -> Evaluation:
        if self.stale or self.result is None:
            self.result = evaluate(self.doc, self.device, backend=self.backend)
            self.stale = False
        return self.result

    def close(self) -> None:
        self._unsubscribe()
