"""Exports carry no code but the graph's, whatever text the document holds.

Hostile strings go into every text field (title, description, labels, the Function's
class name); the script must hold exactly the statements it holds for the same graph
with plain text, and running it must create no file.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradstudio.document.model import Document
from gradstudio.interchange.pytorch_export import ExportError, export_script
from gradstudio.interchange.pytorch_import import import_snippet

GRAPH = """\
import torch
from torch.autograd import Function
class Double(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2
x = torch.tensor([1., 2.], requires_grad=True)
y = Double.apply(x)
z = y[0]
s = y.sum() + z
g = torch.autograd.grad(s, [x])
"""

PAYLOAD = '__import__("pathlib").Path("INJECTED").touch()'
ATTACKS = [
    f"\n{PAYLOAD}",
    f"\r{PAYLOAD}",
    f"\r\n{PAYLOAD}",
    f"x\u2028{PAYLOAD}",
    f"x\x0c\n{PAYLOAD}",
    f"{{{PAYLOAD}}}",
    f"{{{PAYLOAD}!r}}",
    f"'{PAYLOAD}'",
    f'"{PAYLOAD}"',
    f"'''{PAYLOAD}",
    f'"""\n{PAYLOAD}\n"""',
    f"\\\n{PAYLOAD}",
    f"\\x00\x00{PAYLOAD}",
    f"\x1b[2J\x1b]0;{PAYLOAD}\x07",
    "coding: utf-7",
    "-*- coding: utf-7 -*-",
    f"+AAo-{PAYLOAD}",
    "ｔｏｒｃｈ",
    "torch",
    "print",
    "json",
    "_rows",
    "F",
    "device",
    "i",
    "t",
    "1abc",
    "lambda",
    "\ufeff#",
    "]) ; " + PAYLOAD + " ; ([",
]

hostile_text = st.one_of(
    st.sampled_from(ATTACKS),
    st.text(min_size=1, max_size=60),
    st.text(alphabet="{}'\"\\\n\r#:;()[]xyz \x00\x1b\u2028", min_size=1, max_size=30),
)


def base() -> Document:
    return import_snippet(GRAPH, trusted=True)


def shape(script: str) -> list[str]:
    """The script's syntax tree with names and constant values left out: two scripts
    of one graph differ only there, whatever their labels say."""
    tree = ast.parse(script)
    return [
        type(node).__name__
        for node in ast.walk(tree)
        if not isinstance(node, ast.expr_context | ast.operator | ast.cmpop)
    ]


def _plain_shape() -> list[str]:
    doc = base()
    for i, node in enumerate(doc.nodes()):
        doc.set_label(node.id, f"n{i}")
    return shape(export_script(doc))


PLAIN = _plain_shape()


def hostile_document(labels: list[str], title: str, description: str) -> Document:
    doc = base()
    nodes = doc.nodes()
    for node in nodes:  # free the labels first: hostile ones may repeat a current one
        doc.set_label(node.id, f"tmp_{node.id}")
    for node, label in zip(nodes, labels, strict=False):
        doc.set_label(node.id, label)
    doc.set_meta("title", title)
    doc.set_meta("description", description)
    return doc


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    labels=st.lists(
        hostile_text.filter(lambda s: s.strip() and len(s) <= 200), min_size=6, unique=True
    ),
    title=hostile_text,
    description=hostile_text,
)
def test_hostile_text_adds_no_statement(labels: list[str], title: str, description: str) -> None:
    doc = hostile_document(labels, title, description)
    script = export_script(doc)
    assert shape(script) == PLAIN
    compile(script, "<export>", "exec")
    header = script.splitlines()[:2]
    assert header == ["# Exported from GradStudio: run it with PyTorch installed.", "#"]


@pytest.mark.parametrize("name", ["json", "ｊｓｏｎ", "print", "_facts"])
def test_a_class_name_the_script_uses_is_refused(name: str) -> None:
    doc = base()
    (function,) = [n for n in doc.nodes() if n.type_id == "torch.autograd.Function"]
    doc.set_param(function.id, "class_name", name)
    with pytest.raises(ExportError, match="rename the class"):
        export_script(doc)


@pytest.mark.torch
def test_running_a_hostile_export_creates_no_file(tmp_path: Path) -> None:
    labels = [a for a in ATTACKS if a.strip()][:6]
    doc = hostile_document(labels, ATTACKS[0], ATTACKS[5])
    script = tmp_path / "export.py"
    script.write_text(export_script(doc), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export.py"]
    assert '"label": "' in run.stdout
