"""Light and dark themes: one colour table read by the canvas, the palette and the style sheet.

The canvas paints its own items, so it needs colours as values, not as style-sheet rules;
keeping both in one ``Theme`` means a node's ``requires_grad`` orange is the same orange
in the legend, the palette and on the canvas, in both themes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtGui import QColor, QFont, QFontDatabase, QPalette
from PySide6.QtWidgets import QApplication

from gradstudio.locations import STYLES_DIR

THEMES = ("dark", "light")

# Category colours for node headers and palette markers (same hue in both themes).
CATEGORY_COLORS: dict[str, str] = {
    "creation": "#3fa66b",
    "arithmetic": "#4a86d8",
    "math": "#2f9fa8",
    "activation": "#9166cc",
    "comparison": "#7d8590",
    "linear algebra": "#5865c9",
    "loss": "#d2555a",
    "reduction": "#d0802f",
    "shape": "#3a9bc4",
    "tensor": "#6d7f99",
    "in-place": "#c49a2c",
    "autograd": "#c9558f",
}
DEFAULT_CATEGORY_COLOR = "#7d8590"


@dataclass(frozen=True)
class Theme:
    """Every colour the studio paints with, by role."""

    name: str
    window: str
    panel: str
    panel_alt: str
    border: str
    text: str
    text_dim: str
    accent: str
    canvas: str
    grid_minor: str
    grid_major: str
    node_body: str
    node_border: str
    node_selected: str
    node_shadow: str
    header_text: str
    requires_grad: str  # PyTorch orange: this tensor is tracked by autograd
    no_grad: str  # neutral: not tracked
    leaf: str
    non_leaf: str
    grad: str  # a populated .grad
    error: str
    warning: str
    ok: str
    edge: str
    edge_grad: str
    port_tensor: str
    port_tensors: str
    wire_ok: str
    wire_bad: str
    rubber_band: str
    categories: dict[str, str] = field(default_factory=lambda: dict(CATEGORY_COLORS))

    def color(self, role: str) -> QColor:
        return QColor(getattr(self, role))

    def category_color(self, category: str) -> QColor:
        return QColor(self.categories.get(category, DEFAULT_CATEGORY_COLOR))

    @property
    def is_dark(self) -> bool:
        return QColor(self.window).lightness() < 128


DARK = Theme(
    name="dark",
    window="#1b1d21",
    panel="#23262b",
    panel_alt="#2a2e34",
    border="#363b43",
    text="#e3e6ea",
    text_dim="#8d96a3",
    accent="#4c8dff",
    canvas="#17191c",
    grid_minor="#1f2226",
    grid_major="#272b30",
    node_body="#262a30",
    node_border="#3b4049",
    node_selected="#f2f4f7",
    node_shadow="#0b0c0e",
    header_text="#f4f6f8",
    requires_grad="#ff7a45",
    no_grad="#6f7b8c",
    leaf="#42b883",
    non_leaf="#a78bfa",
    grad="#f2c94c",
    error="#f2555a",
    warning="#e8a33d",
    ok="#42b883",
    edge="#6d7684",
    edge_grad="#e07a4c",
    port_tensor="#5fa8f5",
    port_tensors="#b58cf0",
    wire_ok="#42b883",
    wire_bad="#f2555a",
    rubber_band="#4c8dff",
)

LIGHT = Theme(
    name="light",
    window="#f3f4f6",
    panel="#fbfbfc",
    panel_alt="#eef0f3",
    border="#d3d7dd",
    text="#1f2328",
    text_dim="#5f6873",
    accent="#2f6fe4",
    canvas="#eceef1",
    grid_minor="#e3e6ea",
    grid_major="#d6dae0",
    node_body="#ffffff",
    node_border="#c4cad2",
    node_selected="#1f2328",
    node_shadow="#b9c0c9",
    header_text="#ffffff",
    requires_grad="#e8590c",
    no_grad="#8a94a3",
    leaf="#1f9d61",
    non_leaf="#7c5cd6",
    grad="#b7860b",
    error="#d93036",
    warning="#c27c0e",
    ok="#1f9d61",
    edge="#8c95a3",
    edge_grad="#e06a2e",
    port_tensor="#2f7fd8",
    port_tensors="#8a5ad6",
    wire_ok="#1f9d61",
    wire_bad="#d93036",
    rubber_band="#2f6fe4",
)

_BY_NAME = {"dark": DARK, "light": LIGHT}


def theme(name: str) -> Theme:
    """The theme called ``name`` (unknown names fall back to dark)."""
    return _BY_NAME.get(name, DARK)


def qt_palette(t: Theme) -> QPalette:
    """A QPalette for the Fusion style, so native widgets match the theme."""
    p = QPalette()
    c = QColor
    roles = {
        QPalette.ColorRole.Window: t.window,
        QPalette.ColorRole.WindowText: t.text,
        QPalette.ColorRole.Base: t.panel,
        QPalette.ColorRole.AlternateBase: t.panel_alt,
        QPalette.ColorRole.ToolTipBase: t.panel_alt,
        QPalette.ColorRole.ToolTipText: t.text,
        QPalette.ColorRole.PlaceholderText: t.text_dim,
        QPalette.ColorRole.Text: t.text,
        QPalette.ColorRole.Button: t.panel_alt,
        QPalette.ColorRole.ButtonText: t.text,
        QPalette.ColorRole.BrightText: t.error,
        QPalette.ColorRole.Highlight: t.accent,
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Link: t.accent,
        QPalette.ColorRole.Mid: t.border,
        QPalette.ColorRole.Dark: t.border,
        QPalette.ColorRole.Light: t.panel,
        QPalette.ColorRole.Midlight: t.panel_alt,
        QPalette.ColorRole.Shadow: t.node_shadow,
    }
    for role, value in roles.items():
        p.setColor(role, c(value))
    for role in (
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
    ):
        p.setColor(QPalette.ColorGroup.Disabled, role, c(t.text_dim))
    return p


def style_sheet(t: Theme) -> str:
    """The application style sheet: ``resources/styles/studio.qss`` with the theme's colours.

    Placeholders are ``{role}`` names of ``Theme`` fields, so one sheet serves both themes.
    """
    path = STYLES_DIR / "studio.qss"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return ""
    for name, value in vars(t).items():
        if isinstance(value, str):
            text = text.replace("{" + name + "}", value)
    return text


def ui_font() -> QFont:
    """The interface font: the system's general font at a readable size."""
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.GeneralFont)
    if font.pointSizeF() < 9.5:
        font.setPointSizeF(9.5)
    return font


def mono_font(size: float = 9.0) -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSizeF(size)
    return font


def apply_theme(app: QApplication, name: str) -> Theme:
    """Switch the whole application to a theme; returns it for the canvas."""
    t = theme(name)
    app.setStyle("Fusion")
    app.setPalette(qt_palette(t))
    app.setStyleSheet(style_sheet(t))
    return t
