"""Groups: named, coloured frames around nodes, that collapse to one card.

A group is presentation only: it never changes what the graph computes, so its
events do not make evaluation results stale.  The editor makes ``"user"`` groups
(Ctrl+G); the program importer makes ``"module"`` groups (one per ``nn.Module``
call, ``meta = {"class": "Linear", "path": "model.fc1"}``) and ``"loop"`` groups
(``meta = {"iterations": "297"}``), and for a notebook ``"cell"`` groups (``meta =
{"cell": "3"}``, titled with the cell's first comment).

The rules, which ``check_groups`` enforces for the document, the file loader and
the clipboard alike:

- ``members`` are the ids of the nodes *directly* in the group; a node is a direct
  member of at most one group, so ``Document.group_of(node)`` is the innermost
  group that holds it, and frames never overlap sideways;
- ``parent`` nests a group in another (a module frame inside a loop iteration);
  the parent must exist and parents never form a cycle; the nodes of a group's
  children are inside it too (``deep_members``);
- a group holds something: at least one member or one child group (a group that
  loses its last node, and then its last child, disappears);
- groups nest at most ``MAX_DEPTH`` deep;
- the title is one line of 1..200 printable characters, the colour ``None`` or
  ``#rrggbb`` (stored lower-case), ``meta`` a small text-to-text mapping.

API (for views and the importer), on ``gradstudio.document.model.Document``:
``doc.groups`` (read-only id -> Group), ``doc.group(id)``, ``doc.group_of(node_id)``,
``doc.group_children(id)``, ``doc.group_members(id)`` (deep), ``doc.new_group_id()``,
``doc.add_group(group)``, ``doc.add_groups(groups)`` (a batch, parents in any order),
``doc.remove_group(id)`` (members stay; child groups move up to its parent),
``doc.update_group(id, **changes)``, ``doc.set_groups(mapping)`` (replace all: what
undo uses).  Events: ``GroupAdded(group_id)``, ``GroupRemoved(group_id)``,
``GroupChanged(group_id, old, new)`` in ``gradstudio.document.events``.  Commands:
``gradstudio.document.group_commands``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

GROUP_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]{0,63}$")
COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")
KINDS = ("user", "module", "loop", "cell")
MAX_TITLE = 200
MAX_META_ITEMS = 32
MAX_META_KEY = 64
MAX_META_VALUE = 1000
#: Groups nest at most this deep (a module in a module in a loop needs a handful): the
#: editor walks nesting chains, and a hostile file must not make that quadratic.
MAX_DEPTH = 64


class GroupError(ValueError):
    """A group the rules refuse; the message names the group and says why."""


@dataclass(frozen=True)
class Group:
    """One group, as an immutable value: the document replaces it on every change."""

    id: str
    title: str
    members: frozenset[str] = frozenset()
    color: str | None = None
    collapsed: bool = False
    kind: str = "user"
    parent: str | None = None
    meta: Mapping[str, str] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        # any iterable of ids and any mapping come in; what is kept cannot change
        if not isinstance(self.members, frozenset):
            object.__setattr__(self, "members", frozenset(_iterable(self.members, self.id)))
        if not isinstance(self.meta, MappingProxyType):
            meta = dict(self.meta) if isinstance(self.meta, Mapping) else self.meta
            object.__setattr__(
                self, "meta", MappingProxyType(meta) if isinstance(meta, dict) else meta
            )

    @property
    def class_name(self) -> str:
        """The module's class for a module group (``"Linear"``), else ``""``."""
        return self.meta.get("class", "")

    @property
    def subtitle(self) -> str:
        """What a collapsed card says under the title: the kind, and the class or count."""
        if self.kind == "module":
            return f"module {self.class_name}".strip()
        if self.kind == "loop" and "iterations" in self.meta:
            return f"loop ×{self.meta['iterations']}"
        if self.kind == "cell":
            return "notebook cell"
        return self.kind if self.kind != "user" else "group"


def _iterable(value: object, group_id: str) -> Iterable[str]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise GroupError(f"group {group_id!r}: members must be a list of node ids")
    return value


def _name(group: Group) -> str:
    return f"group {group.title!r}" if isinstance(group.title, str) else f"group {group.id!r}"


def group_json(group: Group, parent: str | None) -> dict[str, Any]:
    """A group in the shape the file format and the clipboard share."""
    out: dict[str, Any] = {
        "id": group.id,
        "title": group.title,
        "members": sorted(group.members),
        "kind": group.kind,
        "collapsed": group.collapsed,
    }
    if group.color is not None:
        out["color"] = group.color
    if parent is not None:
        out["parent"] = parent
    if group.meta:
        out["meta"] = dict(group.meta)
    return out


def group_from_json(g: dict[str, Any]) -> Group:
    """A group from its JSON shape (``TypeError``/``KeyError`` when it has none)."""
    if not isinstance(g, dict) or not isinstance(g["members"], list):
        raise TypeError("a group is an object with a members list")
    return Group(
        id=g["id"],
        title=g["title"],
        members=frozenset(g["members"]),
        color=g.get("color"),
        collapsed=g.get("collapsed", False),
        kind=g.get("kind", "user"),
        parent=g.get("parent"),
        meta=g.get("meta", {}),
    )


def check_title(title: object, group_id: str = "") -> str:
    """The title if it is one printable line of 1..200 characters, else ``GroupError``."""
    if (
        not isinstance(title, str)
        or not title.strip()
        or len(title) > MAX_TITLE
        or not title.isprintable()
    ):
        where = f"group {group_id!r}: " if group_id else ""
        raise GroupError(
            f"{where}a group title is one line of 1 to {MAX_TITLE} printable characters"
        )
    return title


def check_color(color: object, group_id: str = "") -> str | None:
    """``None`` or the colour as ``#rrggbb`` in lower case, else ``GroupError``."""
    if color is None:
        return None
    if not isinstance(color, str) or not COLOR.match(color):
        where = f"group {group_id!r}: " if group_id else ""
        raise GroupError(f"{where}colour {color!r} is not of the form #rrggbb")
    return color.lower()


def check_fields(group: Group) -> Group:
    """``group`` with its own fields checked and normalised (not its relations)."""
    if not isinstance(group.id, str) or not GROUP_ID.match(group.id):
        raise GroupError(f"{group.id!r} is not a valid group id")
    check_title(group.title, group.id)
    color = check_color(group.color, group.id)
    if not isinstance(group.collapsed, bool):
        raise GroupError(f"{_name(group)}: collapsed must be true or false")
    if group.kind not in KINDS:
        raise GroupError(f"{_name(group)}: kind must be one of {', '.join(KINDS)}")
    if group.parent is not None and not isinstance(group.parent, str):
        raise GroupError(f"{_name(group)}: parent must be a group id")
    if any(not isinstance(m, str) for m in group.members):
        raise GroupError(f"{_name(group)}: members must be node ids")
    meta = group.meta
    if not isinstance(meta, Mapping) or len(meta) > MAX_META_ITEMS:
        raise GroupError(f"{_name(group)}: meta is at most {MAX_META_ITEMS} text entries")
    for key, value in meta.items():
        if (
            not isinstance(key, str)
            or not isinstance(value, str)
            or not 0 < len(key) <= MAX_META_KEY
            or len(value) > MAX_META_VALUE
        ):
            raise GroupError(
                f"{_name(group)}: meta entries are texts (keys up to {MAX_META_KEY} "
                f"characters, values up to {MAX_META_VALUE})"
            )
    if color != group.color:
        return Group(
            group.id,
            group.title,
            group.members,
            color,
            group.collapsed,
            group.kind,
            group.parent,
            group.meta,
        )
    return group


def check_groups(groups: Mapping[str, Group], nodes: Container[str]) -> None:
    """Refuse (``GroupError``) a set of groups that breaks a rule of the module docstring.

    Linear in the number of groups and members, so a hostile file of 100,000 groups
    is checked as fast as it is read.
    """
    owner: dict[str, str] = {}
    has_child: set[str] = set()
    for group_id, group in groups.items():
        if group.id != group_id:
            raise GroupError(f"group {group.id!r} is filed under {group_id!r}")
        for member in group.members:
            if member not in nodes:
                raise GroupError(f"{_name(group)} holds {member!r}, which is not a node")
            other = owner.setdefault(member, group_id)
            if other != group_id:
                raise GroupError(
                    f"node {member!r} is in both {_name(groups[other])} and {_name(group)}"
                )
        if group.parent is not None:
            if group.parent not in groups:
                raise GroupError(f"{_name(group)} is inside {group.parent!r}, which is not a group")
            has_child.add(group.parent)
    for group_id, group in groups.items():
        if not group.members and group_id not in has_child:
            raise GroupError(f"{_name(group)} holds no node")
    _check_acyclic(groups)
    level = depths(groups)
    deepest = max(level, key=level.__getitem__, default=None)
    if deepest is not None and level[deepest] >= MAX_DEPTH:
        raise GroupError(f"{_name(groups[deepest])} is nested more than {MAX_DEPTH} groups deep")


def _check_acyclic(groups: Mapping[str, Group]) -> None:
    done: set[str] = set()
    for start in groups:
        path: list[str] = []
        seen: set[str] = set()
        current: str | None = start
        while current is not None and current not in done:
            if current in seen:
                raise GroupError(f"{_name(groups[current])} is nested inside itself")
            seen.add(current)
            path.append(current)
            current = groups[current].parent
        done.update(path)


def children_of(groups: Mapping[str, Group], group_id: str) -> list[str]:
    """The ids of the groups directly inside ``group_id``, in the mapping's order."""
    return [g.id for g in groups.values() if g.parent == group_id]


def deep_members(groups: Mapping[str, Group], group_id: str) -> frozenset[str]:
    """Every node inside the group: its members and those of the groups inside it."""
    inside: dict[str | None, list[str]] = {}
    for g in groups.values():
        inside.setdefault(g.parent, []).append(g.id)
    out: set[str] = set()
    stack = [group_id]
    while stack:
        current = stack.pop()
        out |= groups[current].members
        stack += inside.get(current, [])
    return frozenset(out)


def ancestors(groups: Mapping[str, Group], group_id: str) -> list[str]:
    """The groups around ``group_id``, innermost first (not including itself)."""
    out: list[str] = []
    seen = {group_id}
    current = groups[group_id].parent
    while current is not None and current not in seen:
        out.append(current)
        seen.add(current)
        current = groups[current].parent
    return out


def depths(groups: Mapping[str, Group]) -> dict[str, int]:
    """How many groups are around each group (0 for an outermost one), in linear time."""
    out: dict[str, int] = {}
    for start in groups:
        path: list[str] = []
        current: str | None = start
        while current is not None and current not in out and current not in path:
            path.append(current)
            current = groups[current].parent
        base = -1 if current is None or current not in out else out[current]
        for k, gid in enumerate(reversed(path)):
            out[gid] = base + 1 + k
    return out


def whole_groups(groups: Mapping[str, Group], chosen: Container[str]) -> set[str]:
    """The groups whose every node is in ``chosen`` (the frames a selection holds whole)."""
    level = depths(groups)
    partial: set[str] = set()
    for gid in sorted(groups, key=level.__getitem__, reverse=True):  # innermost first
        group = groups[gid]
        if gid in partial or not all(m in chosen for m in group.members):
            partial.add(gid)
            if group.parent is not None:
                partial.add(group.parent)
    return set(groups) - partial


def without_group(groups: Mapping[str, Group], group_id: str) -> dict[str, Group]:
    """``groups`` less one frame: the groups inside it move to its parent, and a
    parent that held nothing else disappears too."""
    removed = groups[group_id]
    out = {
        gid: replace(g, parent=removed.parent) if g.parent == group_id else g
        for gid, g in groups.items()
        if gid != group_id
    }
    prune_empty(out)
    return out


def prune_empty(groups: dict[str, Group], on_removed: Callable[[str], None] | None = None) -> None:
    """Drop groups holding no node and no group, repeatedly (a parent emptied in turn)."""
    while True:
        has_child = {g.parent for g in groups.values()}
        empty = [gid for gid, g in groups.items() if not g.members and gid not in has_child]
        if not empty:
            return
        for gid in empty:
            del groups[gid]
            if on_removed is not None:
                on_removed(gid)
