"""The backward view zoomed far out: the overview draws the position once the timeline
rests, a big graph catching up a chunk per idle tick, the hidden items later."""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtGui import QPalette

from ui.backward.overview import OverviewState

CATCH_UP_BOXES = 1_500
"""Graphs with more boxes than this catch up at rest a chunk per tick (``_at_rest``)."""


class CatchUpMixin:
    """``BackwardView``'s overview catch-up (mixed into it)."""

    def _at_rest(self) -> None:
        """The timeline rests: the overview draws the position (see ``_overview_later``).

        A big graph catches up a chunk per idle tick (a jump walks thousands of
        grad_fns and batches thousands of shapes: a pause of a tenth of a second at
        once), the overview showing the position before until it is done."""
        if self._catching is not None:
            self._catch_again = True  # the position moved on: once more after this one
            return
        if self._deferred and len(self.boxes) > CATCH_UP_BOXES:
            self._catching = self._catch_up_steps()
            self._catch_timer.start()
            return
        if self._deferred:
            self._catch_up()
        self.overview.invalidate()

    @property
    def catching_up(self) -> bool:
        """A big graph's overview is being brought to the position (tests, benchmarks)."""
        return self._catching is not None

    def _catch_tick(self) -> None:
        if self._catching is not None and next(self._catching, True) is None:
            return
        self._catching = None
        self._catch_timer.stop()
        if self._catch_again:
            self._catch_again = False
            self._at_rest()

    def finish_catching_up(self) -> None:
        """Run the catch-up under way to its end now (the model is half moved meanwhile)."""
        job, self._catching = self._catching, None
        self._catch_timer.stop()
        self._catch_again = False
        if job is not None:
            for _ in job:
                pass

    def _catch_up_steps(self) -> Iterator[None]:
        """``_catch_up`` and the overview's batches, in chunks; the batches are shown
        once all are made."""
        playhead = self.state.playhead
        ev, snap, scrub = playhead.evaluation, playhead.snapshot(), self._scrub
        if ev is None or snap is None or scrub is None or scrub.evaluation is not ev:
            self.overview.invalidate()
            return
        key = (id(ev), snap.step, self.show_saved)
        if key != self._model_key:
            delta = yield from scrub.moving(snap)
            self._deferred_model |= bool(delta)
            yield
            self.model = scrub.model
            self._model_key = key
            yield
        self._catch_up_now()  # the model is at the position now: the message and the flows
        overview, state = self.overview, self.overview.state
        if state is None:
            overview.invalidate()
            return
        highlight = self.view.viewport().palette().color(QPalette.ColorRole.Highlight)
        batches = yield from overview.batching_state(state, highlight)
        if overview is self.overview and overview.state is state:
            overview.show_batches(batches)

    def _catch_up(self) -> None:
        """Far out, after a scrub: the model and the gradients at the position, for the
        overview (the hidden items wait for ``sync_items``)."""
        self.finish_catching_up()
        self._catch_up_now()

    def _catch_up_now(self) -> None:
        playhead = self.state.playhead
        ev, snap, scrub = playhead.evaluation, playhead.snapshot(), self._scrub
        if ev is None or snap is None or scrub is None or scrub.evaluation is not ev:
            return
        key = (id(ev), snap.step, self.show_saved)
        if key != self._model_key:
            self._deferred_model |= bool(scrub.move_to(snap))
            self.model = scrub.model
            self._model_key = key
        self._set_message(
            None
            if self.model.boxes
            else "No backward graph at this step: no tensor that requires grad "
            "has been used by an operation yet."
        )
        self._defer_flow()
        self._update_status()

    def _defer_flow(self) -> None:
        """What ``_apply_flow`` says, for the overview alone (the items wait)."""
        playhead = self.state.playhead
        self._read_flow_keys()
        at = playhead.trace_at()
        live = at is not None and at.live
        flows, strong = playhead.edge_gradients(), playhead.current_flows()
        key = (id(flows), strong, self.executed_keys, live, self.current_key)
        if not self._deferred_model and key == self._deferred_flow:
            return  # nothing flowed, ran or appeared between the positions
        self._deferred_model, self._deferred_flow = False, key
        done = set(self.executed_keys) if live else set()
        scrub = self._scrub
        self.overview.set_state(
            OverviewState(
                self.model.boxes,
                scrub.flows if scrub is not None else frozenset(),
                flows,
                strong,
                done,
                self.current_key,
            )
        )

    def sync_items(self) -> None:
        """Bring every item to the position (after scrubbing zoomed far out)."""
        if not self._deferred:
            return
        self._catch_up()
        self._deferred = False
        self._deferred_model, self._deferred_flow = True, None
        self.overview.set_state(None)
        self._applied_model = self._applied_flow = None
        self._apply_model(self.model)
        self._apply_flow()

    def _overview_later(self) -> None:
        """Redraw the overview once the timeline rests: while the learner drags the
        slider, batching the whole graph anew at every step would cost more than the
        step itself; the picture catches up a moment after the last one."""
        if not self.overview.isVisible():
            self.overview.invalidate()
        elif not self.overview.batching:  # (a batch still to make reads the items then)
            self._overview_timer.start()
