"""Edits of groups as undoable commands (see ``gradstudio.document.groups``).

A group edit changes only the set of groups, so most commands compute the whole
new set up front (refusing it with ``EditError`` before anything lands on the
stack) and swap the old and new sets on undo and redo: nested groups, members
taken from other groups and frames that empty out all come back exactly.
Moving and deleting a group act on its nodes and reuse the node commands.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from gradstudio.document.commands import MoveNodesCommand, RemoveNodesCommand
from gradstudio.document.groups import (
    Group,
    GroupError,
    ancestors,
    check_fields,
    check_groups,
    prune_empty,
    whole_groups,
    without_group,
)
from gradstudio.document.model import Document
from gradstudio.document.values import EditError

DEFAULT_TITLE = "Group"


class GroupsCommand:
    """Replace the document's groups with ``after`` (checked now); undo restores them."""

    def __init__(self, doc: Document, after: Mapping[str, Group], text: str) -> None:
        try:
            checked = {gid: check_fields(g) for gid, g in after.items()}
            check_groups(checked, doc)
        except GroupError as exc:
            raise EditError(str(exc)) from None
        self.doc = doc
        self.before = dict(doc.groups)
        self.after = checked
        self.text = text

    def redo(self) -> None:
        self.doc.set_groups(self.after)

    def undo(self) -> None:
        self.doc.set_groups(self.before)

    def merge_with(self, other: object) -> bool:
        return False


class GroupCommand(GroupsCommand):
    """Frame the chosen nodes and groups in a new group (Ctrl+G).

    A group whose every node is chosen goes inside the new one whole; other chosen
    nodes leave their groups to become its members.  The new group sits inside the
    innermost group that held all of the chosen things, so grouping inside a frame
    nests.  ``.group_id`` is the new group's id.
    """

    def __init__(
        self,
        doc: Document,
        node_ids: Iterable[str],
        title: str = DEFAULT_TITLE,
        *,
        group_ids: Iterable[str] = (),
        color: str | None = None,
        kind: str = "user",
        meta: Mapping[str, str] | None = None,
    ) -> None:
        groups = dict(doc.groups)
        chosen = {n for n in node_ids if doc.node(n)}
        for gid in group_ids:
            chosen |= doc.group_members(gid)
        if not chosen:
            raise EditError("select the nodes to group first")
        whole = whole_groups(groups, chosen)
        top = {gid for gid in whole if groups[gid].parent not in whole}
        inside_whole = {m for gid in whole for m in groups[gid].members}
        loose = chosen - inside_whole
        containers = [doc.group_of(n) for n in loose]
        holders = [g.id if g else None for g in containers] + [groups[g].parent for g in top]
        self.group_id = doc.new_group_id()
        for node_id in loose:
            old = doc.group_of(node_id)
            if old is not None:
                groups[old.id] = replace(groups[old.id], members=groups[old.id].members - {node_id})
        for gid in top:
            groups[gid] = replace(groups[gid], parent=self.group_id)
        groups[self.group_id] = Group(
            self.group_id,
            title,
            frozenset(loose),
            color=color,
            kind=kind,
            parent=_innermost_common(doc.groups, holders),
            meta=meta or {},
        )
        prune_empty(groups)
        super().__init__(doc, groups, f"Group {len(chosen)} nodes")


def _innermost_common(groups: Mapping[str, Group], holders: list[str | None]) -> str | None:
    """The innermost group around every one of ``holders`` (None: the canvas)."""
    if not holders or None in holders:
        return None
    chains = [[h, *ancestors(groups, h)] for h in holders if h is not None]
    common = set(chains[0]).intersection(*chains[1:])
    return next((g for g in chains[0] if g in common), None)


class UngroupCommand(GroupsCommand):
    """Drop a frame; its nodes stay where they are and its inner groups move up."""

    def __init__(self, doc: Document, group_id: str) -> None:
        group = doc.group(group_id)
        super().__init__(doc, without_group(doc.groups, group_id), f"Ungroup {group.title}")


class UpdateGroupCommand(GroupsCommand):
    """Change fields of one group (``title``, ``color``, ``collapsed``, ``meta``, ...)."""

    def __init__(self, doc: Document, group_id: str, text: str, **changes: Any) -> None:
        group = doc.group(group_id)
        try:
            new = replace(group, **changes)
        except (TypeError, GroupError) as exc:
            raise EditError(f"group {group.title!r}: {exc}") from None
        super().__init__(doc, {**doc.groups, group_id: new}, text)


class RenameGroupCommand(UpdateGroupCommand):
    def __init__(self, doc: Document, group_id: str, title: str) -> None:
        old = doc.group(group_id).title
        super().__init__(doc, group_id, f"Rename group {old} to {title}", title=title)


class RecolorGroupCommand(UpdateGroupCommand):
    """Set a group's colour (``#rrggbb``, or None for the theme's)."""

    def __init__(self, doc: Document, group_id: str, color: str | None) -> None:
        title = doc.group(group_id).title
        super().__init__(doc, group_id, f"Colour group {title}", color=color)


class CollapseGroupCommand(UpdateGroupCommand):
    """Collapse a group to one card, or expand it again (saved with the document)."""

    def __init__(self, doc: Document, group_id: str, collapsed: bool) -> None:
        title = doc.group(group_id).title
        verb = "Collapse" if collapsed else "Expand"
        super().__init__(doc, group_id, f"{verb} group {title}", collapsed=bool(collapsed))


class MoveGroupCommand(MoveNodesCommand):
    """Move every node inside a group by ``(dx, dy)``; a drag's moves merge into one step."""

    def __init__(self, doc: Document, group_id: str, dx: float, dy: float) -> None:
        group = doc.group(group_id)
        positions = {}
        for node_id in sorted(doc.group_members(group_id)):
            x, y = doc.node(node_id).position
            positions[node_id] = (x + dx, y + dy)
        super().__init__(doc, positions, text=f"Move group {group.title}")
        self.group_id = group_id


class DeleteGroupCommand(RemoveNodesCommand):
    """Delete a group with every node inside it, as one step; undo brings all back."""

    def __init__(self, doc: Document, group_id: str) -> None:
        group = doc.group(group_id)
        super().__init__(doc, sorted(doc.group_members(group_id)))
        self.text = f"Delete group {group.title}"
