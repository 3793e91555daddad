"""Copy/paste of a node group as JSON text (what goes on the system clipboard).

The text uses the file format's node and edge shapes, so a selection copied from one
document pastes into another; only edges inside the selection travel with it, and
only the groups whose every node is copied (a group copied whole stays a group).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gradstudio.document.groups import (
    Group,
    GroupError,
    check_fields,
    check_groups,
    group_from_json,
    group_json,
    whole_groups,
)
from gradstudio.document.values import Edge, EditError

if TYPE_CHECKING:
    from gradstudio.document.model import Document

CLIPBOARD_FORMAT = "gradstudio-clipboard"


@dataclass(frozen=True)
class ClipboardNode:
    id: str
    type_id: str
    label: str
    params: dict[str, Any]
    x: float
    y: float


@dataclass(frozen=True)
class ClipboardContent:
    nodes: list[ClipboardNode]  # in step order
    edges: list[Edge]
    groups: list[Group] = field(default_factory=list)  # ids as copied; parents first


def copy_nodes(doc: Document, node_ids: list[str]) -> str:
    """The clipboard text for these nodes (in step order) and the edges among them."""
    chosen = set(node_ids)
    nodes = [n for n in doc.nodes() if n.id in chosen]
    edges = [e for e in doc.edges() if e.src in chosen and e.dst in chosen]
    inside = whole_groups(doc.groups, chosen)
    whole = {gid: g for gid, g in doc.groups.items() if gid in inside}
    return json.dumps(
        {
            "format": CLIPBOARD_FORMAT,
            "nodes": [
                {
                    "id": n.id,
                    "type": n.type_id,
                    "label": n.label,
                    "params": dict(n.params),
                    "position": [n.x, n.y],
                }
                for n in nodes
            ],
            "edges": [
                {"from": [e.src, e.src_port], "to": [e.dst, e.dst_port], "slot": e.slot}
                for e in edges
            ],
            "groups": [
                group_json(g, g.parent if g.parent in whole else None) for g in whole.values()
            ],
        }
    )


def parse_clipboard(text: str) -> ClipboardContent:
    """Read clipboard text; anything else raises ``EditError`` ("nothing to paste")."""
    try:
        data = json.loads(text)
        if data.get("format") != CLIPBOARD_FORMAT:
            raise ValueError
        # JSON's escapes can carry a lone surrogate, which no file could hold
        json.dumps(data, ensure_ascii=False).encode("utf-8")
        nodes = [
            ClipboardNode(
                str(n["id"]),
                str(n["type"]),
                str(n["label"]),
                dict(n["params"]),
                float(n["position"][0]),
                float(n["position"][1]),
            )
            for n in data["nodes"]
        ]
        ids = {n.id for n in nodes}
        edges = [
            Edge(
                str(e["from"][0]),
                str(e["from"][1]),
                str(e["to"][0]),
                str(e["to"][1]),
                int(e.get("slot", 0)),
            )
            for e in data["edges"]
        ]
        groups = [group_from_json(g) for g in data.get("groups", [])]
    except UnicodeEncodeError:
        raise EditError("the clipboard's text is not valid Unicode (a lone surrogate)") from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError):
        raise EditError("the clipboard holds no GradStudio nodes") from None
    if any(e.src not in ids or e.dst not in ids for e in edges):
        raise EditError("the clipboard's connections refer to nodes it does not hold")
    try:
        by_id = {g.id: check_fields(g) for g in groups}
        if len(by_id) != len(groups):
            raise GroupError("two groups have the same id")
        check_groups(by_id, ids)
    except (GroupError, TypeError) as exc:
        raise EditError(f"the clipboard's groups are damaged: {exc}") from None
    return ClipboardContent(nodes, edges, list(by_id.values()))
