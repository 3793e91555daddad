"""The backward view's scene building: the union of an evaluation's graphs laid out
(on a thread for a big graph) and made into items, a re-run carried over, or a message."""

from __future__ import annotations

import functools
from collections.abc import Iterator

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QPalette

from gradstudio.evaluation.grad_fn_index import GradFnIndex
from gradstudio.evaluation.results import Evaluation
from gradstudio.evaluation.structure import same_structure
from ui.backward.graph_layout import SCENE_MARGIN, BackgroundLayout, Layout, lay_out
from ui.backward.item_style import Fonts
from ui.backward.items import BoxItem, LinkItem, PillLayer
from ui.backward.model import (
    LAYER_GAP,
    BoxId,
    GraphModel,
    Link,
    union_model,
)
from ui.backward.overview import BackwardOverview

TYPICAL_LABEL = "(4, 3) -0.183…0.201"  # a gradient label's usual width
BACKGROUND_BOXES = 1_500
"""Graphs with more boxes than this are laid out on a thread (see ``BackgroundLayout``)."""
LAYOUT_POLL_MS = 15  # how often the view looks whether a background layout is done
BUILD_CHUNK = 200  # items a big graph's build makes per tick (about 30 ms of work)


class BuildingMixin:
    """``BackwardView``'s scene building (mixed into it)."""

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
