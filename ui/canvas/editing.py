"""Edits made on the canvas: add, connect, delete, clipboard, auto-layout, inline editing.

Each is one gradstudio command (or one macro) pushed through the ``UndoBridge``, so a
paste or the deletion of a selection is a single undo step.  A mixin of ``GraphView``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QMimeData, QPointF, QRect, Signal
from PySide6.QtGui import QGuiApplication

from gradstudio.catalogue import NodeKind, catalogue
from gradstudio.document.clipboard import copy_nodes, parse_clipboard
from gradstudio.document.commands import (
    AddNodeCommand,
    AutoLayoutCommand,
    ConnectCommand,
    DisconnectCommand,
    MoveNodesCommand,
    PasteCommand,
    RemoveNodesCommand,
    SetLabelCommand,
    SetParamCommand,
)
from gradstudio.document.layout import default_card_size, free_offset, free_spot
from gradstudio.document.values import EditError
from ui.canvas.inline_editor import InlineEditor, literal_text, parse_literal
from ui.canvas.style import HEADER_HEIGHT, NODE_WIDTH, PORT_ROW
from ui.palette.type_search import first_port

if TYPE_CHECKING:
    from gradstudio.document.model import Document
    from gradstudio.document.values import Edge
    from ui.canvas.node_item import NodeItem
    from ui.canvas.port_item import PortItem
    from ui.canvas.scene import GraphScene
    from ui.window.undo_bridge import UndoBridge

CLIPBOARD_MIME = "application/x-gradstudio-nodes"


class CanvasEditing:
    """The canvas's editing commands (needs what ``GraphView`` provides)."""

    bridge: UndoBridge
    graph_scene: GraphScene
    message: Signal
    _editor: InlineEditor | None

    if TYPE_CHECKING:  # provided by GraphView (QGraphicsView)

        @property
        def document(self) -> Document: ...

        def _show_edge(self, edge: Edge | None) -> None: ...

        def fit_all(self) -> None: ...

    # ------------------------------------------------------------------ edits
    def add_node(
        self,
        type_id: str,
        scene_pos: QPointF,
        connect_to: PortItem | None = None,
    ) -> str | None:
        """Add a node centred under ``scene_pos``; wire it to ``connect_to`` if given."""
        node_type = catalogue().get(type_id)
        x = round(scene_pos.x() - NODE_WIDTH / 2)
        y = round(scene_pos.y() - HEADER_HEIGHT / 2)
        if connect_to is not None:
            x = (
                round(scene_pos.x())
                if not connect_to.is_input
                else round(scene_pos.x() - NODE_WIDTH)
            )
            y = round(scene_pos.y() - HEADER_HEIGHT - PORT_ROW / 2)
        doc = self.document
        x, y = free_spot(doc, node_type, x, y)  # never on top of another node
        try:
            add = AddNodeCommand(doc, type_id, (x, y))
        except EditError as exc:
            self.message.emit(exc.message)
            return None
        if connect_to is None:
            if self.bridge.push(add) is None:
                return None
        else:
            new_port = first_port(node_type, connect_to.type, inputs=not connect_to.is_input)
            node_id = add.node_id

            def connect() -> ConnectCommand:
                if connect_to.is_input:
                    return ConnectCommand(
                        doc, node_id, new_port, connect_to.node_id, connect_to.name
                    )
                return ConnectCommand(doc, connect_to.node_id, connect_to.name, node_id, new_port)

            if not self.bridge.push_group(f"Add {node_type.title} and connect", [add, connect]):
                return None
        self.graph_scene.clearSelection()
        item = self.graph_scene.node_item(add.node_id)
        if item is not None:
            item.setSelected(True)
        self.setFocus()
        return add.node_id

    def connect_ports(
        self, src: str, src_port: str, dst: str, dst_port: str, replacing: Edge | None = None
    ) -> bool:
        """Connect an output to an input as one undo step (re-routing a picked-up wire)."""
        doc = self.document
        reason = doc.can_connect(src, src_port, dst, dst_port)
        if reason:
            self._show_edge(replacing)
            self.message.emit(f"Cannot connect: {reason}")
            return False
        if replacing is None:
            return (
                self.bridge.push(lambda: ConnectCommand(doc, src, src_port, dst, dst_port))
                is not None
            )
        ok = self.bridge.push_group(
            "Reconnect",
            [
                DisconnectCommand(doc, replacing),
                lambda: ConnectCommand(doc, src, src_port, dst, dst_port),
            ],
        )
        if not ok:
            self._show_edge(replacing)
        return ok

    def _push_drag(self, positions: dict[str, tuple[float, float]]) -> None:
        doc = self.document
        text = "Move node" if len(positions) == 1 else f"Move {len(positions)} nodes"
        self.bridge.push(lambda: MoveNodesCommand(doc, positions, text=text))

    def delete_selection(self) -> None:
        """Delete selected nodes and wires as one undo step."""
        doc = self.document
        ids = self.graph_scene.selected_node_ids()
        gone = set(ids)
        edges = [
            e for e in self.graph_scene.selected_edges() if e.src not in gone and e.dst not in gone
        ]
        commands: list[object] = [DisconnectCommand(doc, e) for e in edges]
        if ids:
            commands.append(RemoveNodesCommand(doc, ids))
        if not commands:
            return
        if len(commands) == 1:
            self.bridge.push(commands[0])
        else:
            self.bridge.push_group(f"Delete {len(ids)} nodes" if ids else "Delete wires", commands)

    def select_all(self) -> None:
        for item in self.graph_scene.node_items():
            item.setSelected(True)
        self.graph_scene.groups.ensure()
        for card in self.graph_scene.groups.cards.values():  # the nodes a collapsed group hides
            card.setSelected(True)

    def select_nodes(self, ids: list[str]) -> None:
        self.graph_scene.groups.ensure()  # a card a collapsed group hid a moment ago shows
        self.graph_scene.clearSelection()
        for node_id in ids:
            item = self.graph_scene.node_item(node_id)
            if item is not None:
                item.setSelected(True)
        self.graph_scene.groups.show_selected(ids)  # nodes inside a collapsed group: its card

    # ------------------------------------------------------------------ clipboard
    def copy_selection(self) -> bool:
        ids = self.graph_scene.selected_node_ids()
        if not ids:
            return False
        text = copy_nodes(self.document, ids)
        data = QMimeData()
        data.setText(text)
        data.setData(CLIPBOARD_MIME, text.encode("utf-8"))
        QGuiApplication.clipboard().setMimeData(data)
        self.message.emit(f"Copied {len(ids)} node{'s' if len(ids) != 1 else ''}")
        return True

    def cut_selection(self) -> None:
        ids = self.graph_scene.selected_node_ids()
        if ids and self.copy_selection():
            doc = self.document
            self.bridge.push(lambda: _retitled(RemoveNodesCommand(doc, ids), "Cut"))

    def _clipboard_text(self) -> str:
        data = QGuiApplication.clipboard().mimeData()
        if data is None:
            return ""
        if data.hasFormat(CLIPBOARD_MIME):
            return bytes(data.data(CLIPBOARD_MIME).data()).decode("utf-8", "replace")
        return data.text() if data.hasText() else ""

    def paste(self, scene_pos: QPointF | None = None) -> list[str]:
        """Paste clipboard nodes near the cursor (one undo step); returns the new ids."""
        return self._paste_text(self._clipboard_text(), scene_pos, "Paste")

    def duplicate(self) -> list[str]:
        ids = self.graph_scene.selected_node_ids()
        if not ids:
            return []
        return self._paste_text(copy_nodes(self.document, ids), None, "Duplicate")

    def _paste_text(self, text: str, scene_pos: QPointF | None, title: str) -> list[str]:
        try:
            content = parse_clipboard(text)
        except EditError as exc:
            self.message.emit(exc.message)
            return []
        if not content.nodes:
            return []
        offset = (30.0, 30.0)
        if scene_pos is None and title == "Paste":
            cursor = self.viewport().mapFromGlobal(self.cursor().pos())
            if self.viewport().rect().contains(cursor):
                scene_pos = self.mapToScene(cursor)
        if scene_pos is not None:
            left = min(n.x for n in content.nodes)
            top = min(n.y for n in content.nodes)
            offset = (round(scene_pos.x() - left), round(scene_pos.y() - top))
        doc = self.document
        boxes = [(n.x + offset[0], n.y + offset[1], *_card_size(n.type_id)) for n in content.nodes]
        dx, dy = free_offset(doc, boxes)  # the copy lands clear of every node, as a group
        offset = (offset[0] + dx, offset[1] + dy)
        cmd = self.bridge.push(lambda: _retitled(PasteCommand(doc, text, offset), title))
        if cmd is None:
            return []
        self.select_nodes(cmd.node_ids)
        return list(cmd.node_ids)

    # ------------------------------------------------------------------ layout
    def auto_layout(self) -> None:
        """Arrange the graph left to right by data flow (one undo step)."""
        if not len(self.document):
            return
        self.tidy()
        self.fit_all()

    def tidy(self) -> bool:
        """Lay the graph out with the cards' real sizes, as one undo step; False (no step,
        not modified) when that moves nothing.  Imports get this once they are shown: the
        importer only estimates card sizes.  A file opened is never re-arranged."""
        sizes = {i.node_id: (i.width, i.height) for i in self.graph_scene.node_items()}
        command = AutoLayoutCommand(self.document, sizes)
        if command.moves_nothing:
            return False
        self.bridge.push(command)
        self.graph_scene.update_scene_rect()
        return True

    # ------------------------------------------------------------------ inline edits
    def _editable_param_at(self, node: NodeItem, local: QPointF) -> str | None:
        """The parameter a double-click at ``local`` edits (a scalar port or the data)."""
        params = node.node.type.params
        names = {p.name for p in params}
        for port in node.ports:
            if (
                port.is_input
                and port.spec.scalar_ok
                and abs(local.y() - port.center.y()) < PORT_ROW / 2
            ) and (port.name, True) not in self.graph_scene.connected_ports(node.node_id):
                return port.name
        if local.y() >= node.facts_top or node.node.type.kind is NodeKind.SOURCE:
            for name in ("data", "size", "fill_value", "value", "index", "dim"):
                if name in names:
                    return name
        return None

    def _editor_rect(self, node: NodeItem, top: float, height: float) -> QRect:
        a = self.mapFromScene(node.mapToScene(QPointF(6.0, top)))
        b = self.mapFromScene(node.mapToScene(QPointF(node.width - 6.0, top + height)))
        return QRect(a, b).adjusted(0, 0, 0, 4)

    def edit_label(self, node_id: str) -> InlineEditor | None:
        node = self.graph_scene.node_item(node_id)
        if node is None:
            return None
        editor = InlineEditor(
            self.viewport(), self._editor_rect(node, 2.0, HEADER_HEIGHT - 4.0), node.node.label
        )
        doc = self.document

        def commit(text: str) -> None:
            text = text.strip()
            if text and node_id in doc and text != doc.node(node_id).label:
                self.bridge.push(lambda: SetLabelCommand(doc, node_id, text))
            self.setFocus()

        editor.committed.connect(commit)
        editor.cancelled.connect(self.setFocus)
        self._editor = editor
        return editor

    def edit_param(self, node_id: str, name: str) -> InlineEditor | None:
        node = self.graph_scene.node_item(node_id)
        if node is None:
            return None
        value = node.node.params.get(name)
        editor = InlineEditor(
            self.viewport(),
            self._editor_rect(node, node.facts_top + 4.0, 22.0),
            literal_text(value),
        )
        editor.setToolTip(f"{name}: a Python value (Enter to apply, Esc to cancel)")
        doc = self.document

        def commit(text: str) -> None:
            self.setFocus()
            if node_id not in doc:
                return
            try:
                new = parse_literal(text)
            except ValueError as exc:
                self.message.emit(str(exc))
                return
            if new != doc.node(node_id).params.get(name):
                self.bridge.push(lambda: SetParamCommand(doc, node_id, name, new))

        editor.committed.connect(commit)
        editor.cancelled.connect(self.setFocus)
        self._editor = editor
        return editor


def _retitled(command: object, text: str) -> object:
    command.text = text  # type: ignore[attr-defined]
    return command


def _card_size(type_id: str) -> tuple[float, float]:
    node_type = catalogue().get(type_id)
    return default_card_size(node_type) if node_type is not None else (NODE_WIDTH, 100.0)
