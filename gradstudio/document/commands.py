"""Edits as commands: each ``redo``/``undo`` calls only document methods.

A UI wraps them in ``QUndoCommand``s; headless code pushes them on
``gradstudio.document.undo.UndoStack``.  Constructors check what they can up front and
raise ``EditError`` so a refused edit never lands on the stack.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from gradstudio.catalogue import NodeKind
from gradstudio.document.clipboard import ClipboardContent, parse_clipboard
from gradstudio.document.groups import Group
from gradstudio.document.layout import auto_layout
from gradstudio.document.model import Document
from gradstudio.document.undo import MacroCommand
from gradstudio.document.values import Edge, EditError, Node, check_setting
from gradstudio.function_args import args_for_forward


class _Base:
    text = ""

    def merge_with(self, other: object) -> bool:
        return False


class AddNodeCommand(_Base):
    def __init__(
        self,
        doc: Document,
        type_id: str,
        position: tuple[float, float] = (0.0, 0.0),
        params: Mapping[str, Any] | None = None,
        label: str | None = None,
    ) -> None:
        self.doc = doc
        self.node: Node = doc.new_node(type_id, position, params, label)
        self.node_id = self.node.id
        self.text = f"Add {self.node.type.title}"

    def redo(self) -> None:
        self.doc.add_node(self.node)

    def undo(self) -> None:
        self.doc.remove_node(self.node_id)


class RemoveNodesCommand(_Base):
    """Remove nodes with their edges; undo puts back the same ids, steps, slots and groups."""

    def __init__(self, doc: Document, node_ids: list[str]) -> None:
        self.doc = doc
        for node_id in node_ids:
            doc.node(node_id)
        self.node_ids = list(dict.fromkeys(node_ids))
        self.text = (
            "Remove node" if len(self.node_ids) == 1 else f"Remove {len(self.node_ids)} nodes"
        )
        self._nodes: list[tuple[int, Node]] = []
        self._edges: list[Edge] = []
        self._groups: dict[str, Group] = {}

    def redo(self) -> None:
        self._groups = dict(self.doc.groups)
        edges = {e for n in self.node_ids for e in self.doc.edges_of(n)}
        self._edges = sorted(edges, key=lambda e: (e.dst, e.dst_port, e.slot, e.src))
        self._nodes = sorted((self.doc.step_of(n), self.doc.node(n)) for n in self.node_ids)
        for edge in self._edges:
            self.doc.disconnect(edge)
        for _, node in reversed(self._nodes):
            self.doc.remove_node(node.id)

    def undo(self) -> None:
        for step, node in self._nodes:
            self.doc.add_node(node, step)
        for edge in self._edges:
            self.doc.connect(edge.src, edge.src_port, edge.dst, edge.dst_port, edge.slot)
        self.doc.set_groups(self._groups)


class ConnectCommand(_Base):
    """Connect two ports; replaces the edge an occupied single input had, and moves
    nodes later in the step order when the new edge needs that."""

    def __init__(self, doc: Document, src: str, src_port: str, dst: str, dst_port: str) -> None:
        problem = doc.can_connect(src, src_port, dst, dst_port)
        if problem:
            raise EditError(problem, dst)
        self.doc = doc
        self.args = (src, src_port, dst, dst_port)
        self.text = f"Connect {doc.node(src).label} → {doc.node(dst).label}"
        self.edge: Edge | None = None
        self._replaced: list[Edge] = []
        self._old_order: tuple[str, ...] = ()

    def redo(self) -> None:
        src, src_port, dst, dst_port = self.args
        self._old_order = self.doc.order
        if not self.doc.node(dst).type.input(dst_port).variadic:
            self._replaced = self.doc.inputs_of(dst, dst_port)
            for edge in self._replaced:
                self.doc.disconnect(edge)
        if self.doc.step_of(src) >= self.doc.step_of(dst):
            self.doc.set_order(self.doc.order_with_edge(src, dst))
        self.edge = self.doc.connect(src, src_port, dst, dst_port)

    def undo(self) -> None:
        assert self.edge is not None
        self.doc.disconnect(self.edge)
        self.doc.set_order(self._old_order)
        for edge in self._replaced:
            self.doc.connect(edge.src, edge.src_port, edge.dst, edge.dst_port, edge.slot)


class DisconnectCommand(_Base):
    def __init__(self, doc: Document, edge: Edge) -> None:
        if edge not in doc.edges():
            raise EditError("there is no such connection", edge.dst)
        self.doc = doc
        self.edge = edge
        self.text = "Disconnect"

    def redo(self) -> None:
        self.doc.disconnect(self.edge)

    def undo(self) -> None:
        e = self.edge
        self.doc.connect(e.src, e.src_port, e.dst, e.dst_port, e.slot)


class MoveNodesCommand(_Base):
    """Move nodes; successive moves of the same nodes merge (one undo per drag)."""

    def __init__(
        self, doc: Document, positions: Mapping[str, tuple[float, float]], text: str = "Move"
    ) -> None:
        self.doc = doc
        self.new = {n: (float(x), float(y)) for n, (x, y) in positions.items()}
        self.old = {n: doc.node(n).position for n in self.new}
        self.text = text

    def redo(self) -> None:
        for node_id, (x, y) in self.new.items():
            self.doc.move_node(node_id, x, y)

    def undo(self) -> None:
        for node_id, (x, y) in self.old.items():
            self.doc.move_node(node_id, x, y)

    def merge_with(self, other: object) -> bool:
        if (
            isinstance(other, MoveNodesCommand)
            and other.doc is self.doc
            and self.text == other.text
            and set(other.new) == set(self.new)
        ):
            self.new = other.new
            return True
        return False


class SetParamCommand(_Base):
    """Set one parameter; successive edits of the same parameter merge (typing).

    A custom Function's arguments follow its code: new code whose ``forward`` takes
    other parameters sets ``args`` in the same step, and the wires of ports that go
    are disconnected with it (undo brings them back)."""

    def __init__(self, doc: Document, node_id: str, name: str, value: Any) -> None:
        node = doc.node(node_id)
        try:
            spec = node.type.param(name)
            value = spec.check(value)
        except (KeyError, ValueError) as exc:
            raise EditError(f"node '{node.label}': {exc}", node_id) from None
        self.doc = doc
        self.node_id = node_id
        self.name = name
        self.old = node.params[name]
        self.new = value
        self.text = f"Set {name} of {node.label}"
        self.old_args = self.new_args = node.params.get("args")
        self.dropped: list[Edge] = []
        if node.type.ports is not None and node.type.has_param("args"):
            self._follow(node, name, value)
        if node.type.output_ports is not None:
            outputs = {p.name for p in node.type.for_params({**node.params, name: value}).outputs}
            self.dropped += [
                e for e in doc.edges_of(node.id) if e.src == node.id and e.src_port not in outputs
            ]

    def _follow(self, node: Node, name: str, value: Any) -> None:
        params = {**node.params, name: value}
        if name in ("source", "class_name"):
            self.new_args = args_for_forward(params["args"], params["source"], params["class_name"])
        elif name == "args":
            self.old_args = self.new_args = value
        kept = {p.name for p in node.type.for_params({**params, "args": self.new_args}).inputs}
        self.dropped = [
            e for e in self.doc.edges_of(node.id) if e.dst == node.id and e.dst_port not in kept
        ]

    def redo(self) -> None:
        for edge in self.dropped:
            self.doc.disconnect(edge)
        self.doc.set_param(self.node_id, self.name, self.new)
        if self.name != "args" and self.new_args != self.old_args:
            self.doc.set_param(self.node_id, "args", self.new_args)

    def undo(self) -> None:
        if self.name != "args" and self.new_args != self.old_args:
            self.doc.set_param(self.node_id, "args", self.old_args)
        self.doc.set_param(self.node_id, self.name, self.old)
        for e in self.dropped:
            self.doc.connect(e.src, e.src_port, e.dst, e.dst_port, e.slot)

    def merge_with(self, other: object) -> bool:
        if (
            isinstance(other, SetParamCommand)
            and other.doc is self.doc
            and (other.node_id, other.name) == (self.node_id, self.name)
            and not (self.dropped or other.dropped)
            and self.new_args == self.old_args
            and other.new_args == other.old_args
        ):
            self.new = other.new
            return True
        return False


class SetLabelCommand(_Base):
    def __init__(self, doc: Document, node_id: str, label: str) -> None:
        node = doc.node(node_id)
        other = doc.node_by_label(label)
        if other is not None and other.id != node_id:
            raise EditError(f"another node is already labelled {label!r}", node_id)
        if not label.strip():
            raise EditError("a label cannot be empty", node_id)
        self.doc = doc
        self.node_id = node_id
        self.old = node.label
        self.new = label
        self.text = f"Rename {node.label} to {label}"

    def redo(self) -> None:
        self.doc.set_label(self.node_id, self.new)

    def undo(self) -> None:
        self.doc.set_label(self.node_id, self.old)


class ReorderStepCommand(_Base):
    """Move one node to another step (only between its inputs and its users)."""

    def __init__(self, doc: Document, node_id: str, index: int) -> None:
        allowed = doc.allowed_steps(node_id)
        if index not in allowed:
            doc.move_step(node_id, index)  # raises the EditError that explains why
        self.doc = doc
        self.node_id = node_id
        self.index = index
        self.old: tuple[str, ...] = doc.order
        self.text = f"Move {doc.node(node_id).label} to step {index + 1}"

    def redo(self) -> None:
        self.old = self.doc.order
        self.doc.move_step(self.node_id, self.index)

    def undo(self) -> None:
        self.doc.set_order(self.old)


class SetOrderCommand(_Base):
    def __init__(self, doc: Document, order: list[str], text: str = "Reorder steps") -> None:
        self.doc = doc
        self.new = list(order)
        self.old = doc.order
        self.text = text

    def redo(self) -> None:
        self.old = self.doc.order
        self.doc.set_order(self.new)

    def undo(self) -> None:
        self.doc.set_order(self.old)


class SetSettingCommand(_Base):
    def __init__(self, doc: Document, name: str, value: Any) -> None:

        self.doc = doc
        self.name = name
        self.new = check_setting(name, value)
        self.old = doc.settings[name]
        self.text = f"Set {name} to {value}"

    def redo(self) -> None:
        self.doc.set_setting(self.name, self.new)

    def undo(self) -> None:
        self.doc.set_setting(self.name, self.old)


class PasteCommand(_Base):
    """Add clipboard content (nodes, internal edges, whole groups) with fresh ids and
    unique labels (group titles may repeat: they name no variable).

    The clipboard can hold anything any program put there, so pasted custom Function
    code makes the document untrusted (the studio shows its trust banner) unless the
    document already holds that very source: duplicating one's own Function is not
    foreign code.  Undo gives back the trust the paste took.
    """

    def __init__(
        self, doc: Document, text: str, offset: tuple[float, float] = (30.0, 30.0)
    ) -> None:
        self.doc = doc
        content: ClipboardContent = parse_clipboard(text)
        self.nodes: list[Node] = []
        ids: dict[str, str] = {}
        chosen: set[str] = set()
        for item in content.nodes:
            label = doc.unique_label(item.label, also_taken=chosen)
            chosen.add(label)
            node = doc.new_node(item.type_id, (item.x + offset[0], item.y + offset[1]), item.params)
            ids[item.id] = node.id
            self.nodes.append(Node(node.id, node.type_id, label, node.params, node.x, node.y))
        self.edges = [
            Edge(ids[e.src], e.src_port, ids[e.dst], e.dst_port, e.slot) for e in content.edges
        ]
        self.node_ids = [n.id for n in self.nodes]
        group_ids = {g.id: doc.new_group_id() for g in content.groups}
        self.groups = [
            replace(
                g,
                id=group_ids[g.id],
                members=frozenset(ids[m] for m in g.members),
                parent=None if g.parent is None else group_ids[g.parent],
            )
            for g in content.groups
        ]
        self.text = "Paste" if len(self.nodes) != 1 else f"Paste {self.nodes[0].label}"
        self.code = {
            n.params["source"] for n in self.nodes if n.type.kind is NodeKind.CUSTOM_FUNCTION
        }
        self._took_trust = False

    def redo(self) -> None:
        # before any node lands, so nothing that reacts to the new nodes runs their code
        self._took_trust = self.doc.trusted and not self.code <= self.doc.code_sources()
        if self._took_trust:
            self.doc.set_trusted(False)
        for node in self.nodes:
            self.doc.add_node(node)
        for e in self.edges:
            self.doc.connect(e.src, e.src_port, e.dst, e.dst_port, e.slot)
        if self.groups:
            self.doc.add_groups(self.groups)

    def undo(self) -> None:
        for group in reversed(self.groups):
            if group.id in self.doc.groups:
                self.doc.remove_group(group.id)
        for e in self.edges:
            self.doc.disconnect(e)
        for node in reversed(self.nodes):
            self.doc.remove_node(node.id)
        if self._took_trust:
            self.doc.set_trusted(True)


class AutoLayoutCommand(MoveNodesCommand):
    """Place nodes left to right by data flow (positions only); never merges with a drag.

    ``sizes`` are the cards' real ``(width, height)`` by node id, from a caller that draws
    them (see ``gradstudio.document.layout.auto_layout``).  Only the nodes that move are recorded,
    so a caller can skip pushing a layout that changes nothing (``moves_nothing``) and
    leave the undo history and the modified flag alone.
    """

    def __init__(
        self, doc: Document, sizes: Mapping[str, tuple[float, float]] | None = None
    ) -> None:
        positions = auto_layout(doc, sizes)
        moved = {n: p for n, p in positions.items() if doc.node(n).position != p}
        super().__init__(doc, moved, text="Auto-layout")

    @property
    def moves_nothing(self) -> bool:
        return not self.new

    def merge_with(self, other: object) -> bool:
        return False


class SequenceCommand(MacroCommand):
    """Several edits as one command, each built right before it runs.

    A later edit often needs an earlier one done (connect a node once it is added,
    then move its step), so the parts are factories: the first ``redo`` builds and
    runs them in order, undoing what it did if one is refused (``EditError``), and
    later redos replay the same commands, as a macro does.
    """

    def __init__(self, text: str, parts: list[Callable[[], Any]]) -> None:
        super().__init__(text)
        self._parts: list[Callable[[], Any]] | None = parts

    def redo(self) -> None:
        if self._parts is None:
            super().redo()
            return
        try:
            for make in self._parts:
                command = make()
                command.redo()
                self.commands.append(command)
        except Exception:
            self.undo()
            self.commands.clear()
            raise
        self._parts = None

    @property
    def added(self) -> list[str]:
        """The ids of the nodes this edit added (once done), in order."""
        return [c.node_id for c in self.commands if isinstance(c, AddNodeCommand)]
