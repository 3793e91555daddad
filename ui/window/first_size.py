"""The window's size and place on a first start: as large as the studio wants, no larger
than the screen it opens on.

A window taller or wider than the screen hides its status bar and the right-hand docks
off screen (a 1440×900 window on a 1280×720 laptop), so the size asked for is cut to the
screen's available geometry less the room a window manager's frame takes, and the window
is centred there.  A saved layout, when there is one, replaces all of this.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtWidgets import QWidget

#: The size the studio asks for on a screen with room for it.
PREFERRED = QSize(1440, 900)
#: What a window manager's frame takes around the client area: a title bar, thin borders.
TITLE_BAR = 36
BORDER = 4


def screen_room(widget: QWidget) -> QRect:
    """The available geometry (less panels and docks) of the screen ``widget`` opens on."""
    screen = widget.screen()
    return screen.availableGeometry() if screen is not None else QRect(QPoint(0, 0), PREFERRED)


def first_start_geometry(room: QRect, minimum: QSize) -> QRect:
    """The window's client area in ``room``: ``PREFERRED`` where it fits, else all the
    room the frame leaves, centred; never below ``minimum`` (Qt would grow it anyway)."""
    inner = room.adjusted(BORDER, TITLE_BAR, -BORDER, -BORDER)
    size = PREFERRED.boundedTo(inner.size()).expandedTo(minimum)
    rect = QRect(QPoint(0, 0), size)
    rect.moveCenter(inner.center())
    return rect
