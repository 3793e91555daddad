"""Evaluation off the UI thread: prepare on the UI thread, run in a worker process, never freeze.

``gradstudio.evaluation.evaluate.prepare(doc)`` copies the document (cheap, UI thread);
a single-thread pool hands the plan to an evaluation process
(``gradstudio.evaluation.worker.run_plan``) and reads its results back, so runs never
overlap, and whatever a Function's code does (loop forever, exit, allocate
gigabytes) the window stays responsive and Cancel stops it.  A newer run cancels
the older one.  Finished evaluations are remembered by the content of the plan they
ran, so undoing an edit brings its results straight back instead of showing
nothing until the next run — the complaint users file most against ComfyUI.
"""

from __future__ import annotations

import threading
import traceback
from collections import OrderedDict
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from gradstudio.document.events import MetaChanged, NodeMoved, ParamChanged
from gradstudio.evaluation import structure, worker
from gradstudio.evaluation.budget import DEFAULT_BUDGET
from gradstudio.evaluation.plan import Plan, prepare, with_params
from gradstudio.evaluation.plan_key import plan_key
from gradstudio.evaluation.results import Evaluation
from ui import gc_policy

if TYPE_CHECKING:
    from gradstudio.document.events import DocumentEvent
    from gradstudio.document.model import Document
    from ui.state import StudioState

CACHE_SIZE = 24
LIVE_DELAY_MS = 120


class _JobSignals(QObject):
    progress = Signal(int, int, int)  # generation, step, total
    done = Signal(int, object, object, object)  # generation, Evaluation | None, key, error


class _Job(QRunnable):
    """Runs one plan on the pool; reports through signals queued to the UI thread."""

    def __init__(
        self,
        plan: Plan,
        generation: int,
        cancel: threading.Event,
        signals: _JobSignals,
        key: tuple | None = None,
    ) -> None:
        super().__init__()
        self.plan = plan
        self.key = key
        self.generation = generation
        self.cancel = cancel
        # The signals object belongs to the runner (UI thread) and outlives every job:
        # a per-job sender destroyed with its runnable can lose its queued results.
        self.signals = signals
        self.setAutoDelete(False)

    def run(self) -> None:
        gen = self.generation

        def progress(step: int, total: int) -> None:
            # called when the step running changes, at most once per worker.POLL_S
            self.signals.progress.emit(gen, step, total)

        try:
            ev = worker.run_plan(
                self.plan,
                cancel=self.cancel.is_set,
                progress=progress,
                received=gc_policy.freeze_received,
                taken=structure.warm,
            )
            key = self.key if self.key is not None else plan_key(self.plan)
        except Exception:
            self.signals.done.emit(gen, None, None, traceback.format_exc())
            return
        self.signals.done.emit(gen, ev, key, None)


class EvaluationRunner(QObject):
    """Runs ``state.document`` in the background and hands results to ``state``.

    ``live`` re-runs shortly after every edit that affects results; otherwise such an
    edit marks the shown results ``stale`` (unless the cache has the new state's).
    """

    started = Signal()
    progress = Signal(int, int)  # step, total
    #: An Evaluation is shown (also set on the state): a run finished, or an edit
    #: brought back a state whose results were remembered.
    finished = Signal(object)
    failed = Signal(str)  # traceback of an unexpected failure
    busyChanged = Signal(bool)
    staleChanged = Signal(bool)

    def __init__(self, state: StudioState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._signals = _JobSignals(self)
        self._signals.progress.connect(self._on_progress)
        self._signals.done.connect(self._on_done)
        self.live = False
        self.device: str | None = None  # None: the document's device setting
        #: Bytes of tensor data a run may hold (the studio's setting; None: no limit).
        self.memory_budget: int | None = DEFAULT_BUDGET
        self.stale = False
        self.busy = False
        self.last_seconds = 0.0
        self._generation = 0
        self._cancel: threading.Event | None = None
        self._revisions: dict[int, tuple[Document, int]] = {}
        self._cache: OrderedDict[tuple, Evaluation] = OrderedDict()
        self._jobs: dict[int, _Job] = {}
        #: The last plan prepared and what it was prepared from: the check after an
        #: edit (``cached``) and the run that follows it share one copy of the document.
        self._prepared: tuple[Document, tuple, Plan] | None = None
        #: The nodes whose parameters changed since that plan was prepared.
        self._edited: set[str] = set()
        #: ``plan_key`` of that plan, once asked (computed once for the check and the run).
        self._key: tuple | None = None
        #: A run of a document shown (``run(doc)``) that finished before it was shown.
        self._early: tuple[int, Evaluation | None, tuple | None, str | None] | None = None
        self._unsubscribe = state.document.subscribe(self._on_event)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(LIVE_DELAY_MS)
        self._timer.timeout.connect(self.run)
        self._check_timer = QTimer(self)
        self._check_timer.setSingleShot(True)
        self._check_timer.setInterval(0)
        self._check_timer.timeout.connect(self._after_edits)
        state.documentReplaced.connect(self._document_replaced)
        worker.prewarm()

    # ------------------------------------------------------------------ control
    def set_live(self, live: bool) -> None:
        self.live = live
        if live and self.stale:
            self.run()

    def set_memory_budget(self, budget: int | None) -> None:
        """A new budget: remembered results were refused (or allowed) under the old one."""
        if budget != self.memory_budget:
            self.memory_budget = budget
            self._cache.clear()

    def run(self, doc: Document | None = None) -> int:
        """Start evaluating the document now; returns the run's generation number.

        ``doc``: a document about to be shown (``set_document``), so that its run
        overlaps the building of its scene; the run survives the replacement.
        """
        self._timer.stop()
        doc = doc or self.state.document
        plan = self._prepare(doc)
        # the key, if the check after the edit computed it already (else the job does)
        key = self._key if self._prepared is not None and self._prepared[2] is plan else None
        self._cancel_current()
        self._generation += 1
        gen = self._generation
        cancel = threading.Event()
        self._cancel = cancel
        job = _Job(plan, gen, cancel, self._signals, key)
        self._jobs[gen] = job
        self._revisions[gen] = (doc, doc.revision)
        self._set_busy(True)
        self.started.emit()
        self.pool.start(job)
        return gen

    def cancel(self) -> None:
        """Stop the running evaluation (its partial result is shown, marked cancelled)."""
        if self._cancel is not None:
            self._cancel.set()

    def wait(self, msecs: int = -1) -> bool:
        """Block until the worker is idle (for shutdown and benchmarks)."""
        return self.pool.waitForDone(msecs)

    def shutdown(self) -> None:
        """Stop any run (its process is killed if it does not stop at once) and wait."""
        self._timer.stop()
        self._cancel_current()
        self.pool.waitForDone(5000)
        self._unsubscribe()

    def cached(self, doc: Document | None = None) -> Evaluation | None:
        """A remembered evaluation of exactly this document's content, if any."""
        plan = self._prepare(doc or self.state.document)
        if self._key is None:
            self._key = plan_key(plan)
        return self._cache.get(self._key)

    def _prepare(self, doc: Document) -> Plan:
        """``prepare(doc)``, once per state of the document: any event that changes a
        plan (a rename too, which changes no revision) forgets the copy; after edits
        of parameters alone, the copy is updated instead."""
        key = (
            doc.revision,
            doc.trusted,
            doc.settings["device"],
            doc.settings["seed"],
            self.device,
            self.memory_budget,
        )
        prepared, edited = self._prepared, self._edited
        if prepared is not None and prepared[0] is doc and prepared[1] == key:
            return prepared[2]
        if prepared is not None and prepared[0] is doc and prepared[1][1:] == key[1:]:
            plan = with_params(prepared[2], doc, edited)  # values edited since, nothing else
        else:
            plan = prepare(doc, self.device, self.memory_budget)
        self._edited = set()
        self._prepared = (doc, key, plan)
        self._key = None
        return plan

    # ------------------------------------------------------------------ internals
    def _cancel_current(self) -> None:
        if self._cancel is not None:
            self._cancel.set()
            self._cancel = None

    def _set_busy(self, busy: bool) -> None:
        if busy != self.busy:
            self.busy = busy
            self.busyChanged.emit(busy)

    def _set_stale(self, stale: bool) -> None:
        if stale != self.stale:
            self.stale = stale
            self.staleChanged.emit(stale)

    def _on_progress(self, gen: int, step: int, total: int) -> None:
        if gen == self._generation:
            self.progress.emit(step, total)

    def _on_done(
        self, gen: int, ev: Evaluation | None, key: tuple | None, error: str | None
    ) -> None:
        if gen == self._generation and self._ran_on_other_document(gen):
            self._early = (gen, ev, key, error)  # shown once its document is
            return
        self._jobs.pop(gen, None)
        ran_on = self._revisions.pop(gen, None)
        if gen != self._generation:
            return  # superseded by a newer run
        self._cancel = None
        self._set_busy(False)
        if ev is None:
            self.failed.emit(error or "evaluation failed")
            return
        self.last_seconds = ev.seconds
        if key is not None and not ev.cancelled:
            self._cache[key] = ev
            self._cache.move_to_end(key)
            while len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        doc = self.state.document
        edited = ran_on is None or ran_on != (doc, doc.revision)
        self.state.set_evaluation(ev)
        self._set_stale(edited or ev.cancelled)
        self.finished.emit(ev)
        gc_policy.freeze_evaluation()

    def _on_event(self, event: DocumentEvent) -> None:
        if isinstance(event, ParamChanged):
            self._edited.add(event.node_id)  # the next plan is the last one with new values
        elif not isinstance(event, NodeMoved | MetaChanged):  # (neither is in a plan)
            self._prepared = None
        if not event.affects_evaluation:
            return
        # Coalesce: a paste or an undo emits many events; look at the result once.
        if self.state.evaluation is not None:
            self._set_stale(True)
        self._check_timer.start()

    def _after_edits(self) -> None:
        hit = self.cached()
        if hit is not None:
            self._timer.stop()
            dropped = self.busy
            if dropped:  # a run of this very state, or of another, is under way: drop it
                self._cancel_current()
                self._generation += 1
                self._set_busy(False)
            restored = hit is not self.state.evaluation
            if restored:
                self.state.set_evaluation(hit)
            self._set_stale(False)
            if restored or dropped:
                self.finished.emit(hit)  # the status bar, and whoever waits for the run
            return
        if self.live:
            self._timer.start()
        self._set_stale(self.state.evaluation is not None)

    def _ran_on_other_document(self, gen: int) -> bool:
        ran_on = self._revisions.get(gen)
        return ran_on is not None and ran_on[0] is not self.state.document

    def _document_replaced(self) -> None:
        self._prepared = None
        self._unsubscribe()
        self._unsubscribe = self.state.document.subscribe(self._on_event)
        self._set_stale(False)
        early, self._early = self._early, None
        if early is not None and not self._ran_on_other_document(early[0]):
            self._on_done(*early)  # the run of this document finished before it was shown
            return
        if self.busy and not self._ran_on_other_document(self._generation):
            return  # the run started for this very document as it was being shown
        self._cancel_current()
        self._generation += 1  # drop results of the old document's run
        self._set_busy(False)
