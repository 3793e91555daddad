"""The document's values: nodes, edges, refused edits, problems and settings.

Plain immutable values, below the ``Document`` that holds them (``model``): the
commands, files, views and the importer make and read them without the document's
machinery.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from gradstudio.catalogue import NodeType, catalogue

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


def holds_code(node: Node) -> bool:
    """Whether the node holds Python code (a custom Function's source)."""
    return node.type.kind.value == "custom_function"


def default_label(node_type: NodeType) -> str:
    """A new node's label before it is made unique: its type's last name, if a name."""
    base = node_type.id.rsplit(".", 1)[-1].strip("_") or "node"
    return base if base.isidentifier() else "node"
