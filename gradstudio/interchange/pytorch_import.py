"""Import a PyTorch snippet as a document — by reading it (``ast``), never by running it.

Each statement becomes nodes in program order: calls are matched against the
catalogue (``torch.add``, ``F.linear``, ``x.sum()``, operators), the snippet's
variable names become node labels, ``class X(Function)`` definitions become
custom Function nodes holding their source.  Anything the studio cannot represent
raises ``ImportProblem`` with the line number.
"""

from __future__ import annotations

import ast

from gradstudio.document.layout import auto_layout
from gradstudio.document.model import Document
from gradstudio.evaluation.budget import DEFAULT_BUDGET
from gradstudio.interchange.snippet_building import GraphBuilder
from gradstudio.interchange.snippet_statements import StatementReader
from gradstudio.interchange.snippet_values import ImportProblem
from gradstudio.interchange.trust import admit


def _strip_prompts(source: str) -> str:
    """Doctest-style snippets (``>>> x = ...``) keep only their code lines."""
    lines = source.splitlines()
    if not any(line.lstrip().startswith(">>>") for line in lines):
        return source
    code = []
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith(">>>") or stripped.startswith("..."):
            code.append(stripped[4:] if len(stripped) > 3 and stripped[3] == " " else stripped[3:])
        else:
            code.append("")  # output lines: keep the numbering
    return "\n".join(code)


#: A teaching snippet is a page or two; a megabyte is already a thousand pages.
MAX_SNIPPET_CHARS = 1_000_000


def import_snippet(
    source: str,
    filename: str = "<snippet>",
    trusted: bool = False,
    memory_budget: int | None = DEFAULT_BUDGET,
) -> Document:
    """A document for a PyTorch snippet; its code is parsed, never run.

    A document with custom Function code is trusted only if ``trusted`` says so:
    the snippet may come from anywhere.  A tensor made from a shape bigger than
    ``memory_budget`` (the studio's Run > Memory Budget) is refused at its line,
    naming its size and the budget.
    """
    if len(source) > MAX_SNIPPET_CHARS:
        raise ImportProblem(
            f"the snippet is {len(source):,} characters long; "
            f"GradStudio imports snippets of up to {MAX_SNIPPET_CHARS:,}"
        )
    source = _strip_prompts(source)
    try:
        tree = ast.parse(source, filename)
    except SyntaxError as exc:
        raise ImportProblem(f"the snippet is not valid Python ({exc.msg})", exc.lineno) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ImportProblem(f"the snippet cannot be parsed ({exc})") from None
    build = GraphBuilder(memory_budget=memory_budget)
    try:
        StatementReader(source, build).run(tree)
    except RecursionError:
        raise ImportProblem("the snippet is nested too deeply") from None
    doc = build.doc
    for node_id, (x, y) in auto_layout(doc).items():
        doc.move_node(node_id, x, y)
    return admit(doc, trusted)
