"""A lesson as data: which example it opens and its steps, read from a ``.gslesson`` file.

A lesson is JSON, not code, so it is safe to share: every field is checked on load
and a bad file is refused with the place it went wrong (``LessonError``).  Steps:
``{"say": text}``, ``{"predict": {"node", "fact", "question"}}`` (the learner
answers, the run checks it against the engine) and ``{"explain": label}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gradstudio.locations import EXAMPLES_DIR, LESSONS_DIR

FORMAT = "gradstudio-lesson"
VERSION = 1
EXTENSION = ".gslesson"
#: The facts a learner may be asked to predict (``gradstudio.lessons.check``).
FACTS = ("grad", "is_leaf", "requires_grad", "grad_fn", "retains_grad")
KINDS = ("say", "predict", "explain")


class LessonError(ValueError):
    """A lesson file that is not a valid lesson: the message names the place."""


@dataclass(frozen=True)
class Step:
    kind: str  # "say" | "predict" | "explain"
    text: str  # what the learner reads (the question, for a prediction)
    node: str = ""  # the tensor's label (predict, explain)
    fact: str = ""  # predict: one of FACTS


@dataclass(frozen=True)
class Lesson:
    name: str
    title: str
    example: str  # the shipped example it opens (its file name without extension)
    steps: tuple[Step, ...]

    @property
    def example_path(self) -> Path:
        return EXAMPLES_DIR / f"{self.example}.gstudio"


def _text(value: Any, where: str, limit: int = 2000) -> str:
    if not isinstance(value, str) or not value.strip():
        raise LessonError(f"{where}: expected some text")
    if len(value) > limit:
        raise LessonError(f"{where}: longer than {limit} characters")
    return value.strip()


def _step(raw: Any, where: str) -> Step:
    if not isinstance(raw, dict) or len(raw) != 1 or next(iter(raw)) not in KINDS:
        raise LessonError(f"{where}: expected one of {{{', '.join(KINDS)}: ...}}")
    kind, body = next(iter(raw.items()))
    if kind == "say":
        return Step("say", _text(body, where))
    if kind == "explain":
        node = _text(body, where, 200)
        return Step("explain", f"How {node}.grad came to be: see the Explain panel.", node)
    if not isinstance(body, dict) or set(body) != {"node", "fact", "question"}:
        raise LessonError(f"{where}: a prediction has exactly node, fact and question")
    fact = body["fact"]
    if fact not in FACTS:
        raise LessonError(f"{where}: unknown fact {fact!r} (facts: {', '.join(FACTS)})")
    return Step("predict", _text(body["question"], where), _text(body["node"], where, 200), fact)


def parse_lesson(text: str, name: str) -> Lesson:
    """A lesson from its JSON text; ``name`` says where it came from in messages."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LessonError(f"lesson {name}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise LessonError(f"lesson {name}: not a GradStudio lesson (format {FORMAT!r})")
    if raw.get("version") != VERSION:
        raise LessonError(f"lesson {name}: version {raw.get('version')!r}, expected {VERSION}")
    extra = set(raw) - {"format", "version", "title", "example", "steps"}
    if extra:
        raise LessonError(f"lesson {name}: unknown field {sorted(extra)[0]!r}")
    example = _text(raw.get("example"), f"lesson {name}: example", 100)
    if not (EXAMPLES_DIR / f"{example}.gstudio").is_file():
        raise LessonError(f"lesson {name}: no shipped example {example!r}")
    steps = raw.get("steps")
    if not isinstance(steps, list) or not steps:
        raise LessonError(f"lesson {name}: steps must be a non-empty list")
    return Lesson(
        name,
        _text(raw.get("title"), f"lesson {name}: title", 120),
        example,
        tuple(_step(s, f"lesson {name}: step {i + 1}") for i, s in enumerate(steps)),
    )


def load_lesson(path: str | Path) -> Lesson:
    path = Path(path)
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LessonError(f"lesson {path.name}: cannot be read ({exc})") from None
    return parse_lesson(text, path.stem)


def shipped_lessons() -> list[Lesson]:
    """The lessons the studio ships, in file-name order."""
    return [load_lesson(p) for p in sorted(LESSONS_DIR.glob(f"*{EXTENSION}"))]
