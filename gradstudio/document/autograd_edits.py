"""The autograd edits the studio offers on a tensor, as commands on the document.

``retain_grad()`` on a node, ``.backward()`` from a node, and zeroing every leaf's
``.grad`` each add or remove nodes; the widgets that offer them (the inspector's
toggle, the Run menu) only pick the node and push the command.  Each edit is one
``SequenceCommand``: one undo step, checked before it lands on the stack.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from gradstudio.catalogue import PortType
from gradstudio.document.commands import (
    AddNodeCommand,
    ConnectCommand,
    RemoveNodesCommand,
    ReorderStepCommand,
    SequenceCommand,
)
from gradstudio.document.layout import free_spot, node_card_size
from gradstudio.document.model import Document
from gradstudio.document.values import EditError, Node
from gradstudio.text import shape_text

if TYPE_CHECKING:
    from gradstudio.evaluation.facts import TensorFacts

RETAIN_GRAD = "Tensor.retain_grad"
BACKWARD = "Tensor.backward"
ZERO_GRAD = "gradstudio.zero_grad"
#: Room between a card and the node an edit adds beside it.
GAP = 70.0

FactsOf = Callable[[str, str], "TensorFacts | None"]


def _tensor_port(node: Node) -> str | None:
    """The node's first single-tensor output (what ``.backward()`` or ``retain_grad`` acts on)."""
    return next((p.name for p in node.type.outputs if p.type is PortType.TENSOR), None)


def retain_grad_nodes(doc: Document, node_id: str) -> list[str]:
    """The ``retain_grad()`` steps applied to ``node_id``'s output."""
    return [
        e.dst
        for e in doc.edges_of(node_id)
        if e.src == node_id and doc.node(e.dst).type_id == RETAIN_GRAD
    ]


def retain_grad(doc: Document, node_id: str, on: bool) -> SequenceCommand | RemoveNodesCommand:
    """Call ``retain_grad()`` on the node's tensor right after its step, or stop calling it.

    ``retain_grad`` is a step of its own in PyTorch (it must run before backward and
    after the tensor exists), hence a node placed right after this one.
    """
    node = doc.node(node_id)
    existing = retain_grad_nodes(doc, node_id)
    if not on:
        if not existing:
            raise EditError(f"{node.label} does not call retain_grad()")
        return RemoveNodesCommand(doc, existing)
    if existing:
        raise EditError(f"{node.label} already calls retain_grad()")
    port = _tensor_port(node)
    if port is None:
        raise EditError(f"{node.label} has no tensor output to retain the gradient of")
    spot = free_spot(doc, doc.catalogue.get(RETAIN_GRAD), node.x + 30.0, node.y + 110.0)
    add = AddNodeCommand(doc, RETAIN_GRAD, spot)
    return SequenceCommand(
        f"retain_grad on {node.label}",
        [
            lambda: add,
            lambda: ConnectCommand(doc, node_id, port, add.node_id, "input"),
            lambda: ReorderStepCommand(doc, add.node_id, doc.step_of(node_id) + 1),
        ],
    )


def backward_from(doc: Document, node_id: str, facts_of: FactsOf | None = None) -> SequenceCommand:
    """Add ``.backward()`` on the node's tensor.

    ``facts_of(node_id, port)`` gives the tensor's evaluated facts, when known: a
    non-scalar is refused with PyTorch's reason before anything is added.
    """
    node = doc.node(node_id)
    port = _tensor_port(node)
    if port is None:
        raise EditError(f"{node.label} has no tensor output")
    facts = facts_of(node_id, port) if facts_of is not None else None
    if facts is not None and facts.array.size != 1:
        raise EditError(
            f"backward() needs a scalar, but {node.label} has shape {shape_text(facts.shape)}: "
            "add a sum or mean first, or pass a gradient"
        )
    width, _ = node_card_size(node)
    spot = free_spot(doc, doc.catalogue.get(BACKWARD), node.x + width + GAP, node.y)
    add = AddNodeCommand(doc, BACKWARD, spot)
    return SequenceCommand(
        f"Backward from {node.label}",
        [lambda: add, lambda: ConnectCommand(doc, node_id, port, add.node_id, "input")],
    )


def grad_leaves(doc: Document, facts_of: FactsOf | None = None) -> list[tuple[str, str]]:
    """Every tensor output that is a leaf requiring grad: by its facts when evaluated,
    else by the node's ``requires_grad`` parameter."""
    leaves = []
    for node in doc.nodes():
        for port in node.type.outputs:
            if port.type is not PortType.TENSOR:
                continue
            facts = facts_of(node.id, port.name) if facts_of is not None else None
            if facts is not None:
                if facts.is_leaf and facts.requires_grad:
                    leaves.append((node.id, port.name))
            elif node.params.get("requires_grad") is True:
                leaves.append((node.id, port.name))
    return leaves


def _connect_to(doc: Document, add: AddNodeCommand, node_id: str, port: str) -> ConnectCommand:
    return ConnectCommand(doc, node_id, port, add.node_id, "tensors")


def zero_grads(doc: Document, leaves: Iterable[tuple[str, str]]) -> SequenceCommand:
    """Add one "zero grads" step fed by every given leaf (placed right of the graph)."""
    leaves = list(leaves)
    if not leaves:
        raise EditError("No leaf tensor requires grad: nothing to zero")
    nodes = doc.nodes()
    right = max(n.x + node_card_size(n)[0] for n in nodes) + GAP
    top = min(n.y for n in nodes)
    add = AddNodeCommand(doc, ZERO_GRAD, free_spot(doc, doc.catalogue.get(ZERO_GRAD), right, top))
    connects: list[Callable[[], object]] = [
        functools.partial(_connect_to, doc, add, node_id, port) for node_id, port in leaves
    ]
    return SequenceCommand("Zero grads", [lambda: add, *connects])
