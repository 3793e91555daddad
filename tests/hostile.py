"""Documents whose custom Function misbehaves: the inputs issue 9 says must not hurt.

``hostile(body)`` builds x -> f (a trusted Function whose forward runs ``body``
first) -> after (neg), so a test sees the step that misbehaved and the one after it.
"""

from __future__ import annotations

import textwrap

from gradstudio.document.model import Document

#: Forward bodies, by what they do to the process running them.
HOSTILE = {
    "busy loop": "while True:\n    pass",
    "sleep loop": "import time\nwhile True:\n    time.sleep(0.01)",
    "SystemExit": "raise SystemExit(3)",
    "KeyboardInterrupt": "raise KeyboardInterrupt",
    "os._exit": "import os\nos._exit(1)",
}
HANGS = ("busy loop", "sleep loop")


def function_source(body: str = "") -> str:
    return (
        "class Func(Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        + textwrap.indent(body or "pass", " " * 8)
        + "\n        return x * 2\n\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad):\n"
        "        return grad * 2\n"
    )


def hostile(body: str = "", trusted: bool = True) -> Document:
    """x = [1.0] -> f (Function running ``body``) -> after = -f; ``body=""`` is harmless."""
    doc = Document()
    x = doc.new_node("torch.tensor", (0, 0), {"data": [1.0], "requires_grad": True}, "x")
    doc.add_node(x)
    f = doc.new_node("torch.autograd.Function", (250, 0), {"source": function_source(body)}, "f")
    doc.add_node(f)
    doc.connect(x.id, "out", f.id, "x")
    after = doc.new_node("torch.neg", (500, 0), label="after")
    doc.add_node(after)
    doc.connect(f.id, "out", after.id, "input")
    doc.set_trusted(trusted)
    return doc
