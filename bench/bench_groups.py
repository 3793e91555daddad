"""Groups benchmark: a 5,000-node graph in 50 loop groups of 10 module groups each.

Run ``python bench/bench_groups.py`` (Qt offscreen unless a display is set).  Prints
seconds for: auto-layout by groups, saving and loading the file (format v3), drawing
the scene with its 550 frames, collapsing every loop group at once, dragging a loop
group (one step), undoing the move of a collapsed 100-node group, and deleting /
undeleting a loop group.  The editor aims at each under 0.5 s on the development
machine (figures only, no assertion).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication  # noqa: E402

import ui  # noqa: E402, F401 - applies the PySide6 None-refcount workaround
from gradstudio.document.group_commands import (  # noqa: E402
    DeleteGroupCommand,
    GroupsCommand,
    MoveGroupCommand,
)
from gradstudio.document.groups import Group  # noqa: E402
from gradstudio.document.layout import auto_layout  # noqa: E402
from gradstudio.document.model import Document  # noqa: E402
from gradstudio.interchange.fileformat import dumps, loads  # noqa: E402
from ui.app import prepare_process  # noqa: E402

LOOPS, MODULES, NODES = 50, 10, 10


def build() -> Document:
    """Chains of ``tanh`` in a grid; each module group holds ten, each loop ten modules."""
    doc = Document()
    groups = []
    prev = None
    for loop in range(LOOPS):
        groups.append(Group(f"L{loop}", f"iteration {loop}", (), kind="loop"))
        for mod in range(MODULES):
            members = []
            for k in range(NODES):
                i = (loop * MODULES + mod) * NODES + k
                type_id = "torch.ones" if prev is None else "torch.tanh"
                node = doc.new_node(
                    type_id, (k * 230.0, (loop * MODULES + mod) * 150.0), label=f"t{i}"
                )
                doc.add_node(node)
                if prev is not None:
                    doc.connect(prev, "out", node.id, "input")
                prev = node.id
                members.append(node.id)
            meta = {"class": "Linear", "path": f"model.fc{mod}"}
            groups.append(
                Group(
                    f"M{loop}_{mod}",
                    f"model.fc{mod} (Linear)",
                    members,
                    None,
                    False,
                    "module",
                    f"L{loop}",
                    meta,
                )
            )
    doc.add_groups(groups)
    return doc


def timed(label: str, action) -> object:  # noqa: ANN001
    t0 = time.perf_counter()
    result = action()
    QApplication.processEvents()
    print(f"{label:<46} {time.perf_counter() - t0:7.3f} s")
    return result


def main() -> None:
    prepare_process()
    app = QApplication.instance() or QApplication([])
    from ui.canvas.scene import GraphScene
    from ui.state import StudioState

    doc = timed("build 5,000 nodes, 550 groups", build)
    timed("auto-layout by groups (core estimate)", lambda: auto_layout(doc))
    text = timed("save (dumps, format v3)", lambda: dumps(doc))
    doc = timed("load (loads)", lambda: loads(text))
    state = StudioState(doc)
    scene = timed("draw the scene with every frame", lambda: GraphScene(state))
    stack = state.undo_stack
    collapsed = {gid: g if g.kind != "loop" else _collapsed(g) for gid, g in doc.groups.items()}
    timed(
        "collapse all 50 loop groups (one command)",
        lambda: (stack.push(GroupsCommand(doc, collapsed, "Collapse")), scene.groups.ensure()),
    )
    timed("expand them again (undo)", lambda: (stack.undo(), scene.groups.ensure()))
    timed("drag loop group L0 by 40 steps (layer only)", lambda: _drag(scene, "L0"))
    stack.push(GroupsCommand(doc, {**doc.groups, "L1": _collapsed(doc.group("L1"))}, "c"))
    scene.groups.ensure()
    stack.push(MoveGroupCommand(doc, "L1", 300, 0))
    timed(
        "undo the move of collapsed L1 (100 nodes)", lambda: (stack.undo(), scene.groups.ensure())
    )
    timed(
        "delete loop group L2 with its 100 nodes", lambda: stack.push(DeleteGroupCommand(doc, "L2"))
    )
    timed("undo the delete", lambda: (stack.undo(), scene.groups.ensure()))
    app.processEvents()


def _collapsed(group: Group) -> Group:
    from dataclasses import replace

    return replace(group, collapsed=True)


def _drag(scene, gid: str) -> None:  # noqa: ANN001
    for _ in range(40):
        scene.groups.shift_group(gid, 2.0, 1.0)


if __name__ == "__main__":
    main()
