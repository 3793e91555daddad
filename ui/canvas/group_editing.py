"""Group edits made on the canvas: group (Ctrl+G), ungroup, rename, colour, collapse.

Each is one command of ``gradstudio.document.group_commands`` pushed through the
``UndoBridge``; a mixin of ``GraphView``, beside ``CanvasEditing``.  A selected frame
or collapsed card stands for every node inside it (``GraphScene.selected_node_ids``),
so Delete, Copy and Duplicate act on the group as a unit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QPointF, QRect, Signal
from PySide6.QtGui import QColor, QIcon, QPixmap
from PySide6.QtWidgets import QColorDialog, QMenu

from gradstudio.document.group_commands import (
    CollapseGroupCommand,
    DeleteGroupCommand,
    GroupCommand,
    MoveGroupCommand,
    RecolorGroupCommand,
    RenameGroupCommand,
    UngroupCommand,
)
from ui.actions import add_action
from ui.canvas.group_item import TITLE_HEIGHT, GroupCardItem, GroupFrameItem
from ui.canvas.inline_editor import InlineEditor
from ui.canvas.style import HEADER_HEIGHT

if TYPE_CHECKING:
    from gradstudio.document.model import Document
    from ui.canvas.scene import GraphScene
    from ui.window.undo_bridge import UndoBridge

#: The colour menu's swatches (Blender's and ComfyUI's frames offer a few such tints).
GROUP_COLORS: tuple[tuple[str, str], ...] = (
    ("Red", "#c94f4f"),
    ("Orange", "#d98b3a"),
    ("Yellow", "#c9b03c"),
    ("Green", "#4f9d5a"),
    ("Teal", "#3a9d9d"),
    ("Blue", "#4a78c2"),
    ("Purple", "#8a5cc2"),
    ("Grey", "#7d8590"),
)


class CanvasGroups:
    """The canvas's group commands (needs what ``GraphView`` provides)."""

    bridge: UndoBridge
    graph_scene: GraphScene
    message: Signal
    _editor: InlineEditor | None

    if TYPE_CHECKING:  # provided by GraphView (QGraphicsView)

        @property
        def document(self) -> Document: ...

    # ------------------------------------------------------------------ finding
    def group_item_at(self, view_pos: QPoint) -> GroupFrameItem | GroupCardItem | None:
        """The frame title bar or collapsed card under ``view_pos`` (view coordinates)."""
        self.graph_scene.groups.ensure()
        for item in self.items(view_pos):  # type: ignore[attr-defined]
            if isinstance(item, GroupFrameItem | GroupCardItem):
                return item
        return None

    def target_groups(self) -> list[str]:
        """The groups a group command acts on: the selected frames and cards, else the
        one group that holds every selected node."""
        layer = self.graph_scene.groups
        chosen = layer.selected_groups()
        if chosen:
            return chosen
        doc = self.document
        holders = {doc.group_of(n) for n in self.graph_scene.selected_node_ids()}
        if len(holders) == 1:
            (group,) = holders
            if group is not None:
                return [group.id]
        return []

    # ------------------------------------------------------------------ commands
    def group_selection(self) -> str | None:
        """Frame the selected nodes (and frames) in a new group (Ctrl+G)."""
        layer = self.graph_scene.groups
        ids = self.graph_scene.selected_node_ids()
        if not ids:
            self.message.emit("Select the nodes to group first")
            return None
        doc = self.document
        cmd = self.bridge.push(lambda: GroupCommand(doc, ids, group_ids=layer.selected_groups()))
        if cmd is None:
            return None
        self.select_group(cmd.group_id)
        self.message.emit(f"Grouped {len(ids)} nodes: double-click the title to rename the group")
        return cmd.group_id

    def ungroup_selection(self) -> None:
        """Drop the frames of the selected groups (Ctrl+Shift+G); their nodes stay."""
        targets = self.target_groups()
        if not targets:
            self.message.emit("Select a group (its title) to ungroup")
            return
        doc = self.document
        if len(targets) == 1:
            self.bridge.push(lambda: UngroupCommand(doc, targets[0]))
            return
        self.bridge.push_group(
            f"Ungroup {len(targets)} groups",
            [lambda g=g: UngroupCommand(doc, g) for g in targets],
        )

    def toggle_collapse_selection(self) -> None:
        """Collapse the selected groups to cards, or expand them if all are collapsed."""
        targets = self.target_groups()
        if not targets:
            self.message.emit("Select a group (its title) to collapse or expand")
            return
        doc = self.document
        collapse = not all(doc.group(g).collapsed for g in targets)
        for gid in targets:
            self.set_collapsed(gid, collapse)

    def set_collapsed(self, group_id: str, collapsed: bool) -> None:
        doc = self.document
        if group_id in doc.groups and doc.group(group_id).collapsed != collapsed:
            self.bridge.push(lambda: CollapseGroupCommand(doc, group_id, collapsed))
            self.select_group(group_id)

    def set_group_color(self, group_id: str, color: str | None) -> None:
        doc = self.document
        if group_id in doc.groups and doc.group(group_id).color != color:
            self.bridge.push(lambda: RecolorGroupCommand(doc, group_id, color))

    def choose_group_color(self, group_id: str) -> None:
        """The system colour dialog, for a colour the swatches lack."""
        doc = self.document
        if group_id not in doc.groups:
            return
        dialog = QColorDialog(self)  # type: ignore[arg-type]
        dialog.setCurrentColor(QColor(doc.group(group_id).color or GROUP_COLORS[5][1]))
        if dialog.exec():
            self.set_group_color(group_id, dialog.currentColor().name())

    def delete_group(self, group_id: str) -> None:
        """Delete the group and every node inside it (one undo step)."""
        doc = self.document
        if group_id in doc.groups:
            self.bridge.push(lambda: DeleteGroupCommand(doc, group_id))

    def ungroup(self, group_id: str) -> None:
        doc = self.document
        if group_id in doc.groups:
            self.bridge.push(lambda: UngroupCommand(doc, group_id))

    def _push_group_drag(self, group_id: str, dx: float, dy: float) -> None:
        doc = self.document
        if group_id in doc.groups:
            self.bridge.push(lambda: MoveGroupCommand(doc, group_id, dx, dy))

    def select_group(self, group_id: str) -> None:
        """Select a group's frame (or card) alone."""
        layer = self.graph_scene.groups
        item = layer.frame(group_id) or layer.card(group_id)
        if item is not None:
            self.graph_scene.clearSelection()
            item.setSelected(True)

    def select_group_members(self, group_id: str) -> None:
        if group_id in self.document.groups:
            self.select_nodes(sorted(self.document.group_members(group_id)))  # type: ignore[attr-defined]

    # ------------------------------------------------------------------ inline rename
    def edit_group_title(self, group_id: str) -> InlineEditor | None:
        """An editor over the frame's title bar (or the card's header) to rename the group."""
        layer = self.graph_scene.groups
        frame = layer.frame(group_id)
        card = layer.card(group_id) if frame is None else None
        if frame is None and card is None:
            return None
        if frame is not None:
            rect = frame.scene_rect()
            top_left, bottom_right = (
                rect.topLeft(),
                QPointF(rect.right(), rect.top() + TITLE_HEIGHT),
            )
        else:
            rect = card.scene_rect()  # type: ignore[union-attr]
            top_left, bottom_right = (
                rect.topLeft(),
                QPointF(rect.right(), rect.top() + HEADER_HEIGHT),
            )
        a = self.mapFromScene(top_left + QPointF(24.0, 2.0))  # type: ignore[attr-defined]
        b = self.mapFromScene(bottom_right - QPointF(6.0, 2.0))  # type: ignore[attr-defined]
        doc = self.document
        editor = InlineEditor(
            self.viewport(),  # type: ignore[attr-defined]
            QRect(a, b).adjusted(0, 0, 0, 4),
            doc.group(group_id).title,
        )

        def commit(text: str) -> None:
            text = text.strip()
            if text and group_id in doc.groups and text != doc.group(group_id).title:
                self.bridge.push(lambda: RenameGroupCommand(doc, group_id, text))
            self.setFocus()  # type: ignore[attr-defined]

        editor.committed.connect(commit)
        editor.cancelled.connect(self.setFocus)  # type: ignore[attr-defined]
        self._editor = editor
        return editor

    # ------------------------------------------------------------------ menus
    def group_menu(self, menu: QMenu, group_id: str) -> QMenu:
        """Fill ``menu`` with what can be done to a group (its frame's or card's menu)."""
        doc = self.document
        group = doc.group(group_id)
        add_action(menu, "Rename…", lambda: self.edit_group_title(group_id))
        colours = menu.addMenu("Colour")
        for name, value in GROUP_COLORS:
            swatch = QPixmap(14, 14)
            swatch.fill(QColor(value))
            action = add_action(colours, name, lambda v=value: self.set_group_color(group_id, v))
            action.setIcon(QIcon(swatch))
        colours.addSeparator()
        add_action(colours, "Theme Default", lambda: self.set_group_color(group_id, None))
        add_action(colours, "Custom…", lambda: self.choose_group_color(group_id))
        if group.collapsed:
            add_action(menu, "Expand", lambda: self.set_collapsed(group_id, False))
        else:
            add_action(menu, "Collapse", lambda: self.set_collapsed(group_id, True))
        add_action(menu, "Select Nodes", lambda: self.select_group_members(group_id))
        menu.addSeparator()
        add_action(menu, "Ungroup", lambda: self.ungroup(group_id))
        add_action(menu, "Delete Group and Nodes", lambda: self.delete_group(group_id))
        return menu
