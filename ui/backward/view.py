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
(``ui.backward.items.BackwardOverview``), and the orientation follows the panel's shape
until the user picks one.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

from PySide6.QtCore import QEvent, QPointF, QRectF, QSignalBlocker, Qt, QTimer
from PySide6.QtGui import QAction, QPalette, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QGraphicsScene,
    QHBoxLayout,
    QLabel,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gradstudio.evaluation.facts import GradValue
from gradstudio.evaluation.grad_fn_index import GradFnIndex
from gradstudio.evaluation.results import Evaluation
from gradstudio.evaluation.structure import same_structure
from ui.backward.focus import Focus, focus_at
from ui.backward.graph_layout import BackgroundLayout, Layout, fit_orientation, lay_out
from ui.backward.graph_view import BackwardGraphView
from ui.backward.heading import legend_html, status_html
from ui.backward.items import (
    OVERVIEW_LOD,
    TEXT_LOD,
    BackwardOverview,
    BoxItem,
    Fonts,
    LinkItem,
    OverviewState,
    PillLayer,
)
from ui.backward.labels import place_labels
from ui.backward.model import (
    LAYER_GAP,
    Box,
    BoxId,
    GraphModel,
    Link,
    Memo,
    parse_key,
    prune_memo,
    union_model,
)
from ui.backward.scrub_model import ModelDelta, ScrubModel
from ui.inspector.value_view import WrapLabel
from ui.state import StudioState

SCENE_MARGIN = 14.0  # around everything drawn: boxes, halos, edges, gradient labels
TYPICAL_LABEL = "(4, 3) -0.183…0.201"  # a gradient label's usual width
OVERVIEW_REST_MS = 80  # the overview is redrawn once the timeline rests this long
BACKGROUND_BOXES = 1_500
"""Graphs with more boxes than this are laid out on a thread (see ``BackgroundLayout``)."""
LAYOUT_POLL_MS = 15  # how often the view looks whether a background layout is done
BUILD_CHUNK = 200  # items a big graph's build makes per tick (about 30 ms of work)
CATCH_UP_BOXES = 1_500
"""Graphs with more boxes than this catch up at rest a chunk per tick (``_at_rest``)."""


class BackwardView(QWidget):
    """The live ``grad_fn`` graph at the timeline position, synced with the selection."""

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
            "Show the graphs of every backward, not only the last one at this position"
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
    def set_vertical(self, vertical: bool) -> None:
        """Top-to-bottom (torchviz) or left-to-right, as the user chose: it sticks."""
        self.orientation_auto = False
        self._orient(vertical)

    def _orient(self, vertical: bool) -> None:
        self._show_orientation(vertical)
        self.refresh()
        self.view.fit()

    def _show_orientation(self, vertical: bool) -> None:
        self.vertical = vertical
        with QSignalBlocker(self.orientation_button):
            self.orientation_button.setChecked(vertical)
        self.orientation_button.setText("⇅" if vertical else "⇄")

    def best_orientation(self) -> bool:
        """The orientation that shows the graph larger in this view (``fit_orientation``)."""
        port = self.view.viewport()
        return fit_orientation(self._extents, port.width(), port.height(), self.vertical)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        if self.orientation_auto and self._extents:
            self._reorient_timer.start()

    def _reorient(self) -> None:
        if self.orientation_auto and self.best_orientation() != self.vertical:
            self._orient(not self.vertical)

    def set_show_saved(self, show: bool) -> None:
        self.show_saved = show
        with QSignalBlocker(self.saved_button):
            self.saved_button.setChecked(show)
        self.refresh()

    def set_show_all(self, show: bool) -> None:
        """Every backward's graph, or the last one's alone (a view setting, not undone)."""
        self.show_all = show
        with QSignalBlocker(self.show_all_action):
            self.show_all_action.setChecked(show)
        self._apply_focus()
        self._update_status()

    @property
    def hidden_graphs(self) -> int:
        """How many earlier backward graphs are put aside now."""
        return self._focus.count

    def _apply_focus(self) -> None:
        """Put aside the boxes (and their links) that only earlier backwards ran, and
        fit the rest if the view fits itself (``ui.backward.focus``)."""
        focus = Focus() if self.show_all else focus_at(self.state.playhead)
        if focus == self._focus and self._focus_items is self.boxes:
            return
        self._focus, self._focus_items = focus, self.boxes
        hidden = focus.hidden
        muted: set[BoxId] = set()
        for box_id, item in self.boxes.items():
            on = item.box.key is not None and item.box.key in hidden
            if on:
                muted.add(box_id)
            if on != item.muted:
                item.set_muted(on)
        for link in self.links:
            on = link.link.tail in muted or link.link.head in muted
            if on != link.muted:
                link.set_muted(on)
        self._update_pills()
        self.overview.invalidate()
        self.view.setSceneRect(self.focus_rect())  # a null rect: the whole scene's
        if self.view.auto_fit:
            self.view.fit()

    def focus_rect(self) -> QRectF:
        """Around the boxes not put aside, when some are (else null: the whole scene).
        The graphics view scrolls and fits within it (``QGraphicsView.setSceneRect``)."""
        if not self._focus.hidden:
            return QRectF()
        rect = QRectF()
        for item in self.boxes.values():
            if item.shown and not item.muted:
                rect = rect.united(
                    QRectF(item.cx - item.w / 2, item.cy - item.h / 2, item.w, item.h)
                )
        if rect.isEmpty():
            return QRectF()
        pad = SCENE_MARGIN + 24  # room for the gradient labels beside the edges
        return rect.adjusted(-pad, -pad, pad, pad)

    def _shown_fn_count(self) -> int:
        """The grad_fns at the position, less those put aside (``_apply_focus``)."""
        hidden = self._focus.hidden
        if not hidden:
            return self.model.fn_count
        return sum(1 for b in self.model.boxes.values() if b.kind == "fn" and b.key not in hidden)

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

    # -- building ----------------------------------------------------------
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

    def _new_evaluation(self, ev: Evaluation, index: GradFnIndex, built: tuple) -> None:
        """Another evaluation: the union of its graphs, laid out anew unless it is the
        graph shown (undo, redo, an edit that changed the structure back)."""
        union = union_model(ev, index, self.show_saved, self._memo)
        same_options = self._built is not None and self._built[1:] == built[1:]
        if not (
            same_options and union.boxes == self._union.boxes and union.links == self._union.links
        ):
            self._rebuild(union)
        # else: the same graph again: its items, layout and zoom stay
        self._union = union
        self._built = (ev, self.vertical, self.show_saved)  # the orientation may be new
        self._model_key = None
        # another evaluation: every box and gradient is new, set them all at once
        self._applied_model = self._applied_flow = None

    def _carry_over(self, ev: Evaluation, index: GradFnIndex, built: tuple) -> bool:
        """A re-run of the same graph (values alone differ, ``same_structure``): the union
        model, the items and the model at the position all stay, the scrub model stands
        for the new run, and only what depends on values (the gradients) is set anew.
        False: anything else (another graph, other options, a layout under way)."""
        before, scrub = self._built, self._scrub
        if (
            before is None
            or before[1:] != built[1:]
            or self._pending is not None
            or scrub is None
            or scrub.evaluation is not before[0]
            or scrub.show_saved != self.show_saved
            or not same_structure(before[0], ev)
        ):
            return False
        scrub.rebase(ev, index)
        self._built = built
        key = self._model_key
        # the model at the position is the same one (its boxes the same objects)
        self._model_key = (id(ev), *key[1:]) if key is not None and key[1] == scrub.step else None
        return True

    def _set_message(self, text: str | None) -> None:
        """A word-wrapped note over the middle of the view (a widget, so any zoom and any
        panel width show it whole), or none."""
        self._message.setVisible(text is not None)
        if text is not None:
            self._message.setText(text)
            palette = self._message.palette()
            palette.setColor(
                QPalette.ColorRole.WindowText,
                self.palette().color(QPalette.ColorRole.PlaceholderText),
            )
            self._message.setPalette(palette)

    def _clear(self) -> None:
        """An empty scene with its two shared items (gradient labels, overview)."""
        self.scene.clear()
        self._pending = None  # a layout still on its thread is dropped when it ends
        self._building: Iterator[None] | None = None  # its items, being made
        self._layout_timer.setInterval(LAYOUT_POLL_MS)
        self._layout_timer.stop()
        self.boxes, self.links = {}, []
        self._extents = {}
        self._graph_rect = QRectF()
        self._pill_key: tuple = ()
        self._pill_spots: list[QPointF] = []
        self.pill_layer = PillLayer(Fonts(self.font()))
        self.pill_layer.setVisible(self.detail)
        self.scene.addItem(self.pill_layer)
        self.overview = BackwardOverview()
        self.overview.setVisible(not self.detail)
        self.scene.addItem(self.overview)
        # What the items were last set to, so that a scrub touches only the items whose
        # state changes (None: set every item): the model, the flows, the selection.
        self._applied_model: GraphModel | None = None
        self._applied_flow: tuple[dict, frozenset, set, int | None] | None = None
        self._applied_selection: tuple[int | None] | None = None
        self._flow_items: dict[tuple, list[LinkItem]] = {}
        self._focus_items = None  # the items focused last (``_apply_focus``)
        self.view.setSceneRect(QRectF())  # the whole scene's, until focused again
        self._key_items: dict[int, list[BoxItem]] = {}
        self._deferred = False
        self._deferred_model = True  # the model moved since the overview last drew it
        self._deferred_flow: tuple | None = None

    def _show_message(self, text: str) -> None:
        self._clear()
        self._built, self._model_key = None, None
        self.model = GraphModel()
        self.scene.setSceneRect(QRectF(-200, -60, 400, 120))
        self._set_message(text)
        self.view.resetTransform()
        self._scale_changed(1.0)
        self.view.centerOn(0, 0)
        self.status.setText("")

    def _rebuild(self, model: GraphModel) -> None:
        """New items for ``model``, laid out here or, for a big graph, on a thread (the
        view says so meanwhile, and ``_collect_layout`` places them once it is done)."""
        self._clear()
        fonts = self.pill_layer.fonts
        sizes = {box_id: BoxItem.size_of(box, fonts) for box_id, box in model.boxes.items()}
        # left to right, gradient labels sit between the layers: leave room for one
        across = LAYER_GAP + fonts.width(fonts.m_pill, TYPICAL_LABEL) + 16
        port = self.view.viewport()
        # only when the orientation follows the view's shape are the extents needed
        viewport = (port.width(), port.height()) if self.orientation_auto else None
        job = functools.partial(lay_out, model, sizes, across, viewport, self.vertical)
        if len(sizes) <= BACKGROUND_BOXES:
            self._build(model, job())
            return
        # started from the event loop: what this evaluation still sets up in the other
        # panels does not share the interpreter with it
        self._pending = (BackgroundLayout(job), model)
        self.scene.setSceneRect(QRectF(-200, -60, 400, 120))
        self._layout_timer.start()

    @property
    def laying_out(self) -> bool:
        """A big graph's layout is being made on its thread (the view shows a note)."""
        return self._pending is not None

    def finish_layout(self) -> None:
        """Wait for a background layout and show its graph now (tests, benchmarks)."""
        if self._pending is not None:
            self._collect_layout(wait=True)

    def _collect_layout(self, wait: bool = False) -> None:
        """Once the thread's layout is done, make the items a chunk per tick (the window
        paints and answers between chunks), then show them all at once."""
        pending = self._pending
        if pending is None:
            self._layout_timer.stop()
            return
        job, model = pending
        if self._building is None:
            if not wait:
                job.start()
                if not job.done():
                    return
            self._building = self._build_steps(model, job.take())
            self._layout_timer.setInterval(0)  # a chunk whenever the event loop is idle
        for _ in self._building:
            if not wait:
                return
        self._layout_timer.stop()
        self._layout_timer.setInterval(LAYOUT_POLL_MS)
        self._pending = self._building = None
        if self._built is not None:  # the orientation may have been chosen meanwhile
            self._built = (self._built[0], self.vertical, self._built[2])
        # every item is new: refresh sets them all to the position, then the flows and
        # the selection
        self._applied_model = self._applied_flow = self._applied_selection = None
        self._model_key = None
        self.refresh()

    def _build(self, model: GraphModel, layout: Layout) -> None:
        """The items of ``model``, placed as ``layout`` says, in the scene."""
        for _ in self._build_steps(model, layout):
            pass

    def _build_steps(self, model: GraphModel, layout: Layout) -> Iterator[None]:
        """``_build`` in steps: it yields after each chunk of items made; the scene gets
        them all in the last step, so no half graph is ever drawn."""
        fonts = self.pill_layer.fonts
        boxes: dict[BoxId, BoxItem] = {}
        for n, (box_id, box) in enumerate(model.boxes.items(), 1):
            boxes[box_id] = BoxItem(box, fonts)
            if n % BUILD_CHUNK == 0:
                yield
        if self.orientation_auto:  # only then does a resize look at the extents
            self._extents = layout.extents
            self._show_orientation(layout.vertical)
        placement = layout.placement
        positions = placement.positions
        sizes = {box_id: (item.w, item.h) for box_id, item in boxes.items()}
        for box_id, item in boxes.items():
            item.place(*positions[box_id])
        ink = self.palette().color(QPalette.ColorRole.Text)
        ink.setAlpha(150)
        vias, ports = layout.vias, layout.ends
        # parallel links (x * x uses x twice) carry their gradient labels at different heights
        parallel: dict[tuple, list[Link]] = {}
        for link in model.links:
            parallel.setdefault((link.tail, link.head), []).append(link)
        links = []
        for link in model.links:
            if link.tail not in boxes or link.head not in boxes:
                continue
            group = parallel[(link.tail, link.head)]
            pill_at = 0.5 if len(group) == 1 else 0.3 + 0.4 * group.index(link) / (len(group) - 1)
            tail = positions[link.tail] + sizes[link.tail]
            head = positions[link.head] + sizes[link.head]
            links.append(
                LinkItem(link, tail, head, self.vertical, ink, ports[link], pill_at, vias[link])
            )
            if len(links) % BUILD_CHUNK == 0:
                yield
        rect = QRectF()
        for item in boxes.values():
            rect = rect.united(item.rect().translated(item.cx, item.cy))
        for link_item in links:
            rect = rect.united(link_item.bounds())
        if rect.isEmpty():
            rect = QRectF(-200, -60, 400, 120)
        self._graph_rect = rect.adjusted(-SCENE_MARGIN, -SCENE_MARGIN, SCENE_MARGIN, SCENE_MARGIN)
        self.scene.setSceneRect(self._graph_rect)
        if self.view.auto_fit:
            self.view.fit()  # first: it decides whether the items or the overview draw
        for item in boxes.values():
            item.set_shown(True, self.detail)
            self.scene.addItem(item)
        for link_item in links:
            link_item.set_shown(True, self.detail)
            self.scene.addItem(link_item)
        self.boxes, self.links = boxes, links
        for link_item in links:
            self._flow_items.setdefault(link_item.link.flow, []).append(link_item)
        for box_id, box_item in boxes.items():
            if box_id[0] in ("fn", "leaf", "out") and box_item.box.key is not None:
                self._key_items.setdefault(box_item.box.key, []).append(box_item)
        self.overview.set_items(boxes.values(), links, self._graph_rect)

    # -- state -> view -------------------------------------------------------
    def _apply_model(self, model: GraphModel) -> None:
        """Show the part of the union graph that exists at this position."""
        detail = self.detail
        before, self._applied_model = self._applied_model, model
        present = {link.flow for link in model.links}
        if before is None:
            for box_id, item in self.boxes.items():
                box = model.boxes.get(box_id)
                item.set_shown(box is not None, detail)
                if box is not None:
                    self._set_box(item, box, model)
            for link in self.links:
                link.set_shown(link.link.flow in present, detail)
        else:  # only the boxes, roots and links that differ from the position before
            for box_id in before.boxes.keys() - model.boxes.keys():
                if (item := self.boxes.get(box_id)) is not None:
                    item.set_shown(False, detail)
            old = before.boxes
            for box_id, box in model.boxes.items():
                if old.get(box_id) is not box and (item := self.boxes.get(box_id)) is not None:
                    item.set_shown(True, detail)
                    self._set_box(item, box, model)
            for key in before.roots ^ model.roots:
                box = model.boxes.get(("fn", key))
                if box is not None and (item := self.boxes.get(("fn", key))) is not None:
                    self._set_box(item, box, model)
            was = {link.flow for link in before.links}
            for flow in was ^ present:
                for link in self._flow_items.get(flow, ()):
                    link.set_shown(flow in present, detail)
        self._update_pills()
        self._overview_later()

    def _apply_delta(self, model: GraphModel, delta: ModelDelta) -> None:
        """Show what changed since the position before: a scrub costs what it changes."""
        detail, boxes = self.detail, self.boxes
        self._applied_model = model
        for box_id in delta.removed:
            if (item := boxes.get(box_id)) is not None:
                item.set_shown(False, detail)
        for box_id, box in delta.boxes.items():
            if (item := boxes.get(box_id)) is not None:
                item.set_shown(True, detail)
                self._set_box(item, box, model)
        for key in delta.roots:
            box = model.boxes.get(("fn", key))
            if box is not None and (item := boxes.get(("fn", key))) is not None:
                self._set_box(item, box, model)
        for flows, shown in ((delta.links_removed, False), (delta.links_added, True)):
            for flow in flows:
                for link in self._flow_items.get(flow, ()):
                    link.set_shown(shown, detail)
        if delta:
            self._update_pills()
            self._overview_later()

    def _set_box(self, item: BoxItem, box: Box, model: GraphModel) -> None:
        if item.box.kind != "fn":
            item.set_box(box)
        else:
            key = box.key
            item.set_state(output=key in model.roots and ("out", key) not in self.boxes)

    def _update_pills(self) -> None:
        """The gradient labels of the links shown now that a gradient has flowed along,
        each on its edge where it covers no box and no other label (``labels``)."""
        flowing = (
            [(i, link) for i, link in enumerate(self.links) if link.drawn and link.flow is not None]
            if self.detail
            else []
        )
        flowing.sort(key=lambda il: not il[1].strong)  # the edge being replayed first
        key = (self._model_key, *((i, link.flow_text) for i, link in flowing))
        if key != self._pill_key and not flowing:  # none shown (zoomed out): nothing to place
            self._pill_spots, self._pill_key = [], key
        elif key != self._pill_key:
            layer = self.pill_layer
            sizes = [layer.pill_rect(QPointF(), link.flow_text) for _, link in flowing]
            boxes = [
                (b.cx - b.w / 2, b.cy - b.h / 2, b.cx + b.w / 2, b.cy + b.h / 2)
                for b in self.boxes.values()
                if b.drawn
            ]
            spots = place_labels(
                [
                    (link.label_spots(), r.width(), r.height())
                    for (_, link), r in zip(flowing, sizes, strict=True)
                ],
                boxes,
            )
            self._pill_spots = [QPointF(x, y) for x, y in spots]
            self._pill_key = key
        pills = [
            (spot, link.flow_text, link.strong)
            for spot, (_, link) in zip(self._pill_spots, flowing, strict=True)
        ]
        rect = QRectF(self._graph_rect)
        for centre, text, _ in pills:
            rect = rect.united(self.pill_layer.pill_rect(centre, text).adjusted(-4, -4, 4, 4))
        if rect != self._graph_rect:
            # a wide gradient label near the edge of the graph: the scene (and Fit) take
            # it in, and keep it for this graph so scrubbing does not make the view jump
            self._graph_rect = rect
            self.scene.setSceneRect(rect)
            if self.view.auto_fit:
                self.view.fit()
        self.pill_layer.set_pills(pills, rect)

    def _apply_flow(self) -> None:
        """The gradients that have flowed by the playhead's position, on the links."""
        playhead = self.state.playhead
        at = playhead.trace_at()
        executed = at.executed if at is not None else ()
        current = playhead.current
        flows = playhead.edge_gradients()
        strong = playhead.current_flows()
        self.executed_keys = tuple(ex.key for ex in executed)
        self.current_key = current.key if current is not None else None
        live = at is not None and at.live
        done = set(self.executed_keys) if live else set()
        before = self._applied_flow
        self._applied_flow = (flows, strong, done, self.current_key)
        if before is None:
            for link in self.links:
                link.set_flow(flows.get(link.link.flow), link.link.flow in strong)
            for box_id, item in self.boxes.items():
                if box_id[0] == "fn":
                    item.set_state(
                        executed=box_id[1] in done, current=box_id[1] == self.current_key
                    )
        else:  # only the links whose gradient changed, the boxes that ran or run now
            old_flows, old_strong, old_done, old_current = before
            keys = (
                set()
                if flows is old_flows
                else {
                    k
                    for k in old_flows.keys() | flows.keys()
                    if old_flows.get(k) is not flows.get(k)
                }
            )
            for flow in keys | (old_strong ^ strong):
                for link in self._flow_items.get(flow, ()):
                    link.set_flow(flows.get(flow), flow in strong)
            ran = old_done ^ done
            if not keys and old_strong == strong and not ran and old_current == self.current_key:
                return  # nothing flowed or ran between the positions (a forward scrub)
            for key in ran | {old_current, self.current_key}:
                item = self.boxes.get(("fn", key)) if key is not None else None
                if item is not None:
                    item.set_state(executed=key in done, current=key == self.current_key)
        self._update_pills()
        self._overview_later()

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

    def _read_flow_keys(self) -> None:
        """The grad_fns run by the position, and the one running (None: none)."""
        playhead = self.state.playhead
        at = playhead.trace_at()
        current = playhead.current
        self.executed_keys = tuple(ex.key for ex in at.executed) if at is not None else ()
        self.current_key = current.key if current is not None else None

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

    def _apply_selection(self) -> None:
        key = self.selected_key
        before, self._applied_selection = self._applied_selection, (key,)
        if before is None:
            for box_id, item in self.boxes.items():
                on = key is not None and item.box.key == key and box_id[0] in ("fn", "leaf", "out")
                item.set_state(selected=on)
        elif before[0] != key:
            for k in (before[0], key):
                for item in self._key_items.get(k, ()) if k is not None else ():
                    item.set_state(selected=k == key)
        else:
            return
        self.overview.invalidate()

    # -- level of detail -----------------------------------------------------
    def _scale_changed(self, scale: float) -> None:
        """Far out, hand the drawing to the overview item (and back when zoomed in)."""
        if (scale < TEXT_LOD) != self._names_hidden:
            self._names_hidden = scale < TEXT_LOD
            if self.boxes:
                self._update_status()
        detail = scale >= OVERVIEW_LOD
        if detail == self.detail:
            return
        self.detail = detail
        if detail:
            self.sync_items()
        for item in self.boxes.values():
            item.set_shown(item.shown, detail)
        for link in self.links:
            link.set_shown(link.shown, detail)
        self.pill_layer.setVisible(detail)
        self._update_pills()
        self.overview.setVisible(not detail)
        self.overview.invalidate()

    def box_near(self, point: QPointF, tolerance: float) -> BoxItem | None:
        """The shown box at a scene point (within ``tolerance``), for clicks on the overview."""
        self.sync_items()
        for item in self.boxes.values():
            if (
                item.drawn
                and abs(point.x() - item.cx) <= item.w / 2 + tolerance
                and abs(point.y() - item.cy) <= item.h / 2 + tolerance
            ):
                return item
        return None

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

    def _ensure_visible(self, key: int) -> None:
        item = self.fn_item(key)
        if item is not None:
            self.view.ensureVisible(item, 40, 40)

    # -- selection sync ------------------------------------------------------
    def select_key(self, key: int | None) -> None:
        """Highlight a grad_fn here, and select its counterpart node via the state."""
        self.selected_key = key
        self._apply_selection()
        ev = self.state.evaluation
        self.state.select_grad_fn("" if key is None else str(key))
        if ev is None or key is None:
            self.state.select(())
            return
        index = self.state.playhead.index
        node = index.node_for(key) if index is not None else None
        self.state.select((node,) if node is not None else ())
        self._ensure_visible(key)

    def click_box(self, box_id: BoxId) -> None:
        """What a click on a box does (the mouse path calls this too)."""
        self.sync_items()
        item = self.boxes.get(box_id)
        if item is not None:
            self._box_clicked(item)

    def _box_clicked(self, item: BoxItem) -> None:
        box = item.box
        if box.kind in ("leaf", "out") and box.node_id is not None:
            self.selected_key = box.key
            self._apply_selection()
            self.state.select_grad_fn("" if box.key is None else str(box.key))
            self.state.select((box.node_id,))
            return
        self.select_key(box.key)

    def _background_clicked(self) -> None:
        if self.selected_key is not None:
            self.select_key(None)

    def _selection_changed(self) -> None:
        index, snap = self.state.playhead.index, self.state.playhead.snapshot()
        if index is None or snap is None:
            return
        selection = self.state.selection
        if self.selected_key is not None and index.node_for(self.selected_key) in selection:
            return  # the selection came from here (or agrees with it)
        key = index.key_for(snap, selection[0]) if selection else None
        self.selected_key = key
        self._apply_selection()
        self.state.select_grad_fn("" if key is None else str(key))
        if key is not None:
            self._ensure_visible(key)

    def _grad_fn_selected(self, text: str) -> None:
        key = parse_key(text)
        if key != self.selected_key:
            self.selected_key = key
            self._apply_selection()
            if key is not None:
                self._ensure_visible(key)
