"""PySide6 widgets of the studio (the only package that imports Qt)."""
