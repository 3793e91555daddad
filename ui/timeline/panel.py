"""The timeline: scrub through the execution steps, and replay a backward step.

A learner understands autograd by watching it happen: ``.grad`` appearing after
``backward``, doubling after a second one, a ``grad_fn`` changing after an
in-place op.  The timeline moves the studio's one playhead
(``gradstudio.evaluation.playhead``) and every panel redraws what was true
*then*.  Inside a backward step, ``replay`` counts the ``grad_fn`` executions
already run, in the order PyTorch's engine ran them.  The labels here are the
playhead's caption: what "at this position" means is decided there, not here.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QColor, QIcon, QKeyEvent, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSlider,
    QStyle,
    QStyleOptionSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gradstudio.evaluation.facts import waiting_text
from gradstudio.text import html_text
from ui.instruments.memory import MemoryStrip
from ui.state import StudioState

PLAY_INTERVAL_MS = 700
BACKWARD = "#a23cc8"  # the backward view's "gradient that flowed"
ERROR = "#e5484d"
WAITING = "#4c8dff"  # a step waiting for an input: a hint, in the accent blue


# ------------------------------------------------------------------------- the widget


class StepSlider(QSlider):
    """A slider that marks special steps under its groove: backward steps, errors.

    A learner looking for "where did the gradient appear" finds the backward steps
    at a glance instead of scrubbing through every forward op.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.markers: dict[int, QColor] = {}

    def set_markers(self, markers: dict[int, QColor]) -> None:
        if markers != self.markers:
            self.markers = markers
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt API
        super().paintEvent(event)
        if not self.markers:
            return
        opt = QStyleOptionSlider()
        self.initStyleOption(opt)
        style = self.style()
        groove = style.subControlRect(
            QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderGroove, self
        )
        handle = style.subControlRect(
            QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderHandle, self
        )
        span = groove.width() - handle.width()
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setPen(Qt.PenStyle.NoPen)
        for value, colour in self.markers.items():
            x = (
                groove.left()
                + handle.width() / 2
                + QStyle.sliderPositionFromValue(self.minimum(), self.maximum(), value, span)
            )
            p.setBrush(colour)
            p.drawEllipse(QPointF(x, self.height() - 4.0), 3.2, 3.2)
        p.end()


def tinted_icon(widget: QWidget, which: QStyle.StandardPixmap) -> QIcon:
    """A style's standard icon in the palette's button-text colour.  Fusion's media
    icons are black: on the dark theme the enabled step buttons all but vanished, darker
    than the disabled ones beside them."""
    source = widget.style().standardIcon(which)
    color = widget.palette().color(QPalette.ColorRole.ButtonText)
    result = QIcon()
    for size in (16, 20, 24, 32):
        pix = source.pixmap(size, size)
        if pix.isNull():
            continue
        painter = QPainter(pix)
        painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
        painter.fillRect(pix.rect(), color)
        painter.end()
        result.addPixmap(pix)
    return result


def _button(icon: QStyle.StandardPixmap, tip: str, parent: QWidget) -> QToolButton:
    b = QToolButton(parent)
    b.setProperty("standardIcon", icon)
    b.setIcon(tinted_icon(parent, icon))
    b.setToolTip(tip)
    b.setAutoRaise(True)
    b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    return b


class Timeline(QWidget):
    """A step slider with buttons, and below it a replay slider for backward steps.

    Keys: ←/→ previous/next step, Home/End first/last step, ,/. (or Shift+←/→)
    previous/next grad_fn execution inside a backward step, Space plays the replay.
    """

    def __init__(self, state: StudioState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timeline")
        self.state = state
        self._marked: tuple[object, int, dict[int, QColor]] | None = None
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        SP = QStyle.StandardPixmap

        self.first_button = _button(SP.SP_MediaSkipBackward, "First step (Home)", self)
        self.prev_button = _button(SP.SP_MediaSeekBackward, "Previous step (←)", self)
        self.next_button = _button(SP.SP_MediaSeekForward, "Next step (→)", self)
        self.last_button = _button(SP.SP_MediaSkipForward, "Last step: the final state (End)", self)
        self.slider = StepSlider(self)
        self.slider.setObjectName("timelineSlider")
        self.slider.setMinimumHeight(30)
        self.slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.slider.setPageStep(1)
        self.slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.step_label = QLabel(self)
        self.step_label.setObjectName("timelineStep")
        self.step_label.setMinimumWidth(90)
        self.caption = QLabel(self)
        self.caption.setObjectName("timelineCaption")
        self.caption.setTextFormat(Qt.TextFormat.RichText)

        self.replay_row = QWidget(self)
        self.replay_prev = _button(SP.SP_ArrowLeft, "Previous grad_fn execution (,)", self)
        self.play_button = _button(
            SP.SP_MediaPlay, "Replay backward one grad_fn at a time (Space)", self
        )
        self.play_button.setCheckable(True)
        self.replay_next = _button(SP.SP_ArrowRight, "Next grad_fn execution (.)", self)
        self.replay_slider = QSlider(Qt.Orientation.Horizontal, self)
        self.replay_slider.setObjectName("replaySlider")
        self.replay_slider.setTickPosition(QSlider.TickPosition.TicksBelow)
        self.replay_slider.setPageStep(1)
        self.replay_slider.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.replay_label = QLabel(self)
        self.replay_label.setObjectName("replayCaption")
        self.replay_label.setTextFormat(Qt.TextFormat.RichText)

        top = QHBoxLayout()
        top.setSpacing(2)
        for w in (self.first_button, self.prev_button, self.next_button, self.last_button):
            top.addWidget(w)
        top.addSpacing(6)
        top.addWidget(self.slider, 1)
        top.addSpacing(6)
        top.addWidget(self.step_label)
        replay = QHBoxLayout(self.replay_row)
        replay.setContentsMargins(0, 0, 0, 0)
        replay.setSpacing(2)
        for w in (self.replay_prev, self.play_button, self.replay_next):
            replay.addWidget(w)
        replay.addSpacing(6)
        replay.addWidget(self.replay_slider, 1)
        replay.addSpacing(6)
        replay.addWidget(self.replay_label, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.setSpacing(2)
        lay.addLayout(top)
        self.memory_strip = MemoryStrip(state, self)
        lay.addWidget(self.memory_strip)
        lay.addWidget(self.caption)
        lay.addWidget(self.replay_row)

        self._timer = QTimer(self)
        self.play_interval_ms = PLAY_INTERVAL_MS
        self._timer.timeout.connect(self._play_tick)

        self.first_button.clicked.connect(self.first_step)
        self.prev_button.clicked.connect(self.previous_step)
        self.next_button.clicked.connect(self.next_step)
        self.last_button.clicked.connect(self.last_step)
        self.replay_prev.clicked.connect(self.previous_execution)
        self.replay_next.clicked.connect(self.next_execution)
        self.play_button.toggled.connect(self.set_playing)
        self.slider.valueChanged.connect(self.go_to_step)
        self.replay_slider.valueChanged.connect(self.go_to_replay)
        state.evaluationChanged.connect(self._sync)
        state.positionChanged.connect(self._sync)
        state.documentReplaced.connect(self._sync)
        self._sync()

    # -- the model ---------------------------------------------------------
    def step_count(self) -> int:
        return self.state.playhead.step_count

    def go_to_step(self, step: int) -> None:
        """Show the state after ``step``; the last step means "the end" (follows edits)."""
        self.state.playhead.go_to_step(step)

    def go_to_replay(self, replay: int) -> None:
        """Inside the current backward step: show it after ``replay`` grad_fn executions."""
        self.state.playhead.go_to_replay(replay)

    def first_step(self) -> None:
        self.go_to_step(0)

    def last_step(self) -> None:
        self.go_to_step(self.step_count() - 1)

    def next_step(self) -> None:
        self.go_to_step(self.state.playhead.effective_step + 1)

    def previous_step(self) -> None:
        self.go_to_step(self.state.playhead.effective_step - 1)

    def current_replay(self) -> int:
        """Executions shown in the current backward step (all of them when not replaying)."""
        return self.state.playhead.replayed

    def next_execution(self) -> bool:
        """One more grad_fn execution; from a fully shown step, restart its replay at 0.

        Returns False when there is nothing more to replay (the play timer stops).
        """
        n = self.state.playhead.replay_length
        if n == 0:
            return False
        r = self.current_replay()
        if self.state.playhead.replay is None:
            self.go_to_replay(0)
            return True
        if r >= n:
            return False
        self.go_to_replay(r + 1)
        return True

    def previous_execution(self) -> None:
        if self.state.playhead.replay_length == 0:
            return
        self.go_to_replay(max(self.current_replay() - 1, 0))

    def set_playing(self, playing: bool) -> None:
        """Animate the replay of the current backward step, one grad_fn per tick."""
        if playing and self.state.playhead.replay_length:
            if (
                self.state.playhead.replay is None
                or self.current_replay() >= self.state.playhead.replay_length
            ):
                self.go_to_replay(0)
            self._timer.start(self.play_interval_ms)
        else:
            self._timer.stop()
        if self.play_button.isChecked() != self._timer.isActive():
            with QSignalBlocker(self.play_button):
                self.play_button.setChecked(self._timer.isActive())
        self.play_button.setProperty(
            "standardIcon",
            QStyle.StandardPixmap.SP_MediaPause
            if self._timer.isActive()
            else QStyle.StandardPixmap.SP_MediaPlay,
        )
        self._tint_icons()

    def _tint_icons(self) -> None:
        for button in self.findChildren(QToolButton):
            which = button.property("standardIcon")
            if which is not None:
                button.setIcon(tinted_icon(self, QStyle.StandardPixmap(which)))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange):
            self._tint_icons()

    @property
    def playing(self) -> bool:
        return self._timer.isActive()

    def _play_tick(self) -> None:
        if not self.next_execution() or self.current_replay() >= self.state.playhead.replay_length:
            self.set_playing(False)

    # -- keyboard ----------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt API
        key, shift = event.key(), bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        K = Qt.Key
        actions = {
            K.Key_Home: self.first_step,
            K.Key_End: self.last_step,
            K.Key_Period: self.next_execution,
            K.Key_Comma: self.previous_execution,
            K.Key_Space: lambda: self.set_playing(not self.playing),
            K.Key_Right: self.next_execution if shift else self.next_step,
            K.Key_Left: self.previous_execution if shift else self.previous_step,
        }
        action = actions.get(K(key))
        if action is None:
            super().keyPressEvent(event)
            return
        action()
        event.accept()

    # -- view --------------------------------------------------------------
    def _sync(self) -> None:
        n = self.step_count()
        step = self.state.playhead.effective_step
        enabled = n > 0
        for w in (
            self.slider,
            self.first_button,
            self.prev_button,
            self.next_button,
            self.last_button,
        ):
            w.setEnabled(enabled)
        with QSignalBlocker(self.slider):
            self.slider.setRange(0, max(n - 1, 0))
            self.slider.setValue(max(step, 0))
        self.slider.setTickInterval(1 if n <= 60 else max(n // 30, 1))
        self.slider.set_markers(self._markers())
        self.prev_button.setEnabled(enabled and step > 0)
        self.first_button.setEnabled(enabled and step > 0)
        self.next_button.setEnabled(enabled and step < n - 1)
        self.last_button.setEnabled(enabled and step < n - 1)
        caption = self.state.playhead.caption()
        self.step_label.setText(caption.step)
        if not enabled:
            self.caption.setText(self._muted("Run the graph to scrub through its steps."))
        else:
            self.caption.setText(self._step_html(step))
        self._sync_replay()

    def _markers(self) -> dict[int, QColor]:
        """Backward steps in the gradient colour, failed steps in red, waiting ones in blue
        (kept per evaluation: a scrub moves the position, not the marks)."""
        ev = self.state.evaluation
        if ev is None:
            return {}
        marked = self._marked
        if marked is not None and marked[0] is ev and marked[1] == len(ev.steps):
            return marked[2]
        marks: dict[int, QColor] = {}
        for result in ev.steps:
            if result.status == "error":
                marks[result.step] = QColor(ERROR)
            elif result.status == "waiting":
                marks[result.step] = QColor(WAITING)
            elif result.trace is not None:
                marks[result.step] = QColor(BACKWARD)
        self._marked = (ev, len(ev.steps), marks)
        return marks

    def _step_html(self, step: int) -> str:
        ev = self.state.evaluation
        assert ev is not None
        caption = self.state.playhead.caption()
        label, type_id = caption.node, caption.node_type
        result = ev.steps[step]
        status = ""
        if result.status == "error" and result.error is not None:
            status = f" <span style='color:{ERROR}'>✖ {result.error.exc_type}</span>"
        elif result.status == "not run":
            status = " " + self._muted("(not run: an earlier step failed)")
        elif result.status == "waiting":
            status = " " + self._muted(html_text(waiting_text(result.missing, result.waits_for)))
        elif result.warnings:
            status = f" <span style='color:#d9822b'>⚠ {len(result.warnings)} warning(s)</span>"
        return f"<b>{html_text(label)}</b> &nbsp;{self._muted(html_text(type_id))}{status}"

    def _sync_replay(self) -> None:
        n = self.state.playhead.replay_length
        self.replay_row.setVisible(n > 0)
        if n == 0:
            if self.playing:
                self.set_playing(False)
            return
        r = self.current_replay()
        with QSignalBlocker(self.replay_slider):
            self.replay_slider.setRange(0, n)
            self.replay_slider.setValue(r)
        self.replay_slider.setTickInterval(1 if n <= 60 else max(n // 30, 1))
        self.replay_prev.setEnabled(r > 0)
        self.replay_next.setEnabled(self.state.playhead.replay is None or r < n)
        playhead = self.state.playhead
        caption = html_text(playhead.caption().replay)
        current = playhead.current
        if playhead.replay is None:
            text = caption + " " + self._muted("— press ▶ or . to replay them one by one")
        elif current is not None:
            name = html_text(current.name)
            text = caption.replace(name, f"<b>{name}</b>", 1)
        else:
            head, _, rest = caption.partition(": ")
            text = f"{head}: " + self._muted(rest)
        self.replay_label.setText(text)

    def _muted(self, text: str) -> str:
        colour = self.palette().color(QPalette.ColorRole.PlaceholderText).name()
        return f"<span style='color:{colour}'>{text}</span>"
