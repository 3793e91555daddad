"""A document's groups: frames around nodes (nested, collapsible, coloured), kept
valid as a whole (``gradstudio.document.groups`` checks them) and announced as
``GroupAdded``, ``GroupChanged`` and ``GroupRemoved``.

A part of ``Document``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

from gradstudio.document.events import GroupAdded, GroupChanged, GroupRemoved
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
from gradstudio.document.model_state import DocumentState
from gradstudio.document.values import EditError


class DocumentGroups(DocumentState):
    """The document's groups (a part of ``Document``)."""

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
