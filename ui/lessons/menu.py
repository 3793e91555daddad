"""The File › Lessons menu: one entry per shipped lesson; a bad lesson file is a
disabled entry that says why, never a failed start."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMenu

from gradstudio.lessons.model import Lesson, LessonError, shipped_lessons
from ui.actions import connect_action
from ui.lessons.dialog import LessonDialog

if TYPE_CHECKING:
    from ui.window.main_window import MainWindow


def fill_lessons_menu(menu: QMenu, window: MainWindow) -> None:
    menu.clear()
    try:
        lessons = shipped_lessons()
    except LessonError as exc:
        menu.addAction(f"Lessons cannot be read: {exc}").setEnabled(False)
        return
    for number, lesson in enumerate(lessons, 1):
        action = menu.addAction(f"{number}  {lesson.title}")
        action.setObjectName(f"lesson_{lesson.name}")
        connect_action(action, lambda lesson=lesson: start_lesson(window, lesson))
    if not lessons:
        menu.addAction("No lessons found").setEnabled(False)


def start_lesson(window: MainWindow, lesson: Lesson) -> LessonDialog | None:
    """Play ``lesson`` over the window (one lesson at a time)."""
    old = getattr(window, "lesson_dialog", None)
    if isinstance(old, LessonDialog):
        old.close()
        old.deleteLater()
    dialog = LessonDialog(window, lesson)
    window.lesson_dialog = dialog
    if not dialog.start():
        dialog.deleteLater()
        window.lesson_dialog = None
        return None
    return dialog
