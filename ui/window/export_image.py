"""Pictures of the canvas: PNG (for slides and notes) and SVG (for print), of every node.

Rendered straight from the scene, not grabbed from the screen, so the picture holds
the whole graph at full resolution whatever the zoom, without selection outlines.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QGraphicsItem

from ui.canvas.scene import GraphScene

MARGIN = 40.0


def graph_rect(scene: GraphScene) -> QRectF:
    bounds = QRectF()
    for item in scene.node_items():
        bounds = bounds.united(item.sceneBoundingRect())
    for item in scene.edge_items():
        bounds = bounds.united(item.sceneBoundingRect())
    if bounds.isEmpty():
        bounds = QRectF(0, 0, 400, 300)
    return bounds.adjusted(-MARGIN, -MARGIN, MARGIN, MARGIN)


def _render(scene: GraphScene, painter: QPainter, source: QRectF, target: QRectF) -> None:
    selected = scene.selectedItems()
    for item in selected:
        item.setSelected(False)
    cards = scene.node_items()
    # cached cards would be drawn as bitmaps: render them as vectors and text instead
    for card in cards:
        card.setCacheMode(QGraphicsItem.CacheMode.NoCache)
    try:
        painter.fillRect(target, scene.style.c("canvas"))
        painter.setRenderHints(
            QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing
        )
        with scene.full_detail():  # zoomed far out, the view shows the overview
            scene.render(painter, target, source, Qt.AspectRatioMode.KeepAspectRatio)
    finally:
        for card in cards:
            card.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        for item in selected:
            item.setSelected(True)


def export_png(scene: GraphScene, path: str | Path, scale: float = 2.0) -> QSize:
    """Write the whole graph as a PNG at ``scale`` pixels per scene unit; returns its size."""
    source = graph_rect(scene)
    size = QSize(max(1, round(source.width() * scale)), max(1, round(source.height() * scale)))
    image = QImage(size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(scene.style.c("canvas"))
    painter = QPainter(image)
    _render(scene, painter, source, QRectF(0, 0, size.width(), size.height()))
    painter.end()
    if not image.save(str(path), "PNG"):
        raise OSError(f"could not write {path}")
    return size


def export_svg(scene: GraphScene, path: str | Path, title: str = "GradStudio graph") -> QSize:
    """Write the whole graph as an SVG drawing; returns its size."""
    source = graph_rect(scene)
    size = QSize(round(source.width()), round(source.height()))
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(size)
    generator.setViewBox(QRectF(0, 0, size.width(), size.height()))
    generator.setTitle(title)
    generator.setDescription("Exported from GradStudio")
    painter = QPainter(generator)
    _render(scene, painter, source, QRectF(0, 0, size.width(), size.height()))
    painter.end()
    if not Path(path).is_file():
        raise OSError(f"could not write {path}")
    return size
