"""Code runs only from trusted sources, on every path that brings a document in.

Each path gets a document whose custom Function would create a marker file; the
marker must not appear until the user trusts (and does appear then, so the test
can fail).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from gradstudio.cli import main
from gradstudio.document.clipboard import copy_nodes
from gradstudio.document.commands import AddNodeCommand, PasteCommand
from gradstudio.document.model import Document
from gradstudio.document.undo import UndoStack
from gradstudio.evaluation.evaluate import evaluate
from gradstudio.interchange.fileformat import (
    dumps,
    from_json,
    load_document,
    loads,
    save_document,
    to_json,
)
from gradstudio.interchange.pytorch_import import import_snippet
from gradstudio.interchange.trust import TrustStore, default_trust_path
from tests.gradstudio.snippets import SEED_001, marker_snippet


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "code-ran"


@pytest.fixture
def hostile(marker: Path) -> Document:
    """The user's own document (trusted) holding the marker Function."""
    return import_snippet(marker_snippet(marker), trusted=True)


def runs_code(doc: Document, marker: Path) -> bool:
    """Evaluate ``doc``; whether its Function code ran (the marker appeared)."""
    marker.unlink(missing_ok=True)
    ev = evaluate(doc)
    ran = marker.exists()
    assert ran or [e.exc_type for e in ev.errors] == ["NotTrustedError"]
    return ran


def test_the_marker_function_runs_when_trusted(hostile: Document, marker: Path) -> None:
    assert runs_code(hostile, marker)


def test_a_new_document_starts_untrusted(hostile: Document, marker: Path) -> None:
    doc = Document()
    assert not doc.trusted
    doc.reset(hostile)  # what a document takes over keeps the other's trust
    assert runs_code(doc, marker)
    built = Document()
    for node in hostile.nodes():
        built.add_node(node)
    for edge in hostile.edges():
        built.connect(*edge)
    assert not runs_code(built, marker)


def test_loads_and_from_json_give_untrusted_documents(hostile: Document, marker: Path) -> None:
    assert not runs_code(loads(dumps(hostile).encode("utf-8")), marker)
    assert not runs_code(loads(dumps(hostile)), marker)
    assert not runs_code(from_json(to_json(hostile)), marker)


def test_import_gives_an_untrusted_document(marker: Path) -> None:
    assert not runs_code(import_snippet(marker_snippet(marker)), marker)


def test_open_is_untrusted_until_trusted_on_the_command_line(
    hostile: Document, marker: Path, tmp_path: Path
) -> None:
    path = tmp_path / "hostile.gstudio"
    path.write_text(dumps(hostile), encoding="utf-8")
    assert not runs_code(load_document(path), marker)
    out = io.StringIO()
    assert main(["run", str(path)], out, io.StringIO()) == 1
    assert not marker.exists()
    assert main(["trust", str(path)], out, io.StringIO()) == 0
    # the studio and the command line read one store
    assert TrustStore().path == default_trust_path()
    assert runs_code(load_document(path), marker)
    assert runs_code(load_document(path, TrustStore(default_trust_path())), marker)


def test_saving_an_untrusted_document_does_not_trust_it(
    hostile: Document, marker: Path, tmp_path: Path
) -> None:
    path = tmp_path / "copy.gstudio"
    save_document(loads(dumps(hostile)), path)
    assert not runs_code(load_document(path), marker)


def test_paste_of_function_code_makes_the_document_untrusted(
    hostile: Document, marker: Path
) -> None:
    text = copy_nodes(hostile, list(hostile.order))
    doc = Document(trusted=True)  # File > New: the user's own, empty
    stack = UndoStack()
    seen: list[bool] = []
    doc.subscribe(lambda _event: seen.append(doc.trusted))
    stack.push(PasteCommand(doc, text))
    assert not doc.trusted
    assert seen and not any(seen)  # untrusted before the first node landed
    assert not runs_code(doc, marker)
    stack.undo()
    assert doc.trusted and not doc.has_code()  # the foreign code left with the paste
    stack.redo()
    assert not doc.trusted


def test_duplicating_ones_own_function_keeps_trust(hostile: Document, marker: Path) -> None:
    stack = UndoStack()
    stack.push(PasteCommand(hostile, copy_nodes(hostile, list(hostile.order))))
    assert hostile.trusted and runs_code(hostile, marker)


def test_paste_without_code_keeps_trust() -> None:
    doc = Document(trusted=True)
    source = import_snippet(SEED_001)
    PasteCommand(doc, copy_nodes(source, list(source.order))).redo()
    assert doc.trusted


def test_code_the_user_adds_to_their_own_document_may_run() -> None:
    doc = Document(trusted=True)
    stack = UndoStack()
    stack.push(AddNodeCommand(doc, "torch.autograd.Function"))
    assert doc.trusted and doc.has_code()
