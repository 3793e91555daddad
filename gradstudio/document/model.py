"""The graph document: nodes, typed connections and the explicit execution order.

The document owns the truth (positions included) and announces every change as a
plain event.  A PyTorch program is a sequence, so every node has a step; the order
must agree with the data flow, and every mutator refuses an edit that would break
that (or make a cycle, or join ports of different types) with a message naming the
node.  Edits come from ``gradstudio.document.commands``; views only subscribe.
"""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, NamedTuple

import networkx as nx

from gradstudio.catalogue import Catalogue, NodeType, PortSpec, PortType, catalogue
from gradstudio.document.events import (
    DocumentEvent,
    DocumentReset,
    EdgeAdded,
    EdgeRemoved,
    GroupAdded,
    GroupChanged,
    GroupRemoved,
    LabelChanged,
    MetaChanged,
    NodeAdded,
    NodeMoved,
    NodeRemoved,
    Observable,
    OrderChanged,
    ParamChanged,
    SettingChanged,
    TrustChanged,
    Unsubscribe,
)
from gradstudio.document.groups import (
    Group,
    GroupError,
    check_fields,
    check_groups,
    children_of,
    deep_members,
    depths,
    without_group,
)

DEVICES = ("cpu", "cuda")
NODE_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]{0,63}$")
MAX_LABEL = 200


class EditError(Exception):
    """An edit the document refuses; ``node_id`` names the node it is about."""

    def __init__(self, message: str, node_id: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.node_id = node_id


class Edge(NamedTuple):
    """A connection from an output port to an input port (``slot`` orders variadic inputs).

    A named tuple, not a dataclass: a file can hold 100,000 edges, and a tuple is made
    and hashed (as the graph's edge key) several times faster.
    """

    src: str
    src_port: str
    dst: str
    dst_port: str
    slot: int = 0


@dataclass(frozen=True)
class Node:
    """One node, as an immutable value: the document replaces it on every change."""

    id: str
    type_id: str
    label: str
    params: Mapping[str, Any] = field(default_factory=dict)
    x: float = 0.0
    y: float = 0.0
    #: The type from the catalogue of the document that holds the node (set when it is
    #: added); a node made outside any document reads the studio's catalogue.
    node_type: NodeType | None = field(default=None, compare=False, repr=False)

    @property
    def type(self) -> NodeType:
        if self.node_type is not None:
            return self.node_type
        return catalogue().get(self.type_id).for_params(self.params)

    def param(self, name: str) -> Any:
        return self.params[name]

    @property
    def position(self) -> tuple[float, float]:
        return (self.x, self.y)


@dataclass(frozen=True)
class Problem:
    node_id: str | None
    message: str


SETTINGS_DEFAULTS: dict[str, Any] = {"device": "cpu", "seed": 0}


def check_setting(name: str, value: Any) -> Any:
    if name == "device":
        if value not in DEVICES:
            raise EditError(f"device must be one of {', '.join(DEVICES)}, not {value!r}")
        return value
    if name == "seed":
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**63:
            raise EditError(f"seed must be a non-negative integer, not {value!r}")
        return value
    raise EditError(f"unknown setting {name!r}")


class Document:
    """A GradStudio graph: the single source of truth that views draw."""

    def __init__(self, types: Catalogue | None = None, *, trusted: bool = False) -> None:
        """An empty document; its custom Function code may run only when ``trusted``.

        Untrusted is the default so that no path that builds a document from
        someone else's bytes (a file, the clipboard, a snippet) can run code by
        forgetting a step; the studio passes ``trusted=True`` only for the empty
        document the user creates and fills in themselves.
        """
        self.catalogue = types or catalogue()
        self._graph = nx.MultiDiGraph()
        self._nodes: dict[str, Node] = {}
        #: edges into each input port, by slot: connect checks one port in constant time
        self._inputs: dict[tuple[str, str], dict[int, Edge]] = {}
        self._code_nodes = 0
        self._labels: dict[str, str] = {}  # label -> node id (labels are unique)
        self._order: list[str] = []
        self._step: dict[str, int] = {}
        self._settings: dict[str, Any] = dict(SETTINGS_DEFAULTS)
        self._meta: dict[str, str] = {"title": "", "description": ""}
        self._trusted = trusted
        self._events: Observable[DocumentEvent] = Observable()
        self._counter = 0
        self._groups: dict[str, Group] = {}
        self._group_of: dict[str, str] = {}  # node id -> id of the group it is directly in
        self._group_counter = 0
        #: Bumped by every change that can alter evaluation results.
        self.revision = 0
        #: sha256 of the file this document was loaded from (trust is keyed on it).
        self.source_hash: str | None = None

    # ------------------------------------------------------------------ observing

    def subscribe(self, callback: Callable[[DocumentEvent], None]) -> Unsubscribe:
        return self._events.subscribe(callback)

    def _emit(self, event: DocumentEvent) -> None:
        if event.affects_evaluation:
            self.revision += 1
        self._events.emit(event)

    # -------------------------------------------------------------------- reading

    def __len__(self) -> int:
        return len(self._nodes)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._nodes

    def node(self, node_id: str) -> Node:
        try:
            return self._nodes[node_id]
        except KeyError:
            raise EditError(f"there is no node {node_id!r}", node_id) from None

    def nodes(self) -> list[Node]:
        """All nodes in step order."""
        return [self._nodes[i] for i in self._order]

    def node_by_label(self, label: str) -> Node | None:
        node_id = self._labels.get(label)
        return None if node_id is None else self._nodes[node_id]

    def edges(self) -> list[Edge]:
        return [key for _, _, key in self._graph.edges(keys=True)]

    def edges_of(self, node_id: str) -> list[Edge]:
        inbound = [k for _, _, k in self._graph.in_edges(node_id, keys=True)]
        outbound = [k for _, _, k in self._graph.out_edges(node_id, keys=True)]
        return inbound + outbound

    def inputs_of(self, node_id: str, port: str) -> list[Edge]:
        """Edges into one input port, in slot order."""
        slots = self._inputs.get((node_id, port), {})
        return [slots[s] for s in sorted(slots)]

    def predecessors(self, node_id: str) -> set[str]:
        return set(self._graph.predecessors(node_id))

    def successors(self, node_id: str) -> set[str]:
        return set(self._graph.successors(node_id))

    @property
    def graph(self) -> nx.MultiDiGraph:
        """A read-only view of the data-flow graph (nodes are ids, edge keys are Edges)."""
        return self._graph.copy(as_view=True)

    @property
    def order(self) -> tuple[str, ...]:
        return tuple(self._order)

    def step_of(self, node_id: str) -> int:
        self.node(node_id)
        return self._step[node_id]

    @property
    def settings(self) -> Mapping[str, Any]:
        return MappingProxyType(self._settings)

    @property
    def meta(self) -> Mapping[str, str]:
        return MappingProxyType(self._meta)

    @property
    def trusted(self) -> bool:
        return self._trusted

    def has_code(self) -> bool:
        """Whether any node holds Python code (custom Function nodes)."""
        return self._code_nodes > 0

    def code_sources(self) -> set[str]:
        """The Python source of every custom Function node."""
        return {n.params["source"] for n in self._nodes.values() if _holds_code(n)}

    def tensor_nodes(self) -> list[Node]:
        return [n for n in self.nodes() if n.type.produces_tensors]

    def allowed_steps(self, node_id: str) -> range:
        """The step indices ``move_step`` accepts for this node (between its inputs and users)."""
        step = self.step_of(node_id)

        def position(other: str) -> int:
            s = self._step[other]
            return s - 1 if s > step else s

        lo = max((position(p) + 1 for p in self._graph.predecessors(node_id)), default=0)
        hi = min(
            (position(s) for s in self._graph.successors(node_id)),
            default=len(self._order) - 1,
        )
        return range(lo, hi + 1)

    def can_connect(self, src: str, src_port: str, dst: str, dst_port: str) -> str | None:
        """Why this connection is impossible, or None.

        An occupied single input and a step order that needs repair are not reasons:
        ``ConnectCommand`` replaces the old edge and repairs the order.
        """
        try:
            self._check_edge(Edge(src, src_port, dst, dst_port), check_order=False)
        except EditError as exc:
            return exc.message
        return None

    def validate(self) -> list[Problem]:
        """Structural problems: cycles, port types, order against data flow, bad params."""
        problems: list[Problem] = []
        for edge in self.edges():
            try:
                self._check_ports(edge)
            except EditError as exc:
                problems.append(Problem(exc.node_id, exc.message))
            if self._step[edge.src] >= self._step[edge.dst]:
                problems.append(Problem(edge.dst, self._order_message(edge)))
        if not nx.is_directed_acyclic_graph(self._graph):
            cycle = nx.find_cycle(self._graph)
            problems.append(Problem(cycle[0][0], f"{self._name(cycle[0][0])} is part of a cycle"))
        for node in self._nodes.values():
            for spec in node.type.params:
                try:
                    spec.check(node.params.get(spec.name))
                except ValueError as exc:
                    problems.append(Problem(node.id, f"{self._name(node.id)}: {exc}"))
        return problems

    def unique_label(self, base: str, also_taken: Iterable[str] = ()) -> str:
        """``base`` if no node has it, else ``base_2``, ``base_3``, ..."""
        extra = set(also_taken)

        def taken(label: str) -> bool:
            return label in self._labels or label in extra

        if not taken(base):
            return base
        stem = re.sub(r"_\d+$", "", base) or base
        k = 2
        while taken(f"{stem}_{k}"):
            k += 1
        return f"{stem}_{k}"

    def new_id(self) -> str:
        while True:
            self._counter += 1
            candidate = f"n{self._counter}"
            if candidate not in self._nodes:
                return candidate

    def new_node(
        self,
        type_id: str,
        position: tuple[float, float] = (0.0, 0.0),
        params: Mapping[str, Any] | None = None,
        label: str | None = None,
        node_id: str | None = None,
    ) -> Node:
        """A node of ``type_id`` with default params (not yet added to the document)."""
        try:
            node_type = self.catalogue.get(type_id)
        except KeyError:
            raise EditError(f"unknown node type {type_id!r}") from None
        values = node_type.defaults()
        for name, value in (params or {}).items():
            values[name] = value
        base = label or _default_label(node_type)
        node = Node(
            id=node_id or self.new_id(),
            type_id=node_type.id,
            label=self.unique_label(base),
            params={},
            x=float(position[0]),
            y=float(position[1]),
            node_type=node_type,
        )
        checked = self._checked_params(node, values)
        return replace(node, params=checked, node_type=node_type.for_params(checked))

    # ---------------------------------------------------------------------- groups

    @property
    def groups(self) -> Mapping[str, Group]:
        """Every group by id, in the order they were added (a read-only view)."""
        return MappingProxyType(self._groups)

    def group(self, group_id: str) -> Group:
        try:
            return self._groups[group_id]
        except KeyError:
            raise EditError(f"there is no group {group_id!r}") from None

    def group_of(self, node_id: str) -> Group | None:
        """The innermost group holding the node, or None."""
        group_id = self._group_of.get(node_id)
        return None if group_id is None else self._groups[group_id]

    def group_children(self, group_id: str) -> list[str]:
        """The ids of the groups directly inside ``group_id``."""
        self.group(group_id)
        return children_of(self._groups, group_id)

    def group_members(self, group_id: str) -> frozenset[str]:
        """Every node inside the group, those of nested groups included."""
        self.group(group_id)
        return deep_members(self._groups, group_id)

    def new_group_id(self) -> str:
        while True:
            self._group_counter += 1
            candidate = f"g{self._group_counter}"
            if candidate not in self._groups:
                return candidate

    def add_group(self, group: Group) -> None:
        self.add_groups([group])

    def add_groups(self, groups: Iterable[Group]) -> None:
        """Add several groups at once: a parent may come after its children."""
        new = dict(self._groups)
        for group in groups:
            if group.id in new:
                raise EditError(f"a group with id {group.id!r} already exists")
            new[group.id] = group
        self.set_groups(new)

    def remove_group(self, group_id: str) -> None:
        """Drop the frame; its nodes stay, and the groups inside it move to its parent."""
        self.group(group_id)
        self.set_groups(without_group(self._groups, group_id))

    def update_group(self, group_id: str, **changes: Any) -> None:
        """Change fields of a group (``title``, ``members``, ``color``, ``collapsed``,
        ``kind``, ``parent``, ``meta``); the whole result is checked first."""
        old = self.group(group_id)
        if "id" in changes and changes["id"] != group_id:
            raise EditError("a group's id cannot change")
        try:
            new = replace(old, **changes)
        except (TypeError, GroupError) as exc:
            raise EditError(f"group {old.title!r}: {exc}") from None
        self.set_groups({**self._groups, group_id: new})

    def set_groups(self, groups: Mapping[str, Group]) -> None:
        """Replace every group (checked as a whole), announcing only what differs."""
        try:
            new = {gid: check_fields(g) for gid, g in groups.items()}
            check_groups(new, self._nodes)
        except GroupError as exc:
            raise EditError(str(exc)) from None
        self._apply_groups(new)

    def _apply_groups(self, new: dict[str, Group]) -> None:
        old = self._groups
        self._groups = new
        self._group_of = {m: gid for gid, g in new.items() for m in g.members}
        for gid in [g for g in old if g not in new]:
            self._emit(GroupRemoved(gid))
        level = depths(new)
        for gid in sorted((g for g in new if g not in old), key=level.__getitem__):
            self._emit(GroupAdded(gid))  # parents first, then in the order given
        for gid, group in new.items():
            before = old.get(gid)
            if before is not None and before is not group and before != group:
                self._emit(GroupChanged(gid, before, group))

    def _leave_group(self, node_id: str) -> None:
        """Take a removed node out of its group; a group left empty disappears."""
        group_id = self._group_of.pop(node_id, None)
        if group_id is None:
            return
        old = self._groups[group_id]
        self._groups[group_id] = replace(old, members=old.members - {node_id})
        self._emit(GroupChanged(group_id, old, self._groups[group_id]))
        current: str | None = group_id
        while current is not None and not self._groups[current].members:
            if any(g.parent == current for g in self._groups.values()):
                break
            parent = self._groups.pop(current).parent
            self._emit(GroupRemoved(current))
            current = parent

    # ------------------------------------------------------------------- mutators

    def add_node(self, node: Node, step: int | None = None) -> None:
        if node.id in self._nodes:
            raise EditError(f"a node with id {node.id!r} already exists", node.id)
        if not NODE_ID.match(node.id):
            raise EditError(f"{node.id!r} is not a valid node id", node.id)
        try:
            node_type = self.catalogue.get(node.type_id)
        except KeyError:
            raise EditError(
                f"node {node.id!r} has unknown type {node.type_id!r}", node.id
            ) from None
        self._check_label(node.id, node.label)
        self._check_position(node.id, node.x, node.y)
        params = self._checked_params(node, node.params)
        node = replace(
            node, type_id=node_type.id, node_type=node_type.for_params(params), params=params
        )
        index = len(self._order) if step is None else step
        if not 0 <= index <= len(self._order):
            raise EditError(f"step {step} is outside 0..{len(self._order)}", node.id)
        self._nodes[node.id] = node
        self._labels[node.label] = node.id
        self._code_nodes += _holds_code(node)
        self._graph.add_node(node.id)
        self._order.insert(index, node.id)
        if index == len(self._order) - 1:
            self._step[node.id] = index
        else:
            self._reindex()
        self._emit(NodeAdded(node.id))

    def remove_node(self, node_id: str) -> None:
        self.node(node_id)
        for edge in self.edges_of(node_id):
            self.disconnect(edge)
        del self._labels[self._nodes[node_id].label]
        self._code_nodes -= _holds_code(self._nodes[node_id])
        del self._nodes[node_id]
        self._graph.remove_node(node_id)
        self._order.remove(node_id)
        self._reindex()
        self._emit(NodeRemoved(node_id))
        self._leave_group(node_id)

    def connect(
        self, src: str, src_port: str, dst: str, dst_port: str, slot: int | None = None
    ) -> Edge:
        if slot is None:
            slot = max(self._inputs.get((dst, dst_port), ()), default=-1) + 1
        edge = Edge(src, src_port, dst, dst_port, slot)
        self._check_edge(edge, check_order=True)
        self._graph.add_edge(src, dst, key=edge)
        self._inputs.setdefault((dst, dst_port), {})[slot] = edge
        self._emit(EdgeAdded(edge))
        return edge

    def disconnect(self, edge: Edge) -> None:
        if not self._graph.has_edge(edge.src, edge.dst, key=edge):
            raise EditError("there is no such connection", edge.dst)
        self._graph.remove_edge(edge.src, edge.dst, key=edge)
        slots = self._inputs[(edge.dst, edge.dst_port)]
        del slots[edge.slot]
        if not slots:
            del self._inputs[(edge.dst, edge.dst_port)]
        self._emit(EdgeRemoved(edge))

    def move_node(self, node_id: str, x: float, y: float) -> None:
        node = self.node(node_id)
        self._check_position(node_id, x, y)
        self._nodes[node_id] = replace(node, x=float(x), y=float(y))
        self._emit(NodeMoved(node_id, float(x), float(y)))

    def set_param(self, node_id: str, name: str, value: Any) -> None:
        node = self.node(node_id)
        if not node.type.has_param(name):
            raise EditError(f"{self._name(node_id)} has no parameter {name!r}", node_id)
        old = node.params[name]
        values = dict(node.params)
        values[name] = value
        checked = self._checked_params(node, values)
        node_type = self.catalogue.get(node.type_id).for_params(checked)
        if node_type.inputs != node.type.inputs:
            ports = {p.name for p in node_type.inputs}
            for edge in self.edges_of(node_id):
                if edge.dst == node_id and edge.dst_port not in ports:
                    raise EditError(
                        f"{self._name(node_id)}: input {edge.dst_port!r} is connected; "
                        "disconnect it before removing its argument",
                        node_id,
                    )
        if node_type.outputs != node.type.outputs:
            outputs = {p.name for p in node_type.outputs}
            for edge in self.edges_of(node_id):
                if edge.src == node_id and edge.src_port not in outputs:
                    raise EditError(
                        f"{self._name(node_id)}: output {edge.src_port!r} is connected; "
                        "disconnect it before removing that output",
                        node_id,
                    )
        self._nodes[node_id] = replace(node, params=checked, node_type=node_type)
        self._emit(ParamChanged(node_id, name, old, checked[name]))

    def set_label(self, node_id: str, label: str) -> None:
        node = self.node(node_id)
        self._check_label(node_id, label)
        del self._labels[node.label]
        self._labels[label] = node_id
        self._nodes[node_id] = replace(node, label=label)
        self._emit(LabelChanged(node_id, node.label, label))

    def set_order(self, order: Iterable[str]) -> None:
        new = list(order)
        if sorted(new) != sorted(self._order) or len(set(new)) != len(new):
            raise EditError("the new order must list every node exactly once")
        steps = {n: i for i, n in enumerate(new)}
        for edge in self.edges():
            if steps[edge.src] >= steps[edge.dst]:
                raise EditError(self._order_message(edge, steps), edge.dst)
        old = tuple(self._order)
        self._order = new
        self._reindex()
        if old != tuple(new):
            self._emit(OrderChanged(old, tuple(new)))

    def move_step(self, node_id: str, index: int) -> None:
        allowed = self.allowed_steps(node_id)
        if index not in allowed:
            raise EditError(
                f"{self._name(node_id)} can only run between steps "
                f"{allowed.start + 1} and {allowed.stop} (after its inputs, before its users)",
                node_id,
            )
        order = [n for n in self._order if n != node_id]
        order.insert(index, node_id)
        self.set_order(order)

    def set_setting(self, name: str, value: Any) -> None:
        value = check_setting(name, value)
        old = self._settings[name]
        if old != value:
            self._settings[name] = value
            self._emit(SettingChanged(name, old, value))

    def set_meta(self, name: str, value: str) -> None:
        if name not in self._meta or not isinstance(value, str):
            raise EditError(f"unknown document field {name!r} (or not a text)")
        self._meta[name] = value
        self._emit(MetaChanged(name))

    def set_trusted(self, trusted: bool) -> None:
        if trusted != self._trusted:
            self._trusted = trusted
            self._emit(TrustChanged(trusted))

    def reset(self, other: Document) -> None:
        """Take over everything ``other`` holds (used to open a file into a window)."""
        self.catalogue = other.catalogue
        self._graph = other._graph.copy()
        self._nodes = dict(other._nodes)
        self._inputs = {port: dict(slots) for port, slots in other._inputs.items()}
        self._code_nodes = other._code_nodes
        self._labels = dict(other._labels)
        self._order = list(other._order)
        self._settings = dict(other._settings)
        self._meta = dict(other._meta)
        self._trusted = other._trusted
        self._counter = other._counter
        self._groups = dict(other._groups)
        self._group_of = dict(other._group_of)
        self._group_counter = other._group_counter
        self.source_hash = other.source_hash
        self._reindex()
        self._emit(DocumentReset())

    # -------------------------------------------------------------------- helpers

    def order_with_edge(self, src: str, dst: str) -> list[str]:
        """The current order, changed as little as possible so ``src`` runs before ``dst``.

        A stable topological sort of the data flow plus the new edge: every node keeps
        its place unless the new edge forces it later.
        """
        graph = nx.DiGraph(self._graph)
        graph.add_edge(src, dst)
        indegree = {n: graph.in_degree(n) for n in graph}
        ready = [(self._step[n], n) for n, d in indegree.items() if d == 0]
        heapq.heapify(ready)
        order: list[str] = []
        while ready:
            _, n = heapq.heappop(ready)
            order.append(n)
            for succ in graph.successors(n):
                indegree[succ] -= 1
                if indegree[succ] == 0:
                    heapq.heappush(ready, (self._step[succ], succ))
        if len(order) != len(self._order):
            raise EditError(f"connecting would make a cycle through {self._name(dst)}", dst)
        return order

    def _reindex(self) -> None:
        self._step = {n: i for i, n in enumerate(self._order)}

    def _name(self, node_id: str) -> str:
        node = self._nodes.get(node_id)
        if node is None:
            return f"node {node_id!r}"
        return f"node '{node.label}'"

    def _order_message(self, edge: Edge, steps: Mapping[str, int] | None = None) -> str:
        steps = steps or self._step
        return (
            f"{self._name(edge.dst)} (step {steps[edge.dst] + 1}) uses {self._name(edge.src)} "
            f"(step {steps[edge.src] + 1}) before it has run: the order contradicts the data flow"
        )

    def _check_label(self, node_id: str, label: str) -> None:
        if not isinstance(label, str) or not label.strip() or len(label) > MAX_LABEL:
            raise EditError(
                f"a label is a non-empty text of at most {MAX_LABEL} characters", node_id
            )
        if self._labels.get(label, node_id) != node_id:
            raise EditError(f"another node is already labelled {label!r}", node_id)

    def _check_position(self, node_id: str, x: float, y: float) -> None:
        for v in (x, y):
            if not isinstance(v, int | float) or isinstance(v, bool) or not math.isfinite(v):
                raise EditError(f"position {x!r}, {y!r} is not a pair of finite numbers", node_id)

    def _checked_params(self, node: Node, values: Mapping[str, Any]) -> Mapping[str, Any]:
        node_type = self.catalogue.get(node.type_id)
        known = {p.name for p in node_type.params}
        unknown = set(values) - known
        if unknown:
            raise EditError(
                f"node '{node.label}' ({node_type.id}) has no parameter {sorted(unknown)[0]!r}",
                node.id,
            )
        checked: dict[str, Any] = {}
        for spec in node_type.params:
            try:
                checked[spec.name] = spec.check(values.get(spec.name, spec.default))
            except ValueError as exc:
                raise EditError(
                    f"node '{node.label}', parameter {spec.name!r}: {exc}", node.id
                ) from None
        return MappingProxyType(checked)

    def _check_ports(self, edge: Edge) -> PortSpec:
        """Check both ends exist and their ports match; returns the input port."""
        for end in (edge.src, edge.dst):
            if end not in self._nodes:
                raise EditError(f"there is no node {end!r}", end)
        src_type = self._nodes[edge.src].type
        dst_type = self._nodes[edge.dst].type
        try:
            out = src_type.output(edge.src_port)
        except KeyError:
            raise EditError(
                f"{self._name(edge.src)} has no output {edge.src_port!r}", edge.src
            ) from None
        try:
            inp = dst_type.input(edge.dst_port)
        except KeyError:
            raise EditError(
                f"{self._name(edge.dst)} has no input {edge.dst_port!r}", edge.dst
            ) from None
        if out.type != inp.type:
            what = {PortType.TENSOR: "a tensor", PortType.TENSORS: "a list of tensors"}
            raise EditError(
                f"{self._name(edge.dst)}: input {edge.dst_port!r} takes {what[inp.type]}, "
                f"but {self._name(edge.src)}.{edge.src_port} gives {what[out.type]}",
                edge.dst,
            )
        if not isinstance(edge.slot, int) or isinstance(edge.slot, bool) or edge.slot < 0:
            raise EditError(f"slot {edge.slot!r} is not a non-negative integer", edge.dst)
        return inp

    def _check_edge(self, edge: Edge, *, check_order: bool) -> None:
        """Every check in constant time but the cycle search, which only an edge
        running backwards in the order needs: a file of 100,000 edges loads linearly."""
        inp = self._check_ports(edge)
        if edge.src == edge.dst:
            raise EditError(f"{self._name(edge.dst)} cannot use its own output", edge.dst)
        forward = self._step[edge.src] < self._step[edge.dst]
        # every edge runs forward in the order, so a forward edge cannot close a cycle
        if not forward and nx.has_path(self._graph, edge.dst, edge.src):
            raise EditError(
                f"connecting would make a cycle through {self._name(edge.dst)}", edge.dst
            )
        if not check_order:
            return
        existing = self._inputs.get((edge.dst, edge.dst_port), {})
        if not inp.variadic and existing:
            raise EditError(
                f"{self._name(edge.dst)}: input {edge.dst_port!r} is already connected", edge.dst
            )
        if edge.slot in existing:
            raise EditError(
                f"{self._name(edge.dst)}: slot {edge.slot} of {edge.dst_port!r} is taken", edge.dst
            )
        if self._step[edge.src] >= self._step[edge.dst]:
            raise EditError(self._order_message(edge), edge.dst)


def _holds_code(node: Node) -> bool:
    return node.type.kind.value == "custom_function"


def _default_label(node_type: NodeType) -> str:
    base = node_type.id.rsplit(".", 1)[-1].strip("_") or "node"
    return base if base.isidentifier() else "node"
