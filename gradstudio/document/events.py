"""Plain change events and a tiny observer, so any view can follow a document.

Views subscribe and redraw from the events; nothing here knows about Qt.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

E = TypeVar("E")
Unsubscribe = Callable[[], None]


class Observable(Generic[E]):
    """Holds subscribers and calls each with every event, in subscription order."""

    def __init__(self) -> None:
        self._subscribers: list[Callable[[E], None]] = []

    def subscribe(self, callback: Callable[[E], None]) -> Unsubscribe:
        """Call ``callback(event)`` for every future event; call the result to stop."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def emit(self, event: E) -> None:
        for callback in tuple(self._subscribers):
            callback(event)


@dataclass(frozen=True)
class DocumentEvent:
    """Base of all document events."""

    #: Whether the event makes earlier evaluation results stale.
    affects_evaluation = True


@dataclass(frozen=True)
class NodeAdded(DocumentEvent):
    node_id: str


@dataclass(frozen=True)
class NodeRemoved(DocumentEvent):
    node_id: str


@dataclass(frozen=True)
class EdgeAdded(DocumentEvent):
    edge: Any  # gradstudio.document.values.Edge


@dataclass(frozen=True)
class EdgeRemoved(DocumentEvent):
    edge: Any


@dataclass(frozen=True)
class NodeMoved(DocumentEvent):
    node_id: str
    x: float
    y: float
    affects_evaluation = False


@dataclass(frozen=True)
class ParamChanged(DocumentEvent):
    node_id: str
    name: str
    old: Any
    new: Any


@dataclass(frozen=True)
class LabelChanged(DocumentEvent):
    node_id: str
    old: str
    new: str
    affects_evaluation = False


@dataclass(frozen=True)
class OrderChanged(DocumentEvent):
    old: tuple[str, ...]
    new: tuple[str, ...]


@dataclass(frozen=True)
class SettingChanged(DocumentEvent):
    name: str
    old: Any
    new: Any


@dataclass(frozen=True)
class MetaChanged(DocumentEvent):
    name: str
    affects_evaluation = False


@dataclass(frozen=True)
class TrustChanged(DocumentEvent):
    trusted: bool


@dataclass(frozen=True)
class DocumentReset(DocumentEvent):
    pass


@dataclass(frozen=True)
class GroupAdded(DocumentEvent):
    """A group appeared (see ``gradstudio.document.groups``); groups never change results."""

    group_id: str
    affects_evaluation = False


@dataclass(frozen=True)
class GroupRemoved(DocumentEvent):
    group_id: str
    affects_evaluation = False


@dataclass(frozen=True)
class GroupChanged(DocumentEvent):
    """Any field of a group changed: ``old`` and ``new`` are the two ``Group`` values."""

    group_id: str
    old: Any
    new: Any
    affects_evaluation = False
