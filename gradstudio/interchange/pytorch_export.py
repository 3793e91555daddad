"""Export a document as a runnable PyTorch script.

Each step becomes one statement, written by its node type's ``code`` (the catalogue
knows how every node reads as PyTorch).  With ``facts=True`` the script ends by
printing every tensor's facts as JSON in the shape of ``main.py run --json``, so a
test can run it under real PyTorch and compare with the engine.

The only code in the script is the graph's: every text the user or a file chose
(labels, parameters, the title and description) reaches it as a Python literal
(``repr``), a checked identifier, or a comment line with its line breaks and
control characters escaped, so no text can end a line and start a statement.
"""

from __future__ import annotations

import ast
import keyword
import re
import unicodedata
from typing import TYPE_CHECKING, Any

from gradstudio.catalogue import CodeCall, NodeInputError, NodeKind, PortType
from gradstudio.document.groups import ancestors
from gradstudio.interchange.quoting import printable, shorten

if TYPE_CHECKING:
    from gradstudio.document.model import Document
    from gradstudio.document.values import Node

#: Names the script itself binds or calls: no label or class may take them.
RESERVED = {"torch", "F", "Function", "json", "device", "_facts", "_rows", "_out"} | {
    "print",
    "enumerate",
    "isinstance",
    "list",
    "str",
}


class ExportError(Exception):
    """The document cannot be written as PyTorch yet (e.g. an input is not connected)."""

    def __init__(self, message: str, node_id: str | None = None) -> None:
        super().__init__(shorten(printable(message)))  # it quotes labels: one safe line
        self.node_id = node_id


def identifier(label: str, taken: set[str]) -> str:
    """A Python name for a label: ``w`` stays ``w``, ``b.zero_()`` becomes ``b_zero``.

    Names are compared as Python reads them (NFKC: ``ｔｏｒｃｈ`` is ``torch``), so a
    label can never rebind ``torch`` or another node's variable.
    """
    name = re.sub(r"\W+", "_", unicodedata.normalize("NFKC", label)).strip("_") or "t"
    if not name.isidentifier():  # letters that are not identifier letters
        name = re.sub(r"[^0-9A-Za-z_]+", "_", name).strip("_") or "t"
    if name[0].isdigit():
        name = "t_" + name
    if keyword.iskeyword(name) or name in RESERVED:
        name += "_"
    base, k = name, 2
    while name in taken:
        name = f"{base}_{k}"
        k += 1
    taken.add(name)
    return name


FACTS_HELPER = '''

def _facts(label, node, t):
    """The facts GradStudio shows for one tensor (None-safe, never warns)."""
    if t is None:
        return {"label": label, "node": node, "value": None}
    fn = t.grad_fn
    keeps = t.is_leaf or t.retains_grad
    return {
        "label": label,
        "node": node,
        "shape": list(t.shape),
        "dtype": str(t.dtype).rsplit(".", 1)[-1],
        "device": str(t.device),
        "requires_grad": t.requires_grad,
        "is_leaf": t.is_leaf,
        "grad_fn": None if fn is None else fn.name().removeprefix("torch::autograd::"),
        "next_functions": None if fn is None else [
            None if n is None else [n.name().removeprefix("torch::autograd::"), i]
            for n, i in fn.next_functions
        ],
        "grad": t.grad.detach().cpu().tolist() if keeps and t.grad is not None else None,
        "retains_grad": t.retains_grad,
        "version": t._version,
        "value": t.detach().cpu().tolist(),
    }
'''


def export_script(doc: Document, facts: bool = True) -> str:
    """The document as a PyTorch program (``ExportError`` if a node is incomplete)."""
    taken: set[str] = set()
    names: dict[str, str] = {}
    lines: list[str] = []
    classes: dict[str, str] = {}
    for node in doc.nodes():
        if node.type.kind is NodeKind.CUSTOM_FUNCTION:
            # a Function node defines a class, a hook node a function
            what = "class" if "class_name" in node.params else "function"
            name = unicodedata.normalize(
                "NFKC", node.params.get("class_name") or node.params["name"]
            )
            source = node.params["source"]
            if name in RESERVED:
                raise ExportError(
                    f"node '{node.label}': the {what} name {name!r} is a name the script "
                    f"itself uses; rename the {what}",
                    node.id,
                )
            if classes.get(name, source) != source:
                raise ExportError(f"two nodes define {name} differently", node.id)
            classes[name] = source
            taken.add(name)
    for node in doc.nodes():
        if node.type.outputs:
            names[node.id] = identifier(node.label, taken)
    chain: list[str] = []
    for node in doc.nodes():
        lines.extend(_group_headers(doc, node.id, chain))
        lines.extend(_statement(doc, node, names))

    # a fixed first line: Python reads an encoding declaration on line 1 or 2, and
    # a title such as "coding: utf-7" must not get to choose how the script is read
    out = ["# Exported from GradStudio: run it with PyTorch installed.", "#"]
    out += _comment(doc.meta.get("title") or "a GradStudio document")
    if doc.meta.get("description"):
        out += ["#", *_comment(doc.meta["description"])]
    if facts:
        out.append("import json")
        out.append("")
    out += [
        "import torch",
        "import torch.nn.functional as F",
        "from torch.autograd import Function",
        "",
    ]
    out += [
        f"device = {doc.settings['device']!r}",
        f"torch.manual_seed({doc.settings['seed']})",
        "",
    ]
    for source in classes.values():
        out += ["", source.rstrip(), "", ""]
    out += lines
    if facts:
        out.append(FACTS_HELPER)
        out += _facts_footer(doc, names)
    return "\n".join(out).rstrip() + "\n"


def _group_headers(doc: Document, node_id: str, chain: list[str]) -> list[str]:
    """A comment line for each group the program enters at this node (outermost first);
    ``chain`` holds the groups around the previous node and is updated."""
    group = doc.group_of(node_id)
    now = [] if group is None else [group.id, *ancestors(doc.groups, group.id)][::-1]
    entered = [g for i, g in enumerate(now) if i >= len(chain) or chain[i] != g]
    chain[:] = now
    return [f"# ── group: {printable(doc.group(g).title)}" for g in entered]


def _comment(text: str) -> list[str]:
    """``text`` as comment lines: each of its lines escaped to one printable line."""
    return ["# " + printable(line) for line in text.splitlines() or [""]]


def _port_expr(doc: Document, node_id: str, port: str, names: dict[str, str]) -> str:
    node = doc.node(node_id)
    var = names[node_id]
    returned = node.type.returned(node.params)
    if len(returned) == 1:
        return var
    index = returned.index(port)
    return (
        f"({var}[{index}] if isinstance({var}, tuple) else {var})"
        if index == 0
        else f"{var}[{index}]"
    )


def _statement(doc: Document, node: Node, names: dict[str, str]) -> list[str]:
    inputs: dict[str, Any] = {}
    for port in node.type.inputs:
        exprs = [
            _port_expr(doc, e.src, e.src_port, names) for e in doc.inputs_of(node.id, port.name)
        ]
        inputs[port.name] = exprs if port.variadic else (exprs[0] if exprs else None)
        if not port.variadic and not port.optional and not exprs and not port.scalar_ok:
            raise ExportError(f"node '{node.label}': input {port.name!r} is not connected", node.id)
    try:
        code = node.type.code(CodeCall(inputs, dict(node.params), doc.settings["device"]))
    except NodeInputError as exc:
        raise ExportError(f"node '{node.label}': {exc}", node.id) from None
    if node.type.outputs and _is_expression(code):
        code = f"{names[node.id]} = {code}"
    elif node.type.outputs:
        code = f"{code}\n{names[node.id]} = {inputs.get('input')}"
    lines = code.splitlines()
    if node.params.get("no_grad"):
        return ["with torch.no_grad():", *("    " + line for line in lines)]
    return lines


def _is_expression(code: str) -> bool:
    try:
        ast.parse(code, mode="eval")
    except SyntaxError:
        return False
    return True


def _facts_footer(doc: Document, names: dict[str, str]) -> list[str]:
    out = ["", "_rows = []"]
    for node in doc.nodes():
        for port in node.type.outputs:
            expr = _port_expr(doc, node.id, port.name, names)
            if port.type is PortType.TENSORS:
                out.append(
                    f"_rows += [({node.label!r} + f'[{{i}}]', {node.id!r}, t) "
                    f"for i, t in enumerate({expr})]"
                )
            else:
                label = node.label if len(node.type.outputs) == 1 else f"{node.label}.{port.name}"
                out.append(f"_rows.append(({label!r}, {node.id!r}, {expr}))")
    out.append('print(json.dumps({"device": device, "nodes": [_facts(*row) for row in _rows]}))')
    return out
