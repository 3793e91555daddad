"""Run to import: a PyTorch program runs in a child process and comes back as a graph.

Running someone's code is a decision, so the dialog says plainly that the program will
run on this computer, what it can reach there, and that the code it runs (its custom
Functions and hooks) comes into the document trusted, and waits for Run.  Where the system
offers it, "Isolate" runs it with no network and writes only to its own temporary folder;
where it does not, the box is off and the reason is written beside it.  The program runs
in its own process tree (the window stays live); Cancel ends all of it at once.
A problem is shown in one line with the program's line number, and the dialog stays open to
try again.
"""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gradstudio.document.model import Document
from gradstudio.interchange.program_import.runner import (
    KEEP_ITERATIONS,
    Recording,
    document_of,
)
from gradstudio.interchange.pytorch_import import ImportProblem
from gradstudio.sandbox.isolation import unavailable as isolation_unavailable

#: How often the dialog looks whether the program has finished, in milliseconds.
POLL_MS = 50


class ProgramDialog(QDialog):
    """``document`` holds the recorded graph once the dialog is accepted."""

    def __init__(
        self, program: str | Path, parent: QWidget | None = None, keep: int = KEEP_ITERATIONS
    ) -> None:
        super().__init__(parent)
        self.keep = keep
        self.setObjectName("programDialog")
        self.setWindowTitle("Run to import")
        self.setMinimumWidth(480)
        self.program = Path(program)
        self.document: Document | None = None
        self.recording: Recording | None = None
        layout = QVBoxLayout(self)
        self.intro = QLabel(
            f"<b>{html.escape(self.program.name)}</b> will run on this computer, with your "
            "permissions, so that GradStudio can record what it computes: it can read and "
            "change your files and use the network. The custom Functions and hooks it runs "
            "come into the document trusted: they are the code you ran. "
            "Run it only if you trust it."
        )
        self.intro.setWordWrap(True)
        unavailable = isolation_unavailable()
        self.isolate = QCheckBox("Isolate: no network, and writes only to a temporary folder")
        self.isolate.setObjectName("isolateCheck")
        self.isolate.setEnabled(unavailable is None)
        self.isolate_reason = QLabel(f"Isolation is unavailable: {unavailable}.")
        self.isolate_reason.setObjectName("errorLabel")
        self.isolate_reason.setProperty("hint", True)
        self.isolate_reason.setWordWrap(True)
        self.isolate_reason.setVisible(unavailable is not None)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)  # busy: how long a program runs is not known
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.hide()
        self.problem = QLabel()
        self.problem.setObjectName("errorLabel")
        self.problem.setWordWrap(True)
        self.problem.hide()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.run_button: QPushButton = self.buttons.addButton(
            "Run", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.run_button.setObjectName("runProgramButton")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.start)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.intro)
        layout.addWidget(self.isolate)
        layout.addWidget(self.isolate_reason)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stop)  # the program does not outlive the studio
        self.resize(self.minimumWidth(), 0)
        self._fit()

    def _fit(self) -> None:
        """Be as tall as the wrapped text at this width.  Qt sizes a dialog from its
        labels' unwrapped hints: that left a blank band under the question, and the
        text squeezed when the progress bar and a message appeared."""
        layout = self.layout()
        layout.activate()
        self.resize(self.width(), layout.heightForWidth(self.width()))

    def start(self) -> None:
        """Run the program in its child process; the window stays responsive."""
        self.problem.hide()
        try:
            self.recording = Recording(self.program, self.keep, self.isolate.isChecked())
        except OSError as exc:
            self.fail(f"the program could not be started: {exc}")
            return
        except ImportProblem as exc:  # a notebook that cannot be read
            self.fail(str(exc))
            return
        self.run_button.setEnabled(False)
        self.isolate.setEnabled(False)
        self.progress.show()
        self.status.setText(f"Running {self.program.name}… Cancel stops it.")
        self.status.show()
        self._fit()
        self.timer.start()

    def poll(self) -> None:
        recording = self.recording
        if recording is None or not recording.done():
            return
        self.timer.stop()
        self.recording = None
        try:
            self.document = document_of(self.program, recording.report())
        except ImportProblem as exc:
            self.fail(str(exc))
            return
        self.progress.hide()
        self.status.hide()
        self.accept()

    def fail(self, message: str) -> None:
        """One line saying what went wrong (with the program's line); Run tries again."""
        self.progress.hide()
        self.status.hide()
        self.problem.setText(message.splitlines()[0] if message else "the import failed")
        self.problem.show()
        self._fit()
        self.run_button.setEnabled(True)
        self.isolate.setEnabled(isolation_unavailable() is None)

    def reject(self) -> None:
        """Cancel: a running program is ended at once."""
        self.stop()
        super().reject()

    def stop(self) -> None:
        self.timer.stop()
        if self.recording is not None:
            self.recording.stop()
            self.recording.close()
            self.recording = None

    @property
    def running(self) -> bool:
        return self.recording is not None
