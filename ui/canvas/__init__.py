"""The node canvas: scene, view, node and edge items, quick-add popup."""

from ui.canvas.scene import GraphScene
from ui.canvas.view import GraphView

__all__ = ["GraphScene", "GraphView"]
