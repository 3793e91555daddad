"""The backward graph, drawn the way PyTorch holds it (torchviz's picture, but live).

``grad_fn`` nodes are what ``backward`` actually walks; the document's canvas
shows the forward program.  Learners meet the backward graph in torchviz
pictures, so this view speaks its colour language: blue for leaves that require
grad (tied to their ``AccumulateGrad``), grey for backward functions, orange for
saved tensors, green for the outputs; arrows point the way torchviz draws them
(from ``next_functions`` towards the function that uses them).  On top of that
it shows what torchviz cannot: the gradient that flowed along each edge, and
during a replay the ``grad_fn`` being executed.

The scene is built once per graph from the union of all steps' graphs
(``ui.backward.model``; a re-run of the same graph keeps it); moving along the
timeline only shows, hides and restyles items, so scrubbing a graph of hundreds
of nodes stays smooth.  Zoomed far out, one overview item draws the whole graph
(``ui.backward.overview.BackwardOverview``), and the orientation follows the panel's shape
until the user picks one.
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import QEvent, QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QAction, QPalette, QShowEvent
from PySide6.QtWidgets import (
    QGraphicsScene,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gradstudio.evaluation.facts import GradValue
from gradstudio.evaluation.results import Evaluation
from ui.backward.focus import Focus
from ui.backward.graph_layout import BackgroundLayout
from ui.backward.graph_view import BackwardGraphView
from ui.backward.heading import legend_html, status_html
from ui.backward.items import BoxItem, LinkItem, PillLayer
from ui.backward.model import (
    BoxId,
    GraphModel,
    Memo,
    prune_memo,
)
from ui.backward.overview import BackwardOverview
from ui.backward.scrub_model import ScrubModel
from ui.backward.view_building import LAYOUT_POLL_MS, BuildingMixin
from ui.backward.view_catch_up import CatchUpMixin
from ui.backward.view_fitting import FittingMixin
from ui.backward.view_focus import FocusMixin
from ui.backward.view_scrubbing import ScrubbingMixin
from ui.backward.view_selection import SelectionMixin
from ui.inspector.value_view import WrapLabel
from ui.state import StudioState

OVERVIEW_REST_MS = 80  # the overview is redrawn once the timeline rests this long


class BackwardView(
    BuildingMixin,
    ScrubbingMixin,
    CatchUpMixin,
    SelectionMixin,
    FittingMixin,
    FocusMixin,
    QWidget,
):
    """The live ``grad_fn`` graph at the timeline position, synced with the selection.

    The widget, its bar and its heading, and ``refresh``, which brings the scene to the
    state; what it does for that is in the mixins, one module per purpose (``view_*``)."""

    def __init__(self, state: StudioState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("backwardGraph")
        self.state = state
        self.vertical = True
        #: Choose the orientation from the view's shape until the user picks one.
        self.orientation_auto = True
        self._extents: dict[bool, tuple[float, float]] = {}
        self._reorient_timer = QTimer(self)
        self._reorient_timer.setSingleShot(True)
        self._reorient_timer.setInterval(150)  # after a dock is dragged, not during
        self._reorient_timer.timeout.connect(self._reorient)
        self.show_saved = True
        #: Said in the header when the graph is too small to name its boxes (the window
        #: tells how to see it big); and whether that is so at the current zoom.
        self.enlarge_hint = ""
        self._names_hidden = False
        self.scene = QGraphicsScene(self)
        # No BSP index: the scene is rebuilt per evaluation and Qt would build the
        # tree (a tenth of a second for a thousand-node graph) on the first paint;
        # a linear pass over the items in C++ costs far less than that per frame.
        self.scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
        self.view = BackwardGraphView(self.scene, self)
        self.boxes: dict[BoxId, BoxItem] = {}
        self.links: list[LinkItem] = []
        #: Items draw the graph (True) or, zoomed far out, the one overview item does.
        self.detail = True
        self.pill_layer: PillLayer
        self.overview: BackwardOverview
        self._message = QLabel(self.view.viewport())
        self._message.setObjectName("backwardMessage")
        self._message.setWordWrap(True)
        self._message.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._message.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self._message.hide()
        self.view.overlay = self._message
        #: A big graph's layout being made on a thread, and the items that wait for it.
        self._pending: tuple[BackgroundLayout, GraphModel] | None = None
        self._layout_timer = QTimer(self)
        self._layout_timer.setInterval(LAYOUT_POLL_MS)
        self._layout_timer.timeout.connect(self._collect_layout)
        self._focus_items: dict[BoxId, BoxItem] | None = None
        self._clear()  # the scene's two shared items: gradient labels, overview
        self.model = GraphModel()  # the graph at the current position
        self._union = GraphModel()  # the graph laid out: every step's, together
        self._built: tuple[Evaluation | None, bool, bool] | None = None
        self._model_key: tuple[int, int, bool] | None = None
        self.selected_key: int | None = None
        self.current_key: int | None = None
        self.executed_keys: tuple[int, ...] = ()
        self._memo: Memo = {}
        #: The model at the position, moved along with the playhead (``scrub_model``).
        self._scrub: ScrubModel | None = None
        self._overview_timer = QTimer(self)
        self._overview_timer.setSingleShot(True)
        self._overview_timer.setInterval(OVERVIEW_REST_MS)
        self._overview_timer.timeout.connect(self._at_rest)
        #: A big graph's catch-up once the timeline rests, a chunk per idle tick
        #: (``_catch_up_steps``), and whether the position moved on meanwhile.
        self._catching: Iterator[None] | None = None
        self._catch_again = False
        self._catch_timer = QTimer(self)
        self._catch_timer.setInterval(0)
        self._catch_timer.timeout.connect(self._catch_tick)
        #: The state moved on while this view was hidden (see ``refresh``).
        self._stale = False
        #: Zoomed far out, the overview draws the graph from the model and the flows,
        #: and the items (hidden then) are brought up to date only when next shown or
        #: asked (``sync_items``): a long scrub does not restyle thousands of them.
        self._deferred = False
        self._deferred_model = True  # the model moved since the overview last drew it
        self._deferred_flow: tuple | None = None

        bar = QHBoxLayout()
        bar.setContentsMargins(6, 4, 6, 2)
        bar.setSpacing(2)
        self.fit_button = self._tool(
            "Fit", "Fit the graph in view (or double-click the background)"
        )
        self.zoom_out_button = self._tool("−", "Zoom out (mouse wheel)")
        self.zoom_in_button = self._tool("+", "Zoom in (mouse wheel)")
        self.orientation_button = self._tool(
            "⇅",
            "Top-to-bottom like torchviz, or left-to-right "
            "(chosen to fit the panel until you pick one)",
        )
        self.orientation_button.setCheckable(True)
        self.orientation_button.setChecked(True)
        self.saved_button = self._tool("saved", "Show the tensors each grad_fn saved (orange)")
        self.saved_button.setCheckable(True)
        self.saved_button.setChecked(True)
        #: Every backward's graph (True), or the last one's alone (``ui.backward.focus``).
        self.show_all = False
        self._focus = Focus()
        self.show_all_action = QAction("all backwards", self)
        self.show_all_action.setObjectName("backwardShowAll")
        self.show_all_action.setCheckable(True)
        self.show_all_action.setToolTip(
            "Show the graphs of every backward, not only the last one at this position "
            "(the heading counts the earlier graphs it hides)"
        )
        self.all_button = QToolButton(self)
        self.all_button.setAutoRaise(True)
        self.all_button.setDefaultAction(self.show_all_action)
        for b in (
            self.fit_button,
            self.zoom_out_button,
            self.zoom_in_button,
            self.orientation_button,
            self.saved_button,
            self.all_button,
        ):
            bar.addWidget(b)
        bar.addStretch(1)
        # its own row, the panel's full width: beside the buttons a narrow dock cut it
        status_row = QHBoxLayout()
        status_row.setContentsMargins(8, 0, 6, 2)
        self.status = WrapLabel(parent=self)
        self.status.setObjectName("backwardStatus")
        self.status.setTextFormat(Qt.TextFormat.RichText)
        status_row.addWidget(self.status, 1)
        legend = QHBoxLayout()
        legend.setContentsMargins(8, 0, 6, 2)
        self.legend = WrapLabel(legend_html(), self)
        self.legend.setObjectName("backwardLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        legend.addWidget(self.legend, 1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addLayout(bar)
        lay.addLayout(status_row)
        lay.addLayout(legend)
        lay.addWidget(self.view, 1)

        self.fit_button.clicked.connect(self.view.fit)
        self.zoom_in_button.clicked.connect(lambda: self.view.zoom(1.25))
        self.zoom_out_button.clicked.connect(lambda: self.view.zoom(0.8))
        self.orientation_button.toggled.connect(self.set_vertical)
        self.saved_button.toggled.connect(self.set_show_saved)
        self.show_all_action.toggled.connect(self.set_show_all)
        self.view.boxClicked.connect(self._box_clicked)
        self.view.scaleChanged.connect(self._scale_changed)
        self.view.box_near = self.box_near
        self.view.backgroundClicked.connect(self._background_clicked)
        state.evaluationChanged.connect(self.refresh)
        state.positionChanged.connect(self.refresh)
        state.documentReplaced.connect(self.refresh)
        state.selectionChanged.connect(self._selection_changed)
        state.gradFnSelected.connect(self._grad_fn_selected)
        self.refresh()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt API
        super().showEvent(event)
        if self._stale:
            self.refresh()
        if self.view.auto_fit:
            self.view.fit()  # moved to its tab and back: the view has a new size

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt API
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.boxes:
            self._built = None  # edge ink and messages follow the theme
            self.refresh()

    def _tool(self, text: str, tip: str) -> QToolButton:
        b = QToolButton(self)
        b.setText(text)
        b.setToolTip(tip)
        b.setAutoRaise(True)
        return b

    # -- options -----------------------------------------------------------

    def set_show_saved(self, show: bool) -> None:
        self.show_saved = show
        with QSignalBlocker(self.saved_button):
            self.saved_button.setChecked(show)
        self.refresh()

    # -- queries (for tests and the other panels) -----------------------------
    def visible_boxes(self, kind: str | None = None) -> list[BoxItem]:
        self.sync_items()
        return [b for b in self.boxes.values() if b.drawn and (kind is None or b.box.kind == kind)]

    def fn_item(self, key: int) -> BoxItem | None:
        self.sync_items()
        item = self.boxes.get(("fn", key))
        return item if item is not None and item.drawn else None

    def leaf_item(self, key: int) -> BoxItem | None:
        self.sync_items()
        item = self.boxes.get(("leaf", key))
        return item if item is not None and item.drawn else None

    def link_flow(self, flow: tuple) -> GradValue | None:
        """The gradient shown on the link named ``flow`` (see ``Link.flow``)."""
        self.sync_items()
        return next((li.flow for li in self.links if li.link.flow == flow and li.drawn), None)

    # -- state -> view -------------------------------------------------------
    def refresh(self) -> None:
        """Bring the scene to the state's evaluation, position and replay.

        Put off while the window shows but this view does not (a closed dock, a tab
        behind another): scrubbing then costs nothing here, and ``showEvent`` catches up.
        """
        if not self.isVisible() and self.window() is not self and self.window().isVisible():
            self._stale = True
            return
        self._stale = False
        playhead = self.state.playhead
        ev, snap, index = playhead.evaluation, playhead.snapshot(), playhead.index
        if ev is None or snap is None or index is None:
            self._show_message("Run the graph to see the grad_fn graph autograd records.")
            return
        built = (ev, self.vertical, self.show_saved)
        carried = False
        if self._built is None or self._built[0] is not ev or self._built[1:] != built[1:]:
            self.finish_catching_up()  # (its model moves no further)
            prune_memo(self._memo)
            carried = self._carry_over(ev, index, built)
            if not carried:
                self._new_evaluation(ev, index, built)
        if self._applied_model is not None and (
            self._deferred or (not self.detail and not carried)
        ):
            # Far out the overview alone draws the graph, and it is redrawn once the
            # timeline rests: the model and the gradients catch up then (``_at_rest``),
            # so dragging the slider costs this view nothing per step.  (A re-run that
            # changed values alone sets its gradients at once: the items are up to date,
            # and the overview draws from them as after any new evaluation.)
            self._deferred = True
            self._overview_timer.start()
            self._read_flow_keys()
            self._apply_selection()
            self._apply_focus()
            self._update_status()
            return
        key = (id(ev), snap.step, self.show_saved)
        if key != self._model_key:
            self.finish_catching_up()
            scrub = self._scrub
            if scrub is None or scrub.evaluation is not ev or scrub.show_saved != self.show_saved:
                scrub = self._scrub = ScrubModel(ev, index, self.show_saved, self._memo)
            delta = scrub.move_to(snap)
            self.model = scrub.model
            self._model_key = key
            if self._applied_model is None:  # every item anew: nothing waits any more
                self._deferred = False
                self.overview.set_state(None)
                self._applied_flow = None
                self._apply_model(self.model)
            else:
                self._apply_delta(self.model, delta)
        if self._pending is not None:
            self._set_message(
                f"Laying out the backward graph ({len(self._pending[1].boxes):,} boxes)…"
            )
        elif not self.model.boxes:
            self._set_message(
                "No backward graph at this step: no tensor that requires grad "
                "has been used by an operation yet."
            )
        else:
            self._set_message(None)
        self._apply_flow()
        self._apply_selection()
        self._apply_focus()
        self._update_status()

    def _update_status(self) -> None:
        muted = self.palette().color(QPalette.ColorRole.PlaceholderText).name()
        hidden = self._names_hidden and bool(self.boxes)
        self.status.setText(
            status_html(
                self._shown_fn_count(),
                self.state.playhead,
                hidden,
                self.enlarge_hint,
                muted,
                self._focus.count,
            )
        )
