"""Wires drawn by hand on the canvas: drag from a port, check the connection as it
moves (a wrong type turns the wire red and the tooltip says why), then connect, re-route
a picked-up wire, unplug it, or open quick-add for a wire dropped on empty canvas.

A mixin of ``GraphView``; the connection itself is a command (``editing``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Signal
from PySide6.QtWidgets import QToolTip

from gradstudio.document.commands import DisconnectCommand
from ui.canvas.edge_item import WireDrag, WireItem
from ui.canvas.port_item import PortItem
from ui.palette.type_search import accepting

if TYPE_CHECKING:
    from gradstudio.document.model import Document
    from gradstudio.document.values import Edge
    from ui.canvas.scene import GraphScene
    from ui.window.undo_bridge import UndoBridge


class CanvasWires:
    """The canvas's wire drags (needs what ``GraphView`` provides)."""

    bridge: UndoBridge
    graph_scene: GraphScene
    message: Signal
    _wire: WireDrag | None
    _pending_wire: PortItem | None

    if TYPE_CHECKING:  # provided by GraphView

        @property
        def document(self) -> Document: ...

    def _begin_wire(self, port: PortItem) -> None:
        doc = self.document
        detached: Edge | None = None
        origin = port
        if port.is_input and not port.spec.variadic:
            existing = doc.inputs_of(port.node_id, port.name)
            if existing:
                # pick up the wire plugged into this input (Blender): re-route or drop it
                detached = existing[0]
                src_item = self.graph_scene.node_item(detached.src)
                found = src_item.port(detached.src_port, False) if src_item else None
                if found is not None:
                    origin = found
        owner = self.graph_scene.node_item(origin.node_id)
        assert owner is not None
        start = owner.mapToScene(origin.center)
        item = WireItem(self.graph_scene, start, origin.is_input)
        item.set_end(start, "free")
        self.graph_scene.addItem(item)
        self._wire = WireDrag(origin, item, detached)
        if detached is not None:
            edge_item = self.graph_scene.edge_item(detached)
            if edge_item is not None:
                edge_item.setVisible(False)

    def check_wire(self, origin: PortItem, target: PortItem) -> str | None:
        """Why ``origin`` cannot connect to ``target`` (None if it can)."""
        if target.node_id == origin.node_id and target.is_input == origin.is_input:
            return "pick a port on another node"
        if target.is_input == origin.is_input:
            return "connect an output to an input"
        src, dst = (target, origin) if origin.is_input else (origin, target)
        return self.document.can_connect(src.node_id, src.name, dst.node_id, dst.name)

    def _drag_wire(self, pos: QPoint, global_pos: QPoint) -> None:
        wire = self._wire
        assert wire is not None
        _, target = self._node_port_at(pos)
        if target is not None and not (
            wire.detached is not None
            and target.node_id == wire.detached.dst
            and target.name == wire.detached.dst_port
        ):
            reason = self.check_wire(wire.origin, target)
        else:
            reason = None
        wire.target, wire.reason = target, reason
        if target is not None:
            owner = self.graph_scene.node_item(target.node_id)
            end = owner.mapToScene(target.center) if owner else self.mapToScene(pos)
            wire.item.set_end(end, "bad" if reason else "ok")
            if reason:
                QToolTip.showText(global_pos, f"Cannot connect: {reason}", self)
            else:
                QToolTip.hideText()
        else:
            wire.item.set_end(self.mapToScene(pos), "free")
            QToolTip.hideText()

    def _drop_wire(self, pos: QPoint, global_pos: QPoint) -> None:
        self._drag_wire(pos, global_pos)
        wire = self._wire
        assert wire is not None
        origin, target, reason, detached = wire.origin, wire.target, wire.reason, wire.detached
        self._end_wire(keep_hidden=True)
        if target is not None:
            if detached is not None and (target.node_id, target.name) == (
                detached.dst,
                detached.dst_port,
            ):
                self._show_edge(detached)
                return
            if reason:
                self._show_edge(detached)
                self.message.emit(f"Cannot connect: {reason}")
                QToolTip.showText(global_pos, f"Cannot connect: {reason}", self)
                return
            src, dst = (target, origin) if origin.is_input else (origin, target)
            self.connect_ports(src.node_id, src.name, dst.node_id, dst.name, detached)
            return
        if detached is not None:
            # a picked-up wire dropped on empty canvas is unplugged
            self.bridge.push(lambda: DisconnectCommand(self.document, detached))
            return
        # a wire dropped on empty canvas: quick-add a node that accepts it
        self._pending_wire = origin
        kind = "list of tensors" if origin.type.value == "tensors" else "tensor"
        hint = (
            f"Add a node that takes this {kind}"
            if not origin.is_input
            else f"Add a node that gives a {kind}"
        )
        self.open_search(pos, accept=accepting(origin.type, not origin.is_input), hint=hint)

    def _show_edge(self, edge: Edge | None) -> None:
        if edge is not None:
            item = self.graph_scene.edge_item(edge)
            if item is not None:
                item.setVisible(True)

    def _end_wire(self, keep_hidden: bool = False) -> None:
        wire = self._wire
        self._wire = None
        if wire is None:
            return
        self.graph_scene.removeItem(wire.item)
        if not keep_hidden:
            self._show_edge(wire.detached)
        QToolTip.hideText()
