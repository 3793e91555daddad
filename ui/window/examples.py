"""The example graphs shipped in ``resources/examples`` (the Examples menu and the first start)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from gradstudio.locations import EXAMPLES_DIR

START_EXAMPLE = "001"  # the seed 001 graph: w.grad == 5, a non-leaf with AddBackward0


@dataclass(frozen=True)
class ExampleFile:
    path: Path
    title: str

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def menu_text(self) -> str:
        number, _, _rest = self.name.partition("_")
        prefix = f"{number}  " if number.isdigit() else ""
        return prefix + (self.title or self.name.replace("_", " "))


def _title(path: Path) -> str:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        title = data.get("meta", {}).get("title", "")
        return title if isinstance(title, str) else ""
    except (OSError, ValueError, AttributeError):
        return ""


def example_files(directory: Path = EXAMPLES_DIR) -> list[ExampleFile]:
    """Every ``*.gstudio`` example, in name order."""
    if not directory.is_dir():
        return []
    return [ExampleFile(p, _title(p)) for p in sorted(directory.glob("*.gstudio"))]


def start_example(directory: Path = EXAMPLES_DIR) -> ExampleFile | None:
    """The example the studio opens on: seed 001 when present, else the first."""
    files = example_files(directory)
    for f in files:
        if f.name.startswith(START_EXAMPLE) or f.name.startswith(f"seed_{START_EXAMPLE}"):
            return f
    return files[0] if files else None
