"""Lessons are data: the shipped ones load, every prediction they ask names a tensor of
their example, answers are checked against the engine, and bad files are refused with
the place they went wrong."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gradstudio.evaluation.plan import prepare
from gradstudio.evaluation.results import Evaluation
from gradstudio.interchange.fileformat import load_document
from gradstudio.lessons.check import check_prediction
from gradstudio.lessons.model import LessonError, parse_lesson, shipped_lessons
from gradstudio.locations import LESSONS_DIR

TOPICS = ["is_leaf", "retain_grad", "detach", "grad_fn", "save_for_backward"]


def _run(lesson: Any) -> Evaluation:
    doc = load_document(lesson.example_path)
    doc.set_trusted(True)
    return prepare(doc).run()


def test_five_seed_topics_ship() -> None:
    lessons = shipped_lessons()
    assert len(lessons) == 5
    text = [" ".join([x.title, *(s.text for s in x.steps)]) for x in lessons]
    for topic, lesson_text in zip(TOPICS, text, strict=True):
        assert topic in lesson_text
    assert all(any(s.kind == "predict" for s in x.steps) for x in lessons)
    assert all(any(s.kind == "explain" for s in x.steps) for x in lessons)


@pytest.mark.parametrize("lesson", shipped_lessons(), ids=lambda x: x.name)
def test_every_prediction_can_be_checked(lesson: Any) -> None:
    ev = _run(lesson)
    assert ev.ok
    for step in lesson.steps:
        if step.kind == "predict":
            verdict = check_prediction(ev, step.node, step.fact, "no idea")
            assert not verdict.correct
            assert check_prediction(ev, step.node, step.fact, verdict.expected).correct


def test_answers_read_as_a_person_writes_them() -> None:
    lesson = next(x for x in shipped_lessons() if x.example == "001_leaf_grad")
    ev = _run(lesson)
    for said in ("5", "tensor([5.])", "[5.0]", " 5. "):
        assert check_prediction(ev, "w", "grad", said).correct, said
    for said in ("4", "[5, 5]", "None"):
        assert not check_prediction(ev, "w", "grad", said).correct, said
    assert check_prediction(ev, "a", "grad", "None").correct
    assert check_prediction(ev, "a", "is_leaf", "false").correct
    assert check_prediction(ev, "a", "grad_fn", "<AddBackward0 object at 0x7f>").correct


def _lesson(**changes: Any) -> str:
    raw: dict[str, Any] = {
        "format": "gradstudio-lesson",
        "version": 1,
        "title": "t",
        "example": "001_leaf_grad",
        "steps": [{"predict": {"node": "w", "fact": "grad", "question": "w.grad?"}}],
    }
    raw.update(changes)
    return json.dumps(raw)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "lesson bad: not JSON"),
        (_lesson(format="x"), "not a GradStudio lesson"),
        (_lesson(version=2), "version 2, expected 1"),
        (_lesson(example="../../etc/passwd"), "no shipped example"),
        (_lesson(steps=[]), "steps must be a non-empty list"),
        (_lesson(steps=[{"run": "import os"}]), "step 1: expected one of {say, predict, explain"),
        (
            _lesson(steps=[{"predict": {"node": "w", "fact": "__class__", "question": "?"}}]),
            "step 1: unknown fact '__class__'",
        ),
        (_lesson(code="print(1)"), "unknown field 'code'"),
    ],
)
def test_bad_lessons_are_refused(text: str, message: str) -> None:
    with pytest.raises(LessonError, match=message.replace("{", r"\{").replace("(", r"\(")):
        parse_lesson(text, "bad")


def test_lessons_ship_as_package_data() -> None:
    setup = (LESSONS_DIR.parents[1] / "setup.py").read_text("utf-8")
    assert '"lessons/*.gslesson"' in setup
    assert LESSONS_DIR.is_dir()
