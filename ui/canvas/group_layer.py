"""The canvas's groups: one frame per expanded group, one card per collapsed one.

The scene owns one ``GroupLayer`` and hands it every document event.  Group
changes are applied together on the next turn of the event loop (or at once when
something asks, ``ensure``), so deleting a loop group of a thousand nodes redraws
the groups once, not once per node.  Cards of nodes inside a collapsed group are
hidden, the wires that cross its border end on the group's card (``anchor``), and
the wires inside it are hidden.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, QSizeF, QTimer

from gradstudio.document.events import (
    DocumentEvent,
    EdgeAdded,
    EdgeRemoved,
    GroupAdded,
    GroupChanged,
    GroupRemoved,
    LabelChanged,
)
from gradstudio.document.groups import MAX_DEPTH, depths
from gradstudio.document.layout import frame_title_width
from ui.canvas.group_item import (
    FRAME_PAD,
    FRAME_Z,
    TITLE_HEIGHT,
    FarTitle,
    GroupCardItem,
    GroupFrameItem,
)
from ui.canvas.style import LOD_TEXT

if TYPE_CHECKING:
    from gradstudio.document.model import Document
    from gradstudio.document.values import Edge
    from ui.canvas.scene import GraphScene


class GroupLayer:
    """Keeps the scene's group items in step with ``scene.document.groups``."""

    def __init__(self, scene: GraphScene) -> None:
        self.scene = scene
        self.frames: dict[str, GroupFrameItem] = {}
        self.cards: dict[str, GroupCardItem] = {}
        self._rep: dict[str, str] = {}  # node id -> the collapsed group whose card shows it
        self._children: dict[str, list[str]] = {}
        self._deep: dict[str, frozenset[str]] = {}
        self._order: list[str] = []  # group ids, innermost first
        self._dirty = False
        self._pending: set[str] = set()  # groups to re-measure after their cards moved
        self._syncing = False
        self._zoom = 1.0
        self._timer = QTimer(scene)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.ensure)

    @property
    def document(self) -> Document:
        return self.scene.document

    # ------------------------------------------------------------------ queries
    def frame(self, group_id: str) -> GroupFrameItem | None:
        self.ensure()
        return self.frames.get(group_id)

    def card(self, group_id: str) -> GroupCardItem | None:
        self.ensure()
        return self.cards.get(group_id)

    def shown_as(self, node_id: str) -> str | None:
        """The collapsed group whose card stands for this node, if any."""
        self.ensure()
        return self._rep.get(node_id)

    def anchor(self, node_id: str, port: str, is_input: bool) -> QPointF | None:
        """Where a wire to a node hidden in a collapsed group ends (None: on its card)."""
        if self._dirty:
            return None  # the coming sync re-routes every wire it changes
        gid = self._rep.get(node_id)
        card = self.cards.get(gid) if gid is not None else None
        return None if card is None else card.port_scene_pos(node_id, port, is_input)

    def edge_hidden(self, edge: Edge) -> bool:
        """Whether a wire runs inside one collapsed group (and is not drawn)."""
        gid = self._rep.get(edge.src)
        return gid is not None and gid == self._rep.get(edge.dst)

    def selected_groups(self) -> list[str]:
        """Groups whose frame or card is selected, in document order."""
        chosen = {
            i.group_id
            for i in self.scene.selectedItems()
            if isinstance(i, GroupFrameItem | GroupCardItem)
        }
        return [g for g in self.document.groups if g in chosen]

    def selected_members(self) -> set[str]:
        """Every node inside a selected frame or card: a selected group acts as a unit."""
        out: set[str] = set()
        for gid in self.selected_groups():
            out |= self._deep.get(gid, frozenset())
        return out

    def show_selected(self, node_ids: Iterable[str]) -> None:
        """Select the cards of collapsed groups hiding any of ``node_ids`` (a node chosen
        in another panel stays findable on the canvas)."""
        self.ensure()
        shown = {self._rep[n] for n in node_ids if n in self._rep}
        for gid, card in self.cards.items():
            if card.isSelected() != (gid in shown):
                card.setSelected(gid in shown)

    def items(self) -> Iterable[GroupFrameItem | GroupCardItem]:
        self.ensure()
        return [*self.frames.values(), *self.cards.values()]

    # ------------------------------------------------------------------ events
    @property
    def zoom(self) -> float:
        """The canvas's zoom, as ``set_zoom`` was last told."""
        return self._zoom

    def set_zoom(self, zoom: float) -> None:
        """Far out (below ``LOD_TEXT``) the top-level frames show their ``FarTitle``."""
        self._zoom = zoom
        for frame in self.frames.values():
            self._show_far_title(frame)

    def show_titles_in(self, shown: QRectF | None) -> None:
        """The view shows ``shown`` (scene coordinates; None: no view, an export): a frame
        whose left end is out of it draws its title at the view's left edge."""
        for frame in self.frames.values():
            inside = shown is not None and frame.scene_rect().intersects(shown)
            frame.set_shown_left(shown.left() if inside and shown is not None else None)

    def _show_far_title(self, frame: GroupFrameItem) -> None:
        label = frame.far_label
        if label is None:
            return
        far = self._zoom < LOD_TEXT and frame.group.parent is None
        if far:
            label.refresh()
        if far != label.isVisible():
            label.setVisible(far)

    def reset(self) -> None:
        """After ``scene.clear()``: the old items are gone."""
        self.frames.clear()
        self.cards.clear()
        self._rep = {}
        self._dirty = False
        self._pending.clear()

    def rebuild(self) -> None:
        """Draw every group of the document (its cards and wires are in the scene)."""
        self._dirty = True
        self.ensure()

    def on_event(self, event: DocumentEvent) -> None:
        if isinstance(event, GroupAdded | GroupRemoved | GroupChanged):
            self._mark()
        elif isinstance(event, EdgeAdded | EdgeRemoved):
            e = event.edge
            if e.src in self._rep or e.dst in self._rep:
                self._mark()  # a collapsed card's ports change
        elif isinstance(event, LabelChanged) and event.node_id in self._rep:
            self._mark()

    def _mark(self) -> None:
        self._dirty = True
        self._timer.start()

    def ensure(self) -> None:
        """Apply the pending group changes now."""
        if self._dirty:
            self._dirty = False
            self._pending.clear()
            self._sync()
        elif self._pending:
            pending, self._pending = self._pending, set()
            self._place_all(pending)

    def node_moved(self, node_id: str) -> None:
        """A card moved: the frames around it (or the card showing it) follow, once the
        moves of one edit are over (undoing the move of a 5,000-node group measures the
        group once, not once per node)."""
        if self._dirty:
            return
        doc = self.document
        gid = self._rep.get(node_id)
        if gid is None:
            group = doc.group_of(node_id) if node_id in doc else None
            gid = group.id if group is not None else None
        if gid is None:
            return
        chain = [gid]
        groups = doc.groups
        while groups[chain[-1]].parent is not None and len(chain) <= len(groups):
            chain.append(groups[chain[-1]].parent)  # type: ignore[arg-type]
        self._pending.update(chain)
        self._timer.start()

    def shift_group(self, group_id: str, dx: float, dy: float) -> None:
        """Move a group's cards (and so its frame or card) while it is dragged."""
        self.ensure()
        scene = self.scene
        members = self._deep.get(group_id, frozenset())
        touched: set[Edge] = set()
        for node_id in members:
            item = scene.node_item(node_id)
            if item is not None:
                item.moveBy(dx, dy)
            touched |= scene.edges_at(node_id)
        self._place_all(self._family(group_id))
        for edge in touched:
            item = scene.edge_item(edge)
            if item is not None:
                item.update_path()

    # ------------------------------------------------------------------ syncing
    def _sync(self) -> None:
        scene = self.scene
        groups = self.document.groups
        level = depths(groups)
        self._order = sorted(groups, key=level.__getitem__, reverse=True)
        self._children = {g: [] for g in groups}
        hidden_by: dict[str, str | None] = {}
        for gid in reversed(self._order):  # outermost first
            parent = groups[gid].parent
            if parent is None:
                hidden_by[gid] = None
            else:
                self._children[parent].append(gid)
                hidden_by[gid] = hidden_by[parent] or (parent if groups[parent].collapsed else None)
        self._deep = {}
        for gid in self._order:  # innermost first: children are done before parents
            deep = set(groups[gid].members)
            for child in self._children[gid]:
                deep |= self._deep[child]
            self._deep[gid] = frozenset(deep)
        want_frames = {g for g in groups if hidden_by[g] is None and not groups[g].collapsed}
        want_cards = {g for g in groups if hidden_by[g] is None and groups[g].collapsed}
        for table, wanted, make in (
            (self.frames, want_frames, GroupFrameItem),
            (self.cards, want_cards, GroupCardItem),
        ):
            for gid in list(table):
                if gid not in wanted:
                    gone = table.pop(gid)
                    if isinstance(gone, GroupFrameItem) and gone.far_label is not None:
                        scene.removeItem(gone.far_label)
                    scene.removeItem(gone)
            for gid in wanted:
                item = table.get(gid)
                if item is None:
                    item = make(groups[gid], scene)
                    table[gid] = item  # type: ignore[assignment]
                    scene.addItem(item)
                    if isinstance(item, GroupFrameItem):
                        item.far_label = FarTitle(item)
                        scene.addItem(item.far_label)
                elif item.group != groups[gid]:
                    item.set_group(groups[gid])
        for gid, frame in self.frames.items():
            frame.setZValue(FRAME_Z + min(level[gid], MAX_DEPTH) * 0.001)
            self._show_far_title(frame)
        rep: dict[str, str] = {}
        for gid in self.cards:
            for node_id in self._deep[gid]:
                rep[node_id] = gid
        old_rep, self._rep = self._rep, rep
        for node_id in old_rep.keys() | rep.keys():
            item = scene.node_item(node_id)
            if item is not None:
                item.setVisible(node_id not in rep)
                if node_id in rep and item.isSelected():
                    item.setSelected(False)
        self._set_card_ports()
        self._syncing = True
        try:
            self.layout()
        finally:
            self._syncing = False
        changed = {n for n in old_rep.keys() | rep.keys() if old_rep.get(n) != rep.get(n)}
        changed |= rep.keys()
        for node_id in changed:
            for edge in scene.edges_at(node_id):
                item = scene.edge_item(edge)
                if item is not None:
                    item.update_path()
        self.apply_edge_visibility(changed)

    def apply_edge_visibility(self, nodes: Iterable[str] | None = None) -> None:
        """Hide the wires inside collapsed groups (all wires, or those of ``nodes``)."""
        scene = self.scene
        far = scene.overview_on
        if nodes is None:
            edges: Iterable[Edge] = list(scene.edges())
        else:
            edges = {e for n in nodes for e in scene.edges_at(n)}
        for edge in edges:
            item = scene.edge_item(edge)
            if item is not None:
                item.setVisible(not far and not self.edge_hidden(edge))
        scene.expose()  # a card or wire a scrub restyled while hidden, shown again

    def _set_card_ports(self) -> None:
        doc = self.document
        for gid, card in self.cards.items():
            inside = self._deep[gid]
            inputs: dict[tuple[str, str], str] = {}
            outputs: dict[tuple[str, str], str] = {}
            for node_id in sorted(inside, key=doc.step_of):
                for edge in doc.edges_of(node_id):
                    if edge.dst == node_id and edge.src not in inside:
                        inputs.setdefault(
                            (node_id, edge.dst_port), _port_text(doc, node_id, edge.dst_port, True)
                        )
                    elif edge.src == node_id and edge.dst not in inside:
                        outputs.setdefault(
                            (node_id, edge.src_port), _port_text(doc, node_id, edge.src_port, False)
                        )
            card.set_ports(
                [(n, p, t) for (n, p), t in inputs.items()],
                [(n, p, t) for (n, p), t in outputs.items()],
                len(inside),
            )

    # ------------------------------------------------------------------ geometry
    def layout(self) -> None:
        """Size every frame around its contents and place every card, innermost first."""
        for gid in self._order:
            self._place(gid)

    def _place_all(self, groups: set[str]) -> None:
        for gid in self._order:  # innermost first
            if gid in groups:
                self._place(gid)

    def _family(self, group_id: str) -> set[str]:
        """A group, the groups inside it and the groups around it: what its move reshapes."""
        family = {group_id}
        stack = [group_id]
        while stack:
            for child in self._children.get(stack.pop(), ()):
                family.add(child)
                stack.append(child)
        groups = self.document.groups
        parent = groups[group_id].parent if group_id in groups else None
        while parent is not None and parent not in family:
            family.add(parent)
            parent = groups[parent].parent
        return family

    def _place(self, gid: str) -> None:
        card = self.cards.get(gid)
        if card is not None:
            spot = self._members_corner(gid)
            if spot is not None and card.pos() != spot:
                card.setPos(spot)
                if self._syncing:
                    return  # the sync re-routes every wire it changes afterwards
                for node_id in self._deep[gid]:
                    for edge in self.scene.edges_at(node_id):
                        item = self.scene.edge_item(edge)
                        if item is not None:
                            item.update_path()
            return
        frame = self.frames.get(gid)
        if frame is None:
            return
        rect = QRectF()
        for node_id in self.document.groups[gid].members if gid in self.document.groups else ():
            item = self.scene.node_item(node_id)
            if item is not None:
                rect = rect.united(QRectF(item.pos(), QSizeF(item.width, item.height)))
        for child in self._children.get(gid, ()):
            inner = self.frames.get(child) or self.cards.get(child)
            if inner is not None:
                rect = rect.united(inner.scene_rect())
        if rect.isNull():
            return
        rect = rect.adjusted(-FRAME_PAD, -FRAME_PAD - TITLE_HEIGHT, FRAME_PAD, FRAME_PAD)
        least = frame_title_width(frame.group)  # a narrow frame widens for its title
        if rect.width() < least:
            rect.setWidth(least)
        frame.set_scene_rect(rect)
        if frame.far_label is not None:
            frame.far_label.setPos(rect.topLeft())

    def _members_corner(self, gid: str) -> QPointF | None:
        xs: list[float] = []
        ys: list[float] = []
        for node_id in self._deep.get(gid, ()):
            item = self.scene.node_item(node_id)
            if item is not None:
                xs.append(item.x())
                ys.append(item.y())
        return QPointF(min(xs), min(ys)) if xs else None


def _port_text(doc: Document, node_id: str, port: str, is_input: bool) -> str:
    """How a collapsed card names a member's port: ``label``, or ``label.port`` where
    the node has several ports on that side."""
    node = doc.node(node_id)
    ports = node.type.inputs if is_input else node.type.outputs
    return node.label if len(ports) <= 1 else f"{node.label}.{port}"
