"""The File menu of the window: new, open, save, examples, recent files, import/export, recovery.

Every question to the user goes through an ``ask_*`` method (and problems through
``report``) so tests can answer for the user without modal dialogs.  A mixin of
``MainWindow``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMessageBox

from gradstudio.document.model import Document
from gradstudio.interchange.fileformat import EXTENSION, DocumentError, load_document, save_document
from ui.actions import add_action, connect_action
from ui.canvas.layout import overlaps
from ui.window.examples import ExampleFile, example_files

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLabel, QMenu

    from gradstudio.interchange.trust import TrustStore
    from ui.canvas.view import GraphView
    from ui.run.runner import EvaluationRunner
    from ui.state import StudioState
    from ui.window.program_dialog import ProgramDialog
    from ui.window.recovery import Recovery
    from ui.window.settings import StudioSettings
    from ui.window.undo_bridge import UndoBridge

APP_NAME = "GradStudio"
FILE_FILTER = f"GradStudio graphs (*{EXTENSION});;All files (*)"
PROGRAM_FILTER = "Python programs and notebooks (*.py *.ipynb);;All files (*)"


class FileCommands:
    """Files and examples for the window (needs the attributes ``MainWindow`` builds)."""

    state: StudioState
    settings: StudioSettings
    runner: EvaluationRunner
    bridge: UndoBridge
    canvas: GraphView
    recovery: Recovery
    trust_store: TrustStore
    file_path: str | None
    program_dialog: ProgramDialog | None
    example_name: str | None
    recent_menu: QMenu
    examples_menu: QMenu
    error_label: QLabel
    result_label: QLabel

    if TYPE_CHECKING:  # provided by MainWindow

        def show_message(self, text: str, msecs: int = 0) -> None: ...

        def run_graph(self) -> int: ...

        def _sync_document_ui(self) -> None: ...

        def _update_title(self) -> None: ...

    def ask_save_changes(self) -> QMessageBox.StandardButton:
        """Save, Discard or Cancel for unsaved changes (tests replace this)."""
        return QMessageBox.question(
            self,
            APP_NAME,
            "The graph has unsaved changes. Save them first?",
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )

    def ask_open_path(self) -> str:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open graph", self.settings.last_directory, FILE_FILTER
        )
        return path

    def ask_save_path(self, caption: str, file_filter: str, suggested: str) -> str:
        path, _ = QFileDialog.getSaveFileName(self, caption, suggested, file_filter)
        return path

    def ask_restore(self, when: str) -> bool:
        answer = QMessageBox.question(
            self,
            "Restore unsaved work?",
            f"GradStudio did not close normally. A graph with unsaved changes was saved "
            f"automatically {when}. Restore it?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.Yes,
        )
        return answer == QMessageBox.StandardButton.Yes

    def report(self, title: str, text: str) -> None:
        """Tell the user about a problem with a file (tests replace this)."""
        QMessageBox.warning(self, title, text)

    def maybe_save(self) -> bool:
        """True when it is fine to drop the current document (saved, discarded, or clean)."""
        if self.bridge.is_clean:
            return True
        answer = self.ask_save_changes()
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def set_document(
        self,
        doc: Document,
        path: str | None = None,
        example: str | None = None,
        run: bool = True,
        imported: bool = False,
    ) -> None:
        """Show ``doc`` (already loaded) in the window, with a fresh undo history.

        Its cards stay where the file put them: a saved layout is the user's.  An
        ``imported`` document (Run to Import, Import PyTorch Code) is laid out again with
        the cards' real sizes, as one undo step.  A file opens at the view it was saved
        or left at (remembered in the settings), else at its home
        (``GraphView.home_view``)."""
        self.runner.cancel()
        if self.file_path:
            self.settings.remember_view(self.file_path, *self.canvas.view_state())
        self.canvas.saved_view = self.settings.view_of(path) if path else None
        self.file_path = path
        self.example_name = example
        if run and not (doc.has_code() and not doc.trusted):
            self.runner.run(doc)  # the evaluation process works while the scene is built
        self.state.replace_document(doc)
        self._sync_document_ui()
        if imported:
            self.canvas.tidy()
        self.canvas.home_view()
        self.error_label.setText("")
        self.result_label.setText("")

    def new_document(self) -> bool:
        if not self.maybe_save():
            return False
        # the user's own empty document: the code they type into it may run (code
        # pasted into it makes it untrusted: PasteCommand)
        self.set_document(Document(trusted=True), run=False)
        return True

    def open_dialog(self) -> bool:
        if not self.maybe_save():
            return False
        path = self.ask_open_path()
        return bool(path) and self.open_file(path, ask=False)

    def open_file(self, path: str | Path, ask: bool = True) -> bool:
        """Open a graph file (asking about unsaved changes first unless ``ask`` is False)."""
        if ask and not self.maybe_save():
            return False
        try:
            doc = load_document(path, self.trust_store)
        except DocumentError as exc:
            self.report("Cannot open the graph", str(exc))
            return False
        self.settings.add_recent(path)
        self.settings.last_directory = str(Path(path).resolve().parent)
        self.set_document(doc, str(Path(path).resolve()))
        if overlaps(doc):
            self.show_message(
                f"Opened {Path(path).name}: some cards overlap; "
                "Auto-Layout arranges them (Ctrl+Z undoes it)",
                8000,
            )
        else:
            self.show_message(f"Opened {Path(path).name}", 3000)
        return True

    def open_example(self, example: ExampleFile | str | Path, ask: bool = True) -> bool:
        """Open a bundled example as an untitled copy (Save asks where to put it)."""
        path = example.path if isinstance(example, ExampleFile) else Path(example)
        if ask and not self.maybe_save():
            return False
        try:
            doc = load_document(path, self.trust_store)
        except DocumentError as exc:
            self.report("Cannot open the example", str(exc))
            return False
        self.set_document(doc, None, example=path.stem)  # shipped examples are trusted by hash
        return True

    def save(self) -> bool:
        if not self.file_path:
            return self.save_as()
        return self.save_to(self.file_path)

    def save_as(self) -> bool:
        suggested = self.file_path or str(
            self.settings.save_directory / f"{self.example_name or 'untitled'}{EXTENSION}"
        )
        path = self.ask_save_path("Save graph as", FILE_FILTER, suggested)
        if not path:
            return False
        if not Path(path).suffix:
            path += EXTENSION
        return self.save_to(path)

    def save_to(self, path: str | Path) -> bool:
        try:
            save_document(self.state.document, path, self.trust_store)
        except DocumentError as exc:
            self.report("Cannot save the graph", str(exc))
            return False
        self.file_path = str(Path(path).resolve())
        self.settings.remember_view(self.file_path, *self.canvas.view_state())
        self.example_name = None
        self.bridge.set_clean()
        self.recovery.discard()
        self.settings.add_recent(self.file_path)
        self.settings.last_directory = str(Path(self.file_path).parent)
        self.settings.save_directory = Path(self.file_path).parent
        self._update_title()
        self.show_message(f"Saved {Path(path).name}", 3000)
        return True

    def _fill_recent_menu(self) -> None:
        menu = self.recent_menu
        menu.clear()
        files = self.settings.recent_files()
        for f in files:
            a = menu.addAction(Path(f).name)
            a.setToolTip(f)
            a.setStatusTip(f)
            connect_action(a, lambda p=f: self._open_recent(p))
        if files:
            menu.addSeparator()
            add_action(menu, "Clear List", self.settings.clear_recent)
        else:
            menu.addAction("No recent files").setEnabled(False)

    def _open_recent(self, path: str) -> None:
        if not Path(path).exists():
            self.settings.remove_recent(path)
            self.report("Cannot open the graph", f"{path} no longer exists.")
            return
        self.open_file(path)

    def _fill_examples_menu(self) -> None:
        menu = self.examples_menu
        menu.clear()
        files = example_files()
        for ex in files:
            a = menu.addAction(ex.menu_text)
            a.setToolTip(str(ex.path))
            connect_action(a, lambda e=ex: self.open_example(e))
        if not files:
            menu.addAction("No examples found").setEnabled(False)

    def example_actions(self) -> list[QAction]:
        return [a for a in self.examples_menu.actions() if a.isEnabled()]

    # ================================================================== import / export
    def import_snippet(self, text: str | None = None) -> bool:
        from ui.window.snippet_dialog import EXAMPLE, SnippetDialog

        if not self.maybe_save():
            return False
        budget = self.settings.memory_budget
        dialog = SnippetDialog(self, EXAMPLE if text is None else text, budget)
        if text is not None:
            ok = dialog.try_import()
        else:
            ok = dialog.exec() == SnippetDialog.DialogCode.Accepted
        if not ok or dialog.document is None:
            if text is not None:
                self.report("Cannot import the snippet", dialog.problem.text())
            return False
        self.set_document(dialog.document, imported=True)
        return True

    def ask_program_path(self) -> str:
        path, _ = QFileDialog.getOpenFileName(
            self, "Import program (run it)", self.settings.last_directory, PROGRAM_FILTER
        )
        return path

    def import_program(self, path: str | None = None) -> bool:
        """Run to import: ask for a program, then the dialog that runs it (with consent).

        The dialog is window-modal but not blocking: the program runs while the window
        repaints, and the graph opens when it is done (``program_imported``).
        """
        from ui.window.program_dialog import ProgramDialog

        if not self.maybe_save():
            return False
        path = path or self.ask_program_path()
        if not path:
            return False
        dialog = ProgramDialog(path, self, self.settings.keep_iterations)
        dialog.accepted.connect(lambda: self.program_imported(dialog))
        dialog.finished.connect(lambda _result: self._program_dialog_closed(dialog))
        self.program_dialog = dialog
        dialog.open()
        return True

    def _program_dialog_closed(self, dialog: ProgramDialog) -> None:
        if self.program_dialog is dialog:
            self.program_dialog = None
        dialog.deleteLater()

    def program_imported(self, dialog: ProgramDialog) -> None:
        """The recorded graph opens as a new, unsaved document."""
        if dialog.document is None:
            return
        self.set_document(dialog.document, imported=True)
        self.state.undo_stack.set_dirty()
        trusted = (
            "; its code is trusted: it is the code you ran"
            if dialog.document.has_code() and dialog.document.trusted
            else ""
        )
        self.show_message(
            f"Recorded {dialog.program.name}: {len(dialog.document)} nodes{trusted}", 5000
        )

    def export_script(self) -> bool:
        from gradstudio.interchange.pytorch_export import ExportError, export_script

        try:
            code = export_script(self.state.document)
        except ExportError as exc:
            self.report("Cannot export the graph", str(exc))
            return False
        stem = Path(self.file_path).stem if self.file_path else (self.example_name or "graph")
        path = self.ask_save_path(
            "Export PyTorch script",
            "Python (*.py);;All files (*)",
            str(self.settings.save_directory / f"{stem}.py"),
        )
        if not path:
            return False
        try:
            Path(path).write_text(code, encoding="utf-8")
        except OSError as exc:
            self.report("Cannot export the graph", f"{path}: {exc.strerror or exc}")
            return False
        self.settings.save_directory = Path(path).resolve().parent
        self.show_message(f"Exported {Path(path).name}", 3000)
        return True

    def export_image(self, kind: str) -> bool:
        stem = Path(self.file_path).stem if self.file_path else (self.example_name or "graph")
        filters = {"png": "PNG image (*.png)", "svg": "SVG drawing (*.svg)"}
        path = self.ask_save_path(
            f"Export image as {kind.upper()}",
            filters[kind],
            str(self.settings.save_directory / f"{stem}.{kind}"),
        )
        if not path:
            return False
        # imported on first export: QSvgGenerator and the exporters are not needed to
        # show the window
        from ui.window.export_image import export_png, export_svg

        try:
            if kind == "png":
                export_png(self.canvas.graph_scene, path)
            else:
                export_svg(self.canvas.graph_scene, path, title=stem)
        except OSError as exc:
            self.report("Cannot export the image", str(exc))
            return False
        self.settings.save_directory = Path(path).resolve().parent
        self.show_message(f"Exported {Path(path).name}", 3000)
        return True

    # ================================================================== recovery
    def offer_recovery(self) -> bool:
        """After a crash: offer the autosaved graphs of instances that are gone, newest
        first; True when one was restored (the others stay for the next start)."""
        from datetime import datetime

        found = self.recovery.orphans()
        try:
            while found:
                candidate = found.pop(0)
                try:
                    recovered = self.recovery.load(candidate)
                except DocumentError:
                    candidate.remove()
                    continue
                when = datetime.fromtimestamp(recovered.saved_at).strftime("at %H:%M on %d %b")
                if not self.ask_restore(when):
                    candidate.remove()
                    continue
                self.set_document(recovered.document, recovered.original_path)
                # the restored graph is not saved anywhere yet: mark it modified
                self.state.undo_stack.set_dirty()
                self.bridge.changed.emit()
                self._update_title()
                self.recovery.write()  # now this instance's own recovery file
                candidate.remove()
                return True
            return False
        finally:
            for left in found:
                left.release()
