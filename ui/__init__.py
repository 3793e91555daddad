"""PySide6 widgets of the studio (the only package that imports Qt)."""

from ui.none_refcount import make_none_immortal

make_none_immortal()
