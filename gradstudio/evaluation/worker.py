"""Evaluation in a separate process, so that every run can be stopped.

A trusted document's Function code runs inside evaluation, and it may do anything:
``while True: pass``, a sleep loop, ``raise SystemExit(3)``, ``os._exit(1)``, a 3 GB
allocation.  None of that may freeze or end the studio (or the command line), so a
plan runs in a worker process: a fresh interpreter (never a fork of a process that
runs Qt, and unlike multiprocessing's ``spawn`` it does not re-import the caller's
``__main__``), joined by a socket pair and a small shared page of flags.  The
worker streams each step's result back as soon as it is final; cancelling asks it
to stop between steps, and a step that does not give way within ``GRACE_S`` is
stopped by killing the process.  A process that died or was killed is replaced;
one is kept warm, so a run costs a pickled plan and its results rather than a
process start.

The worker decides nothing about trust: the plan carries the parent's decision
(``Plan.trusted``).  It runs with its address space capped (``RLIMIT_AS``) as a
second line behind the memory budget, so an allocation the budget could not
predict (inside Function code) fails there with a one-line error.
"""

from __future__ import annotations

import atexit
import contextlib
import copyreg
import gc
import io
import mmap
import os
import pickle
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import replace
from multiprocessing.connection import Connection, Pipe
from typing import Any

import numpy as np

from gradstudio.catalogue import NodeKind, NodeType, PortSpec, catalogue
from gradstudio.evaluation.facts import StepError, StepResult
from gradstudio.evaluation.plan import Plan
from gradstudio.evaluation.results import Evaluation
from gradstudio.evaluation.runner import CancelCheck, Progress
from gradstudio.sandbox.contained import Contained
from gradstudio.sandbox.limits import Limits

#: How long a cancelled step may take to give way before its process is killed.
GRACE_S = 0.25
#: How often the worker sends the results it has (and the parent looks at its flags).
FLUSH_S = 0.05
POLL_S = 0.01
#: Headroom of the address-space cap over the memory budget: the engine's tensors
#: and the timeline's copies of them, and the interpreter's own growth.
SLACK_BYTES = 1 << 29
YOUNG_THRESHOLD = 20_000


class WorkerError(RuntimeError):
    """The evaluation process could not be started."""


# ------------------------------------------------------------------ the plan on the wire


class _PlanPickler(pickle.Pickler):
    """Node types travel by id (their ``run``/``code`` are closures of the catalogue),
    with the ports of a node that has its own (a custom Function's arguments)."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, NodeType):
            return _node_type, (obj.id, obj.inputs if obj.ports is not None else None)
        return NotImplemented


def _node_type(type_id: str, inputs: tuple[PortSpec, ...] | None = None) -> NodeType:
    base = catalogue().get(type_id)
    return base if inputs is None or inputs == base.inputs else replace(base, inputs=inputs)


def dumps_plan(plan: Plan) -> bytes:
    buffer = io.BytesIO()
    _PlanPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(plan)
    return buffer.getvalue()


# ----------------------------------------------------------------- the results on the wire

#: Arrays up to this size travel as raw bytes (see ``dumps_results``); bigger ones as
#: NumPy pickles them, which copies them no more than once on the way.
SMALL_ARRAY_BYTES = 1 << 16


def _small_array(array: np.ndarray) -> Any:
    if (
        array.dtype.kind not in "biufc"
        or array.nbytes > SMALL_ARRAY_BYTES
        or not array.flags.c_contiguous  # (NumPy keeps a Fortran-ordered array so)
    ):
        return array.__reduce_ex__(pickle.HIGHEST_PROTOCOL)
    return _array, (array.dtype.str, array.shape, array.tobytes())


def _array(dtype: str, shape: tuple[int, ...], data: bytes) -> np.ndarray:
    """An array sent by ``dumps_results`` (writable, as an unpickled array is)."""
    return np.frombuffer(bytearray(data), dtype).reshape(shape)


_RESULTS_DISPATCH = copyreg.dispatch_table | {np.ndarray: _small_array}


def dumps_results(message: Any) -> bytes:
    """``message`` pickled, with its many small arrays (a value and a gradient per
    tensor per step) as raw bytes: NumPy's own reduction costs several microseconds
    each, a third of the time it takes to send a step's results."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _RESULTS_DISPATCH
    pickler.dump(message)
    return buffer.getvalue()


# ------------------------------------------------------------------------ the worker side


def serve(conn_fd: int, flags_fd: int) -> None:
    """The worker process: run plans until the parent goes away."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C in a terminal is the parent's
    _die_with_parent()
    conn = Connection(conn_fd)
    flags = _Flags(flags_fd)
    import engine  # noqa: F401  (warm: the first run should not pay for imports)

    catalogue()
    _tune_collector()
    conn.send(("ready", os.getpid()))
    while True:
        try:
            plan = pickle.loads(conn.recv_bytes())
        except (EOFError, OSError):
            return
        _cap_memory(plan)
        _run(conn, plan, flags)


class _Flags:
    """Two ints both processes see: [0] stop asked, [1] the step running."""

    def __init__(self, fd: int) -> None:
        self._map = mmap.mmap(fd, 8)
        self._ints = memoryview(self._map).cast("i")

    @property
    def cancel(self) -> int:
        return self._ints[0]

    @cancel.setter
    def cancel(self, value: int) -> None:
        self._ints[0] = value

    @property
    def current(self) -> int:
        return self._ints[1]

    @current.setter
    def current(self, value: int) -> None:
        self._ints[1] = value


def _run(conn: Connection, plan: Plan, flags: _Flags) -> None:
    """Run one plan; a thread sends the finished steps every ``FLUSH_S``, so they are
    back in the parent even while a later step never returns."""
    batch: list[StepResult] = []
    lock, sending = threading.Lock(), threading.Lock()
    finished = threading.Event()

    def flush() -> None:
        with lock:  # taken, not sent, under the lock: a slow reader never holds up a step
            ready = batch[:]
            batch.clear()
        if ready:
            with sending, _collector_paused():
                conn.send_bytes(dumps_results(("steps", ready)))

    def flusher() -> None:
        while not finished.wait(FLUSH_S):
            flush()

    def on_step(result: StepResult) -> None:
        with lock:
            batch.append(result)

    # steps that may run a Function's code (its forward, or its backward in an action):
    # that code may end this process, so what came before is sent first
    code = plan.trusted and any(s.type.kind is NodeKind.CUSTOM_FUNCTION for s in plan.steps)
    risky = (NodeKind.CUSTOM_FUNCTION, NodeKind.ACTION) if code else ()

    def progress(step: int, total: int) -> None:
        flags.current = step
        if step < total and plan.steps[step].type.kind in risky:
            flush()

    thread = threading.Thread(target=flusher, name="gradstudio-flush", daemon=True)
    thread.start()
    try:
        ev = plan.run(cancel=lambda: bool(flags.cancel), progress=progress, on_step=on_step)
    except BaseException:  # an evaluator bug: report it, keep serving
        ev = None
        failure = traceback.format_exc()
    finished.set()
    thread.join()
    flush()
    if ev is None:
        conn.send(("failed", failure))
    else:
        conn.send(("done", ev.cancelled, ev.seconds))


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """No collection while a batch of results is pickled or unpickled: tens of
    thousands of small objects, none of them garbage, would trigger full scans of
    everything alive.  The allocations still count toward the next collection."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _tune_collector() -> None:
    """The collector set as in the studio's own process (``ui/gc_policy.py``, which says
    why): a run allocates facts in bursts, and the imported modules live for good."""
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_THRESHOLD), middle, old)
    gc.freeze()


def _die_with_parent() -> None:
    """Linux: a worker stuck in user code must not outlive a studio that was killed."""
    with contextlib.suppress(Exception):
        import ctypes
        import signal

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _address_space() -> int | None:
    with (
        contextlib.suppress(OSError, ValueError),
        open("/proc/self/status", encoding="ascii") as status,
    ):
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return None


def _cap_memory(plan: Plan) -> None:
    """Cap the address space at what the budget allows (CPU runs; CUDA maps far more)."""
    try:
        import resource
    except ImportError:  # not on this platform
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    base = _address_space()
    soft = hard
    if plan.memory_budget is not None and plan.device == "cpu" and base is not None:
        soft = base + 2 * plan.memory_budget + SLACK_BYTES
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


# ------------------------------------------------------------------------ the parent side


class Worker:
    """One evaluation process, the socket to it and the flags shared with it."""

    def __init__(self) -> None:
        self.conn, child = Pipe()
        self._file = tempfile.TemporaryFile()  # noqa: SIM115 - closed by kill()
        self._file.truncate(8)
        self.flags = _Flags(self._file.fileno())
        fds = (child.fileno(), self._file.fileno())
        self.run = Contained(
            [
                sys.executable,
                "-c",
                "import sys; from gradstudio.evaluation.worker import serve; "
                "serve(int(sys.argv[1]), int(sys.argv[2]))",
                *map(str, fds),
            ],
            limits=Limits(),  # memory is capped per plan, in the worker (_cap_memory)
            capture=False,  # a Function's prints reach the user's terminal
            pass_fds=fds,
        )
        child.close()
        self.ready = False

    @property
    def alive(self) -> bool:
        return not self.run.poll()

    def wait_ready(self, cancel: CancelCheck | None = None) -> bool:
        """Wait until the process has started (False: ``cancel`` said stop first)."""
        while not self.ready:
            if self.conn.poll(POLL_S):
                self.ready = self.conn.recv()[0] == "ready"
            elif not self.alive:
                raise WorkerError(f"the evaluation process could not start ({self.exit_text()})")
            elif cancel is not None and cancel():
                return False
        return True

    def end_strays(self) -> None:
        """End whatever the last run's code started in the background (the worker stays).
        Only once the worker said it is ready: before that its supervisor may not yet
        handle the signal, and a fresh worker has run no code."""
        if self.ready:
            self.run.end_strays()

    def kill(self) -> None:
        """End the worker and every process its code started."""
        self.run.close()
        self.conn.close()
        self._file.close()

    def exit_text(self) -> str:
        self.run.wait(1)
        return "it stopped answering" if self.run.ended is None else self.run.ended.describe()


class _Pool:
    """Warm workers: one idle process is kept ready; dead ones are never handed out."""

    KEEP = 1

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: list[Worker] = []

    def acquire(self) -> Worker:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.alive:
                    return worker
                worker.kill()
        return Worker()

    def release(self, worker: Worker) -> None:
        worker.end_strays()
        with self._lock:
            if worker.alive and len(self._idle) < self.KEEP:
                self._idle.append(worker)
                return
        worker.kill()

    def prewarm(self) -> None:
        with self._lock:
            if self._idle:
                return
        self.release(Worker())

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.kill()


POOL = _Pool()


def prewarm() -> None:
    """Start a worker now, in the background, so the first run does not wait for it."""
    threading.Thread(target=POOL.prewarm, name="gradstudio-prewarm", daemon=True).start()


def run_plan(
    plan: Plan,
    cancel: CancelCheck | None = None,
    progress: Progress | None = None,
    timeout: float | None = None,
    received: Callable[[], None] | None = None,
    taken: Callable[[Evaluation], None] | None = None,
) -> Evaluation:
    """Evaluate ``plan`` in a worker process; whatever its steps do, this returns.

    ``cancel`` is polled every ``POLL_S``: a cancelled run gives back the steps that
    finished.  Past ``timeout`` seconds, the step running gets an error saying so.  A
    step that ends the process gets an error naming the exit.  ``received`` is called
    after each message is unpickled, the collector still paused (the studio freezes
    the results there: see ``ui/gc_policy.py``).  ``taken`` is called with the
    evaluation once each batch of steps is in it, while the worker runs the next ones
    (the studio describes them meanwhile: ``structure.warm``).
    """
    return _Run(plan, cancel, progress, timeout, received, taken).run()


class _Run:
    def __init__(
        self,
        plan: Plan,
        cancel: CancelCheck | None,
        progress: Progress | None,
        timeout: float | None,
        received: Callable[[], None] | None = None,
        taken: Callable[[Evaluation], None] | None = None,
    ) -> None:
        self.plan = plan
        self.received = received
        self.taken = taken
        self.cancel = cancel
        self.progress = progress
        self.timeout = timeout
        self.ev = Evaluation(plan)
        self.total = len(plan.steps)
        self.stop_asked: float | None = None
        self.timed_out = False
        self.finished = False

    def run(self) -> Evaluation:
        started = time.perf_counter()
        worker = POOL.acquire()
        try:
            if not worker.wait_ready(self.cancel):
                POOL.release(worker)  # still starting, and healthy: the next run takes it
                self.ev.cancelled = True
                return self.ev
            worker.flags.cancel = 0
            worker.flags.current = -1
            worker.conn.send_bytes(dumps_plan(self.plan))
            outcome = self._follow(worker, time.perf_counter())
        except (OSError, EOFError):
            outcome = "crashed"
        if outcome == "done":
            POOL.release(worker)
        else:
            running = worker.flags.current
            self._drain(worker)
            reason = worker.exit_text()
            worker.kill()
            POOL.prewarm()
            if not self.finished:
                self._stopped(outcome, reason, running)
        if not self.finished:
            self.ev.seconds = time.perf_counter() - started
        return self.ev

    def _drain(self, worker: Worker) -> None:
        """Take the results a stopped worker had sent (they stay readable after it died)."""
        with contextlib.suppress(EOFError, OSError):
            while not self.finished and worker.conn.poll(0):
                self._take(worker.conn.recv())

    def _should_stop(self, since: float) -> bool:
        now = time.perf_counter()
        if self.stop_asked is None:
            if self.timeout is not None and now - since > self.timeout:
                self.timed_out = True
                self.stop_asked = now
            elif self.cancel is not None and self.cancel():
                self.stop_asked = now
        return self.stop_asked is not None

    def _follow(self, worker: Worker, sent: float) -> str:
        """Read results until the run is done; 'done', 'killed' or 'crashed'."""
        shown = -1
        while True:
            if worker.conn.poll(POLL_S):
                try:
                    with _collector_paused():
                        message = worker.conn.recv()
                        if self.received is not None:
                            self.received()
                except (EOFError, OSError):
                    return "crashed"
                if self._take(message):
                    return "done"
                continue
            if self._should_stop(sent):
                worker.flags.cancel = 1
                assert self.stop_asked is not None
                if time.perf_counter() - self.stop_asked > GRACE_S:
                    worker.kill()
                    return "killed"
            if not worker.alive and not worker.conn.poll(0):
                return "crashed"
            step = worker.flags.current
            if self.progress is not None and step != shown and 0 <= step <= self.total:
                shown = step
                self.progress(step, self.total)

    def _take(self, message: tuple[Any, ...]) -> bool:
        kind = message[0]
        if kind == "steps":
            for result in message[1]:
                self.ev.steps[result.step] = result
            self.ev.catch_up()  # while the worker runs the next steps
            if self.taken is not None:
                self.taken(self.ev)
            return False
        if kind == "failed":
            raise RuntimeError(f"the evaluation failed:\n{message[1]}")
        _, cancelled, seconds = message
        self.ev.seconds = seconds
        self.finished = True
        if self.timed_out and cancelled:
            self._stopped("killed", "")
        else:
            self.ev.cancelled = cancelled
        if self.progress is not None and not cancelled:
            self.progress(self.total, self.total)
        return True

    def _stopped(self, outcome: str, reason: str, running: int = -1) -> None:
        """A run that did not end by itself: the step that was running says why."""
        index = next((r.step for r in self.ev.steps if r.status == "not run"), None)
        if 0 <= running < self.total and self.ev.steps[running].status == "not run":
            index = running
        if index is None:
            return
        label = self.plan.steps[index].label
        if outcome == "crashed":
            message = f"`{label}` ended the evaluation process ({reason})"
            self._set_error(index, "ProcessExit", message)
        elif self.timed_out:
            message = f"`{label}` did not finish within {self.timeout:g} s"
            self._set_error(index, "EvaluationTimeout", message)
        else:
            self.ev.cancelled = True

    def _set_error(self, index: int, exc_type: str, message: str) -> None:
        result = self.ev.steps[index]
        result.status = "error"
        result.error = StepError.explained(result.node_id, index, exc_type, message)


def shutdown() -> None:
    """Stop the idle workers (a running one stops with its run)."""
    POOL.close()


atexit.register(shutdown)
